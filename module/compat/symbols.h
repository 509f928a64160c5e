/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: the names of kernel functions that changed between
 * versions, which the hooks look up by name (hooks_table.c, through symbols.c):
 * the PTE setter of fault-around and its callers, the zap of a VMA's
 * range, and the suffixes of a compiler's specialised copies.  No header
 * declares these (most are static): kallsyms tells at load which name
 * the running kernel has.
 */
#ifndef MMTUNE_COMPAT_SYMBOLS_H
#define MMTUNE_COMPAT_SYMBOLS_H

#include <linux/compiler.h>

/*
 * The function that fills the PTEs of file pages, called from
 * filemap_map_pages (directly or through its static helpers) and from
 * finish_fault.  Looked up by name, newest first:
 *   set_pte_range(vmf, folio, page, nr, addr)   6.5+: @nr pages (arg 3)
 *   do_set_pte(vmf, page, addr)                 up to 6.4: one page
 * nr_arg < 0 means "one page per call".
 */
struct mmtune_set_pte_fn {
	const char *name;
	int nr_arg;
};

static const struct mmtune_set_pte_fn mmtune_set_pte_fns[] __maybe_unused = {
	{ "set_pte_range", 3 },
	{ "do_set_pte", -1 },
};

/*
 * The functions from which a call to the PTE setter is fault-around's:
 * filemap_map_pages itself and, from 6.6 on, its static helpers (when
 * the compiler kept them out of line, possibly with a suffix).
 */
static const char *const mmtune_fault_around_callers[] __maybe_unused = {
	"filemap_map_pages",
	"filemap_map_folio_range",
	"filemap_map_order0_folio",
};

/*
 * Where the kernel zaps a range of one VMA's page tables, all with the
 * arguments (tlb, vma, start, end, details), newest last:
 *   unmap_page_range   up to 6.x (global, mm/internal.h)
 *   __zap_vma_range    7.x: unmap_single_vma renamed, unmap_page_range
 *                      inlined into it (static)
 */
static const char *const mmtune_zap_fns[] __maybe_unused = {
	"unmap_page_range",
	"__zap_vma_range",
};

/* Suffixes the compiler gives to a specialised copy of a function. */
static const char *const mmtune_cc_suffixes[] __maybe_unused = {
	".isra.0", ".constprop.0", ".part.0", ".cold",
};

#endif /* MMTUNE_COMPAT_SYMBOLS_H */
