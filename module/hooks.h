/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the fault-path hooks as a layer (hooks.c) and its named users.
 *
 * The layer knows the places (enum mmtune_hook_id) and how to hook them;
 * it knows nothing of what its users do there.  A user (stats' counters
 * and latency in stats.c, the policy in policy.c, the trace events in
 * trace.c) gives a callback per hook it listens to and the set of hooks
 * it needs placed; mmtune_hooks_get() places those no one holds yet,
 * self-tests them and makes the user's callbacks live,
 * mmtune_hooks_put() takes them back and removes what no one holds.
 */
#ifndef MMTUNE_HOOKS_H
#define MMTUNE_HOOKS_H

#include <linux/kprobes.h>
#include <linux/types.h>

struct vm_fault;

enum mmtune_hook_state {
	MMT_HOOK_OFF,		/* placeable, not placed */
	MMT_HOOK_ON,		/* placed */
	MMT_HOOK_UNAVAILABLE,	/* cannot be placed on this kernel */
};

enum mmtune_hook_id {
	MMT_HOOK_FAULT_AROUND,	/* filemap_map_pages entry (ftrace) */
	MMT_HOOK_SET_PTE,	/* the PTE setter, fault-around's calls only */
	MMT_HOOK_LATENCY,	/* handle_mm_fault entry + return (kretprobe) */
	MMT_HOOK_MAP_RETURN,	/* filemap_map_pages entry + return (kretprobe) */
	MMT_HOOK_ZAP,		/* unmap_page_range (7.x: __zap_vma_range) entry */
	MMT_HOOK_NR
};

/*
 * The users, in the order their callbacks run on one call: the policy
 * narrows filemap_map_pages' window first, the trace event shows the
 * window before and after, the counters and the usefulness measurement
 * see the window the kernel gets.
 */
enum mmtune_hook_slot {
	MMT_SLOT_POLICY,
	MMT_SLOT_TRACE,
	MMT_SLOT_STATS,
	MMT_SLOT_USEFUL,
	MMT_HOOK_SLOTS
};

/* The arguments a hook's callbacks can read: MMT_HOOK_ARGS at most. */
#define MMT_HOOK_ARGS	4

/*
 * One call of an ftrace hook, as its callbacks see it, on the stack of
 * the dispatcher (or in a direct call's trampoline frame): the traced
 * function's first arguments in @arg (read and changed with
 * mmtune_call_arg() and mmtune_call_set_arg(); a change reaches the
 * function) and the pages of the PTE setter's call (@nr, 1 where the
 * setter maps one page).  The rest is what an earlier callback tells
 * later ones: the window the kernel asked for before the policy narrowed
 * it, the policy's rule (-1: none) and order, valid if @narrowed.  Small:
 * the dispatcher fills it on every call.
 */
struct mmtune_hook_call {
	unsigned long *arg;
	unsigned long req_start, req_end;
	unsigned int nr;
	s16 rule, order;
	bool narrowed;
};

/* Argument @n (from 0, below the hook's count) of the traced function. */
static __always_inline unsigned long
mmtune_call_arg(const struct mmtune_hook_call *c, unsigned int n)
{
	return c->arg[n];
}

/* Argument @n is @val when the traced function runs. */
static __always_inline void
mmtune_call_set_arg(struct mmtune_hook_call *c, unsigned int n,
		    unsigned long val)
{
	c->arg[n] = val;
}

typedef void (*mmtune_hook_fn)(struct mmtune_hook_call *c);

/*
 * A user.  @fn[id]: its callback on ftrace hook @id (NULL: none), called
 * while the user holds its hooks (between get and put) and the hook is
 * placed, whoever placed it, or while mmtune_hook_listen() says so.
 * @wants: BIT(id) of the hooks that get places for it.  A kretprobe hook
 * (MMT_HOOK_LATENCY, MMT_HOOK_MAP_RETURN) has one holder, whose
 * @krp_entry/@krp_return run with @krp_data_size bytes of per-call data;
 * a user wants at most one kretprobe hook.  @permanent: while the user holds
 * hooks, "sysctl kernel.ftrace_enabled=0" is refused (EBUSY), as for
 * livepatch, since its hooks stopping silently would be wrong.
 */
struct mmtune_hook_user {
	const char *name;
	enum mmtune_hook_slot slot;
	unsigned long wants;
	mmtune_hook_fn fn[MMT_HOOK_NR];
	kretprobe_handler_t krp_entry, krp_return;
	size_t krp_data_size;
	bool permanent;
	/* the layer's */
	unsigned long held;	/* BIT(id) of the hooks placed for it */
	bool on;		/* between get and put */
};

/*
 * hooks.c's direct calls (compat/ftrace_direct.h): the trampolines, and
 * the functions they call with the arguments they saved.
 */
void mmtune_direct_fa_tramp(void);
void mmtune_direct_st_tramp(void);
void mmtune_direct_fa_entry(unsigned long *arg);
void mmtune_direct_st_entry(unsigned long *arg);

/* main.c: before and after every feature. */
int mmtune_hooks_init(void);
void mmtune_hooks_exit(void);

/*
 * Places what @u wants (a hook that cannot be placed is marked unavailable
 * and left out of u->held) and makes its callbacks live.  An error only
 * for real trouble (memory, ftrace refusing a registration, EBUSY for a
 * permanent user while ftrace_enabled is 0); nothing is held then.
 */
int mmtune_hooks_get(struct mmtune_hook_user *u);
/* Undoes get; the user's callbacks have returned when it does. */
void mmtune_hooks_put(struct mmtune_hook_user *u);
/* @u's callback on @id live (or not) without get: no lock, any context. */
void mmtune_hook_listen(struct mmtune_hook_user *u, enum mmtune_hook_id id,
			bool on);
void mmtune_hook_swap(struct mmtune_hook_user *u, enum mmtune_hook_id id,
		      mmtune_hook_fn fn);

enum mmtune_hook_state mmtune_hook_state(enum mmtune_hook_id id);
bool mmtune_hook_held(const struct mmtune_hook_user *u,
		      enum mmtune_hook_id id);
/* A note info shows for @id instead of the layer's own (NULL: none). */
void mmtune_hook_user_note(enum mmtune_hook_id id, const char *note);
/* Whether the self-test proved that a callback's argument change arrives. */
bool mmtune_hooks_args_writable(void);
/* Calls a kretprobe hook skipped since load (monotonic). */
unsigned long mmtune_hook_missed(enum mmtune_hook_id id);

#endif /* MMTUNE_HOOKS_H */
