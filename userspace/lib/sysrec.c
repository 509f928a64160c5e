// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the module's records (info, stats, latency, policy) from the
 * files lockdown leaves readable, /sys/kernel/mm/mmtune/ (one value per
 * file; the policy from rules/N/), read straight into the structs that
 * parse.c and policy.c fill from the debugfs text: the same values, and
 * no text made here to be parsed back.  The names come from
 * module/mmtune_abi.h, the table the module itself is built from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"
#include "mmtune_abi.h"

#define VAL_MAX		4096	/* a sysfs file holds one page */
#define LAT_BUCKETS	64	/* room; the module has fewer */
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

/* Rule slot i's file NAME (mmt_abi_rule[]) into v; 0 or -1. */
static int rule_value(int i, const char *name, char *v, size_t n)
{
	char dir[64];

	snprintf(dir, sizeof(dir), MMT_ABI_RULES_DIR "/%d", i);
	return sysfs_value(dir, name, v, n);
}

/* Rule i's counter NAME: 1 when it is a number, 0 ("-", "unavailable"). */
static int rule_u64(int i, const char *name, unsigned long long *v)
{
	char w[WORD_MAX];

	return !rule_value(i, name, w, sizeof(w)) && mmt_parse_u64(w, v) == MMT_OK;
}

/* An order=auto rule i's fields: its order now, the judgements' counts. */
static void rule_auto(struct mmt_prule *r, int i)
{
	static const char *const name[MMT_PA_NR] = {
		[MMT_PA_ORDER] = "auto_order", [MMT_PA_RAISED] = "raised",
		[MMT_PA_LOWERED] = "lowered", [MMT_PA_LEARNED] = "learned",
		[MMT_PA_UNTRUSTED] = "untrusted",
	};
	char w[WORD_MAX];
	int k;

	for (k = 0; k < MMT_PA_NR; k++)
		if (rule_u64(i, name[k], &r->au[k]))
			r->au_seen |= 1 << k;
	/* a share of one decimal, "-" before the first judgement */
	if (rule_value(i, "useful", w, sizeof(w)) || mmt__parse_permille(w, "", &r->useful))
		r->useful = -1;
}

/*
 * Rule slot i into r, as debugfs policy shows the rule: its match and
 * order, hits, pages (none while pages are not counted), the usefulness
 * counts once they counted, an auto rule's fields.  0, or -1 where the
 * slot has no rule (past count: the set shrank meanwhile).
 */
static int rule_read(int i, struct mmt_prule *r)
{
	unsigned long long pf = 0, un = 0;

	memset(r, 0, sizeof(*r));
	r->useful = -1;
	if (rule_value(i, "match", r->match, sizeof(r->match)) ||
	    rule_value(i, "order", r->order, sizeof(r->order)) || !r->match[0] || !r->order[0])
		return -1;
	r->has_hits = rule_u64(i, "hits", &r->hits);
	r->has_pages = rule_u64(i, "pages", &r->pages);
	if (rule_u64(i, "prefaulted", &pf) && rule_u64(i, "untouched", &un) && (pf || un)) {
		r->prefaulted = pf;
		r->untouched = un;
		r->has_prefaulted = r->has_untouched = 1;
	}
	if (!strncmp(r->order, "auto", 4))
		rule_auto(r, i);
	return 0;
}

/* The header's numbers: 0, or -1 without the limit (debugfs then). */
static int pol_header(struct mmt_policy *p)
{
	char v[VAL_MAX];
	long o;
	unsigned long long h;

	if (sysfs_value("info", "policy_max_rules", v, sizeof(v)) ||
	    sscanf(v, "%d", &p->max_rules) != 1)
		return -1;
	if (!sysfs_value("info", "order", v, sizeof(v)) && !mmt_parse_long(v, 0, 63, &o))
		p->kernel_order = (int)o;
	if (!sysfs_value("info", "base_order", v, sizeof(v)) && !mmt_parse_long(v, 0, 63, &o))
		p->default_order = (int)o;
	/* the faults no rule matched: counted while there are rules */
	p->def.has_hits = 1;
	p->def.hits = read_array("policy", "default_hits", &h, 1) > 0 ? h : 0;
	if (read_array("policy", "default_pages", &h, 1) > 0) {
		p->def.pages = h;
		p->def.has_pages = 1;
	}
	return 0;
}

/* rules/count; -1 for a module without rules/. */
static int rules_count(void)
{
	char v[64];
	int n;

	if (sysfs_value(MMT_ABI_RULES_DIR, MMT_ABI_RULES_COUNT, v, sizeof(v)) ||
	    sscanf(v, "%d", &n) != 1 || n < 0)
		return -1;
	return n;
}

/*
 * The rules, slot by slot, once, with what tells a torn read: the count
 * before and after, and each slot's match and order again after its
 * counters (an edit meanwhile moves the rules under the slots).  Nothing
 * is read as a list of lines: no page limit on the set.
 */
static int pol_read(struct mmt_policy *p)
{
	int count = rules_count(), i;
	char m[MMT_MATCH_LEN], o[16];

	if (count < 0 || pol_header(p))
		return MMT__NOPLANE;
	if (count > MMT_PRULES_MAX)
		return mmt__fail(MMT_EINVAL, "more than %d policy rules", MMT_PRULES_MAX);
	/* root's to read, as the parameter is: a match names processes and files */
	snprintf(m, sizeof(m), "%s/" MMT_ABI_RULES_DIR "/0/match", mmt_sysfs_mm());
	if (access(m, R_OK) && (errno == EACCES || errno == EPERM))
		return mmt_errno_to_err(errno, m, NULL);
	for (i = 0; i < count; i++)
		if (rule_read(i, &p->r[i]))
			return MMT__TORN;
	for (i = 0; i < count; i++)
		if (rule_value(i, "match", m, sizeof(m)) || rule_value(i, "order", o, sizeof(o)) ||
		    strcmp(m, p->r[i].match) || strcmp(o, p->r[i].order))
			return MMT__TORN;
	if (rules_count() != count)
		return MMT__TORN;
	p->nr = count;
	return MMT_OK;
}

int mmt__sys_policy(struct mmt_policy *p)
{
	mmt__policy_init(p);
	return served() ? pol_read(p) : MMT__NOPLANE;
}

/* ---- bpf/ */

/* bpf/NAME as a number; 0 or -1. */
static int bpf_u64(const char *name, unsigned long long *v)
{
	char w[WORD_MAX];

	return sysfs_value(MMT_ABI_BPF_DIR, name, w, sizeof(w)) || mmt_parse_u64(w, v) ? -1 : 0;
}

/*
 * The BPF program's state: mmt_abi_bpf[]'s files.  The tracepoint's name
 * tells whether the module has bpf/ at all (an older one has not).
 */
int mmt__sys_bpf(struct mmt_bpf_state *s)
{
	unsigned long long att;

	memset(s, 0, sizeof(*s));
	if (sysfs_value(MMT_ABI_BPF_DIR, "tracepoint", s->tracepoint, sizeof(s->tracepoint)))
		return MMT__NOPLANE;
	if (trim_value(s->tracepoint) || !s->tracepoint[0] || bpf_u64("attached", &att) || att > 1 ||
	    bpf_u64("calls", &s->calls) || bpf_u64("refused", &s->refused))
		return MMT_EINVAL;
	s->attached = (int)att;
	s->ndecisions = read_array(MMT_ABI_BPF_DIR, "decisions", s->decisions,
				   (int)(sizeof(s->decisions) / sizeof(s->decisions[0])));
	return s->ndecisions < 0 ? MMT_EINVAL : MMT_OK;
}
