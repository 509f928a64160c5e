/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the hooks' table (hooks_table.c), shared with the layer that
 * places the hooks for their users (hooks.c), which calls into the table's
 * file and never the other way.  Private to those two: users see hooks.h.
 */
#ifndef MMTUNE_HOOKS_TABLE_H
#define MMTUNE_HOOKS_TABLE_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>

#include "compat/ftrace_direct.h"
#include "hooks.h"

enum mmtune_hook_mech {
	MMT_MECH_FTRACE,
	MMT_MECH_KRETPROBE,
};

/* "ftrace", "kretprobe": info and the reasons name the mechanism */
extern const char *const hook_mech_names[];

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

#define MMT_HOOK_SELFTEST	MMT_HOOK_NR	/* our own function, last */

/* The hooks in table order (the order they are placed), the self-test's last. */
extern struct mmtune_hook hooks[MMT_HOOK_NR + 1];
/* Placing, removing, and every field the table marks "under hooks_lock". */
extern struct mutex hooks_lock;

/* Marks @h unavailable for the reason given and says so in the log. */
__printf(2, 3) void hook_unavailable(struct mmtune_hook *h, const char *fmt, ...);
/* filemap_map_pages' callers found: the PTE setter's hook tells them apart. */
unsigned int hooks_nr_fa_callers(void);

/* A kretprobe hook's handlers: they run its holder's (hook->holder). */
int hook_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs);
int hook_krp_return(struct kretprobe_instance *ri, struct pt_regs *regs);

/*
 * The direct calls' trampolines (compat/ftrace_direct.h), 0 where the
 * kernel has none.
 */
#if MMTUNE_HAVE_DIRECT
#define DIRECT_FA_TRAMP	((unsigned long)mmtune_direct_fa_tramp)
#define DIRECT_ST_TRAMP	((unsigned long)mmtune_direct_st_tramp)
#else
#define DIRECT_FA_TRAMP	0UL
#define DIRECT_ST_TRAMP	0UL
#endif

#endif /* MMTUNE_HOOKS_TABLE_H */
