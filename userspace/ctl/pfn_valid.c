// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl pfn_valid: the module's pfn_valid() strategies
 * (<debugfs>/mmtune/pfn_valid/): show, bench, mode.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const char pfn_valid_optstring[] = ":jh";	/* options anywhere: no value starts with '-' */
static const struct option pfn_valid_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_pfn_valid(int argc, char **argv);

const struct cmd cmd_pfn_valid = {
	"pfn_valid", do_pfn_valid, pfn_valid_optstring, pfn_valid_opts,
	"usage: " PROG " pfn_valid [--json] [show | bench COUNT [seq|rand|holes] | mode [STRATEGY|off]]",
	"The module's pfn_valid() strategies.  See mmtunectl(8).\n"
	"  show (default)   info's pfn_valid lines, the override's mode, the last bench\n"
	"  bench COUNT [P]  time every strategy over COUNT pfns in pattern P, cross-checked\n"
	"  mode [STRATEGY]  the override's strategy; STRATEGY or off sets it\n"
	"  --json           show and bench: the bench result as one JSON object\n"
};

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

/* JSON only: a number stays as printed, "-" and "unavailable" are null. */
static void bench_scalar(struct out *o, const char *key, const char *v)
{
	jsonw_name(&o->jw, key);
	if (json_number_ok(v))
		jsonw_number_raw(&o->jw, v);
	else if (!strcmp(v, "-") || !strcmp(v, "unavailable"))
		jsonw_null(&o->jw);
	else
		jsonw_string(&o->jw, v);
}

/* A row of the table: an object of the header's columns. */
static void bench_row(struct out *o, char *line, char **cols, int ncols)
{
	char *w, *save = NULL;
	int i;

	out_obj(o, NULL);
	for (i = 0, w = strtok_r(line, " \t", &save); w && i < ncols; i++, w = strtok_r(NULL, " \t", &save))
		bench_scalar(o, cols[i], w);
	out_obj_end(o);
}

/*
 * pfn_valid/bench as it is (text), or as members of the object open
 * (JSON): its "key: value" lines, then the table (a header line of
 * column names, a row per strategy) as "results".  text is cut up.
 */
static void show_bench(struct out *o, char *text)
{
	char *line, *save = NULL, *cols[16];
	int ncols = 0;

	out_text(o, "%s", text);
	if (!out_json(o))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *w, *s2 = NULL;

		if (!*line || *line == '#')
			continue;
		if (colon && !ncols) {
			char *v = colon + 1;

			*colon = '\0';
			while (*v == ' ')
				v++;
			bench_scalar(o, line, v);
		} else if (!ncols) {		/* the header */
			for (w = strtok_r(line, " \t", &s2); w && ncols < 16; w = strtok_r(NULL, " \t", &s2))
				cols[ncols++] = w;
			out_arr(o, "results");
		} else {
			bench_row(o, line, cols, ncols);
		}
	}
	if (ncols)
		out_arr_end(o);
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

/* pfn_valid mode [STRATEGY|off]: args are the words after "mode". */
static int pfv_mode(int json, int nargs, char **args)
{
	char m[64], impls[192];
	const char *v = nargs ? args[0] : NULL;
	int err;

	if (nargs > 1)
		return usage_err("pfn_valid", "too many arguments");
	if (json)
		return usage_err("pfn_valid", "--json is for show and bench");
	if (!v) {
		err = mmt_knob_read("pfn_valid/mode", m, sizeof(m));
		if (err)
			return lib_fail(err);
		fputs(m, stdout);
		return 0;
	}
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

/* pfn_valid bench COUNT [PATTERN]: run it (the result is shown after). */
static int pfv_bench(int nargs, char **args)
{
	const char *pat = nargs >= 2 ? args[1] : "seq";
	char v[48];
	long n;
	int err;

	if (nargs < 1)
		return usage_err("pfn_valid", "bench: missing COUNT");
	if (nargs > 2)
		return usage_err("pfn_valid", "too many arguments");
	if (mmt_parse_long(args[0], 1, PFV_COUNT_MAX, &n))
		return usage_err("pfn_valid", "bench: COUNT '%.40s' is not 1..%d", args[0], PFV_COUNT_MAX);
	snprintf(v, sizeof(v), "%ld %s", n, pat);
	if (!bench_arg_ok(v))
		return usage_err("pfn_valid", "bench: PATTERN '%.40s' is not seq, rand or holes", pat);
	err = mmt_knob_write("pfn_valid/bench", v);
	if (err == MMT_EINVAL) {
		fprintf(stderr, PROG ": the module refused '%s' (too many pfns for its time budget? the kernel log names the largest count)\n", v);
		return MMT_EXIT_USAGE;
	}
	return err ? lib_fail(err) : 0;
}

/*
 * show: info's pfn_valid lines, the override's mode, the last bench;
 * bench: the bench alone.  Everything is read before anything is printed.
 */
static int pfv_show(int json, int show)
{
	struct mmt_kv *kv = NULL;
	char *buf = malloc(BUFSZ), mode[64] = "";
	int n = 0, i, rc = 0, err = 0;
	long r = buf ? mmt_knob_read_n("pfn_valid/bench", buf, BUFSZ) : MMT_EIO;
	struct out o;

	if (r >= 0 && show) {
		kv = calloc(MAXKV, sizeof(*kv));
		n = kv ? mmt_info(kv, MAXKV) : MMT_EIO;
		err = n < 0 ? n : mmt_knob_read("pfn_valid/mode", mode, sizeof(mode));
	}
	if (r < 0 || err) {
		rc = lib_fail(r < 0 ? (int)r : err);
		goto out;
	}
	out_init(&o, json, 28);
	out_obj(&o, NULL);
	if (show) {
		out_obj(&o, "info");
		for (i = 0; i < n; i++) {
			if (strncmp(kv[i].key, "pfn_valid", 9))
				continue;
			out_text(&o, "%-28s %s\n", kv[i].key, kv[i].value);
			if (!mmt_kv_get(kv, i, kv[i].key))
				out_str(&o, kv[i].key, NULL, kv[i].value, NULL);
		}
		out_obj_end(&o);
		out_text(&o, "%-28s %s", "mode:", mode);
		mode[strcspn(mode, "\n")] = '\0';
		out_str(&o, "mode", NULL, mode, NULL);
		out_text(&o, "last bench:\n");
	}
	show_bench(&o, buf);
	out_obj_end(&o);
out:
	free(kv);
	free(buf);
	return rc;
}

static int do_pfn_valid(int argc, char **argv)
{
	int json = 0, c, nargs, rc;
	const char *sub;

	while ((c = getopt_long(argc, argv, pfn_valid_optstring, pfn_valid_opts, NULL)) != -1) {
		if (c != 'j')
			return bad_opt("pfn_valid", c, argv);
		json = 1;
	}
	nargs = argc - optind;
	sub = nargs ? argv[optind] : "show";
	if (!strcmp(sub, "mode"))
		return pfv_mode(json, nargs - 1, argv + optind + 1);
	if (strcmp(sub, "bench") && strcmp(sub, "show"))
		return usage_err("pfn_valid", "unknown subcommand '%.40s'", sub);
	if (!strcmp(sub, "show") && nargs > 1)
		return usage_err("pfn_valid", "too many arguments");
	if (!strcmp(sub, "bench")) {
		rc = pfv_bench(nargs - 1, argv + optind + 1);
		if (rc)
			return rc;
	}
	return pfv_show(json, !strcmp(sub, "show"));
}
