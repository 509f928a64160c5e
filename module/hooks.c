// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the hooks on the page-fault path, as a layer with named users.
 *
 * The places are in one table, hooks[] below: name, mechanism, state, and
 * per hook the users' callbacks, one slot per user (hooks.h).  A user asks
 * for the hooks it needs with mmtune_hooks_get(); the layer counts who
 * holds each hook, places in table order those no one held, self-tests
 * them (selftest.c), and if an unexpected error stops it, takes back what
 * it placed in reverse; mmtune_hooks_put() removes, in reverse, what no
 * one holds any more.  A hook that cannot be placed on this kernel
 * (symbol missing or renamed by the compiler, function not traceable, or
 * it never fires) is marked unavailable with the reason, the others go
 * on, and the user sees it missing from its held set.
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
 *    ftrace's own, FTRACE_OPS_FL_RECURSION, is not asked for: compat.h).
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
 *    hook_direct=1 where the kernel has them (compat.h): the site calls
 *    a trampoline of ours, whose function calls the same callbacks with
 *    the arguments the trampoline saved (the "Direct calls" block
 *    below); ftrace's own trampoline and the ops function are left out.
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
 * from 6.5 on, see compat.h) after checking the PTE is empty, so every
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
#include "compat.h"
#include "hooks.h"
#include "selftest.h"

enum mmtune_hook_mech {
	MMT_MECH_FTRACE,
	MMT_MECH_KRETPROBE,
};

static const char *const mech_names[] = {
	[MMT_MECH_FTRACE] = "ftrace",
	[MMT_MECH_KRETPROBE] = "kretprobe",
};

/*
 * What the self-test expects of a hook after one read fault on a file
 * page: SELFTEST_ANY, it fires; SELFTEST_FAULT_AROUND, it fires if
 * fault-around is on (order > 0); SELFTEST_NONE, not checked.
 */
enum mmtune_selftest_kind {
	SELFTEST_NONE,
	SELFTEST_ANY,
	SELFTEST_FAULT_AROUND,
};

struct mmtune_hook {
	const char *name;		/* info: hook_<name> */
	const char *symbol;		/* NULL: chosen by init */
	enum mmtune_hook_mech mech;
	enum mmtune_selftest_kind selftest;
	bool uses_args;			/* reads arguments from ftrace_regs */
	unsigned int nr_args;		/* its callbacks read: MMT_HOOK_ARGS */
	bool fa_callers_only;		/* calls from fault-around only */
	int nr_arg;			/* call's pages, -1: one page */

	/* found by init */
	unsigned long addr;
	unsigned long size;
	bool resolved;

	/* under hooks_lock */
	enum mmtune_hook_state state;
	bool placed;
	unsigned int refs;		/* users holding it */
	struct mmtune_hook_user *holder;	/* a kretprobe's */
	const char *user_note;
	char reason[112];		/* why unavailable */
	char note[80];			/* self-test result when on */
	bool direct;			/* placed as a direct call */
	char direct_note[64];		/* why not, when it could have been */
	unsigned long missed_before;	/* kretprobe misses, earlier placements */

	/* the mechanism's, and the callbacks' */
	struct ftrace_ops ops;
	struct ftrace_ops dops;		/* a direct call's */
	unsigned long tramp;		/* a direct call's trampoline, or 0 */
	struct kretprobe krp;
	mmtune_hook_fn cb[MMT_HOOK_SLOTS];
	bool fired;
};

static DEFINE_MUTEX(hooks_lock);
static bool args_read, args_written;	/* the last self-test's */

/* ---- fault-around callers ---- */

struct addr_range {
	unsigned long start, size;
};

static struct addr_range fa_callers[ARRAY_SIZE(mmtune_fault_around_callers) *
				    (1 + ARRAY_SIZE(mmtune_cc_suffixes))];
static unsigned int nr_fa_callers;

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

static struct mmtune_hook hooks[MMT_HOOK_NR + 1];

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
 * Direct calls (compat.h), only with hook_direct=1: the trampoline of
 * filemap_map_pages' hook calls the hook's callbacks with the arguments
 * it saved, no ftrace code in between; the self-test's proves the
 * trampoline on a function of ours.  Only hooks that are not told apart
 * by their caller can be direct (a trampoline has no parent_ip to give).
 *
 * Off by default: a function has one direct caller at a time, and the
 * kernel's own tools want it.  A BPF fentry/fexit program (bpftrace's
 * kfunc:/fentry: probes, retsnoop) is a BPF trampoline placed as the
 * direct call: while ours holds the function the kernel refuses it
 * (EBUSY), and a livepatch of the function (an IPMODIFY ops) is refused
 * too, since our direct ops has no ops_func to agree to share with it.
 * The plain ftrace ops (no direct call, no IPMODIFY: the arguments
 * changed through ftrace_regs) sits beside both, in either order of
 * arrival: ftrace calls every ops of the site, then the BPF trampoline
 * or the livepatched function, with the arguments as we left them.  It
 * costs about 0.3 % more kernel instructions per fault-around fault
 * (docs/benchmarks.md).  With hook_direct=1 the direct call is still
 * refused where another direct caller holds the function (EBUSY), and
 * the hook is the ftrace ops then.
 */
static bool direct_enable;
module_param_named(hook_direct, direct_enable, bool, 0644);
MODULE_PARM_DESC(hook_direct,
		 "Place filemap_map_pages' hook as an ftrace direct call where the kernel has them: BPF fentry/fexit and livepatch are then refused on it (default N; from the next placement)");

#if MMTUNE_HAVE_DIRECT
/* What the trampoline's frame holds from @arg up (compat.h). */
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
#define DIRECT_FA_TRAMP	((unsigned long)mmtune_direct_fa_tramp)
#define DIRECT_ST_TRAMP	((unsigned long)mmtune_direct_st_tramp)
#else
#define DIRECT_FA_TRAMP	0UL
#define DIRECT_ST_TRAMP	0UL
#endif

static struct mmtune_hook hooks[MMT_HOOK_NR + 1];

/* The hook that owns @ri's kretprobe (the kprobe layer keeps it). */
static __always_inline struct mmtune_hook *krp_hook(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp ? container_of(rp, struct mmtune_hook, krp) : NULL;
}

/* Non-zero: no return handler for this call. */
static int notrace krp_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct mmtune_hook *h = krp_hook(ri);
	struct mmtune_hook_user *u = h ? READ_ONCE(h->holder) : NULL;

	if (!u)
		return 1;
	return u->krp_entry(ri, regs);
}

NOKPROBE_SYMBOL(krp_entry);

static int notrace krp_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct mmtune_hook *h = krp_hook(ri);
	struct mmtune_hook_user *u = h ? READ_ONCE(h->holder) : NULL;

	if (!u)
		return 0;
	hook_fired(h);
	return u->krp_return(ri, regs);
}

NOKPROBE_SYMBOL(krp_return);

/* ---- the table ---- */

#define MMT_HOOK_SELFTEST	MMT_HOOK_NR	/* our own function, last */

#define FTRACE_HOOK							\
	.mech = MMT_MECH_FTRACE,					\
	.nr_arg = -1,							\
	.ops = { .func = hook_ftrace_func, .flags = MMTUNE_FTRACE_OPS_FLAGS }

static struct mmtune_hook hooks[MMT_HOOK_NR + 1] = {
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

/* ---- placing and removing ---- */

/* ---- direct calls ---- */

static int direct_tested;	/* 0: not yet, 1: works, -errno: failed */

/* @ops (cleared here) on @addr as a direct call of @tramp; or -errno. */
static int direct_register(struct ftrace_ops *ops, unsigned long addr,
			   unsigned long tramp)
{
	int ret;

	/* a failed registration may leave its function set: start clean */
	memset(ops, 0, sizeof(*ops));
	ret = ftrace_set_filter_ip(ops, addr, 0, 1);
	if (!ret)
		ret = mmtune_register_direct(ops, tramp);
	if (ret)
		ftrace_free_filter(ops);
	return ret;
}

/* Once: whether a direct call reads and changes arguments here. */
static int direct_selftest(void)
{
	static struct ftrace_ops st_ops;
	bool read = false, written = false;
	int ret;

	ret = direct_register(&st_ops, mmtune_selftest_target_addr(true),
			      DIRECT_ST_TRAMP);
	if (ret)
		return ret;
	mmtune_selftest_args(true, &read, &written);
	mmtune_unregister_direct(&st_ops, DIRECT_ST_TRAMP);
	return read && written ? 1 : -EIO;
}

/* 0: @h placed as a direct call; else not, and h->direct_note says why. */
static int place_direct(struct mmtune_hook *h)
{
	int ret;

	if (!h->tramp)
		return -EOPNOTSUPP;
	if (!READ_ONCE(direct_enable)) {
		strscpy(h->direct_note, "direct call off: hook_direct=0",
			sizeof(h->direct_note));
		return -EPERM;
	}
	if (!direct_tested)
		direct_tested = direct_selftest();
	if (direct_tested < 0) {
		snprintf(h->direct_note, sizeof(h->direct_note),
			 "direct call failed its self-test (%d)", direct_tested);
		return direct_tested;
	}
	ret = direct_register(&h->dops, h->addr, h->tramp);
	if (ret) {
		snprintf(h->direct_note, sizeof(h->direct_note),
			 "direct call refused (%d)%s", ret,
			 ret == -EBUSY ? ": another direct caller (BPF?)" : "");
		return ret;
	}
	h->direct = true;
	return 0;
}

static int place_ftrace(struct mmtune_hook *h)
{
	int ret;

	h->direct = false;
	h->direct_note[0] = '\0';
	if (!place_direct(h))
		return 0;
	/* reset=1: stale entries of an earlier placement go */
	ret = ftrace_set_filter_ip(&h->ops, h->addr, 0, 1);
	if (ret)
		return ret;
	ret = register_ftrace_function(&h->ops);
	if (ret) {
		pr_err("register_ftrace_function (%s): %d\n", h->name, ret);
		return -ENOMEM;		/* real trouble: unwind */
	}
	return 0;
}

static int place_kretprobe(struct mmtune_hook *h, struct mmtune_hook_user *u)
{
	int ret;

	/* a fresh struct each time: kprobes keep state in it */
	h->krp = (struct kretprobe) {
		.kp.symbol_name	= h->symbol,
		.handler	= krp_return,
		.entry_handler	= krp_entry,
		.data_size	= u->krp_data_size,
		.maxactive	= MMTUNE_KRETPROBE_MAXACTIVE,
	};
	WRITE_ONCE(h->holder, u);
	ret = register_kretprobe(&h->krp);
	if (ret)
		WRITE_ONCE(h->holder, NULL);
	return ret;
}

/*
 * Place @h for @u.  0: placed, or marked unavailable because it cannot
 * be; -ENOMEM (or ftrace's refusal to register) for real trouble.
 */
static int place_hook(struct mmtune_hook *h, struct mmtune_hook_user *u)
{
	int ret;

	WRITE_ONCE(h->fired, false);
	h->note[0] = '\0';
	if (h->mech == MMT_MECH_FTRACE)
		ret = place_ftrace(h);
	else
		ret = place_kretprobe(h, u);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		hook_unavailable(h, "%s refused %s (%d)", mech_names[h->mech],
				 h->symbol, ret);
		return 0;
	}
	h->placed = true;
	h->state = MMT_HOOK_ON;
	return 0;
}

static void remove_hook(struct mmtune_hook *h)
{
	if (!h->placed)
		return;
	if (h->direct) {
		/* waits for every trampoline to return (RCU tasks) */
		mmtune_unregister_direct(&h->dops, h->tramp);
		h->direct = false;
	} else if (h->mech == MMT_MECH_FTRACE) {
		/* waits for every callback to finish (RCU tasks) */
		unregister_ftrace_function(&h->ops);
	} else {
		/* waits until no handler runs; pending returns skip us */
		unregister_kretprobe(&h->krp);
		WRITE_ONCE(h->holder, NULL);
		/* the next placement starts from 0: keep the count monotonic */
		h->missed_before += h->krp.nmissed + h->krp.kp.nmissed;
		h->krp.nmissed = 0;
		h->krp.kp.nmissed = 0;
	}
	h->placed = false;
	if (h->state == MMT_HOOK_ON)
		h->state = MMT_HOOK_OFF;
}

/* Ftrace hooks placed, the self-test's aside. */
static unsigned int nr_ftrace_placed(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < MMT_HOOK_NR; i++)
		n += hooks[i].placed && hooks[i].mech == MMT_MECH_FTRACE;
	return n;
}

/* Drop @u's hold on each hook, in reverse; remove those no one holds. */
static void release(struct mmtune_hook_user *u)
{
	bool still_placed = false;
	int i;

	for (i = MMT_HOOK_NR - 1; i >= 0; i--) {
		struct mmtune_hook *h = &hooks[i];

		if (!(u->held & BIT(i)))
			continue;
		u->held &= ~BIT(i);
		if (--h->refs)
			still_placed = true;
		else
			remove_hook(h);
	}
	if (!nr_ftrace_placed())
		remove_hook(&hooks[MMT_HOOK_SELFTEST]);
	/* callbacks of @u on a hook that stays: out of them before we return */
	if (still_placed)
		synchronize_rcu();
}

/*
 * The self-test function first, with the first ftrace hook: it proves
 * ftrace works here before the others are placed.
 */
static int place_selftest(void)
{
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];

	if (st->placed || !st->resolved)
		return 0;
	return place_hook(st, NULL);
}

/* Place, in table order, what @u wants; *fresh: the ones newly placed. */
static int place_wanted(struct mmtune_hook_user *u, unsigned long *fresh)
{
	struct mmtune_hook *st = &hooks[MMT_HOOK_SELFTEST];
	unsigned int i;
	int ret;

	for (i = 0; i < MMT_HOOK_NR; i++) {
		struct mmtune_hook *h = &hooks[i];

		if (!(u->wants & BIT(i)) || !h->resolved)
			continue;
		if (!h->refs) {
			/* a self-test failure is judged again at every get */
			h->state = MMT_HOOK_OFF;
			if (h->mech == MMT_MECH_FTRACE) {
				ret = place_selftest();
				if (ret)
					return ret;
				if (!st->placed) {
					hook_unavailable(h, "ftrace unusable here: %s",
							 st->reason);
					continue;
				}
			}
			ret = place_hook(h, u);
			if (ret)
				return ret;
			if (!h->placed)
				continue;
			*fresh |= BIT(i);
		} else if (h->mech == MMT_MECH_KRETPROBE) {
			continue;	/* one holder */
		}
		h->refs++;
		u->held |= BIT(i);
	}
	return 0;
}

/* ---- the self-test ---- */

/* Whether one of @fresh is judged only by a fault that did fault-around. */
static bool needs_fault_around(unsigned long fresh)
{
	unsigned int i;

	for (i = 0; i < MMT_HOOK_NR; i++)
		if ((fresh & BIT(i)) && hooks[i].selftest == SELFTEST_FAULT_AROUND)
			return true;
	return false;
}

static bool all_fired(unsigned long fresh)
{
	unsigned int i;

	for (i = 0; i < MMT_HOOK_NR; i++)
		if ((fresh & BIT(i)) && hooks[i].placed &&
		    hooks[i].selftest != SELFTEST_NONE &&
		    !READ_ONCE(hooks[i].fired))
			return false;
	return true;
}

/* Whether @h passed; if it failed it is removed and marked unavailable. */
static bool selftest_judge(struct mmtune_hook *h, int fault_ret,
			   const struct mmtune_selftest_result *r)
{
	if (h->uses_args && !h->direct && !args_read) {
		remove_hook(h);
		hook_unavailable(h, "reading arguments from ftrace_regs failed the self-test");
		return false;
	}
	if (READ_ONCE(h->fired)) {
		strscpy(h->note, "fired in self-test", sizeof(h->note));
		return true;
	}
	if (h->selftest == SELFTEST_NONE)
		return true;
	if (fault_ret || !r->faulted) {
		snprintf(h->note, sizeof(h->note),
			 "untested: self-test fault failed (%d)", fault_ret);
		return true;
	}
	if (h->selftest == SELFTEST_FAULT_AROUND && !r->fault_around) {
		strscpy(h->note, "untested: fault-around was off (order 0)",
			sizeof(h->note));
		return true;
	}
	remove_hook(h);
	hook_unavailable(h, "%s registered but did not fire in the self-test",
			 mech_names[h->mech]);
	return false;
}

/*
 * Judge the hooks @u just placed (@fresh).  Up to three tries, to catch
 * a moment with fault-around on while someone is changing the order.  A
 * hook is judged only by a fault that went where the hook is.
 */
static void selftest(struct mmtune_hook_user *u, unsigned long fresh)
{
	bool want_fa = needs_fault_around(fresh);
	struct mmtune_selftest_result r = { };
	int i, try, ret = 0;

	if (hooks[MMT_HOOK_SELFTEST].placed)
		mmtune_selftest_args(false, &args_read, &args_written);
	for (try = 0; try < 3 && !ret; try++) {
		ret = mmtune_selftest_fault(&r);
		if ((r.fault_around || (r.faulted && !want_fa)) &&
		    all_fired(fresh))
			break;
	}
	for (i = 0; i < MMT_HOOK_NR; i++) {
		if (!(fresh & BIT(i)) || selftest_judge(&hooks[i], ret, &r))
			continue;
		u->held &= ~BIT(i);
		hooks[i].refs--;
	}
	if (!nr_ftrace_placed())
		remove_hook(&hooks[MMT_HOOK_SELFTEST]);
}

/* ---- the ftrace_enabled guard ---- */

/*
 * While a permanent user holds hooks (the policy: the kernel's size is
 * raised and only its hook narrows it back), "sysctl
 * kernel.ftrace_enabled=0" would silently stop them.  The kernel refuses
 * that sysctl (EBUSY) while an ops with FTRACE_OPS_FL_PERMANENT is
 * registered, as it does for livepatch.  The hooks' ops cannot carry the
 * flag: the counters share them, and an ops' flags are the kernel's to
 * change once it is registered.  So this second ops, with the flag from
 * the start, is placed on a function of ours that nothing calls: it costs
 * nothing on the fault path.
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

static unsigned int nr_permanent;	/* users holding the guard */

/* Caller holds hooks_lock.  -EBUSY: ftrace_enabled is 0. */
static int guard_get(void)
{
	int ret;

	if (nr_permanent++)
		return 0;
	ret = ftrace_set_filter_ip(&guard_ops,
				   (unsigned long)mmtune_guard_target, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&guard_ops);
	if (ret) {
		nr_permanent--;
		pr_err("cannot register the ftrace_enabled guard (%d)%s\n",
		       ret, ret == -EBUSY ? ": kernel.ftrace_enabled is 0" : "");
	}
	return ret;
}

static void guard_put(void)
{
	if (nr_permanent && !--nr_permanent)
		unregister_ftrace_function(&guard_ops);
}

/* ---- the users ---- */

/* @u's callbacks into the slots (@on), or out of them. */
static void attach(struct mmtune_hook_user *u, bool on)
{
	unsigned int i;

	for (i = 0; i < MMT_HOOK_NR; i++)
		if (u->fn[i])
			mmtune_hook_listen(u, i, on);
}

int mmtune_hooks_get(struct mmtune_hook_user *u)
{
	unsigned long fresh = 0;
	int ret = 0;

	mutex_lock(&hooks_lock);
	if (u->on)
		goto out;
	/* first: with ftrace_enabled 0 no hook would run (EBUSY) */
	if (u->permanent) {
		ret = guard_get();
		if (ret)
			goto out;
	}
	ret = place_wanted(u, &fresh);
	if (ret) {
		release(u);
		if (u->permanent)
			guard_put();
		goto out;
	}
	if (fresh)
		selftest(u, fresh);
	attach(u, true);
	u->on = true;
out:
	mutex_unlock(&hooks_lock);
	return ret;
}

void mmtune_hooks_put(struct mmtune_hook_user *u)
{
	mutex_lock(&hooks_lock);
	if (u->on) {
		attach(u, false);
		u->on = false;
		release(u);
		if (u->permanent)
			guard_put();
	}
	mutex_unlock(&hooks_lock);
}

void mmtune_hook_listen(struct mmtune_hook_user *u, enum mmtune_hook_id id,
			bool on)
{
	if (id >= MMT_HOOK_NR || u->slot >= MMT_HOOK_SLOTS || !u->fn[id])
		return;
	WRITE_ONCE(hooks[id].cb[u->slot], on ? u->fn[id] : NULL);
}

void mmtune_hooks_exit(void)
{
	int i;

	/* the users have put theirs: this only catches what one left */
	mutex_lock(&hooks_lock);
	for (i = ARRAY_SIZE(hooks) - 1; i >= 0; i--) {
		remove_hook(&hooks[i]);
		hooks[i].refs = 0;
	}
	if (nr_permanent) {
		nr_permanent = 1;
		guard_put();
	}
	mutex_unlock(&hooks_lock);
	/* the ops are unregistered: their filters can go */
	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		if (hooks[i].mech == MMT_MECH_FTRACE)
			ftrace_free_filter(&hooks[i].ops);
	ftrace_free_filter(&guard_ops);
}

/* ---- state ---- */

enum mmtune_hook_state mmtune_hook_state(enum mmtune_hook_id id)
{
	const struct mmtune_hook *h = &hooks[id];

	return READ_ONCE(h->state);
}

bool mmtune_hook_held(const struct mmtune_hook_user *u,
		      enum mmtune_hook_id id)
{
	return READ_ONCE(u->held) & BIT(id);
}

void mmtune_hook_user_note(enum mmtune_hook_id id, const char *note)
{
	mutex_lock(&hooks_lock);
	hooks[id].user_note = note;
	mutex_unlock(&hooks_lock);
}

bool mmtune_hooks_args_writable(void)
{
	bool ret;

	mutex_lock(&hooks_lock);
	ret = args_read && args_written;
	mutex_unlock(&hooks_lock);
	return ret;
}

unsigned long mmtune_hook_missed(enum mmtune_hook_id id)
{
	struct mmtune_hook *h = &hooks[id];
	unsigned long n;

	mutex_lock(&hooks_lock);
	n = h->missed_before + READ_ONCE(h->krp.nmissed) +
	    READ_ONCE(h->krp.kp.nmissed);
	mutex_unlock(&hooks_lock);
	return n;
}

static const char *const state_names[] = {
	[MMT_HOOK_OFF] = "off",
	[MMT_HOOK_ON] = "on",
	[MMT_HOOK_UNAVAILABLE] = "unavailable",
};

/* "hook_NAME: STATE (MECHANISM[ SYMBOL][, NOTE])", or "(REASON)". */
static void hook_info(struct seq_file *m, const struct mmtune_hook *h)
{
	enum mmtune_hook_state st = h->state;
	const char *note = h->note;

	seq_printf(m, "hook_%s: %s", h->name, state_names[st]);
	if (st == MMT_HOOK_UNAVAILABLE) {
		seq_printf(m, " (%s)\n", h->reason);
		return;
	}
	if (h->user_note)
		note = h->user_note;
	seq_printf(m, " (%s%s %s%s%s%s%s)\n", mech_names[h->mech],
		   h->direct ? " direct" : "",
		   h->symbol ? h->symbol : "mmtune_selftest_target",
		   *note ? ", " : "", note,
		   *h->direct_note ? ", " : "", h->direct_note);
}

void mmtune_hooks_info(struct seq_file *m)
{
	unsigned int i;

	mutex_lock(&hooks_lock);
	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		hook_info(m, &hooks[i]);
	if (hooks[MMT_HOOK_SELFTEST].placed)
		seq_printf(m, "hook_args: %s\n",
			   !args_read ? "unverified (self-test handler saw other arguments)" :
			   args_written ? "read+write verified" :
			   "read verified, write unsupported");
	seq_printf(m, "fault_around_callers: %u\n", nr_fa_callers);
	seq_printf(m, "ftrace_enabled_guard: %s\n", nr_permanent ?
		   "on (rules exist: kernel.ftrace_enabled=0 is refused)" :
		   "off");
	mutex_unlock(&hooks_lock);
}
