/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the BPF decision point (docs/bpf.md), instantiated by bpf.c: a
 * bare tracepoint whose one argument, a struct mmtune_fault_ctx, a
 * writable raw tracepoint program (BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE)
 * may write.  It has no trace event: tracefs and perf do not list it,
 * bpf(BPF_RAW_TRACEPOINT_OPEN) attaches to it by name.
 *
 * The kernel defines DECLARE_TRACE_WRITABLE only for its BPF pass
 * (trace/bpf_probe.h, which adds the raw tracepoint's entry with the
 * buffer's size); the other passes see a plain DECLARE_TRACE.  From 7.2
 * DECLARE_TRACE names the tracepoint NAME_tp (bpf.c's MMTUNE_TP()).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmtune

#if !defined(MMTUNE_TRACE_BPF_H) || defined(TRACE_HEADER_MULTI_READ)
#define MMTUNE_TRACE_BPF_H

#include <linux/tracepoint.h>

#include "mmtune_bpf.h"

#ifndef DECLARE_TRACE_WRITABLE
#define DECLARE_TRACE_WRITABLE(call, proto, args, size) \
	DECLARE_TRACE(call, PARAMS(proto), PARAMS(args))
#define MMTUNE_UNDEF_WRITABLE
#endif

DECLARE_TRACE_WRITABLE(mmtune_order,
		       TP_PROTO(struct mmtune_fault_ctx *ctx),
		       TP_ARGS(ctx), sizeof(struct mmtune_fault_ctx));

#ifdef MMTUNE_UNDEF_WRITABLE
#undef DECLARE_TRACE_WRITABLE
#undef MMTUNE_UNDEF_WRITABLE
#endif

#endif /* MMTUNE_TRACE_BPF_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmtune_trace_bpf
#include <trace/define_trace.h>
