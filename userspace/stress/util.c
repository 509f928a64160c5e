// SPDX-License-Identifier: GPL-2.0
/*
 * What the workloads share: messages, parsers, the start/end gate of the
 * measured phase, the test file, and the cleanup registry that undoes
 * everything mmstress changed (temp files, the fault-around order,
 * nr_hugepages, loop devices) on every way out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mmtune.h"
#include "mmstress.h"

volatile sig_atomic_t mms_stop;
int mms_progress;

/* ---------------------------------------------------------------- messages */

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (mms_progress)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "mmstress: %s%s\n", prefix, buf);
}

void mms_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void mms_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void mms_die(int code, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mms_err("%s", buf);
	/* a skip still leaves its record (CSV, JSON), with the reason */
	if (code == MMS_EXIT_SKIP)
		mms_out_skip(buf);
	mms_cleanup_run();
	exit(code);
}

double mms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t mms_rand(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ----------------------------------------------------------------- parsers */

/* "64M", "1G", "4096", "512k", "2MiB": binary units, > 0. */
int mms_parse_size(const char *s, long long *out)
{
	char num[32];
	const char *p = s;
	long v;
	long long mul = 1;
	size_t n;

	while (*p >= '0' && *p <= '9')
		p++;
	n = p - s;
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = 0;
	if (mmt_parse_long(num, 1, LONG_MAX, &v) != 0)
		return -1;
	switch (*p) {
	case 0: break;
	case 'k': case 'K': mul = 1LL << 10; p++; break;
	case 'm': case 'M': mul = 1LL << 20; p++; break;
	case 'g': case 'G': mul = 1LL << 30; p++; break;
	case 't': case 'T': mul = 1LL << 40; p++; break;
	default: return -1;
	}
	if (mul > 1 && (!strcmp(p, "iB") || !strcmp(p, "B")))
		p += strlen(p);
	if (*p)
		return -1;
	if (v > LLONG_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

/* "1,8,32": each in [min, max]; returns the count or -1. */
int mms_parse_list(const char *s, long min, long max, long *out, int max_n)
{
	char buf[512], *tok, *save = NULL;
	int n = 0;
	size_t len = strlen(s);

	if (len == 0 || len >= sizeof(buf) || s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
		return -1;
	memcpy(buf, s, len + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= max_n)
			return -1;
		if (mmt_parse_long(tok, min, max, &out[n]) != 0)
			return -1;
		n++;
	}
	return n ? n : -1;
}

void mms_fmt_size(long long b, char *buf, size_t len)
{
	if (b >= (1LL << 30) && b % (1LL << 30) == 0)
		snprintf(buf, len, "%lldG", b >> 30);
	else if (b >= (1LL << 20) && b % (1LL << 20) == 0)
		snprintf(buf, len, "%lldM", b >> 20);
	else if (b >= (1LL << 10) && b % (1LL << 10) == 0)
		snprintf(buf, len, "%lldK", b >> 10);
	else
		snprintf(buf, len, "%lld", b);
}

/* ----------------------------------------------------------------- cleanup */

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

void mms_cleanup_init(void)
{
	atexit(atexit_cleanup);
}

/* ----------------------------------------------------------------- vmstat */

int mms_vmstat_read(struct mms_vmstat *v)
{
	/* static and pre-touched by the first call: no faults in the window */
	static char buf[32768];
	ssize_t n, got = 0;
	int fd;
	char *p;

	memset(v, 0, sizeof(*v));
	fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *sp = strchr(p, ' ');
		size_t kl;

		if (!sp)
			break;
		kl = sp - p;
#define KEY(k, f) if (kl == sizeof(k) - 1 && !memcmp(p, k, kl)) v->f = strtoll(sp + 1, NULL, 10)
		KEY("pgfault", pgfault);
		KEY("pgmajfault", pgmajfault);
		KEY("pgmigrate_success", pgmigrate_success);
		KEY("pgmigrate_fail", pgmigrate_fail);
#undef KEY
	}
	return 0;
}

/* ------------------------------------------------------ the measured phase */

void mms_snap_begin(struct mms_snap *s, int children)
{
	struct rusage ru;

	s->children = children;
	mms_vmstat_read(&s->vm);
	getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru);
	s->minflt = ru.ru_minflt;
	s->majflt = ru.ru_majflt;
	s->t = mms_now();
}

void mms_result_set(struct mms_result *r, const struct mms_meas *m,
		    long long ops, double scale, const char *unit)
{
	r->minflt = m->minflt;
	r->majflt = m->majflt;
	r->seconds = m->seconds;
	r->vm_pgfault = m->vm.pgfault;
	r->vm_pgmajfault = m->vm.pgmajfault;
	r->ops = ops;
	r->unit = unit;
	r->throughput = m->seconds > 0 ? ops / m->seconds / scale : 0;
}

void mms_snap_end(const struct mms_snap *s, struct mms_meas *m)
{
	struct rusage ru;
	struct mms_vmstat vm;
	double t = mms_now();

	getrusage(s->children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru);
	mms_vmstat_read(&vm);
	m->seconds = t - s->t;
	m->minflt = ru.ru_minflt - s->minflt;
	m->majflt = ru.ru_majflt - s->majflt;
	m->vm.pgfault = vm.pgfault - s->vm.pgfault;
	m->vm.pgmajfault = vm.pgmajfault - s->vm.pgmajfault;
	m->vm.pgmigrate_success = vm.pgmigrate_success - s->vm.pgmigrate_success;
	m->vm.pgmigrate_fail = vm.pgmigrate_fail - s->vm.pgmigrate_fail;
}

struct gate {
	int ready, go, done, release, abort;
	int n;
};

struct tramp {
	void *(*fn)(void *);
	void *arg;
	struct gate *g;
};

static void futex_wait(int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void wait_until(int *addr, int want)
{
	int v;

	while ((v = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) < want)
		futex_wait(addr, v);
}

static void bump(int *addr)
{
	__atomic_add_fetch(addr, 1, __ATOMIC_ACQ_REL);
	futex_wake(addr);
}

static void *trampoline(void *p)
{
	struct tramp *t = p;
	volatile char stack[16384];

	/* fault in the stack this thread will use before the window opens */
	memset((char *)stack, 0, sizeof(stack));
	bump(&t->g->ready);
	wait_until(&t->g->go, 1);
	if (!t->g->abort)
		t->fn(t->arg);
	bump(&t->g->done);
	wait_until(&t->g->release, 1);
	return NULL;
}

int mms_run_threads(int n, void *(*fn)(void *), void *args, size_t argsize,
		    int children, struct mms_meas *m)
{
	struct gate g = { .n = n };
	struct tramp *t = calloc(n, sizeof(*t));
	pthread_t *tid = calloc(n, sizeof(*tid));
	struct mms_snap s;
	sigset_t all, old;
	int i, created = 0, ret = 0;
	struct mms_vmstat warm;

	if (!t || !tid) {
		free(t);
		free(tid);
		return -1;
	}
	/* warm up every code path used inside the window */
	mms_vmstat_read(&warm);
	mms_now();
	futex_wake(&g.abort);
	/* signals go to this thread; workers poll mms_stop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < n; i++) {
		t[i].fn = fn;
		t[i].arg = (char *)args + i * argsize;
		t[i].g = &g;
		if (pthread_create(&tid[i], NULL, trampoline, &t[i]) != 0)
			break;
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (created < n) {
		g.abort = 1;
		ret = -1;
		g.n = created;
	}
	wait_until(&g.ready, created);
	mms_snap_begin(&s, children);
	bump(&g.go);
	wait_until(&g.done, created);
	mms_snap_end(&s, m);
	bump(&g.release);
	for (i = 0; i < created; i++)
		pthread_join(tid[i], NULL);
	free(t);
	free(tid);
	return ret;
}

/* -------------------------------------------------------------- files */

int mms_read_long(const char *path, long *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtol(buf, NULL, 10);
	return 0;
}

int mms_write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_CLOEXEC), len, n;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%ld\n", v);
	n = write(fd, buf, len);
	if (close(fd) != 0 || n != len)
		return -1;
	return 0;
}

long mms_meminfo(const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

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

int mms_file_prepare(struct mms_ctx *c, struct mms_file *f, long long size, long long need,
		     int (*fill)(int fd, long long size, void *arg), void *arg,
		     int allow_blockdev)
{
	const char *path = c->o->file;
	char dir[4000];
	struct stat st;
	int err;

	int sr = -1, serr = ENOENT;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->size = size;
	if (path) {
		sr = stat(path, &st);
		serr = errno;
	}
	if (path && sr == 0 && !S_ISDIR(st.st_mode)) {
		if (S_ISBLK(st.st_mode) && allow_blockdev) {
			unsigned long long bytes = 0;

			f->fd = open(path, O_RDONLY | O_CLOEXEC);
			if (f->fd < 0)
				mms_die(MMT_EXIT_USAGE, "--file %s: %s", path, strerror(errno));
			if (ioctl(f->fd, BLKGETSIZE64, &bytes) != 0 || (long long)bytes < size)
				mms_die(MMT_EXIT_USAGE, "--file %s: device smaller than the %lld bytes needed", path, size);
			f->is_blockdev = 1;
		} else if (S_ISREG(st.st_mode)) {
			if (st.st_size < size)
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

	if (path && sr != 0 && serr != ENOENT)
		mms_die(MMT_EXIT_USAGE, "--file %s: %s", path, strerror(serr));
	if (path && sr == 0) {
		/* a directory: a temporary file inside */
		snprintf(dir, sizeof(dir), "%s", path);
		if (snprintf(f->path, sizeof(f->path), "%s/mmstress.XXXXXX", dir) >= (int)sizeof(f->path))
			mms_die(MMT_EXIT_USAGE, "--file %s: path too long", path);
		f->is_tmpfs = is_tmpfs_dir(dir);
		check_room(dir, need ? need : size, f->is_tmpfs);
		f->fd = mkostemp(f->path, O_CLOEXEC);
		if (f->fd < 0)
			mms_die(MMT_EXIT_USAGE, "--file %s: cannot create a file there: %s", dir, strerror(errno));
	} else if (path) {
		/* a new file at that path */
		char *slash;

		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			dir[1] = 0;
		else
			*slash = 0;
		snprintf(f->path, sizeof(f->path), "%s", path);
		if (access(dir, W_OK) != 0)
			mms_die(MMT_EXIT_USAGE, "--file %s: cannot create: %s", path, strerror(errno));
		f->is_tmpfs = is_tmpfs_dir(dir);
		check_room(dir, need ? need : size, f->is_tmpfs);
		f->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (f->fd < 0)
			mms_die(MMT_EXIT_USAGE, "--file %s: cannot create: %s", path, strerror(errno));
	} else {
		f->is_tmpfs = mms_default_dir(dir, sizeof(dir));
		snprintf(f->path, sizeof(f->path), "%s/mmstress.XXXXXX", dir);
		check_room(dir, need ? need : size, f->is_tmpfs);
		f->fd = mkostemp(f->path, O_CLOEXEC);
		if (f->fd < 0)
			mms_die(MMT_EXIT_FAIL, "cannot create a file in %s: %s", dir, strerror(errno));
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

/* ------------------------------------------------------------------ NUMA */

int mms_mem_nodes(int *ids, int max)
{
	char buf[256], *p = buf;
	ssize_t n;
	int fd = open("/sys/devices/system/node/has_memory", O_RDONLY | O_CLOEXEC), cnt = 0;

	if (fd < 0) {
		ids[0] = 0;
		return 1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		ids[0] = 0;
		return 1;
	}
	buf[n] = 0;
	while (*p && *p != '\n') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (long i = a; i <= b && cnt < max; i++)
			ids[cnt++] = i;
		if (*p == ',')
			p++;
		else
			break;
	}
	return cnt;
}
