/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record file mmtunectl record writes (record.c) and replay reads
 * (replay.c): a text file of one item a line, its first line
 * RECORD_MAGIC.  docs/replay.md is its contract.
 */
#ifndef MMTUNECTL_RECORD_H
#define MMTUNECTL_RECORD_H

#include <stdio.h>

#define RECORD_MAGIC	"mmtune-record 2"
#define RECORD_MAGIC_1	"mmtune-record 1"	/* no folio lines: replay reads it */

/*
 * The large folios among the cached pages (@vec, mincore's) of a file
 * mapped at @m, @size pages: "folio FID START NR" lines to @out, and
 * their count; -1 if the frames cannot be read (folios.c).
 */
long folio_layout(const void *m, unsigned long size, long psz, const unsigned char *vec,
		  FILE *out, int fid);

#endif
