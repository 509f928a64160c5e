// SPDX-License-Identifier: GPL-2.0
/* Refused: a global variable (.data), which the loader does not make a map of. */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

char LICENSE[] SEC("license") = "GPL";

__u32 calls = 1;

MMTUNE_ORDER_PROG(global_data)
{
	calls++;
	ctx->order = 0;
	return 0;
}
