// SPDX-License-Identifier: GPL-2.0
/*
 * The test file the workloads map: made on tmpfs by default, in or at
 * --file's path, or an existing file or block device used as it is;
 * filled, cached and clean before the first run, removed at exit
 * (cleanup.c).  Also the aligned mappings of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

static int is_tmpfs_dir(const char *dir)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

/* The default place for test files: a tmpfs. */
int mms_default_dir(char *buf, size_t len)
{
	const char *cand[] = { getenv("TMPDIR"), "/dev/shm", "/run/shm", "/tmp" };

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (cand[i] && *cand[i] && is_tmpfs_dir(cand[i]) && access(cand[i], W_OK) == 0) {
			snprintf(buf, len, "%s", cand[i]);
			return 1;
		}
	snprintf(buf, len, "%s", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return 0;
}

/* Write a non-zero pattern over the whole file. */
int mms_fill_all(int fd, long long size, void *arg)
{
	static uint64_t buf[1 << 17];	/* 1 MiB */
	long long off = 0;

	(void)arg;
	if (!buf[0])
		for (size_t i = 0; i < sizeof(buf) / 8; i++)
			buf[i] = 0x9e3779b97f4a7c15ULL * (i + 1) | 1;
	while (off < size) {
		size_t chunk = size - off < (long long)sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		ssize_t n = pwrite(fd, buf, chunk, off);

		if (mms_stop)
			return -EINTR;
		if (n < 0)
			return -errno;
		off += n;
	}
	return 0;
}

/* Read the file once so that every page is in the page cache. */
int mms_cache_file(int fd, long long size)
{
	static char buf[1 << 20];
	long long off = 0;

	posix_fadvise(fd, 0, size, POSIX_FADV_WILLNEED);
	while (off < size) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (mms_stop)
			return -EINTR;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		off += n;
	}
	return 0;
}

static void check_room(const char *dir, long long size, int tmpfs)
{
	struct statvfs sv;
	char a[32], b[32];

	if (statvfs(dir, &sv) == 0 && (long long)sv.f_bavail * (long long)sv.f_frsize < size) {
		mms_fmt_size(size, a, sizeof(a));
		snprintf(b, sizeof(b), "%lld MiB", (long long)sv.f_bavail * sv.f_frsize >> 20);
		mms_die(MMT_EXIT_USAGE, "--size too large: the test file needs %s, %s has %s free", a, dir, b);
	}
	if (tmpfs) {
		long avail = mms_meminfo("MemAvailable");

		if (avail > 0 && size / 1024 > avail / 10 * 9) {
			mms_fmt_size(size, a, sizeof(a));
			mms_die(MMT_EXIT_USAGE, "--size too large: the test file needs %s of memory, %ld MiB available",
				a, avail / 1024);
		}
	}
}

/* --file names an existing file (or block device, if allowed): used as it is */
static int file_existing(struct mms_ctx *c, struct mms_file *f, const struct stat *st,
			 long long size, int allow_blockdev)
{
	const char *path = c->o->file;
	int err;

	if (S_ISBLK(st->st_mode) && allow_blockdev) {
		unsigned long long bytes = 0;

		f->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			mms_die(MMT_EXIT_USAGE, "--file %s: %s", path, strerror(errno));
		if (ioctl(f->fd, BLKGETSIZE64, &bytes) != 0 || (long long)bytes < size)
			mms_die(MMT_EXIT_USAGE, "--file %s: device smaller than the %lld bytes needed", path, size);
		f->is_blockdev = 1;
	} else if (S_ISREG(st->st_mode)) {
		if (st->st_size < size)
			mms_die(MMT_EXIT_USAGE, "--file %s exists and is smaller than the %lld bytes needed (pass a directory or a new path)",
				path, size);
		f->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			mms_die(MMT_EXIT_USAGE, "--file %s: %s", path, strerror(errno));
		f->is_tmpfs = 0;
	} else {
		mms_die(MMT_EXIT_USAGE, "--file %s: not a regular file or directory", path);
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	mms_meta_file(c, f->path, f->fd, f->is_blockdev);
	err = mms_cache_file(f->fd, size);
	if (err)
		return err == -EINTR ? err : MMT_EXIT_FAIL;
	return 0;
}

/* A temporary file in dir: --file's directory (given), or the default one */
static void file_in_dir(struct mms_file *f, const char *dir, long long room, int given)
{
	if (snprintf(f->path, sizeof(f->path), "%s/mmstress.XXXXXX", dir) >= (int)sizeof(f->path))
		mms_die(given ? MMT_EXIT_USAGE : MMT_EXIT_FAIL, "%s%s: path too long",
			given ? "--file " : "", dir);
	check_room(dir, room, f->is_tmpfs);
	f->fd = mkostemp(f->path, O_CLOEXEC);
	if (f->fd < 0 && given)
		mms_die(MMT_EXIT_USAGE, "--file %s: cannot create a file there: %s", dir, strerror(errno));
	if (f->fd < 0)
		mms_die(MMT_EXIT_FAIL, "cannot create a file in %s: %s", dir, strerror(errno));
}

/* --file names a path that does not exist yet: the file is made there */
static void file_at_path(struct mms_file *f, const char *path, long long room)
{
	char dir[4000];

	mms_path_dir(path, dir, sizeof(dir));
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (access(dir, W_OK) != 0)
		mms_die(MMT_EXIT_USAGE, "--file %s: cannot create: %s", path, strerror(errno));
	f->is_tmpfs = is_tmpfs_dir(dir);
	check_room(dir, room, f->is_tmpfs);
	f->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (f->fd < 0)
		mms_die(MMT_EXIT_USAGE, "--file %s: cannot create: %s", path, strerror(errno));
}

int mms_file_prepare(struct mms_ctx *c, struct mms_file *f, long long size, long long need,
		     int (*fill)(int fd, long long size, void *arg), void *arg,
		     int allow_blockdev)
{
	const char *path = c->o->file;
	long long room = need ? need : size;
	char dir[4000];
	struct stat st;
	int err, sr = -1, serr = ENOENT;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->size = size;
	if (path) {
		sr = stat(path, &st);
		serr = errno;
	}
	if (path && sr == 0 && !S_ISDIR(st.st_mode))
		return file_existing(c, f, &st, size, allow_blockdev);
	if (path && sr != 0 && serr != ENOENT)
		mms_die(MMT_EXIT_USAGE, "--file %s: %s", path, strerror(serr));
	if (path && sr == 0) {
		f->is_tmpfs = is_tmpfs_dir(path);
		file_in_dir(f, path, room, 1);
	} else if (path) {
		file_at_path(f, path, room);
	} else {
		f->is_tmpfs = mms_default_dir(dir, sizeof(dir));
		file_in_dir(f, dir, room, 0);
	}
	f->created = 1;
	mms_cleanup_add_file(f->path);
	mms_meta_file(c, f->path, f->fd, 0);
	if (ftruncate(f->fd, size) != 0)
		mms_die(MMT_EXIT_FAIL, "%s: cannot size it to %lld bytes: %s", f->path, size, strerror(errno));
	err = (fill ? fill : mms_fill_all)(f->fd, size, arg);
	if (err == -EINTR)
		return err;
	if (err)
		mms_die(MMT_EXIT_FAIL, "%s: cannot write it: %s", f->path, strerror(-err));
	/*
	 * Keep the pages in the page cache (tmpfs: they only live there) but
	 * have them clean: fault-around skips locked pages under writeback.
	 */
	if (!f->is_tmpfs && fdatasync(f->fd) != 0)
		mms_die(MMT_EXIT_FAIL, "%s: fdatasync: %s", f->path, strerror(errno));
	return 0;
}

void mms_file_close(struct mms_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->created) {
		unlink(f->path);
		mms_cleanup_forget_file(f->path);
		f->created = 0;
	}
}

void *mms_map_aligned(size_t len, size_t align, int prot, int flags, int fd, off_t off)
{
	char *res, *al, *p;

	res = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return NULL;
	al = (char *)(((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1));
	p = mmap(al, len, prot, flags | MAP_FIXED, fd, off);
	if (p == MAP_FAILED) {
		munmap(res, len + align);
		return NULL;
	}
	if (al > res)
		munmap(res, al - res);
	if (res + len + align > al + len)
		munmap(al + len, (res + len + align) - (al + len));
	return p;
}
