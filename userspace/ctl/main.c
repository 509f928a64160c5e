// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl: read and set mmtune's knobs, show its status and counters.
 * This file: the verb table (cmds[]), -h/--help and help for every verb
 * from it, and the dispatch; the helpers every verb shares are util.c's.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "status", do_status, status_optstring, status_opts, "usage: " PROG " status [--json]",
	  "Show whether the mmtune module is loaded, the arch, the current\n"
	  "fault-around order and size, and whether the counters are on.\n"
	  "  --json   one JSON object (the module's info under \"info\")\n" },
	{ "get", do_get, plain_optstring, plain_opts, "usage: " PROG " get KNOB",
	  "Print KNOB, a file of <debugfs>/mmtune/ (fault_around_order, info, stats,\n"
	  "stats_enable, latency_enable, mapped_enable, latency, pfn_valid/bench,\n"
	  "pfn_valid/mode, usefulness, usefulness_enable).  See mmtunectl(8).\n" },
	{ "set", do_set, plain_optstring, plain_opts, "usage: " PROG " set KNOB VALUE",
	  "Write VALUE to KNOB, checked first.  See mmtunectl(8) for each knob's values.\n" },
	{ "stats", do_stats, stats_optstring, stats_opts, "usage: " PROG " stats [--json | --prometheus [--rss]] [--reset] [--watch SECONDS [--count N]]",
	  "Print the module's counters, one 'name value' per line.\n"
	  "  --json             one JSON object ('unavailable' and 'off': null)\n"
	  "  --prometheus       Prometheus text format, for node_exporter's textfile collector\n"
	  "  --rss              with --prometheus: fault-around's untouched pages per policy rule\n"
	  "  --reset            zero every counter first (alone: just reset)\n"
	  "  --watch SECONDS    per-interval deltas, a line per interval, until Ctrl-C\n"
	  "  --count N          stop after N intervals\n" },
	{ "pfn_valid", do_pfn_valid, pfn_valid_optstring, pfn_valid_opts,
	  "usage: " PROG " pfn_valid [--json] [show | bench COUNT [seq|rand|holes] | mode [STRATEGY|off]]",
	  "The module's pfn_valid() strategies.  See mmtunectl(8).\n"
	  "  show (default)   info's pfn_valid lines, the override's mode, the last bench\n"
	  "  bench COUNT [P]  time every strategy over COUNT pfns in pattern P, cross-checked\n"
	  "  mode [STRATEGY]  the override's strategy; STRATEGY or off sets it\n"
	  "  --json           show and bench: the bench result as one JSON object\n" },
	{ "policy", do_policy, policy_optstring, policy_opts,
	  "usage: " PROG " policy [--json] [show | set RULE... | add RULE... | del MATCH... | clear | load FILE]",
	  "Per-process fault-around orders.  RULE: MATCH order=N|default|auto, MATCH at\n"
	  "most one of comm=NAME, pid=TGID, cgroup=PATH and any of file=PATH,\n"
	  "vma=exec|data|shmem, madv=random (no auto), all matching; first match wins.\n"
	  "See mmtunectl(8).\n"
	  "  show (default)   the rules and their counters\n"
	  "  set RULE...      replace every rule\n"
	  "  add RULE...      append rules after those there\n"
	  "  del MATCH...     remove the rules with these matches\n"
	  "  clear            remove every rule\n"
	  "  load FILE        write FILE's rules ('-': standard input)\n"
	  "  --json           show: one JSON object\n" },
	{ "tune", do_tune, tune_optstring, tune_opts,
	  "usage: " PROG " tune [--orders LIST] [--repeat N] [--apply | --apply-comm NAME] [--verbose] [--json] -- COMMAND [ARGS]",
	  "Time COMMAND (and what it starts) at each order in a cgroup of its own, and\n"
	  "recommend an order only if it beats the current one by more than the spread.\n"
	  "  --orders LIST      orders to try, e.g. 0,2,4,9 or 0-9 (default: all)\n"
	  "  --repeat N         rounds (1..100, default 5)\n"
	  "  --apply            install 'comm=COMMAND order=N' for the recommendation\n"
	  "  --apply-comm NAME  the same for the program named NAME\n"
	  "  --verbose          let COMMAND's output through\n"
	  "  --json             one JSON object\n" },
	{ "save", do_save, save_optstring, save_opts,
	  "usage: " PROG " save [--root DIR] [--stdout]",
	  "Write the settings in force to /etc/modprobe.d/mmtune.conf and\n"
	  "/etc/mmtune/policy, for the next boot (the old files stay as FILE.bak).\n"
	  "  --root DIR       write under DIR instead of /\n"
	  "  --stdout         print both files instead of writing them\n" },
	{ "run", do_run, run_optstring, run_opts,
	  "usage: " PROG " run [--order N] [--stats] -- COMMAND [ARGS]",
	  "Run COMMAND, and every process it starts, at order N, in a cgroup of its own.\n"
	  "Exit status: COMMAND's (128 + a signal); 1 or 2 if run itself failed.\n"
	  "  --order N        0..max_order (default: the order of processes without a rule)\n"
	  "  --stats          wall and CPU time, faults and the rule's counters, on stderr\n" },
	{ "report", do_report, report_optstring, report_opts,
	  "usage: " PROG " report [--json] [--replay FILE] [-- COMMAND [ARGS]]",
	  "A plain-text report for a linux-mm thread or a bug: kernel and THP settings,\n"
	  "mmtune's knobs and rules, counters (deltas over COMMAND if given, which is\n"
	  "run and its exit status shown), usefulness, latency percentiles.\n"
	  "  --json           one JSON object, a member per section\n"
	  "  --replay FILE    add a record's replayed order table (see replay)\n" },
	{ "rss", do_rss, rss_optstring, rss_opts,
	  "usage: " PROG " rss [--json] [--top N] [--files] [PID | --cgroup PATH | --rule N]",
	  "How much RSS fault-around adds, now: per process, the pages of its file\n"
	  "mappings (mapped) and those fault-around mapped ahead that it never touched\n"
	  "(untouched), beside RssFile and RssShmem; then the files with the most,\n"
	  "summed over the processes.  Needs usefulness_enable 1 on x86.  See mmtunectl(8).\n"
	  "  PID              that process (default: every process)\n"
	  "  --cgroup PATH    the processes of that cgroup v2 and of those below it\n"
	  "  --rule N         the processes of the N-th rule 'mmtunectl policy' lists\n"
	  "                   (a rule with file=, vma=, madv=: the mappings it takes)\n"
	  "  --top N          files in the top list (default 10; 0: none)\n"
	  "  --files          each process's files under it\n"
	  "  --json           one JSON object\n" },
	{ "record", do_record, record_optstring, record_opts,
	  "usage: " PROG " record [--output FILE] [--buffer KIB] -- COMMAND [ARGS]",
	  "Run COMMAND, and every process it starts, at order 0 in a cgroup of its own,\n"
	  "and write each of their file read faults to FILE for replay.  See mmtunectl(8).\n"
	  "Exit status: COMMAND's (128 + a signal); 1 or 2 if record itself failed.\n"
	  "  --output FILE    the record (default mmtune.record; '-': standard output)\n"
	  "  --buffer KIB     the trace buffer a CPU (default 16384)\n" },
	{ "replay", do_replay, replay_optstring, replay_opts,
	  "usage: " PROG " replay [--orders LIST] [--whole-folio] [--files] [--json] FILE",
	  "What each fault-around order would have done with a record's faults: faults,\n"
	  "fault-around calls, pages mapped ahead and those never touched (RSS added),\n"
	  "and what makes the figures bounds rather than exact.  See mmtunectl(8).\n"
	  "  --orders LIST    orders, e.g. 0,2,4 or 0-9 (default: 0 to one page table)\n"
	  "  --whole-folio    map large folios whole, as kernels from 6.18 do (the\n"
	  "                   default when the record was made on one)\n"
	  "  --files          the same per file\n"
	  "  --json           one JSON object\n" },
	{ "help", do_help, NULL, NULL, "usage: " PROG " help [VERB]", "Show help for " PROG " or for VERB.\n" },
};

#define NCMDS	(sizeof(cmds) / sizeof(cmds[0]))

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
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
		fprintf(f, "  %s\n", cmds[i].usage + strlen("usage: " PROG " "));
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
