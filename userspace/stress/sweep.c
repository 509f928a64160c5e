// SPDX-License-Identifier: GPL-2.0
/*
 * The sweep of a workload: setup once, --warmup unmeasured runs at the
 * first order, then each order x thread count x block size x --repeat a
 * measured run, recorded with the order in force for mmstress during it;
 * the order restored, teardown, the records written (and --plot drawn).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"
#include "mmstress.h"

struct sweep {
	struct mms_ctx *c;
	int order;		/* the point's, -1: none */
	int done, total;	/* runs recorded, runs in the sweep */
};

static void progress(const struct mms_ctx *c, int order, int threads, long block,
		     int rep, int done, int total)
{
	char b[32] = "", ob[16];

	if (!mms_progress)
		return;
	if (block)
		mms_fmt_size(block, b, sizeof(b));
	fprintf(stderr, "\r\033[Kmmstress: %s [%d/%d] order %s threads %d%s%s %s %d",
		c->w->name, done + 1, total, mms_order_str(order, FMT_TABLE, ob, sizeof(ob)),
		threads, block ? " block " : "", b, rep ? "run" : "warm-up", rep);
	fflush(stderr);
}

/* a workload that fails has said why: mmstress ends with its code */
static void run_or_exit(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	int ret = c->w->run(c, threads, block, r);

	if (ret) {
		mms_cleanup_run();
		exit(ret);
	}
}

static void warm_up(struct sweep *sw)
{
	struct mms_ctx *c = sw->c;
	const struct mms_opts *o = c->o;
	long block = c->w->uses_blocks ? o->blocks[0] : 0;
	struct mms_result scratch;

	for (int wu = 0; wu < o->warmup && !mms_stop; wu++) {
		memset(&scratch, 0, sizeof(scratch));
		progress(c, sw->order, o->threads[0], block, 0, sw->done, sw->total);
		run_or_exit(c, o->threads[0], block, &scratch);
	}
}

/* the measured runs of one order at one thread count and block size */
static void run_point(struct sweep *sw, int threads, long block)
{
	struct mms_ctx *c = sw->c;
	char rule[sizeof(c->meta.rule)];
	struct mms_result r;
	int eff;

	for (int rep = 1; rep <= c->o->repeat && !mms_stop; rep++) {
		progress(c, sw->order, threads, block, rep, sw->done, sw->total);
		memset(&r, 0, sizeof(r));
		eff = mms_effective_order(rule, sizeof(rule));
		run_or_exit(c, threads, block, &r);
		if (mms_stop)
			break;
		r.workload = c->w->name;
		r.order = sw->order;
		r.eff_order = eff;
		r.threads = threads;
		r.run = rep;
		r.block = block;
		sw->done++;
		if (mms_out_add(&r))
			mms_die(MMT_EXIT_FAIL, "out of memory");
	}
}

static void run_order(struct sweep *sw, int oi)
{
	struct mms_ctx *c = sw->c;
	const struct mms_opts *o = c->o;
	int nb = c->w->uses_blocks ? o->nblocks : 1, err;

	sw->order = -1;
	if (o->norders) {
		sw->order = o->orders[oi];
		err = mmt_order_set(sw->order, NULL);
		if (err)
			mms_die(mmt_exit_code(err), "cannot set fault_around_order %d: %s",
				sw->order, mmt_errmsg());
	}
	if (oi == 0)
		warm_up(sw);
	for (int ti = 0; ti < o->nthreads && !mms_stop; ti++)
		for (int bi = 0; bi < nb && !mms_stop; bi++)
			run_point(sw, o->threads[ti], c->w->uses_blocks ? o->blocks[bi] : 0);
}

int mms_sweep(struct mms_ctx *c)
{
	const struct mms_opts *o = c->o;
	int no = o->norders ? o->norders : 1;
	int nb = c->w->uses_blocks ? o->nblocks : 1;
	struct sweep sw = { .c = c, .order = -1 };
	int ret = c->w->setup(c), n;

	if (ret) {
		/* the workload said why (77: skipped) */
		if (ret == MMS_EXIT_SKIP)
			mms_out_skip("the workload cannot run here");
		mms_cleanup_run();
		exit(ret);
	}
	sw.total = no * o->nthreads * nb * o->repeat;
	mms_out_begin(NULL);
	for (int oi = 0; oi < no && !mms_stop; oi++)
		run_order(&sw, oi);
	if (mms_progress)
		fputs("\r\033[K", stderr);
	if (o->norders && mms_cleanup_restore_order())
		ret = MMT_EXIT_FAIL;
	c->w->teardown(c);
	mms_out_end();
	n = sw.done;
	if (o->plot && !mms_stop && n) {
		const struct mms_result *res = mms_out_records(&n);

		if (mms_plot(c, res, n, o->plot))
			ret = MMT_EXIT_FAIL;
	}
	return ret;
}
