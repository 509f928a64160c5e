// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup v2 of mmtunectl's own for a command and every process it
 * starts: made under the cgroup2 mount, the command moved in between fork
 * and exec (its children are born in it), what is left at the end killed
 * and the cgroup removed.  A cgroup= rule then covers the whole process
 * tree (make and its compilers, a shell and its commands), where a pid=
 * rule covers one process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgrun.h"
#include "priv.h"

#define KILL_WAIT_MS	10000	/* TCG guests are slow to reap */

const char *mmt_cgroup2_root(void)
{
	static char root[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mounts", "re");
	const char *found = NULL;

	if (!f)
		return NULL;
	while (!found && getline(&line, &cap, f) > 0) {
		char dev[64], mnt[PATH_MAX], type[32];

		if (sscanf(line, "%63s %4095s %31s", dev, mnt, type) == 3 && !strcmp(type, "cgroup2") &&
		    !strchr(mnt, '\\')) {
			snprintf(root, sizeof(root), "%s", mnt);
			found = root;
		}
	}
	free(line);
	fclose(f);
	return found;
}

static int fail_errno(int e, const char *what, const char *path)
{
	return mmt__fail(e == EACCES || e == EPERM ? MMT_EPERM : MMT_EIO, "%s %s: %s%s", what, path,
			 strerror(e), e == EACCES || e == EPERM ? ": run as root" : "");
}

int mmt_cg_create(struct mmt_cg *cg, const char *tag)
{
	const char *root = mmt_cgroup2_root();

	memset(cg, 0, sizeof(*cg));
	if (!root)
		return mmt__fail(MMT_EIO,
			"no cgroup2 mounted (mount -t cgroup2 none /sys/fs/cgroup): needed to cover every process of the command");
	snprintf(cg->path, sizeof(cg->path), "/mmtune-%s.%d", tag, (int)getpid());
	snprintf(cg->match, sizeof(cg->match), "cgroup=%s", cg->path);
	snprintf(cg->dir, sizeof(cg->dir), "%s%s", strcmp(root, "/") ? root : "", cg->path);
	/* a leftover of an mmtunectl killed by SIGKILL with our pid: reuse it */
	if (mkdir(cg->dir, 0755) && errno != EEXIST)
		return fail_errno(errno, "cannot make the cgroup", cg->dir);
	cg->made = 1;
	return mmt_cg_kill(cg);
}

int mmt_cg_enter(const struct mmt_cg *cg, pid_t pid)
{
	char p[PATH_MAX + 16], v[32];
	int fd, n, e;

	snprintf(p, sizeof(p), "%s/cgroup.procs", cg->dir);
	n = snprintf(v, sizeof(v), "%d\n", (int)pid);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(errno, "cannot open", p);
	if (write(fd, v, (size_t)n) != n) {
		e = errno;
		close(fd);
		return fail_errno(e, "cannot move the command into", p);
	}
	close(fd);
	return MMT_OK;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * The number of processes listed in @procs, or -1; with @kill, SIGKILL
 * each.  A pid read from the list may be reaped and reused before the
 * kill() lands, so this kills only where the kernel has no cgroup.kill.
 */
static int list_procs(const char *procs, int kill_them)
{
	FILE *f = fopen(procs, "re");
	int n = 0, pid;

	if (!f)
		return -1;
	while (fscanf(f, "%d", &pid) == 1) {
		if (kill_them)
			kill(pid, SIGKILL);
		n++;
	}
	fclose(f);
	return n;
}

/* Write "1" to cgroup.kill (Linux 5.14): 1 if the kernel took it. */
static int cg_kill_file(const char *ck)
{
	int fd = open(ck, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return 0;
	w = write(fd, "1", 1);
	close(fd);
	return w == 1;
}

int mmt_cg_kill(const struct mmt_cg *cg)
{
	char procs[PATH_MAX + 16], ck[PATH_MAX + 16];
	int waited, n, by_kernel;

	if (!cg->made)
		return MMT_OK;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->dir);
	snprintf(ck, sizeof(ck), "%s/cgroup.kill", cg->dir);
	for (waited = 0; waited < KILL_WAIT_MS; waited += 10) {
		/*
		 * cgroup.kill also gets those forking meanwhile, and never a
		 * process outside the cgroup; then the list is only waited on.
		 */
		by_kernel = cg_kill_file(ck);
		n = list_procs(procs, !by_kernel);
		if (n < 0)
			return fail_errno(errno, "cannot read", procs);
		if (n == 0)
			return MMT_OK;
		nap_ms(10);
	}
	return mmt__fail(MMT_EIO, "processes left in %s after SIGKILL", cg->dir);
}

int mmt_cg_remove(struct mmt_cg *cg)
{
	int err, waited;

	if (!cg->made)
		return MMT_OK;
	err = mmt_cg_kill(cg);
	/* a killed task leaves the cgroup a moment after cgroup.procs drops it */
	for (waited = 0; rmdir(cg->dir) && waited < KILL_WAIT_MS; waited += 10) {
		if (errno == ENOENT)
			break;
		if (errno != EBUSY)
			return fail_errno(errno, "cannot remove the cgroup", cg->dir);
		nap_ms(10);
	}
	if (access(cg->dir, F_OK) == 0)
		return err ? err : mmt__fail(MMT_EIO, "cannot remove the cgroup %s: busy", cg->dir);
	cg->made = 0;
	return err;
}
