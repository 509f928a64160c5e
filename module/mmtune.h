/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: shared declarations of the module's parts.
 */
#ifndef MMTUNE_H
#define MMTUNE_H

#include <linux/types.h>
#include <linux/seq_file.h>

#undef pr_fmt
#define pr_fmt(fmt) "mmtune: " fmt

struct dentry;
struct kobject;
struct mmtune_pcpu_stats;

/*
 * MODULE_PARM_DESC() stringifies its argument as given: this expands the
 * MMT_PARAM_* names of mmtune_abi.h first.
 */
#define mmtune_param_desc(name, desc)	MODULE_PARM_DESC(name, desc)

/*
 * One value of the module's state, shown by debugfs info as its line
 * "NAME: value" and, when mmtune_abi.h's mmt_abi_info lists NAME, by
 * sysfs info/NAME.  @show writes the value and a newline into a page,
 * as a sysfs show does (sysfs_emit()), and returns its length (given
 * @arg, the entry's own), or -ENODATA when there is none, now or on this
 * kernel: then info has no line and sysfs reads "unavailable".  An empty
 * value (a list of nothing: the newline alone) is the line "NAME:",
 * which has no value for sysfs either.  A table ends with an empty
 * entry; an entry with only @more stands for that table's values.
 */
struct mmtune_info {
	const char *name;
	ssize_t (*show)(char *buf, unsigned int arg);
	unsigned int arg;
	const struct mmtune_info *more;
};

/* @name_show: the show of a value that is one printf of what is at hand */
#define MMTUNE_INFO_SHOW(name, fmt, ...)				\
static ssize_t name##_show(char *buf, unsigned int arg)			\
{									\
	return sysfs_emit(buf, fmt "\n", __VA_ARGS__);			\
}

/*
 * One part of the module.  main.c keeps a table of these, brings them up
 * in order and takes them down in reverse, also when a later init fails.
 * @init may leave its feature off (and say why in @info) instead of
 * failing: only a reason that makes the whole module pointless fails it.
 * @info is the feature's values, in the order info shows them.
 */
struct mmtune_feature {
	const char *name;
	int (*init)(struct dentry *dir);
	void (*exit)(void);
	const struct mmtune_info *info;
};

/*
 * write.c: how every debugfs write handler of the module takes its write.
 * mmtune_write_get(): the whole write at offset 0, 1..@max bytes with no
 * NUL byte in it, as a NUL-terminated copy to kfree() (with @chomp,
 * without its one trailing newline); else ERR_PTR(-EINVAL), -EFAULT or
 * -ENOMEM.  mmtune_write_done(): the handler's return, @ret when it is an
 * error, else the write consumed.
 */
char *mmtune_write_get(const char __user *ubuf, size_t count, loff_t *ppos,
		       size_t max, bool chomp);
ssize_t mmtune_write_done(int ret, size_t count, loff_t *ppos);
/* A 0/1 file: exactly "0" or "1" (one trailing newline), else EINVAL. */
int mmtune_write_get_bool(const char __user *ubuf, size_t count, loff_t *ppos,
			  bool *val);
ssize_t mmtune_read_bool(char __user *ubuf, size_t count, loff_t *ppos,
			 bool val);
/*
 * A write that sends a kernel function's callers elsewhere or writes a
 * kernel variable at an address kallsyms gave (@what, for the log): 0
 * when the writer has CAP_SYS_ADMIN and the kernel is not locked down
 * (integrity or confidentiality); else -EPERM.
 */
int mmtune_kernel_write_allowed(const char *what);

/*
 * sysfs.c: /sys/kernel/mm/mmtune/, state (read only but rules/edit);
 * last feature up.
 * main.c hands it how to find info's values by name (main.c's own and
 * the features', so that sysfs.c need not call into main.c, which lists
 * it as a feature) and pfn_valid/'s values, the last bench's.
 */
extern const struct mmtune_feature mmtune_sysfs_feature;
void mmtune_sysfs_values(const struct mmtune_info *(*info)(const char *name),
			 const struct mmtune_info *bench);
/* @table's value named @name (also in its @more tables), or NULL */
const struct mmtune_info *mmtune_info_find(const struct mmtune_info *table,
					   const char *name);

/* symbols.c: kernel symbols the kernel does not export to modules. */
int mmtune_symbols_init(void);
void mmtune_symbols_done(void);
extern const struct mmtune_info mmtune_symbols_info[];
unsigned long mmtune_lookup_name(const char *name);
unsigned long mmtune_lookup_func(const char *name);
unsigned long mmtune_lookup_callable(const char *name);
bool mmtune_lookup_renamed(const char *name, char *buf, size_t len);
unsigned int mmtune_lookup_func_copies(const char *name, unsigned long *addrs,
				       unsigned int max);
bool mmtune_symbol_is(unsigned long addr, const char *name, bool at_start);
unsigned long mmtune_symbol_size(unsigned long addr);
bool mmtune_in_kernel_text(unsigned long addr);
bool mmtune_in_kernel_data(unsigned long addr);

/* arch.c: per-architecture facts, computed at run time. */
const char *mmtune_arch_name(void);
unsigned int mmtune_max_order(void);
/* the largest order whose windows usefulness measures (auto's ceiling) */
unsigned int mmtune_useful_max_order(void);
unsigned int mmtune_default_order(void);
const char *mmtune_pfn_valid_kind(void);

/*
 * fault_around.c: the kernel's fault-around size as an order.  The base
 * order is the user's (knob, parameter, or the kernel's own file); the
 * policy may raise the kernel's size above it (see fault_around.c).
 */
extern const struct mmtune_feature mmtune_fault_around_feature;
extern unsigned int mmtune_fa_base;	/* READ_ONCE() on the fault path */
/* Who changed the order: the mmtune:order_change event's source. */
enum mmtune_order_src {
	MMT_SRC_KNOB,		/* debugfs fault_around_order */
	MMT_SRC_PARAM,		/* the module parameter, at load or later */
	MMT_SRC_RAISE,		/* the policy raised the kernel's size */
	MMT_SRC_RESTORE,	/* the policy's rules went: the base is back */
	MMT_SRC_UNLOAD,		/* unload put the load-time size back */
	MMT_SRC_KERNEL,		/* a write to the kernel's own file, seen */
};

int mmtune_fa_get_order(unsigned int *order);	/* the base */
int mmtune_fa_set_order(unsigned int order);	/* a user's write */
int mmtune_fa_kernel_order_now(void);	/* lock-free, for the events */
int mmtune_fa_kernel_order(unsigned int *order);
int mmtune_fa_raise(unsigned int floor);
void mmtune_fa_unraise(void);
void mmtune_fa_sync(void);
int mmtune_parse_order(const char *buf, unsigned int *order);
bool mmtune_fa_available(void);

/* hooks.c (hooks.h): the hooks' values of info, which stats.c shows */
extern const struct mmtune_info mmtune_hooks_info[];

/* stats.c: fault-path counters and latency (stats.h), users of hooks.h. */
extern const struct mmtune_feature mmtune_stats_feature;
void mmtune_stats_snapshot(struct mmtune_pcpu_stats *s, unsigned long *missed);
const char *mmtune_ctr_name(unsigned int i);

/*
 * policy.c (its rules: policy_rule.c; on the fault path: rules.c; its
 * files: policy_file.c): per-process fault-around orders, a user of hooks.h.
 */
extern const struct mmtune_feature mmtune_policy_feature;
/* sysfs policy/ (policy_file.c): @what is one of MMT_ABI_POLICY's names */
int mmtune_policy_sysfs(const char *what, char *buf);
/* sysfs rules/N/@what, rule @n's (-ENODATA: none), and rules/edit's write */
int mmtune_policy_rule_sysfs(unsigned int n, const char *what, char *buf);
int mmtune_policy_edit(const char *line);
/* rules.c: usefulness.c's window and per-rule counts; preemption off */
void mmtune_policy_window(const struct vm_fault *vmf, unsigned long *start,
			  unsigned long *end);
void mmtune_policy_prefaulted(const struct vm_area_struct *vma, unsigned int n);
bool mmtune_policy_untouched(struct vm_area_struct *vma, unsigned long n);
/* policy.c: usefulness.c tells whether it measures: the live walk runs only then */
void mmtune_policy_measured(bool on);
/* policy.c: ... and whether its return probe does (one match a call) */
void mmtune_policy_share_match(bool on);
/* rules.c: the calls whose rule the hook and the return probe matched once */
unsigned long mmtune_policy_matches_shared(void);
/* rules.c: rss.c's rule= selection, and an auto:file rule's file order */
int mmtune_policy_vma_rule(struct task_struct *t,
			   const struct vm_area_struct *vma, int *file_order);

/* usefulness.c: fault-around's pre-mapped pages touched, a user of hooks.h. */
extern const struct mmtune_feature mmtune_usefulness_feature;
bool mmtune_useful_enabled(void);

/* rss.c: pre-mapped pages still mapped and untouched, per process and file */
extern const struct mmtune_feature mmtune_rss_feature;

/* trace.c: the fault path's trace events place their hooks while listened to */
extern const struct mmtune_feature mmtune_trace_feature;

/* bpf.c: a BPF program's order after the rules' (bpf.h); sysfs bpf/NAME */
extern const struct mmtune_feature mmtune_bpf_feature;
ssize_t mmtune_bpf_sysfs(const char *name, char *buf);

/* pfn_valid/: strategies, bench, cross-check, override (pfn_valid_file.c). */
extern const struct mmtune_feature mmtune_pfn_valid_feature;
/* sysfs pfn_valid/'s values, the last bench's, which main.c hands sysfs.c */
extern const struct mmtune_info mmtune_pfn_valid_bench_info[];

#endif /* MMTUNE_H */
