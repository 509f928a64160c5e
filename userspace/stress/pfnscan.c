// SPDX-License-Identifier: GPL-2.0
/*
 * pfnscan: walk every pfn's flags in /proc/kpageflags, which
 * runs pfn_valid()/pfn_to_page() once per pfn in the kernel.  Threads
 * split the pfn range; pages/s.  Needs root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

#define KPF_NOPAGE	20
#define CHUNK_PFNS	65536

struct pfn_state {
	int fd;
	long long max_pfn;
	long count;
	uint64_t **bufs;
	int nbufs;
};

struct pfn_arg {
	int fd;
	uint64_t *buf;
	long long first, n;
	long passes;
	long long scanned, present;
	int err;
};

static void *pfn_worker(void *p)
{
	struct pfn_arg *a = p;

	for (long pass = 0; pass < a->passes && !mms_stop; pass++)
		for (long long pfn = a->first; pfn < a->first + a->n && !mms_stop; pfn += CHUNK_PFNS) {
			long long k = a->first + a->n - pfn < CHUNK_PFNS ? a->first + a->n - pfn : CHUNK_PFNS;
			ssize_t got = pread(a->fd, a->buf, k * 8, pfn * 8);

			if (got < 0) {
				a->err = errno;
				return NULL;
			}
			for (long i = 0; i < got / 8; i++)
				a->present += !(a->buf[i] >> KPF_NOPAGE & 1);
			a->scanned += got / 8;
			if (got < k * 8)
				break;
		}
	return NULL;
}

static int pfn_exists(int fd, long long pfn)
{
	uint64_t v;

	return pread(fd, &v, 8, pfn * 8) == 8;
}

static int pfn_setup(struct mms_ctx *c)
{
	struct pfn_state *s = calloc(1, sizeof(*s));
	long long lo, hi;

	if (!s)
		return MMT_EXIT_FAIL;
	c->priv = s;
	s->count = c->o->count ? c->o->count : 1;
	s->fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (s->fd < 0 && errno == ENOENT)
		mms_die(MMS_EXIT_SKIP, "pfnscan: no /proc/kpageflags (kernel without CONFIG_PROC_PAGE_MONITOR); skipped");
	if (s->fd < 0)
		mms_die(MMT_EXIT_FAIL, "pfnscan: /proc/kpageflags: %s (needs root)", strerror(errno));
	/* the end of the pfn range: reads past max_pfn return 0 bytes */
	if (!pfn_exists(s->fd, 0))
		mms_die(MMT_EXIT_FAIL, "pfnscan: cannot read /proc/kpageflags: %s", strerror(errno));
	for (hi = 1; pfn_exists(s->fd, hi); hi *= 2)
		;
	lo = hi / 2;		/* lo exists, hi does not */
	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;

		if (pfn_exists(s->fd, mid))
			lo = mid;
		else
			hi = mid;
	}
	s->max_pfn = hi;
	s->bufs = calloc(c->o->max_threads, sizeof(*s->bufs));
	if (!s->bufs)
		return MMT_EXIT_FAIL;
	for (int t = 0; t < c->o->max_threads; t++) {
		s->bufs[t] = malloc(CHUNK_PFNS * 8);
		if (!s->bufs[t])
			mms_die(MMT_EXIT_FAIL, "pfnscan: out of memory");
		memset(s->bufs[t], 0xff, CHUNK_PFNS * 8);	/* not 0: malloc+memset(0) may become calloc */
		s->nbufs++;
	}
	return 0;
}

static int pfn_run(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	struct pfn_state *s = c->priv;
	struct pfn_arg *a = calloc(threads, sizeof(*a)), warm;
	struct mms_meas m;
	long long per = (s->max_pfn + threads - 1) / threads;
	int err = 0;

	(void)block;
	if (!a)
		return MMT_EXIT_FAIL;
	for (int t = 0; t < threads; t++) {
		a[t].fd = s->fd;
		a[t].buf = s->bufs[t];
		a[t].first = per * t;
		a[t].n = per * t + per > s->max_pfn ? s->max_pfn - per * t : per;
		if (a[t].n < 0)
			a[t].n = 0;
		a[t].passes = s->count;
	}
	warm = a[0];
	warm.n = 1;
	warm.passes = 1;
	pfn_worker(&warm);
	if (mms_run_threads(threads, pfn_worker, a, sizeof(*a), 0, &m) != 0) {
		free(a);
		mms_err("pfnscan: could not start %d threads", threads);
		return MMT_EXIT_FAIL;
	}
	r->ops = 0;
	for (int t = 0; t < threads; t++) {
		r->ops += a[t].scanned;
		if (a[t].err)
			err = a[t].err;
	}
	free(a);
	if (err) {
		mms_err("pfnscan: reading /proc/kpageflags: %s", strerror(err));
		return MMT_EXIT_FAIL;
	}
	mms_result_set(r, &m, r->ops, 1, "pages/s");
	r->size = s->max_pfn * c->page;
	return 0;
}

static void pfn_teardown(struct mms_ctx *c)
{
	struct pfn_state *s = c->priv;

	if (!s)
		return;
	for (int t = 0; t < s->nbufs; t++)
		free(s->bufs[t]);
	free(s->bufs);
	close(s->fd);
	free(s);
	c->priv = NULL;
}

const struct mms_workload mms_wl_pfnscan = {
	"pfnscan", "walk /proc/kpageflags (pfn_valid strategies: one per pfn), pages/s",
	pfn_setup, pfn_run, pfn_teardown, 0, "of pfns",
};
