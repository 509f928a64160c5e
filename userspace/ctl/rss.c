// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl rss: how much RSS fault-around adds, now.  The module's
 * <debugfs>/mmtune/rss (module/rss.c) gives, per process and per file it
 * maps, the pages its file mappings map with PTEs ("mapped") and those of
 * them still old ("untouched"): pages fault-around mapped ahead that the
 * process has not touched.  Shown beside RssFile and RssShmem of
 * /proc/PID/status (env MMTUNE_PROC stands for /proc in tests), the
 * processes by untouched bytes, then the files summed over them; or one
 * JSON object, rendered once through out.c.  A file an order=auto:file
 * rule takes has the order it gives the file too: a column "order" when
 * any file has one, a field "order" of the file's JSON object.  The file is found, read
 * and parsed by rssfile.c, which stats --prometheus --rss shares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

static const char rss_optstring[] = ":jt:fc:r:h";	/* options anywhere: PID never starts with '-' */
static const struct option rss_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "top", required_argument, NULL, 't' },
	{ "files", no_argument, NULL, 'f' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "rule", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_rss(int argc, char **argv);

const struct cmd cmd_rss = {
	"rss", do_rss, rss_optstring, rss_opts,
	"usage: " PROG " rss [--json] [--top N] [--files] [PID | --cgroup PATH | --rule N]",
	"How much RSS fault-around adds, now: per process, the pages of its file\n"
	"mappings (mapped) and those fault-around mapped ahead that it never touched\n"
	"(untouched), beside RssFile and RssShmem; then the files with the most,\n"
	"summed over the processes.  Needs usefulness_enable 1 on x86.  See mmtunectl(8).\n"
	"  PID              that process (default: every process)\n"
	"  --cgroup PATH    the processes of that cgroup v2 and of those below it\n"
	"  --rule N         the processes of the N-th rule 'mmtunectl policy' lists\n"
	"                   (a rule with file=, vma=, madv=: the mappings it takes)\n"
	"  --top N          files in the top list (default 10; 0: none)\n"
	"  --files          each process's files under it\n"
	"  --json           one JSON object\n"
};

#define TOP_DEF		10
#define TOP_MAX		100000
/* the text columns: PID COMM RssFile RssShmem mapped untouched untouched% */
#define COLS		"%7s %-15s %12s %12s %12s %12s %10s\n"
#define FILE_INDENT	50		/* a process's file lines: under "mapped" */

/*
 * What the read keeps: every process, the kernel's pid= or cgroup=, a
 * comm, or the kernel's rule= (the mappings a rule with mapping keys takes).
 */
enum { SEL_ALL, SEL_PID, SEL_CGROUP, SEL_COMM, SEL_RULE };

struct rss_args {
	int json, files, kind, nsel;
	long top, pid, rule;	/* rule: 1-based, 0 for none */
	char arg[PATH_MAX];	/* SEL_CGROUP: the cgroup path; SEL_COMM: the name */
};

struct rproc {
	long pid;
	const char *comm;
	int busy;				/* mmap lock held: no counts */
	unsigned long long mapped, untouched;	/* pages */
	size_t f0, nf;				/* its files: rset.f[f0, f0 + nf) */
	long long file_kb, shmem_kb;		/* /proc/PID/status; -1: gone */
};

struct rset {
	struct rss_head h;
	int taking;		/* the last process line was kept */
	int orders;		/* a file line had an order: the column */
	struct rproc *p;
	struct rfile *f, *top;
	size_t np, capp, nf, capf, ntop;
};

static int oom(void)
{
	fprintf(stderr, PROG ": rss: out of memory\n");
	return MMT_EXIT_FAIL;
}

/* ---- the arguments */

/*
 * @verb's --cgroup @v: a cgroup v2 path, or its directory under the
 * cgroup2 mount (as policy takes it), into @out: 0 or an exit code.
 */
int cgroup_path_arg(const char *verb, const char *v, char *out, size_t n)
{
	const char *root = mmt_cgroup2_root(), *path = v;
	size_t rl = root ? strlen(root) : 0, i;

	for (i = 0; v[i]; i++)
		if ((unsigned char)v[i] < ' ' || v[i] == 0x7f)
			return usage_err(verb, "--cgroup: a control character in the path");
	if (root && rl > 1 && !strncmp(v, root, rl) && (v[rl] == '/' || !v[rl]))
		path = v[rl] ? v + rl : "/";
	if (path[0] != '/' || strlen(path) >= n)
		return usage_err(verb, "--cgroup '%.60s': want a cgroup v2 path like /system.slice/foo.service", v);
	snprintf(out, n, "%s", path);
	return 0;
}

static int cgroup_arg(struct rss_args *a, const char *v)
{
	int rc = cgroup_path_arg("rss", v, a->arg, sizeof(a->arg));

	if (rc)
		return rc;
	a->kind = SEL_CGROUP;
	a->nsel++;
	return 0;
}

static int rss_opt(int c, struct rss_args *a, char **argv)
{
	switch (c) {
	case 'j': a->json = 1; return 0;
	case 'f': a->files = 1; return 0;
	case 'c': return cgroup_arg(a, optarg);
	case 't':
		if (mmt_parse_long(optarg, 0, TOP_MAX, &a->top))
			return usage_err("rss", "--top: '%.40s' is not a number 0..%d", optarg, TOP_MAX);
		return 0;
	case 'r':
		if (mmt_parse_long(optarg, 1, LONG_MAX, &a->rule))
			return usage_err("rss", "--rule: '%.40s' is not a rule number (1, 2, ...)", optarg);
		a->nsel++;
		return 0;
	default:
		return bad_opt("rss", c, argv);
	}
}

/* The options and the PID into a; 0, or an exit code after saying why. */
static int rss_args(int argc, char **argv, struct rss_args *a)
{
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->top = TOP_DEF;
	while ((c = getopt_long(argc, argv, rss_optstring, rss_opts, NULL)) != -1)
		if ((rc = rss_opt(c, a, argv)))
			return rc;
	if (optind < argc) {
		if (mmt_parse_long(argv[optind], 1, PID_MAX, &a->pid))
			return usage_err("rss", "'%.40s' is not a process id", argv[optind]);
		a->kind = SEL_PID;
		a->nsel++;
	}
	if (optind + 1 < argc)
		return usage_err("rss", "unexpected argument '%.40s'", argv[optind + 1]);
	if (a->nsel > 1)
		return usage_err("rss", "one of PID, --cgroup and --rule at most");
	return 0;
}

/*
 * A rule's match as the selection: pid= and cgroup= the kernel's, comm=
 * ours, a rule with mapping keys the kernel's rule=.  An exited pid=
 * rule's number may be another process's by now.
 */
static int match_sel(struct rss_args *a, const struct mmt_prule *r)
{
	const char *v;
	int k = rule_match(r, &a->pid, &v);

	if (k == MATCH_PID) {
		a->kind = SEL_PID;
		if (!r->exited)
			return 0;
		fprintf(stderr, PROG ": rss: rule %ld: its process %ld has exited\n", a->rule, a->pid);
		return MMT_EXIT_FAIL;
	}
	if (k == MATCH_CGROUP || k == MATCH_COMM) {
		a->kind = k == MATCH_CGROUP ? SEL_CGROUP : SEL_COMM;
		snprintf(a->arg, sizeof(a->arg), "%s", v);
		return 0;
	}
	if (k == MATCH_MAP) {
		a->kind = SEL_RULE;
		return 0;
	}
	fprintf(stderr, PROG ": rss: rule %ld: unexpected match '%.60s'\n", a->rule, r->match);
	return MMT_EXIT_FAIL;
}

/* --rule N: the N-th rule of the policy file, as `mmtunectl policy` lists them. */
static int rule_sel(struct rss_args *a)
{
	struct mmt_policy *ps = calloc(1, sizeof(*ps));
	int rc;

	if (!ps)
		return oom();
	rc = -read_policy(ps);
	if (!rc && a->rule > ps->nr) {
		fprintf(stderr, PROG ": rss: no rule %ld: the policy has %d rule%s (see '" PROG " policy')\n",
			a->rule, ps->nr, ps->nr == 1 ? "" : "s");
		rc = MMT_EXIT_USAGE;
	}
	if (!rc)
		rc = match_sel(a, &ps->r[a->rule - 1]);
	free(ps);
	return rc;
}

/* ---- the module's file */

/*
 * <debugfs>/mmtune/rss into path and opened, for writing too if *sel:
 * fd, or -(exit code) after saying why.  Under lockdown the file opens
 * read-only alone: a PID is then kept by keep() from every process's
 * lines (*sel cleared); a cgroup cannot be.
 */
static int rss_open(const struct rss_args *a, char *path, size_t n, int *sel)
{
	int fd, rc = rss_path(path, n);

	if (rc)
		return -rc;
	fd = rss_open_sel(path, *sel);
	if (fd < 0 && errno == EPERM && *sel && a->kind == SEL_PID) {
		*sel = 0;
		fd = rss_open_sel(path, 0);
	}
	if (fd < 0 && errno == EPERM && a->kind == SEL_RULE) {
		fprintf(stderr, PROG ": rss: rule %ld takes mappings, which only the module can select, and it refuses the selection (lockdown?)\n",
			a->rule);
		return -MMT_EXIT_FAIL;
	}
	return fd >= 0 ? fd : -rss_open_fail(path, errno);
}

/* The kernel refused the selection line (its newline dropped) with e. */
static int sel_fail(const struct rss_args *a, int e, const char *path, char *line)
{
	line[strcspn(line, "\n")] = '\0';
	switch (e) {
	case ESRCH:
		fprintf(stderr, PROG ": rss: no process %ld%s\n", a->pid,
			a->rule ? " (the rule's process has exited)" : "");
		return MMT_EXIT_FAIL;
	case ENOENT:
		fprintf(stderr, PROG ": rss: no cgroup %s\n", a->arg);
		return MMT_EXIT_FAIL;
	case EINVAL:
		fprintf(stderr, PROG ": rss: the module refused the selection '%.80s'\n", line);
		return MMT_EXIT_USAGE;
	default:
		return lib_fail(mmt_errno_to_err(e, path, line));
	}
}

/* Write the selection (pid=, cgroup= or rule=) before the read; 0 or an exit code. */
static int rss_select(int fd, const struct rss_args *a, const char *path)
{
	char line[PATH_MAX + 16];
	int e;

	if (a->kind == SEL_PID)
		snprintf(line, sizeof(line), "pid=%ld\n", a->pid);
	else if (a->kind == SEL_RULE)
		snprintf(line, sizeof(line), "rule=%ld\n", a->rule);
	else
		snprintf(line, sizeof(line), "cgroup=%s\n", a->arg);
	e = rss_write_sel(fd, line);
	return e ? sel_fail(a, e, path, line) : 0;
}

/* Open, select, read: *buf holds the text; 0 or an exit code. */
static int rss_read(const struct rss_args *a, char **buf)
{
	char path[PATH_MAX + 16];
	int sel = a->kind == SEL_PID || a->kind == SEL_CGROUP || a->kind == SEL_RULE;
	int fd = rss_open(a, path, sizeof(path), &sel), rc;

	if (fd < 0)
		return -fd;
	rc = sel ? rss_select(fd, a, path) : 0;
	if (!rc)
		rc = rss_read_all(fd, path, buf);
	close(fd);
	return rc;
}

/* ---- parsing */

/* Whether the selection keeps process line r (the kernel may give more). */
static int keep(const struct rss_args *a, const struct rline *r)
{
	if (a->kind == SEL_PID)
		return r->pid == a->pid;
	if (a->kind == SEL_COMM)
		return !strcmp(r->name, a->arg);
	return 1;
}

/* v with room for need elements of sz bytes (*cap: its room), or NULL (v kept). */
static void *grow(void *v, size_t *cap, size_t need, size_t sz)
{
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return v;
	while (c < need)
		c *= 2;
	v = realloc(v, c * sz);
	if (v)
		*cap = c;
	return v;
}

/* Line r into s: a process kept by the selection, or a file line of the last one. */
static int add_line(struct rset *s, const struct rline *r, const struct rss_args *a)
{
	struct rproc *p = s->np ? &s->p[s->np - 1] : NULL;
	struct rfile *nf;

	if (r->file) {
		if (!s->taking || !p || p->pid != r->pid || p->busy)
			return 0;
		nf = grow(s->f, &s->capf, s->nf + 1, sizeof(*s->f));
		if (!nf)
			return -1;
		s->f = nf;
		s->f[s->nf++] = (struct rfile){ r->name, r->mapped, r->untouched, r->order };
		s->orders |= r->order >= 0;
		p->nf++;
		return 0;
	}
	s->taking = keep(a, r);
	if (!s->taking)
		return 0;
	p = grow(s->p, &s->capp, s->np + 1, sizeof(*s->p));
	if (!p)
		return -1;
	s->p = p;
	s->p[s->np++] = (struct rproc){ .pid = r->pid, .comm = r->name, .busy = r->busy,
					.mapped = r->mapped, .untouched = r->untouched,
					.f0 = s->nf, .file_kb = -1, .shmem_kb = -1 };
	return 0;
}

/* The header line, then every line into s; 0 or an exit code. */
static int parse_rss(char *buf, struct rset *s, const struct rss_args *a)
{
	char *save;
	struct rline r;
	int rc = rss_header(buf, &s->h, &save);

	while (!rc && rss_next(&save, &r))
		if (add_line(s, &r, a))
			rc = oom();
	return rc;
}

/* ---- sums, /proc, order */

static int by_path(const void *x, const void *y)
{
	return strcmp(((const struct rfile *)x)->path, ((const struct rfile *)y)->path);
}

static int by_untouched(const void *x, const void *y)
{
	const struct rfile *a = x, *b = y;

	if (a->untouched != b->untouched)
		return a->untouched < b->untouched ? 1 : -1;
	if (a->mapped != b->mapped)
		return a->mapped < b->mapped ? 1 : -1;
	return strcmp(a->path, b->path);
}

/* Busy ones last, then by untouched pages, then by pid. */
static int by_proc(const void *x, const void *y)
{
	const struct rproc *a = x, *b = y;

	if (a->busy != b->busy)
		return a->busy - b->busy;
	if (a->untouched != b->untouched)
		return a->untouched < b->untouched ? 1 : -1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* f[0, n) summed by path, then by untouched pages: the number left. */
static size_t sum_files(struct rfile *f, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(f, n, sizeof(*f), by_path);
	for (i = 0; i < n; i++) {
		if (k && !strcmp(f[k - 1].path, f[i].path)) {
			f[k - 1].mapped += f[i].mapped;
			f[k - 1].untouched += f[i].untouched;
			if (f[k - 1].order != f[i].order)
				f[k - 1].order = ORDER_MIXED;
		} else {
			f[k++] = f[i];
		}
	}
	qsort(f, k, sizeof(*f), by_untouched);
	return k;
}

/* The kB of a "KEY:   N kB" line of a status file, or -1. */
static long long status_kb(const char *b, const char *key)
{
	size_t kl = strlen(key);
	unsigned long long v;
	char *e;

	for (; b; b = strchr(b, '\n'), b = b ? b + 1 : NULL) {
		if (strncmp(b, key, kl))
			continue;
		v = strtoull(b + kl, &e, 10);
		return e != b + kl && !strncmp(e, " kB", 3) && v <= LLONG_MAX ? (long long)v : -1;
	}
	return -1;
}

/* RssFile and RssShmem of /proc/PID/status; -1 if it is gone. */
static void read_status(struct rproc *p)
{
	char path[PATH_MAX], b[16384];

	snprintf(path, sizeof(path), "%s/%ld/status", proc_dir(), p->pid);
	if (mmt_read_path(path, b, sizeof(b)) < 0)
		return;
	p->file_kb = status_kb(b, "RssFile:");
	p->shmem_kb = status_kb(b, "RssShmem:");
}

/* Each process's files summed, its status read; the top files; the order. */
static int rss_finish(struct rset *s, long top)
{
	size_t i, n = 0;

	for (i = 0; i < s->np; i++) {
		if (s->p[i].nf)
			s->p[i].nf = sum_files(&s->f[s->p[i].f0], s->p[i].nf);
		read_status(&s->p[i]);
	}
	s->top = calloc(s->nf ? s->nf : 1, sizeof(*s->top));
	if (!s->top)
		return oom();
	for (i = 0; i < s->np; i++) {
		memcpy(&s->top[n], &s->f[s->p[i].f0], s->p[i].nf * sizeof(*s->top));
		n += s->p[i].nf;
	}
	n = sum_files(s->top, n);
	s->ntop = n < (size_t)top ? n : (size_t)top;
	if (s->np)
		qsort(s->p, s->np, sizeof(*s->p), by_proc);
	return 0;
}

/* ---- output */

/* bytes as "N kB" (a page is a multiple of 1 KiB) */
static const char *kb(char *b, size_t n, unsigned long long bytes)
{
	snprintf(b, n, "%llu kB", bytes / 1024);
	return b;
}

static const char *pct(char *b, size_t n, unsigned long long part, unsigned long long all)
{
	if (!all)
		return "-";
	snprintf(b, n, "%.1f%%", 100.0 * (double)part / (double)all);
	return b;
}

/* s for a text column: control characters as '?' (JSON has them as they are) */
static const char *shown(char *b, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < n; i++)
		b[i] = (unsigned char)s[i] < ' ' || s[i] == 0x7f ? '?' : s[i];
	b[i] = '\0';
	return b;
}

/* The order column's cell (with s->orders): N, "-" for none, "mixed" */
static const char *order_cell(char *b, size_t n, const struct rset *s, const struct rfile *f)
{
	if (!s->orders)
		return "";
	if (f->order == ORDER_MIXED)
		snprintf(b, n, " %5s", "mixed");
	else if (f->order < 0)
		snprintf(b, n, " %5s", "-");
	else
		snprintf(b, n, " %5d", f->order);
	return b;
}

/*
 * A file: JSON {path, mapped_bytes, untouched_bytes[, order]} (order null:
 * the lines summed differ); text at indent (-1: none).
 */
static void show_file(struct out *o, const struct rset *s, const struct rfile *f, int indent)
{
	unsigned long long m = f->mapped * s->h.page_size, u = f->untouched * s->h.page_size;
	char bm[32], bu[32], bp[16], bo[16], path[PATH_MAX];

	out_obj(o, NULL);
	out_str(o, "path", NULL, f->path, NULL);
	out_uint(o, "mapped_bytes", NULL, m, 1);
	out_uint(o, "untouched_bytes", NULL, u, 1);
	if (f->order != -1)
		out_int(o, "order", NULL, f->order, f->order >= 0);
	out_obj_end(o);
	if (indent >= 0)
		out_text(o, "%*s%12s %12s %10s%s  %s\n", indent, "", kb(bm, sizeof(bm), m),
			 kb(bu, sizeof(bu), u), pct(bp, sizeof(bp), f->untouched, f->mapped),
			 order_cell(bo, sizeof(bo), s, f), shown(path, sizeof(path), f->path));
}

/* a /proc kB figure: "N kB", or "-" when the process is gone */
static void kb_cell(char *b, size_t n, long long v)
{
	if (v < 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%lld kB", v);
}

static void proc_text(struct out *o, const struct rset *s, const struct rproc *p)
{
	char pid[16], comm[64], fk[32], sk[32], bm[32], bu[32], bp[16];

	snprintf(pid, sizeof(pid), "%ld", p->pid);
	kb_cell(fk, sizeof(fk), p->file_kb);
	kb_cell(sk, sizeof(sk), p->shmem_kb);
	out_text(o, COLS, pid, shown(comm, sizeof(comm), p->comm), fk, sk,
		 p->busy ? "busy" : kb(bm, sizeof(bm), p->mapped * s->h.page_size),
		 p->busy ? "-" : kb(bu, sizeof(bu), p->untouched * s->h.page_size),
		 p->busy ? "-" : pct(bp, sizeof(bp), p->untouched, p->mapped));
}

/* A process: its row (and with --files its files under it), or a JSON object. */
static void show_proc(struct out *o, const struct rset *s, const struct rproc *p, int files)
{
	size_t i;

	proc_text(o, s, p);
	out_obj(o, NULL);
	out_int(o, "pid", NULL, p->pid, 1);
	out_str(o, "comm", NULL, p->comm, NULL);
	out_bool(o, "busy", p->busy);
	out_int(o, "rss_file_kb", NULL, p->file_kb, p->file_kb >= 0);
	out_int(o, "rss_shmem_kb", NULL, p->shmem_kb, p->shmem_kb >= 0);
	out_uint(o, "mapped_bytes", NULL, p->mapped * s->h.page_size, !p->busy);
	out_uint(o, "untouched_bytes", NULL, p->untouched * s->h.page_size, !p->busy);
	out_arr(o, "files");
	for (i = 0; i < p->nf; i++)
		show_file(o, s, &s->f[p->f0 + i], files ? FILE_INDENT : -1);
	out_arr_end(o);
	out_obj_end(o);
}

/* The total row and the top files (text); "files" (JSON). */
static void show_tail(struct out *o, const struct rset *s, unsigned long long m,
		      unsigned long long u, long top)
{
	char n[32], bm[32], bu[32], bp[16];
	size_t i;

	snprintf(n, sizeof(n), "%zu process%s", s->np, s->np == 1 ? "" : "es");
	out_text(o, COLS, "total", n, "", "", kb(bm, sizeof(bm), m * s->h.page_size),
		 kb(bu, sizeof(bu), u * s->h.page_size), pct(bp, sizeof(bp), u, m));
	if (top)
		out_text(o, "\nTop files by untouched pages, summed over these processes\n%12s %12s %10s%s  %s\n",
			 "mapped", "untouched", "untouched%", s->orders ? " order" : "", "FILE");
	out_arr(o, "files");
	for (i = 0; i < s->ntop; i++)
		show_file(o, s, &s->top[i], 0);
	out_arr_end(o);
}

static void show_rss(const struct rset *s, const struct rss_args *a)
{
	unsigned long long m = 0, u = 0;
	struct out o;
	size_t i;

	out_init(&o, a->json, 0);
	out_obj(&o, NULL);
	out_uint(&o, "page_size", NULL, s->h.page_size, 1);
	out_bool(&o, "usefulness_enable", s->h.useful);
	out_text(&o, COLS, "PID", "COMM", "RssFile", "RssShmem", "mapped", "untouched", "untouched%");
	out_arr(&o, "processes");
	for (i = 0; i < s->np; i++) {
		show_proc(&o, s, &s->p[i], a->files);
		m += s->p[i].busy ? 0 : s->p[i].mapped;
		u += s->p[i].busy ? 0 : s->p[i].untouched;
	}
	out_arr_end(&o);
	show_tail(&o, s, m, u, a->top);
	out_obj(&o, "total");
	out_uint(&o, "mapped_bytes", NULL, m * s->h.page_size, 1);
	out_uint(&o, "untouched_bytes", NULL, u * s->h.page_size, 1);
	out_obj_end(&o);
	out_obj_end(&o);
}

/* The header's limits: unavailable (exit 1), or a warning without the measurement. */
static int rss_check(const struct rset *s, const struct rss_args *a)
{
	if (!s->h.available) {
		fprintf(stderr, PROG ": rss: unavailable on this kernel/arch (the module cannot walk page tables here)\n");
		return MMT_EXIT_FAIL;
	}
	if (!s->h.useful)
		fprintf(stderr, PROG ": warning: usefulness_enable is 0: untouched counts only the pages the kernel itself maps old (arm64), not what fault-around maps ahead on x86: run '" PROG " set usefulness_enable 1'\n");
	if (!s->np && a->kind != SEL_ALL)
		fprintf(stderr, PROG ": note: rss: no file pages mapped by the processes selected\n");
	damon_stat_note();
	return 0;
}

/*
 * advise --pid/--cgroup (advlive.c): the files of process @pid (or of
 * cgroup @cgroup's processes) summed over them, the most untouched
 * first, into *f (*n of them; paths into *buf; the caller frees both),
 * the file's header into *h: 0, or an exit code after saying why.
 */
int rss_files_of(long pid, const char *cgroup, struct rss_head *h, struct rfile **f, size_t *n,
		 char **buf)
{
	struct rset s = { 0 };
	struct rss_args a = { .kind = pid ? SEL_PID : SEL_CGROUP, .pid = pid };
	int rc;

	if (!pid)
		snprintf(a.arg, sizeof(a.arg), "%s", cgroup);
	*buf = NULL;
	rc = rss_read(&a, buf);
	if (!rc)
		rc = parse_rss(*buf, &s, &a);
	if (!rc)
		rc = rss_finish(&s, LONG_MAX);
	*h = s.h;
	*f = s.top;
	*n = rc ? 0 : s.ntop;
	if (rc)
		free(s.top);
	free(s.p);
	free(s.f);
	return rc;
}

static int do_rss(int argc, char **argv)
{
	struct rset s = { 0 };
	struct rss_args a;
	char *buf = NULL;
	int rc;

	rc = rss_args(argc, argv, &a);
	if (!rc && a.rule)
		rc = rule_sel(&a);
	if (!rc)
		rc = rss_read(&a, &buf);
	if (!rc)
		rc = parse_rss(buf, &s, &a);
	if (!rc)
		rc = rss_check(&s, &a);
	if (!rc)
		rc = rss_finish(&s, a.top);
	if (!rc)
		show_rss(&s, &a);
	free(s.p);
	free(s.f);
	free(s.top);
	free(buf);
	return rc;
}
