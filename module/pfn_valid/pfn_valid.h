/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: what pfn_valid.c (the strategies and the override of
 * pfn_to_online_page()) gives pfn_valid_check.c (the cross-check),
 * pfn_valid_bench.c (the in-kernel bench) and pfn_valid_file.c (the
 * debugfs files and parameters, the mode the cross-check gates).  Those
 * use these; pfn_valid.c knows nothing of them.  Outside this folder the
 * four use only the module's general parts (mmtune.h: symbols.c's
 * lookups, write.c's gate and write helpers, the feature) and compat/
 * (pfn_valid.c's redirection and get_dev_pagemap()).
 */
#ifndef MMTUNE_PFN_VALID_H
#define MMTUNE_PFN_VALID_H

#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "../mmtune.h"

/* The strategies: BIT(n) of those this kernel can run (mmtune_pfv_have()). */
enum mmtune_pv_impl {
	MMTUNE_PV_STOCK,
	MMTUNE_PV_SECTION,
	MMTUNE_PV_VMEMMAP,
	MMTUNE_PV_MEMBLOCK,
	MMTUNE_PV_NR
};

#ifdef CONFIG_SPARSEMEM

#define PFV_MODE_OFF	(-1)		/* no override; else a MMTUNE_PV_* */
#define PFV_BARE	MMTUNE_PV_NR	/* mmtune_pfv_loop(): the bare loop */

/* Held for every call below but the strategies and the loop. */
extern struct mutex mmtune_pfv_lock;

/* The strategies this kernel can run; the override's state: once, at init. */
void mmtune_pfv_init(void);
/* Removes the override and waits until nobody runs it. */
void mmtune_pfv_exit(void);

unsigned int mmtune_pfv_have(void);		/* BIT(MMTUNE_PV_*) */
const char *mmtune_pfv_mode_name(int mode);	/* "off" or the strategy */
/* "off" or a strategy this kernel has (its name, no newline). */
int mmtune_pfv_parse_mode(const char *buf, int *mode);

/* Whether the strategy @impl finds a memory map for @pfn. */
int mmtune_pfv_valid(unsigned int impl, unsigned long pfn);
/* The override's pfn_to_online_page() with the strategy @impl. */
struct page *mmtune_pfv_online_page(unsigned long pfn, unsigned int impl);
/* How many of @pfns @impl finds valid: the loop the bench times. */
unsigned long mmtune_pfv_loop(unsigned int impl, const unsigned long *pfns,
			      unsigned int n);

/* NULL when pfn_to_online_page() can be overridden, else why not. */
const char *mmtune_pfv_override_why(void);
int mmtune_pfv_mode(void);		/* lockless: PFV_MODE_OFF or impl */
/* Installs the override with @mode (no gate), or removes it (OFF). */
int mmtune_pfv_override_set(int mode);

#endif /* CONFIG_SPARSEMEM */
#endif /* MMTUNE_PFN_VALID_H */
