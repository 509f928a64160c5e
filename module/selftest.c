// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the hooks' self-test, LKRG style.
 *
 * The mechanism's own check: a function of ours, hooked like the others,
 * called with known arguments.  Its callback checks that it reads them
 * right and changes the third one; the caller checks the change arrived.
 * This proves the ftrace path and the ftrace_regs accessors of
 * compat/ftrace_regs.h on the running kernel and architecture.
 *
 * And each hook's check: read faults on a cached shmem file mapped into
 * the caller's address space (the process that turned the hooks on):
 * page 0 must fault, going through handle_mm_fault and, if fault-around
 * is on at that moment, through filemap_map_pages and the PTE setter for
 * both pages.  Whether fault-around did run is seen without our hooks:
 * then page 1 is already mapped and reading it takes no fault (the task's
 * fault counters, which handle_mm_fault updates for every completed
 * fault, do not move).  So a concurrent change of the order cannot fail a
 * working hook.  hooks.c judges the hooks by what fired.
 */
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "compat/shmem.h"
#include "selftest.h"

#define ST_A	0x6d6d74756e650001UL
#define ST_B	0x6d6d74756e650002UL
#define ST_C	0x6d6d74756e650003UL
#define ST_C2	0x6d6d74756e650004UL

static bool st_args_read;

/*
 * Not static, and called only through a pointer: the compiler can neither
 * inline it, nor clone or rename it (.isra, .constprop), so its symbol is
 * the function ftrace patches.  It must stay traceable (no notrace).  The
 * direct call's test has a function of its own: the ftrace test's hook
 * may be on this one at the same time.
 */
noinline unsigned long mmtune_selftest_target(unsigned long a, unsigned long b,
					      unsigned long c)
{
	barrier();
	return c;
}

noinline unsigned long mmtune_selftest_direct_target(unsigned long a,
						     unsigned long b,
						     unsigned long c)
{
	barrier();
	return c;
}

typedef unsigned long (*selftest_fn)(unsigned long, unsigned long,
				     unsigned long);

static selftest_fn selftest_targets[] = {
	mmtune_selftest_target, mmtune_selftest_direct_target,
};

unsigned long mmtune_selftest_target_addr(bool direct)
{
	return (unsigned long)selftest_targets[direct];
}

void notrace mmtune_selftest_entry(struct mmtune_hook_call *c)
{
	if (mmtune_call_arg(c, 0) != ST_A ||
	    mmtune_call_arg(c, 1) != ST_B ||
	    mmtune_call_arg(c, 2) != ST_C)
		return;
	WRITE_ONCE(st_args_read, true);
	mmtune_call_set_arg(c, 2, ST_C2);
}

void mmtune_selftest_args(bool direct, bool *read, bool *written)
{
	selftest_fn fn = READ_ONCE(selftest_targets[direct]);
	unsigned long v;

	WRITE_ONCE(st_args_read, false);
	v = fn(ST_A, ST_B, ST_C);
	*read = READ_ONCE(st_args_read);
	*written = v == ST_C2;
}

static unsigned long task_faults(void)
{
	return READ_ONCE(current->min_flt) + READ_ONCE(current->maj_flt);
}

/* A 2-page shmem file, its pages cached, mapped read-only; or an error. */
static unsigned long selftest_map(size_t len)
{
	unsigned long uaddr;
	struct file *f;
	loff_t pos = 0;
	void *buf;
	ssize_t n;

	f = mmtune_shmem_file_setup("mmtune-selftest", len);
	if (IS_ERR(f))
		return (unsigned long)PTR_ERR(f);
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf) {
		fput(f);
		return (unsigned long)-ENOMEM;
	}
	n = kernel_write(f, buf, len, &pos);
	kfree(buf);
	if (n != len) {
		fput(f);
		return (unsigned long)(n < 0 ? n : -EIO);
	}
	uaddr = vm_mmap(f, 0, len, PROT_READ, MAP_SHARED, 0);
	fput(f);		/* the mapping holds its own reference */
	return uaddr;
}

int mmtune_selftest_fault(struct mmtune_selftest_result *r)
{
	const size_t len = 2 * PAGE_SIZE;
	unsigned long uaddr, f0, f1;
	char c __maybe_unused;	/* get_user()'s sink: the fault is the point */
	int ret;

	if (!current->mm)
		return -ESRCH;
	uaddr = selftest_map(len);
	if (IS_ERR_VALUE(uaddr))
		return (int)uaddr;
	f0 = task_faults();
	ret = get_user(c, (const char __user *)uaddr);
	f1 = task_faults();
	if (!ret)
		ret = get_user(c, (const char __user *)(uaddr + PAGE_SIZE));
	if (!ret && f1 != f0) {
		r->faulted = true;
		if (task_faults() == f1)
			r->fault_around = true;
	}
	vm_munmap(uaddr, len);
	return ret;
}
