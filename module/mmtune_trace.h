/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: trace events (perf list, tracefs events/mmtune/, bpftrace
 * tracepoint:mmtune:*).  trace.c instantiates them; README.md, "Trace
 * events", is their contract.  An event that no one listens to costs
 * the tracepoint's static-key NOP; its caller guards any work done only
 * for the event with trace_<event>_enabled(), the same key.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmtune

#if !defined(MMTUNE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MMTUNE_TRACE_H

#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "mmtune.h"

TRACE_DEFINE_ENUM(MMT_SRC_KNOB);
TRACE_DEFINE_ENUM(MMT_SRC_PARAM);
TRACE_DEFINE_ENUM(MMT_SRC_RAISE);
TRACE_DEFINE_ENUM(MMT_SRC_RESTORE);
TRACE_DEFINE_ENUM(MMT_SRC_UNLOAD);
TRACE_DEFINE_ENUM(MMT_SRC_KERNEL);

/*
 * One call of filemap_map_pages by the kernel's fault-around: the file
 * (@dev, @ino), the window [req_start, req_end] the kernel asked for
 * (file pages), the window [start, end] it got after the policy, the
 * faulting page, the order in force for this task and the policy rule
 * that chose it (-1: none).
 */
TRACE_EVENT(fault_around,
	    TP_PROTO(const struct vm_fault *vmf, dev_t dev, unsigned long ino,
		     unsigned long req_start, unsigned long req_end,
		     unsigned long start, unsigned long end,
		     unsigned int order, int rule),
	    TP_ARGS(vmf, dev, ino, req_start, req_end, start, end, order, rule),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __array(char, comm, TASK_COMM_LEN)
			     __field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(unsigned long, pgoff)
			     __field(unsigned long, req_start)
			     __field(unsigned long, req_end)
			     __field(unsigned long, start)
			     __field(unsigned long, end)
			     __field(unsigned int, order)
			     __field(int, rule)),
	    TP_fast_assign(__entry->pid = current->pid;
			   memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
			   __entry->dev = dev;
			   __entry->ino = ino;
			   __entry->pgoff = vmf->pgoff;
			   __entry->req_start = req_start;
			   __entry->req_end = req_end;
			   __entry->start = start;
			   __entry->end = end;
			   __entry->order = order;
			   __entry->rule = rule;),
	    TP_printk("pid=%d comm=%s dev=%d:%d ino=%lu pgoff=%lu req=%lu-%lu win=%lu-%lu order=%u rule=%d",
		      __entry->pid, __entry->comm, MAJOR(__entry->dev),
		      MINOR(__entry->dev), __entry->ino, __entry->pgoff,
		      __entry->req_start, __entry->req_end, __entry->start,
		      __entry->end, __entry->order, __entry->rule)
);

/*
 * Pages a fault-around call mapped, from the PTE setter it calls: one
 * event per setter call (one page on 6.1, a run of pages from 6.5 on),
 * emitted while stats_enable is 1 (the setter's hook is the stats').
 */
TRACE_EVENT(fault_around_mapped,
	    TP_PROTO(unsigned int nr),
	    TP_ARGS(nr),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(unsigned int, nr)),
	    TP_fast_assign(__entry->pid = current->pid;
			   __entry->nr = nr;),
	    TP_printk("pid=%d nr=%u", __entry->pid, __entry->nr)
);

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

#endif /* MMTUNE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmtune_trace
#include <trace/define_trace.h>
