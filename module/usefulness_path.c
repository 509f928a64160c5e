// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: fault-around's usefulness on the fault path and at unmap (the
 * measurement and why it is made so: usefulness.c, which turns it on and
 * off and shows it, calling in here, never the other way).  Marking the
 * pages filemap_map_pages pre-mapped old (a kretprobe, or the tracepoint
 * at its end), counting those still old when they are unmapped, and the
 * per-CPU counts of both.
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
#include "compat/filemap.h"
#include "compat/kretprobe.h"
#include "compat/pte.h"
#include "pgwalk.h"
#include "hooks.h"
#include "auto.h"
#include "usefulness.h"

static struct useful_pcpu __percpu *useful_pcpu;
/* The most PTE slots one zap's walk read, and its time, since enable */
static unsigned long walk_max_slots;
static u64 walk_max_ns;

/* ---- the fault path ---- */

/* The most pages of one call (compat/pte.h): every order a rule can have */
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
		mmtune_policy_prefaulted(vmf->vma, 0);
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
	mmtune_policy_prefaulted(d->vma, n);
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
struct mmtune_hook_user useful_user = {
	.name		= "usefulness",
	.slot		= MMT_SLOT_USEFUL,
	.fn		= { [MMT_HOOK_ZAP] = zap_cb },
	.krp_entry	= mark_entry,
	.krp_return	= mark_return,
	.krp_data_size	= sizeof(struct mark_data),
};

/* ---- for usefulness.c ---- */

/* Under useful_lock, while off: the hooks and callbacks of one way. */
void useful_way(bool tp)
{
	useful_user.wants = BIT(MMT_HOOK_ZAP) |
		(tp ? BIT(MMT_HOOK_FAULT_AROUND) : BIT(MMT_HOOK_MAP_RETURN));
	useful_user.fn[MMT_HOOK_FAULT_AROUND] = tp ? mark_entry_cb : NULL;
}

/* Whether the tracepoint way can be tried: its tracepoint and stash. */
bool useful_tp_ready(void)
{
	return map_tp && stash;
}

int useful_tp_register(void)
{
	return tracepoint_probe_register(map_tp, (void *)mark_probe, NULL);
}

void useful_tp_unregister(void)
{
	tracepoint_probe_unregister(map_tp, (void *)mark_probe, NULL);
	tracepoint_synchronize_unregister();
}

/* The counts and the walks' maxima to 0, at a fresh start. */
void useful_counters_clear(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(useful_pcpu, cpu), 0, sizeof(struct useful_pcpu));
	WRITE_ONCE(walk_max_slots, 0);
	WRITE_ONCE(walk_max_ns, 0);
}

void useful_sum(struct useful_pcpu *sum)
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

void useful_walk_max(unsigned long *slots, u64 *ns)
{
	*slots = READ_ONCE(walk_max_slots);
	*ns = READ_ONCE(walk_max_ns);
}

/* The counts; the tracepoint and its stash where the kernel has them. */
int useful_path_init(void)
{
	useful_pcpu = alloc_percpu(struct useful_pcpu);
	if (!useful_pcpu)
		return -ENOMEM;
	if (mmtune_map_pages_probe_ok(mark_probe)) {
		for_each_kernel_tracepoint(map_tp_find, &map_tp);
		/* without its stash, the kretprobe way */
		if (map_tp)
			stash = alloc_percpu(struct mark_stash);
	}
	return 0;
}

void useful_path_exit(void)
{
	free_percpu(stash);
	stash = NULL;
	free_percpu(useful_pcpu);
	useful_pcpu = NULL;
}
