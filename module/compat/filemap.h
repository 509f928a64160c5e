/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: filemap_map_pages, fault-around's function, whose
 * workings usefulness_path.c follows: a closing tracepoint from 6.11, and
 * large folios mapped whole from 6.18.  Kbuild tells both, for
 * the usefulness objects alone.
 */
#ifndef MMTUNE_COMPAT_FILEMAP_H
#define MMTUNE_COMPAT_FILEMAP_H

/*
 * mm_filemap_map_pages (6.11) fires at the end of filemap_map_pages when
 * it mapped anything.  Kbuild defines MMTUNE_HAVE_TP_MAP_PAGES, for the
 * usefulness objects alone (no other file includes an event header here),
 * where the kernel's headers declare it.  Then whether @probe has the
 * prototype that declaration registers is known at build time: a kernel
 * that changed it gets the kretprobe, not a probe called with other
 * arguments.
 */
#ifdef MMTUNE_HAVE_TP_MAP_PAGES
#include <trace/events/filemap.h>
#define mmtune_map_pages_probe_ok(probe)				\
	__builtin_types_compatible_p(typeof(register_trace_mm_filemap_map_pages), \
				     int (typeof(probe) *, void *))
#else
#define mmtune_map_pages_probe_ok(probe)	0
#endif

/* ---- large folios mapped whole (usefulness_path.c) ---- */

/*
 * From 6.18 filemap_map_pages (filemap_map_folio_range) maps the whole of
 * a large folio its window reaches, when the folio lies in the VMA and in
 * one page table: pages past the window, which fault-around maps ahead
 * too.  It is a change inside mm/filemap.c that no header, symbol or
 * Kconfig shows: Kbuild defines MMTUNE_MAPS_WHOLE_FOLIO for the
 * usefulness objects from the kernel's version (Debian has not backported
 * it to an earlier series).
 */
#ifndef MMTUNE_MAPS_WHOLE_FOLIO
#define MMTUNE_MAPS_WHOLE_FOLIO	0
#endif

#endif /* MMTUNE_COMPAT_FILEMAP_H */
