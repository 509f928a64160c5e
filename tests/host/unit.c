// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit checks of libmmtune, and a driver for the parser fixtures.
 *
 *   unit selftest               prints "ok - NAME" / "not ok - NAME: why"
 *   unit parse info|stats|latency|policy FILE [MAX]
 *                               prints "n=N" then one "key=value" per pair
 *                               (latency: key=value, then "[low,high) fa nofa";
 *                               policy: the header, then a line per rule), or "EINVAL"
 *   unit read KIND [MAX]        the same of the typed read (mmt_info, mmt_stats_read,
 *                               mmt_latency_read, mmt_policy_read) where the env's
 *                               roots point, or "error CODE: MESSAGE"
 *   unit json STRING            prints STRING as a JSON literal (both APIs)
 *   unit jsonw STRING [pretty]  a nested document of lib/jsonw.h holding
 *                               STRING as a name and as values
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgrun.h"
#include "libmmtune.h"
#include "jsonw.h"

static int failed;

static void check(const char *name, int cond, const char *why)
{
	if (cond) {
		printf("ok - unit: %s\n", name);
	} else {
		printf("not ok - unit: %s: %s\n", name, why);
		failed = 1;
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, r;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

/* A counter as the parser holds it: the number, or "-" when not shown. */
static const char *ctr(char *buf, size_t len, int seen, unsigned long long v)
{
	if (!seen)
		return "-";
	snprintf(buf, len, "%llu", v);
	return buf;
}

/* A rule's fields, and the order it gives now (mmt_prule_order). */
static void print_prule(const struct mmt_prule *r)
{
	char b[2 + MMT_PA_NR][32], pu[2][32];
	const char *t[2 + MMT_PA_NR];
	int i;

	t[0] = ctr(b[0], sizeof(b[0]), r->has_hits, r->hits);
	t[1] = ctr(b[1], sizeof(b[1]), r->has_pages, r->pages);
	for (i = 0; i < MMT_PA_NR; i++)
		t[2 + i] = ctr(b[2 + i], sizeof(b[2 + i]), r->au_seen & 1 << i, r->au[i]);
	printf("%s order=%s hits=%s pages=%s%s%s", r->match[0] ? r->match : "(no rule)", r->order,
	       t[0], t[1], r->exited ? " exited" : "", mmt_prule_maps(r) ? " maps" : "");
	if (r->has_prefaulted || r->has_untouched)
		printf(" prefaulted=%s untouched=%s",
		       ctr(pu[0], sizeof(pu[0]), r->has_prefaulted, r->prefaulted),
		       ctr(pu[1], sizeof(pu[1]), r->has_untouched, r->untouched));
	if (r->au_seen || r->useful >= 0)
		printf(" auto_order=%s raised=%s lowered=%s learned=%s useful=%d",
		       t[2 + MMT_PA_ORDER], t[2 + MMT_PA_RAISED], t[2 + MMT_PA_LOWERED],
		       t[2 + MMT_PA_LEARNED], r->useful);
	printf(" -> %d\n", mmt_prule_order(r));
}

/* "rules=N/MAX kernel=K default=D", the default's counters, then the rules. */
static void print_policy(const struct mmt_policy *p)
{
	int i;

	printf("rules=%d/%d kernel=%d default=%d\n", p->nr, p->max_rules, p->kernel_order,
	       p->default_order);
	print_prule(&p->def);
	for (i = 0; i < p->nr; i++)
		print_prule(&p->r[i]);
}

static void print_latency(const struct mmt_latency *lat, int n)
{
	int i;

	printf("n=%d kv=%d\n", n, lat->nkv);
	for (i = 0; i < lat->nkv; i++)
		printf("%s=%s\n", lat->kv[i].key, lat->kv[i].value);
	for (i = 0; i < n; i++)
		printf("[%llu,%llu) %llu %llu\n", lat->b[i].low, lat->b[i].high,
		       lat->b[i].fault_around, lat->b[i].no_fault_around);
}

static void print_kv(const struct mmt_kv *kv, int n)
{
	int i;

	printf("n=%d\n", n);
	for (i = 0; i < n; i++)
		printf("%s=%s\n", kv[i].key, kv[i].value);
}

/*
 * A record of kind, parsed from text (read: NULL, the typed read where
 * the env's roots point): its fields as print_*() show them, or EINVAL
 * (parse), or the read's MMT_E* code and message (read).
 */
static void show_record(const char *kind, const char *text, size_t len, int max)
{
	struct mmt_policy *p = malloc(sizeof(*p));
	struct mmt_latency *lat = malloc(sizeof(*lat));
	struct mmt_kv *kv = calloc((size_t)max + 1, sizeof(*kv));
	int n;

	if (!strcmp(kind, "policy"))
		n = text ? mmt_parse_policy(text, len, p) : mmt_policy_read(p);
	else if (!strcmp(kind, "latency"))
		n = text ? mmt_parse_latency(text, len, lat) : mmt_latency_read(lat);
	else if (!strcmp(kind, "info"))
		n = text ? mmt_parse_info(text, len, kv, max) : mmt_info(kv, max);
	else
		n = text ? mmt_parse_stats(text, len, kv, max) : mmt_stats_read(kv, max);
	if (n < 0 && text)
		printf("EINVAL\n");
	else if (n < 0)
		printf("error %d: %s\n", n, mmt_errmsg());
	else if (!strcmp(kind, "policy"))
		print_policy(p);
	else if (!strcmp(kind, "latency"))
		print_latency(lat, n);
	else
		print_kv(kv, n);
	free(p);
	free(lat);
	free(kv);
}

static int do_parse(const char *kind, const char *path, int max)
{
	size_t len = 0;
	char *text = slurp(path, &len);

	if (!text) {
		perror(path);
		return 1;
	}
	show_record(kind, text, len, max);
	free(text);
	return 0;
}

/* A document of every kind of value, nested: objects in arrays in objects. */
static void jsonw_doc(FILE *f, const char *str, int pretty)
{
	struct jsonw jw;

	jsonw_init(&jw, f);
	jsonw_pretty(&jw, pretty);
	jsonw_start_object(&jw);
	jsonw_string_field(&jw, str, str);
	jsonw_name(&jw, "list");
	jsonw_start_array(&jw);
	jsonw_uint(&jw, 18446744073709551615ULL);
	jsonw_int(&jw, -3);
	jsonw_start_object(&jw);
	jsonw_bool_field(&jw, "t", 1);
	jsonw_null_field(&jw, "n");
	jsonw_name(&jw, "empty");
	jsonw_start_array(&jw);
	jsonw_end_array(&jw);
	jsonw_end_object(&jw);
	jsonw_string(&jw, NULL);
	jsonw_float_fmt(&jw, "%.2f", 1.5);
	jsonw_number_raw(&jw, "0.41");
	jsonw_end_array(&jw);
	jsonw_name(&jw, "o");
	jsonw_start_object(&jw);
	jsonw_end_object(&jw);
	jsonw_end_object(&jw);
}

static void jsonw_selftest(void)
{
	static const char want[] =
		"{\"q\\\"\\\\\\n\\u0001\":\"q\\\"\\\\\\n\\u0001\",\"list\":"
		"[18446744073709551615,-3,{\"t\":true,\"n\":null,\"empty\":[]},null,1.50,0.41],"
		"\"o\":{}}\n";
	char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f) {
		check("jsonw compact", 0, "fmemopen");
		return;
	}
	jsonw_doc(f, "q\"\\\n\x01", 0);
	fputc('\0', f);
	fclose(f);
	check("jsonw compact: commas, nesting, escaping", !strcmp(buf, want), buf);
}

/* jsonw_flow: records a line in a pretty document (mmstress's layout) */
static void jsonw_flow_selftest(void)
{
	static const char want[] =
		"{\n  \"meta\": {\n    \"orders\": [0, 3],\n    \"none\": null\n  },\n"
		"  \"runs\": [\n    {\"order\": 0, \"w\": {\"a\": [], \"b\": 1.50}},\n"
		"    {\"order\": null}\n  ],\n  \"after\": [\n    1\n  ]\n}\n";
	char buf[512];
	struct jsonw jw;
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f) {
		check("jsonw flow", 0, "fmemopen");
		return;
	}
	jsonw_init(&jw, f);
	jsonw_pretty(&jw, 1);
	jsonw_start_object(&jw);
	jsonw_name(&jw, "meta");
	jsonw_start_object(&jw);
	jsonw_name(&jw, "orders");
	jsonw_flow(&jw);
	jsonw_start_array(&jw);
	jsonw_int(&jw, 0);
	jsonw_int(&jw, 3);
	jsonw_end_array(&jw);
	jsonw_null_field(&jw, "none");
	jsonw_end_object(&jw);
	jsonw_name(&jw, "runs");
	jsonw_start_array(&jw);
	jsonw_flow(&jw);
	jsonw_start_object(&jw);
	jsonw_int_field(&jw, "order", 0);
	jsonw_name(&jw, "w");
	jsonw_start_object(&jw);
	jsonw_name(&jw, "a");
	jsonw_start_array(&jw);
	jsonw_end_array(&jw);
	jsonw_name(&jw, "b");
	jsonw_float_fmt(&jw, "%.2f", 1.5);
	jsonw_end_object(&jw);
	jsonw_end_object(&jw);
	jsonw_flow(&jw);
	jsonw_start_object(&jw);
	jsonw_null_field(&jw, "order");
	jsonw_end_object(&jw);
	jsonw_end_array(&jw);
	jsonw_name(&jw, "after");	/* pretty again after the records */
	jsonw_start_array(&jw);
	jsonw_int(&jw, 1);
	jsonw_end_array(&jw);
	jsonw_end_object(&jw);
	fputc('\0', f);
	fclose(f);
	check("jsonw flow: a record a line, pretty around it", !strcmp(buf, want), buf);
}

/* mmt_parse_orders: "LIST" MAX FLAGS MAX_N -> "the orders" or "EINVAL" */
static void orders_selftest(void)
{
	static const struct {
		const char *s;
		int max;
		unsigned int flags;
		int max_n;
		const char *want;
	} t[] = {
		{ "0-3,9", 9, 0, 64, "0 1 2 3 9" },
		{ "4,0,4", 9, 0, 64, "4 0 4" },
		{ "4,0,4", 9, MMT_ORDERS_SET, 64, "0 4" },
		{ ",0,,2,", 9, 0, 64, "0 2" },
		{ "9-0", 9, 0, 64, "EINVAL" },
		{ "10", 9, 0, 64, "EINVAL" },
		{ "", 9, 0, 64, "EINVAL" },
		{ ",", 9, MMT_ORDERS_SET, 64, "EINVAL" },
		{ "0-2", 9, 0, 2, "EINVAL" },
		{ "0-2,0-2", 9, MMT_ORDERS_SET, 3, "0 1 2" },
		{ "0-2,0-3", 9, MMT_ORDERS_SET, 3, "EINVAL" },
		{ "63", 1000, 0, 64, "63" },
		{ "64", 1000, 0, 64, "EINVAL" },
		{ "62-63", -1, MMT_ORDERS_SET, 64, "62 63" },
	};
	char got[256], name[96];
	int o[64], n, i, k;
	size_t len;

	for (i = 0; i < (int)(sizeof(t) / sizeof(t[0])); i++) {
		n = mmt_parse_orders(t[i].s, t[i].max, t[i].flags, o, t[i].max_n);
		got[0] = '\0';
		if (n < 0)
			snprintf(got, sizeof(got), "%s", n == MMT_EINVAL ? "EINVAL" : "?");
		for (k = 0, len = 0; k < n && len < sizeof(got); k++)
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%d", k ? " " : "", o[k]);
		snprintf(name, sizeof(name), "mmt_parse_orders '%s' max %d%s max_n %d: %s", t[i].s,
			 t[i].max, t[i].flags ? " set" : "", t[i].max_n, t[i].want);
		check(name, !strcmp(got, t[i].want), got);
	}
}

/* A child that waits to be killed; pid, or -1. */
static pid_t decoy(void)
{
	pid_t p = fork();

	if (p == 0) {
		pause();
		_exit(0);
	}
	return p;
}

/* Write @text to DIR/NAME; 0 or -1. */
static int put(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX + 64];
	FILE *f;
	int r;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		return -1;
	r = fputs(text, f) < 0;
	return fclose(f) || r ? -1 : 0;
}

/* The first line of @path in @buf ("" if none). */
static void get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
}

/*
 * mmt_cg_kill on a fake cgroup: cgroup.procs lists a process of ours that
 * is not in it (a pid reused since the list was read), a child empties
 * the list 0.1 s later.  With cgroup.kill the kernel kills, the listed
 * pid must live; without it (before Linux 5.14) the list is all there is.
 */
static int cg_kill_case(int have_kill_file, int *alive, char *ck, size_t cklen)
{
	char dir[] = "/tmp/mmt-unit-cg.XXXXXX", pidtxt[32], path[64];
	struct timespec ts = { 0, 100000000L };
	struct mmt_cg cg;
	pid_t d, emptier;
	int r, st;

	if (!mkdtemp(dir))
		return -1;
	memset(&cg, 0, sizeof(cg));
	snprintf(cg.dir, sizeof(cg.dir), "%s", dir);
	cg.made = 1;
	d = decoy();
	snprintf(pidtxt, sizeof(pidtxt), "%d\n", (int)d);
	if (d < 0 || put(dir, "cgroup.procs", pidtxt) ||
	    (have_kill_file && put(dir, "cgroup.kill", "")))
		return -1;
	emptier = fork();
	if (emptier == 0) {
		nanosleep(&ts, NULL);
		_exit(put(dir, "cgroup.procs", "") ? 1 : 0);
	}
	r = mmt_cg_kill(&cg);
	waitpid(emptier, NULL, 0);
	nanosleep(&ts, NULL);
	*alive = waitpid(d, &st, WNOHANG) == 0;
	kill(d, SIGKILL);
	waitpid(d, NULL, 0);
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	get(path, ck, cklen);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	unlink(path);
	rmdir(dir);
	return r;
}

static void cg_kill_selftest(void)
{
	char ck[8];
	int alive = 0, r;

	r = cg_kill_case(1, &alive, ck, sizeof(ck));
	check("cg_kill with cgroup.kill: written, a listed pid not signalled",
	      r == MMT_OK && alive && !strcmp(ck, "1"), alive ? mmt_errmsg() : "the listed pid was killed");
	r = cg_kill_case(0, &alive, ck, sizeof(ck));
	check("cg_kill without cgroup.kill: the listed pid killed", r == MMT_OK && !alive,
	      alive ? "still alive" : mmt_errmsg());
}

/* Prometheus label values: the three escapes, UTF-8 kept, other bytes as U+FFFD. */
static void prom_selftest(void)
{
	static const struct { const char *in, *want, *name; } E[] = {
		{ "comm=a order=1", "comm=a order=1", "plain" },
		{ "q\"b\\s\nnl", "q\\\"b\\\\s\\nnl", "quote, backslash, newline" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "UTF-8 kept" },
		{ "a\xff" "b", "a\xef\xbf\xbd" "b", "a stray byte" },
		{ "a\xc3", "a\xef\xbf\xbd", "a sequence cut at the end" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "an overlong form" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "a UTF-16 surrogate" },
		{ "", "", "empty" },
	};
	char buf[64], name[96];
	size_t i, n;

	for (i = 0; i < sizeof(E) / sizeof(E[0]); i++) {
		n = mmt_prom_escape(buf, sizeof(buf), E[i].in);
		snprintf(name, sizeof(name), "prom_escape: %s", E[i].name);
		check(name, n == strlen(E[i].want) && !strcmp(buf, E[i].want), buf);
	}
	n = mmt_prom_escape(buf, 4, "a\"bcd");
	check("prom_escape truncates", n == 6 && !strcmp(buf, "a\\\""), buf);
	check("prom_escape sizing", mmt_prom_escape(NULL, 0, "\n") == 2, "wrong size");
	check("prom_escape NULL", mmt_prom_escape(buf, sizeof(buf), NULL) == 0 && !buf[0], buf);
}

/* JSON strings, the JSON writer and Prometheus label values. */
static void escape_selftest(void)
{
	char buf[64];
	size_t n;

	n = mmt_json_escape(buf, sizeof(buf), "a\"b\\c\n\t\x01\x7f\xc3");
	check("json_escape", n == strlen(buf) &&
	      !strcmp(buf, "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\\u00c3\""), buf);
	n = mmt_json_escape(buf, 4, "abcdef");
	check("json_escape truncates", n == 8 && !strcmp(buf, "\"ab"), buf);
	n = mmt_json_escape(NULL, 0, "ab");
	check("json_escape sizing", n == 4, "wrong size");
	jsonw_selftest();
	jsonw_flow_selftest();
	orders_selftest();
	prom_selftest();
}

static void selftest(void)
{
	struct { const char *s; long min, max; int ok; long want; } L[] = {
		{ "0", 0, 9, 1, 0 }, { "9", 0, 9, 1, 9 }, { "10", 0, 9, 0, 0 },
		{ "-1", 0, 9, 0, 0 }, { "12x", 0, 9, 0, 0 }, { "", 0, 9, 0, 0 },
		{ " 3", 0, 9, 0, 0 }, { "3 ", 0, 9, 0, 0 }, { "0x3", 0, 9, 0, 0 },
		{ "3.0", 0, 9, 0, 0 }, { "+3", 0, 9, 1, 3 }, { "-", 0, 9, 0, 0 },
		{ "99999999999999999999", 0, 9, 0, 0 },
		{ "9223372036854775807", 0, 9223372036854775807L, 1, 9223372036854775807L },
		{ "-9223372036854775808", -9223372036854775807L - 1, 0, 1, -9223372036854775807L - 1 },
		{ "-9223372036854775809", -9223372036854775807L - 1, 0, 0, 0 },
	};
	char buf[256], name[128];
	struct mmt_kv kv[4];
	unsigned long long u;
	size_t i;
	long v;

	for (i = 0; i < sizeof(L) / sizeof(L[0]); i++) {
		int r = mmt_parse_long(L[i].s, L[i].min, L[i].max, &v);

		snprintf(name, sizeof(name), "parse_long '%s'", L[i].s);
		if (L[i].ok)
			check(name, r == MMT_OK && v == L[i].want, mmt_errmsg());
		else
			check(name, r == MMT_EINVAL && strlen(mmt_errmsg()) > 0, "accepted");
	}
	check("parse_long NULL", mmt_parse_long(NULL, 0, 1, &v) == MMT_EINVAL, "accepted");
	check("parse_u64 max", mmt_parse_u64("18446744073709551615", &u) == 0 &&
	      u == 18446744073709551615ULL, "rejected");
	check("parse_u64 overflow", mmt_parse_u64("18446744073709551616", &u) == MMT_EINVAL, "accepted");
	check("parse_u64 sign", mmt_parse_u64("-1", &u) == MMT_EINVAL, "accepted");
	check("parse_u64 empty", mmt_parse_u64("", &u) == MMT_EINVAL, "accepted");

	escape_selftest();

	check("parse_info empty", mmt_parse_info("", 0, kv, 4) == 0, "not 0");
	check("parse_info NULL", mmt_parse_info(NULL, 0, kv, 4) == 0, "not 0");
	check("parse_info NUL byte", mmt_parse_info("a: b\0c: d", 9, kv, 4) == MMT_EINVAL, "accepted");
	check("parse_info unterminated", mmt_parse_info("a: 1\nb: 2xyz", 9, kv, 4) == 2 &&
	      !strcmp(kv[1].value, "2"), "wrong");
	check("parse_info max", mmt_parse_info("a: 1\nb: 2\nc: 3\n", 15, kv, 2) == 2, "not 2");
	check("parse_info max still validates",
	      mmt_parse_info("a: 1\nb: 2\ngarbage\n", 18, kv, 1) == MMT_EINVAL, "accepted");
	check("parse_stats one token", mmt_parse_stats("a\n", 2, kv, 4) == MMT_EINVAL, "accepted");
	check("parse_stats three tokens", mmt_parse_stats("a 1 2\n", 6, kv, 4) == MMT_EINVAL, "accepted");
	check("kv_get", mmt_parse_info("x: 1\ny: 2\n", 10, kv, 4) == 2 &&
	      !strcmp(mmt_kv_get(kv, 2, "y"), "2") && !mmt_kv_get(kv, 2, "z") &&
	      !mmt_kv_get(NULL, 2, "y"), "wrong");

	check("exit code ok", mmt_exit_code(MMT_OK) == 0, "not 0");
	check("exit code einval", mmt_exit_code(MMT_EINVAL) == 2, "not 2");
	check("exit code enoknob", mmt_exit_code(MMT_ENOKNOB) == 2, "not 2");
	check("exit code enomod", mmt_exit_code(MMT_ENOMOD) == 1, "not 1");
	check("exit code eperm", mmt_exit_code(MMT_EPERM) == 1, "not 1");
	check("exit code enodebugfs", mmt_exit_code(MMT_ENODEBUGFS) == 1, "not 1");
	check("exit code eio", mmt_exit_code(MMT_EIO) == 1, "not 1");
	check("errno EINVAL", mmt_errno_to_err(EINVAL, "/x", "7") == MMT_EINVAL &&
	      strstr(mmt_errmsg(), "'7'"), mmt_errmsg());
	check("errno EACCES", mmt_errno_to_err(EACCES, "/x", NULL) == MMT_EPERM &&
	      strstr(mmt_errmsg(), "root"), mmt_errmsg());
	check("errno EIO", mmt_errno_to_err(EIO, "/x", NULL) == MMT_EIO, mmt_errmsg());
	check("errno kept", (mmt_errno_to_err(EPERM, "/x", NULL), errno == EPERM), "clobbered");
	check("knob name ok", mmt_knob_name_ok("fault_around_order"), "rejected");
	check("knob name ..", !mmt_knob_name_ok(".."), "accepted");
	check("knob name slash", !mmt_knob_name_ok("../info"), "accepted");
	check("knob name subdir", mmt_knob_name_ok("pfn_valid/mode"), "rejected");
	check("knob name subdir ..", !mmt_knob_name_ok("pfn_valid/../info"), "accepted");
	check("knob name trailing /", !mmt_knob_name_ok("pfn_valid/"), "accepted");
	check("knob name leading /", !mmt_knob_name_ok("/info"), "accepted");
	check("knob name empty", !mmt_knob_name_ok(""), "accepted");
	check("knob read bad name", mmt_knob_read("a//b", buf, sizeof(buf)) == MMT_ENOKNOB, "accepted");
	check("knob read no buffer", mmt_knob_read("info", buf, 0) == MMT_EINVAL, "accepted");
	check("knob write NULL", mmt_knob_write("info", NULL) == MMT_EINVAL, "accepted");
	check("order set -1", mmt_order_set(-1, NULL) == MMT_EINVAL, "accepted");
	check("order set 64", mmt_order_set(64, NULL) == MMT_EINVAL, "accepted");
	check("knob list", mmt_knobs[0] && !strcmp(mmt_knobs[0], "fault_around_order"), "wrong");
	cg_kill_selftest();
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "selftest")) {
		selftest();
		return failed;
	}
	if (argc >= 4 && !strcmp(argv[1], "parse"))
		return do_parse(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 256);
	if (argc >= 3 && !strcmp(argv[1], "read")) {
		show_record(argv[2], NULL, 0, argc > 3 ? atoi(argv[3]) : 256);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "json")) {
		char *b;
		size_t n = mmt_json_escape(NULL, 0, argv[2]);

		b = malloc(n + 1);
		if (!b || mmt_json_escape(b, n + 1, argv[2]) != n)
			return 1;
		printf("[%s,", b);
		mmt_json_str(stdout, argv[2]);
		printf("]\n");
		free(b);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "jsonw")) {
		jsonw_doc(stdout, argv[2], argc > 3 && !strcmp(argv[3], "pretty"));
		return 0;
	}
	fprintf(stderr, "usage: unit selftest | parse KIND FILE [MAX] | read KIND [MAX] | json STRING | jsonw STRING [pretty]\n");
	return 2;
}
