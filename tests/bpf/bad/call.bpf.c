// SPDX-License-Identifier: GPL-2.0
/* Refused: a call to a function of its own (a BPF-to-BPF call into .text). */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __attribute__((noinline)) __u32 pick(__u32 uid)
{
	return uid ? 0 : 1;
}

MMTUNE_ORDER_PROG(call)
{
	ctx->order = pick(ctx->uid);
	return 0;
}
