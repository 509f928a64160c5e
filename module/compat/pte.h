/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: a PTE's accessed bit, which the usefulness measurement
 * clears on the pages fault-around pre-maps and reads back at unmap
 * (usefulness_path.c, rss.c, pgwalk.c).  Only x86_64 and arm64 let a module
 * clear it; arm64 from 6.9 also folds contiguous PTEs into blocks with
 * one accessed bit (CONFIG_ARM64_CONTPTE).
 */
#ifndef MMTUNE_COMPAT_PTE_H
#define MMTUNE_COMPAT_PTE_H

#include <linux/pgtable.h>

/*
 * Clear the accessed ("young") bit of a present PTE, atomically against
 * the hardware setting it or the dirty bit: x86's
 * ptep_test_and_clear_young() is not exported (it is this bit operation),
 * arm64's is inline (with its contiguous-PTE case).  No TLB flush: the
 * caller clears a PTE fault-around has just set, before the faulting
 * thread returns to user space (usefulness.c says what another thread
 * of the process can do meanwhile).  Elsewhere the usefulness measurement
 * is unavailable.
 */

#if defined(CONFIG_X86_64)
#define MMTUNE_HAVE_PTE_MKOLD	1
static __always_inline void mmtune_pte_mkold(struct vm_area_struct *vma,
					     unsigned long addr, pte_t *ptep)
{
	clear_bit(_PAGE_BIT_ACCESSED, (unsigned long *)&ptep->pte);
}
#elif defined(CONFIG_ARM64)
#define MMTUNE_HAVE_PTE_MKOLD	1
static __always_inline void mmtune_pte_mkold(struct vm_area_struct *vma,
					     unsigned long addr, pte_t *ptep)
{
	ptep_test_and_clear_young(vma, addr, ptep);
}
#else
#define MMTUNE_HAVE_PTE_MKOLD	0
static __always_inline void mmtune_pte_mkold(struct vm_area_struct *vma,
					     unsigned long addr, pte_t *ptep)
{
}
#endif

/*
 * arm64's contiguous PTEs (CONFIG_ARM64_CONTPTE, 6.9 on): the kernel folds
 * a naturally aligned block of CONT_PTES PTEs (16 with 4 KiB pages) that
 * map one folio into one TLB entry, and the block has one access flag:
 * the hardware sets it in any of the block's PTEs, ptep_get() ORs it over
 * them, ptep_test_and_clear_young() clears all of them.  A page of a
 * folded block cannot be judged alone (one touch would mark 16 pages
 * touched; making a pre-mapped page old would make the faulting page old
 * too).  So the blocks of @nr PTEs from @ptep (at @addr) are unfolded
 * first, as the kernel unfolds one before it changes a single PTE of it
 * (a break-before-make of the block and a TLB flush of its range; its
 * access and dirty bits go to every PTE), and then judged page by page.
 * The caller holds the page table lock.  Returns the blocks unfolded.  The
 * kernel folds a block again only when one of its PTEs is set anew (an
 * mprotect, say): its pages then read as one at unmap.
 */
static __always_inline unsigned int mmtune_unfold(struct mm_struct *mm,
						  unsigned long addr,
						  pte_t *ptep, unsigned int nr)
{
	unsigned int n = 0;
#ifdef CONFIG_ARM64_CONTPTE
	unsigned int i = 0;
	pte_t v;

	while (i < nr) {
		v = __ptep_get(ptep + i);
		if (pte_valid_cont(v)) {
			__contpte_try_unfold(mm, addr + i * PAGE_SIZE, ptep + i, v);
			n++;
		}
		/* the next block: a block is folded or not as a whole */
		i += CONT_PTES - (((addr >> PAGE_SHIFT) + i) & (CONT_PTES - 1));
	}
#endif
	return n;
}

/*
 * The most pages of one fault-around call that the measurement marks: a
 * page table's worth (fault-around never crosses one), 512 with 4 KiB
 * pages, 2048 with arm64's 16 KiB (its max_order 11), so every order a
 * rule can have is measured.  A constant where the measurement is built;
 * elsewhere (ppc64's is a variable) nothing is marked.
 */
#if MMTUNE_HAVE_PTE_MKOLD
#define MMTUNE_MARK_MAX	PTRS_PER_PTE
#else
#define MMTUNE_MARK_MAX	1
#endif

#endif /* MMTUNE_COMPAT_PTE_H */
