// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl: read and set mmtune's knobs, show its status and counters.
 * This file: the verb table (cmds[]: each verb's entry, with its usage and
 * help text, is in the verb's file), -h/--help and help for every verb
 * from it, and the dispatch; the helpers every verb shares are util.c's.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static int do_help(int argc, char **argv);

static const struct cmd cmd_help = {
	"help", do_help, NULL, NULL, "usage: " PROG " help [VERB]", "Show help for " PROG " or for VERB.\n"
};

/* the verbs in help's order: each verb's entry, its usage and help, is in its file */
static const struct cmd *const cmds[] = {
	&cmd_status,
	&cmd_get,
	&cmd_set,
	&cmd_stats,
	&cmd_pfn_valid,
	&cmd_policy,
	&cmd_tune,
	&cmd_save,
	&cmd_run,
	&cmd_report,
	&cmd_rss,
	&cmd_record,
	&cmd_replay,
	&cmd_advise,
	&cmd_bpf,
	&cmd_help,
};

#define NCMDS	(sizeof(cmds) / sizeof(cmds[0]))

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

static int print_help(const struct cmd *c)
{
	printf("%s\n%s", c->usage, c->help);
	return 0;
}

static void main_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: " PROG " [--help] [--version] VERB [ARGS]\n\n"
		"Control mmtune, the kernel's page-fault fault-around order at run time.\n\n"
		"verbs:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %s\n", cmds[i]->usage + strlen("usage: " PROG " "));
	fprintf(f, "\n'" PROG " VERB --help' for a verb's options.  Exit status: 0 done;\n"
		"1 could not (module not loaded, not root, debugfs not mounted);\n"
		"2 bad usage or value out of range.  See mmtunectl(8).\n");
}

static int do_help(int argc, char **argv)
{
	const struct cmd *c;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return print_help(find_cmd("help"));
	if (argc < 2) {
		main_help(stdout);
		return 0;
	}
	if (argc > 2)
		return usage_err("help", "too many arguments");
	c = find_cmd(argv[1]);
	if (!c)
		return usage_err(NULL, "unknown verb '%.40s'", argv[1]);
	return print_help(c);
}

/*
 * -h/--help among the verb's options, parsed with the verb's own table
 * up to where the verb's parse would stop (its first bad option, or the
 * first operand for a "+" optstring): the verb then runs its parse
 * again from the start.
 */
static int wants_help(const struct cmd *c, int argc, char **argv)
{
	int ch, help = 0;

	if (!c->optstring)
		return 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, c->optstring, c->opts, NULL)) != -1) {
		if (ch == 'h')
			help = 1;
		if (ch == 'h' || ch == '?' || ch == ':')
			break;
	}
	optind = 0;	/* glibc: full reinitialisation for the verb's parse */
	return help;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *v;
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
	v = find_cmd(argv[optind]);
	if (!v)
		return usage_err(NULL, "unknown verb '%.40s'", argv[optind]);
	argc -= optind;
	argv += optind;
	if (wants_help(v, argc, argv))
		return print_help(v);
	return v->fn(argc, argv);
}
