// SPDX-License-Identifier: GPL-2.0
/*
 * An order per user: the hash map uid_order (uid -> order), filled from
 * user space (bpftool map update pinned ... or a later mmtunectl);
 * a uid not in it keeps the rule's order.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} uid_order SEC(".maps");

char LICENSE[] SEC("license") = "GPL";

MMTUNE_ORDER_PROG(order_uid)
{
	__u32 uid = ctx->uid;
	__u32 *order = bpf_map_lookup_elem(&uid_order, &uid);

	if (order)
		ctx->order = *order;
	return 0;
}
