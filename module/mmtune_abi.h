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
 *   sysfs       /sys/kernel/mm/mmtune/<dir>/<file>: read-only state and
 *               counters, one value per file (the transparent_hugepage
 *               model); works under lockdown.
 */
#ifndef MMTUNE_ABI_H
#define MMTUNE_ABI_H

#define MMT_ABI_PARAM_DIR	"/sys/module/mmtune/parameters"
#define MMT_ABI_SYSFS_DIR	"/sys/kernel/mm/mmtune"
#define MMT_ABI_SYSFS_NAME	"mmtune"	/* under /sys/kernel/mm */
#define MMT_ABI_LOCKDOWN	"/sys/kernel/security/lockdown"

/*
 * Tunables: X(ID, PARAM, DEBUGFS).  PARAM is the parameter's name as an
 * identifier (module_param_cb() takes it so), DEBUGFS the file under
 * <debugfs>/mmtune/.  stats_reset has no debugfs file of its own: it is
 * the write of "0" to debugfs stats.
 */
#define MMT_ABI_TUNABLES(X)						\
	X(FAULT_AROUND_ORDER, fault_around_order, "fault_around_order")	\
	X(STATS_ENABLE, stats_enable, "stats_enable")			\
	X(LATENCY_ENABLE, latency_enable, "latency_enable")		\
	X(PFN_VALID_MODE, pfn_valid_mode, "pfn_valid/mode")		\
	X(POLICY, policy, "policy")					\
	X(STATS_RESET, stats_reset, "stats")

/* The parameter names as identifiers, for module_param_cb(). */
#define MMT_PARAM_FAULT_AROUND_ORDER	fault_around_order
#define MMT_PARAM_STATS_ENABLE		stats_enable
#define MMT_PARAM_LATENCY_ENABLE	latency_enable
#define MMT_PARAM_PFN_VALID_MODE	pfn_valid_mode
#define MMT_PARAM_POLICY		policy
#define MMT_PARAM_STATS_RESET		stats_reset

/* Read-only files of <debugfs>/mmtune/ (besides the tunables'). */
#define MMT_ABI_DEBUGFS_RO(X)						\
	X("info") X("latency") X("pfn_valid/bench")

/*
 * Counters: X(ID, NAME, HELP).  NAME is the line in debugfs stats, the
 * file in sysfs stats/ and, as mmtune_NAME_total, the Prometheus metric
 * (mmtunectl stats --prometheus); HELP is that metric's HELP text.
 */
#define MMT_ABI_COUNTERS(X)						\
	X(MMT_CTR_FAULTS, faults,					\
	  "Page faults (handle_mm_fault calls) since the last reset")	\
	X(MMT_CTR_FA_CALLS, fault_around_calls,				\
	  "Fault-around calls (filemap_map_pages) since the last reset")	\
	X(MMT_CTR_FA_REQUESTED, fault_around_pages_requested,		\
	  "Pages fault-around was asked to map since the last reset")	\
	X(MMT_CTR_FA_MAPPED, fault_around_pages_mapped,			\
	  "Pages fault-around mapped since the last reset")

/* sysfs latency/: X(NAME); the buckets are two arrays, see docs/ABI/. */
#define MMT_ABI_LATENCY(X)						\
	X(state) X(unit) X(fault_around_samples) X(no_fault_around_samples) \
	X(unclassified) X(missed) X(bucket_low_ns)			\
	X(fault_around_buckets) X(no_fault_around_buckets)

/*
 * sysfs info/: X(NAME), each the value of the "NAME: value" line of
 * debugfs info ("unavailable" when this kernel's info has no such line).
 */
#define MMT_ABI_INFO(X)							\
	X(version) X(arch) X(page_size) X(ptrs_per_pte) X(max_order)	\
	X(default_order) X(pfn_valid) X(ibt) X(symbol_lookups)		\
	X(fault_around) X(fault_around_symbol) X(loaded_order) X(order)	\
	X(fault_around_bytes) X(base_order) X(base_set_by)		\
	X(stats_enable) X(latency_enable)				\
	X(hook_handle_mm_fault) X(hook_filemap_map_pages) X(hook_set_pte) \
	X(hook_handle_mm_fault_return) X(hook_args)			\
	X(fault_around_callers) X(ftrace_enabled_guard)			\
	X(policy) X(policy_rules) X(policy_max_rules)			\
	X(policy_default_order) X(policy_kernel_order)			\
	X(pfn_valid_impls) X(pfn_valid_crosscheck)			\
	X(pfn_valid_crosscheck_sweep) X(pfn_valid_override) X(sysfs)

/* sysfs policy/: X(NAME); hits and pages are arrays, one per rule. */
#define MMT_ABI_POLICY(X)						\
	X(rules) X(default_hits) X(default_pages) X(hits) X(pages)

/*
 * sysfs pfn_valid/: X(NAME): the last bench (debugfs pfn_valid/bench):
 * bench_KEY is its "KEY: value" line; bench_impls and bench_median_ns its
 * table's first two columns, one per strategy, in the same order.
 */
#define MMT_ABI_PFN_VALID(X)						\
	X(bench_pattern) X(bench_count) X(bench_overhead_ns)		\
	X(bench_elapsed_ms) X(bench_impls) X(bench_median_ns)

/* The sysfs directories under MMT_ABI_SYSFS_DIR. */
#define MMT_ABI_SYSFS_DIRS(X)						\
	X(info) X(stats) X(latency) X(policy) X(pfn_valid)

#endif /* MMTUNE_ABI_H */
