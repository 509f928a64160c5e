/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: a read-only walk of a process's page tables that counts old
 * PTEs, present ones whose accessed bit is clear: the pre-mapped pages
 * nobody touched.  usefulness_path.c walks the range of each unmap (zap),
 * live.c the file mappings of the live processes of order=auto rules,
 * rss.c those of the processes its debugfs file shows.  Built where the
 * measurement clears accessed bits (compat/pte.h's MMTUNE_HAVE_PTE_MKOLD);
 * elsewhere it counts none.
 *
 * The walk is pgwalk.c's.  The helpers here are inline because
 * usefulness_path.c calls them on the fault's hot path: mmtune_pmd_table() and
 * mmtune_ptes_none8() at every fault-around call it marks,
 * mmtune_vma_judged() at every zap; a call would cost more than their
 * work.
 */
#ifndef MMTUNE_PGWALK_H
#define MMTUNE_PGWALK_H

#include <linux/mm.h>
#include <linux/pgtable.h>

#include "compat/pte.h"

/*
 * The PTE table a pmd value points to; NULL if none, or a huge mapping
 * (the faulting folio's, never pre-mapped).  The caller keeps the table
 * (its mmap or VMA lock, with preemption off against a table freed by
 * RCU).  Built where the measurement is (x86_64, arm64): elsewhere
 * p4d_offset() and pud_offset() may not be callable from a module (6.12
 * riscv64).
 */
static __always_inline pte_t *mmtune_pmd_table(pmd_t pmd)
{
#if MMTUNE_HAVE_PTE_MKOLD
	if (pmd_none(pmd) || !pmd_present(pmd) || pmd_trans_huge(pmd) ||
	    pmd_bad(pmd))
		return NULL;
	return (pte_t *)pmd_page_vaddr(pmd);
#else
	return NULL;
#endif
}

#if MMTUNE_HAVE_PTE_MKOLD
/*
 * Whether the eight PTE slots from @pte, a cache line, are all empty, in
 * one test of their raw values (3 instructions a slot on x86_64, not 8;
 * an empty slot is all zero on x86_64 and arm64, where this is built).
 */
static __always_inline bool mmtune_ptes_none8(const pte_t *pte)
{
	const pteval_t *w = &pte->pte;

	return !(READ_ONCE(w[0]) | READ_ONCE(w[1]) | READ_ONCE(w[2]) |
		 READ_ONCE(w[3]) | READ_ONCE(w[4]) | READ_ONCE(w[5]) |
		 READ_ONCE(w[6]) | READ_ONCE(w[7]));
}
#else
/* nothing is marked here (MMTUNE_HAVE_PTE_MKOLD 0): never called */
static __always_inline bool mmtune_ptes_none8(const pte_t *pte)
{
	return false;
}
#endif

/* A mapping whose pre-mapped pages are judged: a file's, with struct pages */
static __always_inline bool mmtune_vma_judged(const struct vm_area_struct *vma)
{
	return vma->vm_file &&
	       !(vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP | VM_IO | VM_HUGETLB));
}

/* Old present PTEs in [addr, end) of @mm, within a budget (pgwalk.c). */
unsigned long mmtune_count_old_ptes(struct mm_struct *mm, unsigned long addr,
				    unsigned long end, unsigned long *budget,
				    unsigned long *stop, unsigned long *present);

#endif /* MMTUNE_PGWALK_H */
