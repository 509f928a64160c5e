// SPDX-License-Identifier: GPL-2.0
/*
 * build: an exec-heavy load like a kernel build (make -j):
 * N worker processes each fork+exec COUNT short-lived /bin/sh -c CMD
 * processes, which map the same binaries and libraries over and over.
 * Faults are those of the children (RUSAGE_CHILDREN deltas: the workers
 * and everything they waited for).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

struct build_state {
	const char *cmd;
	long count;
};

static int build_setup(struct mms_ctx *c)
{
	struct build_state *s = calloc(1, sizeof(*s));

	if (!s)
		return MMT_EXIT_FAIL;
	s->cmd = c->o->cmd ? c->o->cmd : "exec true";
	s->count = c->o->count ? c->o->count : 100;
	if (access("/bin/sh", X_OK) != 0)
		mms_die(MMT_EXIT_FAIL, "build: /bin/sh: %s", strerror(errno));
	c->priv = s;
	return 0;
}

static void worker(const struct build_state *s)
{
	for (long i = 0; i < s->count && !mms_stop; i++) {
		int st;
		pid_t p = fork();

		if (p < 0)
			_exit(1);
		if (p == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);	/* ignored by mmstress only */
			execl("/bin/sh", "sh", "-c", s->cmd, (char *)NULL);
			_exit(127);
		}
		while (waitpid(p, &st, 0) < 0)
			if (errno != EINTR)
				_exit(1);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(mms_stop ? 0 : 2);
	}
	_exit(0);
}

static int build_run(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	struct build_state *s = c->priv;
	pid_t *pids = calloc(threads, sizeof(*pids));
	struct mms_snap snap;
	struct mms_meas m;
	int failed = 0, started = 0, left;

	(void)block;
	if (!pids)
		return MMT_EXIT_FAIL;
	fflush(NULL);
	mms_snap_begin(&snap, 1);
	for (int i = 0; i < threads; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			mms_err("build: fork: %s", strerror(errno));
			failed = 1;
			break;
		}
		if (pids[i] == 0)
			worker(s);
		started++;
	}
	left = started;
	while (left > 0) {
		int st;
		pid_t p = waitpid(-1, &st, 0);

		if (p < 0) {
			if (errno == EINTR) {
				if (mms_stop)	/* kill -INT to us alone: pass it on */
					for (int i = 0; i < started; i++)
						kill(pids[i], SIGINT);
				continue;
			}
			break;
		}
		for (int i = 0; i < started; i++)
			if (pids[i] == p) {
				left--;
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
					failed = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			}
	}
	mms_snap_end(&snap, &m);
	free(pids);
	if (failed && !mms_stop) {
		mms_err("build: '/bin/sh -c %s' failed%s", s->cmd,
			failed == 2 ? " (non-zero exit)" : "");
		return MMT_EXIT_FAIL;
	}
	mms_result_set(r, &m, (long long)threads * s->count, 1, "procs/s");
	return 0;
}

static void build_teardown(struct mms_ctx *c)
{
	free(c->priv);
	c->priv = NULL;
}

const struct mms_workload mms_wl_build = {
	"build", "exec-heavy like a kernel build: processes fork+exec short shells",
	build_setup, build_run, build_teardown, 0, NULL,
};
