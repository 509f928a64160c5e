// SPDX-License-Identifier: GPL-2.0
/*
 * Leaves every call's order as its rule's: the program's call alone, what
 * bench/insn.sh's bp0 measures against p1m (order_const's order 0 would
 * change the window it is compared in).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mmtune_bpf.h"

char LICENSE[] SEC("license") = "GPL";

MMTUNE_ORDER_PROG(order_keep)
{
	return 0;
}
