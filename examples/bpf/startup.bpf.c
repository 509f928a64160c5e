// SPDX-License-Identifier: GPL-2.0
/*
 * startup: order 0 for the first seconds of every process, its rule's
 * order after: a start-up maps much that it never reads again.  A
 * process's clock starts at its first fault-around call (where this
 * program first sees it).  Set at load (docs/bpf.md): cfg[0] = the
 * seconds.  first_seen forgets the least recently used processes.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} first_seen SEC(".maps");

MMTUNE_ORDER_PROG(startup_order)
{
	__u32 zero = 0, tgid = ctx->tgid;
	__u64 now = bpf_ktime_get_ns(), *secs, *first;

	secs = bpf_map_lookup_elem(&cfg, &zero);
	first = bpf_map_lookup_elem(&first_seen, &tgid);
	if (!secs)
		return 0;
	if (!first) {
		bpf_map_update_elem(&first_seen, &tgid, &now, BPF_NOEXIST);
		ctx->order = 0;
		return 0;
	}
	if (now - *first < *secs * 1000000000ULL)
		ctx->order = 0;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
