// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl stats: the module's counters once (text, JSON with the
 * latency histogram, or Prometheus' text format: prom.c, with --rss the
 * rss file's sums per rule too), or per-interval deltas with --watch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"

static const char stats_optstring[] = "+:jpw:c:rh";
static const struct option stats_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "prometheus", no_argument, NULL, 'p' },
	{ "watch", required_argument, NULL, 'w' },
	{ "count", required_argument, NULL, 'c' },
	{ "reset", no_argument, NULL, 'r' },
	{ "rss", no_argument, NULL, 'R' },	/* long only: -r is --reset */
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_stats(int argc, char **argv);

const struct cmd cmd_stats = {
	"stats", do_stats, stats_optstring, stats_opts, "usage: " PROG " stats [--json | --prometheus [--rss]] [--reset] [--watch SECONDS [--count N]]",
	"Print the module's counters, one 'name value' per line.\n"
	"  --json             one JSON object ('unavailable' and 'off': null)\n"
	"  --prometheus       Prometheus text format, for node_exporter's textfile collector\n"
	"  --rss              with --prometheus: fault-around's untouched pages per policy rule\n"
	"  --reset            zero every counter first (alone: just reset)\n"
	"  --watch SECONDS    per-interval deltas, a line per interval, until Ctrl-C\n"
	"  --count N          stop after N intervals\n"
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Sleep s seconds unless a signal asks to stop; 0 when the full time passed. */
static int nap(long s)
{
	struct timespec t = { .tv_sec = s, .tv_nsec = 0 };

	while (!stop) {
		if (!nanosleep(&t, &t))
			return 0;
		if (errno != EINTR)
			return -1;
	}
	return -1;
}

static int cmp_u64(const char *v, unsigned long long *u)
{
	return mmt_parse_u64(v, u) == MMT_OK;
}

/* JSON only: the latency record as an object, or null when it is missing or unusable. */
static void show_latency(struct out *o)
{
	struct mmt_latency *lat = malloc(sizeof(*lat));
	int i;

	if (!lat || mmt_latency_read(lat) < 0 || (!lat->nkv && !lat->nb)) {
		out_str(o, "latency", NULL, NULL, NULL);
		free(lat);
		return;
	}
	out_obj(o, "latency");
	for (i = 0; i < lat->nkv; i++) {
		if (!strcmp(lat->kv[i].key, "buckets") || mmt_kv_get(lat->kv, i, lat->kv[i].key))
			continue;
		out_value(o, lat->kv[i].key, lat->kv[i].value);
	}
	out_arr(o, "buckets");
	for (i = 0; i < lat->nb; i++) {
		out_obj(o, NULL);
		jsonw_uint_field(&o->jw, "low", lat->b[i].low);
		jsonw_uint_field(&o->jw, "high", lat->b[i].high);
		jsonw_uint_field(&o->jw, "fault_around", lat->b[i].fault_around);
		jsonw_uint_field(&o->jw, "no_fault_around", lat->b[i].no_fault_around);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_obj_end(o);
	free(lat);
}

/* One interval: a line of right-aligned deltas, or one JSON object. */
static void show_deltas(struct out *o, long iter, long secs, struct mmt_kv *prev, int np,
			const struct mmt_kv *cur, int nc)
{
	int i;

	out_obj(o, NULL);
	out_int(o, "interval", NULL, iter, 1);
	out_int(o, "seconds", NULL, secs, 1);
	out_obj(o, "deltas");
	for (i = 0; i < np; i++) {
		const char *cv = mmt_kv_get(cur, nc, prev[i].key);
		unsigned long long a, b;
		int w = (int)strlen(prev[i].key), ok;
		char d[32];

		ok = cv && cmp_u64(cv, &b) && cmp_u64(prev[i].value, &a);
		if (ok) {
			a = b >= a ? b - a : b;	/* reset: since then */
			snprintf(d, sizeof(d), "%llu", a);
		} else {
			a = 0;
			strcpy(d, "-");
		}
		out_text(o, "%s%*s", i ? " " : "", w < 8 ? 8 : w, d);
		out_uint(o, prev[i].key, NULL, a, ok);
		if (cv)
			snprintf(prev[i].value, sizeof(prev[i].value), "%s", cv);
	}
	out_obj_end(o);
	out_obj_end(o);
	out_text(o, "\n");
	fflush(stdout);
}

static int watch(long secs, long count, int json, struct mmt_kv *prev, int np)
{
	struct mmt_kv *cur = calloc(MAXKV, sizeof(*cur));
	struct sigaction sa;
	struct out o;
	int i, nc, rc = 0;
	long iter;

	if (!cur)
		return lib_fail(MMT_EIO);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the sleep must end */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	out_init(&o, json, 0);
	for (i = 0; i < np; i++) {
		int w = (int)strlen(prev[i].key);

		out_text(&o, "%s%*s", i ? " " : "", w < 8 ? 8 : w, prev[i].key);
	}
	out_text(&o, "\n");
	fflush(stdout);
	for (iter = 1; count <= 0 || iter <= count; iter++) {
		if (nap(secs))
			break;
		nc = read_stats(cur, MAXKV);
		if (nc < 0) {
			rc = -nc;
			break;
		}
		show_deltas(&o, iter, secs, prev, np, cur, nc);
	}
	free(cur);
	return rc;
}

/* The counters once: "name value" lines (names aligned), or one JSON object. */
static void show_stats(struct out *o, const struct mmt_kv *kv, int n, int sen)
{
	unsigned long long u;
	int i, ok, w = 0;

	for (i = 0; i < n; i++)
		if ((int)strlen(kv[i].key) > w)
			w = (int)strlen(kv[i].key);
	out_obj(o, NULL);
	out_bool(o, "stats_enable", sen);
	out_obj(o, "stats");
	for (i = 0; i < n; i++) {
		out_text(o, "%-*s %s\n", w, kv[i].key, kv[i].value);
		if (mmt_kv_get(kv, i, kv[i].key))
			continue;	/* a repeated name: the first one counts */
		/* a counter is a number, or null: "unavailable", "off" */
		ok = mmt_parse_u64(kv[i].value, &u) == MMT_OK;
		out_uint(o, kv[i].key, NULL, ok ? u : 0, ok);
	}
	out_obj_end(o);
	if (out_json(o))
		show_latency(o);
	out_obj_end(o);
}

struct stats_args {
	int json, prom, reset, rss;
	long secs, count;
};

/* The options into a; 0, or an exit code after saying why. */
static int stats_opts_parse(int argc, char **argv, struct stats_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, stats_optstring, stats_opts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = 1; break;
		case 'p': a->prom = 1; break;
		case 'r': a->reset = 1; break;
		case 'R': a->rss = 1; break;
		case 'w':
			if (mmt_parse_long(optarg, 1, 86400, &a->secs))
				return usage_err("stats", "--watch: '%.40s' is not a number of seconds 1..86400", optarg);
			break;
		case 'c':
			if (mmt_parse_long(optarg, 1, LONG_MAX, &a->count))
				return usage_err("stats", "--count: '%.40s' is not a positive number", optarg);
			break;
		default: return bad_opt("stats", c, argv);
		}
	}
	if (optind != argc)
		return usage_err("stats", "unexpected argument '%s'", argv[optind]);
	if (a->count && !a->secs)
		return usage_err("stats", "--count needs --watch");
	if (a->prom && (a->json || a->secs))
		return usage_err("stats", "--prometheus goes alone (no --json, no --watch)");
	if (a->rss && !a->prom)
		return usage_err("stats", "--rss needs --prometheus");
	return 0;
}

static int do_stats(int argc, char **argv)
{
	struct stats_args a;
	int n, err, sen, rc;
	struct mmt_kv *kv;
	struct out o;
	char *buf;

	rc = stats_opts_parse(argc, argv, &a);
	if (rc)
		return rc;
	if (a.reset) {
		err = mmt_knob_write("stats", "0");
		if (err)
			return lib_fail(err);
		if (!a.json && !a.secs)
			return 0;
	}
	kv = calloc(MAXKV, sizeof(*kv));
	buf = malloc(BUFSZ);
	if (!kv || !buf) {
		rc = lib_fail(MMT_EIO);
		goto out;
	}
	n = read_stats(kv, MAXKV);
	if (n < 0) {
		rc = -n;
		goto out;
	}
	sen = stats_enabled();
	if (sen == 0 && !a.prom)
		fprintf(stderr, PROG ": note: counting is off: run '" PROG " set stats_enable 1'\n");
	if (a.prom) {
		rc = print_prometheus(kv, n, sen, buf, a.rss);
	} else if (a.secs) {
		rc = watch(a.secs, a.count, a.json, kv, n);
	} else {
		out_init(&o, a.json, 0);
		show_stats(&o, kv, n, sen);
	}
out:
	free(kv);
	free(buf);
	return rc;
}
