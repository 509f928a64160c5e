// SPDX-License-Identifier: GPL-2.0
/*
 * The bottom of libmmtune: the thread's error message and exit codes,
 * errno mapped to MMT_E*, whole-file read and write, the roots the
 * environment can move (tests), and the module's file names.  It calls
 * nothing else of the library, so every other file can call it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"
#include "mmtune_abi.h"

static __thread char msgbuf[512];
__thread int mmt__last_errno;

/*
 * The module's names (module/mmtune_abi.h): the tunables' debugfs files,
 * then the read-only ones.  Never spelled out here.
 */
#define NTUN	(sizeof(mmt_abi_tunables) / sizeof(mmt_abi_tunables[0]) - 1)
#define NRO	(sizeof(mmt_abi_debugfs_ro) / sizeof(mmt_abi_debugfs_ro[0]) - 1)
static const char *knobs[NTUN + NRO + 1];
const char *const *const mmt_knobs = knobs;

__attribute__((constructor)) static void knobs_init(void)
{
	size_t i;

	for (i = 0; i < NTUN; i++)
		knobs[i] = mmt_abi_tunables[i].debugfs;
	for (i = 0; i < NRO; i++)
		knobs[NTUN + i] = mmt_abi_debugfs_ro[i];
}

int mmt__fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msgbuf, sizeof(msgbuf), fmt, ap);
	va_end(ap);
	return err;
}

const char *mmt_errmsg(void)
{
	return msgbuf[0] ? msgbuf : "no error";
}

int mmt_exit_code(int err)
{
	switch (err) {
	case MMT_EINVAL:
	case MMT_ENOKNOB:
		return MMT_EXIT_USAGE;
	default:
		return err < 0 ? MMT_EXIT_FAIL : MMT_EXIT_OK;
	}
}

long mmt_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? ps : 4096;
}

const char *mmt_sysfs_module(void)
{
	const char *e = getenv("MMTUNE_SYSFS_MODULE");

	return e && *e ? e : "/sys/module/mmtune";
}

const char *mmt_sysfs_mm(void)
{
	const char *e = getenv("MMTUNE_SYSFS_MM");

	return e && *e ? e : MMT_ABI_SYSFS_DIR;
}

int mmt_module_loaded(void)
{
	return access(mmt_sysfs_module(), F_OK) == 0;
}

/* path ends in "/mmtune/<one of mmt_knobs>" */
static int known_knob(const char *path)
{
	size_t pl = strlen(path);
	int i;

	for (i = 0; mmt_knobs[i]; i++) {
		size_t kl = strlen(mmt_knobs[i]);

		if (pl > kl + 8 && !strcmp(path + pl - kl, mmt_knobs[i]) &&
		    !strncmp(path + pl - kl - 8, "/mmtune/", 8))
			return 1;
	}
	return 0;
}

static int map_errno(int e, const char *path, const char *value)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		if (!mmt_module_loaded())
			return mmt__fail(MMT_ENOMOD,
				"mmtune module is not loaded: run 'modprobe mmtune' as root");
		if (known_knob(path))
			return mmt__fail(MMT_EIO,
				"%s is missing: this mmtune module lacks it (see 'mmtunectl status')", path);
		return mmt__fail(MMT_ENOKNOB, "no such knob: %s (see 'mmtunectl --help' for the knobs)", path);
	case EISDIR:
		return mmt__fail(MMT_ENOKNOB, "not a knob: %s", path);
	case EACCES:
	case EROFS:
		return mmt__fail(MMT_EPERM, "permission denied on %s: run as root", path);
	case EPERM:
		if (geteuid() == 0)
			return mmt__fail(MMT_EPERM,
				"%s refused (kernel lockdown?): see /sys/kernel/security/lockdown", path);
		return mmt__fail(MMT_EPERM, "permission denied on %s: run as root", path);
	case EINVAL:
	case ERANGE:
	case EOVERFLOW:
		if (value)
			return mmt__fail(MMT_EINVAL, "the kernel rejected '%s' for %s", value, path);
		return mmt__fail(MMT_EINVAL, "%s: invalid argument", path);
	case ENODEV:
	case ENXIO:
		return mmt__fail(MMT_ENOMOD, "%s: the module went away: run 'modprobe mmtune'", path);
	default:
		return mmt__fail(MMT_EIO, "%s: %s", path, strerror(e));
	}
}

int mmt_errno_to_err(int e, const char *path, const char *value)
{
	int err = map_errno(e, path ? path : "?", value);

	mmt__last_errno = e;
	errno = e;	/* callers may look at the kernel's own answer */
	return err;
}

/* Read a whole file by path; -1 with errno on failure, else bytes. */
long mmt_read_path(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd;

	if (!len) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < len - 1) {
		ssize_t r = read(fd, buf + got, len - 1 - got);

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	return (long)got;
}

/* Write value to path as echo(1) would, without the newline; 0 or -1/errno. */
int mmt__write_path(const char *path, const char *value)
{
	size_t n = strlen(value);
	ssize_t w;
	int fd, e;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		w = write(fd, value, n);
	while (w < 0 && errno == EINTR);
	e = errno;
	if (close(fd) && w >= 0) {
		/* some kernels report the handler's error only at close */
		return -1;
	}
	if (w < 0) {
		errno = e;
		return -1;
	}
	if ((size_t)w != n) {
		errno = EIO;
		return -1;
	}
	return 0;
}
