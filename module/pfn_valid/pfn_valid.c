// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: pfn_valid() strategies and a runtime override of
 * pfn_to_online_page() (the bench, the cross-check that gates the override
 * and their files: pfn_valid_bench.c, pfn_valid_check.c and
 * pfn_valid_file.c, through pfn_valid.h).
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
 */
#include <linux/kernel.h>
#include <linux/memory_hotplug.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#ifdef CONFIG_ARCH_KEEP_MEMBLOCK
#include <linux/memblock.h>
#endif

#include "../compat/dev_pagemap.h"
#include "../compat/ftrace_redirect.h"
#include "../mmtune.h"
#include "pfn_valid.h"

#ifdef CONFIG_SPARSEMEM

static const char *const pfv_names[MMTUNE_PV_NR] = {
	[MMTUNE_PV_STOCK]	= "stock",
	[MMTUNE_PV_SECTION]	= "section",
	[MMTUNE_PV_VMEMMAP]	= "vmemmap",
	[MMTUNE_PV_MEMBLOCK]	= "memblock",
};

static unsigned int pfv_have;		/* BIT(MMTUNE_PV_*) usable here */
static int pfv_mode = PFV_MODE_OFF;	/* read locklessly by the override */
static char pfv_reason[160] = "not initialised";
static bool pfv_overridable;
DEFINE_MUTEX(mmtune_pfv_lock);		/* the mode, the hook, and the bench's */

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

/*
 * The pfn_valid strategies this arch can have: stock always; with
 * SPARSEMEM the mem_section walk; with SPARSEMEM_VMEMMAP (x86_64, arm64,
 * ppc64) the vmemmap probe; the memblock one where memblock stays after
 * boot (ARCH_KEEP_MEMBLOCK: arm64, ppc64, not x86, whose memblock arrays
 * may be freed after boot).  mmtune_pfv_init() drops the ones whose
 * kernel symbols it cannot resolve.
 */
static unsigned int mmtune_pfn_valid_impls(void)
{
	unsigned int impls = BIT(MMTUNE_PV_STOCK);

	if (IS_ENABLED(CONFIG_SPARSEMEM))
		impls |= BIT(MMTUNE_PV_SECTION);
	if (IS_ENABLED(CONFIG_SPARSEMEM_VMEMMAP))
		impls |= BIT(MMTUNE_PV_VMEMMAP);
	if (IS_ENABLED(CONFIG_SPARSEMEM) &&
	    IS_ENABLED(CONFIG_ARCH_KEEP_MEMBLOCK))
		impls |= BIT(MMTUNE_PV_MEMBLOCK);
	return impls;
}

/* ---- what the bench, the cross-check and the files use */

void mmtune_pfv_init(void)
{
	pfv_have = mmtune_pfn_valid_impls() | BIT(MMTUNE_PV_STOCK);
	pfv_memblock_init();
	pfv_override_init();
}

/* Caller holds mmtune_pfv_lock. */
void mmtune_pfv_exit(void)
{
	lockdep_assert_held(&mmtune_pfv_lock);
	pfv_override_exit();
}

unsigned int mmtune_pfv_have(void)
{
	return pfv_have;
}

const char *mmtune_pfv_mode_name(int mode)
{
	return mode < 0 ? "off" : pfv_names[mode];
}

int mmtune_pfv_parse_mode(const char *buf, int *mode)
{
	if (!strcmp(buf, "off")) {
		*mode = PFV_MODE_OFF;
		return 0;
	}
	*mode = match_string(pfv_names, MMTUNE_PV_NR, buf);
	if (*mode < 0 || !(pfv_have & BIT(*mode))) {
		pr_info_ratelimited("pfn_valid: mode '%s': no such strategy here\n",
				    buf);
		return -EINVAL;
	}
	return 0;
}

int mmtune_pfv_valid(unsigned int impl, unsigned long pfn)
{
	return pfv_call(impl, pfn);
}

struct page *mmtune_pfv_online_page(unsigned long pfn, unsigned int impl)
{
	return pfv_online_page(pfn, impl);
}

noinline unsigned long mmtune_pfv_loop(unsigned int impl,
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

const char *mmtune_pfv_override_why(void)
{
	return pfv_overridable ? NULL : pfv_reason;
}

int mmtune_pfv_mode(void)
{
	return READ_ONCE(pfv_mode);
}

/* Caller holds mmtune_pfv_lock. */
int mmtune_pfv_override_set(int mode)
{
	int ret, old = pfv_mode;

	lockdep_assert_held(&mmtune_pfv_lock);
	if (mode == PFV_MODE_OFF) {
		ret = pfv_hook(false);
		if (!ret)
			WRITE_ONCE(pfv_mode, PFV_MODE_OFF);
		return ret;
	}
	WRITE_ONCE(pfv_mode, mode);
	ret = pfv_hook(true);
	if (ret) {
		WRITE_ONCE(pfv_mode, old);
		pr_warn_ratelimited("pfn_valid: cannot hook pfn_to_online_page (%d)\n",
				    ret);
	}
	return ret;
}

#endif /* CONFIG_SPARSEMEM */
