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
 * What runs on a fault (the dispatchers), the table and resolving its
 * symbols are hooks_table.c's; this file places and removes, self-tests,
 * guards ftrace_enabled and keeps the users, calling into that file only.
 */
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mmtune.h"
#include "compat/ftrace_direct.h"
#include "compat/kretprobe.h"
#include "hooks.h"
#include "hooks_table.h"
#include "selftest.h"

static bool args_read, args_written;	/* the last self-test's */

/* ---- placing and removing ---- */

/* ---- direct calls ---- */

/*
 * Direct calls (hooks_table.c) are off by default: a function has one
 * direct caller at a time, and the kernel's own tools want it.  A BPF
 * fentry/fexit program (bpftrace's
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
		.handler	= hook_krp_return,
		.entry_handler	= hook_krp_entry,
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
		hook_unavailable(h, "%s refused %s (%d)", hook_mech_names[h->mech],
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
			 hook_mech_names[h->mech]);
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

/*
 * @u's callback on hook @id becomes @fn, at once if @u is attached: a user
 * with two versions of a callback swaps them instead of testing a flag on
 * every call (policy.c's, while usefulness's return probe shares its
 * match).  Whoever runs the old one still finishes it, as at a detach.
 */
void mmtune_hook_swap(struct mmtune_hook_user *u, enum mmtune_hook_id id,
		      mmtune_hook_fn fn)
{
	if (id >= MMT_HOOK_NR || u->slot >= MMT_HOOK_SLOTS)
		return;
	mutex_lock(&hooks_lock);
	u->fn[id] = fn;
	if (u->on)
		WRITE_ONCE(hooks[id].cb[u->slot], fn);
	mutex_unlock(&hooks_lock);
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

/* hook_NAME: "STATE (MECHANISM[ SYMBOL][, NOTE])", or "STATE (REASON)" */
static ssize_t hook_show(char *buf, unsigned int id)
{
	const struct mmtune_hook *h = &hooks[id];
	const char *note;
	ssize_t len;

	mutex_lock(&hooks_lock);
	note = h->user_note ? h->user_note : h->note;
	if (h->state == MMT_HOOK_UNAVAILABLE)
		len = sysfs_emit(buf, "%s (%s)\n", state_names[h->state],
				 h->reason);
	else
		len = sysfs_emit(buf, "%s (%s%s %s%s%s%s%s)\n",
				 state_names[h->state], hook_mech_names[h->mech],
				 h->direct ? " direct" : "",
				 h->symbol ? h->symbol : "mmtune_selftest_target",
				 *note ? ", " : "", note,
				 *h->direct_note ? ", " : "", h->direct_note);
	mutex_unlock(&hooks_lock);
	return len;
}

/* what the last self-test proved of the arguments: none before one */
static ssize_t hook_args_show(char *buf, unsigned int arg)
{
	ssize_t len = -ENODATA;

	mutex_lock(&hooks_lock);
	if (hooks[MMT_HOOK_SELFTEST].placed)
		len = sysfs_emit(buf, "%s\n",
				 !args_read ? "unverified (self-test handler saw other arguments)" :
				 args_written ? "read+write verified" :
				 "read verified, write unsupported");
	mutex_unlock(&hooks_lock);
	return len;
}

static ssize_t fa_callers_show(char *buf, unsigned int arg)
{
	ssize_t len;

	mutex_lock(&hooks_lock);
	len = sysfs_emit(buf, "%u\n", hooks_nr_fa_callers());
	mutex_unlock(&hooks_lock);
	return len;
}

static ssize_t ftrace_guard_show(char *buf, unsigned int arg)
{
	ssize_t len;

	mutex_lock(&hooks_lock);
	len = sysfs_emit(buf, "%s\n", nr_permanent ?
			 "on (rules exist: kernel.ftrace_enabled=0 is refused)" :
			 "off");
	mutex_unlock(&hooks_lock);
	return len;
}

/* A hook's name is hooks_table.c's with "hook_", in hooks[]' order. */
const struct mmtune_info mmtune_hooks_info[] = {
	{ "hook_filemap_map_pages", hook_show, MMT_HOOK_FAULT_AROUND },
	{ "hook_set_pte", hook_show, MMT_HOOK_SET_PTE },
	{ "hook_handle_mm_fault_return", hook_show, MMT_HOOK_LATENCY },
	{ "hook_map_pages_return", hook_show, MMT_HOOK_MAP_RETURN },
	{ "hook_zap", hook_show, MMT_HOOK_ZAP },
	{ "hook_selftest", hook_show, MMT_HOOK_SELFTEST },
	{ "hook_args", hook_args_show },
	{ "fault_around_callers", fa_callers_show },
	{ "ftrace_enabled_guard", ftrace_guard_show },
	{ }
};
