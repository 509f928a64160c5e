// SPDX-License-Identifier: GPL-2.0
/*
 * uid: an order per user.  Set at load (docs/bpf.md): uid_order[UID] =
 * ORDER for each user to hold at ORDER; any other user's calls keep
 * their rule's order.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} uid_order SEC(".maps");

MMTUNE_ORDER_PROG(uid_order_prog)
{
	__u32 uid = ctx->uid;
	__u32 *o = bpf_map_lookup_elem(&uid_order, &uid);

	if (o)
		ctx->order = *o;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
