// SPDX-License-Identifier: GPL-2.0
/*
 * range: one file's pages in [first, last] at one order, its other pages
 * at another: a search engine's compound file, a random-access part
 * beside a sequential one.  Set at load (docs/bpf.md):
 *   range[0] dev (stat's st_dev, 0: any)  range[1] inode number
 *   range[2] first page  range[3] last page
 *   range[4] the order inside  range[5] the order outside
 * Another file's calls keep their rule's order.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

enum { DEV, INO, FIRST, LAST, INSIDE, OUTSIDE, NR };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR);
	__type(key, __u32);
	__type(value, __u64);
} range SEC(".maps");

static __always_inline __u64 get(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&range, &i);

	return v ? *v : 0;
}

MMTUNE_ORDER_PROG(range_order)
{
	__u64 dev = get(DEV);

	if (ctx->ino != get(INO) || (dev && ctx->dev != dev))
		return 0;
	if (ctx->pgoff >= get(FIRST) && ctx->pgoff <= get(LAST))
		ctx->order = get(INSIDE);
	else
		ctx->order = get(OUTSIDE);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
