/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf.c: the BPF decision point after the rules (docs/bpf.md).  The
 * fault path asks mmtune_bpf_attached() (the tracepoint's static key:
 * nothing else while no program is attached), then mmtune_bpf_decide().
 */
#ifndef MMTUNE_BPF_DECIDE_H
#define MMTUNE_BPF_DECIDE_H

#include <linux/mm.h>

#include "mmtune_trace_bpf.h"

#ifdef MMTUNE_TP_SUFFIX
#define mmtune_bpf_attached()	trace_mmtune_order_tp_enabled()
#else
#define mmtune_bpf_attached()	trace_mmtune_order_enabled()
#endif

unsigned int mmtune_bpf_decide(const struct vm_fault *vmf, int rule,
			       unsigned int order, unsigned long req_start,
			       unsigned long req_end);

#endif /* MMTUNE_BPF_DECIDE_H */
