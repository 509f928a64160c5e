// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: fault-around's usefulness.  Of the pages fault-around maps
 * ahead of a process (every page of its window but the one that
 * faulted), how many does the process touch before they are unmapped?
 *
 * The hardware answers it, with the accessed ("young") bit of each PTE,
 * if the pre-mapped PTEs start old.  arm64 maps them old where its CPU
 * sets the bit itself, but not those in the faulting folio's run (6.5+);
 * x86 maps every one young.  So while the measurement is on:
 *
 *  - around filemap_map_pages (a kretprobe): at its entry, which PTEs of
 *    its window (as the policy narrows it: the kernel's size is raised
 *    to the largest rule's, and a walk of that would cost a rule of
 *    order 0 512 PTE reads a fault) are not empty; at its return, each
 *    that it filled but the faulting page's has its accessed bit
 *    cleared, under the page table lock, and is counted: "prefaulted".
 *    The faulting thread has not returned to user space, so no access of
 *    its own is lost.  From 6.18 the call also maps the whole of a large
 *    folio the window reaches (in the VMA and the page table): the
 *    window's end folios are looked up at entry, the range widened to
 *    them, and their pages past the window counted apart too
 *    ("beyond_window").  On arm64 without a hardware access flag the
 *    process's first touch of such a page is an access-flag fault (a
 *    minor fault, counted as one).
 *
 *  - at the entry of unmap_page_range (7.x: __zap_vma_range, the same
 *    arguments; ftrace), before the zap of a file
 *    mapping's range (munmap, exit, MADV_DONTNEED, truncation), every
 *    present PTE in the range that is still old is counted: "untouched".
 *    The faulting page and every other page the kernel maps are young,
 *    so an old PTE is a pre-mapped page nobody touched.
 *
 * useful = (prefaulted - untouched) / prefaulted, exact for the pages
 * that were both mapped and unmapped while the measurement was on, when
 * nothing else cleared accessed bits: reclaim (and MGLRU's aging, page
 * idle tracking and DAMON) do, and a touched page they aged reads as
 * untouched (a pre-mapped page that reclaim then took away reads as
 * touched).  So the file shows the pages reclaim scanned meanwhile
 * (reclaim_scanned): 0 means the figure is exact.  Pages still mapped are
 * judged when they are unmapped: read after the workload's exit.
 *
 * Why this and not a per-page record: the two counts need no memory per
 * page, nothing on the fault path but two reads of the window's PTEs and
 * the bit clear, and no walk of any process's page tables but those the
 * kernel is about to zap (under the same locks the zap holds).  The
 * price is the assumption above, which the reclaim figure makes
 * checkable, and that a PTE counts once, at its unmap.
 *
 * Why around filemap_map_pages and not at the PTE setter's return (where
 * it was first): the setter maps one page per call (6.1, and every
 * small folio later), so a probe there cost a kprobe hit per page, up to
 * 511 per fault at order 9 (2.1 times the kernel's instructions per
 * fault under make bench); this costs one per fault-around.  The price:
 * between filemap_map_pages dropping the page table lock and the return
 * handler taking it, another thread of the process may load one of the
 * new PTEs into its TLB; x86 then clears the bit without a flush, and
 * that thread's touches until the entry leaves its TLB go unseen (the
 * page reads untouched).  A window of a few hundred instructions, for
 * threads faulting in the same 2 MiB at the same moment.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <linux/xarray.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "compat.h"
#include "hooks.h"
#include "auto.h"

struct useful_pcpu {
	u64 prefaulted;		/* pre-mapped PTEs made old */
	u64 untouched;		/* old PTEs found at unmap */
	u64 zaps;		/* unmap_page_range calls on file mappings */
	u64 unjudged;		/* pages of their ranges past the walk's budget */
	u64 cut;		/* zaps whose walk the budget cut short */
	u64 missed;		/* ends seen without their entry's stash */
	u64 beyond;		/* of prefaulted: whole folios past the window */
	u64 unfolded;		/* arm64's contiguous blocks split to judge */
	u64 unattributed;	/* of untouched: in no rule's (policy.c) */
};

static struct useful_pcpu __percpu *useful_pcpu;
/* The most PTE slots one zap's walk read, and its time, since enable */
static unsigned long walk_max_slots;
static u64 walk_max_ns;

static DEFINE_MUTEX(useful_lock);
static bool useful_on;		/* under useful_lock */
static u64 pgscan_from;		/* the kernel's pgscan at enable */
static unsigned long missed_from;	/* the kretprobe's at enable */
static enum { USEFUL_LOADING, USEFUL_READY, USEFUL_GONE } useful_state;
static int pending_enable = -1;

/* ---- the fault path ---- */

/* The most pages of one call (compat.h): every order a rule can have */
#define MARK_MAX	MMTUNE_MARK_MAX

struct mark_data {
	struct vm_area_struct *vma;
	pmd_t *pmdp;
	pmd_t pmd;			/* *@pmdp at entry */
	pte_t *table;			/* its PTE table then, or NULL */
	unsigned long start, fault;
	unsigned int nr;
	unsigned int wlo, whi;		/* the window's slots: [wlo, whi] */
	bool had_any;			/* a bit of @had is set */
	DECLARE_BITMAP(had, MARK_MAX);	/* PTEs not empty at entry */
};

/*
 * The entry of @xas's xarray at @index, read from the node @xas's last
 * load ended in when that node holds @index too (a window's ends are
 * mostly in one node: its 64 slots are neighbouring indices), else
 * XA_RETRY_ENTRY.  A slot read instead of a walk from the root, as
 * xas_reload() reads one; an internal entry (a child node, a retry) sends
 * the caller to xas_load().  Under RCU.
 */
static __always_inline void *xas_neighbour(const struct xa_state *xas,
					   unsigned long index)
{
	struct xa_node *node = xas->xa_node;
	unsigned int shift;
	void *e;

	if (!xas_is_node(xas))
		return XA_RETRY_ENTRY;
	shift = node->shift;
	if ((index ^ xas->xa_index) >> shift >> XA_CHUNK_SHIFT)
		return XA_RETRY_ENTRY;
	e = xa_entry(xas->xa, node, (index >> shift) & XA_CHUNK_MASK);
	if (xa_is_sibling(e))
		e = xa_entry(xas->xa, node, xa_to_sibling(e));
	return e;
}

/* xa_load() within the caller's RCU section, @xas left where it ended */
static __always_inline void *xas_load_at(struct xa_state *xas,
					 unsigned long index)
{
	void *e;

	xas_set(xas, index);
	do {
		e = xas_load(xas);
		if (xa_is_zero(e))
			e = NULL;
	} while (xas_retry(xas, e));
	return e;
}

static __always_inline bool is_large_folio(const void *e)
{
	return e && !xa_is_value(e) && folio_test_large((struct folio *)e);
}

/*
 * [*@first, *@last] widened to the large folios of @mapping at its ends,
 * within [@lo, @hi]: one walk from the root for the first page, a slot of
 * the node it ended in for the last (or none: the first page's folio may
 * hold the last one too).  A folio freed meanwhile only bounds slots.
 */
static __always_inline void widen_in(struct address_space *mapping,
				     unsigned long *first, unsigned long *last,
				     unsigned long lo, unsigned long hi)
{
	XA_STATE(xas, &mapping->i_pages, *first);
	struct folio *f;

	rcu_read_lock();
	f = xas_load_at(&xas, *first);
	if (is_large_folio(f) && f->index < *first)
		*first = max(lo, f->index);
	if (!is_large_folio(f) || f->index + folio_nr_pages(f) <= *last) {
		f = xas_neighbour(&xas, *last);
		if (xa_is_internal(f))
			f = xas_load_at(&xas, *last);
	}
	if (is_large_folio(f))
		*last = min(hi, f->index + folio_nr_pages(f) - 1);
	rcu_read_unlock();
}

/*
 * [*@first, *@last] widened to the large folios at its ends, within the
 * VMA and the faulting page's table: what filemap_map_pages may map from
 * 6.18 (the folios inside the window are in it already).  A folio that
 * crosses the VMA or the table is mapped in the window alone: its slots
 * past the window stay as they were, and none is counted.
 */
static __always_inline void widen_to_folios(struct vm_fault *vmf,
					    unsigned long *first,
					    unsigned long *last)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long pi = (vmf->address >> PAGE_SHIFT) & (PTRS_PER_PTE - 1);
	unsigned long lo, hi, vend = vma->vm_pgoff + vma_pages(vma) - 1;

	/*
	 * A mapping that never holds large folios looks nothing up.  Few
	 * are left by 6.18: every tmpfs file (whatever its huge=) and most
	 * ext4 and xfs files allow them, so nearly every call pays the
	 * lookups (make bench's u).
	 */
	if (!MMTUNE_MAPS_WHOLE_FOLIO || !vma->vm_file ||
	    !mapping_large_folio_support(vma->vm_file->f_mapping))
		return;
	lo = vmf->pgoff - min(pi, vmf->pgoff - vma->vm_pgoff);
	hi = vmf->pgoff + min(PTRS_PER_PTE - 1 - pi, vend - vmf->pgoff);
	widen_in(vma->vm_file->f_mapping, first, last, lo, hi);
}

/*
 * Into @d, the window filemap_map_pages(@vmf, @first, @last) maps (and
 * the large folios at its ends, widen_to_folios()) and which of its PTEs
 * are not empty at the call's entry; false if there is nothing to mark at
 * its end.
 */
static __always_inline bool mark_begin(struct mark_data *d,
				       struct vm_fault *vmf,
				       unsigned long first, unsigned long last)
{
	unsigned long end, wfirst = first, wlast = last;
	unsigned int i;
	pte_t *pte;

	if (last < first || last - first >= MARK_MAX ||
	    first < vmf->vma->vm_pgoff)
		return false;
	widen_to_folios(vmf, &first, &last);
	if (last == first) {
		/*
		 * Order 0 (a rule's, under the raised kernel size): nothing
		 * is pre-mapped, no end to see; the process still counts
		 * for an auto rule as one that ran at order 0 (auto.c).
		 */
		mmtune_policy_prefaulted(vmf->vma->vm_mm, 0);
		return false;
	}
	d->vma = vmf->vma;
	d->pmdp = vmf->pmd;
	d->fault = vmf->address & PAGE_MASK;
	d->start = d->vma->vm_start + ((first - d->vma->vm_pgoff) << PAGE_SHIFT);
	d->nr = last - first + 1;
	d->wlo = wfirst - first;
	d->whi = wlast - first;
	end = d->start + ((unsigned long)d->nr << PAGE_SHIFT);
	/* do_fault_around keeps the window in the faulting page's table */
	if (((d->start ^ d->fault) | ((end - 1) ^ d->fault)) & PMD_MASK)
		return false;
	/* the words in use only: a memset call costs more than the window */
	for (i = 0; i < BITS_TO_LONGS(d->nr); i++)
		d->had[i] = 0;
	d->had_any = false;
	d->pmd = READ_ONCE(*d->pmdp);
	d->table = mmtune_pmd_table(d->pmd);
	if (!d->table)
		return true;
	pte = d->table;
	pte += pte_index(d->start);
	/* a window is mostly empty at entry: eight slots a test */
	for (i = 0; i < d->nr; i++) {
		if (!(i & 7) && i + 8 <= d->nr && mmtune_ptes_none8(pte + i)) {
			i += 7;
			continue;
		}
		if (!pte_none(ptep_get(pte + i))) {
			__set_bit(i, d->had);
			d->had_any = true;
		}
	}
	return true;
}

/* Make old the present PTEs of slots [@from, @to) not filled at entry */
static __always_inline unsigned int mark_range(const struct mark_data *d,
					       pte_t *pte, unsigned long from,
					       unsigned long to)
{
	unsigned int n = 0;
	unsigned long i;

	if (unlikely(d->had_any)) {
		for (i = from; i < to; i++) {
			if (test_bit(i, d->had) || !pte_present(ptep_get(pte + i)))
				continue;
			mmtune_pte_mkold(d->vma, d->start + i * PAGE_SIZE, pte + i);
			n++;
		}
		return n;
	}
	/* the window was empty at entry: each present PTE is the call's */
	for (i = from; i < to; i++) {
		if (!pte_present(ptep_get(pte + i)))
			continue;
		mmtune_pte_mkold(d->vma, d->start + i * PAGE_SIZE, pte + i);
		n++;
	}
	return n;
}

/* At the call's end: the window's PTEs it filled, but the faulting one's */
static __always_inline void mark_end(const struct mark_data *d)
{
	pmd_t pmd = READ_ONCE(*d->pmdp);
	/* the table of entry, unless the call put one in (the first fault there) */
	pte_t *pte = d->table && pmd_same(pmd, d->pmd) ? d->table :
		     mmtune_pmd_table(pmd);
	unsigned int n = 0, b = 0, unf = 0;
	/* the faulting page's slot: do_fault_around's window holds it */
	unsigned long fi = min_t(unsigned long, d->nr,
				 (d->fault - d->start) >> PAGE_SHIFT);
	spinlock_t *ptl;		/* the table's, as filemap_map_pages took it */

	/* nothing marked here: and no pte_lockptr (ppc64's pmd_page) linked */
	if (!MMTUNE_HAVE_PTE_MKOLD || !pte)
		return;
	ptl = pte_lockptr(d->vma->vm_mm, &pmd);
	spin_lock(ptl);
	if (pmd_same(pmd, READ_ONCE(*d->pmdp))) {
		pte += pte_index(d->start);
		/* arm64: its contiguous blocks have one accessed bit */
		unf = mmtune_unfold(d->vma->vm_mm, d->start, pte, d->nr);
		n = mark_range(d, pte, d->wlo, fi) + mark_range(d, pte, fi + 1, d->whi + 1);
		/* whole folios, past the window (from 6.18) */
		if (d->wlo || d->whi + 1 != d->nr)
			b = mark_range(d, pte, 0, d->wlo) +
			    mark_range(d, pte, d->whi + 1, d->nr);
	}
	spin_unlock(ptl);
	n += b;
	this_cpu_add(useful_pcpu->prefaulted, n);
	if (b)
		this_cpu_add(useful_pcpu->beyond, b);
	if (unf)
		this_cpu_add(useful_pcpu->unfolded, unf);
	mmtune_policy_prefaulted(d->vma->vm_mm, n);
}

/*
 * The kretprobe way (kernels without the tracepoint below): entry and
 * return of filemap_map_pages(vmf, start_pgoff, end_pgoff), 0 to see
 * its return.  The kretprobe's entry is an ftrace call of its own on the
 * site the policy and the counters hook: two ops there make ftrace call
 * arch_ftrace_ops_list_func, which walks every callback, on every call.
 */
static int notrace mark_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct mark_data *d = (struct mark_data *)ri->data;
	struct vm_fault *vmf = (struct vm_fault *)mmtune_entry_arg(regs, 0);
	unsigned long first = mmtune_entry_arg(regs, 1);
	unsigned long last = mmtune_entry_arg(regs, 2);

	if (!vmf)
		return 1;
	/* the window the call maps: the kernel's, narrowed by the policy */
	mmtune_policy_window(vmf, &first, &last);
	return mark_begin(d, vmf, first, last) ? 0 : 1;
}

NOKPROBE_SYMBOL(mark_entry);

static int notrace mark_return(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	mark_end((struct mark_data *)ri->data);
	return 0;
}

NOKPROBE_SYMBOL(mark_return);

/*
 * The tracepoint way.  From 6.11 on, filemap_map_pages ends, when it
 * mapped anything, with the mm_filemap_map_pages tracepoint, after it
 * dropped the page table lock: its end, seen for the price of a
 * tracepoint probe.  The entry is then one more callback of the
 * filemap_map_pages hook (after the policy's, so it sees the narrowed
 * window), which stashes the call's window on its CPU for the probe.
 *
 * The probe takes the stash only if its task made it and has not been
 * switched out since (its context-switch counts unchanged): then the
 * task never left this CPU and no other task's call came between.  Else
 * the call goes unmarked and counts as missed, as a kretprobe's lost
 * instance does.  A call that ends early (nothing cached to map) has no
 * end to see: its stash stays until the CPU's next call overwrites it.
 */
struct mark_stash {
	struct task_struct *owner;	/* NULL: nothing to take */
	unsigned long switches;		/* owner's nvcsw + nivcsw at entry */
	struct address_space *mapping;
	unsigned long first, last;
	bool marked;			/* mark_begin said yes */
	struct mark_data d;
};

static struct mark_stash __percpu *stash;
static struct tracepoint *map_tp;	/* found at load; NULL: kretprobe */

static __always_inline unsigned long switches_of(const struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

static void notrace mark_entry_cb(struct mmtune_hook_call *c)
{
	struct mark_stash *s = this_cpu_ptr(stash);
	struct vm_fault *vmf = (void *)mmtune_call_arg(c, 0);

	s->owner = NULL;
	if (!vmf)
		return;
	s->mapping = vmf->vma->vm_file ? vmf->vma->vm_file->f_mapping : NULL;
	s->first = mmtune_call_arg(c, 1);
	s->last = mmtune_call_arg(c, 2);
	s->marked = mark_begin(&s->d, vmf, s->first, s->last);
	s->switches = switches_of(current);
	s->owner = current;
}

/* mm_filemap_map_pages(mapping, start_pgoff, end_pgoff); preemption off */
static void notrace mark_probe(void *data, struct address_space *mapping,
			       pgoff_t first, pgoff_t last)
{
	struct mark_stash *s = this_cpu_ptr(stash);

	/* the kernel may have cut @last to the file's end */
	if (s->owner != current || s->switches != switches_of(current) ||
	    s->mapping != mapping || s->first != first || last > s->last) {
		this_cpu_inc(useful_pcpu->missed);
		return;
	}
	s->owner = NULL;
	if (s->marked)
		mark_end(&s->d);
}

static void map_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_filemap_map_pages"))
		*(struct tracepoint **)priv = tp;
}

/*
 * The PTE slots one zap may read: preemption is off for the walk (the
 * kernel's own zap reschedules between tables), so it is bounded, to 1 GiB
 * of address space with 4 KiB pages (half a million instructions or so
 * at worst, every slot present).  The rest of a larger range goes
 * unjudged, counted as such: its untouched pages are missed.
 */
#ifndef MMT_ZAP_SLOTS_MAX	/* KCFLAGS=-DMMT_ZAP_SLOTS_MAX=ULONG_MAX lifts it, to measure */
#define MMT_ZAP_SLOTS_MAX	(256UL * 1024)
#endif

static void notrace walk_note(unsigned long slots, u64 t0)
{
	u64 ns = local_clock() - t0;

	/* racy maxima: a lost update between CPUs is a smaller maximum */
	if (slots > READ_ONCE(walk_max_slots))
		WRITE_ONCE(walk_max_slots, slots);
	if (ns > READ_ONCE(walk_max_ns))
		WRITE_ONCE(walk_max_ns, ns);
}

/*
 * unmap_page_range(tlb, vma, addr, end, details), or __zap_vma_range with
 * the same arguments: its callers hold the
 * mmap lock or the file's i_mmap lock, so the range's page tables stay;
 * preemption is off here (an RCU read-side section, which also keeps a
 * table that khugepaged retracts from being freed under us).
 */
static void notrace zap_cb(struct mmtune_hook_call *c)
{
	struct vm_area_struct *vma = (void *)mmtune_call_arg(c, 1);
	unsigned long addr = mmtune_call_arg(c, 2);
	unsigned long end = mmtune_call_arg(c, 3);
	unsigned long n, stop, budget = MMT_ZAP_SLOTS_MAX;
	u64 t0;

	if (!vma || addr >= end || !mmtune_vma_judged(vma))
		return;
	t0 = local_clock();
	n = mmtune_count_old_ptes(vma->vm_mm, addr, end, &budget, &stop, NULL);
	walk_note((stop - addr) >> PAGE_SHIFT, t0);
	if (stop < end) {
		this_cpu_add(useful_pcpu->unjudged, (end - stop) >> PAGE_SHIFT);
		this_cpu_inc(useful_pcpu->cut);
	}
	this_cpu_add(useful_pcpu->untouched, n);
	this_cpu_inc(useful_pcpu->zaps);
	/* also 0: see auto.c */
	if (!mmtune_policy_untouched(vma, n))
		this_cpu_add(useful_pcpu->unattributed, n);
}

/*
 * .wants and .fn[MMT_HOOK_FAULT_AROUND] are set at enable (useful_way()),
 * for the tracepoint way or the kretprobe way: a user's callback runs on
 * every hook it has one for, whoever placed the hook.
 */
static struct mmtune_hook_user useful_user = {
	.name		= "usefulness",
	.slot		= MMT_SLOT_USEFUL,
	.fn		= { [MMT_HOOK_ZAP] = zap_cb },
	.krp_entry	= mark_entry,
	.krp_return	= mark_return,
	.krp_data_size	= sizeof(struct mark_data),
};

/* ---- on and off ---- */

static void counters_clear(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(useful_pcpu, cpu), 0, sizeof(struct useful_pcpu));
}

static bool tp_on;		/* under useful_lock: the tracepoint way is on */

/* Under useful_lock, while off: the hooks and callbacks of one way. */
static void useful_way(bool tp)
{
	useful_user.wants = BIT(MMT_HOOK_ZAP) |
		(tp ? BIT(MMT_HOOK_FAULT_AROUND) : BIT(MMT_HOOK_MAP_RETURN));
	useful_user.fn[MMT_HOOK_FAULT_AROUND] = tp ? mark_entry_cb : NULL;
}

/*
 * The tracepoint way, if the kernel has its tracepoint and the
 * filemap_map_pages hook reads arguments here: the entry hook first, so
 * the probe's first call finds a stash.  0 with tp_on false: use the
 * kretprobe way.
 */
static int tp_way_get(void)
{
	int ret;

	if (!map_tp || !stash)
		return 0;
	useful_way(true);
	ret = mmtune_hooks_get(&useful_user);
	if (ret)
		return ret;
	if (!mmtune_hook_held(&useful_user, MMT_HOOK_FAULT_AROUND) ||
	    !mmtune_hooks_args_writable()) {
		mmtune_hooks_put(&useful_user);
		return 0;
	}
	ret = tracepoint_probe_register(map_tp, (void *)mark_probe, NULL);
	if (ret) {
		pr_err("usefulness: cannot register on mm_filemap_map_pages (%d)\n",
		       ret);
		mmtune_hooks_put(&useful_user);
		return ret;
	}
	tp_on = true;
	return 0;
}

static void tp_way_put(void)
{
	tracepoint_probe_unregister(map_tp, (void *)mark_probe, NULL);
	tracepoint_synchronize_unregister();
	tp_on = false;
}

/*
 * Both ends of filemap_map_pages and the zap hook, or nothing: marking
 * pages old without judging them (or the reverse) would count nothing
 * true.  A fresh start clears the counts.
 */
static int useful_enable_locked(void)
{
	int ret;

	if (useful_on)
		return 0;
	if (!MMTUNE_HAVE_PTE_MKOLD || IS_ENABLED(CONFIG_PREEMPT_RT))
		return -EOPNOTSUPP;
	ret = tp_way_get();
	if (!ret && !tp_on) {
		useful_way(false);
		ret = mmtune_hooks_get(&useful_user);
	}
	if (ret)
		return ret;
	if ((!tp_on && !mmtune_hook_held(&useful_user, MMT_HOOK_MAP_RETURN)) ||
	    !mmtune_hook_held(&useful_user, MMT_HOOK_ZAP)) {
		if (tp_on)
			tp_way_put();
		mmtune_hooks_put(&useful_user);
		pr_err("usefulness: a hook is unavailable (see info)\n");
		return -ENODEV;
	}
	counters_clear();
	WRITE_ONCE(walk_max_slots, 0);
	WRITE_ONCE(walk_max_ns, 0);
	mmtune_auto_forget();	/* the hooks just placed: no count of before */
	pgscan_from = mmtune_kernel_pgscan();
	missed_from = mmtune_hook_missed(MMT_HOOK_MAP_RETURN);
	useful_on = true;
	mmtune_policy_measured(true);
	return 0;
}

static int useful_set_locked(bool on)
{
	if (on)
		return useful_enable_locked();
	if (useful_on) {
		if (tp_on)
			tp_way_put();	/* before the entry hook: see tp_way_get */
		mmtune_hooks_put(&useful_user);
		useful_on = false;
		mmtune_policy_measured(false);
	}
	return 0;
}

/* ---- files ---- */

static void useful_sum(struct useful_pcpu *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct useful_pcpu *p = per_cpu_ptr(useful_pcpu, cpu);

		sum->prefaulted += READ_ONCE(p->prefaulted);
		sum->untouched += READ_ONCE(p->untouched);
		sum->zaps += READ_ONCE(p->zaps);
		sum->unjudged += READ_ONCE(p->unjudged);
		sum->cut += READ_ONCE(p->cut);
		sum->missed += READ_ONCE(p->missed);
		sum->beyond += READ_ONCE(p->beyond);
		sum->unfolded += READ_ONCE(p->unfolded);
		sum->unattributed += READ_ONCE(p->unattributed);
	}
}

/* Whether pre-mapped pages are being marked and judged now. */
bool mmtune_useful_enabled(void)
{
	return READ_ONCE(useful_on);
}

static const char *useful_absent(void)
{
	if (!MMTUNE_HAVE_PTE_MKOLD)
		return "unavailable (no accessed-bit clear for this arch)";
	/*
	 * The return probe runs with preemption off (rethook) and takes the
	 * page table's spinlock_t, a sleeping lock on PREEMPT_RT: refused
	 * there rather than sleeping in atomic context on every fault.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return "unavailable (PREEMPT_RT: the page table lock sleeps there)";
	if (mmtune_hook_state(MMT_HOOK_MAP_RETURN) == MMT_HOOK_UNAVAILABLE ||
	    mmtune_hook_state(MMT_HOOK_ZAP) == MMT_HOOK_UNAVAILABLE)
		return "unavailable (a hook is: see info)";
	return NULL;
}

/* One decimal: (p - u) / p in per mille, u clamped to p. */
static void show_ratio(struct seq_file *m, u64 p, u64 u)
{
	u64 pm;

	if (!p) {
		seq_puts(m, "useful: -\n");
		return;
	}
	pm = div64_u64((p - min(u, p)) * 1000, p);
	seq_printf(m, "useful: %llu.%llu%%\n", pm / 10, pm % 10);
}

static int useful_show(struct seq_file *m, void *v)
{
	const char *absent = useful_absent();
	struct useful_pcpu s;

	mutex_lock(&useful_lock);
	seq_printf(m, "state: %s\n", useful_on ? "on" : absent ? absent : "off");
	useful_sum(&s);
	seq_printf(m, "prefaulted: %llu\n", s.prefaulted);
	seq_printf(m, "untouched: %llu\n", s.untouched);
	show_ratio(m, s.prefaulted, s.untouched);
	seq_printf(m, "beyond_window: %llu\n", s.beyond);
	seq_printf(m, "unfolded: %llu\n", s.unfolded);
	seq_printf(m, "unattributed: %llu\n", s.unattributed);
	seq_printf(m, "unmaps: %llu\n", s.zaps);
	seq_printf(m, "unjudged: %llu\n", s.unjudged);
	seq_printf(m, "unmaps_cut: %llu\n", s.cut);
	seq_printf(m, "longest_walk: %lu ptes %llu ns\n",
		   READ_ONCE(walk_max_slots), READ_ONCE(walk_max_ns));
	if (useful_on) {
		seq_printf(m, "missed: %llu\n", s.missed + (tp_on ? 0 :
			   mmtune_hook_missed(MMT_HOOK_MAP_RETURN) - missed_from));
		seq_printf(m, "reclaim_scanned: %llu\n",
			   mmtune_kernel_pgscan() - pgscan_from);
	}
	mutex_unlock(&useful_lock);
	return 0;
}

static int useful_open(struct inode *inode, struct file *file)
{
	return single_open(file, useful_show, NULL);
}

static const struct file_operations useful_fops = {
	.owner		= THIS_MODULE,
	.open		= useful_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t enable_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	return mmtune_read_bool(ubuf, count, ppos, READ_ONCE(useful_on));
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = mmtune_write_get_bool(ubuf, count, ppos, &on);
	if (!ret) {
		mutex_lock(&useful_lock);
		ret = useful_set_locked(on);
		mutex_unlock(&useful_lock);
	}
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations enable_fops = {
	.owner	= THIS_MODULE,
	.read	= enable_read,
	.write	= enable_write,
};

/* ---- the parameter: the same, where lockdown leaves it writable ---- */

static int enable_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (kstrtobool(val, &on))
		return -EINVAL;
	mutex_lock(&useful_lock);
	if (useful_state == USEFUL_LOADING)
		pending_enable = on;	/* applied by init */
	else if (useful_state == USEFUL_GONE)
		ret = -ENODEV;
	else
		ret = useful_set_locked(on);
	mutex_unlock(&useful_lock);
	return ret;
}

static int enable_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(useful_on));
}

static const struct kernel_param_ops enable_param_ops = {
	.set = enable_param_set,
	.get = enable_param_get,
};
module_param_cb(MMT_PARAM_USEFULNESS_ENABLE, &enable_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_USEFULNESS_ENABLE,
		  "1 maps fault-around's extra pages old and counts those untouched at unmap (as debugfs usefulness_enable)");

/* ---- the feature ---- */

static int useful_init(struct dentry *dir)
{
	int ret = 0;

	useful_pcpu = alloc_percpu(struct useful_pcpu);
	if (!useful_pcpu)
		return -ENOMEM;
	if (mmtune_map_pages_probe_ok(mark_probe)) {
		for_each_kernel_tracepoint(map_tp_find, &map_tp);
		/* without its stash, the kretprobe way */
		if (map_tp)
			stash = alloc_percpu(struct mark_stash);
	}
	mutex_lock(&useful_lock);
	useful_state = USEFUL_READY;
	if (pending_enable > 0)
		ret = useful_set_locked(true);
	/*
	 * Not on this kernel (PREEMPT_RT, no PTE setter hook): a setting
	 * saved where it worked (mmtunectl save) must not cost the module
	 * its load and every other setting with it.
	 */
	if (ret == -EOPNOTSUPP || ret == -ENODEV) {
		pr_info("usefulness_enable=1 at load: not available on this kernel (%d), loading without it\n",
			ret);
		ret = 0;
	}
	if (ret)
		useful_state = USEFUL_GONE;
	mutex_unlock(&useful_lock);
	if (ret) {
		pr_err("cannot apply usefulness_enable=1 at load (%d)\n", ret);
		free_percpu(stash);
		stash = NULL;
		free_percpu(useful_pcpu);
		useful_pcpu = NULL;
		return ret;
	}
	debugfs_create_file("usefulness", 0400, dir, NULL, &useful_fops);
	debugfs_create_file("usefulness_enable", 0600, dir, NULL, &enable_fops);
	return 0;
}

static void useful_exit(void)
{
	mutex_lock(&useful_lock);
	useful_state = USEFUL_GONE;
	useful_set_locked(false);	/* waits for the hooks' callbacks */
	mutex_unlock(&useful_lock);
	free_percpu(stash);
	stash = NULL;
	free_percpu(useful_pcpu);
	useful_pcpu = NULL;
}

static void useful_info(struct seq_file *m)
{
	const char *absent = useful_absent();

	seq_printf(m, "usefulness_enable: %d\n", READ_ONCE(useful_on));
	seq_printf(m, "usefulness: %s\n", absent ? absent : "available");
	seq_printf(m, "usefulness_max_order: %u\n", mmtune_useful_max_order());
	/* the way in use, or the one enable tries first */
	seq_printf(m, "usefulness_end: %s\n",
		   (READ_ONCE(useful_on) ? READ_ONCE(tp_on) : map_tp && stash) ?
		   "tracepoint mm_filemap_map_pages" :
		   "kretprobe filemap_map_pages");
	/* arm64's contiguous blocks: split to be judged (compat.h) */
	seq_printf(m, "usefulness_contpte: %s\n",
		   IS_ENABLED(CONFIG_ARM64_CONTPTE) ? "unfold" : "none");
}

const struct mmtune_feature mmtune_usefulness_feature = {
	.name	= "usefulness",
	.init	= useful_init,
	.exit	= useful_exit,
	.info	= useful_info,
};
