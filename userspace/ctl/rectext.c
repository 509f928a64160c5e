// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl get of a record (info, stats, latency, policy) where its
 * debugfs file cannot be read (lockdown refuses it, debugfs is not
 * mounted, not root): the text that file shows, made from the record as
 * libmmtune reads it from /sys/kernel/mm/mmtune/.  For display alone:
 * nothing parses it back (a caller that wants the values reads them
 * typed).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* info "key: value" and stats "name value" lines; 0, or -1 unread. */
static int kv_text(FILE *f, int info)
{
	struct mmt_kv *kv = calloc(MAXKV, sizeof(*kv));
	int n = !kv ? -1 : info ? mmt_info(kv, MAXKV) : mmt_stats_read(kv, MAXKV), i;

	for (i = 0; i < n; i++)
		fprintf(f, info ? "%s: %s\n" : "%s %s\n", kv[i].key, kv[i].value);
	free(kv);
	return n < 0 ? -1 : 0;
}

/* The state and counts, then (but where unavailable) the buckets. */
static int latency_text(FILE *f)
{
	struct mmt_latency *l = malloc(sizeof(*l));
	const char *st;
	int i;

	if (!l || mmt_latency_read(l) < 0) {
		free(l);
		return -1;
	}
	for (i = 0; i < l->nkv; i++)
		fprintf(f, "%s: %s\n", l->kv[i].key, l->kv[i].value);
	st = mmt_kv_get(l->kv, l->nkv, "state");
	if (!st || strcmp(st, "unavailable"))
		fprintf(f, "# %10s %12s %13s %16s\n", "low", "high", "fault_around",
			"no_fault_around");
	for (i = 0; i < l->nb; i++)
		fprintf(f, "%12llu %12llu %13llu %16llu\n", l->b[i].low, l->b[i].high,
			l->b[i].fault_around, l->b[i].no_fault_around);
	free(l);
	return 0;
}

/* " hits=H pages=P" ("-": pages not counted). */
static void ctr_text(FILE *f, const struct mmt_prule *r)
{
	fprintf(f, " hits=%llu pages=", r->hits);
	if (r->has_pages)
		fprintf(f, "%llu", r->pages);
	else
		fputs("-", f);
}

/* A rule's line: its text, its counters, an auto rule's fields. */
static void rule_text(FILE *f, const struct mmt_prule *r)
{
	fprintf(f, "%s order=%s #", r->match, r->order);
	ctr_text(f, r);
	if (r->has_prefaulted || r->has_untouched)	/* once they counted */
		fprintf(f, " prefaulted=%llu untouched=%llu", r->prefaulted, r->untouched);
	if (!(r->au_seen & 1 << MMT_PA_ORDER))
		return;
	fprintf(f, " auto_order=%llu", r->au[MMT_PA_ORDER]);
	if (!(r->au_seen & 1 << MMT_PA_RAISED))
		return;		/* a module from before them */
	fprintf(f, " raised=%llu lowered=%llu learned=%llu useful=", r->au[MMT_PA_RAISED],
		r->au[MMT_PA_LOWERED], r->au[MMT_PA_LEARNED]);
	if (r->useful < 0)
		fputs("-", f);
	else
		fprintf(f, "%d.%d%%", r->useful / 10, r->useful % 10);
	if (r->au_seen & 1 << MMT_PA_UNTRUSTED)
		fprintf(f, " untrusted=%llu", r->au[MMT_PA_UNTRUSTED]);
}

/* The header comments, then a line per rule. */
static int policy_text(FILE *f)
{
	struct mmt_policy *p = malloc(sizeof(*p));
	int i;

	if (!p || mmt_policy_read(p)) {
		free(p);
		return -1;
	}
	fprintf(f, "# rules %d/%d\n", p->nr, p->max_rules);
	if (p->kernel_order >= 0 && p->default_order >= 0) {
		fprintf(f, "# kernel order=%d\n# default order=%d", p->kernel_order,
			p->default_order);
		if (p->nr)	/* the faults no rule matched */
			ctr_text(f, &p->def);
		fputs("\n", f);
		for (i = 0; i < p->nr; i++) {
			rule_text(f, &p->r[i]);
			fputs("\n", f);
		}
	}
	free(p);
	return 0;
}

int record_text(const char *knob, FILE *f)
{
	if (!strcmp(knob, "info") || !strcmp(knob, "stats"))
		return kv_text(f, !strcmp(knob, "info"));
	if (!strcmp(knob, "latency"))
		return latency_text(f);
	if (!strcmp(knob, "policy"))
		return policy_text(f);
	return -1;
}
