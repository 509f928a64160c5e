// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl get and set: a file of <debugfs>/mmtune/ (or its parameter
 * or /sys/kernel/mm/mmtune twin), values checked before anything is
 * written.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* get's and set's options, and their entries (usage and help) for main.c's table */
static const char plain_optstring[] = "+:h";
static const struct option plain_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_get(int argc, char **argv);
static int do_set(int argc, char **argv);

const struct cmd cmd_get = {
	"get", do_get, plain_optstring, plain_opts, "usage: " PROG " get KNOB",
	"Print KNOB, a file of <debugfs>/mmtune/ (fault_around_order, info, stats,\n"
	"stats_enable, latency_enable, mapped_enable, latency, pfn_valid/bench,\n"
	"pfn_valid/mode, usefulness, usefulness_enable).  See mmtunectl(8).\n"
};

const struct cmd cmd_set = {
	"set", do_set, plain_optstring, plain_opts, "usage: " PROG " set KNOB VALUE",
	"Write VALUE to KNOB, checked first.  See mmtunectl(8) for each knob's values.\n"
};

static int is_knob(const char *k, const char *name)
{
	return !strcmp(k, name);
}

/*
 * A record whose debugfs file failed with err (lockdown, no debugfs, not
 * root): its text made from sysfs; else err, said.  0 or an exit code.
 */
static int record_get(const char *knob, int err)
{
	char why[512];

	snprintf(why, sizeof(why), "%s", mmt_errmsg());
	if (!record_text(knob, stdout))
		return 0;
	fprintf(stderr, PROG ": %s\n", why);
	return mmt_exit_code(err);
}

static int do_get(int argc, char **argv)
{
	const char *knob;
	int c, err;

	while ((c = getopt_long(argc, argv, plain_optstring, plain_opts, NULL)) != -1)
		return bad_opt("get", c, argv);
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
			return record_get(knob, (int)r);
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

/* "COUNT PATTERN" for pfn_valid/bench */
int bench_arg_ok(const char *v)
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
int word_ok(const char *v)
{
	size_t n = strlen(v);

	return n && n < 16 && strspn(v, "abcdefghijklmnopqrstuvwxyz") == n;
}

static int do_set(int argc, char **argv)
{
	const char *knob, *value;
	int c, err;

	while ((c = getopt_long(argc, argv, plain_optstring, plain_opts, NULL)) != -1)
		return bad_opt("set", c, argv);
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
	if (is_knob(knob, "usefulness"))
		return usage_err("set", "usefulness is read-only (set usefulness_enable 1 clears it)");
	if ((is_knob(knob, "stats_enable") || is_knob(knob, "latency_enable") ||
	     is_knob(knob, "mapped_enable") || is_knob(knob, "usefulness_enable")) &&
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
