/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune_abi.h: the names of every file mmtune shows to users, in one
 * table that the module (module/) and the tools (userspace/) both
 * include, so that neither can rename, add or drop one alone.  The
 * contract itself is docs/ABI/ (one entry per file).
 *
 * Plain preprocessor and string constants only: included by kernel and
 * user code alike.
 *
 * Three places:
 *   debugfs     <debugfs>/mmtune/<name>: the historic interface, refused
 *               under lockdown (every file with a write bit).
 *   parameters  /sys/module/mmtune/parameters/<param>: every tunable,
 *               writable at run time, set at load by modprobe and
 *               /etc/modprobe.d (the zswap model); works under lockdown.
 *   sysfs       /sys/kernel/mm/mmtune/<dir>/<file>: state and counters,
 *               one value per file (the transparent_hugepage model), read
 *               only but rules/edit; works under lockdown.
 */
#ifndef MMTUNE_ABI_H
#define MMTUNE_ABI_H

#define MMT_ABI_PARAM_DIR	"/sys/module/mmtune/parameters"
#define MMT_ABI_SYSFS_DIR	"/sys/kernel/mm/mmtune"
#define MMT_ABI_SYSFS_NAME	"mmtune"	/* under /sys/kernel/mm */
#define MMT_ABI_LOCKDOWN	"/sys/kernel/security/lockdown"

/* User space defines __maybe_unused first (userspace/lib/mmtune.h). */
#define MMT_ABI_STR_(x)	#x
#define MMT_ABI_STR(x)	MMT_ABI_STR_(x)

/*
 * Limits both sides hold to (docs/policy.md): the module refuses past
 * them, the tools size their tables by them and refuse the same.
 */
#define MMT_ABI_RULES_MAX	32	/* a policy's rules: policy_max_rules */
#define MMT_ABI_PATH_MAX	256	/* cgroup=, file=: a path, its NUL too */
/* a rule's match as text: a cgroup path, a file path and the short keys */
#define MMT_ABI_MATCH_MAX	(2 * MMT_ABI_PATH_MAX + 64)
#define MMT_ABI_COMM_LEN	16	/* comm=: the kernel's TASK_COMM_LEN */
#define MMT_ABI_LAT_BUCKETS	48	/* latency's histogram */
#define MMT_ABI_BPF_ORDERS	16	/* bpf/decisions: orders counted */

/*
 * The policy rule keys (docs/policy.md): mmtune_rule_keys.h's list, as
 * an enum (MMT_KEY_NAME) and a table (mmt_abi_rule_keys[]) that the
 * module's grammar (policy_grammar.c) and the tools read.
 */
enum mmt_abi_key_kind {
	MMT_ABI_KEY_TASK,	/* which processes: at most one key a rule */
	MMT_ABI_KEY_MAP,	/* which of their mappings: any, each once */
	MMT_ABI_KEY_RULE,	/* of the rule itself: order=, learn_uid= */
};

#define MMT_RULE_KEY(name, kind, value)	MMT_KEY_##name,
enum mmt_abi_key {
#include "mmtune_rule_keys.h"
	MMT_KEY_NR
};

#undef MMT_RULE_KEY

struct mmt_abi_rule_key {
	const char *name;		/* without its '=' */
	enum mmt_abi_key_kind kind;
	const char *value;
};

#define MMT_RULE_KEY(name, kind, value)	\
	{ #name, MMT_ABI_KEY_##kind, value },
static const struct mmt_abi_rule_key mmt_abi_rule_keys[] __maybe_unused = {
#include "mmtune_rule_keys.h"
};

#undef MMT_RULE_KEY

/*
 * The parameters' names as identifiers, for module_param_cb() (which
 * takes an identifier); the tables below spell them with MMT_ABI_STR().
 */
#define MMT_PARAM_FAULT_AROUND_ORDER	fault_around_order
#define MMT_PARAM_STATS_ENABLE		stats_enable
#define MMT_PARAM_LATENCY_ENABLE	latency_enable
#define MMT_PARAM_MAPPED_ENABLE		mapped_enable
#define MMT_PARAM_PFN_VALID_MODE	pfn_valid_mode
#define MMT_PARAM_PFN_VALID_BENCH	pfn_valid_bench
#define MMT_PARAM_POLICY		policy
#define MMT_PARAM_STATS_RESET		stats_reset
#define MMT_PARAM_USEFULNESS_ENABLE	usefulness_enable

/*
 * Tunables: the parameter and the debugfs file (under <debugfs>/mmtune/)
 * that set the same thing.  stats_reset has no debugfs file of its own:
 * it is the write of "0" to debugfs stats; pfn_valid_bench runs what
 * pfn_valid/bench runs and reads what it reads.
 */
struct mmt_abi_tunable {
	const char *param;
	const char *debugfs;
};

static const struct mmt_abi_tunable mmt_abi_tunables[] __maybe_unused = {
	{ MMT_ABI_STR(MMT_PARAM_FAULT_AROUND_ORDER), "fault_around_order" },
	{ MMT_ABI_STR(MMT_PARAM_STATS_ENABLE), "stats_enable" },
	{ MMT_ABI_STR(MMT_PARAM_LATENCY_ENABLE), "latency_enable" },
	{ MMT_ABI_STR(MMT_PARAM_MAPPED_ENABLE), "mapped_enable" },
	{ MMT_ABI_STR(MMT_PARAM_PFN_VALID_MODE), "pfn_valid/mode" },
	{ MMT_ABI_STR(MMT_PARAM_PFN_VALID_BENCH), "pfn_valid/bench" },
	{ MMT_ABI_STR(MMT_PARAM_POLICY), "policy" },
	{ MMT_ABI_STR(MMT_PARAM_STATS_RESET), "stats" },
	{ MMT_ABI_STR(MMT_PARAM_USEFULNESS_ENABLE), "usefulness_enable" },
	{ NULL, NULL }
};

/* Read-only files of <debugfs>/mmtune/ (besides the tunables'). */
static const char *const mmt_abi_debugfs_ro[] __maybe_unused = {
	"info", "latency", "usefulness", NULL
};

/*
 * Counters, in the order of the module's enum mmtune_ctr (hooks.h): the
 * line in debugfs stats, the file in sysfs stats/ and, as
 * mmtune_NAME_total, the Prometheus metric (mmtunectl stats
 * --prometheus) with this HELP text.
 */
struct mmt_abi_counter {
	const char *name;
	const char *help;
};

static const struct mmt_abi_counter mmt_abi_counters[] __maybe_unused = {
	{ "faults", "Page faults (the kernel's pgfault events) since the last reset" },
	{ "fault_around_calls",
	  "Fault-around calls (filemap_map_pages) since the last reset" },
	{ "fault_around_pages_requested",
	  "Pages fault-around was asked to map since the last reset" },
	{ "fault_around_pages_mapped",
	  "Pages fault-around mapped since the last reset (with mapped_enable 1)" },
	{ NULL, NULL }
};

/*
 * sysfs info/NAME: the value of the "NAME: value" line of debugfs info
 * ("unavailable" when this kernel's info has no such line).
 */
static const char *const mmt_abi_info[] __maybe_unused = {
	"version", "arch", "page_size", "ptrs_per_pte", "max_order",
	"default_order", "pfn_valid", "ibt", "indirect_calls",
	"indirect_call_checks", "symbol_lookups",
	"fault_around", "fault_around_symbol", "order_scope", "loaded_order",
	"order", "fault_around_bytes", "base_order", "base_set_by",
	"stats_enable", "latency_enable", "mapped_enable",
	"hook_filemap_map_pages", "hook_set_pte",
	"hook_handle_mm_fault_return", "hook_map_pages_return",
	"hook_zap", "hook_args", "fault_around_callers",
	"ftrace_enabled_guard", "hook_selftest",
	"policy", "policy_rules", "policy_max_rules", "policy_default_order",
	"policy_kernel_order", "policy_auto_changes", "policy_auto_lost",
	"policy_live_passes", "policy_live_slots", "policy_live_busy",
	"policy_live_poll_max_us", "policy_live_scanned",
	"policy_live_scan_rcu_max", "policy_cgroup_follow",
	"usefulness_enable", "usefulness", "usefulness_end",
	"usefulness_max_order", "usefulness_contpte",
	"pfn_valid_impls", "pfn_valid_crosscheck", "pfn_valid_crosscheck_sweep",
	"pfn_valid_override", "sysfs", NULL
};

/*
 * sysfs latency/: the histogram of debugfs latency.  bucket_low_ns,
 * fault_around_buckets and no_fault_around_buckets are arrays of one
 * number per bucket, in the same order.
 */
static const char *const mmt_abi_latency[] __maybe_unused = {
	"state", "unit", "fault_around_samples", "no_fault_around_samples",
	"unclassified", "missed", "untimed", "bucket_low_ns", "fault_around_buckets",
	"no_fault_around_buckets", NULL
};

/*
 * sysfs bpf/: the BPF program that chooses the order (module/mmtune_bpf.h,
 * docs/bpf.md).  attached 0 or 1; calls and refused counts; decisions an
 * array, the calls that ended at each order 0..max_order; tracepoint the
 * raw tracepoint's name a program attaches to (it differs by kernel).
 */
#define MMT_ABI_BPF_DIR		"bpf"

static const char *const mmt_abi_bpf[] __maybe_unused = {
	"attached", "calls", "refused", "decisions", "tracepoint", NULL
};

/*
 * sysfs policy/: hits, pages, orders and the rest after them are arrays,
 * one value per rule (debugfs policy's fields; "-" where it has none).
 */
static const char *const mmt_abi_policy[] __maybe_unused = {
	"rules", "default_hits", "default_pages", "hits", "pages", "orders",
	"prefaulted", "untouched", "raised", "lowered", "learned", "useful",
	"untrusted", NULL
};

/*
 * sysfs rules/: count (as policy/rules), edit (root, write only: one edit
 * of the parameter policy's, "add RULE", "first RULE", "drop MATCH",
 * "del N" or "clear") and, made at load for every N below
 * MMT_ABI_RULES_MAX, N/: rule N's values, one a file, debugfs policy's
 * fields ("-" where it has none; a slot past count: ENODATA).  match is
 * the rule's keys as drop takes them, order the written order or "auto".
 */
#define MMT_ABI_RULES_DIR	"rules"
#define MMT_ABI_RULES_COUNT	"count"
#define MMT_ABI_RULES_EDIT	"edit"

static const char *const mmt_abi_rule[] __maybe_unused = {
	"match", "order", "hits", "pages", "prefaulted", "untouched",
	"auto_order", "raised", "lowered", "learned", "useful", "untrusted",
	NULL
};

/*
 * sysfs pfn_valid/: the last bench (debugfs pfn_valid/bench): bench_KEY
 * is its "KEY: value" line; bench_impls and bench_median_ns its table's
 * first two columns, one per strategy, in the same order.
 */
static const char *const mmt_abi_pfn_valid[] __maybe_unused = {
	"bench_pattern", "bench_count", "bench_overhead_ns", "bench_elapsed_ms",
	"bench_impls", "bench_median_ns", NULL
};

#endif /* MMTUNE_ABI_H */
