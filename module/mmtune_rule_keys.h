/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune_rule_keys.h: the policy rule keys (docs/policy.md), one line
 * each, in the order a rule is shown (the module renders a rule so, the
 * tools put a rule's keys so).  mmtune_abi.h includes it with
 * MMT_RULE_KEY(NAME, KIND, VALUE) defined: KIND one of enum
 * mmt_abi_key_kind, VALUE the value as the tools' messages name it.
 * No include guard: each inclusion makes something else of the list.
 *
 * A new key is a line here, what it matches (module/policy.c's
 * task_match or map_match, with what resolves its value in
 * policy_rule.c's resolve_key and shows it), its tests and its docs.
 */
MMT_RULE_KEY(comm,	TASK,	"NAME")
MMT_RULE_KEY(pid,	TASK,	"TGID")
MMT_RULE_KEY(cgroup,	TASK,	"PATH")
MMT_RULE_KEY(file,	MAP,	"PATH")
MMT_RULE_KEY(vma,	MAP,	"KIND")
MMT_RULE_KEY(madv,	MAP,	"random")
MMT_RULE_KEY(learn_uid,	RULE,	"UID")
MMT_RULE_KEY(order,	RULE,	"N")
