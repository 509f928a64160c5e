/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: what differs between kernel versions and architectures.
 *
 * This is the only file of the module that may know kernel versions or
 * architectures.  Everything else uses the helpers below.  Differences
 * are detected by feature (a macro, a Kconfig symbol, a kallsyms name)
 * rather than by LINUX_VERSION_CODE, which also works for backports;
 * the comments say which version brought what.
 *
 * Targets: Debian 6.1 (x86_64 and arm64 without DYNAMIC_FTRACE_WITH_ARGS),
 * 6.12 and 7.x (ftrace_regs opaque from 6.13 on, arm64 has WITH_ARGS but
 * not WITH_REGS), ppc64le (pt_regs inside ftrace_regs).
 */
#ifndef MMTUNE_COMPAT_H
#define MMTUNE_COMPAT_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

/* ---- compiler attributes ---- */

/* __no_stack_protector came to compiler_attributes.h within 6.1.y. */
#ifndef __no_stack_protector
#if __has_attribute(__no_stack_protector__)
#define __no_stack_protector	__attribute__((__no_stack_protector__))
#else
#define __no_stack_protector
#endif
#endif

/* ---- ftrace_regs: the traced function's arguments at its entry ---- */

/*
 * With DYNAMIC_FTRACE_WITH_ARGS the argument registers are saved for every
 * callback and restored from ftrace_regs when it returns, so a callback can
 * read and also change them.  Without it (arm64 before 6.2) only an ops
 * with FTRACE_OPS_FL_SAVE_REGS gets them, through a full pt_regs.
 * No FTRACE_OPS_FL_RECURSION: with it ftrace calls the ops' function
 * through ftrace_ops_assist_func (a recursion trylock, preemption off and
 * one more indirect call: 50 of the 143 instructions a hooked call cost
 * on 6.1 x86_64, bench/RESULTS.md).  The hooks' function cannot recurse
 * (its callbacks call nothing traceable) and keeps preemption off itself
 * (hooks.c).
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#define MMTUNE_FTRACE_OPS_FLAGS	0
#else
#define MMTUNE_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#endif

/* 6.13 made struct ftrace_regs opaque: arch_ftrace_regs() opens it. */
#ifdef arch_ftrace_regs
#define mmtune_arch_fregs(fregs)	arch_ftrace_regs(fregs)
#else
#define mmtune_arch_fregs(fregs)	(fregs)
#endif

/*
 * ftrace_regs_get_argument() came with 6.2: a macro on x86, powerpc and
 * for architectures without WITH_ARGS, an inline function on arm64 (which
 * has WITH_ARGS from 6.2 on) and riscv (WITH_ARGS from 6.8 on).  6.1 has
 * neither; there every ftrace_regs is a pt_regs (partly filled with
 * WITH_ARGS, the argument registers always).
 */
#if defined(CONFIG_S390)
/*
 * s390: arguments in r2..r6.  Its regs_get_kernel_argument() calls
 * regs_get_register(), which the kernel does not export.
 */
static __always_inline unsigned long mmtune_fregs_arg(struct ftrace_regs *fregs,
						      unsigned int n)
{
	return n < 5 ? mmtune_arch_fregs(fregs)->regs.gprs[2 + n] : 0;
}
#elif defined(ftrace_regs_get_argument) || \
	(defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)) || \
	(defined(CONFIG_RISCV) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
#define mmtune_fregs_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#elif defined(CONFIG_PPC64)
/* 6.1 powerpc has no regs_get_kernel_argument(): arguments are r3..r10 */
static __always_inline unsigned long mmtune_fregs_arg(struct ftrace_regs *fregs,
						      unsigned int n)
{
	return n < 8 ? fregs->regs.gpr[3 + n] : 0;
}
#else
#define mmtune_fregs_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Change argument @n (0-based) of the traced function before it runs.
 * Returns false where we do not know how (then nothing is changed).  The
 * hooks' self-test checks this on the running kernel before anyone may
 * rely on it (see mmtune_hooks_args_writable()).
 */
static __always_inline bool mmtune_fregs_set_arg(struct ftrace_regs *fregs,
						 unsigned int n,
						 unsigned long val)
{
#if defined(CONFIG_X86_64)
	/* pt_regs in every version; SysV ABI argument registers */
	struct pt_regs *regs = &mmtune_arch_fregs(fregs)->regs;

	switch (n) {
	case 0:
		regs->di = val;
		break;
	case 1:
		regs->si = val;
		break;
	case 2:
		regs->dx = val;
		break;
	case 3:
		regs->cx = val;
		break;
	case 4:
		regs->r8 = val;
		break;
	case 5:
		regs->r9 = val;
		break;
	default:
		return false;
	}
	return true;
#elif defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
	/* 6.2+: x0..x7 saved in ftrace_regs.regs[] */
	if (n >= 8)
		return false;
	mmtune_arch_fregs(fregs)->regs[n] = val;
	return true;
#elif defined(CONFIG_ARM64)
	/* 6.1: FTRACE_OPS_FL_SAVE_REGS, a full pt_regs */
	if (n >= 8)
		return false;
	fregs->regs.regs[n] = val;
	return true;
#elif defined(CONFIG_PPC64)
	/* pt_regs; arguments in r3..r10 */
	if (n >= 8)
		return false;
	mmtune_arch_fregs(fregs)->regs.gpr[3 + n] = val;
	return true;
#elif defined(CONFIG_RISCV) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
	/* a0..a7 saved in ftrace_regs.args[] */
	if (n >= 8)
		return false;
	mmtune_arch_fregs(fregs)->args[n] = val;
	return true;
#elif defined(CONFIG_S390)
	/* pt_regs; arguments in r2..r6 */
	if (n >= 5)
		return false;
	mmtune_arch_fregs(fregs)->regs.gprs[2 + n] = val;
	return true;
#else
	return false;
#endif
}

/* ---- where fault-around sets PTEs ---- */

/*
 * The function that fills the PTEs of file pages, called from
 * filemap_map_pages (directly or through its static helpers) and from
 * finish_fault.  Looked up by name, newest first:
 *   set_pte_range(vmf, folio, page, nr, addr)   6.5+: @nr pages (arg 3)
 *   do_set_pte(vmf, page, addr)                 up to 6.4: one page
 * nr_arg < 0 means "one page per call".
 */
struct mmtune_set_pte_fn {
	const char *name;
	int nr_arg;
};

static const struct mmtune_set_pte_fn mmtune_set_pte_fns[] __maybe_unused = {
	{ "set_pte_range", 3 },
	{ "do_set_pte", -1 },
};

/*
 * The functions from which a call to the PTE setter is fault-around's:
 * filemap_map_pages itself and, from 6.6 on, its static helpers (when
 * the compiler kept them out of line, possibly with a suffix).
 */
static const char *const mmtune_fault_around_callers[] __maybe_unused = {
	"filemap_map_pages",
	"filemap_map_folio_range",
	"filemap_map_order0_folio",
};

/*
 * Where the kernel zaps a range of one VMA's page tables, all with the
 * arguments (tlb, vma, start, end, details), newest last:
 *   unmap_page_range   up to 6.x (global, mm/internal.h)
 *   __zap_vma_range    7.x: unmap_single_vma renamed, unmap_page_range
 *                      inlined into it (static)
 */
static const char *const mmtune_zap_fns[] __maybe_unused = {
	"unmap_page_range",
	"__zap_vma_range",
};

/* Suffixes the compiler gives to a specialised copy of a function. */
static const char *const mmtune_cc_suffixes[] __maybe_unused = {
	".isra.0", ".constprop.0", ".part.0", ".cold",
};

/* ---- kretprobe ---- */

/*
 * Instances a kretprobe preallocates.  A fault may sleep (I/O, page lock)
 * inside handle_mm_fault, so allow several per CPU; a call that finds none
 * free is counted in nmissed, which the latency file shows.
 */
#define MMTUNE_KRETPROBE_MAXACTIVE	(4 * num_possible_cpus() + 64)

/*
 * Argument @n of a probed function, read in a kretprobe's entry handler:
 * x86_64 and arm64 only, where it is used (usefulness.c); 6.1 s390x and
 * ppc64le give modules no regs_get_kernel_argument().
 */
static __always_inline unsigned long mmtune_entry_arg(struct pt_regs *regs,
						      unsigned int n)
{
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
	return regs_get_kernel_argument(regs, n);
#else
	return 0;
#endif
}

/* ---- a PTE's accessed bit (usefulness.c) ---- */

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
#include <linux/pgtable.h>

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

/*
 * Old present PTEs in [addr, end) of @mm; page tables only read.  At most
 * *@budget PTE slots are read (whole tables; a step over a pmd, pud, p4d
 * or pgd without a table below counts 8, about its cost), and taken off
 * it: *@stop is where the
 * walk ended, @end unless the budget ran out first.  With @present, the
 * present PTEs are added there (a constant NULL compiles it out).
 */
static __always_inline unsigned long
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

/* ---- filemap_map_pages' closing tracepoint (usefulness.c) ---- */

/*
 * mm_filemap_map_pages (6.11) fires at the end of filemap_map_pages when
 * it mapped anything.  Kbuild defines MMTUNE_HAVE_TP_MAP_PAGES, for
 * usefulness.o alone (no other file includes an event header here), where
 * the kernel's headers declare it.  Then whether @probe has the prototype
 * that declaration registers is known at build time: a kernel that
 * changed it gets the kretprobe, not a probe called with other arguments.
 */
#ifdef MMTUNE_HAVE_TP_MAP_PAGES
#include <trace/events/filemap.h>
#define mmtune_map_pages_probe_ok(probe)				\
	__builtin_types_compatible_p(typeof(register_trace_mm_filemap_map_pages), \
				     int (typeof(probe) *, void *))
#else
#define mmtune_map_pages_probe_ok(probe)	0
#endif

/* ---- large folios mapped whole (usefulness.c) ---- */

/*
 * From 6.18 filemap_map_pages (filemap_map_folio_range) maps the whole of
 * a large folio its window reaches, when the folio lies in the VMA and in
 * one page table: pages past the window, which fault-around maps ahead
 * too.  It is a change inside mm/filemap.c that no header, symbol or
 * Kconfig shows: Kbuild defines MMTUNE_MAPS_WHOLE_FOLIO for usefulness.o
 * from the kernel's version (Debian has not backported it to an earlier
 * series).
 */
#ifndef MMTUNE_MAPS_WHOLE_FOLIO
#define MMTUNE_MAPS_WHOLE_FOLIO	0
#endif

/* ---- redirecting a traced function (pfn_valid/pfn_valid.c's override) ---- */

/*
 * Make the traced function continue in another one of the same prototype,
 * by setting the instruction pointer the ftrace trampoline returns to, as
 * livepatch does.  With DYNAMIC_FTRACE_WITH_REGS (x86_64 in every version,
 * arm64 up to 6.1) an ops with SAVE_REGS gets a full pt_regs whose ip the
 * trampoline returns to; with only WITH_ARGS (arm64 from 6.2) ftrace_regs
 * carries it, set by ftrace_regs_set_instruction_pointer() (6.2 renamed
 * ftrace_instruction_pointer_set() to that).  ppc64: the trampoline does
 * not switch the TOC to a module's (only livepatch's stub does), so no.
 */
#if defined(CONFIG_PPC64)
#define MMTUNE_FTRACE_REDIRECT		0
#define MMTUNE_FTRACE_REDIRECT_WHY	"ppc64: ftrace cannot enter module code without livepatch's TOC stub"
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define MMTUNE_FTRACE_REDIRECT		1
#define MMTUNE_FTRACE_REDIRECT_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | \
					 FTRACE_OPS_FL_IPMODIFY)
static __always_inline bool mmtune_ftrace_redirect(struct ftrace_regs *fregs,
						   unsigned long ip)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (!regs)
		return false;
	instruction_pointer_set(regs, ip);
	return true;
}
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
/* Only kernels from 6.2 on have WITH_ARGS without WITH_REGS. */
#define MMTUNE_FTRACE_REDIRECT		1
#define MMTUNE_FTRACE_REDIRECT_FLAGS	FTRACE_OPS_FL_IPMODIFY
static __always_inline bool mmtune_ftrace_redirect(struct ftrace_regs *fregs,
						   unsigned long ip)
{
	ftrace_regs_set_instruction_pointer(fregs, ip);
	return true;
}
#else
#define MMTUNE_FTRACE_REDIRECT		0
#define MMTUNE_FTRACE_REDIRECT_WHY	"ftrace cannot set the instruction pointer on this kernel"
#endif

/* ---- get_dev_pagemap() ---- */

/*
 * get_dev_pagemap(pfn, pgmap) lost its second argument (always NULL here)
 * between 6.12 and 7.3.  No macro tells, so the prototype picks the call;
 * both calls must compile, hence through a pointer the compiler cannot see
 * through (no "called through a non-compatible type" for the dead one).
 */
#include <linux/memremap.h>
typedef struct dev_pagemap *(*mmtune_gdp1_t)(unsigned long pfn);
typedef struct dev_pagemap *(*mmtune_gdp2_t)(unsigned long pfn,
					     struct dev_pagemap *pgmap);

static __always_inline struct dev_pagemap *
mmtune_get_dev_pagemap(unsigned long pfn)
{
	void *fn = (void *)get_dev_pagemap;

	OPTIMIZER_HIDE_VAR(fn);
	if (__builtin_types_compatible_p(typeof(get_dev_pagemap) *,
					 mmtune_gdp1_t))
		return ((mmtune_gdp1_t)fn)(pfn);
	return ((mmtune_gdp2_t)fn)(pfn, NULL);
}

/* ---- shmem_file_setup() ---- */

/*
 * 7.x made VMA flags a vma_flags_t (EMPTY_VMA_FLAGS came with it) and
 * shmem_file_setup() takes one; before, an unsigned long VM_* mask.
 */
#include <linux/shmem_fs.h>
static inline struct file *mmtune_shmem_file_setup(const char *name,
						   loff_t size)
{
#ifdef EMPTY_VMA_FLAGS
	return shmem_file_setup(name, size, mk_vma_flags(VMA_NORESERVE_BIT));
#else
	return shmem_file_setup(name, size, VM_NORESERVE);
#endif
}

/*
 * ---- the kernel's page-fault count ----
 *
 * PGFAULT of the per-CPU vm_event_states (exported; /proc/vmstat pgfault),
 * summed.  A dead CPU's events move to a live one's under the hotplug
 * lock, so the sum is taken under it.  Without CONFIG_VM_EVENT_COUNTERS
 * (only EXPERT kernels) there is no count: 0, and stats says
 * "unavailable" (stats.c).
 */
#include <linux/cpu.h>
#include <linux/vmstat.h>

static inline u64 mmtune_kernel_pgfaults(void)
{
	u64 n = 0;
#ifdef CONFIG_VM_EVENT_COUNTERS
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(vm_event_states, cpu).event[PGFAULT]);
	cpus_read_unlock();
#endif
	return n;
}

/*
 * Pages reclaim scanned (pgscan_kswapd + pgscan_direct), summed as above:
 * reclaim clears accessed bits, which the usefulness count reads.
 */
static inline u64 mmtune_kernel_pgscan(void)
{
	u64 n = 0;
#ifdef CONFIG_VM_EVENT_COUNTERS
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		const struct vm_event_state *e = &per_cpu(vm_event_states, cpu);

		n += READ_ONCE(e->event[PGSCAN_KSWAPD]) +
		     READ_ONCE(e->event[PGSCAN_DIRECT]);
	}
	cpus_read_unlock();
#endif
	return n;
}

/* ---- ftrace direct calls ---- */

/*
 * An ftrace direct call patches the function's fentry site into a call of
 * a trampoline of ours: no ftrace trampoline, no ops function in between
 * (79 of the 79+118 instructions one policy rule cost at order 4 on 6.1
 * x86_64 were those two).  The trampoline saves the argument registers as
 * an array on its stack, calls ENTRY with that array's address (ENTRY may
 * change an argument there) and restores them.  Above the array it keeps
 * MMTUNE_DIRECT_SCRATCH bytes for ENTRY's own use (hooks.c: the call's
 * state, which on ENTRY's stack would be zeroed by INIT_STACK_ALL_ZERO and
 * guarded by the stack protector at every call).  x86_64 (every Debian
 * kernel has DYNAMIC_FTRACE_WITH_DIRECT_CALLS there) and arm64 (from 6.12
 * on; 6.1 has none).  6.1 has the ops form as
 * register_ftrace_direct_multi() (the Kbuild sees it in ftrace.h:
 * MMTUNE_DIRECT_MULTI); 6.4 renamed it register_ftrace_direct() and gave
 * unregister a free_filters argument.  Each registration overwrites the
 * ops' flags and function: a direct ops is used for nothing else.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define MMTUNE_HAVE_DIRECT	1
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#include <linux/stringify.h>

#define MMTUNE_DIRECT_NR_ARGS	4
#define MMTUNE_DIRECT_SCRATCH	64

/* 6.2: the return-stack depth count of call depth tracking */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT	""
#endif

/*
 * TRAMP saves rdi, rsi, rdx, rcx (arguments 0..3, in that order from its
 * stack pointer up, the scratch above) in a frame of its own, so
 * unwinders see it.  ENTRY may clobber every other caller-saved register:
 * a function with a direct call takes at most MMTUNE_DIRECT_NR_ARGS
 * arguments.  Aligned: from 6.19 (DYNAMIC_FTRACE_WITH_JMP) ftrace
 * takes an odd address for "jump to address - 1", not "call".
 */
#define MMTUNE_DIRECT_TRAMP(tramp, entry)				\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type " #tramp ", @function\n"				\
	    ".globl " #tramp "\n"					\
	    ".balign 16\n"						\
	    #tramp ":\n"						\
	    ASM_ENDBR							\
	    "pushq %rbp\n"						\
	    "movq %rsp, %rbp\n"						\
	    CALL_DEPTH_ACCOUNT						\
	    "subq $" __stringify(MMTUNE_DIRECT_SCRATCH) ", %rsp\n"	\
	    "pushq %rcx\n"						\
	    "pushq %rdx\n"						\
	    "pushq %rsi\n"						\
	    "pushq %rdi\n"						\
	    "movq %rsp, %rdi\n"						\
	    "call " #entry "\n"						\
	    "popq %rdi\n"						\
	    "popq %rsi\n"						\
	    "popq %rdx\n"						\
	    "popq %rcx\n"						\
	    "leave\n"							\
	    ASM_RET							\
	    ".size " #tramp ", .-" #tramp "\n"				\
	    ".popsection\n")
#elif defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define MMTUNE_HAVE_DIRECT	1
#include <linux/stringify.h>

#define MMTUNE_DIRECT_NR_ARGS	4
#define MMTUNE_DIRECT_SCRATCH	64

/*
 * The patched site calls TRAMP with x30 its return into the function and
 * x9 the function's own return address (the caller's lr): TRAMP saves
 * x0..x3 (arguments 0..3 from its stack pointer up, the scratch above,
 * then x9 and x30), and returns into the function with x30 as the
 * function must find it.  As on x86_64, a function with a direct call
 * takes at most MMTUNE_DIRECT_NR_ARGS arguments.  "bti c": the site may
 * reach it through ftrace_caller's br.
 */
#define MMTUNE_DIRECT_FRAME	(4 * 8 + MMTUNE_DIRECT_SCRATCH + 16)
#define MMTUNE_DIRECT_TRAMP(tramp, entry)				\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type " #tramp ", %function\n"				\
	    ".globl " #tramp "\n"					\
	    ".balign 16\n"						\
	    #tramp ":\n"						\
	    "hint 34\n"							\
	    "sub sp, sp, #" __stringify(MMTUNE_DIRECT_FRAME) "\n"	\
	    "stp x9, x30, [sp, #" __stringify(MMTUNE_DIRECT_FRAME - 16) "]\n" \
	    "stp x0, x1, [sp]\n"					\
	    "stp x2, x3, [sp, #16]\n"					\
	    "mov x0, sp\n"						\
	    "bl " #entry "\n"						\
	    "ldp x0, x1, [sp]\n"					\
	    "ldp x2, x3, [sp, #16]\n"					\
	    "ldp x30, x9, [sp, #" __stringify(MMTUNE_DIRECT_FRAME - 16) "]\n" \
	    "add sp, sp, #" __stringify(MMTUNE_DIRECT_FRAME) "\n"	\
	    "ret x9\n"							\
	    ".size " #tramp ", .-" #tramp "\n"				\
	    ".popsection\n")
#endif

#ifdef MMTUNE_HAVE_DIRECT
static inline int mmtune_register_direct(struct ftrace_ops *ops,
					 unsigned long tramp)
{
#ifdef MMTUNE_DIRECT_MULTI
	return register_ftrace_direct_multi(ops, tramp);
#else
	return register_ftrace_direct(ops, tramp);
#endif
}

/* Also frees the ops' filter, for the next registration. */
static inline void mmtune_unregister_direct(struct ftrace_ops *ops,
					    unsigned long tramp)
{
#ifdef MMTUNE_DIRECT_MULTI
	unregister_ftrace_direct_multi(ops, tramp);
	ftrace_free_filter(ops);
#else
	unregister_ftrace_direct(ops, tramp, true);
#endif
}
#else
#define MMTUNE_HAVE_DIRECT	0
#define MMTUNE_DIRECT_NR_ARGS	0
#define MMTUNE_DIRECT_SCRATCH	0
#define MMTUNE_DIRECT_TRAMP(tramp, entry)
static inline int mmtune_register_direct(struct ftrace_ops *ops,
					 unsigned long tramp)
{
	return -EOPNOTSUPP;
}

static inline void mmtune_unregister_direct(struct ftrace_ops *ops,
					    unsigned long tramp)
{
}
#endif

#endif /* MMTUNE_COMPAT_H */
