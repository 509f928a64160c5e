// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the module's knobs through the files lockdown leaves usable,
 * the module's parameters (the tunables) and /sys/kernel/mm/mmtune/ (state
 * and counters, one value per file).  A read gives the text the debugfs
 * file of the same name would give, so that every caller parses one
 * format; a write goes to the tunable's parameter.  The names come from
 * module/mmtune_abi.h, the table the module itself is built from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"
#include "mmtune_abi.h"

#define VAL_MAX		4096	/* a sysfs file holds one page */
#define LAT_BUCKETS	64	/* room; the module has fewer */

/* Text appended to a caller's buffer; full once it would overflow. */
struct text {
	char *buf;
	size_t len, used;
	int full;
};

static void __attribute__((format(printf, 2, 3))) put(struct text *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->buf[o->used] = '\0';
		o->full = 1;
		return;
	}
	o->used += (size_t)n;
}

static const char *param_of(const char *knob)
{
	size_t i;

	for (i = 0; mmt_abi_tunables[i].param; i++)
		if (!strcmp(knob, mmt_abi_tunables[i].debugfs))
			return mmt_abi_tunables[i].param;
	return NULL;
}

static void param_path(char *p, size_t n, const char *param)
{
	snprintf(p, n, "%s/parameters/%s", mmt_sysfs_module(), param);
}

/* A file's content without its trailing newline; 0 or -1. */
static int read_value(const char *path, char *v, size_t n)
{
	long r = mmt_read_path(path, v, n);

	if (r < 0)
		return -1;
	while (r > 0 && v[r - 1] == '\n')
		v[--r] = '\0';
	return 0;
}

/* <sysfs mm>/DIR/NAME; 0 or -1. */
static int sysfs_value(const char *dir, const char *name, char *v, size_t n)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s/%s", mmt_sysfs_mm(), dir, name);
	return read_value(p, v, n);
}

/* text_KNOB(): KNOB's debugfs text, made from the sysfs files; 0 or -1. */
static int text_info(struct text *o)
{
	char v[VAL_MAX];
	size_t i;

	if (sysfs_value("info", "version", v, sizeof(v)))
		return -1;
	for (i = 0; mmt_abi_info[i]; i++)
		if (!sysfs_value("info", mmt_abi_info[i], v, sizeof(v)) &&
		    strcmp(v, "unavailable"))
			put(o, "%s: %s\n", mmt_abi_info[i], v);
	return 0;
}

static int text_stats(struct text *o)
{
	char v[VAL_MAX];
	size_t i;

	for (i = 0; mmt_abi_counters[i].name; i++) {
		if (sysfs_value("stats", mmt_abi_counters[i].name, v, sizeof(v)))
			return -1;
		put(o, "%s %s\n", mmt_abi_counters[i].name, v);
	}
	return 0;
}

/* An array file into v[]; returns the count, -1 if unreadable. */
static int read_array(const char *dir, const char *name,
		      unsigned long long *v, int max)
{
	char buf[VAL_MAX], *p, *end;
	int n = 0;

	if (sysfs_value(dir, name, buf, sizeof(buf)))
		return -1;
	for (p = buf; *p && n < max; p = end) {
		v[n++] = strtoull(p, &end, 10);
		if (end == p)
			return -1;
	}
	return n;
}

#define WORD_MAX	24	/* a u64 in decimal, or "-" */

/*
 * An array of words (a number or "-") into w: how many, or -1 where the
 * file is missing (a module from before it).
 */
static int read_words(const char *dir, const char *name,
		      char (*w)[WORD_MAX], int max)
{
	char buf[VAL_MAX], *tok, *save = NULL;
	int n = 0;

	if (sysfs_value(dir, name, buf, sizeof(buf)))
		return -1;
	for (tok = strtok_r(buf, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		snprintf(w[n++], WORD_MAX, "%s", tok);
	return n;
}

static void put_kv(struct text *o, const char *dir, const char *name)
{
	char v[VAL_MAX];

	if (!sysfs_value(dir, name, v, sizeof(v)))
		put(o, "%s: %s\n", name, v);
}

static int text_latency(struct text *o)
{
	static unsigned long long low[LAT_BUCKETS], fa[LAT_BUCKETS], nofa[LAT_BUCKETS];
	int n, b, first = -1, last = -1;
	char st[VAL_MAX];

	if (sysfs_value("latency", "state", st, sizeof(st)))
		return -1;
	put(o, "state: %s\n", st);
	if (!strcmp(st, "unavailable"))
		return 0;
	put_kv(o, "latency", "unit");
	put_kv(o, "latency", "fault_around_samples");
	put_kv(o, "latency", "no_fault_around_samples");
	put_kv(o, "latency", "unclassified");
	put_kv(o, "latency", "missed");
	put_kv(o, "latency", "untimed");
	n = read_array("latency", "bucket_low_ns", low, LAT_BUCKETS);
	if (n < 0 || read_array("latency", "fault_around_buckets", fa, n) != n ||
	    read_array("latency", "no_fault_around_buckets", nofa, n) != n)
		return -1;
	for (b = 0; b < n; b++)
		if (fa[b] || nofa[b]) {
			first = first < 0 ? b : first;
			last = b;
		}
	put(o, "# %10s %12s %13s %16s\n", "low", "high", "fault_around",
	    "no_fault_around");
	for (b = first; b >= 0 && b <= last; b++)
		put(o, "%12llu %12llu %13llu %16llu\n", low[b],
		    b + 1 < n ? low[b + 1] : low[b] * 2, fa[b], nofa[b]);
	return 0;
}

/* " hits=H pages=P" of counter i of two arrays ("-": pages not counted). */
static void put_ctr(struct text *o, const unsigned long long *h, int nh,
		    const unsigned long long *pg, int np, int i)
{
	put(o, " hits=%llu pages=", i < nh ? h[i] : 0);
	if (i < np)
		put(o, "%llu", pg[i]);
	else
		put(o, "-");
}

/* The per-rule words of sysfs policy/ beyond hits, pages and orders. */
enum { PW_PREF, PW_UNT, PW_RAISED, PW_LOWERED, PW_LEARNED, PW_USEFUL,
       PW_UNTRUSTED, PW_NR };
static const char *const pw_names[PW_NR] = {
	"prefaulted", "untouched", "raised", "lowered", "learned", "useful",
	"untrusted",
};

/*
 * Rule i's fields after hits and pages, as debugfs shows them: its
 * usefulness counts (once counted), then an auto rule's order (order,
 * or -1 for none) and the rest, from words w (nw of each).
 */
static void put_rule_words(struct text *o, char (*w)[64][WORD_MAX],
			   const int *nw, int i, long long order)
{
	int k;

	if (i < nw[PW_PREF] && i < nw[PW_UNT] &&
	    (strcmp(w[PW_PREF][i], "0") || strcmp(w[PW_UNT][i], "0")))
		put(o, " prefaulted=%s untouched=%s", w[PW_PREF][i], w[PW_UNT][i]);
	if (order < 0)
		return;
	put(o, " auto_order=%lld", order);
	for (k = PW_RAISED; k <= PW_USEFUL; k++)
		if (i >= nw[k])
			return;		/* a module from before them */
	put(o, " raised=%s lowered=%s learned=%s useful=%s%s", w[PW_RAISED][i],
	    w[PW_LOWERED][i], w[PW_LEARNED][i], w[PW_USEFUL][i],
	    strcmp(w[PW_USEFUL][i], "-") ? "%" : "");
	if (i < nw[PW_UNTRUSTED])	/* a module from before it has none */
		put(o, " untrusted=%s", w[PW_UNTRUSTED][i]);
}

/* The debugfs policy text: header comments, then each rule and its counters. */
static int text_policy(struct text *o)
{
	static unsigned long long h[2], hits[64], pages[64], orders[64];
	static char w[PW_NR][64][WORD_MAX];
	char v[VAL_MAX], rules[VAL_MAX], p[PATH_MAX], *line, *save;
	int nh, np, no, nw[PW_NR], i = 0, n = 0, k;

	param_path(p, sizeof(p), "policy");
	if (read_value(p, rules, sizeof(rules)) ||
	    sysfs_value("policy", "rules", v, sizeof(v)))
		return -1;
	/*
	 * The parameter holds a page of whole lines: a longer policy reads
	 * cut short there.  Fewer lines than policy/rules counts: debugfs
	 * (the whole text), never a set with rules missing.
	 */
	for (line = rules; *line; line++)
		n += *line == '\n' || !line[1];	/* the last line may lack its '\n' */
	if (n != atoi(v))
		return -1;
	put(o, "# rules %s/", v);
	put(o, "%s\n", sysfs_value("info", "policy_max_rules", v, sizeof(v)) ? "?" : v);
	if (sysfs_value("info", "order", v, sizeof(v)))
		return 0;
	put(o, "# kernel order=%s\n", v);
	if (sysfs_value("info", "base_order", v, sizeof(v)))
		return 0;
	put(o, "# default order=%s", v);
	if (!rules[0]) {
		put(o, "\n");
		return 0;
	}
	nh = read_array("policy", "default_hits", h, 1);
	np = read_array("policy", "default_pages", h + 1, 1);
	put_ctr(o, h, nh, h + 1, np, 0);
	put(o, "\n");
	nh = read_array("policy", "hits", hits, 64);
	np = read_array("policy", "pages", pages, 64);
	/* a module before policy/orders: auto rules without their order */
	no = read_array("policy", "orders", orders, 64);
	for (k = 0; k < PW_NR; k++)
		nw[k] = read_words("policy", pw_names[k], w[k], 64);
	for (line = strtok_r(rules, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int is_auto = strstr(line, " order=auto") != NULL;

		put(o, "%s #", line);
		put_ctr(o, hits, nh, pages, np, i);
		put_rule_words(o, w, nw, i, i < no && is_auto ? (long long)orders[i] : -1);
		put(o, "\n");
		i++;
	}
	return 0;
}

/*
 * Whether the module has the whole lockdown-proof interface (a module
 * from before it has the order's parameter alone: debugfs then).
 */
int mmt__plane_present(void)
{
	return strcmp(mmt_interface(), "debugfs") != 0;
}

long mmt__plane_read(const char *knob, char *buf, size_t len)
{
	struct text o = { buf, len, 0, 0 };
	const char *param = param_of(knob);
	char p[PATH_MAX];
	int r = -1;

	if (!mmt__plane_present())
		return -1;
	if (!strcmp(knob, "info"))
		r = text_info(&o);
	else if (!strcmp(knob, "stats"))
		r = text_stats(&o);
	else if (!strcmp(knob, "latency"))
		r = text_latency(&o);
	else if (!strcmp(knob, "policy"))
		r = text_policy(&o);
	else if (param) {
		param_path(p, sizeof(p), param);
		return mmt_read_path(p, buf, len);
	}
	if (r < 0 || o.full)
		return -1;
	return (long)o.used;
}

int mmt__plane_write(const char *knob, const char *value)
{
	const char *param = param_of(knob);
	char p[PATH_MAX];

	if (!mmt__plane_present())
		return MMT__NOPLANE;
	if (!strcmp(knob, "stats")) {
		/* debugfs stats takes "0" for a reset */
		if (strcmp(value, "0") && strcmp(value, "0\n"))
			return MMT__NOPLANE;
		param = "stats_reset";
		value = "1";
	}
	if (!param)
		return MMT__NOPLANE;
	/*
	 * A parameter holds a page, and takes ';' for a newline (a policy
	 * in /etc/modprobe.d has no other way): a longer policy, or one
	 * with ';' of its own, goes to debugfs as it is.
	 */
	if (!strcmp(param, "policy") &&
	    (strlen(value) >= (size_t)mmt_page_size() || strchr(value, ';')))
		return MMT__NOPLANE;
	param_path(p, sizeof(p), param);
	if (access(p, F_OK))
		return MMT__NOPLANE;	/* a module without it */
	if (mmt__write_path(p, value))
		return mmt_errno_to_err(errno, p, value);
	return MMT_OK;
}

const char *mmt_interface(void)
{
	char p[PATH_MAX];

	param_path(p, sizeof(p), "stats_enable");
	if (!access(p, F_OK) && !access(mmt_sysfs_mm(), F_OK))
		return "parameters and " MMT_ABI_SYSFS_DIR;
	return "debugfs";
}

const char *mmt_lockdown(void)
{
	static __thread char mode[32];
	char buf[128], *a, *b;

	if (mmt_read_path(MMT_ABI_LOCKDOWN, buf, sizeof(buf)) < 0)
		return "unknown";
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b || (size_t)(b - a) > sizeof(mode))
		return "unknown";
	snprintf(mode, sizeof(mode), "%.*s", (int)(b - a - 1), a + 1);
	return mode;
}
