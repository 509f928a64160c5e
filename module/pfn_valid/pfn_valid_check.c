// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the cross-check of the pfn_valid strategies with stock and of
 * the override's function with the kernel's pfn_to_online_page(): one pfn
 * at a time (for the bench's first pass, pfn_valid_bench.c), and the sweep
 * behind the mode gate.  The comparisons so far, per strategy, are what
 * the gate decides on.  pfn_valid_bench.c and pfn_valid_file.c call in
 * here, never the other way (pfn_valid_check.h).
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "../mmtune.h"
#include "pfn_valid.h"
#include "pfn_valid_check.h"

#ifdef CONFIG_SPARSEMEM

#define PFV_VERIFY_FULL	BIT(21)			/* pfns checked one by one */

/* All below under mmtune_pfv_lock (pfn_valid.c's). */
static unsigned long *pfv_max_pfn;	/* the kernel's max_pfn, verified */

struct pfv_tally mmtune_pfv_total[MMTUNE_PV_NR];
bool mmtune_pfv_verified;

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

unsigned long mmtune_pfv_kernel_max_pfn(void)
{
	return pfv_max_pfn ? READ_ONCE(*pfv_max_pfn) :
	       pfv_valid_sections_end() << PFN_SECTION_SHIFT;
}

/* 0..max_pfn, whatever else has a memory map, and two sections beyond. */
unsigned long mmtune_pfv_end_pfn(void)
{
	unsigned long end = max(mmtune_pfv_kernel_max_pfn(),
				pfv_valid_sections_end() << PFN_SECTION_SHIFT);
	unsigned long limit = NR_MEM_SECTIONS << PFN_SECTION_SHIFT;

	end = SECTION_ALIGN_UP(end) + 2 * PAGES_PER_SECTION;
	return min(end, limit);
}

void mmtune_pfv_check_one(unsigned long pfn, struct pfv_tally *t)
{
	struct page *kpage = pfv_kernel_online_page(pfn);
	int ref = !!mmtune_pfv_valid(MMTUNE_PV_STOCK, pfn);
	unsigned int i, have = mmtune_pfv_have();

	for (i = 0; i < MMTUNE_PV_NR; i++) {
		bool bad = false;

		if (!(have & BIT(i)))
			continue;
		t[i].checked++;
		if (!!mmtune_pfv_valid(i, pfn) != ref) {
			t[i].bad++;
			bad = true;
		}
		if (mmtune_pfv_online_page(pfn, i) != kpage) {
			t[i].online_bad++;
			bad = true;
		}
		if (bad && t[i].first_bad == ULONG_MAX)
			t[i].first_bad = pfn;
	}
}

void mmtune_pfv_tally_init(struct pfv_tally *t)
{
	unsigned int i;

	for (i = 0; i < MMTUNE_PV_NR; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].first_bad = ULONG_MAX;
	}
}

void mmtune_pfv_tally_add(struct pfv_tally *dst, const struct pfv_tally *src)
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

/*
 * The cross-check sweep behind the mode gate: every pfn of the range
 * where that is affordable (else both ends of every subsection), both ends
 * of every subsection of the sections without memory map, sections spread
 * over the rest of the address space, and pfns with upper bits set.
 */
int mmtune_pfv_verify(void)
{
	unsigned long end = mmtune_pfv_end_pfn(), sec, pfn, j, s_end;
	unsigned long nsec = end >> PFN_SECTION_SHIFT;
	static const unsigned long far[] = { ULONG_MAX, BIT(BITS_PER_LONG - 1),
					     ULONG_MAX >> PAGE_SHIFT };
	struct pfv_tally tally[MMTUNE_PV_NR];
	bool full = end <= PFV_VERIFY_FULL;
	u64 start = ktime_get_ns();
	unsigned int i;
	int ret = 0;

	mmtune_pfv_tally_init(tally);
	for (sec = 0; sec < nsec && !ret; sec++) {
		pfn = section_nr_to_pfn(sec);
		if (full && valid_section_nr(sec)) {
			for (j = 0; j < PAGES_PER_SECTION; j++)
				mmtune_pfv_check_one(pfn + j, tally);
		} else {
			for (j = 0; j < PAGES_PER_SECTION; j += PAGES_PER_SUBSECTION) {
				mmtune_pfv_check_one(pfn + j, tally);
				mmtune_pfv_check_one(pfn + j + PAGES_PER_SUBSECTION - 1, tally);
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
		mmtune_pfv_check_one(section_nr_to_pfn(sec), tally);
		mmtune_pfv_check_one(section_nr_to_pfn(sec) + PAGES_PER_SECTION - 1, tally);
	}
	if (s_end && !ret) {
		mmtune_pfv_check_one(section_nr_to_pfn(s_end) - 1, tally);
		mmtune_pfv_check_one(section_nr_to_pfn(s_end), tally);
	}
	for (i = 0; i < ARRAY_SIZE(far) && !ret; i++)
		mmtune_pfv_check_one(far[i], tally);
	mmtune_pfv_tally_add(mmtune_pfv_total, tally);
	if (!ret)
		mmtune_pfv_verified = true;
	return ret;
}

void mmtune_pfv_check_init(void)
{
	unsigned long addr = mmtune_lookup_name("max_pfn");

	if (mmtune_symbol_is(addr, "max_pfn", true) &&
	    mmtune_in_kernel_data(addr))
		pfv_max_pfn = (unsigned long *)addr;
	mmtune_pfv_tally_init(mmtune_pfv_total);
}

#endif /* CONFIG_SPARSEMEM */
