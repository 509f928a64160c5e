// SPDX-License-Identifier: GPL-2.0
/* Refused: a raw tracepoint program that is not writable (raw_tp/, not raw_tp.w/). */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tp/mmtune_order")
int not_writable(__u64 *args)
{
	return 0;
}
