// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl record: COMMAND (and all it starts) at order 0 under run's
 * rule, each of its file-backed read faults written to a record file
 * that replay.c turns into every other order's figures.
 *
 * Each read fault on a file mapping reaches filemap_map_pages through
 * the kernel's fault-around, whose window the rule narrows to the
 * faulting page; the module's mmtune:fault_around event gives the file,
 * the page and the VMA's bounds (docs/replay.md).  The events are read
 * from a tracefs instance of our own, filtered on our rule (the first:
 * run's rule goes before the user's), so nobody else's tracing is
 * touched.  The record file's format is docs/replay.md's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#include "ctl.h"
#include "record.h"
#include "recnames.h"

static const char record_optstring[] = "+:o:b:h";
static const struct option record_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_record(int argc, char **argv);

const struct cmd cmd_record = {
	"record", do_record, record_optstring, record_opts,
	"usage: " PROG " record [--output FILE] [--buffer KIB] -- COMMAND [ARGS]",
	"Run COMMAND, and every process it starts, at order 0 in a cgroup of its own,\n"
	"and write each of their file read faults to FILE for replay.  See mmtunectl(8).\n"
	"Exit status: COMMAND's (128 + a signal); 1 or 2 if record itself failed.\n"
	"  --output FILE    the record (default mmtune.record; '-': standard output)\n"
	"  --buffer KIB     the trace buffer a CPU (default 16384)\n"
};

#define VHASH_BITS	16

struct rec_file {
	unsigned int maj, min;
	unsigned long ino;
	char *path;		/* NULL: not found in the process's maps */
	unsigned long size, first;	/* pages; cached at its first fault */
};

struct rec_vma {
	int tgid, fid;
	unsigned long start, end, pgoff, flags;
	unsigned int maj, min;
	unsigned long ino;
};

struct rec {
	FILE *out;
	char inst[1024];		/* our tracefs instance */
	long psz;
	unsigned long long events, lost, odd;
	struct rec_file *f;
	int nf;
	struct rec_vma *v;
	int nv, vcap, last;
	int vhash[1 << VHASH_BITS];	/* vid + 1, 0: empty; linear probing */
	int att[2], ack[2];		/* the command's pid to the reader, its answer */
};

/* tracefs, mounted by us where nobody did: its root into @out, or -1. */
static int trace_root(char *out, size_t n)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[PATH_MAX];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/instances", roots[i]);
		if (!access(p, F_OK))
			return snprintf(out, n, "%s", roots[i]), 0;
	}
	if (!mount("nodev", roots[0], "tracefs", 0, NULL))
		return snprintf(out, n, "%s", roots[0]), 0;
	return -1;
}

/* Whether @path holds @s (a tracefs format file: small). */
static int file_has(const char *path, const char *s)
{
	char b[8192];
	long n = mmt_read_path(path, b, sizeof(b));

	return n > 0 && strstr(b, s);
}

static int put(const char *dir, const char *file, const char *val)
{
	char p[PATH_MAX];
	int fd, rc = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		rc = -errno;
	close(fd);
	return rc;
}

/* Whether @fd's file is on tmpfs, which may map a folio whole past EOF. */
static int on_shmem(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == TMPFS_MAGIC;
}

/*
 * The pages of @fd's file in the page cache: count; to @out, their runs
 * and large folios (the "folios" line: how many, -1 unknown; tmpfs).
 */
static unsigned long cached_pages(int fd, unsigned long size, long psz, FILE *out, int fid)
{
	unsigned long n = 0, i, run = 0;
	unsigned char *vec;
	void *m;

	if (!size)
		return 0;
	m = mmap(NULL, size * psz, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 0;
	vec = malloc(size);
	if (vec && !mincore(m, size * psz, vec)) {
		for (i = 0; i <= size; i++) {
			if (i < size && (vec[i] & 1)) {
				n++;
				run++;
				continue;
			}
			if (run && out)
				fprintf(out, "cached %d %lu %lu\n", fid, i - run, run);
			run = 0;
		}
		if (out)
			fprintf(out, "folios %d %ld %d\n", fid, folio_layout(m, size, psz, vec, out, fid),
				on_shmem(fd));
	}
	free(vec);
	munmap(m, size * psz);
	return n;
}

/*
 * Open @f's file, if it still is the event's inode: fd or -1.  Only the
 * inode number is compared: under overlayfs (containers) stat gives the
 * overlay's device, the mapping the underlying file's, whose page cache
 * the overlay's mmap reaches.
 */
static int open_file(const struct rec_file *f, unsigned long *size, long psz)
{
	struct stat st;
	int fd;

	fd = f->path ? open(f->path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && (fstat(fd, &st) || st.st_ino != f->ino)) {
		close(fd);
		fd = -1;
	}
	/* gone from its path: as the traced command mapped it (recnames.c) */
	if (fd < 0 && (fd = names_open(f->maj, f->min, f->ino)) >= 0 && fstat(fd, &st)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return -1;
	*size = (st.st_size + psz - 1) / psz;
	return fd;
}

/*
 * The path of (maj:min, ino) in @tgid's maps (0: ours, which has the
 * C library and loader the command's processes have), or NULL.
 */
static char *maps_path(int tgid, unsigned int maj, unsigned int min, unsigned long ino)
{
	char p[64], line[PATH_MAX + 128], *path = NULL;
	struct maps_file f;
	FILE *m;

	if (tgid)
		snprintf(p, sizeof(p), "%s/%d/maps", proc_dir(), tgid);
	else
		snprintf(p, sizeof(p), "%s/self/maps", proc_dir());
	m = fopen(p, "re");
	while (m && !path && fgets(line, sizeof(line), m))
		if (!maps_file(line, &f) && f.maj == maj && f.min == min && f.ino == ino)
			path = strdup(f.path);
	if (m)
		fclose(m);
	return path;
}

static int file_of(struct rec *r, int tgid, unsigned int maj, unsigned int min, unsigned long ino)
{
	struct rec_file *f, *nf;
	int i, fd;

	for (i = 0; i < r->nf; i++)
		if (r->f[i].ino == ino && r->f[i].maj == maj && r->f[i].min == min)
			return i;
	nf = realloc(r->f, (r->nf + 1) * sizeof(*r->f));
	if (!nf)
		return -1;
	r->f = nf;
	f = &r->f[r->nf];
	memset(f, 0, sizeof(*f));
	f->maj = maj;
	f->min = min;
	f->ino = ino;
	f->path = maps_path(tgid, maj, min, ino);
	/* the process ended before we looked: its maps at its exit */
	if (!f->path && names_find(maj, min, ino))
		f->path = strdup(names_find(maj, min, ino));
	if (!f->path)	/* untraced, or unmapped before the exit */
		f->path = maps_path(0, maj, min, ino);
	fd = open_file(f, &f->size, r->psz);
	if (fd >= 0)
		f->first = cached_pages(fd, f->size, r->psz, NULL, 0);
	fprintf(r->out, "file %d %u:%u %lu %lu %lu %s\n", r->nf, maj, min, ino,
		fd >= 0 ? f->size : 0, fd >= 0 ? f->first : 0, fd >= 0 ? f->path : "-");
	if (fd >= 0) {
		cached_pages(fd, f->size, r->psz, r->out, r->nf);
		close(fd);
	}
	return r->nf++;
}

static unsigned int vhash(int tgid, unsigned long start)
{
	return (unsigned int)(((start >> 12) ^ (unsigned long)tgid * 0x9e3779b9UL) *
			      0x9e3779b97f4a7c15ULL >> (64 - VHASH_BITS));
}

/* The record's id of the event's VMA, written first when new; -1: no memory. */
static int vma_of(struct rec *r, const struct rec_vma *e)
{
	unsigned int h = vhash(e->tgid, e->start), n;
	struct rec_vma *v;

	if (r->last >= 0) {
		v = &r->v[r->last];
		if (v->tgid == e->tgid && v->start == e->start && v->end == e->end &&
		    v->pgoff == e->pgoff && v->ino == e->ino && v->maj == e->maj && v->min == e->min)
			return r->last;
	}
	for (n = 0; n < (1u << VHASH_BITS) && r->vhash[h]; n++, h = (h + 1) & ((1u << VHASH_BITS) - 1)) {
		v = &r->v[r->vhash[h] - 1];
		if (v->tgid == e->tgid && v->start == e->start && v->end == e->end &&
		    v->pgoff == e->pgoff && v->ino == e->ino && v->maj == e->maj && v->min == e->min)
			return r->last = r->vhash[h] - 1;
	}
	if (r->nv >= (1 << (VHASH_BITS - 1)))
		return -1;	/* half full: the record says how many were left out */
	if (r->nv == r->vcap) {
		int cap = r->vcap ? 2 * r->vcap : 256;

		v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -1;
		r->v = v;
		r->vcap = cap;
	}
	v = &r->v[r->nv];
	*v = *e;
	v->fid = file_of(r, e->tgid, e->maj, e->min, e->ino);
	if (v->fid < 0)
		return -1;
	r->vhash[h] = r->nv + 1;
	fprintf(r->out, "vma %d %d %d %#lx %#lx %lu %#lx\n", r->nv, v->tgid, v->fid, v->start,
		v->end, v->pgoff, v->flags);
	return r->last = r->nv++;
}

/* One trace_pipe line: a fault, written as "f VMA PAGE"; else counted as odd. */
static void rec_line(struct rec *r, const char *l)
{
	const char *p = strstr(l, " fault_around: "), *d = NULL, *q;
	unsigned long req_s, req_e, s, e, pgoff;
	struct rec_vma v;
	unsigned int order;
	int rule, vid;

	if (!p)
		return;
	for (q = p; (q = strstr(q, " dev=")); q++)
		d = q;	/* the last: a comm may hold " dev=" */
	if (!d || sscanf(d, " dev=%u:%u ino=%lu pgoff=%lu req=%lu-%lu win=%lu-%lu order=%u rule=%d "
			 "tgid=%d vma=%lx-%lx vm_pgoff=%lu vm_flags=%lx",
			 &v.maj, &v.min, &v.ino, &pgoff, &req_s, &req_e, &s, &e, &order, &rule,
			 &v.tgid, &v.start, &v.end, &v.pgoff, &v.flags) != 15 ||
	    rule != 0 || pgoff < v.pgoff || v.end <= v.start ||
	    pgoff - v.pgoff >= (v.end - v.start) / r->psz) {
		r->odd++;
		return;
	}
	vid = vma_of(r, &v);
	if (vid < 0) {
		r->odd++;
		return;
	}
	r->events++;
	fprintf(r->out, "f %d %lu\n", vid, pgoff - v.pgoff);
}

/* Whether the parent closed @stop's write end: the command ended. */
static int rec_stopped(int stop)
{
	struct pollfd p = { .fd = stop, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* The reader: the command's pid, if it came, traced (recnames.c); the answer back. */
static void rec_attach(struct rec *r)
{
	pid_t pid;
	int e = 0;

	if (read(r->att[0], &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		return;
	if (names_attach(pid))
		e = errno;
	if (write(r->ack[1], &e, sizeof(e)) < 0)
		return;	/* the parent is gone: it will not wait */
}

/* The reader's pause: 5 ms, or until a tracee stops or the pid comes. */
static void rec_pause(struct rec *r)
{
	struct pollfd p[2] = { { .fd = names_fd(), .events = POLLIN },
			       { .fd = r->att[0], .events = POLLIN } };

	poll(p, 2, 5);
}

/*
 * The reader, a process of its own (so that the command is forked from
 * a process as small as run's, whose faults before exec are the same):
 * trace_pipe's lines until @stop closes and nothing is left.  It also
 * traces the command, to name the files of processes that end early.
 */
static void rec_reader(struct rec *r, int stop)
{
	char p[PATH_MAX], buf[65536];
	size_t have = 0;
	int fd, ending = 0;

	snprintf(p, sizeof(p), "%s/trace_pipe", r->inst);
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	names_init();
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *s, *nl;

		rec_attach(r);	/* two syscalls a read: no stop waits on the data */
		names_poll();
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (ending > 1)
				break;
			if (ending || rec_stopped(stop))
				ending++;	/* one more empty read after the end */
			rec_pause(r);
			continue;
		}
		ending = !!ending;
		have += n;
		buf[have] = '\0';
		for (s = buf; (nl = strchr(s, '\n')); s = nl + 1) {
			*nl = '\0';
			rec_line(r, s);
		}
		have -= s - buf;
		memmove(buf, s, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: not ours */
	}
	close(fd);
}

/* Events the ring buffer lost (overwritten, dropped), over every CPU. */
static unsigned long long rec_lost(const struct rec *r)
{
	unsigned long long sum = 0, v;
	char p[PATH_MAX], line[256];
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/stats", r->inst, cpu);
		f = fopen(p, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				sum += v;
		fclose(f);
	}
	return sum;
}

/* Our instance, the event on and filtered on our rule: 0 or an exit code. */
static int rec_trace_on(struct rec *r, long buf_kb)
{
	char root[512], fmt[PATH_MAX], v[32];
	int e;

	if (trace_root(root, sizeof(root)))
		return fprintf(stderr, PROG ": record: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n"),
		       MMT_EXIT_FAIL;
	snprintf(fmt, sizeof(fmt), "%s/events/mmtune/fault_around/format", root);
	if (access(fmt, R_OK))
		return fprintf(stderr, PROG ": record: no mmtune:fault_around event in %s/events: is the module loaded?\n",
			       root), MMT_EXIT_FAIL;
	if (!file_has(fmt, "field:unsigned long vm_pgoff;"))
		return fprintf(stderr, PROG ": record: the loaded module's fault_around event has no VMA fields: "
			       "load mmtune %s\n", MMT_VERSION), MMT_EXIT_FAIL;
	snprintf(r->inst, sizeof(r->inst), "%s/instances/mmtune-record.%d", root, (int)getpid());
	if (mkdir(r->inst, 0700))
		return fprintf(stderr, PROG ": record: cannot make the tracefs instance %s: %s\n", r->inst,
			       strerror(errno)), MMT_EXIT_FAIL;
	snprintf(v, sizeof(v), "%ld", buf_kb);
	e = put(r->inst, "buffer_size_kb", v);
	e = e ? e : put(r->inst, "events/mmtune/fault_around/filter", "rule == 0");
	e = e ? e : put(r->inst, "events/mmtune/fault_around/enable", "1");
	if (e) {
		fprintf(stderr, PROG ": record: cannot set up %s: %s\n", r->inst, strerror(-e));
		rmdir(r->inst);
		return MMT_EXIT_FAIL;
	}
	return 0;
}

static void rec_trace_off(struct rec *r)
{
	put(r->inst, "events/mmtune/fault_around/enable", "0");
	r->lost = rec_lost(r);
	if (rmdir(r->inst))
		fprintf(stderr, PROG ": record: the tracefs instance %s is left: %s\n", r->inst,
			strerror(errno));
}

/* A table's PTEs: the PMD's size over the page's, where THP tells it. */
static long ptes_per_table(long psz)
{
	char b[64];
	long pmd;

	if (mmt_read_path("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", b, sizeof(b)) > 0 &&
	    (pmd = strtol(b, NULL, 10)) > psz)
		return pmd / psz;
	return psz / 8;
}

/*
 * Whether the running kernel maps the whole of a large folio that
 * fault-around reaches (filemap_map_folio_range, from 6.18): then a
 * fault at order 0 maps its page's folio, and the record cannot tell
 * which of the folio's other pages the command read.
 */
static int whole_folio_kernel(const char *release)
{
	int a = 0, b = 0;

	return sscanf(release, "%d.%d", &a, &b) == 2 && (a > 6 || (a == 6 && b >= 18));
}

static void rec_header(struct rec *r, char **cmd, int korder)
{
	struct utsname u;
	int i;

	uname(&u);
	fprintf(r->out, "%s\nrelease %s\nmachine %s\npage_size %ld\nptes %ld\nkernel_order %d\n"
		"whole_folio %d\ncommand", RECORD_MAGIC, u.release, u.machine, r->psz,
		ptes_per_table(r->psz), korder, whole_folio_kernel(u.release));
	/* one line: an argument's line breaks (sh -c's scripts) as spaces */
	for (i = 0; cmd[i]; i++) {
		const char *c;

		fputc(' ', r->out);
		for (c = cmd[i]; *c; c++)
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, r->out);
	}
	fputc('\n', r->out);
}

/* The reader's end: each file's cached pages now, its counts. */
static void rec_reader_end(struct rec *r)
{
	unsigned long size;
	int i, fd;

	for (i = 0; i < r->nf; i++) {
		fd = open_file(&r->f[i], &size, r->psz);
		if (fd < 0)
			continue;
		fprintf(r->out, "end_cached %d %lu\n", i, cached_pages(fd, size, r->psz, NULL, i));
		close(fd);
	}
	fprintf(r->out, "events %llu\nodd %llu\n", r->events, r->odd);
}

/* The reader process: its pid (the write end of its stop pipe in *@stop), or -1. */
static pid_t rec_reader_start(struct rec *r, int *stop)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	if (pipe2(r->att, O_CLOEXEC) || pipe2(r->ack, O_CLOEXEC)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);	/* it ends when the command has */
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(fds[1]);
		close(r->att[1]);
		close(r->ack[0]);
		fcntl(r->att[0], F_SETFL, O_NONBLOCK);
		rec_reader(r, fds[0]);
		rec_reader_end(r);
		_exit(fflush(r->out) ? 1 : 0);
	}
	close(fds[0]);
	close(r->att[0]);
	close(r->ack[1]);
	if (pid < 0)
		close(fds[1]);
	*stop = fds[1];
	return pid;
}

/*
 * run_ruled's, once the command is forked and before it runs: the
 * reader traces it.  Not fatal: untraced, the files of processes that
 * end before the reader looks are named from our own maps, or not.
 */
static int rec_started(pid_t pid, void *arg, bool *traced)
{
	struct rec *r = arg;
	ssize_t n = 0;
	int e = 0;

	if (write(r->att[1], &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		e = errno;
	else
		do
			n = read(r->ack[0], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
	if (!e && n != (ssize_t)sizeof(e))
		e = EPIPE;
	if (e)
		fprintf(stderr, PROG ": record: cannot trace the command (%s): the files of processes "
			"that end before they are read may be left unnamed\n", strerror(e));
	*traced = !e;
	return 0;
}

/* The traced command, just before its exec: munmap() and exec stop too. */
static void rec_child_setup(void)
{
	if (names_filter())
		fprintf(stderr, PROG ": record: no seccomp filter (%s): the files a process unmaps "
			"before they are read may be left unnamed\n", strerror(errno));
}

/* The command ended: let the reader drain, wait for it; 0 if it wrote all. */
static int rec_reader_stop(pid_t pid, int stop)
{
	int st = 0;

	close(stop);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return !(WIFEXITED(st) && !WEXITSTATUS(st));
}

static int rec_args(int argc, char **argv, const char **out, long *buf_kb)
{
	int c;

	while ((c = getopt_long(argc, argv, record_optstring, record_opts, NULL)) != -1) {
		switch (c) {
		case 'o': *out = optarg; break;
		case 'b':
			if (mmt_parse_long(optarg, 64, 4194304, buf_kb))
				return usage_err("record", "--buffer '%.40s': want 64..4194304 KiB a CPU", optarg);
			break;
		default: return bad_opt("record", c, argv);
		}
	}
	if (optind >= argc)
		return usage_err("record", "missing COMMAND (mmtunectl record [-o FILE] -- COMMAND [ARGS])");
	return 0;
}

/* The kernel's order (fault-around must be on for the faults to be seen). */
static int rec_kernel_order(int *korder)
{
	struct mmt_policy *ps = malloc(sizeof(*ps));
	int rc = ps ? -read_policy(ps) : lib_fail(MMT_EIO);

	if (!rc && ps->nr + 1 > ps->max_rules)
		rc = (fprintf(stderr, PROG ": record needs room for one more rule (%d of %d in use)\n",
			      ps->nr, ps->max_rules), MMT_EXIT_FAIL);
	if (!rc)
		*korder = ps->kernel_order;
	free(ps);
	if (!rc && *korder < 1)
		rc = (fprintf(stderr, PROG ": record: the kernel's fault-around is off (order %d): its faults "
			      "are seen through it; set an order first (" PROG " set fault_around_order 4)\n",
			      *korder), MMT_EXIT_FAIL);
	return rc;
}

static int do_record(int argc, char **argv)
{
	struct tune_ctx t = { .errfd = -1, .devnull = -1 };
	const char *outp = "mmtune.record";
	struct rusage ru = { 0 };
	struct sigaction old[3];
	int rc, crc, status = 0, korder = 0, stop = -1;
	long buf_kb = 16384;
	struct rec *r;
	pid_t rd = -1;
	double wall;

	rc = rec_args(argc, argv, &outp, &buf_kb);
	if (rc)
		return rc;
	t.cmd = argv + optind;
	rc = rec_kernel_order(&korder);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return lib_fail(MMT_EIO);
	r->psz = mmt_page_size();
	r->last = -1;
	r->out = strcmp(outp, "-") ? fopen(outp, "we") : stdout;
	if (!r->out) {
		fprintf(stderr, PROG ": record: cannot write %s: %s\n", outp, strerror(errno));
		free(r);
		return MMT_EXIT_FAIL;
	}
	rec_header(r, t.cmd, korder);
	rc = rec_trace_on(r, buf_kb);
	if (!rc && (rd = rec_reader_start(r, &stop)) < 0)
		rc = (rec_trace_off(r), fprintf(stderr, PROG ": record: fork: %s\n", strerror(errno)),
		      MMT_EXIT_FAIL);
	if (rc)
		goto out;
	tune_signals(old);
	t.started = rec_started;
	t.started_arg = r;
	t.child_setup = rec_child_setup;
	rc = mmt_cg_create(&t.cg, "record");
	rc = rc ? lib_fail(rc) : run_ruled(&t, 0, &status, &ru, &wall);
	crc = tune_cleanup(&t);
	tune_signals_restore(old);
	close(r->att[1]);
	close(r->ack[0]);
	if (rec_reader_stop(rd, stop) && !rc)
		rc = (fprintf(stderr, PROG ": record: the reader failed: %s is incomplete\n", outp),
		      MMT_EXIT_FAIL);
	rec_trace_off(r);
	fprintf(r->out, "faults %ld %ld\nlost %llu\nend\n", ru.ru_minflt, ru.ru_majflt, r->lost);
	if (!rc)
		rc = crc;
	if (!rc && r->lost)
		fprintf(stderr, PROG ": record: the trace buffer lost %llu events: try a larger --buffer\n",
			r->lost);
out:
	if (r->out != stdout && fclose(r->out) && !rc)
		rc = (fprintf(stderr, PROG ": record: writing %s: %s\n", outp, strerror(errno)), MMT_EXIT_FAIL);
	free(r->f);
	free(r->v);
	free(r);
	if (rc)
		return rc;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
