// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl's helpers every verb shares (ctl.h): errors, stats and
 * parameter reads, where /proc is.  Kept out of main.c, which dispatches
 * to the verbs, so that a verb never depends on its dispatcher.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

int usage_err(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '" PROG "%s%s --help')\n", verb ? " " : "", verb ? verb : "");
	return MMT_EXIT_USAGE;
}

/* getopt said '?' or ':' (optstring starts with "+:" or ":"). */
int bad_opt(const char *verb, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return usage_err(verb, "option '%.40s' needs a value", arg);
	return usage_err(verb, "unknown option '%.40s'", arg);
}

/* Report a library failure; returns the exit code it maps to. */
int lib_fail(int err)
{
	fprintf(stderr, PROG ": %s\n", mmt_errmsg());
	return mmt_exit_code(err);
}

void note_kernel_knob(void)
{
	const char *kp = mmt_kernel_knob_path();

	fprintf(stderr, PROG ": note: mmtune module not loaded, using the kernel's %s\n",
		kp ? kp : "fault_around_bytes");
}

int read_stats(struct mmt_kv *kv, int max)
{
	int n = mmt_stats_read(kv, max);

	return n < 0 ? -lib_fail(n) : n;
}

void param_value(const char *knob, char *v, size_t n)
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

int stats_enabled(void)
{
	char b[32];
	long v;

	param_value("stats_enable", b, sizeof(b));
	if (!b[0] || mmt_parse_long(b, 0, 1, &v))
		return -1;
	return (int)v;
}

const char *proc_dir(void)
{
	const char *e = getenv("MMTUNE_PROC");

	return e && *e ? e : "/proc";
}

/*
 * --orders of @verb (libmmtune's grammar) into o[], sorted, each once, at
 * most max: the count, or -(exit code) after saying why.
 */
int parse_orders(const char *verb, const char *s, int maxo, int *o, int max)
{
	int n = mmt_parse_orders(s, maxo, MMT_ORDERS_SET, o, max);

	if (n < 0)
		return -usage_err(verb, "%s", mmt_errmsg());
	return n;
}

/*
 * DAMON_STAT (6.17 and later; Debian's 7.x starts it at boot) makes the
 * pages it samples old in every mapping: 1 on, 0 off, -1 not there.
 * Env MMTUNE_DAMON_STAT stands for its parameter file (tests).
 */
int damon_stat_on(void)
{
	const char *p = getenv("MMTUNE_DAMON_STAT");
	char b[8];

	if (mmt_read_path(p ? p : "/sys/module/damon_stat/parameters/enabled", b, sizeof(b)) <= 0)
		return -1;
	return b[0] == 'Y' || b[0] == '1';
}

void damon_stat_note(void)
{
	if (damon_stat_on() == 1)
		fprintf(stderr, PROG ": note: DAMON_STAT is on: it makes the pages it samples old, so some "
			"touched pages count as untouched, more the longer they stay mapped (docs/policy.md); "
			"echo N > /sys/module/damon_stat/parameters/enabled turns it off\n");
}

/* Whether a file= rule can name @path: absolute, no blank, '#' or ';', short enough. */
int rule_can_name(const char *path)
{
	return path && path[0] == '/' && !path[strcspn(path, " \t\n#;")] &&
	       strlen(path) < MMT_ABI_PATH_MAX;
}
