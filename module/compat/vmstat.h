/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: the kernel's vm event counts (/proc/vmstat), summed over
 * the CPUs: page faults (stats.c) and pages reclaim scanned
 * (usefulness.c).  A kernel without CONFIG_VM_EVENT_COUNTERS has none.
 */
#ifndef MMTUNE_COMPAT_VMSTAT_H
#define MMTUNE_COMPAT_VMSTAT_H

#include <linux/cpu.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/vmstat.h>

/*
 * The kernel's page-fault count: PGFAULT of the per-CPU vm_event_states
 * (exported; /proc/vmstat pgfault), summed.  A dead CPU's events move to
 * a live one's under the hotplug lock, so the sum is taken under it.
 * Without CONFIG_VM_EVENT_COUNTERS (only EXPERT kernels) there is no
 * count: 0, and stats says "unavailable" (stats.c).
 */
static inline u64 mmtune_kernel_pgfaults(void)
{
	u64 n = 0;
#ifdef CONFIG_VM_EVENT_COUNTERS
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(vm_event_states, cpu).event[PGFAULT]);
	cpus_read_unlock();
#endif
	return n;
}

/*
 * Pages reclaim scanned (pgscan_kswapd + pgscan_direct), summed as above:
 * reclaim clears accessed bits, which the usefulness count reads.
 */
static inline u64 mmtune_kernel_pgscan(void)
{
	u64 n = 0;
#ifdef CONFIG_VM_EVENT_COUNTERS
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		const struct vm_event_state *e = &per_cpu(vm_event_states, cpu);

		n += READ_ONCE(e->event[PGSCAN_KSWAPD]) +
		     READ_ONCE(e->event[PGSCAN_DIRECT]);
	}
	cpus_read_unlock();
#endif
	return n;
}

#endif /* MMTUNE_COMPAT_VMSTAT_H */
