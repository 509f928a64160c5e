// SPDX-License-Identifier: GPL-2.0
/*
 * The large folios of a file's cached pages, for record.c: replay models
 * kernels that map a whole large folio where fault-around reaches one of
 * its pages (docs/replay.md).
 *
 * No interface gives a file's folio sizes.  A page's frame is found by
 * mapping the file and reading the page (it is cached: nothing is read
 * from storage), then /proc/self/pagemap; the frame's flags in
 * /proc/kpageflags say whether it heads or ends a compound page.  A large
 * folio is a head followed by tails at the next frames and the next file
 * pages.  Both files need CAP_SYS_ADMIN for frame numbers; without them
 * the layout is unknown, and the record says so.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "record.h"

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN		((1ULL << 55) - 1)
#define KPF_HEAD	(1ULL << 15)	/* KPF_COMPOUND_HEAD */
#define KPF_TAIL	(1ULL << 16)	/* KPF_COMPOUND_TAIL */
#define PM_BATCH	512

struct fl_run {
	FILE *out;
	int fid;
	unsigned long start, nr;	/* the folio being followed; nr 0: none */
	uint64_t pfn;			/* its last page's frame */
	long count;
};

static void fl_end(struct fl_run *f)
{
	if (f->nr > 1) {
		fprintf(f->out, "folio %d %lu %lu\n", f->fid, f->start, f->nr);
		f->count++;
	}
	f->nr = 0;
}

/* Page @i of the file, at frame @pfn with @flags: extends or ends the run. */
static void fl_page(struct fl_run *f, unsigned long i, uint64_t pfn, uint64_t flags)
{
	if ((flags & KPF_TAIL) && f->nr && pfn == f->pfn + 1 && i == f->start + f->nr) {
		f->nr++;
	} else {
		fl_end(f);
		if (flags & KPF_HEAD) {
			f->start = i;
			f->nr = 1;
		}
	}
	f->pfn = pfn;
}

/*
 * Pages [@i, @i + @n) of the mapping @m, those @vec says cached: read
 * each, then their frames and flags.  0, or -1 if frames cannot be read.
 */
static int fl_batch(struct fl_run *f, const volatile char *m, unsigned long i, unsigned long n,
		    long psz, const unsigned char *vec, int pm, int kpf)
{
	uint64_t e[PM_BATCH], flags;
	unsigned long j;
	off_t at = (off_t)(((uintptr_t)m / psz + i) * sizeof(e[0]));

	for (j = 0; j < n; j++)
		if (vec[i + j] & 1)
			(void)m[(i + j) * psz];
	if (pread(pm, e, n * sizeof(e[0]), at) != (ssize_t)(n * sizeof(e[0])))
		return -1;
	for (j = 0; j < n; j++) {
		if (!(vec[i + j] & 1) || !(e[j] & PM_PRESENT)) {
			fl_end(f);	/* not cached (or reclaimed since) */
			continue;
		}
		if (!(e[j] & PM_PFN))
			return -1;	/* frames hidden: no CAP_SYS_ADMIN */
		if (pread(kpf, &flags, sizeof(flags), (off_t)((e[j] & PM_PFN) * sizeof(flags))) !=
		    (ssize_t)sizeof(flags))
			return -1;
		fl_page(f, i + j, e[j] & PM_PFN, flags);
	}
	return 0;
}

long folio_layout(const void *m, unsigned long size, long psz, const unsigned char *vec,
		  FILE *out, int fid)
{
	static int kpf = -2;
	struct fl_run f = { .out = out, .fid = fid };
	unsigned long i, n;
	int pm, rc = 0;

	if (kpf == -2)
		kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (kpf < 0)
		return -1;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0)
		return -1;
	for (i = 0; !rc && i < size; i += n) {
		n = size - i < PM_BATCH ? size - i : PM_BATCH;
		rc = fl_batch(&f, m, i, n, psz, vec, pm, kpf);
	}
	close(pm);
	if (rc)
		return -1;
	fl_end(&f);
	return f.count;
}
