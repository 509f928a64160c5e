// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl replay: what each fault-around order would have done with
 * the faults of one order-0 run (record.c wrote them; docs/replay.md).
 *
 * At order 0 every page a process reads through a file mapping faults
 * once, in the order it is first read.  Replaying that sequence at order
 * k, a fault whose page an earlier window already mapped does not happen
 * (its page counts as touched); any other faults and maps its window, as
 * do_fault_around computes it: 2^k pages aligned in the address space,
 * clipped to the VMA and to the page table, of which only the pages the
 * page cache holds (and below EOF) are mapped.  Pages mapped ahead and
 * never read are the untouched ones, the RSS the order would have added.
 * Kernels from 6.18 map the whole of a large folio the window reaches,
 * when it lies in the VMA and in one page table (and below EOF, but on
 * tmpfs): with the record's folio layout, that is modelled too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "record.h"
#include "replay.h"

static const char replay_optstring[] = ":o:jfwh";
static const struct option replay_opts[] = {
	{ "orders", required_argument, NULL, 'o' },
	{ "whole-folio", no_argument, NULL, 'w' },
	{ "json", no_argument, NULL, 'j' },
	{ "files", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_replay(int argc, char **argv);

const struct cmd cmd_replay = {
	"replay", do_replay, replay_optstring, replay_opts,
	"usage: " PROG " replay [--orders LIST] [--whole-folio] [--files] [--json] FILE",
	"What each fault-around order would have done with a record's faults: faults,\n"
	"fault-around calls, pages mapped ahead and those never touched (RSS added),\n"
	"and what makes the figures bounds rather than exact.  See mmtunectl(8).\n"
	"  --orders LIST    orders, e.g. 0,2,4 or 0-9 (default: 0 to one page table)\n"
	"  --whole-folio    map large folios whole, as kernels from 6.18 do (the\n"
	"                   default when the record was made on one)\n"
	"  --files          the same per file\n"
	"  --json           one JSON object\n"
};

/* A large folio of a file: its first page and its pages. */
struct rp_folio {
	unsigned long start, nr;
};

struct rp_file {
	char *path;			/* "-": not found */
	unsigned long size, first;	/* pages; cached at its first fault */
	unsigned long end;		/* cached at the run's end */
	int have_size, have_end;	/* 0: the file was not found */
	unsigned char *cached;		/* bitmap at its first fault; NULL: unknown */
	struct rp_folio *fo;		/* its large folios then, by start */
	int nfo, layout, shmem;		/* layout: folios line read, -1 unknown */
	struct rp_sum s[RP_MAX_ORDERS + 1];	/* the last: rp_load's order 0 */
};

struct rp_vma {
	int fid;
	unsigned long start, pages, pgoff;
	unsigned char *st;		/* per page: RP_* */
};

#define RP_MAPPED	1
#define RP_AHEAD	2	/* mapped by a window, not by its own fault */
#define RP_SEEN		4	/* recorded already: a second fault is a refault */

struct rp_fault {
	uint32_t vid, idx;
};

struct rp {
	const char *name;
	char release[128], machine[64], *command;
	long psz, ptes, korder;
	struct rp_file *f;
	int nf;
	struct rp_vma *v;
	int nv;
	struct rp_fault *flt;
	size_t nflt, cap;
	unsigned long long minflt, majflt, events, lost, odd, refaults;
	unsigned long long hidden;	/* pages the record's own faults mapped whole */
	int ended, version, rec_whole, whole;	/* whole folios: the record's kernel, modelled */
};

static int rp_bad(const struct rp *r, unsigned long line, const char *what)
{
	fprintf(stderr, PROG ": replay: %s:%lu: %s\n", r->name, line, what);
	return MMT_EXIT_FAIL;
}

static int rp_file_line(struct rp *r, const char *l, unsigned long ln)
{
	struct rp_file *nf;
	unsigned long size, first;
	int id, off = 0;

	if (sscanf(l, "file %d %*u:%*u %*u %lu %lu %n", &id, &size, &first, &off) < 3 || !off ||
	    id != r->nf)
		return rp_bad(r, ln, "a bad file line");
	nf = realloc(r->f, (r->nf + 1) * sizeof(*r->f));
	if (!nf)
		return lib_fail(MMT_EIO);
	r->f = nf;
	memset(&r->f[id], 0, sizeof(r->f[id]));
	r->f[id].path = strdup(l + off);
	r->f[id].first = first;
	r->f[id].size = size;
	r->f[id].have_size = strcmp(l + off, "-") != 0;
	if (r->f[id].have_size)
		r->f[id].cached = calloc(size / 8 + 1, 1);
	r->nf++;
	return r->f[id].path && (r->f[id].cached || !r->f[id].have_size) ? 0 : lib_fail(MMT_EIO);
}

static int rp_vma_line(struct rp *r, const char *l, unsigned long ln)
{
	unsigned long start, end, pgoff;
	struct rp_vma *nv;
	int id, tgid, fid;

	if (sscanf(l, "vma %d %d %d %lx %lx %lu", &id, &tgid, &fid, &start, &end, &pgoff) != 6 ||
	    id != r->nv || fid < 0 || fid >= r->nf || end <= start || (end - start) % r->psz)
		return rp_bad(r, ln, "a bad vma line");
	nv = realloc(r->v, (r->nv + 1) * sizeof(*r->v));
	if (!nv)
		return lib_fail(MMT_EIO);
	r->v = nv;
	r->v[id] = (struct rp_vma){ .fid = fid, .start = start, .pgoff = pgoff,
				    .pages = (end - start) / r->psz };
	r->nv++;
	return 0;
}

static int rp_fault_line(struct rp *r, const char *l, unsigned long ln)
{
	char *e;
	unsigned long vid = strtoul(l + 2, &e, 10), idx;

	idx = strtoul(e, &e, 10);
	if (*e || vid >= (unsigned long)r->nv || idx >= r->v[vid].pages)
		return rp_bad(r, ln, "a bad fault line");
	if (r->nflt == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 65536;
		struct rp_fault *n = realloc(r->flt, cap * sizeof(*n));

		if (!n)
			return lib_fail(MMT_EIO);
		r->flt = n;
		r->cap = cap;
	}
	r->flt[r->nflt++] = (struct rp_fault){ (uint32_t)vid, (uint32_t)idx };
	return 0;
}

static int rp_cached_line(struct rp *r, const char *l, unsigned long ln)
{
	unsigned long start, len, i;
	struct rp_file *f;
	int id;

	if (sscanf(l, "cached %d %lu %lu", &id, &start, &len) != 3 || id < 0 || id >= r->nf)
		return rp_bad(r, ln, "a bad cached line");
	f = &r->f[id];
	if (!f->cached || start + len > f->size || start + len < start)
		return rp_bad(r, ln, "a cached run beyond the file's size");
	for (i = start; i < start + len; i++)
		f->cached[i / 8] |= 1 << (i % 8);
	return 0;
}

/* "folio ID START NR": a large folio, after the file's last one. */
static int rp_folio_line(struct rp *r, const char *l, unsigned long ln)
{
	unsigned long start, nr;
	struct rp_folio *n;
	struct rp_file *f;
	int id;

	if (sscanf(l, "folio %d %lu %lu", &id, &start, &nr) != 3 || id < 0 || id >= r->nf)
		return rp_bad(r, ln, "a bad folio line");
	f = &r->f[id];
	if (nr < 2 || (nr & (nr - 1)) || start % nr || start + nr > f->size || f->layout ||
	    (f->nfo && start < f->fo[f->nfo - 1].start + f->fo[f->nfo - 1].nr))
		return rp_bad(r, ln, "a folio out of place (size, alignment, order, or after its folios line)");
	n = realloc(f->fo, (f->nfo + 1) * sizeof(*n));
	if (!n)
		return lib_fail(MMT_EIO);
	f->fo = n;
	f->fo[f->nfo++] = (struct rp_folio){ start, nr };
	return 0;
}

/* "folios ID N SHMEM": the file's N large folios are written (-1: unknown). */
static int rp_folios_line(struct rp *r, const char *l, unsigned long ln)
{
	int id, shmem;
	long n;

	if (sscanf(l, "folios %d %ld %d", &id, &n, &shmem) != 3 || id < 0 || id >= r->nf ||
	    r->f[id].layout || (n >= 0 && n != r->f[id].nfo) || n < -1 || (shmem != 0 && shmem != 1))
		return rp_bad(r, ln, "a bad folios line (a count that is not its folio lines')");
	r->f[id].layout = n < 0 ? -1 : 1;
	r->f[id].shmem = shmem;
	return 0;
}

/* One line of the record; 0 or an exit code after saying why. */
static int rp_line(struct rp *r, char *l, unsigned long ln)
{
	unsigned long a, b;
	int id;

	if (r->ended)
		return rp_bad(r, ln, "a line after 'end'");
	if (l[0] == 'f' && l[1] == ' ')
		return rp_fault_line(r, l, ln);
	if (!strncmp(l, "vma ", 4))
		return rp_vma_line(r, l, ln);
	if (!strncmp(l, "file ", 5))
		return rp_file_line(r, l, ln);
	if (!strncmp(l, "cached ", 7))
		return rp_cached_line(r, l, ln);
	if (!strncmp(l, "folio ", 6))
		return rp_folio_line(r, l, ln);
	if (!strncmp(l, "folios ", 7))
		return rp_folios_line(r, l, ln);
	if (sscanf(l, "end_cached %d %lu", &id, &a) == 2) {
		if (id < 0 || id >= r->nf)
			return rp_bad(r, ln, "a bad end_cached line");
		r->f[id].end = a;
		r->f[id].have_end = 1;
		return 0;
	}
	if (sscanf(l, "faults %lu %lu", &a, &b) == 2)
		return r->minflt = a, r->majflt = b, 0;
	if (sscanf(l, "events %llu", &r->events) == 1 || sscanf(l, "lost %llu", &r->lost) == 1 ||
	    sscanf(l, "odd %llu", &r->odd) == 1)
		return 0;
	if (!strcmp(l, "end"))
		return r->ended = 1, 0;
	if (sscanf(l, "release %127s", r->release) == 1 || sscanf(l, "machine %63s", r->machine) == 1 ||
	    sscanf(l, "page_size %ld", &r->psz) == 1 || sscanf(l, "ptes %ld", &r->ptes) == 1 ||
	    sscanf(l, "kernel_order %ld", &r->korder) == 1 ||
	    sscanf(l, "whole_folio %d", &r->rec_whole) == 1)
		return 0;
	if (!strncmp(l, "command", 7) && !r->command)
		return (r->command = strdup(l[7] ? l + 8 : "")) ? 0 : lib_fail(MMT_EIO);
	return rp_bad(r, ln, "not a line of a record");
}

static int rp_read(struct rp *r, FILE *in)
{
	unsigned long ln = 0;
	size_t cap = 0;
	char *l = NULL;
	ssize_t n;
	int rc = 0;

	n = getline(&l, &cap, in);
	if (n > 0 && !strncmp(l, RECORD_MAGIC "\n", n))
		r->version = 2;
	else if (n > 0 && !strncmp(l, RECORD_MAGIC_1 "\n", n))
		r->version = 1;	/* no folio layout */
	else
		rc = rp_bad(r, 1, "not an mmtunectl record (" RECORD_MAGIC ")");
	for (ln = 2; !rc && (n = getline(&l, &cap, in)) > 0; ln++) {
		if (l[n - 1] == '\n')
			l[--n] = '\0';
		if (!r->psz && strncmp(l, "release", 7) && strncmp(l, "machine", 7) &&
		    strncmp(l, "page_size", 9))
			rc = rp_bad(r, ln, "no page_size before the first item");
		else
			rc = rp_line(r, l, ln);
		if (!rc && (r->psz < 0 || (r->psz && (r->psz & (r->psz - 1)))))
			rc = rp_bad(r, ln, "a bad page_size");
	}
	free(l);
	if (!rc && ferror(in))
		rc = (fprintf(stderr, PROG ": replay: reading %s: %s\n", r->name, strerror(errno)), MMT_EXIT_FAIL);
	if (!rc && !r->ended)
		rc = rp_bad(r, ln - 1, "the record is truncated (no 'end' line): was record interrupted?");
	if (!rc && (r->ptes <= 0 || r->ptes & (r->ptes - 1)))
		rc = rp_bad(r, ln - 1, "no or a bad 'ptes' line");
	return rc;
}

static int rp_cached(const struct rp_file *f, unsigned long pg)
{
	if (f->have_size && pg >= f->size)
		return 0;	/* beyond EOF: never mapped */
	return !f->cached || (f->cached[pg / 8] >> (pg % 8) & 1);	/* unknown: cached */
}

/* The window of the fault at @idx of @v at order @k: [*lo, *hi]. */
static void rp_window(const struct rp *r, const struct rp_vma *v, unsigned long idx, int k,
		      unsigned long *lo, unsigned long *hi)
{
	unsigned long nr = 1UL << k, P = r->ptes;
	unsigned long pte_off = (v->start / r->psz + idx) & (P - 1);
	unsigned long from = pte_off & ~(nr - 1), to;

	if (from < pte_off - (pte_off < idx ? pte_off : idx))
		from = pte_off - (pte_off < idx ? pte_off : idx);
	to = from + nr < P ? from + nr : P;
	if (to > pte_off + v->pages - idx)
		to = pte_off + v->pages - idx;
	*lo = idx - (pte_off - from);
	*hi = idx + (to - 1 - pte_off);
}

/* The large folio holding page @pg of @f, or NULL. */
static const struct rp_folio *rp_folio_of(const struct rp_file *f, unsigned long pg)
{
	int lo = 0, hi = f->nfo - 1;

	while (lo <= hi) {
		int m = (lo + hi) / 2;

		if (pg < f->fo[m].start)
			hi = m - 1;
		else if (pg >= f->fo[m].start + f->fo[m].nr)
			lo = m + 1;
		else
			return &f->fo[m];
	}
	return NULL;
}

/*
 * Whether fault-around maps @fo whole in @v (filemap_map_folio_range
 * from 6.18): it lies in the VMA and in one page table, and ends before
 * the file's last page (filemap_map_pages: file_end >= the folio's next
 * index), but on tmpfs.  Its first page in the VMA into *@at.
 */
static int rp_maps_whole(const struct rp *r, const struct rp_vma *v, const struct rp_file *f,
			 const struct rp_folio *fo, unsigned long *at)
{
	unsigned long a;

	if (fo->start < v->pgoff || fo->start - v->pgoff + fo->nr > v->pages)
		return 0;
	*at = fo->start - v->pgoff;
	a = v->start / r->psz + *at;
	return a / r->ptes == (a + fo->nr - 1) / r->ptes &&
	       (f->shmem || fo->start + fo->nr < f->size);
}

/* Map page @p of @v ahead of the fault (window [@lo, @hi]), if it is not. */
static void rp_ahead(struct rp_vma *v, unsigned long p, unsigned long lo, unsigned long hi,
		     struct rp_sum *s)
{
	if (v->st[p] & RP_MAPPED)
		return;
	v->st[p] |= RP_MAPPED | RP_AHEAD;
	s->premapped++;
	s->untouched++;
	if (p < lo || p > hi)
		s->beyond++;
}

/* The pages the window [@lo, @hi] of @v maps, into @s. */
static void rp_map_window(const struct rp *r, struct rp_vma *v, const struct rp_file *f,
			  unsigned long lo, unsigned long hi, struct rp_sum *s)
{
	const struct rp_folio *fo;
	unsigned long p, q, at;

	for (p = lo; p <= hi; p++) {
		if (!rp_cached(f, v->pgoff + p))
			continue;
		fo = r->whole ? rp_folio_of(f, v->pgoff + p) : NULL;
		if (fo && rp_maps_whole(r, v, f, fo, &at)) {
			for (q = at; q < at + fo->nr; q++)
				rp_ahead(v, q, lo, hi, s);
			p = at + fo->nr - 1;
			continue;
		}
		rp_ahead(v, p, lo, hi, s);
	}
}

/* One order's replay, into slot @o of the sums. */
static void rp_order(struct rp *r, int k, int o, struct rp_sum *all)
{
	unsigned long long hits = 0;
	size_t i;
	int j;

	for (j = 0; j < r->nv; j++)
		memset(r->v[j].st, 0, r->v[j].pages);
	for (j = 0; j < r->nf; j++)
		memset(&r->f[j].s[o], 0, sizeof(r->f[j].s[o]));
	memset(all, 0, sizeof(*all));
	for (i = 0; i < r->nflt; i++) {
		struct rp_vma *v = &r->v[r->flt[i].vid];
		struct rp_file *f = &r->f[v->fid];
		unsigned long idx = r->flt[i].idx, lo, hi;
		unsigned char *st = v->st;

		if (st[idx] & RP_SEEN)	/* a second fault: taken as a new mapping */
			memset(st, 0, v->pages);
		st[idx] |= RP_SEEN;
		if (st[idx] & RP_MAPPED) {
			hits++;
			if (st[idx] & RP_AHEAD) {
				st[idx] &= ~RP_AHEAD;
				f->s[o].untouched--;
			}
			continue;
		}
		st[idx] |= RP_MAPPED;
		f->s[o].faults++;
		if (k)
			f->s[o].calls++;
		rp_window(r, v, idx, k, &lo, &hi);
		rp_map_window(r, v, f, lo, hi, &f->s[o]);
	}
	for (j = 0; j < r->nf; j++) {
		all->calls += r->f[j].s[o].calls;
		all->premapped += r->f[j].s[o].premapped;
		all->untouched += r->f[j].s[o].untouched;
		all->beyond += r->f[j].s[o].beyond;
	}
	all->faults = r->minflt + r->majflt - hits;
}

/* Faults of a page seen before in its VMA: each taken as a new mapping. */
static unsigned long long rp_refaults(struct rp *r)
{
	unsigned long long n = 0;
	size_t i;
	int j;

	for (j = 0; j < r->nv; j++)
		memset(r->v[j].st, 0, r->v[j].pages);
	for (i = 0; i < r->nflt; i++) {
		struct rp_vma *v = &r->v[r->flt[i].vid];

		if (v->st[r->flt[i].idx]) {
			memset(v->st, 0, v->pages);
			n++;
		}
		v->st[r->flt[i].idx] = 1;
	}
	return n;
}

/* @f's folios of a page table's size (PMD-mappable). */
static unsigned long rp_pmd_folios(const struct rp *r, const struct rp_file *f)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < f->nfo; i++)
		n += f->fo[i].nr == (unsigned long)r->ptes;
	return n;
}

#define RP_BOUND(...) do { if (o) { snprintf(b, sizeof(b), __VA_ARGS__); \
	out_text(o, "bound: %s\n", b); out_item(o, b); } n++; } while (0)

/* Why @f's figures (file @i) are bounds: lines to @o (NULL: none), the count. */
static int rp_file_bounds(const struct rp *r, const struct rp_file *f, int i, struct out *o)
{
	char b[PATH_MAX + 160];
	int n = 0;

	if (!f->have_size)
		RP_BOUND("file %d was not found (a process's maps gave no path): its pages taken as cached",
			 i);
	else if (f->have_end && f->first != f->end)
		RP_BOUND("%s: %lu pages cached at its first fault, %lu at the end: its windows' "
			 "cached pages are taken as at its first fault", f->path, f->first, f->end);
	if (f->have_size && r->whole && f->layout <= 0)
		RP_BOUND("%s: its folio sizes are not known (%s): its folios are taken as single pages",
			 f->path, f->layout < 0 ? "frames unreadable: record needs CAP_SYS_ADMIN" :
			 "a record of version 1");
	if (!r->whole && rp_pmd_folios(r, f))
		RP_BOUND("%s: %lu folios of a page table's size: a fault may map one with a single "
			 "PMD entry, which is not modelled", f->path, rp_pmd_folios(r, f));
	return n;
}

/* Why the figures are bounds rather than exact: lines to @o, and the count. */
static int rp_bounds(const struct rp *r, struct out *o)
{
	char b[PATH_MAX + 160];
	int n = 0, i;

	out_arr(o, "bounds");
	if (r->lost || r->odd)
		RP_BOUND("%llu events lost and %llu unreadable: faults missing from the record",
			 r->lost, r->odd);
	if (r->majflt)
		RP_BOUND("%llu major faults: pages read from storage, whose windows held fewer cached pages",
			 r->majflt);
	for (i = 0; i < r->nf; i++)
		n += rp_file_bounds(r, &r->f[i], i, o);
	if (r->hidden)
		RP_BOUND("%llu pages of large folios were mapped whole by the recorded run's own faults "
			 "(its kernel maps whole folios): which of them it read is not known; they count "
			 "as untouched, an upper bound at every order", r->hidden);
	out_arr_end(o);
	return n;
}
#undef RP_BOUND

/* What is assumed, what is bound (JSON "bounds", "exact"): the bounds' count. */
static int rp_verdict(const struct rp *r, struct out *o)
{
	int n;

	if (r->refaults)
		out_text(o, "assumed: %llu times a page faulted again in its VMA, taken as the VMA "
			 "unmapped and mapped again (munmap, MADV_DONTNEED) rather than reclaimed\n",
			 r->refaults);
	n = rp_bounds(r, o);
	out_bool(o, "exact", !n);
	if (!n)
		out_text(o, "exact: the page cache of every file as at its first fault, no major "
			 "fault, no event lost\n");
	return n;
}

static void rp_row(struct out *o, const struct rp *r, int k, const struct rp_sum *s, double base)
{
	double useful = s->premapped ? 100.0 * (s->premapped - s->untouched) / s->premapped : 0;
	char u[16] = "-";
	char v[16] = "-";

	if (s->premapped)
		snprintf(u, sizeof(u), "%.1f", useful);
	if (base)
		snprintf(v, sizeof(v), "%.3f", s->faults / base);
	out_text(o, "%5d %12llu %9s %12llu %12llu %12llu %14llu %8s", k, s->faults, v, s->calls,
		 s->premapped, s->untouched, s->untouched * r->psz / 1024, u);
	if (r->whole)
		out_text(o, " %13llu", s->beyond);
	out_text(o, "\n");
	out_obj(o, NULL);
	out_int(o, "order", NULL, k, 1);
	out_uint(o, "faults", NULL, s->faults, 1);
	if (base)
		out_float(o, "faults_vs_order_0", "%.4f", s->faults / base);
	out_uint(o, "fault_around_calls", NULL, s->calls, 1);
	out_uint(o, "premapped", NULL, s->premapped, 1);
	out_uint(o, "untouched", NULL, s->untouched, 1);
	out_uint(o, "untouched_bytes", NULL, s->untouched * r->psz, 1);
	if (s->premapped)
		out_float(o, "useful_pct", "%.1f", useful);
	if (r->whole)
		out_uint(o, "beyond_window", NULL, s->beyond, 1);
	out_obj_end(o);
}

#define RP_HEAD "%5s %12s %9s %12s %12s %12s %14s %8s", "order", "faults", "vs 0", \
	"fault-around", "pre-mapped", "untouched", "untouched KiB", "useful%"

static void rp_head(struct out *o, const struct rp *r)
{
	out_text(o, RP_HEAD);
	if (r->whole)
		out_text(o, " %13s", "beyond window");
	out_text(o, "\n");
}

static void rp_show(struct rp *r, struct out *o, const char *key, const int *ord, int n, int files)
{
	struct rp_sum all[RP_MAX_ORDERS];
	double base = (double)(r->minflt + r->majflt);
	int i, j;

	for (i = 0; i < n; i++)
		rp_order(r, ord[i], i, &all[i]);
	out_obj(o, key);
	out_str(o, "record", NULL, r->name, NULL);
	out_str(o, "command", NULL, r->command ? r->command : "", NULL);
	out_str(o, "release", NULL, r->release, NULL);
	out_str(o, "machine", NULL, r->machine, NULL);
	out_int(o, "page_size", NULL, r->psz, 1);
	out_int(o, "ptes_per_table", NULL, r->ptes, 1);
	out_int(o, "kernel_order", NULL, r->korder, 1);
	out_uint(o, "recorded_faults", NULL, r->minflt + r->majflt, 1);
	out_uint(o, "major_faults", NULL, r->majflt, 1);
	out_uint(o, "file_read_faults", NULL, r->nflt, 1);
	out_uint(o, "lost", NULL, r->lost + r->odd, 1);
	out_uint(o, "refaults", NULL, r->refaults, 1);
	out_bool(o, "whole_folio", r->whole);
	out_text(o, "replay of %s: %s\n", r->name, r->command ? r->command : "");
	out_text(o, "kernel %s %s, %ld-byte pages, %ld a page table, recorded at order 0\n",
		 r->release, r->machine, r->psz, r->ptes);
	out_text(o, "recorded: %llu faults (%llu major), %zu of them file read faults\n",
		 r->minflt + r->majflt, r->majflt, r->nflt);
	if (r->whole)
		out_text(o, "large folios mapped whole, as kernels from 6.18 do (%s); pre-mapped counts "
			 "them, beyond window is their part outside the window\n",
			 r->rec_whole ? "the record's kernel" : "--whole-folio");
	out_text(o, "\n");
	rp_head(o, r);
	out_arr(o, "orders");
	for (i = 0; i < n; i++)
		rp_row(o, r, ord[i], &all[i], base);
	out_arr_end(o);
	out_arr(o, "files");
	for (j = 0; files && j < r->nf; j++) {
		const struct rp_file *f = &r->f[j];

		out_text(o, "\n%s (%lu pages, %lu cached at its first fault)\n", f->path, f->size, f->first);
		out_obj(o, NULL);
		out_str(o, "path", NULL, f->path, NULL);
		out_uint(o, "pages", NULL, f->size, f->have_size);
		out_uint(o, "cached_at_first_fault", NULL, f->first, f->have_size);
		rp_head(o, r);
		out_arr(o, "orders");
		for (i = 0; i < n; i++)
			rp_row(o, r, ord[i], &f->s[i], 0);
		out_arr_end(o);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_text(o, "\n");
	rp_verdict(r, o);
	out_obj_end(o);
}

static void rp_free(struct rp *r)
{
	int i;

	for (i = 0; i < r->nf; i++) {
		free(r->f[i].path);
		free(r->f[i].cached);
		free(r->f[i].fo);
	}
	for (i = 0; i < r->nv; i++)
		free(r->v[i].st);
	free(r->f);
	free(r->v);
	free(r->flt);
	free(r->command);
}

static int rp_alloc(struct rp *r)
{
	int i;

	for (i = 0; i < r->nv; i++)
		if (!(r->v[i].st = calloc(r->v[i].pages, 1)))
			return lib_fail(MMT_EIO);
	return 0;
}

/* Read and check the record @name, ready to replay; 0 or an exit code. */
static int rp_load(struct rp *r, const char *name, int *maxo)
{
	struct stat st;
	FILE *in;
	int rc;

	r->name = name;
	in = strcmp(name, "-") ? fopen(name, "re") : stdin;
	if (!in)
		return fprintf(stderr, PROG ": replay: cannot read %s: %s\n", name, strerror(errno)),
		       MMT_EXIT_FAIL;
	/* fopen() opens a directory, and its first read fails with EISDIR */
	if (in != stdin && !fstat(fileno(in), &st) && S_ISDIR(st.st_mode)) {
		fclose(in);
		return fprintf(stderr, PROG ": replay: %s is a directory, not a record "
			       "(mmtunectl record --output FILE writes one)\n", name),
		       MMT_EXIT_FAIL;
	}
	rc = rp_read(r, in);
	if (in != stdin)
		fclose(in);
	/* the orders a table of the record's pages can take: up to one table */
	for (*maxo = 0; !rc && (1L << (*maxo + 1)) <= r->ptes && *maxo + 1 < RP_MAX_ORDERS; ++*maxo)
		;
	if (!rc)
		rc = rp_alloc(r);
	if (!rc)
		r->refaults = rp_refaults(r);
	if (!rc && r->rec_whole) {
		struct rp_sum s;

		r->whole = 1;	/* as the faults recorded were */
		rp_order(r, 0, RP_MAX_ORDERS, &s);
		r->hidden = s.premapped;
	}
	return rc;
}

int replay_check(const char *name)
{
	struct rp r = { 0 };
	int maxo, rc = rp_load(&r, name, &maxo);

	rp_free(&r);
	return rc;
}

int replay_section(struct out *o, const char *name)
{
	int ord[RP_MAX_ORDERS], maxo, i, rc;
	struct rp r = { 0 };

	rc = rp_load(&r, name, &maxo);
	for (i = 0; !rc && i <= maxo; i++)
		ord[i] = i;
	if (!rc)
		rp_show(&r, o, "replay", ord, maxo + 1, 0);
	rp_free(&r);
	return rc;
}

int replay_figs(const char *name, struct replay_figs *g)
{
	struct rp *r = calloc(1, sizeof(*r));
	int rc, k;

	memset(g, 0, sizeof(*g));
	if (!r)
		return lib_fail(MMT_EIO);
	g->r = r;
	rc = rp_load(r, name, &g->maxo);
	for (k = 0; !rc && k <= g->maxo; k++)
		rp_order(r, k, k, &g->all[k]);
	if (rc)
		return rc;
	g->command = r->command ? r->command : "";
	g->release = r->release;
	g->machine = r->machine;
	g->psz = r->psz;
	g->korder = r->korder;
	g->nf = r->nf;
	g->whole = r->whole;
	g->recorded = r->minflt + r->majflt;
	g->file_faults = r->nflt;
	return 0;
}

void replay_figs_free(struct replay_figs *g)
{
	if (g->r)
		rp_free(g->r);
	free(g->r);
	g->r = NULL;
}

const char *replay_file(const struct replay_figs *g, int i, int *bound)
{
	const struct rp_file *f = &g->r->f[i];

	/* the record's: every file's; pages its own faults mapped whole: this file's */
	*bound = rp_file_bounds(g->r, f, i, NULL) || g->r->lost || g->r->odd || g->r->majflt ||
		 (g->r->rec_whole && f->s[RP_MAX_ORDERS].premapped);
	return f->have_size ? f->path : NULL;
}

const struct rp_sum *replay_file_sum(const struct replay_figs *g, int i, int k)
{
	return &g->r->f[i].s[k];
}

int replay_verdict(const struct replay_figs *g, struct out *o)
{
	return rp_verdict(g->r, o);
}

static int do_replay(int argc, char **argv)
{
	int c, json = 0, files = 0, ord[RP_MAX_ORDERS], n = 0, rc, maxo = 0;
	const char *orders = NULL;
	struct rp r = { 0 };
	char all[16];
	struct out o;

	while ((c = getopt_long(argc, argv, replay_optstring, replay_opts, NULL)) != -1) {
		switch (c) {
		case 'o': orders = optarg; break;
		case 'j': json = 1; break;
		case 'f': files = 1; break;
		case 'w': r.whole = 1; break;
		default: return bad_opt("replay", c, argv);
		}
	}
	if (optind != argc - 1)
		return usage_err("replay", "want one record FILE (mmtunectl replay [--orders LIST] [--whole-folio] FILE)");
	rc = rp_load(&r, argv[optind], &maxo);
	snprintf(all, sizeof(all), "0-%d", maxo);
	if (!rc)
		n = parse_orders("replay", orders ? orders : all, maxo, ord, RP_MAX_ORDERS);
	if (!rc && n < 0)
		rc = -n;
	if (!rc) {
		out_init(&o, json, 0);
		rp_show(&r, &o, NULL, ord, n, files);
	}
	rp_free(&r);
	return rc;
}
