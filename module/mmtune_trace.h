/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the fault path's trace events (perf list, tracefs events/mmtune/,
 * bpftrace tracepoint:mmtune:*), instantiated by trace.c; the order's is in
 * mmtune_trace_order.h.  docs/tracing.md is their contract.
 * They fire whenever someone listens, and cost nothing while no one does:
 * an event's hook is placed for it by its first listener and taken back
 * with its last (trace.c, the reg/unreg functions below).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmtune

#if !defined(MMTUNE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MMTUNE_TRACE_H

#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "mmtune.h"

/* trace.c: the first listener of an event comes, the last one goes. */
int mmtune_trace_fa_reg(void);
void mmtune_trace_fa_unreg(void);
int mmtune_trace_mapped_reg(void);
void mmtune_trace_mapped_unreg(void);

/*
 * One call of filemap_map_pages by the kernel's fault-around: the file
 * (@dev, @ino), the window [req_start, req_end] the kernel asked for
 * (file pages), the window [start, end] it got after the policy, the
 * faulting page, the order in force for this task and the policy rule
 * that chose it (-1: none); the process and the faulting VMA's bounds,
 * file offset and flags, from which any order's window can be computed
 * again (mmtunectl record and replay, docs/replay.md).
 */
TRACE_EVENT_FN(fault_around,
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
				__field(int, rule)
				__field(pid_t, tgid)
				__field(unsigned long, vm_start)
				__field(unsigned long, vm_end)
				__field(unsigned long, vm_pgoff)
				__field(unsigned long, vm_flags)),
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
			      __entry->rule = rule;
			      __entry->tgid = current->tgid;
			      __entry->vm_start = vmf->vma->vm_start;
			      __entry->vm_end = vmf->vma->vm_end;
			      __entry->vm_pgoff = vmf->vma->vm_pgoff;
			      __entry->vm_flags = vmf->vma->vm_flags;),
	       TP_printk("pid=%d comm=%s dev=%d:%d ino=%lu pgoff=%lu req=%lu-%lu win=%lu-%lu order=%u rule=%d tgid=%d vma=%#lx-%#lx vm_pgoff=%lu vm_flags=%#lx",
			 __entry->pid, __entry->comm, MAJOR(__entry->dev),
			 MINOR(__entry->dev), __entry->ino, __entry->pgoff,
			 __entry->req_start, __entry->req_end, __entry->start,
			 __entry->end, __entry->order, __entry->rule,
			 __entry->tgid, __entry->vm_start, __entry->vm_end,
			 __entry->vm_pgoff, __entry->vm_flags),
	       mmtune_trace_fa_reg, mmtune_trace_fa_unreg
);

/*
 * Pages a fault-around call mapped, from the PTE setter it calls: one
 * event per setter call (one page on 6.1, a run of pages from 6.5 on).
 */
TRACE_EVENT_FN(fault_around_mapped,
	       TP_PROTO(unsigned int nr),
	       TP_ARGS(nr),
	       TP_STRUCT__entry(__field(pid_t, pid)
				__field(unsigned int, nr)),
	       TP_fast_assign(__entry->pid = current->pid;
			      __entry->nr = nr;),
	       TP_printk("pid=%d nr=%u", __entry->pid, __entry->nr),
	       mmtune_trace_mapped_reg, mmtune_trace_mapped_unreg
);

#endif /* MMTUNE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmtune_trace
#include <trace/define_trace.h>
