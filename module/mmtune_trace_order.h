/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the trace event of the fault-around order (README.md, "Trace
 * events"), instantiated by trace_order.c.  Apart from the fault path's
 * events (mmtune_trace.h, trace.c), whose callbacks use fault_around.c,
 * which emits this one: so neither file uses the other.
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

#endif /* MMTUNE_TRACE_ORDER_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmtune_trace_order
#include <trace/define_trace.h>
