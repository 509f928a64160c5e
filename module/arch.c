// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: per-architecture facts.
 *
 * max_order is log2(PTRS_PER_PTE): fault-around never crosses a page
 * table, and the kernel's own setter refuses more than PTRS_PER_PTE pages.
 * On powerpc64 PTRS_PER_PTE is a run-time value (radix with 64 KiB pages:
 * 32 entries; hash: 256), so it is read here at run time, never cached at
 * build time.
 *
 * Default orders (docs/admin-guide.md, "The knobs"): x86_64 4; arm64
 * with 4 KiB pages 4;
 * powerpc64 with 64 KiB pages 3, the order the 2014 powerpc data argued
 * for (upstream's 64 KiB default is a single page there, i.e. off);
 * s390x 4 (4 KiB pages only, 256 PTEs a table: max_order 8) and riscv64 4
 * (4 KiB pages, 512 PTEs: max_order 9), upstream's 64 KiB, as on the
 * other 4 KiB arches: we have no data that argues for another size there;
 * any other arch or page size: the order that makes 64 KiB.  Never above
 * max_order, which is read at run time on every arch.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/utsname.h>

#include "mmtune.h"
#include "compat/pte.h"

struct mmtune_arch {
	const char *name;
	unsigned long page_size;	/* 0: any */
	unsigned int default_order;
};

static const struct mmtune_arch arch_table[] = {
	{ "x86_64",	SZ_4K,	4 },
	{ "arm64",	SZ_4K,	4 },
	{ "ppc64le",	SZ_64K,	3 },
	{ "ppc64",	SZ_64K,	3 },
	{ "s390x",	SZ_4K,	4 },
	{ "riscv64",	SZ_4K,	4 },
};

const char *mmtune_arch_name(void)
{
#if defined(CONFIG_X86_64)
	return "x86_64";
#elif defined(CONFIG_ARM64)
	return "arm64";
#elif defined(CONFIG_PPC64) && defined(CONFIG_CPU_LITTLE_ENDIAN)
	return "ppc64le";
#elif defined(CONFIG_PPC64)
	return "ppc64";
#elif defined(CONFIG_S390)
	return "s390x";
#elif defined(CONFIG_RISCV) && defined(CONFIG_64BIT)
	return "riscv64";
#else
	return init_utsname()->machine;
#endif
}

unsigned int mmtune_max_order(void)
{
	return ilog2(PTRS_PER_PTE);
}

/*
 * The largest order whose windows usefulness measures (a page table's,
 * where it marks pages): order=auto raises no higher.
 */
unsigned int mmtune_useful_max_order(void)
{
	return min_t(unsigned int, ilog2(MMTUNE_MARK_MAX), mmtune_max_order());
}

unsigned int mmtune_default_order(void)
{
	const char *arch = mmtune_arch_name();
	unsigned int order = 0;
	size_t i;

	if (PAGE_SIZE < SZ_64K)
		order = ilog2(SZ_64K / PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(arch_table); i++) {
		if (!strcmp(arch_table[i].name, arch) &&
		    (!arch_table[i].page_size ||
		     arch_table[i].page_size == PAGE_SIZE)) {
			order = arch_table[i].default_order;
			break;
		}
	}
	return min(order, mmtune_max_order());
}

/*
 * With SPARSEMEM and no arch override pfn_valid() is a static inline of
 * include/linux/mmzone.h: the "t pfn_valid" symbols in kallsyms are
 * per-file copies of it, not a function the whole kernel calls.
 */
const char *mmtune_pfn_valid_kind(void)
{
#ifdef CONFIG_HAVE_ARCH_PFN_VALID
	return "out-of-line";
#else
	return "inline";
#endif
}
