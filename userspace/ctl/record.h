/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record file mmtunectl record writes (record.c) and replay reads
 * (replay.c): a text file of one item a line, its first line
 * RECORD_MAGIC.  docs/replay.md is its contract.
 */
#ifndef MMTUNECTL_RECORD_H
#define MMTUNECTL_RECORD_H

#define RECORD_MAGIC	"mmtune-record 1"

#endif
