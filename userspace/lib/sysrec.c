// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the module's records (info, stats, latency, policy) from the
 * files lockdown leaves readable, /sys/kernel/mm/mmtune/ (one value per
 * file) and the policy parameter, read straight into the structs that
 * parse.c and policy.c fill from the debugfs text: the same values, and
 * no text made here to be parsed back.  The names come from
 * module/mmtune_abi.h, the table the module itself is built from.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"
#include "mmtune_abi.h"

#define VAL_MAX		4096	/* a sysfs file holds one page */
#define LAT_BUCKETS	64	/* room; the module has fewer */
#define POL_RULES	64	/* room in the per-rule arrays */
#define WORD_MAX	24	/* a u64 in decimal, or "-" */

/* Whether these files can serve: the module loaded, with all of them. */
static int served(void)
{
	return mmt_module_loaded() && mmt__plane_present();
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

static int is_sp(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * v with the blanks at both ends dropped, as the parsers keep a value:
 * 0, or -1 for a byte the debugfs text could not hold (the parsers
 * refuse the whole text then: text_ok() in parse.c).
 */
static int trim_value(char *v)
{
	size_t a = 0, b = strlen(v), i;

	for (i = 0; i < b; i++)
		if ((v[i] < 0x20 && v[i] != '\t' && v[i] != '\r') ||
		    (unsigned char)v[i] >= 0x7f)
			return -1;
	while (a < b && is_sp(v[a]))
		a++;
	while (b > a && is_sp(v[b - 1]))
		b--;
	memmove(v, v + a, b - a);
	v[b - a] = '\0';
	return 0;
}

/* key and value into kv (each cut to its room, as the parsers do). */
static void set_kv(struct mmt_kv *kv, const char *key, const char *v)
{
	snprintf(kv->key, sizeof(kv->key), "%.*s", (int)sizeof(kv->key) - 1, key);
	snprintf(kv->value, sizeof(kv->value), "%.*s", (int)sizeof(kv->value) - 1, v);
}

/* info/: a file a line of debugfs info, "unavailable" where it has none. */
int mmt__sys_info(struct mmt_kv *kv, int max)
{
	char v[VAL_MAX];
	int i, n = 0;

	if (!served() || sysfs_value("info", "version", v, sizeof(v)))
		return MMT__NOPLANE;
	for (i = 0; mmt_abi_info[i]; i++) {
		if (sysfs_value("info", mmt_abi_info[i], v, sizeof(v)) ||
		    !strcmp(v, "unavailable"))
			continue;
		if (trim_value(v))
			return MMT_EINVAL;
		if (n < max && kv)
			set_kv(&kv[n], mmt_abi_info[i], v);
		if (n < max)
			n++;
	}
	return n;
}

/* stats/: every counter, or none (debugfs then). */
int mmt__sys_stats(struct mmt_kv *kv, int max)
{
	char v[VAL_MAX];
	int i, n = 0;

	if (!served())
		return MMT__NOPLANE;
	for (i = 0; mmt_abi_counters[i].name; i++) {
		if (sysfs_value("stats", mmt_abi_counters[i].name, v, sizeof(v)))
			return MMT__NOPLANE;
		/* a stats line is "name value": one word, as mmt_parse_stats() */
		if (trim_value(v) || !*v || strpbrk(v, " \t\r") ||
		    strlen(v) >= sizeof(kv->value))
			return MMT_EINVAL;
		if (n < max && kv)
			set_kv(&kv[n], mmt_abi_counters[i].name, v);
		if (n < max)
			n++;
	}
	return n;
}

/* latency/NAME as a "NAME: value" pair of lat, when the file is there. */
static int lat_kv(struct mmt_latency *lat, const char *name)
{
	char v[VAL_MAX];

	if (sysfs_value("latency", name, v, sizeof(v)))
		return 0;
	if (trim_value(v))
		return -1;
	if (lat->nkv < MMT_LAT_MAX_KV)
		set_kv(&lat->kv[lat->nkv++], name, v);
	return 0;
}

/*
 * The histogram's buckets, from the first that counted a fault to the
 * last (debugfs shows those alone), each up to the next one's low (the
 * last: twice its own); 0, or -1 where the arrays are unreadable.
 */
static int lat_buckets(struct mmt_latency *lat)
{
	unsigned long long low[LAT_BUCKETS], fa[LAT_BUCKETS], nofa[LAT_BUCKETS];
	int n, b, first = -1, last = -1;

	n = read_array("latency", "bucket_low_ns", low, LAT_BUCKETS);
	if (n < 0 || read_array("latency", "fault_around_buckets", fa, n) != n ||
	    read_array("latency", "no_fault_around_buckets", nofa, n) != n)
		return -1;
	for (b = 0; b < n; b++)
		if (fa[b] || nofa[b]) {
			first = first < 0 ? b : first;
			last = b;
		}
	for (b = first; b >= 0 && b <= last && lat->nb < MMT_LAT_MAX_BUCKETS; b++) {
		lat->b[lat->nb].low = low[b];
		lat->b[lat->nb].high = b + 1 < n ? low[b + 1] : low[b] * 2;
		lat->b[lat->nb].fault_around = fa[b];
		lat->b[lat->nb].no_fault_around = nofa[b];
		lat->nb++;
	}
	return 0;
}

/* latency/: state, then (unless unavailable) the counts and buckets. */
int mmt__sys_latency(struct mmt_latency *lat)
{
	char st[VAL_MAX];
	int i;

	memset(lat, 0, sizeof(*lat));
	if (!served() || sysfs_value("latency", "state", st, sizeof(st)))
		return MMT__NOPLANE;
	if (trim_value(st))
		return MMT_EINVAL;
	set_kv(&lat->kv[lat->nkv++], "state", st);
	if (!strcmp(st, "unavailable"))
		return 0;
	/* the "key: value" files, between state and the arrays */
	for (i = 1; strcmp(mmt_abi_latency[i], "bucket_low_ns"); i++)
		if (lat_kv(lat, mmt_abi_latency[i]))
			return MMT_EINVAL;
	if (lat_buckets(lat)) {
		memset(lat, 0, sizeof(*lat));
		return MMT__NOPLANE;
	}
	return lat->nb;
}

/* ---- policy/ */

int mmt__sys_rules(void)
{
	char v[64];
	int n;

	if (sysfs_value("policy", "rules", v, sizeof(v)) || sscanf(v, "%d", &n) != 1)
		return -1;	/* a module without it */
	return n;
}

/* The per-rule files of policy/ beyond hits, pages and orders. */
enum { PW_PREF, PW_UNT, PW_RAISED, PW_LOWERED, PW_LEARNED, PW_USEFUL,
       PW_UNTRUSTED, PW_NR };
static const char *const pw_names[PW_NR] = {
	"prefaulted", "untouched", "raised", "lowered", "learned", "useful",
	"untrusted",
};

/* policy/'s arrays, one value per rule; a count -1 where a file is missing */
struct pol_arrays {
	unsigned long long hits[POL_RULES], pages[POL_RULES], orders[POL_RULES];
	int nh, np, no;
	char w[PW_NR][POL_RULES][WORD_MAX];
	int nw[PW_NR];
};

static void read_arrays(struct pol_arrays *a)
{
	int k;

	a->nh = read_array("policy", "hits", a->hits, POL_RULES);
	/* "unavailable" while pages are not counted: none */
	a->np = read_array("policy", "pages", a->pages, POL_RULES);
	/* a module before policy/orders: auto rules without their order */
	a->no = read_array("policy", "orders", a->orders, POL_RULES);
	for (k = 0; k < PW_NR; k++)
		a->nw[k] = read_words("policy", pw_names[k], a->w[k], POL_RULES);
}

/* A counter word into *v: 1 when it is a number, 0 ("-": none). */
static int word_u64(const char *w, unsigned long long *v)
{
	return mmt_parse_u64(w, v) == MMT_OK;
}

/* An order=auto rule i's fields: its order now, then (if shown) the rest. */
static void rule_auto(struct mmt_prule *r, const struct pol_arrays *a, int i)
{
	static const int pa[PW_NR] = {
		[PW_RAISED] = MMT_PA_RAISED, [PW_LOWERED] = MMT_PA_LOWERED,
		[PW_LEARNED] = MMT_PA_LEARNED, [PW_UNTRUSTED] = MMT_PA_UNTRUSTED,
	};
	int k;

	r->au[MMT_PA_ORDER] = a->orders[i];
	r->au_seen |= 1 << MMT_PA_ORDER;
	for (k = PW_RAISED; k <= PW_USEFUL; k++)
		if (i >= a->nw[k])
			return;		/* a module from before them */
	for (k = PW_RAISED; k <= PW_LEARNED; k++)
		if (word_u64(a->w[k][i], &r->au[pa[k]]))
			r->au_seen |= 1 << pa[k];
	/* a share of one decimal, "-" before the first judgement */
	if (mmt__parse_permille(a->w[PW_USEFUL][i], "", &r->useful))
		r->useful = -1;
	/* a module from before it has none */
	if (i < a->nw[PW_UNTRUSTED] && word_u64(a->w[PW_UNTRUSTED][i], &r->au[pa[PW_UNTRUSTED]]))
		r->au_seen |= 1 << pa[PW_UNTRUSTED];
}

/*
 * Rule i's counters, as debugfs shows them: hits, pages (none while
 * pages are not counted), the usefulness counts once they counted, an
 * auto rule's fields.
 */
static void rule_counts(struct mmt_prule *r, const struct pol_arrays *a, int i, int is_auto)
{
	r->hits = i < a->nh ? a->hits[i] : 0;
	r->has_hits = 1;
	if (i < a->np) {
		r->pages = a->pages[i];
		r->has_pages = 1;
	}
	if (i < a->nw[PW_PREF] && i < a->nw[PW_UNT] &&
	    (strcmp(a->w[PW_PREF][i], "0") || strcmp(a->w[PW_UNT][i], "0"))) {
		r->has_prefaulted = word_u64(a->w[PW_PREF][i], &r->prefaulted);
		r->has_untouched = word_u64(a->w[PW_UNT][i], &r->untouched);
	}
	if (is_auto && i < a->no)
		rule_auto(r, a, i);
}

/* The header's numbers: 0, or -1 without the limit (debugfs then). */
static int pol_header(struct mmt_policy *p)
{
	char v[VAL_MAX];
	long o;

	if (sysfs_value("info", "policy_max_rules", v, sizeof(v)) ||
	    sscanf(v, "%d", &p->max_rules) != 1)
		return -1;
	if (!sysfs_value("info", "order", v, sizeof(v)) && !mmt_parse_long(v, 0, 63, &o))
		p->kernel_order = (int)o;
	if (!sysfs_value("info", "base_order", v, sizeof(v)) && !mmt_parse_long(v, 0, 63, &o))
		p->default_order = (int)o;
	return 0;
}

/*
 * The rule lines of the parameter (cut up here) and their counters into
 * p; MMT_OK, MMT_EINVAL as mmt_parse_policy() (too many, no order=).
 */
static int pol_rules(struct mmt_policy *p, char *rules)
{
	struct pol_arrays *a = malloc(sizeof(*a));
	char *line, *save = NULL;
	unsigned long long h;
	int err = MMT_OK;

	if (!a)
		return mmt__fail(MMT_EIO, "out of memory");
	/* the faults no rule matched: counted while there are rules */
	p->def.has_hits = 1;
	p->def.hits = read_array("policy", "default_hits", &h, 1) > 0 ? h : 0;
	if (read_array("policy", "default_pages", &h, 1) > 0) {
		p->def.pages = h;
		p->def.has_pages = 1;
	}
	read_arrays(a);
	for (line = strtok_r(rules, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		int is_auto = strstr(line, " order=auto") != NULL;

		if (p->nr >= MMT_PRULES_MAX || mmt__parse_rule(line, &p->r[p->nr])) {
			err = MMT_EINVAL;
		} else {
			rule_counts(&p->r[p->nr], a, p->nr, is_auto);
			p->nr++;
		}
	}
	free(a);
	return err;
}

/* The policy parameter's rule lines, into buf (VAL_MAX); 0 or -1. */
static int rule_list(char *buf)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/parameters/policy", mmt_sysfs_module());
	return read_value(p, buf, VAL_MAX);
}

/*
 * The policy read once, with what tells a torn read: policy/rules and
 * the rule list (list[0]) are read first, the list again (list[1]) and
 * the count after the counters, and both must not have moved (a rule
 * put in and taken out meanwhile shifts the arrays under the lines).
 * The parameter holds a page of whole lines: a longer policy lists fewer
 * lines than policy/rules counts, and reads from debugfs (the whole
 * text), never as a set with rules missing.
 */
static int pol_read(struct mmt_policy *p, char *list[2])
{
	int count = mmt__sys_rules(), n = 0, err = MMT_OK;
	char *c;

	if (count < 0 || rule_list(list[0]))
		return MMT__NOPLANE;
	for (c = list[0]; *c; c++)
		n += *c == '\n' || !c[1];	/* the last line may lack its '\n' */
	if (n == count && pol_header(p))
		return MMT__NOPLANE;
	if (n == count && *list[0]) {
		memcpy(list[1], list[0], VAL_MAX);	/* cut up by the parse */
		err = pol_rules(p, list[1]);
	}
	if (rule_list(list[1]) || strcmp(list[0], list[1]) || mmt__sys_rules() != count)
		return MMT__TORN;
	if (n != count)
		return MMT__NOPLANE;
	return err;
}

int mmt__sys_policy(struct mmt_policy *p)
{
	char *list[2] = { malloc(VAL_MAX), malloc(VAL_MAX) };
	int err;

	mmt__policy_init(p);
	if (!list[0] || !list[1])
		err = mmt__fail(MMT_EIO, "out of memory");
	else
		err = served() ? pol_read(p, list) : MMT__NOPLANE;
	free(list[0]);
	free(list[1]);
	return err;
}
