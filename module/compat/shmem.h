/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: shmem_file_setup(), whose flags argument changed type
 * (selftest.c).
 */
#ifndef MMTUNE_COMPAT_SHMEM_H
#define MMTUNE_COMPAT_SHMEM_H

#include <linux/mm.h>
#include <linux/shmem_fs.h>

/*
 * 7.x made VMA flags a vma_flags_t (EMPTY_VMA_FLAGS came with it) and
 * shmem_file_setup() takes one; before, an unsigned long VM_* mask.
 */
static inline struct file *mmtune_shmem_file_setup(const char *name,
						   loff_t size)
{
#ifdef EMPTY_VMA_FLAGS
	return shmem_file_setup(name, size, mk_vma_flags(VMA_NORESERVE_BIT));
#else
	return shmem_file_setup(name, size, VM_NORESERVE);
#endif
}

#endif /* MMTUNE_COMPAT_SHMEM_H */
