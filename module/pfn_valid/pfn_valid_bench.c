// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the in-kernel pfn_valid() bench and its last result: every
 * strategy timed over the same pfns, the first pass also the cross-check
 * of the strategies with stock and of the override's function with the
 * kernel's pfn_to_online_page() (pfn_valid_check.c's comparisons).  The
 * files on top, which run it and show it, are pfn_valid_file.c's; the
 * strategies and the override pfn_valid.c's (pfn_valid.h).
 *
 * A bench of "COUNT PATTERN", PATTERN seq|rand|holes, COUNT 1..2^24:
 * every strategy runs over the same COUNT pfns (in chunks, in a rotating
 * order, preemption off within a chunk), PFV_REPEATS times; the first
 * pass also compares each strategy with stock and the override's
 * function with the kernel's pfn_to_online_page().  The pfns span
 * 0..max_pfn plus two sections beyond, plus pfns beyond the physical
 * address space and with the upper bits set.  A count that would take
 * more than about PFV_BUDGET_NS is refused (EINVAL, one log line naming
 * the largest count that fits).  Its report (debugfs pfn_valid/bench):
 *   pattern: P
 *   count: N
 *   repeats: R
 *   pfn_range: 0x0-0xEND
 *   max_pfn: 0xN
 *   overhead_ns: X.XX        (the bare loop, included below)
 *   elapsed_ms: N
 *   impl median_ns min_ns max_ns spread_pct valid disagree online_disagree first_disagree
 *   stock 2.31 2.20 2.59 16 81234 0 0 -
 *   ...
 * ns are per call over the R repeats (median, min, max), spread_pct =
 * (max - min) * 100 / median, valid = pfns found valid, disagree = pfns
 * where the strategy differs from stock, online_disagree = pfns where
 * the override's function with that strategy differs from the kernel's
 * pfn_to_online_page(), first_disagree = the first such pfn or "-".
 * Before any run: "pattern: none".
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "../mmtune.h"
#include "../mmtune_abi.h"
#include "pfn_valid.h"
#include "pfn_valid_bench.h"
#include "pfn_valid_check.h"

/* sysfs pfn_valid/'s values (mmtune_pfn_valid_bench_info) */
enum {
	BENCH_PATTERN, BENCH_COUNT, BENCH_OVERHEAD, BENCH_ELAPSED,
	BENCH_IMPLS, BENCH_MEDIANS,
};

#ifdef CONFIG_SPARSEMEM

#define PFV_REPEATS	5
#define PFV_CHUNK	512
#define PFV_COUNT_MAX	BIT(24)
#define PFV_BUDGET_NS	(3ULL * NSEC_PER_SEC)	/* estimated run time */
#define PFV_ROWS	(MMTUNE_PV_NR + 1)	/* and the bare loop */

enum { PFV_SEQ, PFV_RAND, PFV_HOLES, PFV_NR_PATTERNS };
static const char *const pfv_patterns[PFV_NR_PATTERNS] = {
	[PFV_SEQ]	= "seq",
	[PFV_RAND]	= "rand",
	[PFV_HOLES]	= "holes",
};

struct pfv_row {
	u64 ns[PFV_REPEATS];
	u64 valid;
	struct pfv_tally t;
};

/* Under mmtune_pfv_lock (pfn_valid.c's), as the cross-check's totals. */
static struct {
	bool done;
	unsigned int pattern;
	unsigned int count;
	unsigned long end_pfn;
	unsigned long max_pfn;
	u64 elapsed_ns;
	struct pfv_row row[PFV_ROWS];
} pfv_last;

struct pfv_gen {
	u64 rng;
	unsigned int pattern;
	unsigned long next;	/* seq */
	unsigned long stride;	/* seq */
	unsigned long end;	/* the range: 0..end */
	unsigned long limit;	/* the physical address space in pfns */
};

static void pfv_gen_init(struct pfv_gen *g, unsigned int pattern,
			 unsigned int count, unsigned long end)
{
	g->rng = 0x9e3779b97f4a7c15ULL;	/* the same pfns in every repeat */
	g->pattern = pattern;
	g->next = 0;
	g->end = end;
	g->stride = max(1UL, end / count);
	g->limit = NR_MEM_SECTIONS << PFN_SECTION_SHIFT;
}

static unsigned long pfv_rand(struct pfv_gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (unsigned long)((g->rng * 0x2545f4914f6cdd1dULL) >> 8);
}

/* Beyond the range (up to the address space's end), or upper bits set. */
static unsigned long pfv_gen_far(struct pfv_gen *g, unsigned long r)
{
	if ((r & 1) && g->limit > g->end)
		return g->end + (r >> 1) % (g->limit - g->end);
	return r | BIT(BITS_PER_LONG - 1);
}

static unsigned long pfv_gen_hole(struct pfv_gen *g)
{
	unsigned long r = pfv_rand(g), pfn;
	unsigned int sel = r & 7, tries;

	r >>= 3;
	if (sel < 4) {		/* no memory map: a section or subsection hole */
		for (tries = 0; tries < 16; tries++) {
			pfn = pfv_rand(g) % g->end;
			if (!mmtune_pfv_valid(MMTUNE_PV_STOCK, pfn))
				return pfn;
		}
		return g->end - 1 - r % PAGES_PER_SECTION;
	}
	if (sel < 6) {		/* either side of a section boundary */
		pfn = (r >> 2) % (g->end / PAGES_PER_SECTION + 1) * PAGES_PER_SECTION;
		return pfn + ((r & 1) ? 0 : PAGES_PER_SECTION - 1) - ((r & 2) ? 1 : 0);
	}
	if (sel == 6)		/* either side of a subsection boundary */
		return SUBSECTION_ALIGN_DOWN((r >> 1) % g->end) - (r & 1);
	return pfv_gen_far(g, r);
}

static unsigned long pfv_gen_pfn(struct pfv_gen *g)
{
	unsigned long pfn, r;

	switch (g->pattern) {
	case PFV_SEQ:
		pfn = g->next;
		g->next += g->stride;
		if (g->next >= g->end)
			g->next -= g->end;
		return pfn;
	case PFV_RAND:
		r = pfv_rand(g);
		if ((r & 15) == 0)
			return pfv_gen_far(g, r >> 4);
		return (r >> 4) % g->end;
	default:
		return pfv_gen_hole(g);
	}
}

/* ---- the bench */
/* The rows to time: the present strategies, then the bare loop. */
static unsigned int pfv_rows(unsigned int *rows)
{
	unsigned int i, n = 0;

	for (i = 0; i < MMTUNE_PV_NR; i++)
		if (mmtune_pfv_have() & BIT(i))
			rows[n++] = i;
	rows[n++] = PFV_BARE;
	return n;
}

/* One chunk of one repeat: every row over the same pfns. */
static void pfv_time_chunk(const unsigned long *buf, unsigned int n,
			   unsigned int rep, unsigned int chunk,
			   const unsigned int *rows, unsigned int nrows,
			   struct pfv_row *res)
{
	unsigned int k;

	preempt_disable();
	for (k = 0; k < nrows; k++) {
		/* Rotate who goes first: the first one warms the caches. */
		unsigned int r = rows[(k + chunk + rep) % nrows];
		struct pfv_row *row = &res[r];
		unsigned long valid;
		u64 t0 = ktime_get_ns();

		valid = mmtune_pfv_loop(r, buf, n);
		row->ns[rep] += ktime_get_ns() - t0;
		if (rep == 0)
			row->valid += valid;
	}
	preempt_enable();
}

/*
 * Estimated ns of a whole run, from the pattern's first chunk: once cold
 * (caches, and code translation under emulation), then the faster of two
 * timed passes.
 */
static u64 pfv_estimate(unsigned long *buf, unsigned int pattern,
			unsigned int count, unsigned long end)
{
	unsigned int rows[PFV_ROWS], nrows = pfv_rows(rows);
	unsigned int n = min_t(unsigned int, count, PFV_CHUNK), i, pass;
	struct pfv_tally scratch[MMTUNE_PV_NR];
	u64 t0, t1, t2, t3, est, best = U64_MAX;
	struct pfv_row *res;
	struct pfv_gen g;

	res = kcalloc(PFV_ROWS, sizeof(*res), GFP_KERNEL);
	if (!res)
		return U64_MAX;
	mmtune_pfv_tally_init(scratch);
	for (pass = 0; pass < 3; pass++) {
		pfv_gen_init(&g, pattern, count, end);
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++)
			buf[i] = pfv_gen_pfn(&g);
		t1 = ktime_get_ns();
		for (i = 0; i < n; i++)
			mmtune_pfv_check_one(buf[i], scratch);
		t2 = ktime_get_ns();
		pfv_time_chunk(buf, n, 0, 0, rows, nrows, res);
		t3 = ktime_get_ns();
		/* The first repeat also cross-checks, the others do not. */
		est = (t3 - t0) + (PFV_REPEATS - 1) * ((t1 - t0) + (t3 - t2));
		if (pass)
			best = min(best, est);
		cond_resched();
	}
	kfree(res);
	return div_u64(best * count, n);
}

/* Caller holds mmtune_pfv_lock. */
int mmtune_pfv_bench(unsigned int pattern, unsigned int count)
{
	unsigned int rows[PFV_ROWS], nrows = pfv_rows(rows);
	struct pfv_tally tally[MMTUNE_PV_NR];
	unsigned long end = mmtune_pfv_end_pfn(), *buf;
	unsigned int rep, chunk, done, i, n;
	struct pfv_gen g;
	u64 start, est;
	int ret;

	/* it calls the strategies, the override's among them, on any pfn */
	ret = mmtune_kernel_write_allowed("pfn_valid bench");
	if (ret)
		return ret;
	buf = kmalloc_array(PFV_CHUNK, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	est = pfv_estimate(buf, pattern, count, end);
	if (est > PFV_BUDGET_NS) {
		pr_notice_ratelimited("pfn_valid: bench %u %s would take ~%llu ms (more than %llu); at most ~%llu pfns here\n",
				      count, pfv_patterns[pattern],
				      div_u64(est, NSEC_PER_MSEC),
				      div_u64(PFV_BUDGET_NS, NSEC_PER_MSEC),
				      div64_u64((u64)count * PFV_BUDGET_NS, est));
		ret = -EINVAL;
		goto out;
	}

	memset(&pfv_last, 0, sizeof(pfv_last));
	mmtune_pfv_tally_init(tally);
	start = ktime_get_ns();
	for (rep = 0; rep < PFV_REPEATS && !ret; rep++) {
		pfv_gen_init(&g, pattern, count, end);
		for (done = 0, chunk = 0; done < count; done += n, chunk++) {
			n = min_t(unsigned int, count - done, PFV_CHUNK);
			for (i = 0; i < n; i++)
				buf[i] = pfv_gen_pfn(&g);
			if (rep == 0)
				for (i = 0; i < n; i++)
					mmtune_pfv_check_one(buf[i], tally);
			pfv_time_chunk(buf, n, rep, chunk, rows, nrows,
				       pfv_last.row);
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			if (ktime_get_ns() - start > PFV_DEADLINE_NS) {
				pr_warn_ratelimited("pfn_valid: bench stopped after %llu ms\n",
						    div_u64(PFV_DEADLINE_NS, NSEC_PER_MSEC));
				ret = -ETIME;
				break;
			}
			cond_resched();
		}
	}
	/* Whatever was compared counts, also from a run cut short. */
	mmtune_pfv_tally_add(mmtune_pfv_total, tally);
	if (ret) {
		pfv_last.done = false;
		goto out;
	}
	for (i = 0; i < MMTUNE_PV_NR; i++)
		pfv_last.row[i].t = tally[i];
	pfv_last.elapsed_ns = ktime_get_ns() - start;
	pfv_last.pattern = pattern;
	pfv_last.count = count;
	pfv_last.end_pfn = end;
	pfv_last.max_pfn = mmtune_pfv_kernel_max_pfn();
	pfv_last.done = true;
out:
	kfree(buf);
	return ret;
}

/* ---- the report: debugfs pfn_valid/bench, sysfs pfn_valid/ */

/* ns per call, two decimals, of a repeat's total over @count calls. */
static void pfv_print_ns(struct seq_file *m, u64 total, unsigned int count)
{
	u64 c = div_u64(total * 100, count);

	seq_printf(m, " %llu.%02llu", div_u64(c, 100), c % 100);
}

/* The same in sysfs: a list's next number at @at, space-separated. */
static ssize_t pfv_emit_ns(char *buf, ssize_t at, u64 total,
			   unsigned int count)
{
	u64 c = div_u64(total * 100, count);

	return sysfs_emit_at(buf, at, "%s%llu.%02llu", at ? " " : "",
			     div_u64(c, 100), c % 100);
}

static int pfv_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void pfv_sorted(const struct pfv_row *row, u64 *ns)
{
	memcpy(ns, row->ns, sizeof(row->ns));
	sort(ns, PFV_REPEATS, sizeof(ns[0]), pfv_cmp_u64, NULL);
}

void mmtune_pfv_bench_show(struct seq_file *m)
{
	const unsigned int mid = PFV_REPEATS / 2, hi = PFV_REPEATS - 1;
	unsigned int rows[PFV_ROWS], nrows, k;
	u64 ns[PFV_REPEATS];

	mutex_lock(&mmtune_pfv_lock);
	if (!pfv_last.done) {
		seq_puts(m, "pattern: none\n");
		goto out;
	}
	seq_printf(m, "pattern: %s\n", pfv_patterns[pfv_last.pattern]);
	seq_printf(m, "count: %u\n", pfv_last.count);
	seq_printf(m, "repeats: %u\n", PFV_REPEATS);
	seq_printf(m, "pfn_range: 0x0-0x%lx\n", pfv_last.end_pfn);
	seq_printf(m, "max_pfn: 0x%lx\n", pfv_last.max_pfn);
	pfv_sorted(&pfv_last.row[PFV_BARE], ns);
	seq_puts(m, "overhead_ns:");
	pfv_print_ns(m, ns[mid], pfv_last.count);
	seq_printf(m, "\nelapsed_ms: %llu\n",
		   div_u64(pfv_last.elapsed_ns, NSEC_PER_MSEC));
	seq_puts(m, "impl median_ns min_ns max_ns spread_pct valid disagree online_disagree first_disagree\n");
	nrows = pfv_rows(rows);
	for (k = 0; k < nrows; k++) {
		const struct pfv_row *row = &pfv_last.row[rows[k]];

		if (rows[k] == PFV_BARE)
			continue;
		pfv_sorted(row, ns);
		seq_puts(m, mmtune_pfv_mode_name(rows[k]));
		pfv_print_ns(m, ns[mid], pfv_last.count);
		pfv_print_ns(m, ns[0], pfv_last.count);
		pfv_print_ns(m, ns[hi], pfv_last.count);
		seq_printf(m, " %llu %llu %llu %llu",
			   ns[mid] ? div64_u64((ns[hi] - ns[0]) * 100, ns[mid]) : 0,
			   row->valid, row->t.bad, row->t.online_bad);
		if (row->t.first_bad == ULONG_MAX)
			seq_puts(m, " -\n");
		else
			seq_printf(m, " 0x%lx\n", row->t.first_bad);
	}
out:
	mutex_unlock(&mmtune_pfv_lock);
}

/*
 * One value of each strategy benched, in the text's row order: its name
 * or its median; nothing before a bench.
 */
static ssize_t bench_rows(char *buf, bool medians)
{
	unsigned int rows[PFV_ROWS], nrows = pfv_rows(rows), k;
	u64 ns[PFV_REPEATS];
	ssize_t len = 0;

	for (k = 0; pfv_last.done && k < nrows; k++) {
		if (rows[k] == PFV_BARE)
			continue;
		if (!medians) {
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     mmtune_pfv_mode_name(rows[k]));
			continue;
		}
		pfv_sorted(&pfv_last.row[rows[k]], ns);
		len += pfv_emit_ns(buf, len, ns[PFV_REPEATS / 2], pfv_last.count);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

/* sysfs pfn_valid/: the last bench's values, as its text has them */
static ssize_t bench_value(char *buf, unsigned int what)
{
	u64 ns[PFV_REPEATS];
	ssize_t len = -ENODATA;

	mutex_lock(&mmtune_pfv_lock);
	if (what == BENCH_PATTERN) {
		len = sysfs_emit(buf, "%s\n", pfv_last.done ?
				 pfv_patterns[pfv_last.pattern] : "none");
	} else if (what == BENCH_IMPLS || what == BENCH_MEDIANS) {
		len = bench_rows(buf, what == BENCH_MEDIANS);
	} else if (pfv_last.done && what == BENCH_COUNT) {
		len = sysfs_emit(buf, "%u\n", pfv_last.count);
	} else if (pfv_last.done && what == BENCH_OVERHEAD) {
		pfv_sorted(&pfv_last.row[PFV_BARE], ns);
		len = pfv_emit_ns(buf, 0, ns[PFV_REPEATS / 2], pfv_last.count);
		len += sysfs_emit_at(buf, len, "\n");
	} else if (pfv_last.done) {
		len = sysfs_emit(buf, "%llu\n",
				 div_u64(pfv_last.elapsed_ns, NSEC_PER_MSEC));
	}
	mutex_unlock(&mmtune_pfv_lock);
	return len;
}

/* "COUNT PATTERN" */
int mmtune_pfv_bench_parse(char *buf, unsigned int *count, int *pattern)
{
	char *p = buf, *num = strsep(&p, " ");

	if (!p || strchr(p, ' ') || kstrtouint(num, 10, count) ||
	    !*count || *count > PFV_COUNT_MAX)
		return -EINVAL;
	*pattern = match_string(pfv_patterns, PFV_NR_PATTERNS, p);
	return *pattern < 0 ? *pattern : 0;
}
#else /* !CONFIG_SPARSEMEM */

/* no bench: its pattern is "none", its table empty */
static ssize_t bench_value(char *buf, unsigned int what)
{
	if (what == BENCH_IMPLS || what == BENCH_MEDIANS)
		return sysfs_emit(buf, "\n");
	return what == BENCH_PATTERN ? sysfs_emit(buf, "none\n") : -ENODATA;
}
#endif /* CONFIG_SPARSEMEM */

const struct mmtune_info mmtune_pfn_valid_bench_info[] = {
	{ "bench_pattern", bench_value, BENCH_PATTERN },
	{ "bench_count", bench_value, BENCH_COUNT },
	{ "bench_overhead_ns", bench_value, BENCH_OVERHEAD },
	{ "bench_elapsed_ms", bench_value, BENCH_ELAPSED },
	{ "bench_impls", bench_value, BENCH_IMPLS },
	{ "bench_median_ns", bench_value, BENCH_MEDIANS },
	{ }
};
