// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: pfn_valid() strategies, an in-kernel benchmark and cross-check,
 * and a runtime override of pfn_to_online_page().
 *
 * With SPARSEMEM, pfn_valid() is a static inline of include/linux/mmzone.h
 * (no arch of Debian's kernels selects HAVE_ARCH_PFN_VALID): the "t
 * pfn_valid" symbols in kallsyms are per-file out-of-line copies of it,
 * and inline functions are notrace.  Nothing the whole kernel calls can be
 * replaced there.  The out-of-line, exported, traceable consumer is
 * pfn_to_online_page(): /proc/kpageflags, kpagecount, compaction, page
 * isolation, memory offlining and soft-offlining go through it.  The
 * override redirects it (an ftrace hook that sets the instruction pointer,
 * as livepatch does) to pfv_pfn_to_online_page() below, a copy of the
 * kernel's function that asks the selected strategy whether the pfn has a
 * memory map, where the kernel itself does so only with HAVE_ARCH_PFN_VALID.
 *
 * Strategies (which exist on which arch: mmtune_pfn_valid_impls()):
 *   stock     the header's pfn_valid() compiled into this module
 *   section   an explicit mem_section[] walk: root, section, one read of
 *             the flags, then the subsection map
 *   vmemmap   probe the struct page in the vmemmap with a fault-safe
 *             read (the ia64 idea of the 2006 patch); it knows nothing of
 *             subsections, so ZONE_DEVICE can make it disagree
 *   memblock  (arches that keep memblock) memory in the pfn's section
 *             according to memblock
 *
 * debugfs mmtune/pfn_valid/:
 *   bench  write "COUNT PATTERN", PATTERN seq|rand|holes, COUNT 1..2^24:
 *          every strategy runs over the same COUNT pfns (in chunks, in a
 *          rotating order, preemption off within a chunk), PFV_REPEATS
 *          times; the first pass also compares each strategy with stock
 *          and the override's function with the kernel's
 *          pfn_to_online_page().  The pfns span 0..max_pfn plus two
 *          sections beyond, plus pfns beyond the physical address space
 *          and with the upper bits set.  A count that would take more than
 *          about PFV_BUDGET_NS is refused (EINVAL, one log line naming the
 *          largest count that fits).  Read:
 *            pattern: P
 *            count: N
 *            repeats: R
 *            pfn_range: 0x0-0xEND
 *            max_pfn: 0xN
 *            overhead_ns: X.XX        (the bare loop, included below)
 *            elapsed_ms: N
 *            impl median_ns min_ns max_ns spread_pct valid disagree online_disagree first_disagree
 *            stock 2.31 2.20 2.59 16 81234 0 0 -
 *            ...
 *          ns are per call over the R repeats (median, min, max),
 *          spread_pct = (max - min) * 100 / median, valid = pfns found
 *          valid, disagree = pfns where the strategy differs from stock,
 *          online_disagree = pfns where the override's function with that
 *          strategy differs from the kernel's pfn_to_online_page(),
 *          first_disagree = the first such pfn or "-".  Before any run:
 *          "pattern: none".
 *   mode   read: "off" or the strategy the override uses.  Write a
 *          strategy name to install the override with it, "off" to remove
 *          it.  A strategy is accepted only if every comparison so far (a
 *          full cross-check sweep, run at the first write, and every bench
 *          run) found no disagreement for it; else EINVAL and one log line.
 *
 * info: pfn_valid_impls, pfn_valid_crosscheck (per strategy
 * "disagreements/pfns compared") and pfn_valid_override.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#ifdef CONFIG_ARCH_KEEP_MEMBLOCK
#include <linux/memblock.h>
#endif

#include "compat.h"
#include "mmtune.h"
#include "mmtune_abi.h"

#ifdef CONFIG_SPARSEMEM

#define PFV_REPEATS	5
#define PFV_CHUNK	512
#define PFV_COUNT_MAX	BIT(24)
#define PFV_BUDGET_NS	(3ULL * NSEC_PER_SEC)	/* estimated run time */
#define PFV_DEADLINE_NS	(8ULL * NSEC_PER_SEC)	/* hard stop */
#define PFV_VERIFY_FULL	BIT(21)			/* pfns checked one by one */
#define PFV_NONE	MMTUNE_PV_NR		/* the bare loop */
#define PFV_ROWS	(MMTUNE_PV_NR + 1)

static const char *const pfv_names[MMTUNE_PV_NR] = {
	[MMTUNE_PV_STOCK]	= "stock",
	[MMTUNE_PV_SECTION]	= "section",
	[MMTUNE_PV_VMEMMAP]	= "vmemmap",
	[MMTUNE_PV_MEMBLOCK]	= "memblock",
};

enum { PFV_SEQ, PFV_RAND, PFV_HOLES, PFV_NR_PATTERNS };
static const char *const pfv_patterns[PFV_NR_PATTERNS] = {
	[PFV_SEQ]	= "seq",
	[PFV_RAND]	= "rand",
	[PFV_HOLES]	= "holes",
};

#define PFV_MODE_OFF	(-1)

static unsigned int pfv_have;		/* BIT(MMTUNE_PV_*) usable here */
static int pfv_mode = PFV_MODE_OFF;	/* read locklessly by the override */
static unsigned long *pfv_max_pfn;	/* the kernel's max_pfn, verified */
static char pfv_reason[160] = "not initialised";
static bool pfv_overridable;
static DEFINE_MUTEX(pfv_lock);		/* everything below, and the hook */

/* Comparisons so far, per strategy: what the mode gate decides on. */
struct pfv_tally {
	u64 checked;
	u64 bad;		/* differs from stock */
	u64 online_bad;		/* override's function differs from the kernel's */
	unsigned long first_bad;
};

static struct pfv_tally pfv_total[MMTUNE_PV_NR];
static bool pfv_verified;

struct pfv_row {
	u64 ns[PFV_REPEATS];
	u64 valid;
	struct pfv_tally t;
};

static struct {
	bool done;
	unsigned int pattern;
	unsigned int count;
	unsigned long end_pfn;
	unsigned long max_pfn;
	u64 elapsed_ns;
	struct pfv_row row[PFV_ROWS];
} pfv_last;

/* ---- the strategies */

/* Upper bits set, or beyond the sections the kernel can have. */
static __always_inline bool pfv_out_of_range(unsigned long pfn)
{
	return PHYS_PFN(PFN_PHYS(pfn)) != pfn ||
	       pfn_to_section_nr(pfn) >= NR_MEM_SECTIONS;
}

static __always_inline int pfv_stock(unsigned long pfn)
{
	return pfn_valid(pfn);
}

static __always_inline int pfv_section(unsigned long pfn)
{
	unsigned long nr = pfn_to_section_nr(pfn);
	struct mem_section *root;
	unsigned long map;
#ifdef CONFIG_SPARSEMEM_EXTREME
	struct mem_section **roots;
#endif
#ifdef CONFIG_SPARSEMEM_VMEMMAP
	struct mem_section_usage *usage;
	int ret;
#endif

	if (pfv_out_of_range(pfn))
		return 0;
#ifdef CONFIG_SPARSEMEM_EXTREME
	roots = READ_ONCE(mem_section);
	if (unlikely(!roots))
		return 0;
	root = READ_ONCE(roots[SECTION_NR_TO_ROOT(nr)]);
	if (!root)
		return 0;
#else
	root = mem_section[SECTION_NR_TO_ROOT(nr)];
#endif
	map = READ_ONCE(root[nr & SECTION_ROOT_MASK].section_mem_map);
	if (!(map & SECTION_HAS_MEM_MAP))
		return 0;
	if (map & SECTION_IS_EARLY)	/* memory map for the whole section */
		return 1;
#ifdef CONFIG_SPARSEMEM_VMEMMAP
	rcu_read_lock_sched();		/* usage is freed after a grace period */
	usage = READ_ONCE(root[nr & SECTION_ROOT_MASK].usage);
	ret = usage && test_bit(subsection_map_index(pfn), usage->subsection_map);
	rcu_read_unlock_sched();
	return ret;
#else
	return 1;
#endif
}

#ifdef CONFIG_SPARSEMEM_VMEMMAP
static __always_inline int pfv_vmemmap(unsigned long pfn)
{
	const struct page *page;
	u8 probe;

	if (pfv_out_of_range(pfn))	/* keeps vmemmap + pfn in the vmemmap */
		return 0;
	page = pfn_to_page(pfn);
	if (get_kernel_nofault(probe, (const u8 *)page))
		return 0;
	/* A struct page that straddles two pages of the vmemmap. */
	if (PAGE_SIZE % sizeof(struct page) &&
	    offset_in_page(page) + sizeof(struct page) > PAGE_SIZE &&
	    get_kernel_nofault(probe, (const u8 *)(page + 1) - 1))
		return 0;
	return 1;
}
#else
static __always_inline int pfv_vmemmap(unsigned long pfn)
{
	return 0;
}
#endif

#ifdef CONFIG_ARCH_KEEP_MEMBLOCK
typedef bool (*pfv_overlaps_t)(struct memblock_type *type, phys_addr_t base,
			      phys_addr_t size);
static pfv_overlaps_t pfv_mb_overlaps;
static struct memblock *pfv_memblock;

/* sparse_init() gives a memory map to every section memblock has memory in. */
static __always_inline int pfv_memblock_valid(unsigned long pfn)
{
	if (pfv_out_of_range(pfn))
		return 0;
	return pfv_mb_overlaps(&pfv_memblock->memory,
			      PFN_PHYS(SECTION_ALIGN_DOWN(pfn)),
			      PFN_PHYS(PAGES_PER_SECTION));
}

static void pfv_memblock_init(void)
{
	unsigned long mb = mmtune_lookup_name("memblock");

	pfv_mb_overlaps = (pfv_overlaps_t)mmtune_lookup_callable("memblock_overlaps_region");
	if (!pfv_mb_overlaps || !mmtune_symbol_is(mb, "memblock", true) ||
	    !mmtune_in_kernel_data(mb)) {
		pr_info("pfn_valid: memblock strategy off: memblock/memblock_overlaps_region not found\n");
		pfv_have &= ~BIT(MMTUNE_PV_MEMBLOCK);
		return;
	}
	pfv_memblock = (struct memblock *)mb;
}
#else
static __always_inline int pfv_memblock_valid(unsigned long pfn)
{
	return 0;
}

static void pfv_memblock_init(void)
{
}
#endif

static __always_inline int pfv_call(unsigned int impl, unsigned long pfn)
{
	switch (impl) {
	case MMTUNE_PV_SECTION:
		return pfv_section(pfn);
	case MMTUNE_PV_VMEMMAP:
		return pfv_vmemmap(pfn);
	case MMTUNE_PV_MEMBLOCK:
		return pfv_memblock_valid(pfn);
	default:
		return pfv_stock(pfn);
	}
}

/* ---- the override */

/*
 * mm/memory_hotplug.c:pfn_to_online_page() of 6.1 (unchanged through
 * 6.12), with @impl where the kernel calls pfn_valid() under
 * HAVE_ARCH_PFN_VALID.  An online section has a memory map and a set
 * subsection bit implies pfn_valid(), so with a strategy that agrees with
 * stock the result is the kernel's, including memory hot(un)plug (the
 * section's online bit) and ZONE_DEVICE sharing a section with RAM (the
 * pgmap look-up).  The cross-check compares it with the kernel's anyway.
 */
static __always_inline struct page *pfv_online_page(unsigned long pfn,
						    unsigned int impl)
{
	unsigned long nr = pfn_to_section_nr(pfn);
	struct dev_pagemap *pgmap;
	struct mem_section *ms;

	if (nr >= NR_MEM_SECTIONS)
		return NULL;

	ms = __nr_to_section(nr);
	if (!online_section(ms))
		return NULL;

	if (!pfv_call(impl, pfn))
		return NULL;

	if (!pfn_section_valid(ms, pfn))
		return NULL;

	if (!online_device_section(ms))
		return pfn_to_page(pfn);

	/* Only the pgmap knows which subsections of the section are RAM. */
	pgmap = mmtune_get_dev_pagemap(pfn);
	put_dev_pagemap(pgmap);
	if (pgmap)
		return NULL;

	return pfn_to_page(pfn);
}

/* The override's target: same prototype as pfn_to_online_page(). */
static noinline struct page *pfv_pfn_to_online_page(unsigned long pfn)
{
	int mode = READ_ONCE(pfv_mode);

	return pfv_online_page(pfn, mode < 0 ? MMTUNE_PV_STOCK : mode);
}

#if MMTUNE_FTRACE_REDIRECT && defined(CONFIG_MEMORY_HOTPLUG)
static void notrace pfv_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	int bit;

	/* Our own calls (the cross-check) reach the kernel's function. */
	if (within_module(parent_ip, THIS_MODULE))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	mmtune_ftrace_redirect(fregs, (unsigned long)pfv_pfn_to_online_page);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops pfv_ops = {
	.func	= pfv_ftrace_handler,
	.flags	= MMTUNE_FTRACE_REDIRECT_FLAGS | FTRACE_OPS_FL_RECURSION |
		  FTRACE_OPS_FL_PERMANENT,
};

static bool pfv_registered;
static bool pfv_ever_registered;

static void pfv_override_init(void)
{
	unsigned long addr = (unsigned long)pfn_to_online_page;
	int ret;

	if (mmtune_lookup_func("pfn_to_online_page") != addr) {
		snprintf(pfv_reason, sizeof(pfv_reason),
			 "not overridable: pfn_to_online_page at %pS is not kallsyms' function entry",
			 (void *)addr);
		return;
	}
	ret = ftrace_set_filter_ip(&pfv_ops, addr, 0, 0);
	if (ret) {
		ftrace_free_filter(&pfv_ops);
		snprintf(pfv_reason, sizeof(pfv_reason),
			 "not overridable: pfn_to_online_page is not traceable (ftrace_set_filter_ip: %d)",
			 ret);
		return;
	}
	pfv_overridable = true;
}

static int pfv_hook(bool on)
{
	int ret;

	if (on == pfv_registered)
		return 0;
	ret = on ? register_ftrace_function(&pfv_ops) :
		   unregister_ftrace_function(&pfv_ops);
	if (ret)
		return ret;
	pfv_registered = on;
	pfv_ever_registered |= on;
	return 0;
}

static void pfv_override_exit(void)
{
	if (!pfv_overridable)
		return;
	if (pfv_hook(false))
		pr_err("pfn_valid: cannot remove the pfn_to_online_page hook\n");
	WRITE_ONCE(pfv_mode, PFV_MODE_OFF);
	ftrace_free_filter(&pfv_ops);
	/*
	 * Nobody may still run pfv_pfn_to_online_page() when our text goes:
	 * it never sleeps, so a task preempted in it has not yet passed a
	 * voluntary context switch.
	 */
	if (pfv_ever_registered)
		synchronize_rcu_tasks();
}
#else
static void pfv_override_init(void)
{
#ifndef CONFIG_MEMORY_HOTPLUG
	strscpy(pfv_reason,
		"not overridable: no MEMORY_HOTPLUG, pfn_to_online_page is a macro",
		sizeof(pfv_reason));
#else
	strscpy(pfv_reason, "not overridable: " MMTUNE_FTRACE_REDIRECT_WHY,
		sizeof(pfv_reason));
#endif
}

static int pfv_hook(bool on)
{
	return on ? -EOPNOTSUPP : 0;
}

static void pfv_override_exit(void)
{
}
#endif

/* ---- the pfns: range, patterns, cross-check */

/* The kernel's own function (the override lets our calls through). */
static struct page *pfv_kernel_online_page(unsigned long pfn)
{
	return pfn_to_online_page(pfn);
}

/* One past the highest section with a memory map, 0 if none. */
static unsigned long pfv_valid_sections_end(void)
{
	unsigned long nr = NR_MEM_SECTIONS;

	while (nr--) {
		struct mem_section *ms = __nr_to_section(nr);

		if (!ms) {		/* a missing root: skip all of it */
			nr &= ~(unsigned long)SECTION_ROOT_MASK;
			continue;
		}
		if (valid_section(ms))
			return nr + 1;
	}
	return 0;
}

static unsigned long pfv_kernel_max_pfn(void)
{
	return pfv_max_pfn ? READ_ONCE(*pfv_max_pfn) :
	       pfv_valid_sections_end() << PFN_SECTION_SHIFT;
}

/* 0..max_pfn, whatever else has a memory map, and two sections beyond. */
static unsigned long pfv_end_pfn(void)
{
	unsigned long end = max(pfv_kernel_max_pfn(),
				pfv_valid_sections_end() << PFN_SECTION_SHIFT);
	unsigned long limit = NR_MEM_SECTIONS << PFN_SECTION_SHIFT;

	end = SECTION_ALIGN_UP(end) + 2 * PAGES_PER_SECTION;
	return min(end, limit);
}

static void pfv_check_one(unsigned long pfn, struct pfv_tally *t)
{
	struct page *kpage = pfv_kernel_online_page(pfn);
	int ref = !!pfv_stock(pfn);
	unsigned int i;

	for (i = 0; i < MMTUNE_PV_NR; i++) {
		bool bad = false;

		if (!(pfv_have & BIT(i)))
			continue;
		t[i].checked++;
		if (!!pfv_call(i, pfn) != ref) {
			t[i].bad++;
			bad = true;
		}
		if (pfv_online_page(pfn, i) != kpage) {
			t[i].online_bad++;
			bad = true;
		}
		if (bad && t[i].first_bad == ULONG_MAX)
			t[i].first_bad = pfn;
	}
}

static void pfv_tally_init(struct pfv_tally *t)
{
	unsigned int i;

	for (i = 0; i < MMTUNE_PV_NR; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].first_bad = ULONG_MAX;
	}
}

static void pfv_tally_add(struct pfv_tally *dst, const struct pfv_tally *src)
{
	unsigned int i;

	for (i = 0; i < MMTUNE_PV_NR; i++) {
		dst[i].checked += src[i].checked;
		dst[i].bad += src[i].bad;
		dst[i].online_bad += src[i].online_bad;
		if (dst[i].first_bad == ULONG_MAX)
			dst[i].first_bad = src[i].first_bad;
	}
}

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
			if (!pfv_stock(pfn))
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

static noinline unsigned long pfv_loop(unsigned int impl,
				       const unsigned long *pfns,
				       unsigned int n)
{
	unsigned long valid = 0;
	unsigned int i;

	/* One loop per strategy: each inlined, as in the kernel's callers. */
	switch (impl) {
	case MMTUNE_PV_STOCK:
		for (i = 0; i < n; i++)
			valid += pfv_stock(pfns[i]);
		break;
	case MMTUNE_PV_SECTION:
		for (i = 0; i < n; i++)
			valid += pfv_section(pfns[i]);
		break;
	case MMTUNE_PV_VMEMMAP:
		for (i = 0; i < n; i++)
			valid += pfv_vmemmap(pfns[i]);
		break;
	case MMTUNE_PV_MEMBLOCK:
		for (i = 0; i < n; i++)
			valid += pfv_memblock_valid(pfns[i]);
		break;
	default:
		for (i = 0; i < n; i++) {
			unsigned long pfn = pfns[i];

			OPTIMIZER_HIDE_VAR(pfn);
			valid += pfn & 1;
		}
		break;
	}
	return valid;
}

/* The rows to time: the present strategies, then the bare loop. */
static unsigned int pfv_rows(unsigned int *rows)
{
	unsigned int i, n = 0;

	for (i = 0; i < MMTUNE_PV_NR; i++)
		if (pfv_have & BIT(i))
			rows[n++] = i;
	rows[n++] = PFV_NONE;
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

		valid = pfv_loop(r, buf, n);
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
	pfv_tally_init(scratch);
	for (pass = 0; pass < 3; pass++) {
		pfv_gen_init(&g, pattern, count, end);
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++)
			buf[i] = pfv_gen_pfn(&g);
		t1 = ktime_get_ns();
		for (i = 0; i < n; i++)
			pfv_check_one(buf[i], scratch);
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

static int pfv_bench(unsigned int pattern, unsigned int count)
{
	unsigned int rows[PFV_ROWS], nrows = pfv_rows(rows);
	struct pfv_tally tally[MMTUNE_PV_NR];
	unsigned long end = pfv_end_pfn(), *buf;
	unsigned int rep, chunk, done, i, n;
	struct pfv_gen g;
	u64 start, est;
	int ret = 0;

	buf = kmalloc_array(PFV_CHUNK, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	est = pfv_estimate(buf, pattern, count, end);
	if (est > PFV_BUDGET_NS) {
		pr_warn("pfn_valid: bench %u %s would take ~%llu ms (more than %llu); at most ~%llu pfns here\n",
			count, pfv_patterns[pattern], div_u64(est, NSEC_PER_MSEC),
			div_u64(PFV_BUDGET_NS, NSEC_PER_MSEC),
			div64_u64((u64)count * PFV_BUDGET_NS, est));
		ret = -EINVAL;
		goto out;
	}

	memset(&pfv_last, 0, sizeof(pfv_last));
	pfv_tally_init(tally);
	start = ktime_get_ns();
	for (rep = 0; rep < PFV_REPEATS && !ret; rep++) {
		pfv_gen_init(&g, pattern, count, end);
		for (done = 0, chunk = 0; done < count; done += n, chunk++) {
			n = min_t(unsigned int, count - done, PFV_CHUNK);
			for (i = 0; i < n; i++)
				buf[i] = pfv_gen_pfn(&g);
			if (rep == 0)
				for (i = 0; i < n; i++)
					pfv_check_one(buf[i], tally);
			pfv_time_chunk(buf, n, rep, chunk, rows, nrows,
				       pfv_last.row);
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			if (ktime_get_ns() - start > PFV_DEADLINE_NS) {
				pr_warn("pfn_valid: bench stopped after %llu ms\n",
					div_u64(PFV_DEADLINE_NS, NSEC_PER_MSEC));
				ret = -ETIME;
				break;
			}
			cond_resched();
		}
	}
	/* Whatever was compared counts, also from a run cut short. */
	pfv_tally_add(pfv_total, tally);
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
	pfv_last.max_pfn = pfv_kernel_max_pfn();
	pfv_last.done = true;
out:
	kfree(buf);
	return ret;
}

/*
 * The cross-check sweep behind the mode gate: every pfn of the range
 * where that is affordable (else both ends of every subsection), both ends
 * of every subsection of the sections without memory map, sections spread
 * over the rest of the address space, and pfns with upper bits set.
 */
static int pfv_verify(void)
{
	unsigned long end = pfv_end_pfn(), sec, pfn, j, s_end;
	unsigned long nsec = end >> PFN_SECTION_SHIFT;
	static const unsigned long far[] = { ULONG_MAX, BIT(BITS_PER_LONG - 1),
					     ULONG_MAX >> PAGE_SHIFT };
	struct pfv_tally tally[MMTUNE_PV_NR];
	bool full = end <= PFV_VERIFY_FULL;
	u64 start = ktime_get_ns();
	unsigned int i;
	int ret = 0;

	pfv_tally_init(tally);
	for (sec = 0; sec < nsec && !ret; sec++) {
		pfn = section_nr_to_pfn(sec);
		if (full && valid_section_nr(sec)) {
			for (j = 0; j < PAGES_PER_SECTION; j++)
				pfv_check_one(pfn + j, tally);
		} else {
			for (j = 0; j < PAGES_PER_SECTION; j += PAGES_PER_SUBSECTION) {
				pfv_check_one(pfn + j, tally);
				pfv_check_one(pfn + j + PAGES_PER_SUBSECTION - 1, tally);
			}
		}
		if (fatal_signal_pending(current))
			ret = -EINTR;
		else if (ktime_get_ns() - start > PFV_DEADLINE_NS)
			ret = -ETIME;
		cond_resched();
	}
	/* Beyond: sections at growing distances, up to the last one. */
	s_end = NR_MEM_SECTIONS;
	for (sec = nsec, j = 1; sec < s_end && !ret; sec += j, j *= 2) {
		pfv_check_one(section_nr_to_pfn(sec), tally);
		pfv_check_one(section_nr_to_pfn(sec) + PAGES_PER_SECTION - 1, tally);
	}
	if (s_end && !ret) {
		pfv_check_one(section_nr_to_pfn(s_end) - 1, tally);
		pfv_check_one(section_nr_to_pfn(s_end), tally);
	}
	for (i = 0; i < ARRAY_SIZE(far) && !ret; i++)
		pfv_check_one(far[i], tally);
	pfv_tally_add(pfv_total, tally);
	if (!ret)
		pfv_verified = true;
	return ret;
}

/* ---- debugfs */

static int pfv_parse_word(const char *word, const char *const *names,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(word, names[i]))
			return i;
	return -EINVAL;
}

/* Copy a short write into @buf without its one trailing newline. */
static int pfv_get_write(char *buf, size_t size, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	if (*ppos || !count || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (strlen(buf) != count)
		return -EINVAL;
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	return 0;
}

/* ns per call, two decimals, of a repeat's total over @count calls. */
static void pfv_print_ns(struct seq_file *m, u64 total, unsigned int count)
{
	u64 c = div_u64(total * 100, count);

	seq_printf(m, " %llu.%02llu", div_u64(c, 100), c % 100);
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

void mmtune_pfn_valid_bench_show(struct seq_file *m)
{
	const unsigned int mid = PFV_REPEATS / 2, hi = PFV_REPEATS - 1;
	unsigned int rows[PFV_ROWS], nrows, k;
	u64 ns[PFV_REPEATS];

	mutex_lock(&pfv_lock);
	if (!pfv_last.done) {
		seq_puts(m, "pattern: none\n");
		goto out;
	}
	seq_printf(m, "pattern: %s\n", pfv_patterns[pfv_last.pattern]);
	seq_printf(m, "count: %u\n", pfv_last.count);
	seq_printf(m, "repeats: %u\n", PFV_REPEATS);
	seq_printf(m, "pfn_range: 0x0-0x%lx\n", pfv_last.end_pfn);
	seq_printf(m, "max_pfn: 0x%lx\n", pfv_last.max_pfn);
	pfv_sorted(&pfv_last.row[PFV_NONE], ns);
	seq_puts(m, "overhead_ns:");
	pfv_print_ns(m, ns[mid], pfv_last.count);
	seq_printf(m, "\nelapsed_ms: %llu\n",
		   div_u64(pfv_last.elapsed_ns, NSEC_PER_MSEC));
	seq_puts(m, "impl median_ns min_ns max_ns spread_pct valid disagree online_disagree first_disagree\n");
	nrows = pfv_rows(rows);
	for (k = 0; k < nrows; k++) {
		const struct pfv_row *row = &pfv_last.row[rows[k]];

		if (rows[k] == PFV_NONE)
			continue;
		pfv_sorted(row, ns);
		seq_puts(m, pfv_names[rows[k]]);
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
	mutex_unlock(&pfv_lock);
}

static int bench_show(struct seq_file *m, void *v)
{
	mmtune_pfn_valid_bench_show(m);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, inode->i_private);
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char buf[32], *p, *num, *pat;
	unsigned int n;
	int pattern, ret;

	ret = pfv_get_write(buf, sizeof(buf), ubuf, count, ppos);
	if (ret)
		return ret;
	p = buf;
	num = strsep(&p, " ");
	pat = p;
	if (!pat || strchr(pat, ' ') || kstrtouint(num, 10, &n) ||
	    !n || n > PFV_COUNT_MAX)
		return -EINVAL;
	pattern = pfv_parse_word(pat, pfv_patterns, PFV_NR_PATTERNS);
	if (pattern < 0)
		return pattern;

	mutex_lock(&pfv_lock);
	ret = pfv_bench(pattern, n);
	mutex_unlock(&pfv_lock);
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

static const struct file_operations bench_fops = {
	.owner		= THIS_MODULE,
	.open		= bench_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= bench_write,
};

static ssize_t mode_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	int mode = READ_ONCE(pfv_mode);
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s\n",
			mode < 0 ? "off" : pfv_names[mode]);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* Caller holds pfv_lock. */
static int pfv_set_mode(int mode)
{
	const struct pfv_tally *t;
	int ret, old = pfv_mode;

	if (mode == PFV_MODE_OFF) {
		ret = pfv_hook(false);
		if (!ret)
			WRITE_ONCE(pfv_mode, PFV_MODE_OFF);
		return ret;
	}
	if (!pfv_overridable) {
		pr_warn("pfn_valid: mode %s refused: %s\n", pfv_names[mode],
			pfv_reason);
		return -EOPNOTSUPP;
	}
	if (!pfv_verified) {
		ret = pfv_verify();
		if (ret) {
			pr_warn("pfn_valid: mode %s refused: the cross-check did not finish (%d)\n",
				pfv_names[mode], ret);
			return ret == -EINTR ? ret : -EINVAL;
		}
	}
	t = &pfv_total[mode];
	if (t->bad || t->online_bad || !t->checked) {
		pr_warn("pfn_valid: mode %s refused: %llu of %llu pfns disagree with stock, %llu with pfn_to_online_page (first pfn 0x%lx)\n",
			pfv_names[mode], t->bad, t->checked, t->online_bad,
			t->first_bad);
		return -EINVAL;
	}
	WRITE_ONCE(pfv_mode, mode);
	ret = pfv_hook(true);
	if (ret) {
		WRITE_ONCE(pfv_mode, old);
		pr_warn("pfn_valid: cannot hook pfn_to_online_page (%d)\n", ret);
	}
	return ret;
}

/* "off" or a strategy this arch has: its PFV_MODE_* / MMTUNE_PV_*. */
static int pfv_parse_mode(const char *buf, int *mode)
{
	if (!strcmp(buf, "off")) {
		*mode = PFV_MODE_OFF;
		return 0;
	}
	*mode = pfv_parse_word(buf, pfv_names, MMTUNE_PV_NR);
	if (*mode < 0 || !(pfv_have & BIT(*mode))) {
		pr_warn("pfn_valid: mode '%s': no such strategy here\n", buf);
		return -EINVAL;
	}
	return 0;
}

static ssize_t mode_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[16];
	int mode, ret;

	ret = pfv_get_write(buf, sizeof(buf), ubuf, count, ppos);
	if (ret)
		return ret;
	ret = pfv_parse_mode(buf, &mode);
	if (ret)
		return ret;
	mutex_lock(&pfv_lock);
	ret = pfv_set_mode(mode);
	mutex_unlock(&pfv_lock);
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

static const struct file_operations mode_fops = {
	.owner	= THIS_MODULE,
	.read	= mode_read,
	.write	= mode_write,
};

/*
 * ---- module parameter pfn_valid_mode: debugfs pfn_valid/mode in the
 * place lockdown leaves writable.  A value given at load waits for init
 * (pfv_pending); every set holds the module's parameter lock, then
 * pfv_lock.
 */
static enum { PFV_LOADING, PFV_READY, PFV_GONE } pfv_state;
static char pfv_pending[16];

static int mode_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[16];
	int mode, ret;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strreplace(buf, '\n', '\0');
	mutex_lock(&pfv_lock);
	if (pfv_state == PFV_LOADING) {
		/* pfv_have is not known yet: init checks the name */
		strscpy(pfv_pending, buf, sizeof(pfv_pending));
		ret = 0;
	} else if (pfv_state == PFV_GONE) {
		ret = -ENODEV;
	} else {
		ret = pfv_parse_mode(buf, &mode);
		if (!ret)
			ret = pfv_set_mode(mode);
	}
	mutex_unlock(&pfv_lock);
	return ret;
}

static int mode_param_get(char *buf, const struct kernel_param *kp)
{
	int mode = READ_ONCE(pfv_mode);

	return sysfs_emit(buf, "%s\n", mode < 0 ? "off" : pfv_names[mode]);
}

static const struct kernel_param_ops mode_param_ops = {
	.set = mode_param_set,
	.get = mode_param_get,
};
module_param_cb(MMT_PARAM_PFN_VALID_MODE, &mode_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_PFN_VALID_MODE,
		  "pfn_valid strategy behind pfn_to_online_page: off or one of info's pfn_valid_impls");

static int pfv_apply_pending(void)
{
	int mode, ret = 0;

	mutex_lock(&pfv_lock);
	pfv_state = PFV_READY;
	if (pfv_pending[0]) {
		ret = pfv_parse_mode(pfv_pending, &mode);
		if (!ret)
			ret = pfv_set_mode(mode);
		if (ret) {
			pr_err("cannot set pfn_valid_mode=%s at load (%d)\n",
			       pfv_pending, ret);
			pfv_override_exit();
			pfv_state = PFV_GONE;
		}
	}
	mutex_unlock(&pfv_lock);
	return ret;
}

/* ---- the feature */

static int pfv_init(struct dentry *dir)
{
	unsigned long addr = mmtune_lookup_name("max_pfn");
	struct dentry *d;
	int ret;

	pfv_have = mmtune_pfn_valid_impls() | BIT(MMTUNE_PV_STOCK);
	pfv_memblock_init();
	if (mmtune_symbol_is(addr, "max_pfn", true) &&
	    mmtune_in_kernel_data(addr))
		pfv_max_pfn = (unsigned long *)addr;
	pfv_tally_init(pfv_total);
	pfv_override_init();
	ret = pfv_apply_pending();
	if (ret)
		return ret;

	d = debugfs_create_dir("pfn_valid", dir);
	debugfs_create_file("bench", 0600, d, NULL, &bench_fops);
	debugfs_create_file("mode", 0600, d, NULL, &mode_fops);
	return 0;
}

static void pfv_exit(void)
{
	mutex_lock(&pfv_lock);
	pfv_state = PFV_GONE;
	pfv_override_exit();
	mutex_unlock(&pfv_lock);
}

static void pfv_info(struct seq_file *m)
{
	unsigned int i;
	int mode;

	mutex_lock(&pfv_lock);
	seq_puts(m, "pfn_valid_impls:");
	for (i = 0; i < MMTUNE_PV_NR; i++)
		if (pfv_have & BIT(i))
			seq_printf(m, " %s", pfv_names[i]);
	seq_puts(m, "\npfn_valid_crosscheck:");
	for (i = 0; i < MMTUNE_PV_NR; i++)
		if (pfv_have & BIT(i))
			seq_printf(m, " %s %llu/%llu", pfv_names[i],
				   pfv_total[i].bad + pfv_total[i].online_bad,
				   pfv_total[i].checked);
	seq_printf(m, "\npfn_valid_crosscheck_sweep: %s\n",
		   pfv_verified ? "done" : "not yet");
	mode = pfv_mode;
	if (pfv_overridable)
		seq_printf(m, "pfn_valid_override: pfn_to_online_page (mode %s)\n",
			   mode < 0 ? "off" : pfv_names[mode]);
	else
		seq_printf(m, "pfn_valid_override: %s\n", pfv_reason);
	mutex_unlock(&pfv_lock);
}

#else /* !CONFIG_SPARSEMEM */

/* Nothing to choose from: only "off" is accepted. */
static int mode_param_set(const char *val, const struct kernel_param *kp)
{
	return sysfs_streq(val, "off") ? 0 : -EOPNOTSUPP;
}

static int mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "off\n");
}

static const struct kernel_param_ops mode_param_ops = {
	.set = mode_param_set,
	.get = mode_param_get,
};
module_param_cb(MMT_PARAM_PFN_VALID_MODE, &mode_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_PFN_VALID_MODE,
		  "pfn_valid strategy: only off on a kernel without SPARSEMEM");

void mmtune_pfn_valid_bench_show(struct seq_file *m)
{
	seq_puts(m, "pattern: none\n");
}

static int pfv_init(struct dentry *dir)
{
	return 0;
}

static void pfv_exit(void)
{
}

static void pfv_info(struct seq_file *m)
{
	seq_puts(m, "pfn_valid_impls: none\n");
	seq_puts(m, "pfn_valid_override: not overridable: kernel without SPARSEMEM\n");
}
#endif /* CONFIG_SPARSEMEM */

const struct mmtune_feature mmtune_pfn_valid_feature = {
	.name	= "pfn_valid",
	.init	= pfv_init,
	.exit	= pfv_exit,
	.info	= pfv_info,
};
