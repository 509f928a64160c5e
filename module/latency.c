// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the latency histogram's text (debugfs latency), from the
 * counters stats.c sums: stats.c reads them under its lock and calls in
 * here, never the other way.
 */
#include <linux/seq_file.h>

#include "hooks.h"
#include "stats.h"

/*
 * The latency file, for people and for parsers (mmtunectl):
 *
 *   state: on                       on, off or unavailable
 *   unit: ns
 *   fault_around_samples: 1024      faults that called filemap_map_pages
 *   no_fault_around_samples: 17     all other faults
 *   unclassified: 0                 timed, but not attributable (rare)
 *   missed: 0                       not timed (no kretprobe instance free)
 *   untimed: 0                      timed, the clock did not advance: left out
 *   #       low       high  fault_around  no_fault_around
 *          1024       2048           980               12
 *          2048       4096            44                5
 *
 * Parsing: a line starting with '#' is a comment; "key: value" lines come
 * first; every other line is a bucket, four unsigned integers separated
 * by blanks: LOW HIGH FAULT_AROUND NO_FAULT_AROUND, counting faults that
 * took LOW <= ns < HIGH.  Buckets are powers of two (the first is 0..1);
 * the last bucket, HIGH = 2^47, also holds everything longer.  Only the
 * buckets from the first to the last non-empty one are shown.  Values
 * are since the last reset.  The clock is local_clock(), as ftrace's: where
 * sched_clock is unstable (e.g. under emulation) it may not advance during
 * a short fault, or a fault that moved to another CPU may end before it
 * began: such a fault is counted in untimed, in no bucket.
 */
static void bucket_bounds(unsigned int b, u64 *low, u64 *high)
{
	*low = b ? 1ULL << (b - 1) : 0;
	*high = 1ULL << b;
}

/*
 * The histogram @s (since the last reset) and @missed, the faults the
 * kretprobe missed since then, with @state the kretprobe's.
 */
void mmtune_latency_print(struct seq_file *m,
			  const struct mmtune_pcpu_stats *s,
			  unsigned long missed, const char *state)
{
	u64 tot[MMT_LAT_KINDS] = { 0 }, low, high;
	int b, first = -1, last = -1;
	unsigned int k;

	for (b = 0; b < MMT_LAT_BUCKETS; b++) {
		for (k = 0; k < MMT_LAT_KINDS; k++) {
			tot[k] += s->lat[k][b];
			if (s->lat[k][b]) {
				if (first < 0)
					first = b;
				last = b;
			}
		}
	}
	seq_printf(m, "state: %s\n", state);
	seq_puts(m, "unit: ns\n");
	if (mmtune_latency_classified()) {
		seq_printf(m, "fault_around_samples: %llu\n", tot[MMT_LAT_FA]);
		seq_printf(m, "no_fault_around_samples: %llu\n",
			   tot[MMT_LAT_NOFA]);
	} else {
		seq_puts(m, "fault_around_samples: unavailable\n");
		seq_puts(m, "no_fault_around_samples: unavailable\n");
	}
	seq_printf(m, "unclassified: %llu\n",
		   s->ctr[MMT_CTR_LAT_UNCLASSIFIED]);
	seq_printf(m, "missed: %lu\n", missed);
	seq_printf(m, "untimed: %llu\n", s->ctr[MMT_CTR_LAT_UNTIMED]);
	seq_printf(m, "# %10s %12s %13s %16s\n", "low", "high",
		   "fault_around", "no_fault_around");
	for (b = first; b >= 0 && b <= last; b++) {
		bucket_bounds(b, &low, &high);
		seq_printf(m, "%12llu %12llu %13llu %16llu\n", low, high,
			   s->lat[MMT_LAT_FA][b], s->lat[MMT_LAT_NOFA][b]);
	}
}

bool mmtune_latency_classified(void)
{
	return mmtune_hook_state(MMT_HOOK_FAULT_AROUND) != MMT_HOOK_UNAVAILABLE;
}
