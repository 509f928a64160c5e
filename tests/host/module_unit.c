// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit checks of the module's pure arithmetic, built against
 * tests/host/shim/ (stand-ins for the few kernel headers they include):
 *  - rules_pure.h: the window a rule's order gives (rules_narrow()) and
 *    the match cache's key and hash;
 *  - auto_judge.c: an order=auto rule's judgement.
 *
 *   module_unit    prints "ok - module_unit: NAME" / "not ok - ...: why";
 *                  exits 1 if any failed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auto_judge.h"
#include "rules_pure.h"
#include "unit_check.h"

#define PT_SLOTS	512UL	/* a page table's slots (x86-64, 4 KiB) */

#define check(name, cond, why)	unit_check("module_unit", name, cond, "%s", why)

/* ---- rules_narrow() ---- */

static unsigned long lmax(unsigned long a, unsigned long b)
{
	return a > b ? a : b;
}

static unsigned long lmin(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

/*
 * The kernel's window at @order around the fault at @pgoff in slot @slot:
 * the aligned block, clamped to the mapping [@vlo, @vhi] and the page
 * table.  A mapping that starts inside the block may give it more past
 * the block's end (do_fault_around: start + nr - 1): @spill does.
 */
static void kernel_window(unsigned long pgoff, unsigned long slot,
			  unsigned int order, unsigned long vlo,
			  unsigned long vhi, int spill, unsigned long *start,
			  unsigned long *end)
{
	unsigned long nr = 1UL << order, before = slot & (nr - 1);
	unsigned long pt_lo = pgoff - slot, pt_hi = pt_lo + PT_SLOTS - 1;

	*start = lmax(lmax(pgoff - before, vlo), pt_lo);
	*end = lmin(lmin(spill ? *start + nr - 1 : pgoff + nr - 1 - before,
			 vhi), pt_hi);
}

/*
 * Narrowing the kernel's window at @hi to @order gives the window
 * intersected with @order's aligned block around the fault: never wider
 * than the rule's order, never past what the kernel gave (so never past
 * the mapping), and always the faulting page.
 */
static void check_narrow(void)
{
	unsigned long pgoff, slot, vlo, vhi, s, e, s0, e0, nr, blo, bhi;
	unsigned int hi, order, n = 0, bad_wide = 0, bad_vma = 0;
	unsigned int bad_fault = 0, bad_exact = 0, bad_order = 0;
	int spill;

	srand(45);
	for (n = 0; n < 200000; n++) {
		slot = rand() % PT_SLOTS;
		pgoff = 100000 + rand() % 5000;
		vlo = pgoff - rand() % 700;
		vhi = pgoff + rand() % 700;
		hi = rand() % 10;
		order = rand() % (hi + 1);
		spill = rand() & 1;
		kernel_window(pgoff, slot, hi, vlo, vhi, spill, &s0, &e0);
		s = s0;
		e = e0;
		rules_narrow(pgoff, slot, order, &s, &e);
		nr = 1UL << order;
		blo = pgoff - (slot & (nr - 1));
		bhi = blo + nr - 1;
		bad_wide += s < s0 || e > e0;
		bad_vma += s < vlo || e > vhi;
		bad_fault += s > pgoff || e < pgoff;
		bad_order += e - s + 1 > nr || s < blo || e > bhi;
		bad_exact += s != lmax(s0, blo) || e != lmin(e0, bhi);
	}
	check("narrow: never widens the kernel's window", !bad_wide, "widened");
	check("narrow: never past the mapping", !bad_vma, "past the vma");
	check("narrow: keeps the faulting page", !bad_fault, "lost it");
	check("narrow: within the rule order's aligned block", !bad_order,
	      "beyond the order");
	check("narrow: the window and the block's intersection", !bad_exact,
	      "another window");

	/* the kernel's own window at the rule's order, where nothing clamps */
	kernel_window(1000, 200, 4, 0, 5000, 0, &s0, &e0);
	s = s0;
	e = e0;
	rules_narrow(1000, 200, 2, &s, &e);
	check("narrow: order 4 to 2 is order 2's block",
	      s == 1000 && e == 1003, "not [1000, 1003]");
	s = 990;
	e = 1020;
	rules_narrow(1000, 203, 0, &s, &e);
	check("narrow: order 0 is the faulting page alone", s == 1000 && e == 1000,
	      "more than the page");
	s = 1001;
	e = 1020;
	rules_narrow(1000, 200, 0, &s, &e);
	check("narrow: a window not around the fault stays",
	      s == 1001 && e == 1020, "changed");
	s = 996;
	e = 1003;
	rules_narrow(1000, 4, 3, &s, &e);
	check("narrow: a window already narrow stays", s == 996 && e == 1003,
	      "changed");
}

/* ---- the match cache's key and hash ---- */

static void check_match(void)
{
	/* thread group pids: slab objects, a cache line apart or more */
	static char pids[64][256] __attribute__((aligned(256)));
	const struct pid *a = (const void *)pids[0], *b = (const void *)pids[1];
	struct comm_key comm = { 0x6f6e69676e65ULL, 0 }, other = comm;
	struct policy_match_ent e;
	unsigned int i, used = 0, seen[1 << POLICY_MATCH_BITS] = { 0 };
	int in_range = 1;

	memset(&e, 0, sizeof(e));
	check("match: an empty entry holds no answer of a set (gen 1)",
	      !rules_match_hit(&e, 1, a, 0, comm), "hit");
	rules_match_keep(&e, 1, a, 7, comm, 0x5, 0);
	check("match: the keys kept hit", rules_match_hit(&e, 1, a, 7, comm),
	      "missed");
	check("match: the answer kept", e.mask == 0x5 && e.idx == 0,
	      "another mask or index");
	check("match: another thread group misses",
	      !rules_match_hit(&e, 1, b, 7, comm), "hit");
	check("match: another cgroup misses",
	      !rules_match_hit(&e, 1, a, 8, comm), "hit");
	check("match: another generation misses",
	      !rules_match_hit(&e, 2, a, 7, comm), "hit");
	other.w0 ^= 1;
	check("match: another name's first word misses",
	      !rules_match_hit(&e, 1, a, 7, other), "hit");
	other = comm;
	other.w1 = 0x31;
	check("match: another name's second word misses",
	      !rules_match_hit(&e, 1, a, 7, other), "hit");

	for (i = 0; i < 64; i++) {
		unsigned int s = rules_match_slot((const void *)pids[i]);

		if (s >= 1U << POLICY_MATCH_BITS)
			in_range = 0;
		else if (!seen[s]++)
			used++;
	}
	check("match: the hash stays within the entries", in_range,
	      "out of range");
	check("match: 64 thread groups spread over every entry",
	      used == 1U << POLICY_MATCH_BITS, "some entry unused");
}

/* ---- the auto judgement ---- */

static void check_auto(void)
{
	struct mmtune_auto a;
	bool changed;

	a.raised = 99;
	mmtune_auto_start(&a, 3);
	check("auto: start", a.order == 3 && a.useful == -1 && !a.raised &&
	      !a.lowered && !a.seen_p && !a.seen_runs, "not a fresh rule");

	changed = mmtune_auto_judge(&a, 1000, 100, 5, 6);
	check("auto: a useful run raises", changed && a.order == 4 &&
	      a.raised == 1 && a.useful == 900 && a.judged == 1000,
	      "not raised");
	/* cumulative counts: the next judgement sees the delta alone */
	changed = mmtune_auto_judge(&a, 2000, 1000, 9, 6);
	check("auto: a useless run lowers (the delta since)", changed &&
	      a.order == 3 && a.lowered == 1 && a.useful == 100,
	      "not lowered");
	changed = mmtune_auto_judge(&a, 3000, 1500, 12, 6);
	check("auto: within the band it holds", !changed && a.order == 3 &&
	      a.useful == 500, "moved");
	changed = mmtune_auto_judge(&a, 3000 + AUTO_MIN_PAGES - 1, 1500, 50, 6);
	check("auto: too few pages, no judgement", !changed && a.order == 3 &&
	      a.useful == 500 && a.seen_p == 3000, "judged");

	mmtune_auto_start(&a, 2);
	changed = mmtune_auto_judge(&a, 1000, 250, 1, 6);
	check("auto: 75.0 % useful raises", changed && a.order == 3, "held");
	mmtune_auto_start(&a, 2);
	changed = mmtune_auto_judge(&a, 1000, 251, 1, 6);
	check("auto: 74.9 % useful holds", !changed && a.order == 2, "moved");
	mmtune_auto_start(&a, 2);
	changed = mmtune_auto_judge(&a, 1000, 667, 1, 6);
	check("auto: 33.3 % useful holds", !changed && a.order == 2, "moved");
	mmtune_auto_start(&a, 2);
	changed = mmtune_auto_judge(&a, 1000, 668, 1, 6);
	check("auto: 33.2 % useful lowers", changed && a.order == 1, "held");

	mmtune_auto_start(&a, 5);
	changed = mmtune_auto_judge(&a, 1000, 0, 1, 5);
	check("auto: never above the largest order", !changed && a.order == 5,
	      "raised past it");
	mmtune_auto_start(&a, 0);
	changed = mmtune_auto_judge(&a, 1000, 1000, 1, 5);
	check("auto: never below order 0", !changed && a.order == 0,
	      "lowered past it");

	/* live passes take back what they counted: below 0 is 0 */
	mmtune_auto_start(&a, 1);
	a.seen_u = 500;
	changed = mmtune_auto_judge(&a, 1000, 400, 1, 5);
	check("auto: untouched taken back counts as 0", changed &&
	      a.order == 2 && a.useful == 1000, "not 100 % useful");

	/* order 0 learns nothing: a probe after AUTO_PROBE ended processes */
	mmtune_auto_start(&a, 0);
	changed = mmtune_auto_judge(&a, 0, 0, AUTO_PROBE - 1, 5);
	check("auto: order 0 waits for AUTO_PROBE runs", !changed &&
	      a.order == 0, "probed early");
	changed = mmtune_auto_judge(&a, 0, 0, AUTO_PROBE, 5);
	check("auto: then probes order 1", changed && a.order == 1 &&
	      a.raised == 1 && a.useful == -1, "no probe");
	mmtune_auto_start(&a, 0);
	changed = mmtune_auto_judge(&a, 0, 0, AUTO_PROBE, 0);
	check("auto: no probe where order 1 goes unmeasured", !changed &&
	      a.order == 0, "probed");
}

int main(void)
{
	check_narrow();
	check_match();
	check_auto();
	return unit_failed;
}
