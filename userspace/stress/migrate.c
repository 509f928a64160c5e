// SPDX-License-Identifier: GPL-2.0
/*
 * migrate: a large file-backed read-only mapping whose pages
 * are migrated back and forth between two NUMA nodes with move_pages(2)
 * (raw syscall, no libnuma), MB/s migrated.  Each thread moves its own
 * range; one pass is there and back.  The vm_pgmigrate_* columns carry
 * the kernel's success/fail counters over the window.  With fewer than
 * two nodes with memory it says so and exits 77.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif
#define BATCH 1024

struct mig_state {
	struct mms_file f;
	char *base;
	long long per_thread, total;
	long npages;		/* per thread */
	int node[2];
	long count;
	void **pages;		/* all pages of the mapping */
	int *nodes, *status;	/* same size */
};

struct mig_arg {
	struct mig_state *s;
	long first;		/* page index */
	long npages;
	long passes;
	long long moved;
	long failed;
	int err;
};

static long move_pages(long n, void **pages, const int *nodes, int *status)
{
	return syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
}

/* move [first, first+n) to node; count pages that ended up there */
static int move_range(struct mig_state *s, long first, long n, int node, long long *moved, long *failed)
{
	for (long i = first; i < first + n && !mms_stop; i += BATCH) {
		long k = first + n - i < BATCH ? first + n - i : BATCH;

		for (long j = 0; j < k; j++)
			s->nodes[i + j] = node;
		if (move_pages(k, s->pages + i, s->nodes + i, s->status + i) < 0)
			return errno;
		for (long j = 0; j < k; j++) {
			if (s->status[i + j] == node)
				(*moved)++;
			else
				(*failed)++;
		}
	}
	return 0;
}

static void *mig_worker(void *p)
{
	struct mig_arg *a = p;
	struct mig_state *s = a->s;

	for (long pass = 0; pass < a->passes && !mms_stop; pass++)
		for (int dir = 1; dir >= 0 && !mms_stop; dir--) {
			a->err = move_range(s, a->first, a->npages, s->node[dir], &a->moved, &a->failed);
			if (a->err)
				return NULL;
		}
	return NULL;
}

static int mig_setup(struct mms_ctx *c)
{
	const struct mms_opts *o = c->o;
	struct mig_state *s;
	int ids[64], n = mms_mem_nodes(ids, 64), err;
	long long moved = 0;
	long failed = 0;
	long span = c->ptrs_per_pte * c->page;

	if (n < 2)
		mms_die(MMS_EXIT_SKIP, "migrate: needs two NUMA nodes with memory, this system has %d; skipped", n);
	s = calloc(1, sizeof(*s));
	if (!s)
		return MMT_EXIT_FAIL;
	c->priv = s;
	s->node[0] = ids[0];
	s->node[1] = ids[1];
	s->per_thread = o->size_given ? o->size : 64LL << 20;
	s->per_thread = (s->per_thread + c->page - 1) / c->page * c->page;
	s->npages = s->per_thread / c->page;
	s->total = s->per_thread * o->max_threads;
	s->count = o->count ? o->count : 2;
	err = mms_file_prepare(c, &s->f, s->total, 0, NULL, NULL, 0);
	if (err == -EINTR)
		return 0;
	if (err)
		return err;
	s->base = mms_map_aligned(s->total, span, PROT_READ, MAP_SHARED | MAP_POPULATE, s->f.fd, 0);
	if (!s->base)
		mms_die(MMT_EXIT_FAIL, "migrate: mmap: %s", strerror(errno));
	s->pages = calloc(s->total / c->page, sizeof(*s->pages));
	s->nodes = calloc(s->total / c->page, sizeof(*s->nodes));
	s->status = calloc(s->total / c->page, sizeof(*s->status));
	if (!s->pages || !s->nodes || !s->status)
		mms_die(MMT_EXIT_FAIL, "migrate: out of memory");
	for (long i = 0; i < s->total / c->page; i++) {
		s->pages[i] = s->base + i * c->page;
		(void)*(volatile char *)s->pages[i];
	}
	/* start with everything on the first node (not measured) */
	err = move_range(s, 0, s->total / c->page, s->node[0], &moved, &failed);
	if (err == ENOSYS || err == EPERM)
		mms_die(MMS_EXIT_SKIP, "migrate: move_pages: %s; skipped", strerror(err));
	if (err)
		mms_die(MMT_EXIT_FAIL, "migrate: move_pages: %s", strerror(err));
	if (moved == 0 && !mms_stop)
		mms_die(MMT_EXIT_FAIL, "migrate: no page of %s could be put on node %d", s->f.path, s->node[0]);
	return 0;
}

static int mig_run(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	struct mig_state *s = c->priv;
	struct mig_arg *a = calloc(threads, sizeof(*a));
	struct mms_meas m;
	long failed = 0;
	int err = 0;

	(void)block;
	if (!a)
		return MMT_EXIT_FAIL;
	for (int t = 0; t < threads; t++) {
		a[t].s = s;
		a[t].first = s->npages * t;
		a[t].npages = s->npages;
		a[t].passes = s->count;
	}
	if (mms_run_threads(threads, mig_worker, a, sizeof(*a), 0, &m) != 0) {
		free(a);
		mms_err("migrate: could not start %d threads", threads);
		return MMT_EXIT_FAIL;
	}
	r->ops = 0;
	for (int t = 0; t < threads; t++) {
		r->ops += a[t].moved;
		failed += a[t].failed;
		if (a[t].err)
			err = a[t].err;
	}
	free(a);
	if (err) {
		mms_err("migrate: move_pages: %s", strerror(err));
		return MMT_EXIT_FAIL;
	}
	if (r->ops == 0 && !mms_stop) {
		mms_err("migrate: no page moved (%ld failed)", failed);
		return MMT_EXIT_FAIL;
	}
	mms_result_set(r, &m, r->ops * c->page, 1e6, "MB/s");	/* bytes migrated */
	r->vm_pgmigrate_success = m.vm.pgmigrate_success;
	r->vm_pgmigrate_fail = m.vm.pgmigrate_fail;
	r->size = s->per_thread;
	return 0;
}

static void mig_teardown(struct mms_ctx *c)
{
	struct mig_state *s = c->priv;

	if (!s)
		return;
	if (s->base)
		munmap(s->base, s->total);
	free(s->pages);
	free(s->nodes);
	free(s->status);
	mms_file_close(&s->f);
	free(s);
	c->priv = NULL;
}

const struct mms_workload mms_wl_migrate = {
	"migrate", "a file mapping moved between two NUMA nodes (move_pages), MB/s",
	mig_setup, mig_run, mig_teardown, 0, "per thread",
};
