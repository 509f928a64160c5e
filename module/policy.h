/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the policy's rules and rule sets, shared by rules.c (the fault
 * path: which rule, the window, the counters), policy.c (installing,
 * polling), policy_file.c (the files), auto.c (auto rules across a set)
 * and policy_rule.c (parsing, rendering, copying); the grammar's own
 * words are policy_grammar.h's.
 */
#ifndef MMTUNE_POLICY_H
#define MMTUNE_POLICY_H

#include <linux/compiler.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "auto.h"
#include "auto_file.h"
#include "mmtune_abi.h"
#include "policy_grammar.h"
#include "rules_pure.h"

/* the limits the tools share (mmtune_abi.h) */
#define POLICY_MAX_RULES	MMT_ABI_RULES_MAX
#define POLICY_WRITE_MAX	32768	/* 32 rules of 255-byte cgroup and file paths */
#define POLICY_PATH_MAX		MMT_ABI_PATH_MAX
#define POLICY_MATCH_MAX	MMT_ABI_MATCH_MAX
#define POLICY_POLL		HZ	/* how often the kernel's size is checked */
#define POLICY_POLL_REMOVED	(HZ / 10) /* while a rule's cgroup is gone */

enum rule_kind {
	RULE_NONE,		/* being parsed */
	RULE_COMM,
	RULE_PID,
	RULE_CGROUP,
	RULE_ANY,		/* every task: mapping keys only */
};

#define COMM_WORDS	(TASK_COMM_LEN / sizeof(u64))

struct policy_rule {
	enum rule_kind kind;
	unsigned int order;		/* unless is_auto; auto_from's start */
	bool is_auto;			/* order=auto: au.order, auto.c's */
	bool auto_from;			/* order=auto:N: a new rule starts at N */
	bool auto_file;			/* order=auto:file: an order per file */
	struct mmtune_auto au;
	struct mmtune_auto_files *files; /* auto_file: a reference, or NULL */
	union {
		u64 comm[COMM_WORDS];	/* zero-padded, like task->comm */
		struct pid *pid;	/* a reference */
		/* a reference, NULL once removed (policy_cgroup.c) */
		struct cgroup *cgrp;
	};
	char *path;			/* cgroup: as written */
	char *abs;			/* cgroup: from the real root */
	bool removed;			/* cgroup: gone, none at its path yet */
	u64 parent_id;			/* cgroup: its parent's id, once removed */
	struct cgroup_root *croot;	/* cgroup: its hierarchy */
	/* the mapping keys, which must match too (rules.c's map_match) */
	bool has_map;			/* any of them given */
	struct inode *inode;		/* file=: a reference; NULL: none */
	struct path fpath;		/* file=: held, pins the mount; or none */
	char *file;			/* file=: as written */
	enum rule_vma vma;		/* vma= */
	bool madv_random;		/* madv=random */
	/*
	 * order=auto: whose processes it learns from (learn_uid=, else the
	 * writer's effective uid): those whose real and effective uids are
	 * both @learn_uid, or every process with @learn_any
	 */
	bool learn_any;
	bool learn_given;		/* learn_uid= written: parsing only */
	kuid_t learn_uid;
};

struct policy_ctr {
	u64 hits;
	u64 pages;
	u64 prefaulted;		/* usefulness.c's, see mmtune_policy_prefaulted */
	u64 untouched;
	u64 auto_p;		/* auto.c's: pre-mapped by ended processes */
	u64 auto_u;		/* and left untouched by them */
	u64 auto_runs;		/* those processes */
	u64 untrusted;		/* pre-mapped by processes it does not learn from */
};

struct policy_slot;

struct policy_set {
	unsigned int nr;
	unsigned int max_order;		/* largest order of a rule */
	unsigned int nr_auto;		/* rules with order=auto */
	unsigned int nr_cgroup;		/* cgroup= rules */
	unsigned int nr_map;		/* rules with mapping keys */
	unsigned long gen;		/* of its match cache; READ_ONCE() */
	struct policy_ctr __percpu *ctr; /* [0, nr): rules, [nr]: no match */
	struct policy_match __percpu *cache; /* rules.c's match cache */
	struct policy_slot *slots;	/* rules.c's, per task hash */
	struct policy_rule rule[];
};

/* policy_rule.c */
void policy_rule_free(struct policy_rule *r);
void policy_set_free(struct policy_set *set);
struct policy_set *policy_set_alloc(void);
bool policy_pid_exited(struct pid *pid);
int policy_parse_rule(char *text, struct policy_rule *r, unsigned int line,
		      const struct policy_set *cur);
void policy_set_account(struct policy_set *set, const struct policy_rule *r);
int policy_parse_set(char *buf, struct policy_set *set,
		     const struct policy_set *cur, bool *clear);
void policy_show_rule_text(struct seq_file *m, const struct policy_rule *r);
void policy_show_rule(struct seq_file *m, const struct policy_rule *r);
int policy_rule_dup(struct policy_rule *dst, const struct policy_rule *src);
void policy_rule_match(const struct policy_rule *r, char *buf, size_t len);
bool policy_rule_is(const struct policy_rule *r, const char *match);

/* policy.c: installing, and the life cycle that policy_file.c's feature runs */
extern struct mutex policy_lock;
extern bool policy_ready, policy_exiting;
int policy_install_locked(struct policy_set *set,
			  const struct policy_set *cur, bool clear);
int policy_core_init(void);
void policy_core_exit(void);
extern const struct mmtune_info policy_core_info[];	/* info's values */

/* policy_cgroup.c: cgroup= rules following their path */
bool policy_cgroup_follow(struct policy_set *set);
void policy_cgroup_copy(struct policy_rule *dst, const struct policy_rule *src);
void policy_cgroup_watch(struct policy_set __rcu **cur);
void policy_cgroup_unwatch(void);
bool policy_cgroup_watching(void);

#endif /* MMTUNE_POLICY_H */
