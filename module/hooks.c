// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: hooks on the page-fault path.
 *
 * All hooks are in one table, hooks[] below: name, mechanism, handlers,
 * state and a "fired" flag for the self-test.  mmtune_hooks_enable()
 * places them in table order and, if an unexpected error stops it, takes
 * back what it placed in reverse; mmtune_hooks_disable() removes all.
 * A hook that cannot be placed on this kernel (symbol missing or renamed
 * by the compiler, function not traceable, or it never fires) is marked
 * unavailable with the reason, the others go on, and the counters it
 * feeds read "unavailable".
 *
 * Mechanisms, chosen by cost:
 *
 *  - ftrace (entry only): the function's fentry/patchable-entry NOP
 *    becomes a call into a trampoline that saves the argument registers
 *    and calls our handler directly (one ops, no list walk, no pt_regs,
 *    no breakpoint).  This is the cheapest way to run code at a
 *    function's entry, and with ftrace_regs (DYNAMIC_FTRACE_WITH_ARGS,
 *    the only kind arm64 has from 6.2 on) the handler can read and also
 *    change the arguments: the per-process policy will change
 *    filemap_map_pages' start_pgoff/end_pgoff from an entry handler of
 *    this table (see mmtune_fregs_set_arg(), checked by the self-test).
 *    All ftrace hooks share ONE ftrace_ops whose filter holds their
 *    functions; the handler dispatches on the address.  One ops means one
 *    registration per stats toggle: unregistering a dynamic ops waits for
 *    two RCU-tasks grace periods, which is what makes toggling slow.
 *    The filter always holds mmtune's own self-test function too, so it
 *    can never become empty (an ops with an empty filter traces every
 *    function in the kernel).
 *
 *  - kretprobe (entry + return), only for the latency of handle_mm_fault:
 *    an exit hook needs the return address replaced (rethook).  fprobe
 *    would do it with less overhead (no kprobe layer, no full pt_regs)
 *    but Debian's 6.1 kernels are built without CONFIG_FPROBE, and on x86
 *    with KPROBES_ON_FTRACE the kretprobe's entry is an ftrace call as
 *    well.  It costs more than the counters (see bench/RESULTS.md), so it
 *    has its own switch, latency_enable.  While it is on it also counts
 *    the faults, so that handle_mm_fault does not carry two ftrace users
 *    (two ops on one function make ftrace walk its ops list).
 *
 * "Pages mapped" by fault-around is counted exactly, at the place that
 * sets the PTEs: filemap_map_pages sets each PTE with do_set_pte (6.1;
 * set_pte_range for a run of pages from 6.5 on, see compat.h), and only
 * after checking that the PTE is empty, so every call is one page (nr
 * pages) mapped.  The same setter is also called by finish_fault for
 * faults that fault-around did not resolve; those calls are told apart by
 * their return address (the ftrace callback's parent_ip), which lies in
 * filemap_map_pages (or its out-of-line static helpers on newer kernels).
 * No per-task state is needed and nothing is counted twice.  A THP that
 * filemap_map_pages maps whole with a PMD (do_set_pmd) is not counted:
 * fault-around of a PMD is not fault-around of pages.
 *
 * Every handler is notrace, calls nothing traceable, and runs inside
 * ftrace's recursion guard (ftrace callbacks) or the kprobe layer's
 * (kretprobe handlers), which also keeps preemption off so the per-CPU
 * counters are updated on the CPU they belong to.
 */
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "compat.h"
#include "hooks.h"
#include "policy.h"
#include "mmtune_trace.h"

enum mmtune_hook_mech {
	MMT_MECH_FTRACE,
	MMT_MECH_KRETPROBE,
};

static const char *const mech_names[] = {
	[MMT_MECH_FTRACE] = "ftrace",
	[MMT_MECH_KRETPROBE] = "kretprobe",
};

struct mmtune_hook;
typedef void (*mmtune_entry_fn)(struct mmtune_hook *h, unsigned long pip,
				struct ftrace_regs *fregs);

/*
 * What the self-test expects of a hook after one read fault on a file
 * page: SELFTEST_ANY, it fires; SELFTEST_FAULT_AROUND, it fires if
 * fault-around is on (order > 0); SELFTEST_NONE, not checked.
 */
enum mmtune_selftest {
	SELFTEST_NONE,
	SELFTEST_ANY,
	SELFTEST_FAULT_AROUND,
};

struct mmtune_hook {
	const char *name;		/* info: hook_<name> */
	const char *symbol;		/* NULL: chosen by init */
	enum mmtune_hook_mech mech;
	enum mmtune_selftest selftest;
	bool optional;			/* placed only if latency_enable */
	bool uses_args;			/* reads arguments from ftrace_regs */
	mmtune_entry_fn entry;		/* MMT_MECH_FTRACE */
	struct kretprobe *krp;		/* MMT_MECH_KRETPROBE */

	/* found by init */
	unsigned long addr;
	unsigned long size;
	bool resolved;

	/* under hooks_lock */
	enum mmtune_hook_state state;
	bool placed;			/* in the filter / registered */
	char reason[112];		/* why unavailable */
	char note[80];			/* self-test result when on */

	/* written by the handlers */
	bool live;			/* handler may count */
	bool fired;
};

static DEFINE_MUTEX(hooks_lock);
static bool hooks_enabled;
static bool latency_wanted = true;
/*
 * The per-process policy (policy.c) holds the filemap_map_pages hook (and
 * the self-test's) while it has rules, with or without stats; count_on
 * says whether handlers feed the counters.  The PTE setter's hook is the
 * stats' alone (a call per PTE): while it is on, it also feeds the
 * policy's per-rule pages counters.
 */
static bool policy_on;
static bool count_on;

/* ---- fault-around callers and the PTE setter ---- */

struct addr_range {
	unsigned long start, size;
};

static struct addr_range fa_callers[ARRAY_SIZE(mmtune_fault_around_callers) *
				    (1 + ARRAY_SIZE(mmtune_cc_suffixes))];
static unsigned int nr_fa_callers;
static int set_pte_nr_arg = -1;

static __always_inline bool from_fault_around(unsigned long pip)
{
	unsigned int i;

	for (i = 0; i < nr_fa_callers; i++)
		if (pip - fa_callers[i].start < fa_callers[i].size)
			return true;
	return false;
}

/* ---- latency: which fault did fault-around ---- */

/*
 * The kretprobe times handle_mm_fault; the filemap_map_pages hook must
 * tell it "this fault did fault-around".  A fault can sleep and move to
 * another CPU, so per-CPU state would misattribute; instead each task
 * marks a slot chosen by hashing its task_struct pointer: the entry
 * writes the pointer, filemap_map_pages sets bit 0 if the slot still
 * holds it, and the return reads it back.  A slot taken over by another
 * task in between (two tasks with the same hash faulting at once) no
 * longer holds our pointer: that fault is counted as unclassified, never
 * in the wrong column.  One slot per cache line, so CPUs do not share.
 */
#define LAT_SLOT_BITS	8

struct lat_slot {
	unsigned long v;
} ____cacheline_aligned_in_smp;

static struct lat_slot lat_slots[1 << LAT_SLOT_BITS];
static bool lat_classify;	/* the filemap_map_pages hook marks slots */

static __always_inline struct lat_slot *lat_slot_of_current(void)
{
	return &lat_slots[hash_ptr(current, LAT_SLOT_BITS)];
}

/* ---- the handlers ---- */

static __always_inline void hook_fired(struct mmtune_hook *h)
{
	if (unlikely(!READ_ONCE(h->fired)))
		WRITE_ONCE(h->fired, true);
}

static void notrace fault_entry(struct mmtune_hook *h, unsigned long pip,
				struct ftrace_regs *fregs)
{
	hook_fired(h);
	mmtune_ctr_add(MMT_CTR_FAULTS, 1);
}

/* The counters' part of the filemap_map_pages hook. */
static __always_inline void fault_around_count(struct ftrace_regs *fregs)
{
	unsigned long start, end;

	if (!READ_ONCE(count_on))
		return;
	start = mmtune_fregs_arg(fregs, 1);
	end = mmtune_fregs_arg(fregs, 2);
	mmtune_ctr_add(MMT_CTR_FA_CALLS, 1);
	if (end >= start)
		mmtune_ctr_add(MMT_CTR_FA_REQUESTED, end - start + 1);
	if (READ_ONCE(lat_classify)) {
		struct lat_slot *s = lat_slot_of_current();
		unsigned long me = (unsigned long)current;

		if (READ_ONCE(s->v) == me)
			WRITE_ONCE(s->v, me | 1);
	}
}

/*
 * The hook while someone listens to mmtune:fault_around: the same work,
 * plus the event with the window before and after the policy, the order
 * in force (the rule's, else the kernel's) and the rule (-1: none).
 */
static noinline void notrace fault_around_traced(struct ftrace_regs *fregs)
{
	const struct vm_fault *vmf = (void *)mmtune_fregs_arg(fregs, 0);
	unsigned long req_start = mmtune_fregs_arg(fregs, 1);
	unsigned long req_end = mmtune_fregs_arg(fregs, 2);
	int order = -1, rule = -1;

	if (READ_ONCE(policy_on))
		rule = mmtune_policy_fault_around(fregs, &order);
	if (order < 0)
		order = mmtune_fa_kernel_order_now();
	if (vmf && order >= 0) {
		const struct file *f = vmf->vma->vm_file;
		const struct inode *inode = f ? file_inode(f) : NULL;

		trace_fault_around(vmf, inode ? inode->i_sb->s_dev : 0,
				   inode ? inode->i_ino : 0, req_start, req_end,
				   mmtune_fregs_arg(fregs, 1),
				   mmtune_fregs_arg(fregs, 2), order, rule);
	}
	fault_around_count(fregs);
}

/*
 * Events out of line, behind their static keys: inlined, their locals
 * would give the hot handlers a stack frame (and a stack-protector check).
 */
static void notrace fault_around_entry(struct mmtune_hook *h,
				       unsigned long pip,
				       struct ftrace_regs *fregs)
{
	hook_fired(h);
	if (trace_fault_around_enabled()) {
		fault_around_traced(fregs);
		return;
	}
	/* first: the counters see the window filemap_map_pages gets */
	if (READ_ONCE(policy_on))
		mmtune_policy_fault_around(fregs, NULL);
	fault_around_count(fregs);
}

/* The rest of set_pte_entry while someone listens (see above). */
static noinline void notrace mapped_traced(unsigned int nr)
{
	trace_fault_around_mapped(nr);
	if (READ_ONCE(policy_on))
		mmtune_policy_mapped(nr);
}

static void notrace set_pte_entry(struct mmtune_hook *h, unsigned long pip,
				  struct ftrace_regs *fregs)
{
	unsigned long nr = 1;

	if (!from_fault_around(pip))
		return;
	hook_fired(h);
	/* nr is an unsigned int: the register's upper half is not ours */
	if (set_pte_nr_arg >= 0)
		nr = (u32)mmtune_fregs_arg(fregs, set_pte_nr_arg);
	if (READ_ONCE(count_on))
		mmtune_ctr_add(MMT_CTR_FA_MAPPED, nr);
	if (trace_fault_around_mapped_enabled()) {
		mapped_traced(nr);
		return;
	}
	if (READ_ONCE(policy_on))
		mmtune_policy_mapped(nr);
}

/*
 * The mechanism's own self-test, LKRG style: a function of ours, hooked
 * like the others, called with known arguments.  Its handler checks that
 * it reads them right and changes the third one; the caller checks the
 * change arrived.  This proves the ftrace path and the ftrace_regs
 * accessors of compat.h on the running kernel and architecture.
 */
#define ST_A	0x6d6d74756e650001UL
#define ST_B	0x6d6d74756e650002UL
#define ST_C	0x6d6d74756e650003UL
#define ST_C2	0x6d6d74756e650004UL

static bool st_args_read, st_args_written;

static noinline unsigned long
mmtune_selftest_target(unsigned long a, unsigned long b, unsigned long c)
{
	barrier();
	return c;
}

/* Called through this, so the compiler can neither inline nor clone it. */
static unsigned long (*selftest_target_ptr)(unsigned long, unsigned long,
					    unsigned long) = mmtune_selftest_target;

static void notrace selftest_entry(struct mmtune_hook *h, unsigned long pip,
				   struct ftrace_regs *fregs)
{
	if (mmtune_fregs_arg(fregs, 0) != ST_A ||
	    mmtune_fregs_arg(fregs, 1) != ST_B ||
	    mmtune_fregs_arg(fregs, 2) != ST_C)
		return;
	WRITE_ONCE(st_args_read, true);
	hook_fired(h);
	mmtune_fregs_set_arg(fregs, 2, ST_C2);
}

struct lat_data {
	u64 t0;
};

static int notrace lat_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct lat_data *d = (struct lat_data *)ri->data;

	/* counts the faults while it is on: see the top of the file */
	mmtune_ctr_add(MMT_CTR_FAULTS, 1);
	WRITE_ONCE(lat_slot_of_current()->v, (unsigned long)current);
	d->t0 = local_clock();
	return 0;
}

NOKPROBE_SYMBOL(lat_entry);

static struct mmtune_hook hooks[MMT_HOOK_NR + 1];

static int notrace lat_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct lat_data *d = (struct lat_data *)ri->data;
	u64 now = local_clock();
	u64 ns = now > d->t0 ? now - d->t0 : 0;
	unsigned long v = READ_ONCE(lat_slot_of_current()->v);
	unsigned int b = ns ? min_t(unsigned int, fls64(ns),
				    MMT_LAT_BUCKETS - 1) : 0;

	hook_fired(&hooks[MMT_HOOK_LATENCY]);
	if ((v & ~1UL) != (unsigned long)current || !READ_ONCE(lat_classify))
		mmtune_ctr_add(MMT_CTR_LAT_UNCLASSIFIED, 1);
	else
		mmtune_lat_add(v & 1 ? MMT_LAT_FA : MMT_LAT_NOFA, b);
	return 0;
}

NOKPROBE_SYMBOL(lat_return);

static struct kretprobe lat_krp;	/* filled by place_hook() */
static unsigned long lat_missed_before;	/* misses of earlier placements */

/* ---- the table ---- */

#define MMT_HOOK_SELFTEST	MMT_HOOK_NR	/* our own function, last */

static struct mmtune_hook hooks[MMT_HOOK_NR + 1] = {
	[MMT_HOOK_FAULT] = {
		.name = "handle_mm_fault",
		.symbol = "handle_mm_fault",
		.mech = MMT_MECH_FTRACE,
		.selftest = SELFTEST_ANY,
		.entry = fault_entry,
	},
	[MMT_HOOK_FAULT_AROUND] = {
		.name = "filemap_map_pages",
		.symbol = "filemap_map_pages",
		.mech = MMT_MECH_FTRACE,
		.selftest = SELFTEST_FAULT_AROUND,
		.uses_args = true,
		.entry = fault_around_entry,
	},
	[MMT_HOOK_SET_PTE] = {
		.name = "set_pte",	/* + the symbol found, see info */
		.mech = MMT_MECH_FTRACE,
		.selftest = SELFTEST_FAULT_AROUND,
		.entry = set_pte_entry,
	},
	[MMT_HOOK_LATENCY] = {
		.name = "handle_mm_fault_return",
		.symbol = "handle_mm_fault",
		.mech = MMT_MECH_KRETPROBE,
		.selftest = SELFTEST_ANY,
		.optional = true,
		.krp = &lat_krp,
	},
	[MMT_HOOK_SELFTEST] = {
		.name = "selftest",
		.mech = MMT_MECH_FTRACE,
		.entry = selftest_entry,
	},
};

/* The ftrace hooks' one ops.  Handlers are looked up by address. */
static void notrace hooks_ftrace_func(unsigned long ip, unsigned long pip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	unsigned int i;
	int bit;

	bit = mmtune_ftrace_trylock(ip, pip);
	if (bit < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		struct mmtune_hook *h = &hooks[i];

		if (h->entry && ip - h->addr < h->size && READ_ONCE(h->live))
			h->entry(h, pip, fregs);
	}
	mmtune_ftrace_unlock(bit);
}

static struct ftrace_ops hooks_ops = {
	.func	= hooks_ftrace_func,
	.flags	= MMTUNE_FTRACE_OPS_FLAGS,
};

static bool hooks_ops_registered;
static bool fault_counted_by_latency;

/* ---- resolving symbols ---- */

/* A renamed copy of @name (e.g. "name.isra.0"), or NULL. */
static const char *renamed_copy(const char *name, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mmtune_cc_suffixes); i++) {
		snprintf(buf, len, "%s%s", name, mmtune_cc_suffixes[i]);
		if (mmtune_lookup_name(buf))
			return buf;
	}
	return NULL;
}

static __printf(2, 3) void hook_unavailable(struct mmtune_hook *h,
					   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->reason, sizeof(h->reason), fmt, ap);
	va_end(ap);
	h->state = MMT_HOOK_UNAVAILABLE;
	pr_info("hook %s unavailable: %s\n", h->name, h->reason);
}

static void resolve_hook(struct mmtune_hook *h)
{
	char buf[KSYM_NAME_LEN];
	const char *copy;

	h->addr = mmtune_lookup_func(h->symbol);
	if (!h->addr) {
		copy = renamed_copy(h->symbol, buf, sizeof(buf));
		if (copy)
			hook_unavailable(h, "%s only exists as %s (compiler-specialised copy)",
					 h->symbol, copy);
		else
			hook_unavailable(h, "%s not found (inlined or renamed)",
					 h->symbol);
		return;
	}
	h->size = mmtune_symbol_size(h->addr);
	if (!h->size) {
		hook_unavailable(h, "size of %s unknown", h->symbol);
		return;
	}
	h->resolved = true;
	h->state = MMT_HOOK_OFF;
}

static void add_caller(const char *name)
{
	unsigned long addr = mmtune_lookup_func(name);

	if (!addr || nr_fa_callers >= ARRAY_SIZE(fa_callers))
		return;
	fa_callers[nr_fa_callers].start = addr;
	fa_callers[nr_fa_callers].size = mmtune_symbol_size(addr);
	if (fa_callers[nr_fa_callers].size)
		nr_fa_callers++;
}

static void resolve_callers(void)
{
	char buf[KSYM_NAME_LEN];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(mmtune_fault_around_callers); i++) {
		add_caller(mmtune_fault_around_callers[i]);
		for (j = 0; j < ARRAY_SIZE(mmtune_cc_suffixes); j++) {
			snprintf(buf, sizeof(buf), "%s%s",
				 mmtune_fault_around_callers[i],
				 mmtune_cc_suffixes[j]);
			add_caller(buf);
		}
	}
}

int mmtune_hooks_init(void)
{
	struct mmtune_hook *pte = &hooks[MMT_HOOK_SET_PTE];
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];
	unsigned int i;

	mutex_lock(&hooks_lock);
	for (i = 0; i < ARRAY_SIZE(mmtune_set_pte_fns); i++) {
		if (mmtune_lookup_func(mmtune_set_pte_fns[i].name)) {
			pte->symbol = mmtune_set_pte_fns[i].name;
			set_pte_nr_arg = mmtune_set_pte_fns[i].nr_arg;
			pte->uses_args = set_pte_nr_arg >= 0;
			break;
		}
	}
	for (i = 0; i < MMT_HOOK_NR; i++) {
		struct mmtune_hook *h = &hooks[i];

		if (!h->symbol)
			hook_unavailable(h, "no PTE setter (set_pte_range, do_set_pte)");
		else
			resolve_hook(h);
	}
	resolve_callers();
	if (pte->resolved && !nr_fa_callers) {
		pte->resolved = false;
		hook_unavailable(pte, "no filemap_map_pages: %s callers unknown",
				 pte->symbol);
	}

	/* Our own function: a module symbol, so not mmtune_lookup_func(). */
	st->addr = (unsigned long)mmtune_selftest_target;
	st->size = mmtune_symbol_size(st->addr);
	st->resolved = st->size != 0;
	st->state = st->resolved ? MMT_HOOK_OFF : MMT_HOOK_UNAVAILABLE;
	if (!st->resolved)
		hook_unavailable(st, "size of the self-test function unknown");
	mutex_unlock(&hooks_lock);
	return 0;
}

/* ---- placing and removing ---- */

static bool wanted(struct mmtune_hook *h)
{
	return h->resolved && (!h->optional || latency_wanted);
}

/* Returns -ENOENT etc. for "cannot be placed", -ENOMEM for real trouble. */
static int place_hook(struct mmtune_hook *h)
{
	int ret;

	switch (h->mech) {
	case MMT_MECH_FTRACE:
		/* reset=1 for the first: stale entries of an earlier enable */
		ret = ftrace_set_filter_ip(&hooks_ops, h->addr, 0,
					   h == &hooks[MMT_HOOK_SELFTEST]);
		break;
	case MMT_MECH_KRETPROBE:
		/* a fresh struct each time: kprobes keep state in it */
		*h->krp = (struct kretprobe) {
			.kp.symbol_name	= h->symbol,
			.handler	= lat_return,
			.entry_handler	= lat_entry,
			.data_size	= sizeof(struct lat_data),
			.maxactive	= MMTUNE_KRETPROBE_MAXACTIVE,
		};
		ret = register_kretprobe(h->krp);
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret)
		h->placed = true;
	return ret;
}

static void remove_hook(struct mmtune_hook *h)
{
	if (!h->placed)
		return;
	WRITE_ONCE(h->live, false);
	switch (h->mech) {
	case MMT_MECH_FTRACE:
		/* never the self-test entry: the filter must not go empty */
		if (h != &hooks[MMT_HOOK_SELFTEST])
			ftrace_set_filter_ip(&hooks_ops, h->addr, 1, 0);
		break;
	case MMT_MECH_KRETPROBE:
		/* waits until no handler runs; pending returns skip us */
		unregister_kretprobe(h->krp);
		/* the next placement starts from 0: keep the count monotonic */
		lat_missed_before += h->krp->nmissed + h->krp->kp.nmissed;
		h->krp->nmissed = 0;
		h->krp->kp.nmissed = 0;
		break;
	}
	h->placed = false;
}

/* Everything off, in reverse order.  Caller holds hooks_lock. */
static void remove_all(void)
{
	int i;

	lat_classify = false;
	/* kretprobes first, while the ftrace hooks still count */
	for (i = ARRAY_SIZE(hooks) - 1; i >= 0; i--)
		if (hooks[i].mech == MMT_MECH_KRETPROBE)
			remove_hook(&hooks[i]);
	if (hooks_ops_registered) {
		/* waits for every callback to finish (RCU tasks) */
		unregister_ftrace_function(&hooks_ops);
		hooks_ops_registered = false;
	}
	WRITE_ONCE(count_on, false);
	for (i = ARRAY_SIZE(hooks) - 1; i >= 0; i--) {
		hooks[i].live = false;
		hooks[i].placed = false;
		if (hooks[i].state == MMT_HOOK_ON)
			hooks[i].state = MMT_HOOK_OFF;
	}
	fault_counted_by_latency = false;
}

/* The hooks the policy holds: they stay when stats go off. */
static bool policy_hook(const struct mmtune_hook *h)
{
	return h == &hooks[MMT_HOOK_FAULT_AROUND] ||
	       h == &hooks[MMT_HOOK_SELFTEST];
}

/*
 * Stats off while the policy keeps its hooks: remove the others, in
 * reverse order, from the registered ops (the filter changes live).
 */
static void remove_stats_hooks(void)
{
	int i;

	lat_classify = false;
	WRITE_ONCE(count_on, false);
	for (i = ARRAY_SIZE(hooks) - 1; i >= 0; i--) {
		struct mmtune_hook *h = &hooks[i];

		if (!h->placed || policy_hook(h))
			continue;
		remove_hook(h);
		if (h->state == MMT_HOOK_ON)
			h->state = MMT_HOOK_OFF;
	}
	if (fault_counted_by_latency &&
	    hooks[MMT_HOOK_FAULT].state == MMT_HOOK_ON)
		hooks[MMT_HOOK_FAULT].state = MMT_HOOK_OFF;
	fault_counted_by_latency = false;
}

/* ---- the self-test ---- */

/*
 * Read faults on a cached shmem file mapped into the caller's address
 * space (the process that writes stats_enable): page 0 must fault, going
 * through handle_mm_fault and, if fault-around is on at that moment,
 * through filemap_map_pages and the PTE setter for both pages.  Whether
 * fault-around did run is seen without our hooks: then page 1 is already
 * mapped and reading it takes no fault (the task's fault counters, which
 * handle_mm_fault updates for every completed fault, do not move).  So a
 * concurrent change of the order cannot fail a working hook.
 */
struct selftest_result {
	bool faulted;		/* page 0 took a fault */
	bool fault_around;	/* ... and it mapped page 1 as well */
};

static unsigned long task_faults(void)
{
	return READ_ONCE(current->min_flt) + READ_ONCE(current->maj_flt);
}

static int selftest_fault(struct selftest_result *r)
{
	const size_t len = 2 * PAGE_SIZE;
	unsigned long uaddr, f0, f1;
	struct file *f;
	loff_t pos = 0;
	void *buf;
	ssize_t n;
	char c __maybe_unused;	/* get_user()'s sink: the fault is the point */
	int ret;

	if (!current->mm)
		return -ESRCH;
	f = mmtune_shmem_file_setup("mmtune-selftest", len);
	if (IS_ERR(f))
		return PTR_ERR(f);
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf) {
		fput(f);
		return -ENOMEM;
	}
	n = kernel_write(f, buf, len, &pos);
	kfree(buf);
	if (n != len) {
		fput(f);
		return n < 0 ? n : -EIO;
	}
	uaddr = vm_mmap(f, 0, len, PROT_READ, MAP_SHARED, 0);
	fput(f);		/* the mapping holds its own reference */
	if (IS_ERR_VALUE(uaddr))
		return (int)uaddr;
	f0 = task_faults();
	ret = get_user(c, (const char __user *)uaddr);
	f1 = task_faults();
	if (!ret)
		ret = get_user(c, (const char __user *)(uaddr + PAGE_SIZE));
	if (!ret && f1 != f0) {
		r->faulted = true;
		if (task_faults() == f1)
			r->fault_around = true;
	}
	vm_munmap(uaddr, len);
	return ret;
}

static bool all_fired(void)
{
	unsigned int i;

	for (i = 0; i < MMT_HOOK_NR; i++)
		if (hooks[i].placed && hooks[i].selftest != SELFTEST_NONE &&
		    !READ_ONCE(hooks[i].fired))
			return false;
	return true;
}

static void selftest_judge(struct mmtune_hook *h, int fault_ret,
			   const struct selftest_result *r)
{
	if (!h->placed)
		return;
	if (h->uses_args && !st_args_read) {
		remove_hook(h);
		hook_unavailable(h, "reading arguments from ftrace_regs failed the self-test");
		return;
	}
	if (READ_ONCE(h->fired)) {
		strscpy(h->note, "fired in self-test", sizeof(h->note));
		return;
	}
	if (h->selftest == SELFTEST_NONE)
		return;
	if (fault_ret || !r->faulted) {
		snprintf(h->note, sizeof(h->note),
			 "untested: self-test fault failed (%d)", fault_ret);
		return;
	}
	if (h->selftest == SELFTEST_FAULT_AROUND && !r->fault_around) {
		strscpy(h->note, "untested: fault-around was off (order 0)",
			sizeof(h->note));
		return;
	}
	remove_hook(h);
	hook_unavailable(h, "%s registered but did not fire in the self-test",
			 mech_names[h->mech]);
}

/*
 * Up to three tries, to catch a moment with fault-around on while someone
 * is changing the order.  A hook is judged only by a fault that went
 * where the hook is (see struct selftest_result).
 */
static void selftest(void)
{
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];
	struct selftest_result r = { };
	int i, try, ret = 0;

	st_args_read = false;
	st_args_written = false;
	if (st->placed) {
		unsigned long v = READ_ONCE(selftest_target_ptr)(ST_A, ST_B, ST_C);

		st_args_written = v == ST_C2;
	}
	for (try = 0; try < 3 && !ret && !(r.fault_around && all_fired()); try++)
		ret = selftest_fault(&r);
	for (i = 0; i < MMT_HOOK_NR; i++)
		selftest_judge(&hooks[i], ret, &r);
}

/* ---- enable / disable ---- */

/* Place @h; false if that failed for a reason other than "cannot". */
static bool try_place(struct mmtune_hook *h, int *ret)
{
	*ret = place_hook(h);
	if (*ret == -ENOMEM)
		return false;
	if (*ret) {
		hook_unavailable(h, "%s refused %s (%d)", mech_names[h->mech],
				 h->symbol, *ret);
		*ret = 0;
		return true;
	}
	h->state = MMT_HOOK_ON;
	return true;
}

int mmtune_hooks_enable(void)
{
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];
	struct mmtune_hook *flt = &hooks[MMT_HOOK_FAULT];
	struct mmtune_hook *lat = &hooks[MMT_HOOK_LATENCY];
	int i, ret = 0;

	mutex_lock(&hooks_lock);
	if (hooks_enabled)
		goto out;

	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		hooks[i].fired = false;
		hooks[i].note[0] = '\0';
		/* a self-test failure is judged again at every enable */
		if (hooks[i].resolved && !hooks[i].placed)
			hooks[i].state = MMT_HOOK_OFF;
	}
	fault_counted_by_latency = wanted(lat);

	/*
	 * The self-test function first: it keeps the filter non-empty.
	 * Hooks the policy placed already are left as they are.
	 */
	if (st->resolved && !st->placed && !try_place(st, &ret))
		goto unwind;

	/* Table order; the kretprobe (latency) comes after the entries. */
	for (i = 0; i < MMT_HOOK_NR; i++) {
		struct mmtune_hook *h = &hooks[i];

		if (h->placed || !wanted(h) ||
		    (h == flt && fault_counted_by_latency))
			continue;
		if (h->mech == MMT_MECH_FTRACE && !st->placed) {
			hook_unavailable(h, "ftrace unusable here: %s",
					 st->reason);
			continue;
		}
		if (!try_place(h, &ret))
			goto unwind;
	}
	if (fault_counted_by_latency && !lat->placed) {
		/* no kretprobe after all: faults by the ftrace hook */
		fault_counted_by_latency = false;
		if (flt->resolved && st->placed && !try_place(flt, &ret))
			goto unwind;
	}
	if (fault_counted_by_latency)
		flt->state = MMT_HOOK_ON;

	lat_classify = lat->placed && hooks[MMT_HOOK_FAULT_AROUND].placed;
	WRITE_ONCE(count_on, true);
	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		if (hooks[i].placed)
			WRITE_ONCE(hooks[i].live, true);
	if (st->placed && !hooks_ops_registered) {
		ret = register_ftrace_function(&hooks_ops);
		if (ret) {
			pr_err("register_ftrace_function: %d\n", ret);
			goto unwind;
		}
		hooks_ops_registered = true;
	}

	selftest();

	if (fault_counted_by_latency && !lat->placed) {
		/* the kretprobe failed its self-test: count by ftrace */
		fault_counted_by_latency = false;
		flt->state = MMT_HOOK_OFF;
		if (flt->resolved && st->placed) {
			if (!try_place(flt, &ret))
				goto unwind;
			WRITE_ONCE(flt->live, true);
			strscpy(flt->note, "placed after the self-test",
				sizeof(flt->note));
		}
	}
	lat_classify = lat->placed && hooks[MMT_HOOK_FAULT_AROUND].placed;
	hooks_enabled = true;
	goto out;

unwind:
	if (policy_on)
		remove_stats_hooks();
	else
		remove_all();
out:
	mutex_unlock(&hooks_lock);
	return ret;
}

void mmtune_hooks_disable(void)
{
	mutex_lock(&hooks_lock);
	if (hooks_enabled) {
		if (policy_on)
			remove_stats_hooks();
		else
			remove_all();
		hooks_enabled = false;
	}
	mutex_unlock(&hooks_lock);
}

/*
 * While rules exist the kernel's fault-around size is raised and only the
 * policy's hook narrows it back, so "sysctl kernel.ftrace_enabled=0" would
 * silently give every process without a rule the largest rule's window.
 * The kernel refuses that sysctl (EBUSY) while an ops with
 * FTRACE_OPS_FL_PERMANENT is registered, as it does for livepatch.
 * hooks_ops cannot carry the flag: stats register it too, and an ops'
 * flags are the kernel's to change once it is registered.  So the policy
 * registers this second ops, with the flag from the start, on a function
 * of ours that nothing calls: it costs nothing on the fault path.
 */
static noinline void mmtune_guard_target(void)
{
	barrier();
}

static void notrace guard_func(unsigned long ip, unsigned long pip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops guard_ops = {
	.func	= guard_func,
	.flags	= FTRACE_OPS_FL_PERMANENT,
};

static bool guard_registered;

/* Caller holds hooks_lock.  -EBUSY: ftrace_enabled is 0. */
static int guard_register(void)
{
	int ret;

	ret = ftrace_set_filter_ip(&guard_ops,
				   (unsigned long)mmtune_guard_target, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&guard_ops);
	if (ret) {
		pr_err("policy: cannot register its ftrace_enabled guard (%d)%s\n",
		       ret, ret == -EBUSY ? ": kernel.ftrace_enabled is 0" : "");
		return ret;
	}
	guard_registered = true;
	return 0;
}

static void guard_unregister(void)
{
	if (!guard_registered)
		return;
	unregister_ftrace_function(&guard_ops);
	guard_registered = false;
}

/*
 * The policy's hook: filemap_map_pages, placed with stats off too.
 * Refused unless the self-test proved that a handler's change of an
 * argument reaches the traced function on this kernel.
 */
int mmtune_hooks_policy_enable(void)
{
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];
	struct mmtune_hook *fa = &hooks[MMT_HOOK_FAULT_AROUND];
	int ret = 0;

	mutex_lock(&hooks_lock);
	if (policy_on)
		goto out;
	/* first: with ftrace_enabled 0 no hook would run (EBUSY) */
	ret = guard_register();
	if (ret)
		goto out;
	if (!hooks_enabled) {
		if (!st->resolved || !fa->resolved) {
			ret = -ENODEV;
			goto fail;
		}
		st->fired = false;
		fa->fired = false;
		fa->note[0] = '\0';
		fa->state = MMT_HOOK_OFF;
		if (!try_place(st, &ret) || !st->placed ||
		    !try_place(fa, &ret) || !fa->placed)
			goto fail;
		WRITE_ONCE(st->live, true);
		WRITE_ONCE(fa->live, true);
		ret = register_ftrace_function(&hooks_ops);
		if (ret) {
			pr_err("register_ftrace_function: %d\n", ret);
			goto fail;
		}
		hooks_ops_registered = true;
		selftest();
	}
	if (!fa->placed || !st_args_written) {
		pr_err("policy: %s\n", !fa->placed ?
		       "the filemap_map_pages hook is unavailable (see info)" :
		       "changing filemap_map_pages' arguments failed the self-test");
		ret = fa->placed ? -EOPNOTSUPP : -ENODEV;
		goto fail;
	}
	WRITE_ONCE(policy_on, true);
	goto out;

fail:
	guard_unregister();
	if (!hooks_enabled)
		remove_all();
	if (!ret)
		ret = -ENODEV;
out:
	mutex_unlock(&hooks_lock);
	return ret;
}

/* The policy's rules are gone (and waited for): drop its hooks. */
void mmtune_hooks_policy_disable(void)
{
	mutex_lock(&hooks_lock);
	if (policy_on) {
		WRITE_ONCE(policy_on, false);
		guard_unregister();
		if (!hooks_enabled)
			remove_all();
	}
	mutex_unlock(&hooks_lock);
}

void mmtune_hooks_exit(void)
{
	mmtune_hooks_policy_disable();
	mmtune_hooks_disable();
	/* the ops are unregistered: their filters can go */
	ftrace_free_filter(&hooks_ops);
	ftrace_free_filter(&guard_ops);
}

bool mmtune_hooks_enabled(void)
{
	return READ_ONCE(hooks_enabled);
}

int mmtune_hooks_set_latency(bool on)
{
	int ret = 0;

	mutex_lock(&hooks_lock);
	if (hooks_enabled)
		ret = -EBUSY;
	else
		latency_wanted = on;
	mutex_unlock(&hooks_lock);
	return ret;
}

bool mmtune_hooks_latency_wanted(void)
{
	return READ_ONCE(latency_wanted);
}

enum mmtune_hook_state mmtune_hook_state(enum mmtune_hook_id id)
{
	return READ_ONCE(hooks[id].state);
}

bool mmtune_ctr_available(enum mmtune_ctr c)
{
	switch (c) {
	case MMT_CTR_FAULTS:
		return hooks[MMT_HOOK_FAULT].state != MMT_HOOK_UNAVAILABLE ||
		       hooks[MMT_HOOK_LATENCY].state == MMT_HOOK_ON;
	case MMT_CTR_FA_CALLS:
	case MMT_CTR_FA_REQUESTED:
		return hooks[MMT_HOOK_FAULT_AROUND].state != MMT_HOOK_UNAVAILABLE;
	case MMT_CTR_FA_MAPPED:
		return hooks[MMT_HOOK_SET_PTE].state != MMT_HOOK_UNAVAILABLE;
	case MMT_CTR_LAT_UNCLASSIFIED:
		return hooks[MMT_HOOK_LATENCY].state != MMT_HOOK_UNAVAILABLE;
	default:
		return false;
	}
}

/* Whether latency rows can be split by fault-around. */
bool mmtune_hooks_latency_classified(void)
{
	return hooks[MMT_HOOK_FAULT_AROUND].state != MMT_HOOK_UNAVAILABLE;
}

/*
 * Entries of handle_mm_fault the kretprobe skipped since load: no free
 * instance (nmissed), or hit while another kprobe ran (kp.nmissed).  Each
 * is one fault neither timed nor counted by lat_entry.  Monotonic.
 */
unsigned long mmtune_hooks_latency_missed(void)
{
	unsigned long n;

	mutex_lock(&hooks_lock);
	n = lat_missed_before + READ_ONCE(lat_krp.nmissed) +
	    READ_ONCE(lat_krp.kp.nmissed);
	mutex_unlock(&hooks_lock);
	return n;
}

static const char *const state_names[] = {
	[MMT_HOOK_OFF] = "off",
	[MMT_HOOK_ON] = "on",
	[MMT_HOOK_UNAVAILABLE] = "unavailable",
};

/*
 * info lines: "hook_NAME: STATE (MECHANISM[ SYMBOL][, NOTE])" with STATE
 * off, on or unavailable, and for unavailable "(REASON)".
 */
void mmtune_hooks_info(struct seq_file *m)
{
	unsigned int i;

	mutex_lock(&hooks_lock);
	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		struct mmtune_hook *h = &hooks[i];
		const char *note = h->note;

		seq_printf(m, "hook_%s: %s", h->name, state_names[h->state]);
		if (h->state == MMT_HOOK_UNAVAILABLE) {
			seq_printf(m, " (%s)\n", h->reason);
			continue;
		}
		if (i == MMT_HOOK_FAULT && fault_counted_by_latency)
			note = "counted by the handle_mm_fault_return kretprobe";
		if (h->optional && !latency_wanted)
			note = "latency_enable is 0";
		seq_printf(m, " (%s %s%s%s)\n", mech_names[h->mech],
			   h->symbol ? h->symbol : "mmtune_selftest_target",
			   *note ? ", " : "", note);
	}
	if ((hooks_enabled || policy_on) && hooks[MMT_HOOK_SELFTEST].placed)
		seq_printf(m, "hook_args: %s\n",
			   !st_args_read ? "unverified (self-test handler saw other arguments)" :
			   st_args_written ? "read+write verified" :
			   "read verified, write unsupported");
	seq_printf(m, "fault_around_callers: %u\n", nr_fa_callers);
	seq_printf(m, "ftrace_enabled_guard: %s\n", guard_registered ?
		   "on (rules exist: kernel.ftrace_enabled=0 is refused)" :
		   "off");
	mutex_unlock(&hooks_lock);
}
