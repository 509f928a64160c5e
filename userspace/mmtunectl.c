// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl: read and set mmtune's knobs, show its status and counters.
 *
 * Exit codes: 0 done; 1 could not (module not loaded, not root, debugfs
 * not mounted); 2 bad usage or a value out of range.  Every error is one
 * line on stderr that names what to do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "cgrun.h"

#ifndef MMT_VERSION
#define MMT_VERSION "0.0.0"
#endif

#define PROG	"mmtunectl"
#define BUFSZ	65536
#define MAXKV	256

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct verb *find_verb(const char *name);

static int usage_err(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int usage_err(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '" PROG "%s%s --help')\n", verb ? " " : "", verb ? verb : "");
	return MMT_EXIT_USAGE;
}

/* getopt said '?' or ':' (optstring starts with "+:"). */
static int bad_opt(const char *verb, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return usage_err(verb, "option '%.40s' needs a value", arg);
	return usage_err(verb, "unknown option '%.40s'", arg);
}

/* Report a library failure; returns the exit code it maps to. */
static int lib_fail(int err)
{
	fprintf(stderr, PROG ": %s\n", mmt_errmsg());
	return mmt_exit_code(err);
}

static void note_kernel_knob(void)
{
	const char *kp = mmt_kernel_knob_path();

	fprintf(stderr, PROG ": note: mmtune module not loaded, using the kernel's %s\n",
		kp ? kp : "fault_around_bytes");
}

static int is_knob(const char *k, const char *name)
{
	return !strcmp(k, name);
}

/* Read and parse the stats file: pairs, or -(exit code) after saying why. */
static int read_stats(char *buf, struct mmt_kv *kv, int max)
{
	long r = mmt_knob_read_n("stats", buf, BUFSZ);
	int n;

	if (r < 0)
		return -lib_fail((int)r);
	n = mmt_parse_stats(buf, (size_t)r, kv, max);
	if (n < 0) {
		fprintf(stderr, PROG ": unexpected content in the module's stats file\n");
		return -MMT_EXIT_FAIL;
	}
	return n;
}

/* stats_enable: 1, 0, or -1 if it cannot be read. */
static int stats_enabled(void)
{
	char b[32];
	long v;
	size_t l;

	if (mmt_knob_read("stats_enable", b, sizeof(b)))
		return -1;
	l = strlen(b);
	while (l && (b[l - 1] == '\n' || b[l - 1] == ' '))
		b[--l] = '\0';
	if (mmt_parse_long(b, 0, 1, &v))
		return -1;
	return (int)v;
}

static void json_bool_or_null(int v)
{
	fputs(v < 0 ? "null" : v ? "true" : "false", stdout);
}

/* A number stays a number, "unavailable" becomes null, anything else a string. */
static void json_value(const char *v)
{
	unsigned long long u;

	if (!mmt_parse_u64(v, &u))
		printf("%llu", u);
	else if (!strcmp(v, "unavailable"))
		fputs("null", stdout);
	else
		mmt_json_str(stdout, v);
}

/* ---- status ---- */

static int read_version(char *out, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/version", mmt_sysfs_module());
	f = fopen(p, "re");
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mmt_kv *kv = NULL;
	int json = 0, c, err, order, via, loaded, nkv = 0, maxo = -1, defo = -1, sen = -1;
	char version[64] = "";
	const char *root, *arch, *v;
	struct utsname un;
	long ps, l;
	int rc = MMT_EXIT_OK;

	while ((c = getopt_long(argc, argv, "+:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': printf("%s\n%s", find_verb("status")->usage, find_verb("status")->help); return 0;
		default: return bad_opt("status", c, argv);
		}
	}
	if (optind != argc)
		return usage_err("status", "unexpected argument '%s'", argv[optind]);

	loaded = mmt_module_loaded();
	root = mmt_debugfs_root();
	err = mmt_order_get(&order, &via);
	if (err)
		return lib_fail(err);
	ps = mmt_page_size();
	uname(&un);
	arch = un.machine;
	if (loaded) {
		kv = calloc(MAXKV, sizeof(*kv));
		if (!kv)
			return lib_fail(MMT_EIO);
		nkv = mmt_info(kv, MAXKV);
		if (nkv == MMT_ENODEBUGFS || nkv == MMT_EPERM) {
			/* the order came through the module parameter */
			fprintf(stderr, PROG ": note: no info: %s\n", mmt_errmsg());
			nkv = 0;
		} else if (nkv < 0) {
			rc = lib_fail(nkv);
			goto out;
		}
		if ((v = mmt_kv_get(kv, nkv, "arch")))
			arch = v;
		if ((v = mmt_kv_get(kv, nkv, "page_size")) && !mmt_parse_long(v, 1, LONG_MAX, &l))
			ps = l;
		sen = stats_enabled();
		read_version(version, sizeof(version));
	}
	if (mmt_max_order(&maxo))
		maxo = -1;
	if (mmt_default_order(&defo))
		defo = -1;

	if (json) {
		printf("{\"module_loaded\":%s,\"module_version\":", loaded ? "true" : "false");
		if (version[0])
			mmt_json_str(stdout, version);
		else
			fputs("null", stdout);
		fputs(",\"debugfs\":", stdout);
		if (root)
			mmt_json_str(stdout, root);
		else
			fputs("null", stdout);
		fputs(",\"interface\":", stdout);
		if (loaded)
			mmt_json_str(stdout, mmt_interface());
		else
			fputs("null", stdout);
		fputs(",\"lockdown\":", stdout);
		mmt_json_str(stdout, mmt_lockdown());
		fputs(",\"arch\":", stdout);
		mmt_json_str(stdout, arch);
		printf(",\"page_size\":%ld,\"fault_around_order\":%d,\"fault_around_bytes\":%llu",
		       ps, order, (unsigned long long)ps << order);
		printf(",\"via\":\"%s\"", via ? "kernel" : "module");
		if (maxo >= 0)
			printf(",\"max_order\":%d", maxo);
		else
			fputs(",\"max_order\":null", stdout);
		if (defo >= 0)
			printf(",\"default_order\":%d", defo);
		else
			fputs(",\"default_order\":null", stdout);
		fputs(",\"stats_enable\":", stdout);
		json_bool_or_null(sen);
		fputs(",\"info\":", stdout);
		if (loaded) {
			int i;

			fputc('{', stdout);
			for (i = 0; i < nkv; i++) {
				if (mmt_kv_get(kv, i, kv[i].key))	/* duplicate: keep the first */
					continue;
				if (i)
					fputc(',', stdout);
				mmt_json_str(stdout, kv[i].key);
				fputc(':', stdout);
				mmt_json_str(stdout, kv[i].value);
			}
			fputc('}', stdout);
		} else {
			fputs("null", stdout);
		}
		fputs("}\n", stdout);
	} else {
		int i;

		printf("%-20s %s", "module:", loaded ? "loaded" : "not loaded");
		if (version[0])
			printf(" (version %s)", version);
		printf("\n%-20s %s\n", "debugfs:", root ? root : "not mounted");
		if (loaded)
			printf("%-20s %s\n", "interface:", mmt_interface());
		printf("%-20s %s\n", "lockdown:", mmt_lockdown());
		printf("%-20s %s\n", "arch:", arch);
		printf("%-20s %ld\n", "page_size:", ps);
		printf("%-20s %d\n", "fault_around_order:", order);
		printf("%-20s %llu\n", "fault_around_bytes:", (unsigned long long)ps << order);
		printf("%-20s %s\n", "via:", via ? "kernel (fault_around_bytes)" : "module");
		if (maxo >= 0)
			printf("%-20s %d\n", "max_order:", maxo);
		if (defo >= 0)
			printf("%-20s %d\n", "default_order:", defo);
		printf("%-20s %s\n", "stats:", sen < 0 ? "unavailable" : sen ? "on" : "off");
		if (nkv > 0)
			printf("info:\n");
		for (i = 0; i < nkv; i++)
			printf("  %s: %s\n", kv[i].key, kv[i].value);
	}
out:
	free(kv);
	return rc;
}

/* ---- get ---- */

static int cmd_get(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *knob;
	int c, err;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': printf("%s\n%s", find_verb("get")->usage, find_verb("get")->help); return 0;
		default: return bad_opt("get", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_err("get", argc == optind ? "missing KNOB" : "too many arguments");
	knob = argv[optind];
	if (!mmt_knob_name_ok(knob))
		return usage_err("get", "invalid knob name '%.64s'", knob);

	if (is_knob(knob, "fault_around_order")) {
		int order, via;

		err = mmt_order_get(&order, &via);
		if (err)
			return lib_fail(err);
		if (via)
			note_kernel_knob();
		printf("%d\n", order);
		return 0;
	} else {
		char *buf = malloc(BUFSZ);
		long r;

		if (!buf)
			return lib_fail(MMT_EIO);
		r = mmt_knob_read_n(knob, buf, BUFSZ);
		if (r < 0) {
			free(buf);
			return lib_fail((int)r);
		}
		fputs(buf, stdout);
		if (r > 0 && buf[r - 1] != '\n')
			fputc('\n', stdout);
		free(buf);
		return 0;
	}
}

/* ---- set ---- */

static int set_order(const char *value)
{
	long v;
	int err, via, max;

	if (!strcmp(value, "default")) {
		err = mmt_order_set_default(&via);
	} else {
		const char *d = value + (value[0] == '-' || value[0] == '+');

		if (!*d || strspn(d, "0123456789") != strlen(d))
			return usage_err("set", "fault_around_order: '%.40s' is not a number or 'default'", value);
		if (mmt_parse_long(value, 0, 63, &v)) {
			if (!mmt_max_order(&max))
				return usage_err("set", "fault_around_order: '%.40s' is out of range 0..%d", value, max);
			return usage_err("set", "fault_around_order: '%.40s' is out of range", value);
		}
		err = mmt_max_order(&max);
		if (err)
			return lib_fail(err);
		if (v > max)
			return usage_err("set", "fault_around_order: %ld is out of range 0..%d", v, max);
		err = mmt_order_set((int)v, &via);
	}
	if (err)
		return lib_fail(err);
	if (via)
		note_kernel_knob();
	return 0;
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

#define PFV_COUNT_MAX	(1 << 24)

/* "COUNT PATTERN" for pfn_valid/bench */
static int bench_arg_ok(const char *v)
{
	const char *sp = strchr(v, ' ');
	char num[16];
	long n;

	if (!sp || (size_t)(sp - v) >= sizeof(num))
		return 0;
	memcpy(num, v, (size_t)(sp - v));
	num[sp - v] = '\0';
	if (mmt_parse_long(num, 1, PFV_COUNT_MAX, &n))
		return 0;
	sp++;
	return !strcmp(sp, "seq") || !strcmp(sp, "rand") || !strcmp(sp, "holes");
}

/* a lower-case word of 1..15 letters (strategy names, "off") */
static int word_ok(const char *v)
{
	size_t n = strlen(v);

	return n && n < 16 && strspn(v, "abcdefghijklmnopqrstuvwxyz") == n;
}

static int cmd_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *knob, *value;
	int c, err;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': printf("%s\n%s", find_verb("set")->usage, find_verb("set")->help); return 0;
		default: return bad_opt("set", c, argv);
		}
	}
	if (argc - optind < 2)
		return usage_err("set", argc == optind ? "missing KNOB and VALUE" : "missing VALUE");
	if (argc - optind > 2)
		return usage_err("set", "too many arguments");
	knob = argv[optind];
	value = argv[optind + 1];
	if (!mmt_knob_name_ok(knob))
		return usage_err("set", "invalid knob name '%.64s'", knob);

	if (is_knob(knob, "fault_around_order"))
		return set_order(value);
	if (is_knob(knob, "info"))
		return usage_err("set", "info is read-only");
	if (is_knob(knob, "latency"))
		return usage_err("set", "latency is read-only (reset it with 'stats --reset')");
	if ((is_knob(knob, "stats_enable") || is_knob(knob, "latency_enable")) &&
	    strcmp(value, "0") && strcmp(value, "1"))
		return usage_err("set", "%s: '%.40s' is not 0 or 1", knob, value);
	if (is_knob(knob, "stats") && strcmp(value, "0"))
		return usage_err("set", "stats: only 0 (reset) can be written");
	if (is_knob(knob, "pfn_valid/bench") && !bench_arg_ok(value))
		return usage_err("set", "pfn_valid/bench: '%.40s' is not 'COUNT seq|rand|holes' with COUNT 1..%d",
				 value, PFV_COUNT_MAX);
	if (is_knob(knob, "pfn_valid/mode") && !word_ok(value))
		return usage_err("set", "pfn_valid/mode: '%.40s' is not 'off' or a strategy name", value);
	if (!*value || strlen(value) > 64 || !printable(value))
		return usage_err("set", "%s: bad value", knob);
	err = mmt_knob_write(knob, value);
	return err ? lib_fail(err) : 0;
}

/* ---- stats ---- */

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

/* The latency file as a JSON object, or null when it is missing or unusable. */
static void print_latency_json(char *buf)
{
	struct mmt_latency *lat;
	long r = mmt_knob_read_n("latency", buf, BUFSZ);
	int i;

	lat = r >= 0 ? malloc(sizeof(*lat)) : NULL;
	if (!lat || mmt_parse_latency(buf, (size_t)r, lat) < 0 || (!lat->nkv && !lat->nb)) {
		fputs("null", stdout);
		free(lat);
		return;
	}
	fputc('{', stdout);
	for (i = 0; i < lat->nkv; i++) {
		if (!strcmp(lat->kv[i].key, "buckets") || mmt_kv_get(lat->kv, i, lat->kv[i].key))
			continue;
		mmt_json_str(stdout, lat->kv[i].key);
		fputc(':', stdout);
		json_value(lat->kv[i].value);
		fputc(',', stdout);
	}
	fputs("\"buckets\":[", stdout);
	for (i = 0; i < lat->nb; i++)
		printf("%s{\"low\":%llu,\"high\":%llu,\"fault_around\":%llu,\"no_fault_around\":%llu}",
		       i ? "," : "", lat->b[i].low, lat->b[i].high,
		       lat->b[i].fault_around, lat->b[i].no_fault_around);
	fputs("]}", stdout);
	free(lat);
}

static int watch(long secs, long count, int json, char *buf, struct mmt_kv *prev, int np)
{
	struct mmt_kv *cur = calloc(MAXKV, sizeof(*cur));
	struct sigaction sa;
	int i, nc, rc = 0;
	long iter;

	if (!cur)
		return lib_fail(MMT_EIO);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the sleep must end */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!json) {
		for (i = 0; i < np; i++) {
			int w = (int)strlen(prev[i].key);

			printf("%s%*s", i ? " " : "", w < 8 ? 8 : w, prev[i].key);
		}
		printf("\n");
		fflush(stdout);
	}
	for (iter = 1; count <= 0 || iter <= count; iter++) {
		if (nap(secs))
			break;
		nc = read_stats(buf, cur, MAXKV);
		if (nc < 0) {
			rc = -nc;
			break;
		}
		if (json)
			printf("{\"interval\":%ld,\"seconds\":%ld,\"deltas\":{", iter, secs);
		for (i = 0; i < np; i++) {
			const char *cv = mmt_kv_get(cur, nc, prev[i].key);
			unsigned long long a, b;
			int w = (int)strlen(prev[i].key);
			char d[32];

			if (cv && cmp_u64(cv, &b) && cmp_u64(prev[i].value, &a))
				snprintf(d, sizeof(d), "%llu", b >= a ? b - a : b);	/* reset: since then */
			else
				strcpy(d, json ? "null" : "-");
			if (json) {
				fputs(i ? "," : "", stdout);
				mmt_json_str(stdout, prev[i].key);
				printf(":%s", d);
			} else {
				printf("%s%*s", i ? " " : "", w < 8 ? 8 : w, d);
			}
			if (cv)
				snprintf(prev[i].value, sizeof(prev[i].value), "%s", cv);
		}
		fputs(json ? "}}\n" : "\n", stdout);
		fflush(stdout);
	}
	free(cur);
	return rc;
}

/*
 * The counters in Prometheus' text exposition format, for node_exporter's
 * textfile collector: mmtune_NAME_total with the HELP of mmtune_abi.h;
 * an unavailable counter is left out (no sample beats a false zero).
 */
static void print_prometheus(const struct mmt_kv *kv, int n, int sen)
{
	unsigned long long u;
	const char *v;
	size_t i;

	printf("# HELP mmtune_stats_enable Whether mmtune counts faults (stats_enable)\n"
	       "# TYPE mmtune_stats_enable gauge\nmmtune_stats_enable %d\n", sen > 0);
	for (i = 0; mmt_abi_counters[i].name; i++) {
		const char *name = mmt_abi_counters[i].name;

		v = mmt_kv_get(kv, n, name);
		if (!v || mmt_parse_u64(v, &u))
			continue;
		printf("# HELP mmtune_%s_total %s\n# TYPE mmtune_%s_total counter\n"
		       "mmtune_%s_total %llu\n", name, mmt_abi_counters[i].help,
		       name, name, u);
	}
}

static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "reset", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, prom = 0, reset = 0, c, n, i, err, sen, rc = 0;
	long secs = 0, count = 0;
	struct mmt_kv *kv;
	char *buf;

	while ((c = getopt_long(argc, argv, "+:jpw:c:rh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'p': prom = 1; break;
		case 'r': reset = 1; break;
		case 'w':
			if (mmt_parse_long(optarg, 1, 86400, &secs))
				return usage_err("stats", "--watch: '%.40s' is not a number of seconds 1..86400", optarg);
			break;
		case 'c':
			if (mmt_parse_long(optarg, 1, LONG_MAX, &count))
				return usage_err("stats", "--count: '%.40s' is not a positive number", optarg);
			break;
		case 'h': printf("%s\n%s", find_verb("stats")->usage, find_verb("stats")->help); return 0;
		default: return bad_opt("stats", c, argv);
		}
	}
	if (optind != argc)
		return usage_err("stats", "unexpected argument '%s'", argv[optind]);
	if (count && !secs)
		return usage_err("stats", "--count needs --watch");
	if (prom && (json || secs))
		return usage_err("stats", "--prometheus goes alone (no --json, no --watch)");

	if (reset) {
		err = mmt_knob_write("stats", "0");
		if (err)
			return lib_fail(err);
		if (!json && !secs)
			return 0;
	}
	kv = calloc(MAXKV, sizeof(*kv));
	buf = malloc(BUFSZ);
	if (!kv || !buf) {
		rc = lib_fail(MMT_EIO);
		goto out;
	}
	n = read_stats(buf, kv, MAXKV);
	if (n < 0) {
		rc = -n;
		goto out;
	}
	sen = stats_enabled();
	if (sen == 0 && !prom)
		fprintf(stderr, PROG ": note: counting is off: run '" PROG " set stats_enable 1'\n");

	if (prom) {
		print_prometheus(kv, n, sen);
	} else if (secs) {
		rc = watch(secs, count, json, buf, kv, n);
	} else if (json) {
		fputs("{\"stats_enable\":", stdout);
		json_bool_or_null(sen);
		fputs(",\"stats\":{", stdout);
		for (i = 0; i < n; i++) {
			if (mmt_kv_get(kv, i, kv[i].key))
				continue;
			fputs(i ? "," : "", stdout);
			mmt_json_str(stdout, kv[i].key);
			fputc(':', stdout);
			json_value(kv[i].value);
		}
		fputs("},\"latency\":", stdout);
		print_latency_json(buf);
		fputs("}\n", stdout);
	} else {
		int w = 0;

		for (i = 0; i < n; i++)
			if ((int)strlen(kv[i].key) > w)
				w = (int)strlen(kv[i].key);
		for (i = 0; i < n; i++)
			printf("%-*s %s\n", w, kv[i].key, kv[i].value);
	}
out:
	free(kv);
	free(buf);
	return rc;
}

/* ---- pfn_valid ---- */

/* A JSON number as the kernel prints it: digits, optionally ".digits". */
static int json_number_ok(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (!n || (v[0] == '0' && n > 1 && v[1] != '.'))
		return 0;
	if (!v[n])
		return 1;
	if (v[n] != '.' || !v[n + 1])
		return 0;
	return strspn(v + n + 1, "0123456789") == strlen(v + n + 1);
}

static void json_scalar(const char *v)
{
	if (json_number_ok(v))
		fputs(v, stdout);
	else if (!strcmp(v, "-") || !strcmp(v, "unavailable"))
		fputs("null", stdout);
	else
		mmt_json_str(stdout, v);
}

/*
 * pfn_valid/bench as JSON: its "key: value" lines as members, then the
 * table (a header line of column names, a row per strategy) as "results".
 */
static int bench_json(char *text)
{
	char *line, *save = NULL, *cols[16];
	int ncols = 0, first = 1, rows = 0, i;

	fputc('{', stdout);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!*line || *line == '#')
			continue;
		if (colon && !ncols) {
			char *v = colon + 1;

			*colon = '\0';
			while (*v == ' ')
				v++;
			fputs(first ? "" : ",", stdout);
			first = 0;
			mmt_json_str(stdout, line);
			fputc(':', stdout);
			json_scalar(v);
			continue;
		}
		if (!ncols) {		/* the header */
			char *w, *s2 = NULL;

			for (w = strtok_r(line, " \t", &s2); w && ncols < 16; w = strtok_r(NULL, " \t", &s2))
				cols[ncols++] = w;
			fputs(first ? "\"results\":[" : ",\"results\":[", stdout);
			first = 0;
			continue;
		}
		{
			char *w, *s2 = NULL;

			fputs(rows++ ? ",{" : "{", stdout);
			for (i = 0, w = strtok_r(line, " \t", &s2); w && i < ncols; i++, w = strtok_r(NULL, " \t", &s2)) {
				fputs(i ? "," : "", stdout);
				mmt_json_str(stdout, cols[i]);
				fputc(':', stdout);
				json_scalar(w);
			}
			fputc('}', stdout);
		}
	}
	if (ncols)
		fputc(']', stdout);
	fputs("}\n", stdout);
	return 0;
}

/* info's pfn_valid_impls into buf ("stock section ..."), or -1. */
static int pfv_impls(char *buf, size_t len)
{
	struct mmt_kv *kv = calloc(MAXKV, sizeof(*kv));
	const char *v;
	int n, rc = -1;

	if (!kv)
		return -1;
	n = mmt_info(kv, MAXKV);
	if (n > 0 && (v = mmt_kv_get(kv, n, "pfn_valid_impls"))) {
		snprintf(buf, len, "%s", v);
		rc = 0;
	}
	free(kv);
	return rc;
}

static int in_words(const char *word, const char *list)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static int cmd_pfn_valid(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, c, err, nargs;
	char *buf = NULL, impls[192];
	const char *sub;
	int rc = 0;

	/* options anywhere (no value here can start with '-') */
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': printf("%s\n%s", find_verb("pfn_valid")->usage, find_verb("pfn_valid")->help); return 0;
		default: return bad_opt("pfn_valid", c, argv);
		}
	}
	nargs = argc - optind;
	sub = nargs ? argv[optind] : "show";
	if (!strcmp(sub, "mode")) {
		char m[64];

		if (nargs > 2)
			return usage_err("pfn_valid", "too many arguments");
		if (json)
			return usage_err("pfn_valid", "--json is for show and bench");
		if (nargs == 2) {
			const char *v = argv[optind + 1];

			if (!word_ok(v))
				return usage_err("pfn_valid", "mode: '%.40s' is not 'off' or a strategy", v);
			if (strcmp(v, "off") && !pfv_impls(impls, sizeof(impls)) && !in_words(v, impls))
				return usage_err("pfn_valid", "mode: '%.40s' is not off, %s", v, impls);
			err = mmt_knob_write("pfn_valid/mode", v);
			if (err == MMT_EINVAL) {
				fprintf(stderr, PROG ": the module refused mode '%s' (a cross-check disagreed or it cannot hook here: see the kernel log)\n", v);
				return MMT_EXIT_USAGE;
			}
			return err ? lib_fail(err) : 0;
		}
		err = mmt_knob_read("pfn_valid/mode", m, sizeof(m));
		if (err)
			return lib_fail(err);
		fputs(m, stdout);
		return 0;
	}
	if (strcmp(sub, "bench") && strcmp(sub, "show"))
		return usage_err("pfn_valid", "unknown subcommand '%.40s'", sub);
	if (!strcmp(sub, "show") && nargs > 1)
		return usage_err("pfn_valid", "too many arguments");
	if (!strcmp(sub, "bench")) {
		const char *pat = nargs >= 3 ? argv[optind + 2] : "seq";
		char v[48];
		long n;

		if (nargs < 2)
			return usage_err("pfn_valid", "bench: missing COUNT");
		if (nargs > 3)
			return usage_err("pfn_valid", "too many arguments");
		if (mmt_parse_long(argv[optind + 1], 1, PFV_COUNT_MAX, &n))
			return usage_err("pfn_valid", "bench: COUNT '%.40s' is not 1..%d", argv[optind + 1], PFV_COUNT_MAX);
		snprintf(v, sizeof(v), "%ld %s", n, pat);
		if (!bench_arg_ok(v))
			return usage_err("pfn_valid", "bench: PATTERN '%.40s' is not seq, rand or holes", pat);
		err = mmt_knob_write("pfn_valid/bench", v);
		if (err == MMT_EINVAL) {
			fprintf(stderr, PROG ": the module refused '%s' (too many pfns for its time budget? the kernel log names the largest count)\n", v);
			return MMT_EXIT_USAGE;
		}
		if (err)
			return lib_fail(err);
	}
	buf = malloc(BUFSZ);
	if (!buf)
		return lib_fail(MMT_EIO);
	{
		/* read everything before printing anything */
		long r = mmt_knob_read_n("pfn_valid/bench", buf, BUFSZ);
		struct mmt_kv *kv = NULL;
		char mode[64] = "";
		int n = 0, i;

		if (r < 0) {
			rc = lib_fail((int)r);
			goto out;
		}
		if (!strcmp(sub, "show") && !json) {
			kv = calloc(MAXKV, sizeof(*kv));
			n = kv ? mmt_info(kv, MAXKV) : MMT_EIO;
			err = n < 0 ? n : mmt_knob_read("pfn_valid/mode", mode, sizeof(mode));
			if (err) {
				rc = lib_fail(err);
				free(kv);
				goto out;
			}
			for (i = 0; i < n; i++)
				if (!strncmp(kv[i].key, "pfn_valid", 9))
					printf("%-28s %s\n", kv[i].key, kv[i].value);
			printf("%-28s %s", "mode:", mode);
			printf("last bench:\n");
			free(kv);
		}
		if (json)
			bench_json(buf);
		else
			fputs(buf, stdout);
	}
out:
	free(buf);
	return rc;
}

/* ---- policy ---- */

/*
 * The module's policy file (module/policy.c): "# rules N/MAX",
 * "# kernel order=K", "# default order=D[ hits=H pages=P]", then a line
 * per rule: "MATCH order=N #[ exited] hits=H pages=P" ("pages=-" while
 * the module does not count pages: stats off).  Everything after '#' is ignored when
 * the text is written back.
 */
#define PRULES_MAX	64
#define MATCH_LEN	300

struct prule {
	char match[MATCH_LEN];	/* comm=NAME, pid=TGID or cgroup=PATH */
	char order[16];		/* as written: N or default */
	unsigned long long hits, pages;
	int has_hits, has_pages, exited;
};

struct pstate {
	int nr, max_rules, kernel_order, default_order;
	struct prule def;	/* faults no rule matched: hits, pages */
	struct prule r[PRULES_MAX];
};

/* "hits=H pages=P" (either may be missing or "-") into r. */
static void parse_ctrs(char *s, struct prule *r)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "hits=", 5) && !mmt_parse_u64(tok + 5, &r->hits))
			r->has_hits = 1;
		else if (!strncmp(tok, "pages=", 6) && !mmt_parse_u64(tok + 6, &r->pages))
			r->has_pages = 1;
		else if (!strcmp(tok, "exited"))
			r->exited = 1;
	}
}

/* 0, or -1 if the text is not the module's policy file. */
static int parse_policy(char *text, struct pstate *ps)
{
	char *line, *save = NULL;
	int seen_rules = 0;

	memset(ps, 0, sizeof(*ps));
	ps->kernel_order = ps->default_order = -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *hash, *tok, *s2 = NULL;
		struct prule *r;
		long v;

		if (sscanf(line, "# rules %d/%d", &ps->nr, &ps->max_rules) == 2) {
			seen_rules = 1;
			ps->nr = 0;
			continue;
		}
		if (!strncmp(line, "# kernel order=", 15)) {
			if (!mmt_parse_long(line + 15, 0, 63, &v))
				ps->kernel_order = (int)v;
			continue;
		}
		if (!strncmp(line, "# default order=", 16)) {
			char *sp = strchr(line + 16, ' ');

			if (sp)
				*sp++ = '\0';
			if (!mmt_parse_long(line + 16, 0, 63, &v))
				ps->default_order = (int)v;
			if (sp)
				parse_ctrs(sp, &ps->def);
			continue;
		}
		if (line[0] == '#' || !*line)
			continue;
		if (ps->nr >= PRULES_MAX)
			return -1;
		r = &ps->r[ps->nr];
		memset(r, 0, sizeof(*r));
		hash = strchr(line, '#');
		if (hash)
			*hash++ = '\0';
		for (tok = strtok_r(line, " \t", &s2); tok; tok = strtok_r(NULL, " \t", &s2)) {
			if (!strncmp(tok, "order=", 6))
				snprintf(r->order, sizeof(r->order), "%s", tok + 6);
			else
				snprintf(r->match, sizeof(r->match), "%s", tok);
		}
		if (!r->match[0] || !r->order[0])
			return -1;
		if (hash)
			parse_ctrs(hash, r);
		ps->nr++;
	}
	return seen_rules ? 0 : -1;
}

/* Read and parse the policy file; -(exit code) after saying why. */
static int read_policy(struct pstate *ps)
{
	char *buf = malloc(BUFSZ);
	long r;

	if (!buf)
		return -lib_fail(MMT_EIO);
	r = mmt_knob_read_n("policy", buf, BUFSZ);
	if (r < 0) {
		free(buf);
		if (r == MMT_ENOKNOB || (r == MMT_EIO && errno == ENOENT)) {
			fprintf(stderr, PROG ": this mmtune module has no policy (see 'mmtunectl status': policy)\n");
			return -MMT_EXIT_FAIL;
		}
		return -lib_fail((int)r);
	}
	if (parse_policy(buf, ps)) {
		free(buf);
		fprintf(stderr, PROG ": unexpected content in the module's policy file\n");
		return -MMT_EXIT_FAIL;
	}
	free(buf);
	return 0;
}

/*
 * Check one matcher ("comm=...", "pid=...", "cgroup=...") and write its
 * canonical form into out (a cgroup given under the cgroup2 mount point
 * becomes its cgroup path).  0, or an exit code after saying why.
 */
static int check_match(const char *verb, const char *m, char *out, size_t len)
{
	const char *v = strchr(m, '=') + 1;
	size_t n = strlen(v), i;

	if (!strncmp(m, "comm=", 5)) {
		if (!n || n > 15)
			return usage_err(verb, "comm '%.40s': want 1 to 15 bytes (the kernel's comm length)", v);
		for (i = 0; i < n; i++)
			if ((unsigned char)v[i] <= ' ' || v[i] == 0x7f || v[i] == '#')
				return usage_err(verb, "comm '%.40s': no blanks, control characters or '#'", v);
		snprintf(out, len, "comm=%s", v);
		return 0;
	}
	if (!strncmp(m, "pid=", 4)) {
		char p[64];
		long pid;

		if (!n || strspn(v, "0123456789") != n || mmt_parse_long(v, 1, 4194304, &pid))
			return usage_err(verb, "pid '%.40s': want a process id", v);
		snprintf(p, sizeof(p), "/proc/%ld/status", pid);
		if (access(p, F_OK))
			return usage_err(verb, "pid %ld: no such process", pid);
		snprintf(out, len, "pid=%ld", pid);
		return 0;
	}
	if (!strncmp(m, "cgroup=", 7)) {
		const char *root = mmt_cgroup2_root(), *path = v;
		char dir[PATH_MAX + MATCH_LEN];
		size_t rl = root ? strlen(root) : 0;

		if (root && rl > 1 && !strncmp(v, root, rl) && (v[rl] == '/' || !v[rl]))
			path = v[rl] ? v + rl : "/";
		if (path[0] != '/' || strlen(path) >= 256 || strpbrk(path, " \t#"))
			return usage_err(verb, "cgroup '%.60s': want a cgroup v2 path like /system.slice/foo.service", v);
		if (root) {
			struct stat st;

			snprintf(dir, sizeof(dir), "%s%s", root, path);
			if (stat(dir, &st) || !S_ISDIR(st.st_mode))
				return usage_err(verb, "cgroup %.60s: no such cgroup (%.80s)", path, dir);
		}
		snprintf(out, len, "cgroup=%s", path);
		return 0;
	}
	return usage_err(verb, "'%.40s': want comm=NAME, pid=TGID or cgroup=PATH", m);
}

/*
 * Rules from the command line: words (split at blanks, so one quoted
 * argument per rule works as well as separate words); a comm=, pid= or
 * cgroup= word starts a rule, order=N belongs to the rule before it.
 * Returns the number of rules, or -(exit code).
 */
static int rules_from_args(const char *verb, int argc, char **argv, struct prule *out, int max)
{
	static int maxo = -1;	/* policy load asks once a line: info once */
	int n = 0, i, rc = 0;

	if (maxo < 0 && mmt_max_order(&maxo))
		maxo = 63;
	for (i = 0; i < argc && !rc; i++) {
		char *copy = strdup(argv[i]), *tok, *save = NULL;

		if (!copy)
			return -lib_fail(MMT_EIO);
		for (tok = strtok_r(copy, " \t\n", &save); tok && !rc; tok = strtok_r(NULL, " \t\n", &save)) {
			if (!strncmp(tok, "order=", 6)) {
				const char *o = tok + 6;
				long v;

				if (!n || out[n - 1].order[0])
					rc = usage_err(verb, "'%.40s' without a comm=, pid= or cgroup= before it", tok);
				else if (strcmp(o, "default") && mmt_parse_long(o, 0, maxo, &v))
					rc = usage_err(verb, "order '%.40s': want 0..%d or 'default'", o, maxo);
				else
					snprintf(out[n - 1].order, sizeof(out[n - 1].order), "%s", o);
			} else if (!strchr(tok, '=')) {
				rc = usage_err(verb, "'%.40s' is not KEY=VALUE", tok);
			} else if (n && !out[n - 1].order[0]) {
				rc = usage_err(verb, "rule '%.60s' has no order=N", out[n - 1].match);
			} else if (n == max) {
				rc = usage_err(verb, "more than %d rules", max);
			} else {
				memset(&out[n], 0, sizeof(out[n]));
				rc = check_match(verb, tok, out[n].match, sizeof(out[n].match));
				n++;
			}
		}
		free(copy);
	}
	if (rc)
		return -rc;
	if (n && !out[n - 1].order[0])
		return -usage_err(verb, "rule '%.60s' has no order=N", out[n - 1].match);
	return n;
}

/* Rules as the module reads them, one per line. */
static char *rules_text(const struct prule *r, int n)
{
	size_t len = 16, off = 0;
	char *t;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(r[i].match) + strlen(r[i].order) + 16;
	t = malloc(len);
	if (!t)
		return NULL;
	t[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(t + off, len - off, "%s order=%s\n", r[i].match, r[i].order);
	if (!n)
		snprintf(t, len, "clear\n");
	return t;
}

/* Replace the module's rules with r[0..n) ("clear" when n == 0). */
static int write_rules(const struct prule *r, int n)
{
	char *t = rules_text(r, n);
	int err;

	if (!t)
		return lib_fail(MMT_EIO);
	err = mmt_knob_write("policy", t);
	free(t);
	if (!err)
		return 0;
	switch (errno) {
	case EINVAL:
		fprintf(stderr, PROG ": the module rejected the rules (the kernel log says why)\n");
		return MMT_EXIT_USAGE;
	case ESRCH:
		fprintf(stderr, PROG ": a pid= rule names a process that is gone\n");
		return MMT_EXIT_USAGE;
	case ENOENT:
	case ENOTDIR:
		if (mmt_module_loaded()) {
			fprintf(stderr, PROG ": a cgroup= rule names a cgroup that does not exist\n");
			return MMT_EXIT_USAGE;
		}
		break;
	case EOPNOTSUPP:
		fprintf(stderr, PROG ": the module cannot change fault-around windows on this kernel (see the kernel log)\n");
		return MMT_EXIT_FAIL;
	}
	return lib_fail(err);
}

/* The current rules minus exited pid rules (they cannot be written back). */
static int live_rules(const struct pstate *ps, struct prule *out)
{
	int i, n = 0;

	for (i = 0; i < ps->nr; i++) {
		if (ps->r[i].exited) {
			fprintf(stderr, PROG ": note: dropping %s: its process has exited\n", ps->r[i].match);
			continue;
		}
		out[n++] = ps->r[i];
	}
	return n;
}

#define LOAD_MAX	65536	/* policy load: larger files are refused, not cut */

/*
 * The rules of a policy file ("-": stdin) as policy show or the module's
 * file print them: a rule per line, text after '#' and blank lines
 * ignored, "clear" alone for none.  Refused with a clear error, before
 * anything is written: a file over LOAD_MAX bytes or holding a NUL byte
 * (a prefix of it would pass for the whole), a bad rule, a line with more
 * or less than one rule.  Returns the number of rules or -(exit code).
 */
static int load_rules(const char *path, struct prule *out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *text = malloc(LOAD_MAX + 1), *line, *save = NULL;
	size_t got = 0, k;
	int n = 0, clear = 0, lineno = 0, rc = 0;

	if (!f || !text) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		free(text);
		return -MMT_EXIT_FAIL;
	}
	while (got <= LOAD_MAX && (k = fread(text + got, 1, LOAD_MAX + 1 - got, f)) > 0)
		got += k;
	if (ferror(f))
		rc = -(fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno)), MMT_EXIT_FAIL);
	else if (got > LOAD_MAX)
		rc = -usage_err("policy", "load: %.200s is larger than %d bytes: refused", path, LOAD_MAX);
	else if (memchr(text, '\0', got))
		rc = -usage_err("policy", "load: %.200s holds a NUL byte: not a policy file", path);
	if (f != stdin)
		fclose(f);
	text[got < LOAD_MAX ? got : LOAD_MAX] = '\0';
	for (line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *w = line;
		int m;

		lineno++;
		if (hash)
			*hash = '\0';
		w += strspn(w, " \t\r");
		if (!*w || strspn(w, " \t\r") == strlen(w))
			continue;
		if (!strncmp(w, "clear", 5) && strspn(w + 5, " \t\r") == strlen(w + 5)) {
			clear = 1;
			continue;
		}
		if (n == PRULES_MAX) {
			rc = -usage_err("policy", "load: %.200s: more than %d rules", path, PRULES_MAX);
			break;
		}
		m = rules_from_args("policy", 1, &w, out + n, PRULES_MAX - n);
		if (m != 1) {
			fprintf(stderr, PROG ": policy load: %.200s line %d: want one rule, MATCH order=N\n",
				path, lineno);
			rc = m < 0 ? m : -MMT_EXIT_USAGE;
			break;
		}
		n++;
	}
	free(text);
	if (!rc && clear && n)
		rc = -usage_err("policy", "load: %.200s: 'clear' must be alone", path);
	return rc ? rc : n;
}

static void print_ctr_json(const struct prule *r)
{
	if (r->has_hits)
		printf(",\"hits\":%llu", r->hits);
	else
		fputs(",\"hits\":null", stdout);
	if (r->has_pages)
		printf(",\"pages\":%llu", r->pages);
	else
		fputs(",\"pages\":null", stdout);
}

static void policy_show(const struct pstate *ps, int json)
{
	char num[32];
	int i, w = 4;

	if (json) {
		printf("{\"max_rules\":%d,\"kernel_order\":%d,\"default\":{\"order\":%d",
		       ps->max_rules, ps->kernel_order, ps->default_order);
		print_ctr_json(&ps->def);
		fputs("},\"rules\":[", stdout);
		for (i = 0; i < ps->nr; i++) {
			const struct prule *r = &ps->r[i];
			const char *eq = strchr(r->match, '=');

			printf("%s{\"match\":\"%.*s\",\"value\":", i ? "," : "", (int)(eq - r->match), r->match);
			mmt_json_str(stdout, eq + 1);
			fputs(",\"order\":", stdout);
			if (!strcmp(r->order, "default"))
				fputs("\"default\"", stdout);
			else
				fputs(r->order, stdout);
			print_ctr_json(r);
			printf(",\"exited\":%s}", r->exited ? "true" : "false");
		}
		fputs("]}\n", stdout);
		return;
	}
	/*
	 * Policy text: comments and "MATCH order=N # counters" lines, so that
	 * what show prints, policy load takes back unchanged.
	 */
	for (i = 0; i < ps->nr; i++)
		if ((int)strlen(ps->r[i].match) > w)
			w = (int)strlen(ps->r[i].match);
	printf("# rules %d of %d, first match wins; default order %d, kernel order %d\n",
	       ps->nr, ps->max_rules, ps->default_order, ps->kernel_order);
	printf("# %-*s %-13s %12s %12s\n", w - 2 > 0 ? w - 2 : 0, "rule", "order", "hits", "pages");
	for (i = 0; i < ps->nr; i++) {
		const struct prule *r = &ps->r[i];
		char o[32];

		snprintf(o, sizeof(o), "order=%s", r->order);
		printf("%-*s %-13s #", w, r->match, o);
		printf(" %10s", r->has_hits ? (snprintf(num, sizeof(num), "%llu", r->hits), num) : "-");
		printf(" %12s%s\n", r->has_pages ? (snprintf(num, sizeof(num), "%llu", r->pages), num) : "-",
		       r->exited ? " exited" : "");
	}
	if (ps->nr) {
		printf("# %-*s order=%-7d", w - 2 > 0 ? w - 2 : 0, "(no rule)", ps->default_order);
		printf(" %12s", ps->def.has_hits ? (snprintf(num, sizeof(num), "%llu", ps->def.hits), num) : "-");
		printf(" %12s\n", ps->def.has_pages ? (snprintf(num, sizeof(num), "%llu", ps->def.pages), num) : "-");
	}
}

static int cmd_policy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pstate *ps = NULL;
	struct prule *nr = NULL;
	const char *sub;
	int json = 0, c, n = 0, rc = 0, nargs;

	/* options anywhere (rule words never start with '-') */
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': printf("%s\n%s", find_verb("policy")->usage, find_verb("policy")->help); return 0;
		default: return bad_opt("policy", c, argv);
		}
	}
	nargs = argc - optind;
	sub = nargs ? argv[optind] : "show";
	if (strcmp(sub, "show") && strcmp(sub, "set") && strcmp(sub, "add") &&
	    strcmp(sub, "del") && strcmp(sub, "clear") && strcmp(sub, "load"))
		return usage_err("policy", "unknown subcommand '%.40s'", sub);
	if (json && strcmp(sub, "show"))
		return usage_err("policy", "--json is for show");
	if ((!strcmp(sub, "show") || !strcmp(sub, "clear")) && nargs > 1)
		return usage_err("policy", "%s: too many arguments", sub);
	if ((!strcmp(sub, "add") || !strcmp(sub, "del")) && nargs < 2)
		return usage_err("policy", "%s: missing RULE", sub);
	if (!strcmp(sub, "load") && nargs != 2)
		return usage_err("policy", nargs < 2 ? "load: missing FILE" : "load: too many arguments");

	ps = malloc(sizeof(*ps));
	nr = calloc(2 * PRULES_MAX, sizeof(*nr));
	if (!ps || !nr) {
		rc = lib_fail(MMT_EIO);
		goto out;
	}
	/* rules are checked before the module is asked anything */
	if (!strcmp(sub, "load")) {
		n = load_rules(argv[optind + 1], nr);
		if (n < 0) {
			rc = -n;
			goto out;
		}
	} else if (!strcmp(sub, "set") || !strcmp(sub, "add")) {
		n = rules_from_args("policy", nargs - 1, argv + optind + 1, nr, PRULES_MAX);
		if (n < 0) {
			rc = -n;
			goto out;
		}
	}
	rc = -read_policy(ps);
	if (rc)
		goto out;

	if (!strcmp(sub, "show")) {
		policy_show(ps, json);
	} else if (!strcmp(sub, "clear")) {
		rc = write_rules(NULL, 0);
	} else if (!strcmp(sub, "set")) {
		rc = write_rules(nr, n);
	} else if (!strcmp(sub, "add")) {
		/* after the rules already there: first match wins */
		struct prule *all = nr + PRULES_MAX;
		int m = live_rules(ps, all), i;

		if (m + n > ps->max_rules) {
			rc = usage_err("policy", "add: %d rules would exceed the module's %d", m + n, ps->max_rules);
			goto out;
		}
		for (i = 0; i < n; i++)
			all[m + i] = nr[i];
		rc = write_rules(all, m + n);
	} else if (!strcmp(sub, "del")) {
		struct prule *keep = nr + PRULES_MAX;
		int m = 0, i, j, found;

		for (j = optind + 1; j < argc; j++) {
			for (found = 0, i = 0; i < ps->nr; i++)
				found |= !strcmp(ps->r[i].match, argv[j]);
			if (!found) {
				rc = usage_err("policy", "del: no rule %.60s (see 'mmtunectl policy')", argv[j]);
				goto out;
			}
		}
		for (i = 0; i < ps->nr; i++) {
			for (found = 0, j = optind + 1; j < argc; j++)
				found |= !strcmp(ps->r[i].match, argv[j]);
			if (!found && !ps->r[i].exited)
				keep[m++] = ps->r[i];
		}
		rc = write_rules(keep, m);
	} else {	/* load: checked and read before anything is asked */
		if (n > ps->max_rules) {
			rc = usage_err("policy", "load: %d rules, the module takes at most %d", n, ps->max_rules);
			goto out;
		}
		rc = write_rules(nr, n);
	}
out:
	free(ps);
	free(nr);
	return rc;
}

/* ---- tune ---- */

#define TUNE_MAX_ORDERS	32
#define TUNE_MAX_REPEAT	100

static volatile sig_atomic_t tune_sig;

static void tune_on_signal(int sig)
{
	tune_sig = sig;
}

static double mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct tune_run {
	double wall, cpu, minflt;
};

struct tune_ctx {
	char **cmd;
	int errfd;		/* the command's stderr, kept for a failure */
	int devnull;
	int verbose;
	struct mmt_cg cg;	/* the command and all it starts run in it */
	char dropped[1024];	/* users' rules the module would not take back */
};

/* The last lines of the command's stderr, indented, on our stderr. */
static void show_stderr_tail(int fd)
{
	char buf[2048];
	off_t end = lseek(fd, 0, SEEK_END), from = end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, from);
	char *line, *save = NULL;

	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, PROG ":   | %s\n", line);
}

/* Wait for the child; forward a signal we got, kill it if it lingers. */
static int wait_child(pid_t pid, int *status, struct rusage *ru)
{
	double deadline = 0;
	int forwarded = 0;

	for (;;) {
		pid_t w = wait4(pid, status, tune_sig ? WNOHANG : 0, ru);

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (tune_sig && !forwarded) {
			kill(pid, tune_sig == SIGHUP ? SIGTERM : tune_sig);
			forwarded = 1;
			deadline = mono_now() + 5;
		}
		if (tune_sig && w == 0) {
			if (mono_now() > deadline) {
				kill(pid, SIGKILL);
				deadline = mono_now() + 60;
			}
			usleep(20000);
		}
	}
}

/*
 * Put tune's cgroup= rule first at @order (< 0: take it out), the user's
 * rules kept after it.  0, or an exit code after saying why.
 */
static int tune_rule(struct tune_ctx *t, int order)
{
	char dropped[sizeof(t->dropped)];
	int err = mmt_policy_own(t->cg.match, order, dropped, sizeof(dropped));
	int e = errno;

	if (dropped[0]) {
		fprintf(stderr, PROG ": the module no longer takes %s (process exited or cgroup removed): "
			"dropped from the policy\n", dropped);
		snprintf(t->dropped, sizeof(t->dropped), "%s", dropped);
	}
	if (!err)
		return 0;
	if ((e == ESRCH || e == ENOENT) && mmt_module_loaded()) {
		fprintf(stderr, PROG ": the module refuses the rules (%s) %s tune's %s\n", strerror(e),
			order < 0 ? "without" : "with", t->cg.match);
		return MMT_EXIT_FAIL;
	}
	return lib_fail(err);
}

/*
 * One run of the command at @order: fork, hold the child on a pipe until
 * it is in tune's cgroup and the cgroup's rule is at @order, then let it
 * exec.  Whatever it leaves running is killed afterwards.  0, or an exit
 * code after saying why.
 */
static int tune_once(struct tune_ctx *t, int order, struct tune_run *res)
{
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 }, status = 0, e, rc;
	struct rusage ru;
	double t0, t1;
	ssize_t n;
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return MMT_EXIT_FAIL;
	}
	if (ftruncate(t->errfd, 0) == 0)
		lseek(t->errfd, 0, SEEK_SET);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		close(go[1]);
		close(ex[0]);
		/* held here until the parent has written our rule */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (!t->verbose) {
			dup2(t->devnull, STDOUT_FILENO);
			dup2(t->errfd, STDERR_FILENO);
		}
		execvp(t->cmd[0], t->cmd);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	close(ex[1]);
	ex[1] = -1;

	rc = mmt_cg_enter(&t->cg, pid);
	rc = rc ? lib_fail(rc) : tune_rule(t, order);
	if (rc || tune_sig) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	t0 = mono_now();
	if (write(go[1], "g", 1) != 1) {
		fprintf(stderr, PROG ": cannot start the command: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	close(go[1]);
	go[1] = -1;
	do
		n = read(ex[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (wait_child(pid, &status, &ru)) {
		fprintf(stderr, PROG ": wait4: %s\n", strerror(errno));
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	t1 = mono_now();
	/* daemons and strays of this run must not run into the next one */
	if (mmt_cg_kill(&t->cg)) {
		rc = lib_fail(MMT_EIO);
		goto out;
	}
	if (n == (ssize_t)sizeof(e)) {
		fprintf(stderr, PROG ": cannot run %s: %s\n", t->cmd[0], strerror(e));
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	if (tune_sig) {
		rc = 0;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFEXITED(status))
			fprintf(stderr, PROG ": %s exited with status %d at order %d; its last words:\n",
				t->cmd[0], WEXITSTATUS(status), order);
		else
			fprintf(stderr, PROG ": %s was killed by signal %d at order %d; its last words:\n",
				t->cmd[0], WTERMSIG(status), order);
		show_stderr_tail(t->errfd);
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	res->wall = t1 - t0;
	res->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	res->minflt = (double)ru.ru_minflt;
	rc = 0;
out:
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (ex[0] >= 0)
		close(ex[0]);
	if (ex[1] >= 0)
		close(ex[1]);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile p of sorted s[0..n), linearly interpolated. */
static double quantile(const double *s, int n, double p)
{
	double x = (n - 1) * p;
	int i = (int)x;

	return i + 1 >= n ? s[n - 1] : s[i] + (x - i) * (s[i + 1] - s[i]);
}

/*
 * Median and spread of v[0..n): the interquartile range, so that one
 * run disturbed by something else on the machine does not hide a real
 * difference (with 3 runs it is half of max - min).
 */
static void med_spread(const double *v, int n, double *med, double *spread)
{
	double *s = malloc(sizeof(*s) * (size_t)n);

	if (!s || !n) {
		*med = *spread = 0;
		free(s);
		return;
	}
	memcpy(s, v, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	*med = quantile(s, n, 0.5);
	*spread = quantile(s, n, 0.75) - quantile(s, n, 0.25);
	free(s);
}

/* "0,2,4" or "0-9" pieces into o[] (sorted, unique); count or -(exit code). */
static int parse_orders(const char *s, int maxo, int *o)
{
	int seen[64] = { 0 }, n = 0, i;
	char *copy = strdup(s), *tok, *save = NULL;

	if (!copy)
		return -lib_fail(MMT_EIO);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		long a, b;

		if (dash)
			*dash = '\0';
		if (mmt_parse_long(tok, 0, maxo, &a) || (dash && mmt_parse_long(dash + 1, 0, maxo, &b)) ||
		    (dash && b < a)) {
			free(copy);
			return -usage_err("tune", "--orders '%.40s': want orders 0..%d like 0,2,4 or 0-%d",
					  s, maxo, maxo);
		}
		if (!dash)
			b = a;
		for (; a <= b; a++)
			seen[a] = 1;
	}
	free(copy);
	for (i = 0; i <= maxo && i < 64; i++)
		if (seen[i])
			o[n++] = i;
	if (!n)
		return -usage_err("tune", "--orders: empty list");
	return n;
}

/* The comm the kernel gives COMMAND: its file name, cut to 15 bytes. */
static void command_comm(const char *cmd, char *out, size_t len)
{
	const char *b = strrchr(cmd, '/');

	snprintf(out, len < 16 ? len : 16, "%s", b ? b + 1 : cmd);
}

/*
 * The order COMMAND gets today: that of the first rule that would match
 * it (comm, or a cgroup holding us, hence the child), else the default.
 */
static int current_order(const struct pstate *ps, const char *comm, int maxo, int defo)
{
	char cg[PATH_MAX + 8] = "", line[PATH_MAX + 8];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int i;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			snprintf(cg, sizeof(cg), "%s", line + 3);
			cg[strcspn(cg, "\n")] = '\0';
		}
	if (f)
		fclose(f);
	for (i = 0; i < ps->nr; i++) {
		const struct prule *r = &ps->r[i];
		int hit = 0;

		if (!strncmp(r->match, "comm=", 5))
			hit = !strcmp(r->match + 5, comm);
		else if (!strncmp(r->match, "cgroup=", 7) && cg[0]) {
			const char *p = r->match + 7;
			size_t l = strlen(p);

			hit = !strcmp(p, "/") || (!strncmp(cg, p, l) && (cg[l] == '/' || !cg[l]));
		}
		if (hit) {
			long v;

			if (!strcmp(r->order, "default"))
				return defo;
			return mmt_parse_long(r->order, 0, maxo, &v) ? ps->default_order : (int)v;
		}
	}
	return ps->default_order;
}

static void print_cmd(FILE *f, char **cmd)
{
	int i;

	for (i = 0; cmd[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd[i]);
}

/*
 * Shells and interpreters: their name is that of every script they run,
 * so --apply installs comm= for them only when the user names it.
 */
static int is_interpreter(const char *comm)
{
	static const char *const exact[] = {
		"sh", "ash", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox",
		"env", "nice", "time", "timeout", "xargs", "make", "node", "nodejs", "java",
		"Rscript", NULL,
	};
	static const char *const prefix[] = {
		"python", "perl", "ruby", "php", "lua", "tclsh", "pypy", "guile", NULL,
	};
	int i;

	for (i = 0; exact[i]; i++)
		if (!strcmp(comm, exact[i]))
			return 1;
	for (i = 0; prefix[i]; i++)
		if (!strncmp(comm, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/*
 * Take tune's rule out and remove its cgroup, whatever happened: 0, or
 * an exit code after saying why (the policy is not as it was found).
 */
static int tune_cleanup(struct tune_ctx *t)
{
	int rc = 0, err;

	if (t->cg.made) {
		rc = tune_rule(t, -1);
		if (rc)
			fprintf(stderr, PROG ": tune's rule may be left: remove it with "
				"'" PROG " policy del %s'\n", t->cg.match);
		err = mmt_cg_remove(&t->cg);
		if (err && !rc)
			rc = lib_fail(err);
	}
	if (!rc && t->dropped[0]) {
		fprintf(stderr, PROG ": the policy is not as it was: %s dropped\n", t->dropped);
		rc = MMT_EXIT_FAIL;
	}
	return rc;
}

/* ---- save ---- */

/*
 * Replace path with text atomically (a temporary file renamed over it);
 * what was there, if different, stays as path.bak.  text NULL: the file
 * goes (kept as path.bak).  0, or an exit code after saying why.
 */
static int save_file(const char *path, const char *text)
{
	char tmp[PATH_MAX], bak[PATH_MAX], old[8192];
	int fd = -1, have_old;
	long n = -1;
	FILE *f;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp) ||
	    (size_t)snprintf(bak, sizeof(bak), "%s.bak", path) >= sizeof(bak))
		return usage_err("save", "path too long: %.80s", path);
	f = fopen(path, "r");
	have_old = f != NULL;
	if (f) {
		n = (long)fread(old, 1, sizeof(old) - 1, f);
		old[n] = '\0';
		fclose(f);
	}
	if (text && have_old && !strcmp(old, text))
		return 0;	/* already saved */
	if (have_old && (link(path, bak) && (errno != EEXIST ||
	    rename(path, bak) || link(bak, path)))) {
		fprintf(stderr, PROG ": save: cannot keep %s as %s: %s\n", path, bak, strerror(errno));
		return MMT_EXIT_FAIL;
	}
	if (!text) {
		if (have_old && unlink(path)) {
			fprintf(stderr, PROG ": save: %s: %s\n", path, strerror(errno));
			return MMT_EXIT_FAIL;
		}
		return 0;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fsync(fd) || close(fd) || rename(tmp, path)) {
		fprintf(stderr, PROG ": save: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return MMT_EXIT_FAIL;
	}
	return 0;
}

/* A parameter's value, trailing newline dropped, into v ("" if unknown). */
static void param_value(const char *knob, char *v, size_t n)
{
	size_t l;

	if (mmt_knob_read(knob, v, n)) {
		v[0] = '\0';
		return;
	}
	l = strlen(v);
	while (l && (v[l - 1] == '\n' || v[l - 1] == ' '))
		v[--l] = '\0';
}

/* Append to a fixed buffer; 0, or -1 once it would overflow. */
static int __attribute__((format(printf, 3, 4))) cat_text(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

static int cmd_save(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "stdout", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char conf[4096], pol[LOAD_MAX];
	char v[64], path[PATH_MAX], opt[256] = "";
	const char *root = "";
	struct pstate *ps = NULL;
	int c, i, err, order, via, to_stdout = 0, rc = 0, skipped = 0;

	while ((c = getopt_long(argc, argv, "+:r:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'r': root = optarg; break;
		case 's': to_stdout = 1; break;
		case 'h': printf("%s\n%s", find_verb("save")->usage, find_verb("save")->help); return 0;
		default: return bad_opt("save", c, argv);
		}
	}
	if (optind != argc)
		return usage_err("save", "unexpected argument '%s'", argv[optind]);
	if (!mmt_module_loaded()) {
		fprintf(stderr, PROG ": save: mmtune module is not loaded: nothing to save\n");
		return MMT_EXIT_FAIL;
	}
	err = mmt_order_get(&order, &via);
	if (err)
		return lib_fail(err);
	/* the options modprobe gives the module: what differs from a plain load */
	snprintf(opt, sizeof(opt), " fault_around_order=%d", order);
	param_value("stats_enable", v, sizeof(v));
	if (!strcmp(v, "1"))
		strcat(opt, " stats_enable=1");
	param_value("latency_enable", v, sizeof(v));
	if (!strcmp(v, "0"))
		strcat(opt, " latency_enable=0");
	param_value("pfn_valid/mode", v, sizeof(v));
	if (v[0] && strcmp(v, "off") && strspn(v, "abcdefghijklmnopqrstuvwxyz") == strlen(v))
		cat_text(opt, sizeof(opt), " pfn_valid_mode=%s", v);
	conf[0] = '\0';
	cat_text(conf, sizeof(conf),
		 "# /etc/modprobe.d/mmtune.conf: written by 'mmtunectl save' (the previous\n"
		 "# file, if any, is mmtune.conf.bak). Options modprobe gives mmtune at\n"
		 "# every load (README.md, \"Settings that survive a reboot\").\n"
		 "options mmtune%s\n", opt);

	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return lib_fail(MMT_EIO);
	pol[0] = '\0';
	if (read_policy(ps) == 0 && ps->nr) {
		cat_text(pol, sizeof(pol),
			 "# /etc/mmtune/policy: written by 'mmtunectl save'; loaded at boot by\n"
			 "# mmtune.service ('mmtunectl policy load'). One rule a line, first match wins.\n");
		for (i = 0; i < ps->nr; i++) {
			/* a process number means nothing after a reboot */
			if (!strncmp(ps->r[i].match, "pid=", 4)) {
				skipped++;
				continue;
			}
			if (cat_text(pol, sizeof(pol), "%s order=%s\n", ps->r[i].match, ps->r[i].order)) {
				free(ps);
				fprintf(stderr, PROG ": save: the policy does not fit %d bytes\n", LOAD_MAX);
				return MMT_EXIT_FAIL;
			}
		}
		if (skipped == ps->nr)
			pol[0] = '\0';
	}
	free(ps);
	if (skipped)
		fprintf(stderr, PROG ": note: save: %d pid= rule(s) left out (a process does not survive a reboot)\n",
			skipped);
	if (to_stdout) {
		fputs(conf, stdout);
		fputs(pol[0] ? pol : "# no policy rules: no /etc/mmtune/policy\n", stdout);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/etc/modprobe.d/mmtune.conf", root);
	rc = save_file(path, conf);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/etc/mmtune", root);
	if (pol[0] && mkdir(path, 0755) && errno != EEXIST) {
		fprintf(stderr, PROG ": save: %s: %s\n", path, strerror(errno));
		return MMT_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/etc/mmtune/policy", root);
	return save_file(path, pol[0] ? pol : NULL);
}

static int cmd_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "orders", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "apply", no_argument, NULL, 'a' },
		{ "apply-comm", required_argument, NULL, 'A' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int orders[TUNE_MAX_ORDERS + 1], norders = 0, apply = 0, json = 0, c, i, k, r, maxo, defo, cur, rc = 0;
	char rec[256], applied[64] = "", apply_match[MATCH_LEN] = "";
	int best = -1, best_i = -1, cur_i = -1, done = 0, restored_rc;
	long repeat = 5;
	const char *orders_arg = NULL, *apply_comm = NULL;
	struct tune_ctx t = { .errfd = -1, .devnull = -1 };
	struct tune_run *runs = NULL;
	struct pstate *ps = NULL;
	struct sigaction sa, old_int, old_term, old_hup;
	char comm[16];
	double med[TUNE_MAX_ORDERS + 1][3], spr[TUNE_MAX_ORDERS + 1][3];

	while ((c = getopt_long(argc, argv, "+:o:r:avjh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': orders_arg = optarg; break;
		case 'r':
			if (mmt_parse_long(optarg, 1, TUNE_MAX_REPEAT, &repeat))
				return usage_err("tune", "--repeat: '%.40s' is not a count 1..%d", optarg,
						 TUNE_MAX_REPEAT);
			break;
		case 'a': apply = 1; break;
		case 'A': apply = 1; apply_comm = optarg; break;
		case 'v': t.verbose = 1; break;
		case 'j': json = 1; break;
		case 'h': printf("%s\n%s", find_verb("tune")->usage, find_verb("tune")->help); return 0;
		default: return bad_opt("tune", c, argv);
		}
	}
	if (optind >= argc)
		return usage_err("tune", "missing COMMAND (mmtunectl tune [options] -- COMMAND [ARGS])");
	t.cmd = argv + optind;
	command_comm(t.cmd[0], comm, sizeof(comm));
	if (apply_comm) {
		char m[MATCH_LEN];

		snprintf(m, sizeof(m), "comm=%.200s", apply_comm);
		rc = check_match("tune", m, apply_match, sizeof(apply_match));
		if (rc)
			return rc;
	} else if (apply && is_interpreter(comm)) {
		return usage_err("tune", "--apply: '%s' runs other programs, and comm=%s would match every "
				 "one on the machine: name the program with --apply-comm NAME", comm, comm);
	} else if (apply) {
		snprintf(apply_match, sizeof(apply_match), "comm=%s", comm);
	}
	/* bounds from the module's info, checked before anything is written */
	if (mmt_max_order(&maxo))
		return lib_fail(MMT_EIO);
	if (maxo < 0 || maxo > 63)
		maxo = 63;
	if (orders_arg) {
		norders = parse_orders(orders_arg, maxo, orders);
		if (norders < 0)
			return -norders;
		if (norders > TUNE_MAX_ORDERS)
			return usage_err("tune", "--orders: at most %d orders", TUNE_MAX_ORDERS);
	}

	ps = malloc(sizeof(*ps));
	if (!ps) {
		rc = lib_fail(MMT_EIO);
		goto out;
	}
	rc = -read_policy(ps);
	if (rc)
		goto out;
	if (ps->nr + 1 > ps->max_rules) {
		fprintf(stderr, PROG ": tune needs room for one more rule (%d of %d in use)\n",
			ps->nr, ps->max_rules);
		rc = MMT_EXIT_FAIL;
		goto out;
	}
	if (mmt_default_order(&defo))
		defo = ps->default_order;
	cur = current_order(ps, comm, maxo, defo);
	if (!orders_arg)
		for (i = 0; i <= maxo && norders < TUNE_MAX_ORDERS; i++)
			orders[norders++] = i;
	for (i = 0; i < norders && orders[i] != cur; i++)
		;
	if (i == norders && cur >= 0) {
		/* the order the command gets now is the baseline: always measured */
		for (i = norders; i > 0 && orders[i - 1] > cur; i--)
			orders[i] = orders[i - 1];
		orders[i] = cur;
		norders++;
	}
	for (i = 0; i < norders; i++)
		if (orders[i] == cur)
			cur_i = i;

	runs = calloc((size_t)norders * (size_t)repeat, sizeof(*runs));
	t.devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	{
		char tmpl[] = "/tmp/mmtunectl-tune.XXXXXX";

		t.errfd = mkostemp(tmpl, O_CLOEXEC);
		if (t.errfd >= 0)
			unlink(tmpl);
	}
	if (!runs || t.devnull < 0 || t.errfd < 0) {
		fprintf(stderr, PROG ": cannot set up: %s\n", strerror(errno));
		rc = MMT_EXIT_FAIL;
		goto out;
	}

	/* before the cgroup exists: a signal from here on ends in the cleanup */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tune_on_signal;	/* no SA_RESTART: waits must end */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);

	rc = mmt_cg_create(&t.cg, "tune");
	if (rc)
		rc = lib_fail(rc);
	else {
		fprintf(stderr, PROG ": tune: %d orders x %ld runs of '", norders, repeat);
		print_cmd(stderr, t.cmd);
		fprintf(stderr, "' (cgroup %s: the command and all it starts)\n", t.cg.path);
	}
	/* interleaved: every round runs each order once, from a rotating start */
	for (r = 0; r < repeat && !rc && !tune_sig; r++) {
		for (k = 0; k < norders && !rc && !tune_sig; k++) {
			i = (k + r) % norders;
			if (isatty(STDERR_FILENO))
				fprintf(stderr, "\r" PROG ": run %d/%ld at order %d ", done + 1,
					(long)norders * repeat, orders[i]);
			rc = tune_once(&t, orders[i], &runs[(size_t)i * (size_t)repeat + (size_t)r]);
			if (!rc && !tune_sig)
				done++;
		}
	}
	if (isatty(STDERR_FILENO) && done)
		fputc('\n', stderr);

	/* the user's rules back, whatever happened; tune's cgroup gone */
	restored_rc = tune_cleanup(&t);
	if (!restored_rc && tune_sig)
		fprintf(stderr, PROG ": interrupted: policy restored\n");
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (tune_sig) {
		rc = restored_rc ? restored_rc : 128 + tune_sig;
		goto out;
	}
	if (rc || restored_rc) {
		rc = rc ? rc : restored_rc;
		goto out;
	}

	/* the table: medians and spreads (max - min) over the runs */
	for (i = 0; i < norders; i++) {
		double v[3][TUNE_MAX_REPEAT];

		for (r = 0; r < repeat; r++) {
			const struct tune_run *x = &runs[(size_t)i * (size_t)repeat + (size_t)r];

			v[0][r] = x->wall;
			v[1][r] = x->cpu;
			v[2][r] = x->minflt;
		}
		for (k = 0; k < 3; k++)
			med_spread(v[k], (int)repeat, &med[i][k], &spr[i][k]);
		if (best_i < 0 || med[i][0] < med[best_i][0])
			best_i = i;
	}
	if (cur_i >= 0 && best_i != cur_i && repeat >= 2 &&
	    med[cur_i][0] - med[best_i][0] > (spr[cur_i][0] > spr[best_i][0] ? spr[cur_i][0] : spr[best_i][0])) {
		best = orders[best_i];
		snprintf(rec, sizeof(rec),
			 "order %d (wall %.3f s vs %.3f s at order %d, %+.0f%%; minor faults %.0f vs %.0f)",
			 best, med[best_i][0], med[cur_i][0], cur,
			 100 * (med[best_i][0] - med[cur_i][0]) / med[cur_i][0], med[best_i][2], med[cur_i][2]);
	} else if (repeat < 2) {
		snprintf(rec, sizeof(rec),
			 "no significant difference (one run per order has no spread: use --repeat 5)");
	} else if (best_i == cur_i) {
		snprintf(rec, sizeof(rec), "no significant difference (the order now, %d, is the fastest)", cur);
	} else {
		snprintf(rec, sizeof(rec),
			 "no significant difference (the fastest, order %d, is within the spread of order %d)",
			 orders[best_i], cur);
	}

	if (apply && best >= 0) {
		/* first, before the rules there now; one for the same name replaced */
		struct prule *all = calloc(PRULES_MAX + 1, sizeof(*all));
		int m = 1;

		rc = all ? -read_policy(ps) : lib_fail(MMT_EIO);
		if (rc) {
			free(all);
			goto out;
		}
		snprintf(all[0].match, sizeof(all[0].match), "%s", apply_match);
		snprintf(all[0].order, sizeof(all[0].order), "%d", best);
		for (i = 0; i < ps->nr && m < PRULES_MAX; i++)
			if (strcmp(ps->r[i].match, all[0].match))
				all[m++] = ps->r[i];
		rc = write_rules(all, m);
		if (!rc)
			snprintf(applied, sizeof(applied), "%s order=%d", apply_match, best);
		free(all);
	} else if (apply) {
		fprintf(stderr, PROG ": --apply: nothing to apply\n");
	}

	if (json) {
		printf("{\"command\":[");
		for (i = 0; t.cmd[i]; i++) {
			printf(i ? "," : "");
			mmt_json_str(stdout, t.cmd[i]);
		}
		printf("],\"repeat\":%ld,\"current_order\":%d,\"orders\":[", repeat, cur);
		for (i = 0; i < norders; i++)
			printf("%s{\"order\":%d,\"current\":%s,\"wall_s\":%.6f,\"wall_s_spread\":%.6f,"
			       "\"cpu_s\":%.6f,\"cpu_s_spread\":%.6f,\"minor_faults\":%.0f,"
			       "\"minor_faults_spread\":%.0f}",
			       i ? "," : "", orders[i], i == cur_i ? "true" : "false", med[i][0], spr[i][0],
			       med[i][1], spr[i][1], med[i][2], spr[i][2]);
		printf("],\"recommended_order\":");
		if (best >= 0)
			printf("%d", best);
		else
			printf("null");
		printf(",\"recommendation\":");
		mmt_json_str(stdout, rec);
		printf(",\"applied\":");
		if (applied[0])
			mmt_json_str(stdout, applied);
		else
			printf("null");
		printf("}\n");
	} else {
		printf("tune: ");
		print_cmd(stdout, t.cmd);
		printf("\n%ld runs per order, interleaved; medians, spread = interquartile range;\n"
		       "* = the order the command gets now\n", repeat);
		printf("%-6s %9s %8s %9s %8s %12s %8s\n", "order", "wall_s", "spread", "cpu_s", "spread",
		       "minor_faults", "spread");
		for (i = 0; i < norders; i++) {
			char o[16];

			snprintf(o, sizeof(o), "%d%s", orders[i], i == cur_i ? "*" : "");
			printf("%-6s %9.3f %8.3f %9.3f %8.3f %12.0f %8.0f\n", o, med[i][0], spr[i][0],
			       med[i][1], spr[i][1], med[i][2], spr[i][2]);
		}
		printf("recommendation: %s\n", rec);
		if (applied[0])
			printf("applied: %s\n", applied);
	}
	fflush(stdout);
out:
	if (t.errfd >= 0)
		close(t.errfd);
	if (t.devnull >= 0)
		close(t.devnull);
	free(runs);
	free(ps);
	return rc;
}

/* ---- run ---- */

/* The counters of rule match, read before the rule goes: 0 if found. */
static int rule_ctrs(const char *match, struct prule *out)
{
	struct pstate *ps = malloc(sizeof(*ps));
	int i, rc = -1;

	if (ps && !read_policy(ps))
		for (i = 0; i < ps->nr && rc; i++)
			if (!strcmp(ps->r[i].match, match)) {
				*out = ps->r[i];
				rc = 0;
			}
	free(ps);
	return rc;
}

static void run_stats(const struct tune_ctx *t, int order, const struct rusage *ru, double wall)
{
	struct prule r;
	char h[32] = "-", p[32] = "-";

	if (!rule_ctrs(t->cg.match, &r)) {
		if (r.has_hits)
			snprintf(h, sizeof(h), "%llu", r.hits);
		if (r.has_pages)
			snprintf(p, sizeof(p), "%llu", r.pages);
	}
	fprintf(stderr, PROG ": run: order %d: wall_s %.3f cpu_s %.3f minor_faults %ld major_faults %ld "
		"fault_around_calls %s pages %s\n", order, wall,
		(double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
		(double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6,
		ru->ru_minflt, ru->ru_majflt, h, p);
}

/*
 * Fork COMMAND held on a pipe, move it into the cgroup, put the rule in,
 * let it exec, wait.  *status: its wait status.  0, or an exit code.
 */
static int run_child(struct tune_ctx *t, int order, int *status, struct rusage *ru, double *wall)
{
	int go[2], ex[2], e = 0, rc;
	double t0;
	ssize_t n;
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC))
		return fprintf(stderr, PROG ": pipe: %s\n", strerror(errno)), MMT_EXIT_FAIL;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return fprintf(stderr, PROG ": pipe: %s\n", strerror(errno)), MMT_EXIT_FAIL;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(t->cmd[0], t->cmd);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		close(go[1]);
		close(ex[0]);
		return MMT_EXIT_FAIL;
	}
	rc = mmt_cg_enter(&t->cg, pid);
	rc = rc ? lib_fail(rc) : tune_rule(t, order);
	if (!rc && !tune_sig && write(go[1], "g", 1) != 1)
		rc = (fprintf(stderr, PROG ": cannot start the command: %s\n", strerror(errno)), MMT_EXIT_FAIL);
	close(go[1]);
	t0 = mono_now();
	do
		n = read(ex[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ex[0]);
	if (wait_child(pid, status, ru))
		return fprintf(stderr, PROG ": wait4: %s\n", strerror(errno)), MMT_EXIT_FAIL;
	*wall = mono_now() - t0;
	if (!rc && n == (ssize_t)sizeof(e)) {
		fprintf(stderr, PROG ": cannot run %s: %s\n", t->cmd[0], strerror(e));
		rc = e == ENOENT ? 127 : 126;
	}
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "order", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tune_ctx t = { .errfd = -1, .devnull = -1 };
	struct sigaction sa, old_int, old_term, old_hup;
	struct pstate *ps = NULL;
	struct rusage ru;
	int c, maxo, order = -1, stats = 0, rc, crc, status = 0;
	const char *order_arg = NULL;
	double wall = 0;
	long v;

	while ((c = getopt_long(argc, argv, "+:o:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': order_arg = optarg; break;
		case 's': stats = 1; break;
		case 'h': printf("%s\n%s", find_verb("run")->usage, find_verb("run")->help); return 0;
		default: return bad_opt("run", c, argv);
		}
	}
	if (optind >= argc)
		return usage_err("run", "missing COMMAND (mmtunectl run [--order N] -- COMMAND [ARGS])");
	t.cmd = argv + optind;
	if (mmt_max_order(&maxo))
		return lib_fail(MMT_EIO);
	if (order_arg && mmt_parse_long(order_arg, 0, maxo, &v))
		return usage_err("run", "--order '%.40s': want 0..%d", order_arg, maxo);
	ps = malloc(sizeof(*ps));
	rc = ps ? -read_policy(ps) : lib_fail(MMT_EIO);
	if (!rc && ps->nr + 1 > ps->max_rules) {
		fprintf(stderr, PROG ": run needs room for one more rule (%d of %d in use)\n", ps->nr,
			ps->max_rules);
		rc = MMT_EXIT_FAIL;
	}
	/* no --order: the order processes without a rule get */
	order = order_arg ? (int)v : (ps ? ps->default_order : -1);
	free(ps);
	if (rc)
		return rc;
	if (order < 0)
		return fprintf(stderr, PROG ": run: cannot tell the default order\n"), MMT_EXIT_FAIL;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tune_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	rc = mmt_cg_create(&t.cg, "run");
	rc = rc ? lib_fail(rc) : run_child(&t, order, &status, &ru, &wall);
	if (stats && !rc)
		run_stats(&t, order, &ru, wall);
	crc = tune_cleanup(&t);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (rc || crc)
		return rc ? rc : crc;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ---- help and main ---- */

static int cmd_help(int argc, char **argv);

static const struct verb verbs[] = {
	{ "status", cmd_status, "usage: " PROG " status [--json]",
	  "Show whether the mmtune module is loaded, the arch, the current\n"
	  "fault-around order and size, and whether the counters are on.\n"
	  "  --json   one JSON object (the module's info under \"info\")\n" },
	{ "get", cmd_get, "usage: " PROG " get KNOB",
	  "Print the value of KNOB, a file of <debugfs>/mmtune/: fault_around_order,\n"
	  "info, stats, stats_enable, latency_enable, latency, pfn_valid/bench,\n"
	  "pfn_valid/mode.  Without the module, fault_around_order is read from the\n"
	  "kernel's own <debugfs>/fault_around_bytes (a note on stderr).\n" },
	{ "set", cmd_set, "usage: " PROG " set KNOB VALUE",
	  "Write VALUE to KNOB.  Values are checked before anything is written:\n"
	  "  fault_around_order  0..max_order (see status) or 'default'\n"
	  "  stats_enable        0 or 1 (latency_enable too)\n"
	  "  stats               0 (reset every counter and the latency histogram)\n"
	  "  pfn_valid/bench     'COUNT PATTERN': COUNT 1..16777216, seq|rand|holes\n"
	  "  pfn_valid/mode      off or a strategy of info's pfn_valid_impls\n"
	  "Without the module, fault_around_order is written to the kernel's own\n"
	  "<debugfs>/fault_around_bytes as page_size << VALUE (a note on stderr).\n" },
	{ "stats", cmd_stats, "usage: " PROG " stats [--json | --prometheus] [--reset] [--watch SECONDS [--count N]]",
	  "Print the module's counters, one 'name value' per line.\n"
	  "  --json             one JSON object; 'unavailable' counters are null\n"
	  "  --prometheus       Prometheus text format (mmtune_NAME_total, HELP and\n"
	  "                     TYPE lines) for node_exporter's textfile collector\n"
	  "  --reset            zero every counter first (alone: just reset)\n"
	  "  --watch SECONDS    print per-interval deltas: a header line, then one\n"
	  "                     line per interval (with --json one object per line);\n"
	  "                     Ctrl-C stops\n"
	  "  --count N          stop after N intervals\n" },
	{ "pfn_valid", cmd_pfn_valid,
	  "usage: " PROG " pfn_valid [--json] [show | bench COUNT [seq|rand|holes] | mode [STRATEGY|off]]",
	  "The module's pfn_valid() strategies (<debugfs>/mmtune/pfn_valid/).\n"
	  "  show (default)   info's pfn_valid lines, the override's mode, the last bench\n"
	  "  bench COUNT [P]  time every strategy over COUNT (1..16777216) pfns in\n"
	  "                   pattern P (seq, the default, rand or holes), cross-checking\n"
	  "                   each against the stock one; prints the result table\n"
	  "  mode             print the strategy pfn_to_online_page() uses, or off\n"
	  "  mode STRATEGY    install the override with STRATEGY (one of info's\n"
	  "                   pfn_valid_impls; refused unless every cross-check agreed),\n"
	  "                   or off to remove it\n"
	  "  --json           show and bench: the bench result as one JSON object\n" },
	{ "policy", cmd_policy,
	  "usage: " PROG " policy [--json] [show | set RULE... | add RULE... | del MATCH... | clear | load FILE]",
	  "Per-process fault-around orders (<debugfs>/mmtune/policy).  A RULE is\n"
	  "MATCH order=N, first match wins; MATCH is one of\n"
	  "  comm=NAME        the task's command name (1..15 bytes, as in ps -o comm)\n"
	  "  pid=TGID         that process (all its threads)\n"
	  "  cgroup=PATH      the tasks of a cgroup v2 and of the cgroups below it\n"
	  "                   (/system.slice/x.service or /sys/fs/cgroup/system.slice/...)\n"
	  "N is 0..max_order or 'default'.  Faults no rule matches keep the order\n"
	  "that was in force (the default order); order 0 turns fault-around off.\n"
	  "  show (default)   the rules with their hits and pages mapped\n"
	  "  set RULE...      replace every rule\n"
	  "  add RULE...      append rules after those there\n"
	  "  del MATCH...     remove the rules with these matches (e.g. comm=foo)\n"
	  "  clear            remove every rule\n"
	  "  load FILE        write FILE's rules ('-': standard input): a rule a line,\n"
	  "                   text after '#' ignored, as 'policy show' and 'get\n"
	  "                   policy' print them; refused whole (exit 2): over 64 KiB,\n"
	  "                   a NUL byte, a bad line\n"
	  "  --json           show: one JSON object\n"
	  "Rules are checked before anything is written; a write is all or nothing.\n" },
	{ "tune", cmd_tune,
	  "usage: " PROG " tune [--orders LIST] [--repeat N] [--apply | --apply-comm NAME] [--verbose] [--json] -- COMMAND [ARGS]",
	  "Run COMMAND once per order per round, rounds interleaved, each run in a\n"
	  "cgroup v2 of tune's own (<cgroup2>/mmtune-tune.PID) under a cgroup= rule\n"
	  "put before the rules there: COMMAND and every process it starts get the\n"
	  "order, the rest of the machine keeps its own.  Per order it prints the\n"
	  "median and spread (interquartile range) of wall time, CPU time and minor\n"
	  "faults (of COMMAND and the children it waited for).\n"
	  "It recommends an order only if its median wall time beats the order the\n"
	  "command gets now by more than the spread of either, otherwise it says\n"
	  "'no significant difference'.  Processes left in the cgroup after a run\n"
	  "are killed.  At the end, also on SIGINT, SIGTERM and SIGHUP (exit 128 +\n"
	  "the signal), tune's rule is taken out, the user's rules are left as\n"
	  "found and the cgroup is removed; if the module will not take a user's\n"
	  "rule back (its process exited, its cgroup was removed) tune says so and\n"
	  "exits 1.  Needs cgroup2 mounted.\n"
	  "  --orders LIST    orders to try, 0..max_order, e.g. 0,2,4,9 or 0-9\n"
	  "                   (default: all); the order the command gets now is\n"
	  "                   always added\n"
	  "  --repeat N       rounds (1..100, default 5)\n"
	  "  --apply          install 'comm=NAME order=N' for the recommendation,\n"
	  "                   NAME being COMMAND's; refused for shells, interpreters\n"
	  "                   and launchers (sh bash dash zsh ksh ... python* perl*\n"
	  "                   ruby* node make env ...), whose name every script shares\n"
	  "  --apply-comm NAME  the same for the program named NAME (e.g. cc1)\n"
	  "  --verbose        let COMMAND's output through (default: stdout dropped,\n"
	  "                   stderr shown only if it fails)\n"
	  "  --json           one JSON object: the command, per order medians and\n"
	  "                   spreads, recommended_order (null: none) and applied\n" },
	{ "save", cmd_save,
	  "usage: " PROG " save [--root DIR] [--stdout]",
	  "Write the settings in force in the form the boot applies (README.md,\n"
	  "\"Settings that survive a reboot\"): /etc/modprobe.d/mmtune.conf gets\n"
	  "'options mmtune fault_around_order=N' (and stats_enable=1,\n"
	  "latency_enable=0, pfn_valid_mode=S when so), /etc/mmtune/policy the rules\n"
	  "(pid= rules left out: a process does not survive a reboot; no rules: the\n"
	  "file goes, so mmtune.service does nothing).  Each file is replaced whole;\n"
	  "what was there stays as FILE.bak.\n"
	  "  --root DIR       write under DIR instead of /\n"
	  "  --stdout         print both files instead of writing them\n" },
	{ "run", cmd_run,
	  "usage: " PROG " run [--order N] [--stats] -- COMMAND [ARGS]",
	  "Run COMMAND, and every process it starts, at fault-around order N: in a\n"
	  "cgroup v2 of its own (<cgroup2>/mmtune-run.PID) under a cgroup= rule put\n"
	  "before the rules there; the rest of the machine keeps its order.  At the\n"
	  "end, also on SIGINT, SIGTERM and SIGHUP (passed on), the rule is taken\n"
	  "out, what COMMAND left running is killed and the cgroup removed.  Exit\n"
	  "status: COMMAND's (128 + the signal that killed it); 1 or 2 if run\n"
	  "itself could not, or could not leave the policy as found.  Needs cgroup2.\n"
	  "  --order N        0..max_order (default: the order processes without a\n"
	  "                   rule get)\n"
	  "  --stats          on stderr at the end: wall and CPU seconds, minor and\n"
	  "                   major faults (COMMAND and the children it waited for),\n"
	  "                   the rule's fault-around calls and pages ('-': not\n"
	  "                   counted, stats_enable 0)\n" },
	{ "help", cmd_help, "usage: " PROG " help [VERB]", "Show help for " PROG " or for VERB.\n" },
};

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

static void main_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: " PROG " [--help] [--version] VERB [ARGS]\n\n"
		"Control mmtune, the kernel's page-fault fault-around order at run time.\n\n"
		"verbs:\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %s\n", verbs[i].usage + strlen("usage: " PROG " "));
	fprintf(f, "\n'" PROG " VERB --help' for a verb's options.  Exit status: 0 done;\n"
		"1 could not (module not loaded, not root, debugfs not mounted);\n"
		"2 bad usage or value out of range.  See mmtunectl(8).\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct verb *v;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("%s\n%s", find_verb("help")->usage, find_verb("help")->help);
		return 0;
	}
	if (argc < 2) {
		main_help(stdout);
		return 0;
	}
	if (argc > 2)
		return usage_err("help", "too many arguments");
	v = find_verb(argv[1]);
	if (!v)
		return usage_err(NULL, "unknown verb '%.40s'", argv[1]);
	printf("%s\n%s", v->usage, v->help);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct verb *v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			main_help(stdout);
			return 0;
		case 'V':
			printf(PROG " " MMT_VERSION "\n");
			return 0;
		default:
			return bad_opt(NULL, c, argv);
		}
	}
	if (optind >= argc)
		return usage_err(NULL, "missing verb");
	v = find_verb(argv[optind]);
	if (!v)
		return usage_err(NULL, "unknown verb '%.40s'", argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0;	/* glibc: full reinitialisation for the verb's options */
	return v->run(argc, argv);
}
