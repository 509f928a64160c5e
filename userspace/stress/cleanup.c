// SPDX-License-Identifier: GPL-2.0
/*
 * Everything mmstress changed or created, undone on every way out: temp
 * files, the fault-around order, nr_hugepages, loop devices; at exit(),
 * after a signal (mms_stop, polled by the sweep) and on EPIPE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

volatile sig_atomic_t mms_stop;

#define MAX_CLEAN 8
static struct {
	char files[MAX_CLEAN][4096];
	int nfiles;
	int order_set, orig_order;
	char hp_path[256];
	long hp_orig;
	int hp_set;
	int fds[MAX_CLEAN];
	int nfds;
	int done;
} cl;

void mms_cleanup_add_file(const char *path)
{
	if (cl.nfiles < MAX_CLEAN)
		snprintf(cl.files[cl.nfiles++], sizeof(cl.files[0]), "%s", path);
}

void mms_cleanup_forget_file(const char *path)
{
	for (int i = 0; i < cl.nfiles; i++)
		if (!strcmp(cl.files[i], path))
			cl.files[i][0] = 0;
}

void mms_cleanup_set_order(int orig)
{
	cl.orig_order = orig;
	cl.order_set = 1;
}

int mms_cleanup_restore_order(void)
{
	int cur, err;

	if (!cl.order_set)
		return 0;
	cl.order_set = 0;
	err = mmt_order_set(cl.orig_order, NULL);
	if (err == 0 && mmt_order_get(&cur, NULL) == 0 && cur != cl.orig_order)
		err = MMT_EIO;
	if (err) {
		mms_err("could not restore fault_around_order %d: %s", cl.orig_order, mmt_errmsg());
		return -1;
	}
	return 0;
}

void mms_cleanup_set_hugepages(const char *path, long orig)
{
	snprintf(cl.hp_path, sizeof(cl.hp_path), "%s", path);
	cl.hp_orig = orig;
	cl.hp_set = 1;
}

void mms_cleanup_add_fd(int fd)
{
	if (cl.nfds < MAX_CLEAN)
		cl.fds[cl.nfds++] = fd;
}

static int restore_failed;

int mms_cleanup_run(void)
{
	if (cl.done)
		return restore_failed ? -1 : 0;
	cl.done = 1;
	for (int i = 0; i < cl.nfds; i++)
		close(cl.fds[i]);
	for (int i = 0; i < cl.nfiles; i++)
		if (cl.files[i][0] && unlink(cl.files[i]) && errno != ENOENT)
			mms_warn("could not remove %s: %s", cl.files[i], strerror(errno));
	if (cl.hp_set) {
		cl.hp_set = 0;
		if (mms_write_long(cl.hp_path, cl.hp_orig)) {
			mms_err("could not restore %s to %ld: %s", cl.hp_path, cl.hp_orig, strerror(errno));
			restore_failed = 1;
		}
	}
	if (mms_cleanup_restore_order())
		restore_failed = 1;
	return restore_failed ? -1 : 0;
}

static void atexit_cleanup(void)
{
	mms_cleanup_run();
	if (restore_failed)
		_exit(MMT_EXIT_FAIL);
}

static void on_signal(int sig)
{
	mms_stop = sig;
}

void mms_cleanup_init(void)
{
	struct sigaction sa;

	atexit(atexit_cleanup);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed stdout is EPIPE, seen by mms_out_flush(): stop and clean up */
	signal(SIGPIPE, SIG_IGN);
}
