// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the page-table walk that counts old PTEs (pgwalk.h says who
 * walks what).
 *
 * Called from a hook's callback (usefulness_path.c's zap), so notrace: the
 * callbacks call nothing traceable (hooks_table.c).
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pgtable.h>

#include "compat/pte.h"
#include "pgwalk.h"

#if MMTUNE_HAVE_PTE_MKOLD
static __always_inline unsigned long mmtune_old_pte(pte_t *pte)
{
	pte_t v = ptep_get(pte);

	return pte_present(v) && !pte_young(v);
}

static __always_inline unsigned long
mmtune_count_present(pte_t *pte, unsigned int nr)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		n += pte_present(ptep_get(pte + i));
	return n;
}

/*
 * Whether none of the eight PTE slots from @pte is old: each has the
 * accessed bit set in its raw value (a slot that is not present has no
 * old page whatever its bits say).  The bit is one bit on x86_64 and
 * arm64, so it is set in all eight exactly when it is set in their AND.
 */
static __always_inline bool mmtune_ptes_young8(const pte_t *pte)
{
	const pteval_t *w = &pte->pte;

	return pte_young(__pte(READ_ONCE(w[0]) & READ_ONCE(w[1]) &
			       READ_ONCE(w[2]) & READ_ONCE(w[3]) &
			       READ_ONCE(w[4]) & READ_ONCE(w[5]) &
			       READ_ONCE(w[6]) & READ_ONCE(w[7])));
}

/*
 * Old present PTEs of the @nr from @pte.  The zap walks whole tables, and
 * many hold a page or a few (one per table is the sparse case fault-around
 * was argued over), or pages all touched (a reader's): eight empty slots,
 * or eight young ones, pass in one test.
 */
static __always_inline unsigned long mmtune_count_old(pte_t *pte,
						      unsigned long nr)
{
	unsigned long n = 0, i, k;

	for (i = 0; i + 8 <= nr; i += 8) {
		if (mmtune_ptes_none8(pte + i) || mmtune_ptes_young8(pte + i))
			continue;
		for (k = i; k < i + 8; k++)
			n += mmtune_old_pte(pte + k);
	}
	for (; i < nr; i++)
		n += mmtune_old_pte(pte + i);
	return n;
}
#endif

/*
 * Old present PTEs in [addr, end) of @mm; page tables only read.  At most
 * *@budget PTE slots are read (whole tables; a step over a pmd, pud, p4d
 * or pgd without a table below counts 8, about its cost), and taken off
 * it: *@stop is where the
 * walk ended, @end unless the budget ran out first.  Unless @present is
 * NULL, the present PTEs are added there.
 */
unsigned long notrace
mmtune_count_old_ptes(struct mm_struct *mm, unsigned long addr, unsigned long end,
		      unsigned long *budget, unsigned long *stop,
		      unsigned long *present)
{
	unsigned long n = 0, slots = 0;
#if MMTUNE_HAVE_PTE_MKOLD
	unsigned long next;

	for (; addr < end && slots < *budget; addr = next) {
		pgd_t *pgd = pgd_offset(mm, addr);
		p4d_t *p4d;
		pud_t *pud;
		pte_t *pte;

		/*
		 * A step over a missing upper level costs 8 too: a sparse
		 * range of terabytes would otherwise be steps of no cost.
		 */
		slots += 8;
		next = pgd_addr_end(addr, end);
		if (pgd_none(READ_ONCE(*pgd)) || pgd_bad(READ_ONCE(*pgd)))
			continue;
		p4d = p4d_offset(pgd, addr);
		next = p4d_addr_end(addr, end);
		if (p4d_none(READ_ONCE(*p4d)) || p4d_bad(READ_ONCE(*p4d)))
			continue;
		pud = pud_offset(p4d, addr);
		next = pud_addr_end(addr, end);
		if (pud_none(READ_ONCE(*pud)) || pud_bad(READ_ONCE(*pud)))
			continue;
		slots -= 8;	/* a pmd: counted below */
		pte = mmtune_pmd_table(READ_ONCE(*pmd_offset(pud, addr)));
		next = pmd_addr_end(addr, end);
		if (!pte) {
			slots += 8;
			continue;
		}
		n += mmtune_count_old(pte + pte_index(addr),
				      (next - addr) >> PAGE_SHIFT);
		if (present)
			*present += mmtune_count_present(pte + pte_index(addr),
							 (next - addr) >> PAGE_SHIFT);
		slots += (next - addr) >> PAGE_SHIFT;
	}
#endif
	*budget -= min(slots, *budget);
	*stop = min(addr, end);
	return n;
}
