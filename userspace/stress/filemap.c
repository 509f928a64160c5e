// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of the 2014 fault-around tables (docs/design.md, "Why"): seq,
 * rand and sparse read a
 * cached file through a shared read-only mapping, N threads on disjoint
 * ranges, started together.  The mapping is aligned to the span of one
 * page table (PTRS_PER_PTE pages) so that the fault-around window never
 * straddles the start of the mapping: a one-byte-per-page pass over N
 * pages at order k takes exactly N/2^k faults.
 *
 * Also the EOF probe: a file whose size is not a multiple of any window,
 * mapped past its end; every page past EOF must raise SIGBUS at every
 * order, and the tail of the last page must read as zeroes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libmmtune.h"
#include "jsonw.h"
#include "mmstress.h"

enum fm_kind { FM_SEQ, FM_RAND, FM_SPARSE };

struct fm_state {
	enum fm_kind kind;
	struct mms_file f;
	long long per_thread;	/* bytes, a multiple of the page (sparse: the span) */
	long long total;
	long span;		/* bytes mapped by one page table */
	int word;		/* read every word, not one byte per page */
	uint32_t *perm;		/* rand: page order, per thread */
	long npages;		/* pages per thread */
};

struct fm_arg {
	const char *base;
	long long len;
	long page, span;
	int kind, word;
	long stride;		/* seq: pages from one touch to the next */
	const uint32_t *perm;
	long npages;
	uint64_t sink;
	long long ops;
};

static void *fm_worker(void *p)
{
	struct fm_arg *a = p;
	const char *b = a->base;
	uint64_t sum = 0;
	long long ops = 0;
	long i, w, wpp = a->page / 8;

	switch (a->kind) {
	case FM_SEQ:
		for (i = 0; i < a->npages && !mms_stop; i += a->stride) {
			const volatile uint64_t *q = (const uint64_t *)(b + i * a->page);

			if (a->word)
				for (w = 0; w < wpp; w++)
					sum += q[w];
			else
				sum += q[0];
			ops += a->page;
		}
		break;
	case FM_RAND:
		for (i = 0; i < a->npages && !mms_stop; i++) {
			const volatile uint64_t *q = (const uint64_t *)(b + (long)a->perm[i] * a->page);

			if (a->word)
				for (w = 0; w < wpp; w++)
					sum += q[w];
			else
				sum += q[0];
			ops += a->page;
		}
		break;
	case FM_SPARSE:
		for (long long off = 0; off < a->len && !mms_stop; off += a->span) {
			sum += *(const volatile uint64_t *)(b + off);
			ops++;
		}
		break;
	}
	a->sink = sum;
	a->ops = ops;
	return NULL;
}

/* sparse: only the pages a fault-around window can reach are cached */
static int fill_windows(int fd, long long size, void *arg)
{
	struct mms_ctx *c = arg;
	struct fm_state *s = c->priv;
	long long win = (long long)c->page << c->sweep_max_order;
	static char buf[1 << 16];
	int err;

	if (win > s->span)
		win = s->span;
	memset(buf, 0x5a, sizeof(buf));
	for (long long off = 0; off < size; off += s->span) {
		for (long long o = 0; o < win; o += sizeof(buf)) {
			size_t n = win - o < (long long)sizeof(buf) ? (size_t)(win - o) : sizeof(buf);

			if (mms_stop)
				return -EINTR;
			if (pwrite(fd, buf, n, off + o) != (ssize_t)n) {
				err = errno ? -errno : -EIO;
				return err;
			}
		}
	}
	return 0;
}

static int fm_setup(struct mms_ctx *c, enum fm_kind kind, long long defsize)
{
	struct fm_state *s = calloc(1, sizeof(*s));
	const struct mms_opts *o = c->o;
	long long sz = o->size_given ? o->size : defsize, need = 0;
	int err;

	if (!s)
		return MMT_EXIT_FAIL;
	c->priv = s;
	s->kind = kind;
	s->span = c->ptrs_per_pte * c->page;
	s->word = kind != FM_SPARSE && o->touch != TOUCH_PAGE && o->stride <= 1;
	if (kind == FM_SPARSE)
		sz = (sz + s->span - 1) / s->span * s->span;
	else
		sz = (sz + c->page - 1) / c->page * c->page;
	if (o->size_given && sz != o->size) {
		char want[32], got[32], unit[32];

		mms_fmt_size(o->size, want, sizeof(want));
		mms_fmt_size(sz, got, sizeof(got));
		mms_fmt_size(kind == FM_SPARSE ? s->span : c->page, unit, sizeof(unit));
		mms_warn("%s: --size %s rounded up to %s per thread: %s (%s here)", c->w->name, want, got,
			 kind == FM_SPARSE ? "sparse reads one page per page table, so whole page tables"
					   : "whole pages", unit);
	}
	s->per_thread = sz;
	s->npages = sz / c->page;
	if (kind != FM_SPARSE && s->npages > UINT32_MAX)
		mms_die(MMT_EXIT_USAGE, "--size too large");
	s->total = sz * o->max_threads;
	if (kind == FM_RAND) {
		uint64_t seed = 0x1234567;

		s->perm = malloc(sizeof(uint32_t) * s->npages * o->max_threads);
		if (!s->perm)
			mms_die(MMT_EXIT_FAIL, "out of memory for the page order");
		for (int t = 0; t < o->max_threads; t++) {
			uint32_t *p = s->perm + (size_t)t * s->npages;

			for (long i = 0; i < s->npages; i++)
				p[i] = i;
			for (long i = s->npages - 1; i > 0; i--) {
				long j = mms_rand(&seed) % (i + 1);
				uint32_t x = p[i];

				p[i] = p[j];
				p[j] = x;
			}
		}
	}
	if (kind == FM_SPARSE) {
		long long win = (long long)c->page << c->sweep_max_order;

		need = s->total / s->span * (win < s->span ? win : s->span);
	}
	err = mms_file_prepare(c, &s->f, s->total, need, kind == FM_SPARSE ? fill_windows : NULL, c, 0);
	return err == -EINTR ? 0 : err;
}

static int fm_run(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	struct fm_state *s = c->priv;
	long long len = s->per_thread * threads;
	struct fm_arg *a = calloc(threads, sizeof(*a)), warm;
	struct mms_meas m;
	volatile uint32_t sink = 0;
	char *base;
	int ret = 0;
	long long ops = 0;

	(void)block;
	if (!a)
		return MMT_EXIT_FAIL;
	base = mms_map_aligned(len, s->span, PROT_READ, MAP_SHARED, s->f.fd, 0);
	if (!base) {
		mms_err("mmap %lld bytes of %s: %s", len, s->f.path, strerror(errno));
		free(a);
		return MMT_EXIT_FAIL;
	}
	for (int t = 0; t < threads; t++) {
		a[t].base = base + s->per_thread * t;
		a[t].len = s->per_thread;
		a[t].page = c->page;
		a[t].span = s->span;
		a[t].kind = s->kind;
		a[t].word = s->word;
		a[t].stride = c->o->stride > 1 ? c->o->stride : 1;
		a[t].npages = s->npages;
		a[t].perm = s->perm ? s->perm + (size_t)t * s->npages : NULL;
		if (a[t].perm)	/* fault in the page order outside the window */
			for (long i = 0; i < s->npages; i += c->page / 4)
				sink += a[t].perm[i];
	}
	(void)sink;	/* read for its faults only */
	/* run the worker's code once so its text is mapped before the window */
	warm = a[0];
	warm.npages = 0;
	warm.len = 0;
	fm_worker(&warm);

	if (mms_run_threads(threads, fm_worker, a, sizeof(*a), 0, &m) != 0) {
		mms_err("could not start %d threads", threads);
		ret = MMT_EXIT_FAIL;
	}
	munmap(base, len);
	for (int t = 0; t < threads; t++)
		ops += a[t].ops;
	if (s->kind == FM_SPARSE)
		mms_result_set(r, &m, ops, 1, "touches/s");
	else
		mms_result_set(r, &m, ops, 1e6, "MB/s");
	r->size = s->per_thread;
	free(a);
	return ret;
}

static void fm_teardown(struct mms_ctx *c)
{
	struct fm_state *s = c->priv;

	if (!s)
		return;
	mms_file_close(&s->f);
	free(s->perm);
	free(s);
	c->priv = NULL;
}

static int seq_setup(struct mms_ctx *c) { return fm_setup(c, FM_SEQ, 64LL << 20); }
static int rand_setup(struct mms_ctx *c) { return fm_setup(c, FM_RAND, 64LL << 20); }
static int sparse_setup(struct mms_ctx *c) { return fm_setup(c, FM_SPARSE, 256LL << 20); }

const struct mms_workload mms_wl_seq = {
	"seq", "every word of a cached file, in order (linux-mm 2014: sequential)",
	seq_setup, fm_run, fm_teardown, 0, "per thread",
};
const struct mms_workload mms_wl_rand = {
	"rand", "as seq, pages in random order (linux-mm 2014 fault-around tables)",
	rand_setup, fm_run, fm_teardown, 0, "per thread",
};
const struct mms_workload mms_wl_sparse = {
	"sparse", "one page per page table of a cached file (linux-mm 2014 worst case)",
	sparse_setup, fm_run, fm_teardown, 0, "per thread",
};

/* ------------------------------------------------------------ EOF probe */

static sigjmp_buf probe_jb;
static volatile sig_atomic_t probe_armed;

static void probe_sigbus(int sig)
{
	(void)sig;
	if (probe_armed)
		siglongjmp(probe_jb, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* 1 if reading *p raised SIGBUS */
static int probe_read(const volatile char *p, char *val)
{
	if (sigsetjmp(probe_jb, 1)) {
		probe_armed = 0;
		return 1;
	}
	probe_armed = 1;
	*val = *p;
	probe_armed = 0;
	return 0;
}

struct probe_fill {
	long long written;
};

/* write past the final size, then truncate: leaves cached pages to drop */
static int probe_fill(int fd, long long size, void *arg)
{
	struct probe_fill *pf = arg;
	int err = mms_fill_all(fd, pf->written, NULL);

	if (err)
		return err;
	if (ftruncate(fd, size) != 0)
		return -errno;
	return 0;
}

struct probe_res {
	int order, eff_order;
	long past, sigbus, tail_bad, content_bad;
};

static void probe_once(struct mms_ctx *c, int fd, long long size, long long maplen,
		       long span, int beyond_first, struct probe_res *pr)
{
	long page = c->page;
	long eof_page = (size - 1) / page;
	long npages = maplen / page;
	long win = 1L << c->sweep_max_order;
	char *base = mms_map_aligned(maplen, span, PROT_READ, MAP_SHARED, fd, 0);
	char v;

	if (!base)
		mms_die(MMT_EXIT_FAIL, "eofprobe: mmap: %s", strerror(errno));
	if (beyond_first)
		for (long p = eof_page + 1; p < npages; p++)
			pr->sigbus += probe_read(base + p * page, &v);
	/* first touch at the start of the window holding EOF: fault-around
	 * maps up to (and must stop at) the EOF page */
	if (probe_read(base + (eof_page & ~(win - 1)) * page, &v))
		pr->content_bad++;
	if (probe_read(base + size - 1, &v) || v == 0)
		pr->content_bad++;
	for (long long o = size; o < (eof_page + 1) * page; o++)
		if (probe_read(base + o, &v) || v != 0) {
			pr->tail_bad++;
			break;
		}
	if (!beyond_first)
		for (long p = eof_page + 1; p < npages; p++)
			pr->sigbus += probe_read(base + p * page, &v);
	pr->past += npages - eof_page - 1;
	munmap(base, maplen);
}

/* A probe's JSON record, one line */
static void probe_json(struct jsonw *jw, const struct probe_res *p, long long size, int ok)
{
	jsonw_flow(jw);
	jsonw_start_object(jw);
	jsonw_string_field(jw, "workload", "eofprobe");
	mms_out_json_order(jw, "order", p->order);
	mms_out_json_order(jw, "effective_order", p->eff_order);
	jsonw_int_field(jw, "size", size);
	jsonw_int_field(jw, "pages_past_eof", p->past);
	jsonw_int_field(jw, "sigbus", p->sigbus);
	jsonw_bool_field(jw, "tail_zero", !p->tail_bad);
	jsonw_bool_field(jw, "content_ok", !p->content_bad);
	jsonw_string_field(jw, "result", ok ? "ok" : "FAIL");
	jsonw_end_object(jw);
}

/* The probe's records: a table, CSV rows or a JSON document */
static void probe_print(struct mms_ctx *c, const struct probe_res *res, int n, int bad,
			long long size, long long maplen)
{
	const struct mms_opts *o = c->o;
	struct jsonw *jw = NULL;

	if (o->format == FMT_CSV)
		mms_out_begin("workload,order,effective_order,size,pages_past_eof,sigbus,tail_zero,"
			      "content_ok,result");
	else if (o->format == FMT_JSON)
		jw = mms_out_json_open(mms_stop ? "interrupted" : bad ? "failed" : "done", NULL);
	else
		printf("eofprobe: file of %lld bytes (%lld pages + %lld bytes), mapped %lld pages\n"
		       "%-7s %15s %8s %10s %10s %s\n", size, size / c->page, size % c->page,
		       maplen / c->page, "order", "pages_past_eof", "sigbus", "tail_zero", "content", "result");
	for (int i = 0; i < n; i++) {
		const struct probe_res *p = &res[i];
		int ok = p->sigbus == p->past && !p->tail_bad && !p->content_bad;

		char ord[16], eff[16];

		if (mms_stop && p->past == 0)
			break;
		mms_order_str(p->order, o->format, ord, sizeof(ord));
		mms_order_str(p->eff_order, o->format, eff, sizeof(eff));
		if (jw)
			probe_json(jw, p, size, ok);
		else if (o->format == FMT_CSV)
			printf("eofprobe,%s,%s,%lld,%ld,%ld,%d,%d,%s\n", ord, eff, size, p->past, p->sigbus,
			       !p->tail_bad, !p->content_bad, ok ? "ok" : "FAIL");
		else
			printf("%-7s %15ld %8ld %10s %10s %s\n", ord, p->past, p->sigbus,
			       p->tail_bad ? "no" : "yes", p->content_bad ? "bad" : "ok", ok ? "ok" : "FAIL");
	}
	if (jw)
		mms_out_json_close();
	fflush(stdout);
}

int mms_eofprobe(struct mms_ctx *c)
{
	const struct mms_opts *o = c->o;
	long span = c->ptrs_per_pte * c->page;
	/* not a multiple of any window: 3 spans + 5 pages + 123 bytes */
	long long size = 3LL * span + 5 * c->page + 123;
	/* to the end of the span holding EOF (the largest window), and beyond */
	long long maplen = 4LL * span + 16 * c->page;
	struct probe_fill pf = { .written = 4LL * span };
	struct probe_res res[MMS_MAX_LIST];
	struct mms_file f;
	struct sigaction sa;
	int n = o->norders ? o->norders : 1, bad = 0, err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	err = mms_file_prepare(c, &f, size, pf.written, probe_fill, &pf, 0);
	if (err == -EINTR)
		return 0;
	if (err)
		return err;
	if (!f.created)
		mms_die(MMT_EXIT_USAGE, "eofprobe: --file must be a directory or a new path");
	memset(res, 0, sizeof(res));
	for (int i = 0; i < n && !mms_stop; i++) {
		int order = -1;
		char rule[sizeof(c->meta.rule)];

		if (o->norders) {
			order = o->orders[i];
			if (mmt_order_set(order, NULL))
				mms_die(mmt_exit_code(MMT_EINVAL), "cannot set fault_around_order %d: %s",
					order, mmt_errmsg());
		}
		res[i].order = order;
		res[i].eff_order = mms_effective_order(rule, sizeof(rule));
		probe_once(c, f.fd, size, maplen, span, 0, &res[i]);
		probe_once(c, f.fd, size, maplen, span, 1, &res[i]);
		if (res[i].sigbus != res[i].past || res[i].tail_bad || res[i].content_bad)
			bad++;
	}
	mms_file_close(&f);

	probe_print(c, res, n, bad, size, maplen);
	if (bad)
		mms_err("eofprobe: %d order(s) failed: a page past EOF did not raise SIGBUS or the tail was not zero", bad);
	return bad ? MMT_EXIT_FAIL : 0;
}
