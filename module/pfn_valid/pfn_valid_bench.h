/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: what pfn_valid_bench.c (the bench and its last result) gives
 * pfn_valid_file.c (the files that run it and show it).
 */
#ifndef MMTUNE_PFN_VALID_BENCH_H
#define MMTUNE_PFN_VALID_BENCH_H

#include <linux/seq_file.h>

#ifdef CONFIG_SPARSEMEM

/* "COUNT PATTERN", a bench's write: 0, or -EINVAL (and what it names). */
int mmtune_pfv_bench_parse(char *buf, unsigned int *count, int *pattern);
/* Runs a bench and keeps its result; the caller holds mmtune_pfv_lock. */
int mmtune_pfv_bench(unsigned int pattern, unsigned int count);
/* The last bench's report (takes mmtune_pfv_lock). */
void mmtune_pfv_bench_show(struct seq_file *m);

#endif /* CONFIG_SPARSEMEM */
#endif /* MMTUNE_PFN_VALID_BENCH_H */
