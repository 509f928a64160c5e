// SPDX-License-Identifier: GPL-2.0
/*
 * ebizzy, written fresh: a pool of chunks of sorted records;
 * each thread repeatedly picks a random chunk, copies it into a freshly
 * mmap()ed buffer (new anonymous memory: page faults, like ebizzy -m),
 * searches the copy for a key of that chunk, and unmaps it.  One search
 * is one record; throughput is records per second.  Use --repeat for
 * the mean and spread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libmmtune.h"
#include "mmstress.h"

#define CHUNK	(256 << 10)
#define NREC	(CHUNK / 8)

struct ebz_state {
	uint64_t *pool;
	long nchunks;
	long count;
	long long poolsize;
};

struct ebz_arg {
	const struct ebz_state *s;
	uint64_t seed;
	long count;
	long long records;
	long misses;
};

static void *ebz_worker(void *p)
{
	struct ebz_arg *a = p;
	const struct ebz_state *s = a->s;

	for (long i = 0; i < a->count && !mms_stop; i++) {
		long ch = mms_rand(&a->seed) % s->nchunks;
		const uint64_t *src = s->pool + (size_t)ch * NREC;
		uint64_t key = src[mms_rand(&a->seed) % NREC];
		uint64_t *buf = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long lo = 0, hi = NREC - 1;

		if (buf == MAP_FAILED) {
			a->misses++;
			continue;
		}
		memcpy(buf, src, CHUNK);
		while (lo < hi) {
			long mid = lo + (hi - lo) / 2;

			if (buf[mid] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (buf[lo] != key)
			a->misses++;
		munmap(buf, CHUNK);
		a->records++;
	}
	return NULL;
}

static int ebz_setup(struct mms_ctx *c)
{
	struct ebz_state *s = calloc(1, sizeof(*s));
	long long sz = c->o->size_given ? c->o->size : 16LL << 20;
	uint64_t seed = 42, v = 0;

	if (!s)
		return MMT_EXIT_FAIL;
	c->priv = s;
	s->nchunks = sz / CHUNK > 0 ? sz / CHUNK : 1;
	s->poolsize = (long long)s->nchunks * CHUNK;
	s->count = c->o->count ? c->o->count : 2000;
	s->pool = mmap(NULL, s->poolsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->pool == MAP_FAILED)
		mms_die(MMT_EXIT_FAIL, "ebizzy: cannot allocate a %lld-byte pool: %s", s->poolsize, strerror(errno));
	for (long long i = 0; i < s->poolsize / 8; i++) {
		if (i % NREC == 0)
			v = 0;
		v += 1 + mms_rand(&seed) % 1000;	/* sorted within a chunk */
		s->pool[i] = v;
	}
	return 0;
}

static int ebz_run(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	struct ebz_state *s = c->priv;
	struct ebz_arg *a = calloc(threads, sizeof(*a)), warm;
	struct mms_meas m;
	long misses = 0;
	long long records = 0;

	(void)block;
	if (!a)
		return MMT_EXIT_FAIL;
	for (int t = 0; t < threads; t++) {
		a[t].s = s;
		a[t].seed = 0x9e3779b97f4a7c15ULL * (t + 1);
		a[t].count = s->count;
	}
	warm = a[0];
	warm.count = 1;
	ebz_worker(&warm);
	if (mms_run_threads(threads, ebz_worker, a, sizeof(*a), 0, &m) != 0) {
		free(a);
		mms_err("ebizzy: could not start %d threads", threads);
		return MMT_EXIT_FAIL;
	}
	for (int t = 0; t < threads; t++) {
		records += a[t].records;
		misses += a[t].misses;
	}
	free(a);
	if (misses && !mms_stop) {
		mms_err("ebizzy: %ld searches failed (mmap or lookup)", misses);
		return MMT_EXIT_FAIL;
	}
	mms_result_set(r, &m, records, 1, "records/s");
	r->size = s->poolsize;
	return 0;
}

static void ebz_teardown(struct mms_ctx *c)
{
	struct ebz_state *s = c->priv;

	if (!s)
		return;
	munmap(s->pool, s->poolsize);
	free(s);
	c->priv = NULL;
}

const struct mms_workload mms_wl_ebizzy = {
	"ebizzy", "copy chunks into fresh mmaps, search them (ebizzy -m), records/s",
	ebz_setup, ebz_run, ebz_teardown, 0, "chunk pool",
};
