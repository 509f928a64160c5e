/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the trace events of the fault-around order (docs/tracing.md),
 * instantiated by trace_order.c: the kernel's order
 * (fault_around.c) and an auto rule's (auto.c).  Apart from the fault
 * path's events (mmtune_trace.h, trace.c), whose callbacks use
 * fault_around.c, which emits order_change: so neither file uses the
 * other.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmtune

#if !defined(MMTUNE_TRACE_ORDER_H) || defined(TRACE_HEADER_MULTI_READ)
#define MMTUNE_TRACE_ORDER_H

#include <linux/tracepoint.h>

#include "mmtune.h"

TRACE_DEFINE_ENUM(MMT_SRC_KNOB);
TRACE_DEFINE_ENUM(MMT_SRC_PARAM);
TRACE_DEFINE_ENUM(MMT_SRC_RAISE);
TRACE_DEFINE_ENUM(MMT_SRC_RESTORE);
TRACE_DEFINE_ENUM(MMT_SRC_UNLOAD);
TRACE_DEFINE_ENUM(MMT_SRC_KERNEL);

/*
 * The kernel's fault-around order (old_order -> new_order) or mmtune's
 * base order changed, and who did it.
 */
TRACE_EVENT(order_change,
	    TP_PROTO(unsigned int old_order, unsigned int new_order,
		     unsigned int base, enum mmtune_order_src src),
	    TP_ARGS(old_order, new_order, base, src),
	    TP_STRUCT__entry(__field(unsigned int, old_order)
			     __field(unsigned int, new_order)
			     __field(unsigned int, base)
			     __field(unsigned int, src)),
	    TP_fast_assign(__entry->old_order = old_order;
			   __entry->new_order = new_order;
			   __entry->base = base;
			   __entry->src = src;),
	    TP_printk("old=%u new=%u base=%u source=%s", __entry->old_order,
		      __entry->new_order, __entry->base,
		      __print_symbolic(__entry->src,
				       { MMT_SRC_KNOB, "knob" },
				       { MMT_SRC_PARAM, "parameter" },
				       { MMT_SRC_RAISE, "policy_raise" },
				       { MMT_SRC_RESTORE, "policy_restore" },
				       { MMT_SRC_UNLOAD, "unload_restore" },
				       { MMT_SRC_KERNEL, "kernel_file" }))
);

/*
 * A policy rule with order=auto (@rule: its line, from 1) changed its
 * order: @useful is the per mille of its pre-mapped pages that its ended
 * processes touched, over @pages pre-mapped pages since the last
 * judgement (-1 and 0: a probe of order 1 after a time at order 0).
 */
TRACE_EVENT(auto_order,
	    TP_PROTO(unsigned int rule, unsigned int old_order,
		     unsigned int new_order, int useful, u64 pages),
	    TP_ARGS(rule, old_order, new_order, useful, pages),
	    TP_STRUCT__entry(__field(unsigned int, rule)
			     __field(unsigned int, old_order)
			     __field(unsigned int, new_order)
			     __field(int, useful)
			     __field(u64, pages)),
	    TP_fast_assign(__entry->rule = rule;
			   __entry->old_order = old_order;
			   __entry->new_order = new_order;
			   __entry->useful = useful;
			   __entry->pages = pages;),
	    TP_printk("rule=%u old=%u new=%u useful_permille=%d pages=%llu",
		      __entry->rule, __entry->old_order, __entry->new_order,
		      __entry->useful, __entry->pages)
);

#endif /* MMTUNE_TRACE_ORDER_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmtune_trace_order
#include <trace/define_trace.h>
