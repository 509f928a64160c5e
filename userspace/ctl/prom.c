// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl stats --prometheus: the module's state in Prometheus' text
 * exposition format, for node_exporter's textfile collector.  The
 * counters (mmtune_NAME_total, named and described by mmt_abi_counters of
 * module/mmtune_abi.h), the orders in force, the usefulness totals, each
 * policy rule's counters labelled with its text (rule="comm=x order=3";
 * faults no rule matched: rule="default") and the latency histogram;
 * with --rss, what fault-around has mapped ahead and is still untouched
 * now, per rule (rssrule.c sums the module's rss file).
 *
 * Every metric has one HELP and one TYPE line, before its samples.  What
 * the module does not show (a file it lacks, "unavailable", a count it
 * has not started) is left out: no sample beats a false zero.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "mmtune_abi.h"

/*
 * The names mmtunectl adds to the counters' (mmtune_abi.h): the metrics
 * of files other than stats, all in this one table.
 */
enum prom_id {
	PM_STATS_ENABLE, PM_BASE_ORDER, PM_KERNEL_ORDER, PM_USEFUL_ENABLE,
	PM_PREFAULTED, PM_UNTOUCHED,
	PM_RULE_HITS, PM_RULE_PAGES, PM_RULE_PREFAULTED, PM_RULE_UNTOUCHED,
	PM_RULE_AUTO_ORDER, PM_RULE_USEFUL,
	PM_LATENCY, PM_RSS_MAPPED, PM_RSS_UNTOUCHED, PM_RSS_PROCS, PM_RSS_BUSY,
	PM_BPF_ATTACHED, PM_BPF_DECISIONS, PM_BPF_REFUSED, PM_NR
};

static const struct prom_name {
	const char *name, *type, *help;
} prom_names[PM_NR] = {
	[PM_STATS_ENABLE] = { "mmtune_stats_enable", "gauge",
		"Whether mmtune counts faults (stats_enable)" },
	[PM_BASE_ORDER] = { "mmtune_base_order", "gauge",
		"The base fault-around order, for faults no policy rule matches (fault_around_order)" },
	[PM_KERNEL_ORDER] = { "mmtune_kernel_order", "gauge",
		"The order the kernel's fault_around_bytes holds now (the largest a rule needs)" },
	[PM_USEFUL_ENABLE] = { "mmtune_usefulness_enable", "gauge",
		"Whether the usefulness measurement runs (usefulness_enable)" },
	[PM_PREFAULTED] = { "mmtune_prefaulted_total", "counter",
		"Pages fault-around mapped ahead of a fault, since usefulness_enable was set to 1" },
	[PM_UNTOUCHED] = { "mmtune_untouched_total", "counter",
		"Pre-mapped pages still untouched when unmapped, since usefulness_enable was set to 1" },
	[PM_RULE_HITS] = { "mmtune_rule_hits_total", "counter",
		"Fault-around calls a policy rule governed (default: no rule matched)" },
	[PM_RULE_PAGES] = { "mmtune_rule_pages_total", "counter",
		"Page table entries set by the fault-around calls a policy rule governed" },
	[PM_RULE_PREFAULTED] = { "mmtune_rule_prefaulted_total", "counter",
		"Pages fault-around mapped ahead of the faults a policy rule matched" },
	[PM_RULE_UNTOUCHED] = { "mmtune_rule_untouched_total", "counter",
		"Pre-mapped pages found untouched at an unmap by a policy rule's processes" },
	[PM_RULE_AUTO_ORDER] = { "mmtune_rule_auto_order", "gauge",
		"The order an order=auto rule has learned and gives now" },
	[PM_RULE_USEFUL] = { "mmtune_rule_useful_ratio", "gauge",
		"An order=auto rule's last judgement: the share of its pre-mapped pages touched" },
	[PM_LATENCY] = { "mmtune_fault_latency_seconds", "histogram",
		"Page fault time (handle_mm_fault), by whether fault-around ran (kind)" },
	[PM_RSS_MAPPED] = { "mmtune_rss_mapped_bytes", "gauge",
		"Bytes file mappings map with PTEs now, of the processes a policy rule matches first" },
	[PM_RSS_UNTOUCHED] = { "mmtune_rss_untouched_bytes", "gauge",
		"Of those, bytes fault-around mapped ahead that are still untouched" },
	[PM_RSS_PROCS] = { "mmtune_rss_processes", "gauge",
		"Processes counted in a rule's rss bytes (default: no rule matched)" },
	[PM_RSS_BUSY] = { "mmtune_rss_busy_processes", "gauge",
		"Processes the rss walk skipped: their mmap lock was held" },
	[PM_BPF_ATTACHED] = { "mmtune_bpf_attached", "gauge",
		"Whether a BPF program chooses the fault-around order (mmtunectl bpf)" },
	[PM_BPF_DECISIONS] = { "mmtune_bpf_decisions_total", "counter",
		"Fault-around calls a BPF program gave an order, by that order" },
	[PM_BPF_REFUSED] = { "mmtune_bpf_refused_total", "counter",
		"Fault-around calls whose BPF program asked more than the rule's order: refused" },
};

/* The module's last latency bucket (2^47 ns) also holds everything longer. */
#define LAT_TOP		(1ULL << 47)

/* Which metrics have had their HELP and TYPE lines. */
struct prom {
	bool shown[PM_NR];
};

static void head(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A sample of metric id (NAME SUFFIX{LABELS} VALUE), after its HELP and TYPE. */
static void sample(struct prom *p, enum prom_id id, const char *suffix, const char *labels,
		   const char *val)
{
	const struct prom_name *m = &prom_names[id];

	if (!p->shown[id]) {
		head(m->name, m->type, m->help);
		p->shown[id] = true;
	}
	printf("%s%s%s%s%s %s\n", m->name, suffix, labels ? "{" : "", labels ? labels : "",
	       labels ? "}" : "", val);
}

static void sample_u(struct prom *p, enum prom_id id, const char *labels, unsigned long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", v);
	sample(p, id, "", labels, b);
}

/* stats_enable and the counters of the stats file (kv, n). */
static void prom_counters(struct prom *p, const struct mmt_kv *kv, int n, int sen)
{
	unsigned long long u;
	const char *v;
	size_t i;

	if (sen >= 0)
		sample_u(p, PM_STATS_ENABLE, NULL, sen > 0);
	for (i = 0; mmt_abi_counters[i].name; i++) {
		const char *name = mmt_abi_counters[i].name;
		char full[96];

		v = mmt_kv_get(kv, n, name);
		if (!v || mmt_parse_u64(v, &u))
			continue;	/* "unavailable", "off" */
		snprintf(full, sizeof(full), "mmtune_%s_total", name);
		head(full, "counter", mmt_abi_counters[i].help);
		printf("%s %llu\n", full, u);
	}
}

/*
 * The base order as status reads it; the kernel's as policy show reads
 * it (ps, NULL without a policy), else info's "order" line.
 */
static void prom_orders(struct prom *p, const struct mmt_policy *ps)
{
	int order, via, k = ps ? ps->kernel_order : -1, n;
	struct mmt_kv *kv;
	const char *v;
	long l;

	if (!mmt_order_get(&order, &via) && !via)
		sample_u(p, PM_BASE_ORDER, NULL, (unsigned long long)order);
	if (k < 0 && (kv = calloc(MAXKV, sizeof(*kv)))) {
		n = mmt_info(kv, MAXKV);
		v = n > 0 ? mmt_kv_get(kv, n, "order") : NULL;
		if (v && !mmt_parse_long(v, 0, 63, &l))
			k = (int)l;
		free(kv);
	}
	if (k >= 0)
		sample_u(p, PM_KERNEL_ORDER, NULL, (unsigned long long)k);
}

/* The usefulness file's totals, while the measurement is on or off (not unavailable). */
static void prom_usefulness(struct prom *p, char *buf)
{
	static const enum prom_id id[] = { PM_PREFAULTED, PM_UNTOUCHED };
	static const char *const key[] = { "prefaulted", "untouched" };
	long r = mmt_knob_read_n("usefulness", buf, BUFSZ);
	struct mmt_kv kv[16];
	unsigned long long u;
	const char *st, *v;
	int n, i;

	n = r >= 0 ? mmt_parse_info(buf, (size_t)r, kv, 16) : -1;
	st = n > 0 ? mmt_kv_get(kv, n, "state") : NULL;
	if (!st || (strcmp(st, "on") && strcmp(st, "off")))
		return;	/* no such file, or "unavailable (REASON)" */
	sample_u(p, PM_USEFUL_ENABLE, NULL, !strcmp(st, "on"));
	for (i = 0; i < 2; i++) {
		v = mmt_kv_get(kv, n, key[i]);
		if (v && !mmt_parse_u64(v, &u))
			sample_u(p, id[i], NULL, u);
	}
}

/* The policy as policy show reads it; NULL without one (a note if unreadable). */
static struct mmt_policy *prom_policy(void)
{
	struct mmt_policy *ps;

	if (policy_absent())
		return NULL;	/* a module from before the policy */
	ps = malloc(sizeof(*ps));
	if (!ps)
		lib_fail(MMT_EIO);
	else if (!read_policy(ps))
		return ps;
	free(ps);
	fprintf(stderr, PROG ": note: the policy's metrics are left out\n");
	return NULL;
}

/* One row of the rule metrics: the label rule="TEXT" and its counters. */
struct prom_row {
	char label[1040];
	const struct mmt_prule *r;
};

/* The default row, then each rule once (a rule again never matches). */
static int prom_rows(const struct mmt_policy *ps, struct prom_row *rows)
{
	char text[MMT_MATCH_LEN + 32], esc[1024];
	int n = 0, i, j;

	for (i = -1; i < ps->nr; i++) {
		const struct mmt_prule *r = i < 0 ? &ps->def : &ps->r[i];

		if (i < 0)
			snprintf(text, sizeof(text), "default");
		else
			snprintf(text, sizeof(text), "%s order=%s", r->match, r->order);
		mmt_prom_escape(esc, sizeof(esc), text);
		snprintf(rows[n].label, sizeof(rows[n].label), "rule=\"%s\"", esc);
		for (j = 0; j < n && strcmp(rows[j].label, rows[n].label); j++)
			;
		if (j == n)
			rows[n++].r = r;
	}
	return n;
}

/* The value of a rule's integer metric id into *v: 1, or 0 if the module shows none. */
static int rule_value(const struct mmt_prule *r, enum prom_id id, unsigned long long *v)
{
	int o;

	switch (id) {
	case PM_RULE_HITS: *v = r->hits; return r->has_hits;
	case PM_RULE_PAGES: *v = r->pages; return r->has_pages;
	case PM_RULE_PREFAULTED: *v = r->prefaulted; return r->has_prefaulted;
	case PM_RULE_UNTOUCHED: *v = r->untouched; return r->has_untouched;
	case PM_RULE_AUTO_ORDER:
		o = mmt_prule_is_auto(r) ? mmt_prule_order(r) : -1;
		*v = o >= 0 ? (unsigned long long)o : 0;
		return o >= 0;
	default: return 0;
	}
}

/* Per rule: each metric's samples together, a row after the other. */
static void prom_rules(struct prom *p, const struct mmt_policy *ps)
{
	struct prom_row *rows = calloc(MMT_PRULES_MAX + 1, sizeof(*rows));
	unsigned long long v;
	int n, i, id;
	char b[16];

	if (!rows) {
		lib_fail(MMT_EIO);
		return;
	}
	n = prom_rows(ps, rows);
	for (id = PM_RULE_HITS; id <= PM_RULE_AUTO_ORDER; id++)
		for (i = 0; i < n; i++)
			if (rule_value(rows[i].r, id, &v))
				sample_u(p, id, rows[i].label, v);
	for (i = 0; i < n; i++) {
		const struct mmt_prule *r = rows[i].r;

		if (!mmt_prule_is_auto(r) || r->useful < 0)
			continue;	/* no judgement yet */
		snprintf(b, sizeof(b), "%d.%03d", r->useful / 1000, r->useful % 1000);
		sample(p, PM_RULE_USEFUL, "", rows[i].label, b);
	}
	free(rows);
}

/* The rss sums of each row's rule (rssrule.c), then the busy processes. */
static void prom_rss(struct prom *p, const struct mmt_policy *ps, const struct rss_by_rule *by)
{
	struct prom_row *rows = calloc(MMT_PRULES_MAX + 1, sizeof(*rows));
	const struct rss_sum *s;
	int n, i, id;

	if (!rows) {
		lib_fail(MMT_EIO);
		return;
	}
	n = prom_rows(ps, rows);
	for (id = PM_RSS_MAPPED; id <= PM_RSS_PROCS; id++)
		for (i = 0; i < n; i++) {
			s = rows[i].r == &ps->def ? &by->def : &by->r[rows[i].r - ps->r];
			sample_u(p, id, rows[i].label, id == PM_RSS_MAPPED ? s->mapped :
				 id == PM_RSS_UNTOUCHED ? s->untouched : s->procs);
		}
	sample_u(p, PM_RSS_BUSY, NULL, by->busy);
	free(rows);
}

/* ns as seconds, exactly: 1024 is "0.000001024". */
static void seconds(char *b, size_t len, unsigned long long ns)
{
	int l = snprintf(b, len, "%llu.%09llu", ns / 1000000000ULL, ns % 1000000000ULL);

	while (l > 0 && (size_t)l < len && b[l - 1] == '0')
		b[--l] = '\0';
	if (l > 0 && (size_t)l < len && b[l - 1] == '.')
		b[--l] = '\0';
}

/*
 * Whether lat is a histogram to show: buckets (none while unavailable),
 * in ns, in order.
 */
static int lat_usable(const struct mmt_latency *lat)
{
	const char *unit = mmt_kv_get(lat->kv, lat->nkv, "unit");
	int i;

	if (!lat->nb || !unit || strcmp(unit, "ns"))
		return 0;
	for (i = 1; i < lat->nb; i++)
		if (lat->b[i].high <= lat->b[i - 1].high)
			return 0;
	return 1;
}

/* One kind's series: cumulative buckets (le: the bucket's HIGH), +Inf, _count. */
static void lat_kind(struct prom *p, const struct mmt_latency *lat, int fa)
{
	const char *kind = fa ? "fault_around" : "no_fault_around";
	const char *v = mmt_kv_get(lat->kv, lat->nkv, fa ? "fault_around_samples" :
				   "no_fault_around_samples");
	unsigned long long cum = 0, u;
	char l[96], s[48], c[32];
	int i;

	if (!v || mmt_parse_u64(v, &u))
		return;	/* "unavailable": faults not told apart */
	for (i = 0; i < lat->nb; i++) {
		cum += fa ? lat->b[i].fault_around : lat->b[i].no_fault_around;
		if (lat->b[i].high >= LAT_TOP)
			continue;	/* not an upper bound: in +Inf */
		seconds(s, sizeof(s), lat->b[i].high);
		snprintf(l, sizeof(l), "kind=\"%s\",le=\"%s\"", kind, s);
		snprintf(c, sizeof(c), "%llu", cum);
		sample(p, PM_LATENCY, "_bucket", l, c);
	}
	snprintf(c, sizeof(c), "%llu", cum);
	snprintf(l, sizeof(l), "kind=\"%s\",le=\"+Inf\"", kind);
	sample(p, PM_LATENCY, "_bucket", l, c);
	snprintf(l, sizeof(l), "kind=\"%s\"", kind);
	sample(p, PM_LATENCY, "_count", l, c);
}

/* The latency record as a histogram (no _sum: the module keeps none). */
static void prom_latency(struct prom *p)
{
	struct mmt_latency *lat = malloc(sizeof(*lat));

	if (lat && mmt_latency_read(lat) >= 0 && lat_usable(lat)) {
		lat_kind(p, lat, 1);
		lat_kind(p, lat, 0);
	}
	free(lat);
}

/*
 * With --rss, the rss sums, before anything is printed: *by NULL when
 * they are left out (a note says why), else freed by the caller.  0, or
 * an exit code after saying why (nothing printed then).
 */
static int prom_rss_read(const struct mmt_policy *ps, struct rss_by_rule **by)
{
	int rc;

	*by = NULL;
	if (!ps) {
		fprintf(stderr, PROG ": note: the rss metrics are left out: they need the policy\n");
		return 0;
	}
	*by = malloc(sizeof(**by));
	if (!*by)
		return lib_fail(MMT_EIO);
	rc = rss_by_rule(ps, *by);
	if (rc || !(*by)->shown) {
		free(*by);
		*by = NULL;
	}
	return rc;
}

/* The BPF program's counters (sysfs bpf/); none from a module without them. */
static void prom_bpf(struct prom *p)
{
	struct mmt_bpf_state b;
	char lab[32];
	int i;

	if (mmt_bpf_read(&b))
		return;
	sample_u(p, PM_BPF_ATTACHED, NULL, (unsigned long long)b.attached);
	for (i = 0; i < b.ndecisions; i++) {
		snprintf(lab, sizeof(lab), "order=\"%d\"", i);
		sample_u(p, PM_BPF_DECISIONS, lab, b.decisions[i]);
	}
	sample_u(p, PM_BPF_REFUSED, NULL, b.refused);
}

/*
 * What --rss cannot measure (no rss file, "available 0",
 * usefulness_enable 0) is left out with a note on stderr, exit 0: a
 * textfile collector's script then still writes the other metrics, and
 * the note tells its log why these are absent.  A read that fails
 * otherwise fails the whole output, as a stats file that fails does.
 */
int print_prometheus(const struct mmt_kv *kv, int n, int sen, char *buf, int rss)
{
	struct mmt_policy *ps = prom_policy();
	struct rss_by_rule *by = NULL;
	struct prom p;
	int rc = rss ? prom_rss_read(ps, &by) : 0;

	if (rc) {
		free(ps);
		return rc;
	}
	memset(&p, 0, sizeof(p));
	prom_counters(&p, kv, n, sen);
	prom_orders(&p, ps);
	prom_usefulness(&p, buf);
	if (ps)
		prom_rules(&p, ps);
	prom_latency(&p);
	prom_bpf(&p);
	if (by)
		prom_rss(&p, ps, by);
	free(by);
	free(ps);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the metrics: %m\n");
		return MMT_EXIT_FAIL;
	}
	return 0;
}
