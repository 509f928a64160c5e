// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl tune: run COMMAND at each fault-around order in turn (in a
 * cgroup of its own, run.c), compare the medians, recommend an order
 * only when it beats the current one by more than the spread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"

#define TUNE_MAX_ORDERS	32
#define TUNE_MAX_REPEAT	100

static const char tune_optstring[] = "+:o:r:avjh";
static const struct option tune_opts[] = {
	{ "orders", required_argument, NULL, 'o' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "apply", no_argument, NULL, 'a' },
	{ "apply-comm", required_argument, NULL, 'A' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_tune(int argc, char **argv);

const struct cmd cmd_tune = {
	"tune", do_tune, tune_optstring, tune_opts,
	"usage: " PROG " tune [--orders LIST] [--repeat N] [--apply | --apply-comm NAME] [--verbose] [--json] -- COMMAND [ARGS]",
	"Time COMMAND (and what it starts) at each order in a cgroup of its own, and\n"
	"recommend an order only if it beats the current one by more than the spread.\n"
	"  --orders LIST      orders to try, e.g. 0,2,4,9 or 0-9 (default: all)\n"
	"  --repeat N         rounds (1..100, default 5)\n"
	"  --apply            install 'comm=COMMAND order=N' for the recommendation\n"
	"  --apply-comm NAME  the same for the program named NAME\n"
	"  --verbose          let COMMAND's output through\n"
	"  --json             one JSON object\n"
};

struct tune_run {
	double wall, cpu, minflt;
};

/* The last lines of the command's stderr, indented, on our stderr. */
static void show_stderr_tail(int fd)
{
	char buf[2048];
	off_t end = lseek(fd, 0, SEEK_END), from = end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, from);
	char *line, *save = NULL;

	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, PROG ":   | %s\n", line);
}


static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile p of sorted s[0..n), linearly interpolated. */
static double quantile(const double *s, int n, double p)
{
	double x = (n - 1) * p;
	int i = (int)x;

	return i + 1 >= n ? s[n - 1] : s[i] + (x - i) * (s[i + 1] - s[i]);
}

/*
 * Median and spread of v[0..n): the interquartile range, so that one
 * run disturbed by something else on the machine does not hide a real
 * difference (with 3 runs it is half of max - min).
 */
static void med_spread(const double *v, int n, double *med, double *spread)
{
	double *s = malloc(sizeof(*s) * (size_t)n);

	if (!s || !n) {
		*med = *spread = 0;
		free(s);
		return;
	}
	memcpy(s, v, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	*med = quantile(s, n, 0.5);
	*spread = quantile(s, n, 0.75) - quantile(s, n, 0.25);
	free(s);
}

/* The comm the kernel gives COMMAND: its file name, cut to 15 bytes. */
static void command_comm(const char *cmd, char *out, size_t len)
{
	const char *b = strrchr(cmd, '/');

	snprintf(out, len < 16 ? len : 16, "%s", b ? b + 1 : cmd);
}

/* An order=auto rule's order in force: what it has learned so far. */
static int auto_order(const struct mmt_prule *r, int maxo, int defo)
{
	int o = mmt_prule_order(r);

	return o < 0 || o > maxo ? defo : o;
}

/*
 * The order COMMAND gets today: that of the first rule that would match
 * it (comm, or a cgroup holding us, hence the child), else the default.
 */
static int current_order(const struct mmt_policy *ps, const char *comm, int maxo, int defo)
{
	char cg[PATH_MAX + 8] = "", line[PATH_MAX + 8];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int i;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			snprintf(cg, sizeof(cg), "%s", line + 3);
			cg[strcspn(cg, "\n")] = '\0';
		}
	if (f)
		fclose(f);
	for (i = 0; i < ps->nr; i++) {
		const struct mmt_prule *r = &ps->r[i];
		int hit = 0;

		/* the process key's value: up to an auto rule's learn_uid= */
		if (mmt_prule_maps(r))
			continue;	/* per mapping: no process's order */
		if (!strncmp(r->match, "comm=", 5))
			hit = !strcmp(r->match + 5, comm) ||
			      (!strncmp(r->match + 5, comm, strlen(comm)) &&
			       !strncmp(r->match + 5 + strlen(comm), " learn_uid=", 11));
		else if (!strncmp(r->match, "cgroup=", 7) && cg[0]) {
			const char *p = r->match + 7;
			size_t l = strcspn(p, " ");

			hit = (l == 1 && p[0] == '/') || (!strncmp(cg, p, l) && (cg[l] == '/' || !cg[l]));
		}
		if (hit) {
			long v;

			if (!strcmp(r->order, "default"))
				return defo;
			if (mmt_prule_is_auto(r))
				return auto_order(r, maxo, defo);
			return mmt_parse_long(r->order, 0, maxo, &v) ? ps->default_order : (int)v;
		}
	}
	return ps->default_order;
}

/*
 * Shells and interpreters: their name is that of every script they run,
 * so --apply installs comm= for them only when the user names it.
 */
static int is_interpreter(const char *comm)
{
	static const char *const exact[] = {
		"sh", "ash", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox",
		"env", "nice", "time", "timeout", "xargs", "make", "node", "nodejs", "java",
		"Rscript", NULL,
	};
	static const char *const prefix[] = {
		"python", "perl", "ruby", "php", "lua", "tclsh", "pypy", "guile", NULL,
	};
	int i;

	for (i = 0; exact[i]; i++)
		if (!strcmp(comm, exact[i]))
			return 1;
	for (i = 0; prefix[i]; i++)
		if (!strncmp(comm, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* A run that did not end with status 0: say how, with its last words. */
static int tune_failed(const struct tune_ctx *t, int status, int order)
{
	if (WIFEXITED(status))
		fprintf(stderr, PROG ": %s exited with status %d at order %d; its last words:\n",
			t->cmd[0], WEXITSTATUS(status), order);
	else
		fprintf(stderr, PROG ": %s was killed by signal %d at order %d; its last words:\n",
			t->cmd[0], WTERMSIG(status), order);
	show_stderr_tail(t->errfd);
	return MMT_EXIT_FAIL;
}

/* Let the held child exec and wait for it; fills res.  0 or an exit code. */
static int tune_wait(struct tune_ctx *t, pid_t pid, int *go, int exfd, int order,
		     struct tune_run *res)
{
	int status = 0, e;
	struct rusage ru;
	double t0, t1;
	ssize_t n;

	t0 = mono_now();
	if (write(go[1], "g", 1) != 1) {
		fprintf(stderr, PROG ": cannot start the command: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return MMT_EXIT_FAIL;
	}
	close(go[1]);
	go[1] = -1;
	do
		n = read(exfd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (wait_child(pid, &status, &ru)) {
		fprintf(stderr, PROG ": wait4: %s\n", strerror(errno));
		return MMT_EXIT_FAIL;
	}
	t1 = mono_now();
	/* daemons and strays of this run must not run into the next one */
	if (mmt_cg_kill(&t->cg))
		return lib_fail(MMT_EIO);
	if (n == (ssize_t)sizeof(e)) {
		fprintf(stderr, PROG ": cannot run %s: %s\n", t->cmd[0], strerror(e));
		return MMT_EXIT_FAIL;
	}
	if (tune_sig)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return tune_failed(t, status, order);
	res->wall = t1 - t0;
	res->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	res->minflt = (double)ru.ru_minflt;
	return 0;
}

static void close_pair(int *p)
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

/*
 * One run of the command at @order: fork, hold the child on a pipe until
 * it is in tune's cgroup and the cgroup's rule is at @order, then let it
 * exec.  Whatever it leaves running is killed afterwards.  0, or an exit
 * code after saying why.
 */
static int tune_once(struct tune_ctx *t, int order, struct tune_run *res)
{
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 }, rc;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return MMT_EXIT_FAIL;
	}
	if (ftruncate(t->errfd, 0) == 0)
		lseek(t->errfd, 0, SEEK_SET);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	if (pid == 0)
		cmd_child(t, go, ex, !t->verbose);
	close(go[0]);
	go[0] = -1;
	close(ex[1]);
	ex[1] = -1;

	rc = mmt_cg_enter(&t->cg, pid);
	rc = rc ? lib_fail(rc) : tune_rule(t, order);
	if (rc || tune_sig) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	rc = tune_wait(t, pid, go, ex[0], order, res);
out:
	close_pair(go);
	close_pair(ex);
	return rc;
}

struct tune_args {
	const char *orders_arg, *apply_comm;
	int apply, json;
	long repeat;
	char apply_match[MMT_MATCH_LEN];
	char comm[16];
};

/* What tune found: the orders tried, their medians and spreads, the advice. */
struct tune_res {
	int orders[TUNE_MAX_ORDERS + 1], norders, cur, cur_i, best, best_i;
	double med[TUNE_MAX_ORDERS + 1][3], spr[TUNE_MAX_ORDERS + 1][3];
	char rec[256], applied[MMT_MATCH_LEN + 16];
};

/* The options, and the rule --apply would install; 0 or an exit code. */
static int tune_parse(int argc, char **argv, struct tune_args *a, struct tune_ctx *t)
{
	int c;

	while ((c = getopt_long(argc, argv, tune_optstring, tune_opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->orders_arg = optarg; break;
		case 'r':
			if (mmt_parse_long(optarg, 1, TUNE_MAX_REPEAT, &a->repeat))
				return usage_err("tune", "--repeat: '%.40s' is not a count 1..%d", optarg,
						 TUNE_MAX_REPEAT);
			break;
		case 'a': a->apply = 1; break;
		case 'A': a->apply = 1; a->apply_comm = optarg; break;
		case 'v': t->verbose = 1; break;
		case 'j': a->json = 1; break;
		default: return bad_opt("tune", c, argv);
		}
	}
	if (optind >= argc)
		return usage_err("tune", "missing COMMAND (mmtunectl tune [options] -- COMMAND [ARGS])");
	t->cmd = argv + optind;
	command_comm(t->cmd[0], a->comm, sizeof(a->comm));
	if (a->apply_comm) {
		char m[MMT_MATCH_LEN];

		snprintf(m, sizeof(m), "comm=%.200s", a->apply_comm);
		return check_match("tune", m, a->apply_match, sizeof(a->apply_match));
	}
	if (a->apply && is_interpreter(a->comm))
		return usage_err("tune", "--apply: '%s' runs other programs, and comm=%s would match every "
				 "one on the machine: name the program with --apply-comm NAME", a->comm, a->comm);
	if (a->apply)
		snprintf(a->apply_match, sizeof(a->apply_match), "comm=%s", a->comm);
	return 0;
}

/*
 * The orders to try (--orders or all), with the order the command gets
 * now (the baseline) always among them.  0 or an exit code.
 */
static int tune_orders(const struct tune_args *a, const struct mmt_policy *ps, int maxo,
		       struct tune_res *x)
{
	int i, defo;

	if (mmt_default_order(&defo))
		defo = ps->default_order;
	x->cur = current_order(ps, a->comm, maxo, defo);
	if (!a->orders_arg)
		for (i = 0; i <= maxo && x->norders < TUNE_MAX_ORDERS; i++)
			x->orders[x->norders++] = i;
	for (i = 0; i < x->norders && x->orders[i] != x->cur; i++)
		;
	if (i == x->norders && x->cur >= 0) {
		for (i = x->norders; i > 0 && x->orders[i - 1] > x->cur; i--)
			x->orders[i] = x->orders[i - 1];
		x->orders[i] = x->cur;
		x->norders++;
	}
	x->cur_i = -1;
	for (i = 0; i < x->norders; i++)
		if (x->orders[i] == x->cur)
			x->cur_i = i;
	return 0;
}

/* Bounds and the policy, checked before anything is written; 0 or an exit code. */
static int tune_prepare(const struct tune_args *a, struct mmt_policy *ps, struct tune_res *x)
{
	int maxo, rc;

	if (mmt_max_order(&maxo))
		return lib_fail(MMT_EIO);
	if (maxo < 0 || maxo > 63)
		maxo = 63;
	if (a->orders_arg) {
		x->norders = parse_orders("tune", a->orders_arg, maxo, x->orders, TUNE_MAX_ORDERS);
		if (x->norders < 0)
			return -x->norders;
	}
	rc = -read_policy(ps);
	if (rc)
		return rc;
	if (ps->nr + 1 > ps->max_rules) {
		fprintf(stderr, PROG ": tune needs room for one more rule (%d of %d in use)\n",
			ps->nr, ps->max_rules);
		return MMT_EXIT_FAIL;
	}
	return tune_orders(a, ps, maxo, x);
}

/* /dev/null and an unlinked file for the command's stderr; 0 or an exit code. */
static int tune_files(struct tune_ctx *t)
{
	char tmpl[] = "/tmp/mmtunectl-tune.XXXXXX";

	t->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	t->errfd = mkostemp(tmpl, O_CLOEXEC);
	if (t->errfd >= 0)
		unlink(tmpl);
	if (t->devnull < 0 || t->errfd < 0) {
		fprintf(stderr, PROG ": cannot set up: %s\n", strerror(errno));
		return MMT_EXIT_FAIL;
	}
	return 0;
}

/*
 * The rounds, interleaved: every round runs each order once, from a
 * rotating start.  Then the user's rules back and tune's cgroup gone,
 * whatever happened.  0 or an exit code (128 + a signal).
 */
static int tune_rounds(struct tune_ctx *t, const struct tune_res *x, long repeat, struct tune_run *runs)
{
	struct sigaction old[3];
	int r, k, i, done = 0, rc, restored_rc;

	/* before the cgroup exists: a signal from here on ends in the cleanup */
	tune_signals(old);
	rc = mmt_cg_create(&t->cg, "tune");
	if (rc) {
		rc = lib_fail(rc);
	} else {
		fprintf(stderr, PROG ": tune: %d orders x %ld runs of '", x->norders, repeat);
		print_cmd(stderr, t->cmd);
		fprintf(stderr, "' (cgroup %s: the command and all it starts)\n", t->cg.path);
	}
	for (r = 0; r < repeat && !rc && !tune_sig; r++) {
		for (k = 0; k < x->norders && !rc && !tune_sig; k++) {
			i = (k + r) % x->norders;
			if (isatty(STDERR_FILENO))
				fprintf(stderr, "\r" PROG ": run %d/%ld at order %d ", done + 1,
					(long)x->norders * repeat, x->orders[i]);
			rc = tune_once(t, x->orders[i], &runs[(size_t)i * (size_t)repeat + (size_t)r]);
			if (!rc && !tune_sig)
				done++;
		}
	}
	if (isatty(STDERR_FILENO) && done)
		fputc('\n', stderr);
	restored_rc = tune_cleanup(t);
	if (!restored_rc && tune_sig)
		fprintf(stderr, PROG ": interrupted: policy restored\n");
	tune_signals_restore(old);
	if (tune_sig)
		return restored_rc ? restored_rc : 128 + tune_sig;
	return rc ? rc : restored_rc;
}

/* Medians and spreads per order, the fastest, and the recommendation. */
static void tune_summary(struct tune_res *x, long repeat, const struct tune_run *runs)
{
	double (*med)[3] = x->med, (*spr)[3] = x->spr;
	int i, k, r, b, c;

	x->best = x->best_i = -1;
	for (i = 0; i < x->norders; i++) {
		double v[3][TUNE_MAX_REPEAT];

		for (r = 0; r < repeat; r++) {
			const struct tune_run *y = &runs[(size_t)i * (size_t)repeat + (size_t)r];

			v[0][r] = y->wall;
			v[1][r] = y->cpu;
			v[2][r] = y->minflt;
		}
		for (k = 0; k < 3; k++)
			med_spread(v[k], (int)repeat, &med[i][k], &spr[i][k]);
		if (x->best_i < 0 || med[i][0] < med[x->best_i][0])
			x->best_i = i;
	}
	b = x->best_i;
	c = x->cur_i;
	if (c >= 0 && b != c && repeat >= 2 &&
	    med[c][0] - med[b][0] > (spr[c][0] > spr[b][0] ? spr[c][0] : spr[b][0])) {
		x->best = x->orders[b];
		snprintf(x->rec, sizeof(x->rec),
			 "order %d (wall %.3f s vs %.3f s at order %d, %+.0f%%; minor faults %.0f vs %.0f)",
			 x->best, med[b][0], med[c][0], x->cur,
			 100 * (med[b][0] - med[c][0]) / med[c][0], med[b][2], med[c][2]);
	} else if (repeat < 2) {
		snprintf(x->rec, sizeof(x->rec),
			 "no significant difference (one run per order has no spread: use --repeat 5)");
	} else if (b == c) {
		snprintf(x->rec, sizeof(x->rec), "no significant difference (the order now, %d, is the fastest)",
			 x->cur);
	} else {
		snprintf(x->rec, sizeof(x->rec),
			 "no significant difference (the fastest, order %d, is within the spread of order %d)",
			 x->orders[b], x->cur);
	}
}

/* --apply: the recommendation first, before the rules there now; one for the same name replaced. */
static int tune_apply(const struct tune_args *a, struct mmt_policy *ps, struct tune_res *x)
{
	struct mmt_prule *all;
	int m = 1, i, rc;

	if (!a->apply)
		return 0;
	if (x->best < 0) {
		fprintf(stderr, PROG ": --apply: nothing to apply\n");
		return 0;
	}
	all = calloc(MMT_PRULES_MAX + 1, sizeof(*all));
	rc = all ? -read_policy(ps) : lib_fail(MMT_EIO);
	if (rc) {
		free(all);
		return rc;
	}
	snprintf(all[0].match, sizeof(all[0].match), "%s", a->apply_match);
	snprintf(all[0].order, sizeof(all[0].order), "%d", x->best);
	for (i = 0; i < ps->nr && m < MMT_PRULES_MAX; i++)
		if (strcmp(ps->r[i].match, all[0].match))
			all[m++] = ps->r[i];
	rc = write_rules(all, m);
	if (!rc)
		snprintf(x->applied, sizeof(x->applied), "%s order=%d", a->apply_match, x->best);
	free(all);
	return rc;
}

/* A metric's median and spread: two columns, or two JSON members. */
static void show_metric(struct out *o, const char *key, const char *fmt, const char *tfmt,
			double med, double spr)
{
	char k[32];

	if (!out_json(o)) {
		printf(tfmt, med, spr);
		return;
	}
	jsonw_name(&o->jw, key);
	jsonw_float_fmt(&o->jw, fmt, med);
	snprintf(k, sizeof(k), "%s_spread", key);
	jsonw_name(&o->jw, k);
	jsonw_float_fmt(&o->jw, fmt, spr);
}

static void show_order_row(struct out *o, const struct tune_res *x, int i)
{
	char ord[16];

	snprintf(ord, sizeof(ord), "%d%s", x->orders[i], i == x->cur_i ? "*" : "");
	out_text(o, "%-6s", ord);
	out_obj(o, NULL);
	out_int(o, "order", NULL, x->orders[i], 1);
	out_bool(o, "current", i == x->cur_i);
	show_metric(o, "wall_s", "%.6f", " %9.3f %8.3f", x->med[i][0], x->spr[i][0]);
	show_metric(o, "cpu_s", "%.6f", " %9.3f %8.3f", x->med[i][1], x->spr[i][1]);
	show_metric(o, "minor_faults", "%.0f", " %12.0f %8.0f", x->med[i][2], x->spr[i][2]);
	out_obj_end(o);
	out_text(o, "\n");
}

static void tune_show(struct out *o, char **cmd, long repeat, const struct tune_res *x)
{
	int i;

	out_obj(o, NULL);
	out_text(o, "tune: ");
	out_arr(o, "command");
	for (i = 0; cmd[i]; i++) {
		out_text(o, "%s%s", i ? " " : "", cmd[i]);
		out_item(o, cmd[i]);
	}
	out_arr_end(o);
	out_text(o, "\n%ld runs per order, interleaved; medians, spread = interquartile range;\n"
		 "* = the order the command gets now\n", repeat);
	out_text(o, "%-6s %9s %8s %9s %8s %12s %8s\n", "order", "wall_s", "spread", "cpu_s", "spread",
		 "minor_faults", "spread");
	out_int(o, "repeat", NULL, repeat, 1);
	out_int(o, "current_order", NULL, x->cur, 1);
	out_arr(o, "orders");
	for (i = 0; i < x->norders; i++)
		show_order_row(o, x, i);
	out_arr_end(o);
	out_int(o, "recommended_order", NULL, x->best, x->best >= 0);
	out_str(o, "recommendation", "recommendation:", x->rec, x->rec);
	out_str(o, "applied", x->applied[0] ? "applied:" : NULL, x->applied[0] ? x->applied : NULL,
		x->applied);
	out_obj_end(o);
	fflush(stdout);
}

static int do_tune(int argc, char **argv)
{
	struct tune_args a = { .repeat = 5 };
	struct tune_ctx t = { .errfd = -1, .devnull = -1 };
	struct tune_run *runs = NULL;
	struct mmt_policy *ps = NULL;
	struct tune_res *x = NULL;
	struct out o;
	int rc;

	rc = tune_parse(argc, argv, &a, &t);
	if (rc)
		return rc;
	ps = malloc(sizeof(*ps));
	x = calloc(1, sizeof(*x));
	rc = ps && x ? tune_prepare(&a, ps, x) : lib_fail(MMT_EIO);
	if (rc)
		goto out;
	runs = calloc((size_t)x->norders * (size_t)a.repeat, sizeof(*runs));
	rc = tune_files(&t);
	if (!rc && !runs)
		rc = (fprintf(stderr, PROG ": cannot set up: %s\n", strerror(errno)), MMT_EXIT_FAIL);
	if (!rc)
		rc = tune_rounds(&t, x, a.repeat, runs);
	if (rc)
		goto out;
	tune_summary(x, a.repeat, runs);
	rc = tune_apply(&a, ps, x);
	if (rc)
		goto out;
	out_init(&o, a.json, 0);
	tune_show(&o, t.cmd, a.repeat, x);
out:
	if (t.errfd >= 0)
		close(t.errfd);
	if (t.devnull >= 0)
		close(t.devnull);
	free(runs);
	free(ps);
	free(x);
	return rc;
}
