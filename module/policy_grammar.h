/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the policy's grammar (policy_grammar.c), which builds in the
 * kernel and on the host (tests/host/rule_unit.c): a write cut into
 * rules, a rule into its KEY=VALUE words, each value's syntax checked.
 * What a value names (a process, a cgroup, a file, a user) is the
 * caller's to resolve, word by word (policy_rule.c).
 */
#ifndef MMTUNE_POLICY_GRAMMAR_H
#define MMTUNE_POLICY_GRAMMAR_H

#include <linux/types.h>

#include "mmtune_abi.h"

/* vma=: which mappings (rules.c's map_match) */
enum rule_vma {
	VMA_ANY,
	VMA_EXEC,		/* executable: program and library text */
	VMA_DATA,		/* not executable, not tmpfs */
	VMA_SHMEM,		/* tmpfs, memfd, SysV and POSIX shared memory */
};

/* vma='s values, as written and shown */
extern const char *const policy_vma_names[];

/* One rule's words, as far as the grammar reads them. */
struct rule_words {
	unsigned int given;		/* BIT(MMT_KEY_*): that key written */
	int task;			/* the task key (MMT_KEY_*) or -1 */
	bool has_map;			/* a mapping key written */
	int pid;			/* pid=: the number */
	unsigned int order;		/* unless is_auto; auto_from's start */
	bool is_auto;			/* order=auto or auto:N */
	bool auto_from;			/* order=auto:N */
	bool auto_file;			/* order=auto:file */
	enum rule_vma vma;		/* vma= */
	bool madv_random;		/* madv=random */
	bool learn_any;			/* learn_uid=any */
	unsigned int learn_uid;		/* learn_uid=N, the writer's namespace's */
};

/*
 * The caller's part of a rule's word @key=@val, whose syntax is checked
 * (and in @w): 0, or the rule's error (after saying why).
 */
typedef int (*rule_resolve_fn)(void *ctx, enum mmt_abi_key key,
			       const char *val, const struct rule_words *w,
			       unsigned int line);
/* The caller's part of a rule line @text: 0, or the write's error. */
typedef int (*rule_line_fn)(void *ctx, char *text, unsigned int line);

__printf(2, 3) int policy_reject(unsigned int line, const char *fmt, ...);
int policy_grammar_rule(char *text, struct rule_words *w, unsigned int line,
			rule_resolve_fn resolve, void *ctx);
int policy_grammar_set(char *buf, bool *clear, rule_line_fn rule, void *ctx);

#endif /* MMTUNE_POLICY_GRAMMAR_H */
