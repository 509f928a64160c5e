// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the BPF decision point (docs/bpf.md).  After the rules have
 * given a fault-around call its order, a BPF program attached to the
 * writable tracepoint of mmtune_trace_bpf.h may choose a lower one for
 * this call: it sees the fault, its mapping, its task and the rule in a
 * struct mmtune_fault_ctx (mmtune_bpf.h) and writes ->order.  The module
 * takes the order only if it narrows: a program can do no more than a
 * rule can.  An order above the rule's is refused and counted; a program
 * that leaves ->order alone, an error or no program at all leave the
 * rule's order.
 *
 * The tracepoint's static key is the only cost while nothing is
 * attached.  The decisions are counted per order, per CPU.
 *
 * Why a tracepoint and not struct_ops: a writable raw tracepoint needs
 * neither module BTF nor a kernel newer than 5.16, so it works on every
 * kernel the module builds for, Debian 12's included.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include <linux/uidgid.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "bpf.h"

/* the tracepoint, once, here (bpf.h declared it) */
#define CREATE_TRACE_POINTS
#include "mmtune_trace_bpf.h"

/*
 * From 7.2 DECLARE_TRACE appends "_tp" to the tracepoint's name and to
 * its functions' (Kbuild's MMTUNE_TP_SUFFIX).
 */
#ifdef MMTUNE_TP_SUFFIX
#define MMTUNE_TP(fn)	fn##_tp
#define MMTUNE_TP_NAME	MMTUNE_BPF_TP "_tp"
#else
#define MMTUNE_TP(fn)	fn
#define MMTUNE_TP_NAME	MMTUNE_BPF_TP
#endif

/* decided[o]: calls the program gave order o; decided[REFUSED]: above */
#define REFUSED		MMT_ABI_BPF_ORDERS

struct bpf_pcpu {
	u64 decided[MMT_ABI_BPF_ORDERS + 1];
};

static DEFINE_PER_CPU(struct bpf_pcpu, bpf_stats);

/* The context of @vmf's call; its file is the mapping's (filemap_map_pages) */
static __always_inline void ctx_fill(struct mmtune_fault_ctx *x,
				     const struct vm_fault *vmf, int rule,
				     unsigned int order, unsigned long req_start,
				     unsigned long req_end)
{
	const struct vm_area_struct *vma = vmf->vma;
	const struct inode *inode = vma->vm_file ? file_inode(vma->vm_file) :
				    NULL;

	memset(x, 0, sizeof(*x));
	x->address = vmf->address;
	x->pgoff = vmf->pgoff;
	x->vm_start = vma->vm_start;
	x->vm_end = vma->vm_end;
	x->vm_pgoff = vma->vm_pgoff;
	x->vm_flags = vma->vm_flags;
	if (inode) {
		x->ino = inode->i_ino;
		x->dev = new_encode_dev(inode->i_sb->s_dev);
	}
	rcu_read_lock();
	x->cgroup_id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	x->req_start = req_start;
	x->req_end = req_end;
	x->tgid = task_tgid_nr(current);
	x->uid = from_kuid_munged(&init_user_ns, current_uid());
	x->rule = rule;
	x->rule_order = order;
	x->order = order;
	x->page_shift = PAGE_SHIFT;
	x->max_order = mmtune_max_order();
}

/*
 * The order for @vmf's call under @rule (-1: none), whose order is
 * @order, the window asked for being [@req_start, @req_end]: the
 * program's if one is attached and it narrows, else @order.
 */
unsigned int notrace mmtune_bpf_decide(const struct vm_fault *vmf, int rule,
				       unsigned int order,
				       unsigned long req_start,
				       unsigned long req_end)
{
	struct mmtune_fault_ctx x;
	unsigned int want;

	ctx_fill(&x, vmf, rule, order, req_start, req_end);
	MMTUNE_TP(trace_mmtune_order)(&x);
	want = READ_ONCE(x.order);
	if (want > order) {
		this_cpu_inc(bpf_stats.decided[REFUSED]);
		return order;
	}
	this_cpu_inc(bpf_stats.decided[min_t(unsigned int, want,
					     MMT_ABI_BPF_ORDERS - 1)]);
	return want;
}

static void bpf_sum(u64 *sum)
{
	int cpu, o;

	memset(sum, 0, sizeof(u64) * (MMT_ABI_BPF_ORDERS + 1));
	for_each_possible_cpu(cpu) {
		const struct bpf_pcpu *p = per_cpu_ptr(&bpf_stats, cpu);

		for (o = 0; o <= MMT_ABI_BPF_ORDERS; o++)
			sum[o] += READ_ONCE(p->decided[o]);
	}
}

/* sysfs bpf/NAME (mmt_abi_bpf[]), one value or one array per file */
ssize_t mmtune_bpf_sysfs(const char *name, char *buf)
{
	u64 sum[MMT_ABI_BPF_ORDERS + 1], calls = 0;
	unsigned int o, max = mmtune_max_order();
	ssize_t len = 0;

	if (!strcmp(name, "tracepoint"))
		return sysfs_emit(buf, "%s\n", MMTUNE_TP_NAME);
	if (!strcmp(name, "attached"))
		return sysfs_emit(buf, "%d\n", mmtune_bpf_attached());
	bpf_sum(sum);
	if (!strcmp(name, "refused"))
		return sysfs_emit(buf, "%llu\n", sum[REFUSED]);
	if (!strcmp(name, "calls")) {
		for (o = 0; o <= MMT_ABI_BPF_ORDERS; o++)
			calls += sum[o];
		return sysfs_emit(buf, "%llu\n", calls);
	}
	/* decisions: one count per order 0..max_order */
	for (o = 0; o <= max && o < MMT_ABI_BPF_ORDERS; o++)
		len += sysfs_emit_at(buf, len, "%s%llu", o ? " " : "", sum[o]);
	return len + sysfs_emit_at(buf, len, "\n");
}

/* debugfs bpf: the same values, a "name: value" line each */
static int bpf_show(struct seq_file *m, void *v)
{
	char *buf = (char *)__get_free_page(GFP_KERNEL);
	unsigned int i;

	if (!buf)
		return -ENOMEM;
	for (i = 0; mmt_abi_bpf[i]; i++) {
		mmtune_bpf_sysfs(mmt_abi_bpf[i], buf);
		seq_printf(m, "%s: %s", mmt_abi_bpf[i], buf);
	}
	free_page((unsigned long)buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bpf);

static int mmt_bpf_init(struct dentry *dir)
{
	debugfs_create_file("bpf", 0444, dir, NULL, &bpf_fops);
	return 0;
}

const struct mmtune_feature mmtune_bpf_feature = {
	.name	= "bpf",
	.init	= mmt_bpf_init,
};
