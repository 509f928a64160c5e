// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the hooks' table, what runs on a fault, and the hooks' symbols.
 *
 * hooks[] names each place, its mechanism and state, and per hook the
 * users' callbacks, one slot per user (hooks.h); the dispatchers below
 * call those callbacks on the fault path.  The layer that places and
 * removes the hooks for their users (hooks.c) calls in here, never the
 * other way: the table is shared with it through hooks_table.h.
 *
 * Mechanisms, chosen by cost:
 *
 *  - ftrace (entry only): the function's fentry/patchable-entry NOP
 *    becomes a call into a trampoline that saves the argument registers
 *    and calls the ops' function (no pt_regs, no breakpoint).  Each placed
 *    hook has its own ftrace_ops, filtered to its one function, whose
 *    function (hook_ftrace_func) finds the hook from the ops it is given
 *    and calls the users' callbacks in slot order: no lookup by address.
 *    With ftrace_regs (DYNAMIC_FTRACE_WITH_ARGS, the only kind arm64 has
 *    from 6.2 on) a callback can read and also change the arguments: the
 *    per-process policy narrows filemap_map_pages' start_pgoff/end_pgoff
 *    (in an array of the arguments that hook_ftrace_func writes back with
 *    mmtune_fregs_set_arg(), proved by the self-test).  The function
 *    keeps preemption off around the callbacks itself; it needs no
 *    recursion guard, since no callback calls anything traceable (so
 *    ftrace's own, FTRACE_OPS_FL_RECURSION, is not asked for:
 *    compat/ftrace_regs.h).
 *    The price of an ops per hook:
 *    removing a dynamic ops waits for RCU-tasks grace periods, once per
 *    ops, so turning the counters off waits for each of their hooks (and
 *    the self-test's); a fault pays neither a list walk nor a lookup.
 *    An ops is registered only with its filter set, never emptied while
 *    registered (an ops with an empty filter traces every function).
 *
 *    No ops has FTRACE_OPS_FL_IPMODIFY or is a direct call (by default):
 *    the kernel's other users of the same functions (BPF fentry/fexit
 *    trampolines, bpftrace's kfunc: probes, a livepatch) are placed
 *    beside ours, before or after, and ours go on working.
 *
 *  - ftrace direct call (entry only), for filemap_map_pages with
 *    hook_direct=1 where the kernel has them (compat/ftrace_direct.h):
 *    the site calls a trampoline of ours, whose function calls the same
 *    callbacks with the arguments the trampoline saved (the "Direct
 *    calls" block below); ftrace's own trampoline and the ops function
 *    are left out.
 *    It locks BPF fentry/fexit and livepatch out of the function.  When
 *    another direct caller holds the function, the ftrace ops above.
 *
 *  - kretprobe (entry + return), for the latency of handle_mm_fault and
 *    for filemap_map_pages' return (usefulness.c: the PTEs it set, made
 *    old): an exit hook needs the return address replaced (rethook).  fprobe
 *    would do it with less overhead (no kprobe layer, no full pt_regs)
 *    but Debian's 6.1 kernels are built without CONFIG_FPROBE, and on x86
 *    with KPROBES_ON_FTRACE the kretprobe's entry is an ftrace call as
 *    well.  Each has one holder, whose handlers the layer's run.
 *
 * The PTE setter's hook counts only fault-around's calls: filemap_map_pages
 * sets each PTE with do_set_pte (6.1; set_pte_range for a run of pages
 * from 6.5 on: compat/symbols.h) after checking the PTE is empty, so every
 * call is one page (nr pages) mapped.  The same setter is also called by
 * finish_fault for faults that fault-around did not resolve; those calls
 * are told apart by their return address (the ftrace callback's
 * parent_ip), which lies in filemap_map_pages (or its out-of-line static
 * helpers on newer kernels), and never reach a callback.  Under a
 * livepatch of filemap_map_pages (or of a helper) the setter's caller is
 * the patch's copy, in the patch's module: the pages it maps are not
 * counted (stats' mapped, policy's pages=, the mapped event fall short
 * by them; every other count and the policy's narrowing, made at the
 * original's entry before ftrace moves on to the copy, are unchanged),
 * and a self-test while such a patch is in force cannot see the hook
 * fire: it marks the hook unavailable until its next placement if the
 * copy maps pages ahead, "untested" if it maps none (info says which).
 *
 * Every callback is notrace and calls nothing traceable, so none can
 * re-enter a hook; ftrace callbacks run with preemption off (the hooks'
 * function), kretprobe handlers inside the kprobe layer's guard, so
 * per-CPU data is updated on the CPU it belongs to.
 */
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "mmtune.h"
#include "compat/attributes.h"
#include "compat/ftrace_direct.h"
#include "compat/ftrace_regs.h"
#include "compat/pte.h"
#include "compat/symbols.h"
#include "hooks.h"
#include "hooks_table.h"
#include "selftest.h"

const char *const hook_mech_names[] = {
	[MMT_MECH_FTRACE] = "ftrace",
	[MMT_MECH_KRETPROBE] = "kretprobe",
};

/* placing, removing, and the table's fields "under hooks_lock" */
DEFINE_MUTEX(hooks_lock);

/* ---- fault-around callers ---- */

struct addr_range {
	unsigned long start, size;
};

static struct addr_range fa_callers[ARRAY_SIZE(mmtune_fault_around_callers) *
				    (1 + ARRAY_SIZE(mmtune_cc_suffixes))];
static unsigned int nr_fa_callers;

unsigned int hooks_nr_fa_callers(void)
{
	return nr_fa_callers;
}

static __always_inline bool from_fault_around(unsigned long pip)
{
	unsigned int i;

	for (i = 0; i < nr_fa_callers; i++)
		if (pip - fa_callers[i].start < fa_callers[i].size)
			return true;
	return false;
}

/* ---- the dispatchers ---- */

static __always_inline void hook_fired(struct mmtune_hook *h)
{
	if (unlikely(!READ_ONCE(h->fired)))
		WRITE_ONCE(h->fired, true);
}

static __always_inline void call_slot(const struct mmtune_hook *h,
				      enum mmtune_hook_slot slot,
				      struct mmtune_hook_call *c)
{
	mmtune_hook_fn fn = READ_ONCE(h->cb[slot]);

	if (fn)
		fn(c);
}

/* @c's callbacks on @h, in slot order. */
static __always_inline void hook_call(struct mmtune_hook *h,
				      struct mmtune_hook_call *c)
{
	hook_fired(h);
	c->narrowed = false;
	/* per-CPU counters, an RCU-sched read of the rules: see the top */
	preempt_disable_notrace();
	/* in slot order, unrolled: a hook call is on the fault path */
	BUILD_BUG_ON(MMT_HOOK_SLOTS != 4);
	call_slot(h, MMT_SLOT_POLICY, c);
	call_slot(h, MMT_SLOT_TRACE, c);
	call_slot(h, MMT_SLOT_STATS, c);
	call_slot(h, MMT_SLOT_USEFUL, c);
	preempt_enable_notrace();
}

/* Every ftrace hook's ops function: the hook is the one that owns @op. */
static void notrace hook_ftrace_func(unsigned long ip, unsigned long pip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	struct mmtune_hook *h = container_of(op, struct mmtune_hook, ops);
	/* filled below, as far as they are read: no zeroing a call */
	unsigned long arg[MMT_HOOK_ARGS] __uninitialized;
	struct mmtune_hook_call c __uninitialized;
	unsigned int i;

	if (h->fa_callers_only && !from_fault_around(pip))
		return;
	/* the callbacks see an array, as a direct call's */
	for (i = 0; i < h->nr_args; i++)
		arg[i] = mmtune_fregs_arg(fregs, i);
	c.arg = arg;
	/* nr is an unsigned int: the register's upper half is not ours */
	c.nr = h->nr_arg >= 0 ? (u32)mmtune_fregs_arg(fregs, h->nr_arg) : 1;
	hook_call(h, &c);
	for (i = 0; i < h->nr_args; i++)
		if (arg[i] != mmtune_fregs_arg(fregs, i))
			mmtune_fregs_set_arg(fregs, i, arg[i]);
}

/*
 * filemap_map_pages' ops function: hook_ftrace_func with what is known of
 * that hook (no caller test, one page a call, its three arguments), so
 * the argument registers are read and written back without a loop or a
 * switch: the policy holds this hook on every fault-around call.  Only
 * the policy changes arguments here, start_pgoff and end_pgoff; they are
 * written back as they are, changed or not (two stores, no compare).  Its
 * array is indexed by constants only: no stack protector (5 instructions
 * a call), as the policy's callback.
 */
static void notrace __no_stack_protector
hook_fa_func(unsigned long ip, unsigned long pip, struct ftrace_ops *op,
	     struct ftrace_regs *fregs)
{
	unsigned long arg[MMT_HOOK_ARGS] __uninitialized;
	struct mmtune_hook_call c __uninitialized;

	arg[0] = mmtune_fregs_arg(fregs, 0);
	arg[1] = mmtune_fregs_arg(fregs, 1);
	arg[2] = mmtune_fregs_arg(fregs, 2);
	c.arg = arg;
	c.nr = 1;
	hook_call(&hooks[MMT_HOOK_FAULT_AROUND], &c);
	mmtune_fregs_set_arg(fregs, 1, arg[1]);
	mmtune_fregs_set_arg(fregs, 2, arg[2]);
}

/*
 * Direct calls (compat/ftrace_direct.h), only with hook_direct=1: the
 * trampoline of filemap_map_pages' hook calls the hook's callbacks with
 * the arguments it saved, no ftrace code in between; the self-test's
 * proves the trampoline on a function of ours.  Only hooks that are not
 * told apart by their caller can be direct (a trampoline has no
 * parent_ip to give).
 * Why they are off by default: hook_direct, hooks.c.
 */
#if MMTUNE_HAVE_DIRECT
/* What the trampoline's frame holds from @arg up (compat/ftrace_direct.h). */
struct direct_frame {
	unsigned long arg[MMTUNE_DIRECT_NR_ARGS];
	struct mmtune_hook_call c;
};

void notrace mmtune_direct_fa_entry(unsigned long *arg)
{
	struct mmtune_hook_call *c = &((struct direct_frame *)arg)->c;

	BUILD_BUG_ON(sizeof(*c) > MMTUNE_DIRECT_SCRATCH);
	BUILD_BUG_ON(MMT_HOOK_ARGS > MMTUNE_DIRECT_NR_ARGS);
	c->arg = arg;
	c->nr = 1;
	hook_call(&hooks[MMT_HOOK_FAULT_AROUND], c);
}

void notrace mmtune_direct_st_entry(unsigned long *arg)
{
	struct mmtune_hook_call c = { .arg = arg, .nr = 1 };

	mmtune_selftest_entry(&c);
}

MMTUNE_DIRECT_TRAMP(mmtune_direct_fa_tramp, mmtune_direct_fa_entry);
MMTUNE_DIRECT_TRAMP(mmtune_direct_st_tramp, mmtune_direct_st_entry);
#endif

/* The hook that owns @ri's kretprobe (the kprobe layer keeps it). */
static __always_inline struct mmtune_hook *krp_hook(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp ? container_of(rp, struct mmtune_hook, krp) : NULL;
}

/* Non-zero: no return handler for this call. */
int notrace hook_krp_entry(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct mmtune_hook *h = krp_hook(ri);
	struct mmtune_hook_user *u = h ? READ_ONCE(h->holder) : NULL;

	if (!u)
		return 1;
	return u->krp_entry(ri, regs);
}

NOKPROBE_SYMBOL(hook_krp_entry);

int notrace hook_krp_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct mmtune_hook *h = krp_hook(ri);
	struct mmtune_hook_user *u = h ? READ_ONCE(h->holder) : NULL;

	if (!u)
		return 0;
	hook_fired(h);
	return u->krp_return(ri, regs);
}

NOKPROBE_SYMBOL(hook_krp_return);

/* ---- the table ---- */

#define FTRACE_HOOK							\
	.mech = MMT_MECH_FTRACE,					\
	.nr_arg = -1,							\
	.ops = { .func = hook_ftrace_func, .flags = MMTUNE_FTRACE_OPS_FLAGS }

struct mmtune_hook hooks[MMT_HOOK_NR + 1] = {
	[MMT_HOOK_FAULT_AROUND] = {
		.name = "filemap_map_pages",
		.symbol = "filemap_map_pages",
		.selftest = SELFTEST_FAULT_AROUND,
		.uses_args = true,
		.nr_args = 3,
		.tramp = DIRECT_FA_TRAMP,
		.mech = MMT_MECH_FTRACE,
		.nr_arg = -1,
		.ops = { .func = hook_fa_func, .flags = MMTUNE_FTRACE_OPS_FLAGS },
	},
	[MMT_HOOK_SET_PTE] = {
		.name = "set_pte",	/* + the symbol found, see info */
		.selftest = SELFTEST_FAULT_AROUND,
		.fa_callers_only = true,
		FTRACE_HOOK,
	},
	[MMT_HOOK_LATENCY] = {
		.name = "handle_mm_fault_return",
		.symbol = "handle_mm_fault",
		.mech = MMT_MECH_KRETPROBE,
		.selftest = SELFTEST_ANY,
	},
	[MMT_HOOK_MAP_RETURN] = {
		.name = "map_pages_return",
		/* symbol: filemap_map_pages where its arguments can be read */
		.mech = MMT_MECH_KRETPROBE,
		.selftest = SELFTEST_FAULT_AROUND,
	},
	[MMT_HOOK_ZAP] = {
		.name = "zap",		/* + the symbol found, see info */
		.selftest = SELFTEST_ANY,	/* the self-test unmaps */
		.uses_args = true,
		.nr_args = 4,
		FTRACE_HOOK,
	},
	[MMT_HOOK_SELFTEST] = {
		.name = "selftest",
		.cb = { mmtune_selftest_entry },
		.nr_args = 3,
		FTRACE_HOOK,
	},
};

/* ---- resolving symbols ---- */

__printf(2, 3) void hook_unavailable(struct mmtune_hook *h,
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

	h->addr = mmtune_lookup_func(h->symbol);
	if (!h->addr) {
		if (mmtune_lookup_renamed(h->symbol, buf, sizeof(buf)))
			hook_unavailable(h, "%s only exists as %s (compiler-specialised copy)",
					 h->symbol, buf);
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

/* filemap_map_pages and its helpers, and their renamed copies */
static void resolve_callers(void)
{
	unsigned long addrs[1 + ARRAY_SIZE(mmtune_cc_suffixes)];
	unsigned int i, j, n;

	for (i = 0; i < ARRAY_SIZE(mmtune_fault_around_callers); i++) {
		n = mmtune_lookup_func_copies(mmtune_fault_around_callers[i],
					      addrs, ARRAY_SIZE(addrs));
		for (j = 0; j < n && nr_fa_callers < ARRAY_SIZE(fa_callers); j++) {
			fa_callers[nr_fa_callers].start = addrs[j];
			fa_callers[nr_fa_callers].size = mmtune_symbol_size(addrs[j]);
			if (fa_callers[nr_fa_callers].size)
				nr_fa_callers++;
		}
	}
}

static const struct mmtune_set_pte_fn *pte_setter;

static void resolve_set_pte(struct mmtune_hook *pte)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mmtune_set_pte_fns); i++) {
		if (mmtune_lookup_func(mmtune_set_pte_fns[i].name)) {
			pte_setter = &mmtune_set_pte_fns[i];
			pte->symbol = pte_setter->name;
			pte->nr_arg = pte_setter->nr_arg;
			pte->uses_args = pte->nr_arg >= 0;
			return;
		}
	}
}

/* The first of mmtune_zap_fns this kernel has, or the first name. */
static void resolve_zap(struct mmtune_hook *zap)
{
	unsigned int i;

	zap->symbol = mmtune_zap_fns[0];
	for (i = 0; i < ARRAY_SIZE(mmtune_zap_fns); i++) {
		if (mmtune_lookup_func(mmtune_zap_fns[i])) {
			zap->symbol = mmtune_zap_fns[i];
			return;
		}
	}
}

int mmtune_hooks_init(void)
{
	struct mmtune_hook *pte = &hooks[MMT_HOOK_SET_PTE];
	struct mmtune_hook *ret = &hooks[MMT_HOOK_MAP_RETURN];
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];
	unsigned int i;

	/* sharing: a livepatch's ops is the IPMODIFY one of its function */
	BUILD_BUG_ON(MMTUNE_FTRACE_OPS_FLAGS & FTRACE_OPS_FL_IPMODIFY);

	mutex_lock(&hooks_lock);
	resolve_set_pte(pte);
	/* its entry handler reads the arguments (mmtune_entry_arg()) */
	if (MMTUNE_HAVE_PTE_MKOLD)
		ret->symbol = "filemap_map_pages";
	resolve_zap(&hooks[MMT_HOOK_ZAP]);
	for (i = 0; i < MMT_HOOK_NR; i++) {
		struct mmtune_hook *h = &hooks[i];

		if (h->symbol)
			resolve_hook(h);
		else if (h == ret)
			hook_unavailable(h, "no accessed-bit clear for this arch");
		else
			hook_unavailable(h, "no PTE setter (set_pte_range, do_set_pte)");
	}
	resolve_callers();
	for (i = 0; i < MMT_HOOK_NR; i++) {
		struct mmtune_hook *h = &hooks[i];

		if (h->fa_callers_only && h->resolved && !nr_fa_callers) {
			h->resolved = false;
			hook_unavailable(h, "no filemap_map_pages: %s callers unknown",
					 h->symbol);
		}
	}

	/* Our own function: a module symbol, so not mmtune_lookup_func(). */
	st->addr = mmtune_selftest_target_addr(false);
	st->size = mmtune_symbol_size(st->addr);
	st->resolved = st->size != 0;
	st->state = st->resolved ? MMT_HOOK_OFF : MMT_HOOK_UNAVAILABLE;
	if (!st->resolved)
		hook_unavailable(st, "size of the self-test function unknown");
	mutex_unlock(&hooks_lock);
	return 0;
}
