// SPDX-License-Identifier: GPL-2.0
/*
 * The advisor's choice: an order per file and one for the rest, the
 * fewest read faults within a budget of untouched pages, with at most
 * max_rules files ruled apart from the rest.
 *
 * A file's faults and untouched pages at an order depend on that order
 * alone (a window never crosses its VMA, and a VMA maps one file), so a
 * policy's totals are sums over files: a multiple-choice knapsack, one
 * order picked per file, weights the untouched pages, values the faults,
 * and a count (the rules) on the side.  It is solved exactly, for each
 * order the rest may take, by dynamic programming over the files with
 * the budget in pages and the rules used as the table's axes: no greedy
 * by faults saved per page, which misses where a file's curve is not
 * convex (a window that covers the next page table's start at order 9
 * and nothing at 8).  Cost: files x rules x budget cells, each tried at
 * every order, for every rest order.  Past in->cells cells the budget is
 * counted in units of several pages, each file's untouched pages rounded
 * up: the policy found still fits the budget, but a policy that fits
 * only by less than a unit can be missed (out->unit says so).
 *
 * Ties: fewer faults, then fewer untouched pages, then fewer rules, then
 * the lower rest order.  Where no policy fits (the record's kernel maps
 * whole folios, so that order 0 too leaves pages untouched, and the
 * budget is below that), the least untouched policy, then the fewest
 * faults (out->over).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "advpick.h"

#define ADV_INF	ULLONG_MAX

struct adv_sol {
	unsigned long long faults, untouched;
	int rules, ok;
	unsigned long unit;
};

int adv_flat(const struct adv_in *in, const struct adv_file *f)
{
	int k;

	for (k = 1; k < in->norders; k++)
		if (f->at[k].faults != f->at[0].faults || f->at[k].untouched != f->at[0].untouched)
			return 0;
	return 1;
}

/* The DP's tables for one rest order: nv files, J rule counts, nb budgets. */
struct adv_dp {
	const struct adv_in *in;
	int r, nv, J, *v;
	unsigned long long nb, unit, *cur, *nxt;
	unsigned char *ch;	/* the order each cell took, per file */
};

static unsigned long long adv_w(const struct adv_dp *d, int i, int k)
{
	return (d->in->f[i].at[k].untouched + d->unit - 1) / d->unit;
}

/* File t of the DP: nxt from cur, each cell's order into ch. */
static void adv_step(struct adv_dp *d, int t)
{
	const struct adv_file *f = &d->in->f[d->v[t]];
	unsigned long long b, p, best, w;
	int j, kk, k, bk;

	for (j = 0; j < d->J; j++)
		for (b = 0; b < d->nb; b++) {
			best = ADV_INF;
			bk = d->r;
			/* the rest's order first: on a tie it needs no rule */
			for (kk = -1; kk < d->in->norders; kk++) {
				k = kk < 0 ? d->r : kk;
				if ((kk >= 0 && k == d->r) || j - (k != d->r) < 0)
					continue;
				w = adv_w(d, d->v[t], k);
				if (w > b)
					continue;
				p = d->cur[(j - (k != d->r)) * d->nb + b - w];
				if (p == ADV_INF)
					continue;
				if (p + f->at[k].faults < best) {
					best = p + f->at[k].faults;
					bk = k;
				}
			}
			d->nxt[j * d->nb + b] = best;
			d->ch[((size_t)t * d->J + j) * d->nb + b] = (unsigned char)bk;
		}
}

/* The cell to end at: least faults (with @least: least budget first). */
static int adv_end(const struct adv_dp *d, int least, unsigned long long *bb, int *jj)
{
	unsigned long long best = ADV_INF, b;
	int j;

	for (j = 0; j < d->J && !least; j++)
		if (d->cur[j * d->nb + d->nb - 1] < best)
			best = d->cur[j * d->nb + d->nb - 1];
	/* the smallest budget that gives it: the fewest untouched pages */
	for (b = 0; b < d->nb; b++)
		for (j = 0; j < d->J; j++)
			if (d->cur[j * d->nb + b] != ADV_INF && (least || d->cur[j * d->nb + b] == best)) {
				*bb = b;
				*jj = j;
				return 0;
			}
	return -1;
}

/* Sizes of @d for @budget pages over the fixed files' @cu: 0, 1 if none fits. */
static int adv_size(struct adv_dp *d, unsigned long long budget, unsigned long long cu)
{
	unsigned long long ucap = 0, B, per, cells = d->in->cells ? d->in->cells : ADV_CELLS, m;
	int t, k;

	if (cu > budget)
		return 1;
	for (t = 0; t < d->nv; t++) {
		for (m = 0, k = 0; k < d->in->norders; k++)
			if (d->in->f[d->v[t]].at[k].untouched > m)
				m = d->in->f[d->v[t]].at[k].untouched;
		ucap += m;
	}
	B = budget - cu < ucap ? budget - cu : ucap;	/* more never binds */
	d->J = (d->nv < d->in->max_rules ? d->nv : d->in->max_rules) + 1;
	per = (unsigned long long)(d->nv ? d->nv : 1) * d->J;
	d->unit = 1;
	d->nb = B + 1;
	if (d->nb > cells / per) {
		d->nb = cells / per ? cells / per : 1;
		d->unit = B / d->nb + 1;	/* so that B / unit < nb */
		d->nb = B / d->unit + 1;
	}
	return 0;
}

/* The files of @d->v in order, then back from the end cell into @ord. */
static int adv_run(struct adv_dp *d, int least, int *ord, struct adv_sol *s)
{
	unsigned long long b;
	int t, j, k;

	d->cur = malloc(sizeof(*d->cur) * d->J * d->nb);
	d->nxt = malloc(sizeof(*d->nxt) * d->J * d->nb);
	d->ch = malloc((size_t)(d->nv ? d->nv : 1) * d->J * d->nb);
	if (!d->cur || !d->nxt || !d->ch)
		return -1;
	for (j = 0; j < d->J; j++)
		for (b = 0; b < d->nb; b++)
			d->cur[j * d->nb + b] = j ? ADV_INF : 0;
	for (t = 0; t < d->nv; t++) {
		unsigned long long *x = d->cur;

		adv_step(d, t);
		d->cur = d->nxt;
		d->nxt = x;
	}
	if (adv_end(d, least, &b, &j))
		return 0;
	for (t = d->nv - 1; t >= 0; t--) {
		k = d->ch[((size_t)t * d->J + j) * d->nb + b];
		ord[d->v[t]] = k;
		b -= adv_w(d, d->v[t], k);
		j -= k != d->r;
	}
	s->ok = 1;
	return 0;
}

/* The best policy whose rest takes order @r, into @ord and @s: 0, -1 no memory. */
static int adv_solve(const struct adv_in *in, int r, unsigned long long budget, int least,
		     int *ord, struct adv_sol *s)
{
	struct adv_dp d = { .in = in, .r = r };
	unsigned long long cu = 0;
	int i, rc = 0;

	memset(s, 0, sizeof(*s));
	d.v = malloc(sizeof(*d.v) * (in->nf ? in->nf : 1));
	if (!d.v)
		return -1;
	/* a file no rule can name, or whose order changes nothing: the rest's */
	for (i = 0; i < in->nf; i++) {
		if (in->f[i].ruleable && !adv_flat(in, &in->f[i]))
			d.v[d.nv++] = i;
		else
			cu += in->f[i].at[r].untouched;
		ord[i] = r;
	}
	if (!adv_size(&d, budget, cu))
		rc = adv_run(&d, least, ord, s);
	for (i = 0; s->ok && i < in->nf; i++) {
		s->faults += in->f[i].at[ord[i]].faults;
		s->untouched += in->f[i].at[ord[i]].untouched;
		s->rules += ord[i] != r;
	}
	s->unit = d.unit;
	free(d.v);
	free(d.cur);
	free(d.nxt);
	free(d.ch);
	return rc;
}

static int adv_better(const struct adv_sol *a, const struct adv_sol *b, int least)
{
	unsigned long long a1 = least ? a->untouched : a->faults, b1 = least ? b->untouched : b->faults;
	unsigned long long a2 = least ? a->faults : a->untouched, b2 = least ? b->faults : b->untouched;

	if (a1 != b1)
		return a1 < b1;
	if (a2 != b2)
		return a2 < b2;
	return a->rules < b->rules;
}

int adv_pick(const struct adv_in *in, struct adv_out *out)
{
	struct adv_sol best = { 0 }, s;
	int *ord = malloc(sizeof(*ord) * (in->nf ? in->nf : 1)), pass, r;

	if (!ord)
		return -1;
	out->unit = 1;
	/* within the budget; if nothing fits, the least untouched */
	for (pass = 0; pass < 2 && !best.ok; pass++)
		for (r = 0; r < in->norders; r++) {
			if (adv_solve(in, r, pass ? ADV_INF : in->budget, pass, ord, &s)) {
				free(ord);
				return -1;
			}
			if (s.unit > out->unit)
				out->unit = s.unit;
			if (!s.ok || (best.ok && !adv_better(&s, &best, pass)))
				continue;
			best = s;
			out->rest = r;
			out->over = pass;
			memcpy(out->order, ord, sizeof(*ord) * in->nf);
		}
	out->faults = best.faults;
	out->untouched = best.untouched;
	out->rules = best.rules;
	free(ord);
	return 0;
}

int adv_single(const struct adv_in *in, unsigned long long *faults, unsigned long long *untouched)
{
	unsigned long long f, u;
	int k, i, best = -1;

	for (k = 0; k < in->norders; k++) {
		for (f = u = 0, i = 0; i < in->nf; i++) {
			f += in->f[i].at[k].faults;
			u += in->f[i].at[k].untouched;
		}
		if (u > in->budget || (best >= 0 && (f > *faults || (f == *faults && u >= *untouched))))
			continue;
		best = k;
		*faults = f;
		*untouched = u;
	}
	return best;
}
