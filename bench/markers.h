/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The no-op markers that bench/plugin/insncount.c (a QEMU TCG plugin)
 * recognises by their bytes: MARKER(0) starts counting the guest
 * instructions of the vCPU that executes it, MARKER(1) stops, MARKER(2)
 * emits the count.  "memory": no access moves across them.
 */
#ifndef MMTUNE_BENCH_MARKERS_H
#define MMTUNE_BENCH_MARKERS_H

#if defined(__x86_64__)
#define MARKER(k) asm volatile(".byte 0x0f, 0x1f, 0x80, " #k ", 0x54, 0x4d, 0x4d" ::: "memory")
#elif defined(__aarch64__)
#define MARKER(k) asm volatile("hint #(0x70 + " #k ")" ::: "memory")
#else
#define MARKER(k) do { } while (0)
#define NO_MARKERS
#endif

#endif /* MMTUNE_BENCH_MARKERS_H */
