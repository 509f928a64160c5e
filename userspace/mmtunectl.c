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
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "mmtune.h"

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

static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "reset", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, reset = 0, c, n, i, err, sen, rc = 0;
	long secs = 0, count = 0;
	struct mmt_kv *kv;
	char *buf;

	while ((c = getopt_long(argc, argv, "+:jw:c:rh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
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
	if (sen == 0)
		fprintf(stderr, PROG ": note: counting is off: run '" PROG " set stats_enable 1'\n");

	if (secs) {
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
	{ "stats", cmd_stats, "usage: " PROG " stats [--json] [--reset] [--watch SECONDS [--count N]]",
	  "Print the module's counters, one 'name value' per line.\n"
	  "  --json             one JSON object; 'unavailable' counters are null\n"
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
