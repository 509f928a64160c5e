// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl run, and what it shares with tune: COMMAND (and all it
 * starts) in a cgroup v2 of its own under a cgroup= rule put before the
 * user's rules, which are left as found at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

static const char run_optstring[] = "+:o:sh";
static const struct option run_opts[] = {
	{ "order", required_argument, NULL, 'o' },
	{ "stats", no_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_run(int argc, char **argv);

const struct cmd cmd_run = {
	"run", do_run, run_optstring, run_opts,
	"usage: " PROG " run [--order N] [--stats] -- COMMAND [ARGS]",
	"Run COMMAND, and every process it starts, at order N, in a cgroup of its own.\n"
	"Exit status: COMMAND's (128 + a signal); 1 or 2 if run itself failed.\n"
	"  --order N        0..max_order (default: the order of processes without a rule)\n"
	"  --stats          wall and CPU time, faults and the rule's counters, on stderr\n"
};

volatile sig_atomic_t tune_sig;

static void tune_on_signal(int sig)
{
	tune_sig = sig;
}

static const int tune_sigs[3] = { SIGINT, SIGTERM, SIGHUP };

/*
 * SIGINT, SIGTERM and SIGHUP end waits (no SA_RESTART); old[3] keeps
 * theirs.  A SIGHUP ignored when we started (nohup) stays ignored, for
 * us and for the command.  SIGINT is caught even if ignored: a shell
 * ignores it in every background job, and scripts stop those with it.
 */
void tune_signals(struct sigaction *old)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tune_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++) {
		sigaction(tune_sigs[i], &sa, &old[i]);
		if (tune_sigs[i] == SIGHUP && old[i].sa_handler == SIG_IGN)
			sigaction(tune_sigs[i], &old[i], NULL);
	}
}

void tune_signals_restore(const struct sigaction *old)
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGHUP, &old[2], NULL);
}

double mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait for the child; forward a signal we got, kill it if it lingers. */
int wait_child(pid_t pid, int *status, struct rusage *ru)
{
	double deadline = 0;
	int forwarded = 0;

	for (;;) {
		pid_t w = wait4(pid, status, tune_sig ? WNOHANG : 0, ru);

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (tune_sig && !forwarded) {
			kill(pid, tune_sig);	/* the signal we got, as it is */
			forwarded = 1;
			deadline = mono_now() + 5;
		}
		if (tune_sig && w == 0) {
			if (mono_now() > deadline) {
				kill(pid, SIGKILL);
				deadline = mono_now() + 60;
			}
			usleep(20000);
		}
	}
}

/*
 * Put tune's cgroup= rule first at @order (< 0: take it out), the user's
 * rules kept after it.  0, or an exit code after saying why.
 */
int tune_rule(struct tune_ctx *t, int order)
{
	int err = mmt_policy_own(t->cg.match, order);
	int e = errno;

	if (!err)
		return 0;
	if ((e == ESRCH || e == ENOENT) && mmt_module_loaded()) {
		fprintf(stderr, PROG ": the module refuses the rules (%s) %s tune's %s\n", strerror(e),
			order < 0 ? "without" : "with", t->cg.match);
		return MMT_EXIT_FAIL;
	}
	return lib_fail(err);
}

void print_cmd(FILE *f, char **cmd)
{
	int i;

	for (i = 0; cmd[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd[i]);
}

/*
 * Take tune's rule out and remove its cgroup, whatever happened: 0, or
 * an exit code after saying why (the policy is not as it was found).
 */
int tune_cleanup(struct tune_ctx *t)
{
	int rc = 0, err;

	if (t->cg.made) {
		rc = tune_rule(t, -1);
		if (rc)
			fprintf(stderr, PROG ": tune's rule may be left: remove it with "
				"'" PROG " policy del %s'\n", t->cg.match);
		err = mmt_cg_remove(&t->cg);
		if (err && !rc)
			rc = lib_fail(err);
	}
	return rc;
}

/* The counters of rule match, read before the rule goes: 0 if found. */
int rule_ctrs(const char *match, struct mmt_prule *out)
{
	struct mmt_policy *ps = malloc(sizeof(*ps));
	int i, rc = -1;

	if (ps && !read_policy(ps))
		for (i = 0; i < ps->nr && rc; i++)
			if (!strcmp(ps->r[i].match, match)) {
				*out = ps->r[i];
				rc = 0;
			}
	free(ps);
	return rc;
}

static void run_stats(const struct tune_ctx *t, int order, const struct rusage *ru, double wall)
{
	struct mmt_prule r;
	char h[32] = "-", p[32] = "-";

	if (!rule_ctrs(t->cg.match, &r)) {
		if (r.has_hits)
			snprintf(h, sizeof(h), "%llu", r.hits);
		if (r.has_pages)
			snprintf(p, sizeof(p), "%llu", r.pages);
	}
	fprintf(stderr, PROG ": run: order %d: wall_s %.3f cpu_s %.3f minor_faults %ld major_faults %ld "
		"fault_around_calls %s pages %s\n", order, wall,
		(double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
		(double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6,
		ru->ru_minflt, ru->ru_majflt, h, p);
}

/*
 * The child of run and tune: held on @go until the parent has put it in
 * the cgroup and written its rule, then exec.  With @quiet, COMMAND's
 * output goes to /dev/null and its stderr to t->errfd (tune keeps its
 * last words).  An exec that fails sends its errno on @ex.
 */
void cmd_child(struct tune_ctx *t, const int *go, const int *ex, bool quiet)
{
	struct sigaction sa;
	char c;
	int e, i;

	/* ours back to the default; an ignored one stays ignored */
	for (i = 0; i < 3; i++)
		if (!sigaction(tune_sigs[i], NULL, &sa) && sa.sa_handler == tune_on_signal)
			signal(tune_sigs[i], SIG_DFL);
	close(go[1]);
	close(ex[0]);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	if (c == 't' && t->child_setup)
		t->child_setup();
	if (quiet) {
		dup2(t->devnull, STDOUT_FILENO);
		dup2(t->errfd, STDERR_FILENO);
	}
	execvp(t->cmd[0], t->cmd);
	e = errno;
	if (write(ex[1], &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

/*
 * Fork COMMAND held on a pipe, move it into the cgroup, put the rule in,
 * let it exec, wait.  *status: its wait status.  0, or an exit code.
 */
int run_ruled(struct tune_ctx *t, int order, int *status, struct rusage *ru, double *wall)
{
	int go[2], ex[2], e = 0, rc;
	bool traced = false;
	char go_c = 'g';
	double t0;
	ssize_t n;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return fprintf(stderr, PROG ": pipe: %s\n", strerror(errno)), MMT_EXIT_FAIL;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return fprintf(stderr, PROG ": pipe: %s\n", strerror(errno)), MMT_EXIT_FAIL;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		cmd_child(t, go, ex, false);
	close(go[0]);
	close(ex[1]);
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		close(go[1]);
		close(ex[0]);
		return MMT_EXIT_FAIL;
	}
	rc = mmt_cg_enter(&t->cg, pid);
	rc = rc ? lib_fail(rc) : tune_rule(t, order);
	if (!rc && t->started)
		rc = t->started(pid, t->started_arg, &traced);
	if (traced)
		go_c = 't';	/* cmd_child calls child_setup */
	if (!rc && tune_sig)
		rc = 128 + tune_sig;	/* interrupted before it started, as a shell says */
	else if (!rc && write(go[1], &go_c, 1) != 1)
		rc = (fprintf(stderr, PROG ": cannot start the command: %s\n", strerror(errno)), MMT_EXIT_FAIL);
	close(go[1]);
	t0 = mono_now();
	do
		n = read(ex[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ex[0]);
	if (wait_child(pid, status, ru))
		return fprintf(stderr, PROG ": wait4: %s\n", strerror(errno)), MMT_EXIT_FAIL;
	*wall = mono_now() - t0;
	if (!rc && n == (ssize_t)sizeof(e)) {
		fprintf(stderr, PROG ": cannot run %s: %s\n", t->cmd[0], strerror(e));
		rc = e == ENOENT ? 127 : 126;
	}
	return rc;
}


static int do_run(int argc, char **argv)
{
	struct tune_ctx t = { .errfd = -1, .devnull = -1 };
	struct sigaction old[3];
	struct mmt_policy *ps = NULL;
	struct rusage ru;
	int c, maxo, order = -1, stats = 0, rc, crc, status = 0;
	const char *order_arg = NULL;
	double wall = 0;
	long v;

	while ((c = getopt_long(argc, argv, run_optstring, run_opts, NULL)) != -1) {
		switch (c) {
		case 'o': order_arg = optarg; break;
		case 's': stats = 1; break;
		default: return bad_opt("run", c, argv);
		}
	}
	if (optind >= argc)
		return usage_err("run", "missing COMMAND (mmtunectl run [--order N] -- COMMAND [ARGS])");
	t.cmd = argv + optind;
	if (mmt_max_order(&maxo))
		return lib_fail(MMT_EIO);
	if (order_arg && mmt_parse_long(order_arg, 0, maxo, &v))
		return usage_err("run", "--order '%.40s': want 0..%d", order_arg, maxo);
	ps = malloc(sizeof(*ps));
	rc = ps ? -read_policy(ps) : lib_fail(MMT_EIO);
	if (!rc && ps->nr + 1 > ps->max_rules) {
		fprintf(stderr, PROG ": run needs room for one more rule (%d of %d in use)\n", ps->nr,
			ps->max_rules);
		rc = MMT_EXIT_FAIL;
	}
	/* no --order: the order processes without a rule get */
	order = order_arg ? (int)v : (ps ? ps->default_order : -1);
	free(ps);
	if (rc)
		return rc;
	if (order < 0)
		return fprintf(stderr, PROG ": run: cannot tell the default order\n"), MMT_EXIT_FAIL;

	tune_signals(old);
	rc = mmt_cg_create(&t.cg, "run");
	rc = rc ? lib_fail(rc) : run_ruled(&t, order, &status, &ru, &wall);
	if (stats && !rc)
		run_stats(&t, order, &ru, wall);
	crc = tune_cleanup(&t);
	tune_signals_restore(old);
	if (rc || crc)
		return rc ? rc : crc;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
