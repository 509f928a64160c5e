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
	  "Print the value of KNOB, a file of <debugfs>/mmtune/: fault_around_order,\n"
	  "info, stats, stats_enable, latency_enable, mapped_enable, latency,\n"
	  "pfn_valid/bench, pfn_valid/mode, usefulness, usefulness_enable.  Without the module, fault_around_order is read from the\n"
	  "kernel's own <debugfs>/fault_around_bytes (a note on stderr).\n" },
	{ "set", do_set, plain_optstring, plain_opts, "usage: " PROG " set KNOB VALUE",
	  "Write VALUE to KNOB.  Values are checked before anything is written:\n"
	  "  fault_around_order  0..max_order (see status) or 'default'\n"
	  "  stats_enable        0 or 1 (latency_enable, mapped_enable and\n"
	  "                      usefulness_enable too; usefulness_enable 1 clears\n"
	  "                      the usefulness counts)\n"
	  "  stats               0 (reset every counter and the latency histogram)\n"
	  "  pfn_valid/bench     'COUNT PATTERN': COUNT 1..16777216, seq|rand|holes\n"
	  "  pfn_valid/mode      off or a strategy of info's pfn_valid_impls\n"
	  "Without the module, fault_around_order is written to the kernel's own\n"
	  "<debugfs>/fault_around_bytes as page_size << VALUE (a note on stderr).\n" },
	{ "stats", do_stats, stats_optstring, stats_opts, "usage: " PROG " stats [--json | --prometheus] [--reset] [--watch SECONDS [--count N]]",
	  "Print the module's counters, one 'name value' per line.\n"
	  "  --json             one JSON object; 'unavailable' and 'off' counters are null\n"
	  "  --prometheus       Prometheus text format (mmtune_NAME_total, HELP and\n"
	  "                     TYPE lines) for node_exporter's textfile collector\n"
	  "  --reset            zero every counter first (alone: just reset)\n"
	  "  --watch SECONDS    print per-interval deltas: a header line, then one\n"
	  "                     line per interval (with --json one object per line);\n"
	  "                     Ctrl-C stops\n"
	  "  --count N          stop after N intervals\n" },
	{ "pfn_valid", do_pfn_valid, pfn_valid_optstring, pfn_valid_opts,
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
	{ "policy", do_policy, policy_optstring, policy_opts,
	  "usage: " PROG " policy [--json] [show | set RULE... | add RULE... | del MATCH... | clear | load FILE]",
	  "Per-process fault-around orders (<debugfs>/mmtune/policy).  A RULE is\n"
	  "MATCH order=N, first match wins; MATCH is one of\n"
	  "  comm=NAME        the task's command name (1..15 bytes, as in ps -o comm)\n"
	  "  pid=TGID         that process (all its threads)\n"
	  "  cgroup=PATH      the tasks of a cgroup v2 and of the cgroups below it\n"
	  "                   (/system.slice/x.service or /sys/fs/cgroup/system.slice/...)\n"
	  "N is 0..max_order, 'default' or 'auto'.  Faults no rule matches keep the\n"
	  "order that was in force (the default order); order 0 turns fault-around\n"
	  "off.  'auto' starts at the default order and moves one step at a time as\n"
	  "the rule's ended processes used the pages mapped ahead of them or not\n"
	  "(learns only while usefulness_enable is 1; see mmtunectl(8)).\n"
	  "  show (default)   the rules with their hits and pages mapped (and an auto\n"
	  "                   rule's order now, changes, useful share, pages learned)\n"
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
	{ "tune", do_tune, tune_optstring, tune_opts,
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
	{ "save", do_save, save_optstring, save_opts,
	  "usage: " PROG " save [--root DIR] [--stdout]",
	  "Write the settings in force in the form the boot applies (docs/admin-guide.md,\n"
	  "\"Settings that survive a reboot\"): /etc/modprobe.d/mmtune.conf gets\n"
	  "'options mmtune fault_around_order=N' (and stats_enable=1,\n"
	  "latency_enable=0, mapped_enable=1, pfn_valid_mode=S when so),\n"
	  "/etc/mmtune/policy the rules\n"
	  "(pid= rules left out: a process does not survive a reboot; no rules: the\n"
	  "file goes, so mmtune.service does nothing).  Each file is replaced whole;\n"
	  "what was there stays as FILE.bak.\n"
	  "  --root DIR       write under DIR instead of /\n"
	  "  --stdout         print both files instead of writing them\n" },
	{ "run", do_run, run_optstring, run_opts,
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
