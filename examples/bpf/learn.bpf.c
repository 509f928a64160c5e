// SPDX-License-Identifier: GPL-2.0
/*
 * learn: each file starts at order 0 and earns its order, as the
 * readahead window does: a fault at the page just past the window the
 * file's last call mapped (a sequential reader) raises the file's order
 * by one, up to its rule's; any other fault halves it.  Per file
 * (device and inode), the least recently used forgotten.  Nothing to
 * set.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

struct file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct file_state {
	__u64 next;		/* the page past the last call's window */
	__u32 order;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct file_key);
	__type(value, struct file_state);
} files SEC(".maps");

/* the page past the window of @order around @ctx's fault (rules_narrow) */
static __always_inline __u64 window_end(const struct mmtune_fault_ctx *ctx,
					__u32 order)
{
	__u64 slot = (ctx->address >> ctx->page_shift) & ((1ULL << order) - 1);

	return ctx->pgoff + (1ULL << order) - slot;
}

MMTUNE_ORDER_PROG(learn_order)
{
	struct file_key k = { .ino = ctx->ino, .dev = ctx->dev };
	struct file_state *s = bpf_map_lookup_elem(&files, &k);
	struct file_state fresh = { 0 };
	__u32 o;

	if (!s) {
		fresh.next = window_end(ctx, 0);
		bpf_map_update_elem(&files, &k, &fresh, BPF_ANY);
		ctx->order = 0;
		return 0;
	}
	o = s->order;
	if (ctx->pgoff == s->next)
		o = o < ctx->rule_order ? o + 1 : ctx->rule_order;
	else
		o /= 2;
	if (o > 15)
		o = 15;
	s->order = o;
	s->next = window_end(ctx, o);
	ctx->order = o;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
