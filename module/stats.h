/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the fault-path counters (stats.c), for the files that show
 * them (sysfs.c, latency.c).
 */
#ifndef MMTUNE_STATS_H
#define MMTUNE_STATS_H

#include <linux/types.h>

#include "mmtune_abi.h"

struct seq_file;

/* Counters, per CPU, summed on read. */
enum mmtune_ctr {
	MMT_CTR_FAULTS,			/* the kernel's PGFAULT events */
	MMT_CTR_FA_CALLS,		/* filemap_map_pages calls */
	MMT_CTR_FA_REQUESTED,		/* sum of end - start + 1 */
	MMT_CTR_FA_MAPPED,		/* PTEs those calls set */
	MMT_CTR_LAT_UNCLASSIFIED,	/* timed faults not classified */
	MMT_CTR_LAT_UNTIMED,		/* clock did not advance: no sample */
	MMT_CTR_NR
};

/*
 * log2 buckets: bucket b holds [2^(b-1), 2^b) ns, bucket 0 holds 0 ns;
 * as many as the tools read (mmtune_abi.h).
 */
#define MMT_LAT_BUCKETS	MMT_ABI_LAT_BUCKETS

enum mmtune_lat_kind {
	MMT_LAT_FA,			/* fault that called filemap_map_pages */
	MMT_LAT_NOFA,			/* any other fault */
	MMT_LAT_KINDS
};

struct mmtune_pcpu_stats {
	u64 ctr[MMT_CTR_NR];
	u64 lat[MMT_LAT_KINDS][MMT_LAT_BUCKETS];
};

/* NULL if counter @c counts; else "unavailable" or "off" (stats.c). */
const char *mmtune_ctr_absent(enum mmtune_ctr c);
/* Whether latency rows can be split by fault-around (latency.c). */
bool mmtune_latency_classified(void);
/* The debugfs latency file's text of @s (latency.c). */
void mmtune_latency_print(struct seq_file *m,
			  const struct mmtune_pcpu_stats *s,
			  unsigned long missed, const char *state);

#endif /* MMTUNE_STATS_H */
