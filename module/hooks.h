/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the fault-path hooks (hooks.c) and the counters they feed
 * (stats.c).
 */
#ifndef MMTUNE_HOOKS_H
#define MMTUNE_HOOKS_H

#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>

/* Counters, per CPU, summed on read. */
enum mmtune_ctr {
	MMT_CTR_FAULTS,			/* handle_mm_fault calls */
	MMT_CTR_FA_CALLS,		/* filemap_map_pages calls */
	MMT_CTR_FA_REQUESTED,		/* sum of end - start + 1 */
	MMT_CTR_FA_MAPPED,		/* PTEs those calls set */
	MMT_CTR_LAT_UNCLASSIFIED,	/* timed faults not classified */
	MMT_CTR_NR
};

/* log2 buckets: bucket b holds [2^(b-1), 2^b) ns, bucket 0 holds 0 ns. */
#define MMT_LAT_BUCKETS	48

enum mmtune_lat_kind {
	MMT_LAT_FA,			/* fault that called filemap_map_pages */
	MMT_LAT_NOFA,			/* any other fault */
	MMT_LAT_KINDS
};

struct mmtune_pcpu_stats {
	u64 ctr[MMT_CTR_NR];
	u64 lat[MMT_LAT_KINDS][MMT_LAT_BUCKETS];
};

/* stats.c: allocated at init, never NULL while a hook is registered. */
extern struct mmtune_pcpu_stats __percpu *mmtune_pcpu;

static __always_inline void mmtune_ctr_add(enum mmtune_ctr c, u64 n)
{
	this_cpu_add(mmtune_pcpu->ctr[c], n);
}

static __always_inline void mmtune_lat_add(enum mmtune_lat_kind k,
					   unsigned int bucket)
{
	this_cpu_inc(mmtune_pcpu->lat[k][bucket]);
}

/* hooks.c */
enum mmtune_hook_state {
	MMT_HOOK_OFF,		/* placeable, not registered */
	MMT_HOOK_ON,		/* registered */
	MMT_HOOK_UNAVAILABLE,	/* cannot be placed on this kernel */
};

enum mmtune_hook_id {
	MMT_HOOK_FAULT,		/* handle_mm_fault entry */
	MMT_HOOK_FAULT_AROUND,	/* filemap_map_pages entry */
	MMT_HOOK_SET_PTE,	/* the PTE setter called by fault-around */
	MMT_HOOK_LATENCY,	/* handle_mm_fault entry + return */
	MMT_HOOK_NR
};

int mmtune_hooks_init(void);
void mmtune_hooks_exit(void);
int mmtune_hooks_enable(void);
void mmtune_hooks_disable(void);
int mmtune_hooks_policy_enable(void);	/* policy.c: rules exist */
void mmtune_hooks_policy_disable(void);
bool mmtune_hooks_enabled(void);
int mmtune_hooks_set_latency(bool on);
bool mmtune_hooks_latency_wanted(void);
bool mmtune_hooks_latency_classified(void);
enum mmtune_hook_state mmtune_hook_state(enum mmtune_hook_id id);
bool mmtune_ctr_available(enum mmtune_ctr c);
unsigned long mmtune_hooks_latency_missed(void);
void mmtune_hooks_info(struct seq_file *m);

#endif /* MMTUNE_HOOKS_H */
