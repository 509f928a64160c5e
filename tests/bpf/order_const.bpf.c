// SPDX-License-Identifier: GPL-2.0
/*
 * Order 0 for every fault-around call the module asks about: the
 * smallest program there is (mmtunectl bpf load tests/bpf/order_const.bpf.o).
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

char LICENSE[] SEC("license") = "GPL";

MMTUNE_ORDER_PROG(order_const)
{
	ctx->order = 0;
	return 0;
}
