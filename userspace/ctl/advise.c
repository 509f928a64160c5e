// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl advise: from a record (or a command recorded once), an
 * order per file and one for the rest of the command's faults, the
 * fewest faults within a budget of untouched pre-mapped pages; with
 * --apply, the command run under those rules and the prediction set
 * beside what the run measured.
 *
 * The figures are replay.c's, every order per file (replay_figs); the
 * choice is advpick.c's (an exact multiple-choice knapsack: see there);
 * the rules --apply writes go through the module's atomic "first" and
 * "drop" edits, as run's and tune's own rule does (run.c, run_ruled).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "replay.h"
#include "advpick.h"
#include "advlive.h"

static const char advise_optstring[] = "+:b:jar:p:c:h";
static const struct option advise_opts[] = {
	{ "budget", required_argument, NULL, 'b' },
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "apply", no_argument, NULL, 'a' },
	{ "record", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_advise(int argc, char **argv);

const struct cmd cmd_advise = {
	"advise", do_advise, advise_optstring, advise_opts,
	"usage: " PROG " advise [--budget KIB] [--json] [--record FILE] [--apply] {RECORD | [RECORD] -- COMMAND [ARGS]}\n"
	"       " PROG " advise [--json] {--pid PID | --cgroup PATH}",
	"An order per file and one for the rest: the fewest faults a replay of RECORD\n"
	"predicts within a budget of untouched pre-mapped memory, beside the current\n"
	"order, the best single order and order 0.  With COMMAND and no RECORD, records\n"
	"COMMAND first.  With --pid or --cgroup, advice for processes that run now, from\n"
	"the pages fault-around mapped ahead that they never read.  See mmtunectl(8).\n"
	"  --budget KIB     untouched pre-mapped KiB at most (default: the current order's)\n"
	"  --pid PID        that running process: order 0 for its mostly untouched files\n"
	"  --cgroup PATH    the processes of that cgroup v2, likewise\n"
	"  --json           one JSON object\n"
	"  --record FILE    keep the record of COMMAND in FILE\n"
	"  --apply          run COMMAND under the advised rules, and print what it measured\n"
};

/* What the command line asked for. */
struct adv_args {
	const char *record, *keep;
	char **cmd;
	long budget_kib;	/* -1: the current order's */
	int json, apply, live;
	struct adv_live l;	/* --pid, --cgroup */
};

/* The advice and what it is measured against. */
struct adv {
	struct replay_figs g;
	struct adv_file *f;
	int *order, cur, single, max_rules;
	int written, status;		/* --apply: file rules written; the command's wait status */
	int useful;			/* --apply: usefulness_enable was 1 */
	struct mmt_prule *meas;		/* --apply: nf file rules' counters, then the rest's */
	struct rusage ru;
	const char *cur_from;
	unsigned long long budget;	/* pages */
	struct adv_out out;
	char cg[MMT_MATCH_LEN];		/* --apply: the run's cgroup= match */
};

/* Figures of a policy (@order per file; NULL: all at @k) summed, as replay's all[]. */
static struct rp_sum adv_sum(const struct adv *a, const int *order, int k)
{
	struct rp_sum s = { 0 };
	int i;

	for (i = 0; i < a->g.nf; i++) {
		const struct rp_sum *x = replay_file_sum(&a->g, i, order ? order[i] : k);

		s.faults += x->faults;
		s.calls += x->calls;
		s.premapped += x->premapped;
		s.untouched += x->untouched;
	}
	s.faults += a->g.recorded - a->g.file_faults;	/* the others: the same at every order */
	return s;
}

/* The order processes without a rule get now: the module's, the kernel's, or 4. */
static void adv_current(struct adv *a)
{
	int o, via_kernel = 0;

	if (!mmt_order_get(&o, &via_kernel)) {
		a->cur = o;
		a->cur_from = via_kernel ? "the kernel's fault_around_bytes" : "the module's fault_around_order";
	} else {
		a->cur = 4;
		a->cur_from = "not readable: the kernel's default, 4, assumed";
	}
	if (a->cur > a->g.maxo)
		a->cur = a->g.maxo;
}

/* The files' figures as advpick.c takes them, and its choice: 0 or an exit code. */
static int adv_choose(struct adv *a, const struct adv_args *o)
{
	struct adv_in in = { .nf = a->g.nf, .norders = a->g.maxo + 1, .max_rules = a->max_rules };
	unsigned long long sf, su;
	int i, k, bound;

	a->f = calloc(a->g.nf ? a->g.nf : 1, sizeof(*a->f));
	a->order = calloc(a->g.nf ? a->g.nf : 1, sizeof(*a->order));
	if (!a->f || !a->order)
		return lib_fail(MMT_EIO);
	for (i = 0; i < a->g.nf; i++) {
		a->f[i].ruleable = rule_can_name(replay_file(&a->g, i, &bound));
		for (k = 0; k <= a->g.maxo; k++)
			a->f[i].at[k] = (struct adv_at){ replay_file_sum(&a->g, i, k)->faults,
							 replay_file_sum(&a->g, i, k)->untouched };
	}
	a->budget = o->budget_kib >= 0 ? (unsigned long long)o->budget_kib * 1024 / a->g.psz :
		    a->g.all[a->cur].untouched;
	in.f = a->f;
	in.budget = a->budget;
	a->out.order = a->order;
	if (adv_pick(&in, &a->out))
		return lib_fail(MMT_EIO);
	a->single = adv_single(&in, &sf, &su);
	return 0;
}

/* One table row and its JSON members: @what's figures @s at @order (-1: per file). */
static void adv_row(struct out *o, const struct adv *a, const char *key, const char *what, int order,
		    const struct rp_sum *s, int exact)
{
	char ord[16] = "per file";

	if (order >= 0)
		snprintf(ord, sizeof(ord), "%d", order);
	out_text(o, "%8s %10llu %12llu %12llu %14llu %7s  %s\n", ord, s->faults, s->calls,
		 s->untouched, s->untouched * a->g.psz / 1024, exact ? "exact" : "bound", what);
	out_obj(o, key);
	if (order >= 0)
		out_int(o, "order", NULL, order, 1);
	out_uint(o, "faults", NULL, s->faults, 1);
	out_uint(o, "fault_around_calls", NULL, s->calls, 1);
	out_uint(o, "premapped", NULL, s->premapped, 1);
	out_uint(o, "untouched", NULL, s->untouched, 1);
	out_uint(o, "untouched_kib", NULL, s->untouched * a->g.psz / 1024, 1);
	out_bool(o, "exact", exact);
}

#define ADV_HEAD "%8s %10s %12s %12s %14s %7s  %s\n", "order", "faults", "fault-around", \
	"untouched", "untouched KiB", "figures", "rule"

/* Each file's rule (JSON "rules"), then the rest's: the files' figures exact or not. */
static void adv_rules(struct out *o, const struct adv *a)
{
	struct rp_sum rest = { 0 };
	int i, n = 0, bound, rest_bound = 0;
	char what[MMT_MATCH_LEN + 16];

	out_text(o, "\n" ADV_HEAD);
	out_arr(o, "rules");
	for (i = 0; i < a->g.nf; i++) {
		const struct rp_sum *s = replay_file_sum(&a->g, i, a->order[i]);
		const char *path = replay_file(&a->g, i, &bound);

		if (a->order[i] == a->out.rest) {
			rest.faults += s->faults;
			rest.calls += s->calls;
			rest.premapped += s->premapped;
			rest.untouched += s->untouched;
			rest_bound |= bound;
			n++;
			continue;
		}
		snprintf(what, sizeof(what), "file=%s", path);
		adv_row(o, a, NULL, what, a->order[i], s, !bound);
		out_str(o, "file", NULL, path, NULL);
		out_obj_end(o);
	}
	out_arr_end(o);
	snprintf(what, sizeof(what), "the rest: %d file%s", n, n == 1 ? "" : "s");
	adv_row(o, a, "rest", what, a->out.rest, &rest, !rest_bound);
	out_int(o, "files", NULL, n, 1);
	out_obj_end(o);
	out_text(o, "(faults: the file read faults of the rule's files; untouched: the pages "
		 "pre-mapped and never read)\n");
}

/* The totals beside the baselines. */
static void adv_totals(struct out *o, const struct adv *a, int exact)
{
	struct rp_sum s;
	char what[64];

	out_text(o, "\n" ADV_HEAD);
	s = adv_sum(a, a->order, 0);
	adv_row(o, a, "advised", "advised", -1, &s, exact);
	out_int(o, "rules", NULL, a->out.rules, 1);
	out_obj_end(o);
	s = adv_sum(a, NULL, a->cur);
	adv_row(o, a, "current", "current order", a->cur, &s, exact);
	out_obj_end(o);
	if (a->single >= 0) {
		snprintf(what, sizeof(what), "best single order within the budget");
		s = adv_sum(a, NULL, a->single);
		adv_row(o, a, "best_single", what, a->single, &s, exact);
		out_obj_end(o);
	} else {
		out_text(o, "%8s  no single order within the budget\n", "-");
		out_value(o, "best_single", "unavailable");
	}
	s = adv_sum(a, NULL, 0);
	adv_row(o, a, "order_0", "order 0", 0, &s, exact);
	out_obj_end(o);
	out_text(o, "(faults: all the run's; %llu of them are not file read faults, the same at every order)\n",
		 a->g.recorded - a->g.file_faults);
}

/* The record, the current order, the budget, how the choice was made. */
static void adv_head(struct out *o, const struct adv *a, const char *name, const struct adv_args *g)
{
	out_str(o, "record", NULL, name, NULL);
	out_str(o, "command", NULL, a->g.command, NULL);
	out_str(o, "release", NULL, a->g.release, NULL);
	out_str(o, "machine", NULL, a->g.machine, NULL);
	out_int(o, "page_size", NULL, a->g.psz, 1);
	out_int(o, "max_order", NULL, a->g.maxo, 1);
	out_int(o, "current_order", NULL, a->cur, 1);
	out_str(o, "current_order_from", NULL, a->cur_from, NULL);
	out_uint(o, "budget_kib", NULL, a->budget * a->g.psz / 1024, 1);
	out_bool(o, "budget_given", g->budget_kib >= 0);
	out_bool(o, "over_budget", a->out.over);
	out_int(o, "max_rules", NULL, a->max_rules, 1);
	out_uint(o, "budget_unit_pages", NULL, a->out.unit, 1);
	out_text(o, "advice from %s: %s\n", name, a->g.command);
	out_text(o, "kernel %s %s, %ld-byte pages, orders 0 to %d; the current order %d (%s)\n",
		 a->g.release, a->g.machine, a->g.psz, a->g.maxo, a->cur, a->cur_from);
	out_text(o, "budget: %llu KiB of untouched pre-mapped pages (%s)\n", a->budget * a->g.psz / 1024,
		 g->budget_kib >= 0 ? "--budget" : "as at the current order");
	if (a->out.over)
		out_text(o, "no policy fits the budget (the record's kernel maps whole folios, so order 0 "
			 "leaves pages untouched too): the least untouched one instead\n");
	if (a->out.unit == 1)
		out_text(o, "chosen exactly: every order of every file, %d rules at most and one for the rest\n",
			 a->max_rules);
	else
		out_text(o, "chosen in units of %lu pages of the budget (a table too large to count it in "
			 "pages): a policy that fits by less than a unit may be missed\n", a->out.unit);
}

/* The comm the kernel gives the record's command: its first word's file name. */
static void adv_comm(const char *command, char *out, size_t n)
{
	size_t w = strcspn(command, " ");
	const char *b = command;

	while (memchr(b, '/', w - (b - command)))
		b = (const char *)memchr(b, '/', w - (b - command)) + 1;
	snprintf(out, n < 16 ? n : 16, "%.*s", (int)(w - (b - command)), b);
}

/* How to write the rules for every process of the program. */
static void adv_how(struct out *o, const struct adv *a)
{
	char comm[16];
	int i, bound;

	adv_comm(a->g.command, comm, sizeof(comm));
	out_text(o, "\nto set it (file= rules match the file in every process: add comm=%s to "
		 "confine them; --apply -- COMMAND runs a command under them alone):\n", comm);
	for (i = 0; i < a->g.nf; i++)
		if (a->order[i] != a->out.rest)
			out_text(o, "  " PROG " policy add \"file=%s order=%d\"\n",
				 replay_file(&a->g, i, &bound), a->order[i]);
	if (a->out.rest != a->cur)
		out_text(o, "  " PROG " policy add \"comm=%s order=%d\"\n", comm, a->out.rest);
	else
		out_text(o, "  the rest at the current order: no rule\n");
	out_text(o, "\n");
}

/* The advice, text or JSON, its object left open. */
static void adv_show(struct out *o, const struct adv *a, const char *name, const struct adv_args *g)
{
	int i, bound, exact = 1;

	for (i = 0; i < a->g.nf; i++) {
		replay_file(&a->g, i, &bound);
		exact &= !bound;
	}
	adv_head(o, a, name, g);
	adv_rules(o, a);
	adv_totals(o, a, exact);
	adv_how(o, a);
	replay_verdict(&a->g, o);
}

/* --apply: file @i's rule's match, the run's cgroup and its file. */
static void adv_match(const struct adv *a, int i, char *m, size_t n)
{
	int bound;

	snprintf(m, n, "%s file=%s", a->cg, replay_file(&a->g, i, &bound));
}

/* run_ruled's, once the command is forked: each file's rule, before the rest's. */
static int adv_started(pid_t pid, void *arg, bool *traced)
{
	struct adv *a = arg;
	char m[MMT_MATCH_LEN + 16];
	int i, err;

	(void)pid;
	*traced = false;
	for (i = 0; i < a->g.nf; i++) {
		if (a->order[i] == a->out.rest)
			continue;
		adv_match(a, i, m, sizeof(m));
		err = mmt_policy_own(m, a->order[i]);
		if (err) {
			fprintf(stderr, PROG ": advise: the module refuses '%s order=%d': %s\n", m,
				a->order[i], mmt_errmsg());
			return mmt_exit_code(err);
		}
		a->written = i + 1;
	}
	return 0;
}

/* --apply: every rule's counters, in one read (an edit starts them again). */
static void adv_ctrs(struct adv *a)
{
	struct mmt_policy *ps = malloc(sizeof(*ps));
	char m[MMT_MATCH_LEN + 16];
	int i, j;

	for (i = 0; i <= a->g.nf; i++)
		a->meas[i].has_hits = -1;	/* not found */
	if (!ps || read_policy(ps)) {
		free(ps);
		return;
	}
	for (i = 0; i <= a->g.nf; i++) {
		if (i < a->g.nf && a->order[i] == a->out.rest)
			continue;
		if (i < a->g.nf)
			adv_match(a, i, m, sizeof(m));
		else
			snprintf(m, sizeof(m), "%s", a->cg);
		for (j = 0; j < ps->nr; j++)
			if (!strcmp(ps->r[j].match, m))
				a->meas[i] = ps->r[j];
	}
	free(ps);
}

/* --apply: the counters read, then the file rules dropped: 0 or an exit code. */
static int adv_unrule(struct adv *a)
{
	char m[MMT_MATCH_LEN + 16];
	int i, rc = 0;

	adv_ctrs(a);
	for (i = 0; i < a->written; i++) {
		if (a->order[i] == a->out.rest)
			continue;
		adv_match(a, i, m, sizeof(m));
		if (mmt_policy_own(m, -1) && !rc) {
			fprintf(stderr, PROG ": advise: a rule may be left: remove it with '" PROG
				" policy del %s'\n", m);
			rc = MMT_EXIT_FAIL;
		}
	}
	return rc;
}

/* Whether usefulness counts (a rule shows no counts of nothing pre-mapped). */
static int adv_useful(void)
{
	char b[16];

	return !mmt_knob_read("usefulness_enable", b, sizeof(b)) && b[0] == '1';
}

/* --apply: COMMAND in a cgroup of its own under the rules: 0 or an exit code. */
static int adv_apply(struct adv *a, char **cmd)
{
	struct tune_ctx t = { .errfd = -1, .devnull = -1, .cmd = cmd };
	struct sigaction old[3];
	int rc, crc;
	double wall;

	a->meas = calloc(a->g.nf + 1, sizeof(*a->meas));
	if (!a->meas)
		return lib_fail(MMT_EIO);
	tune_signals(old);
	t.started = adv_started;
	t.started_arg = a;
	rc = mmt_cg_create(&t.cg, "advise");
	if (rc) {
		tune_signals_restore(old);
		return lib_fail(rc);
	}
	snprintf(a->cg, sizeof(a->cg), "%s", t.cg.match);
	rc = run_ruled(&t, a->out.rest, &a->status, &a->ru, &wall);
	a->useful = adv_useful();
	crc = adv_unrule(a);
	rc = rc ? rc : crc;
	crc = tune_cleanup(&t);
	tune_signals_restore(old);
	return rc ? rc : crc;
}

/* A measured count: JSON null and text "-" where the module showed none. */
static void adv_meas(struct out *o, const char *key, const char *label, unsigned long long pred,
		     unsigned long long v, int ok)
{
	char m[32] = "-";

	if (ok)
		snprintf(m, sizeof(m), "%llu", v);
	out_text(o, "  %-20s %12llu %12s\n", label, pred, m);
	out_uint(o, key, NULL, v, ok);
}

/*
 * A file's fault-around calls under a rule: at order 0 too, each read
 * fault goes through fault-around, its window narrowed to its page (as
 * record's own rule does); replay's order 0 is the kernel's, which
 * calls none.
 */
static unsigned long long adv_calls(const struct adv *a, int i)
{
	const struct rp_sum *s = replay_file_sum(&a->g, i, a->order[i]);

	return a->order[i] ? s->calls : s->faults;
}

/* --apply: each rule's calls and untouched pages, predicted and measured. */
static void adv_meas_rules(struct out *o, const struct adv *a)
{
	const struct rp_sum *s;
	struct rp_sum rest = { 0 }, p = { 0 };
	int i, bound;

	out_arr(o, "rules");
	for (i = 0; i <= a->g.nf; i++) {
		const struct mmt_prule *r = &a->meas[i];

		if (i < a->g.nf && a->order[i] == a->out.rest) {
			rest.calls += adv_calls(a, i);
			rest.untouched += replay_file_sum(&a->g, i, a->order[i])->untouched;
			continue;
		}
		if (i < a->g.nf) {
			p = *replay_file_sum(&a->g, i, a->order[i]);
			p.calls = adv_calls(a, i);
		}
		s = i < a->g.nf ? &p : &rest;
		out_text(o, "  %s: fault-around calls %llu, measured %llu; untouched %llu, measured %llu\n",
			 i < a->g.nf ? replay_file(&a->g, i, &bound) : "the rest", s->calls, r->hits,
			 s->untouched, r->untouched);
		out_obj(o, NULL);
		out_str(o, "file", NULL, i < a->g.nf ? replay_file(&a->g, i, &bound) : NULL, NULL);
		out_uint(o, "fault_around_calls", NULL, r->hits, r->has_hits == 1);
		out_uint(o, "predicted_fault_around_calls", NULL, s->calls, 1);
		out_uint(o, "predicted_untouched", NULL, s->untouched, 1);
		out_uint(o, "premapped", NULL, r->prefaulted, a->useful);
		out_uint(o, "untouched", NULL, r->untouched, a->useful);
		out_obj_end(o);
	}
	out_arr_end(o);
}

/* --apply: the run's counts beside the prediction (JSON "measured"). */
static void adv_measured(struct out *o, const struct adv *a, char **cmd)
{
	struct rp_sum p = adv_sum(a, a->order, 0);
	unsigned long long calls = 0, pre = 0, unt = 0;
	int i, ok = 1, useful = a->useful;

	for (i = 0; i <= a->g.nf; i++) {
		const struct mmt_prule *r = &a->meas[i];

		if (i < a->g.nf && a->order[i] == a->out.rest)
			continue;
		ok &= r->has_hits == 1;
		calls += r->hits;
		pre += r->prefaulted;
		unt += r->untouched;
	}
	for (p.calls = 0, i = 0; i < a->g.nf; i++)
		p.calls += adv_calls(a, i);
	out_obj(o, "measured");
	out_text(o, "applied: ");
	if (!out_json(o))
		print_cmd(stdout, cmd);
	out_text(o, " (%s %d)\n  %-20s %12s %12s\n", WIFSIGNALED(a->status) ? "signal" : "exit",
		 WIFSIGNALED(a->status) ? WTERMSIG(a->status) : WEXITSTATUS(a->status), "",
		 "predicted", "measured");
	out_int(o, "exit", NULL, WIFEXITED(a->status) ? WEXITSTATUS(a->status) : 128 + WTERMSIG(a->status), 1);
	adv_meas(o, "faults", "faults", p.faults, a->ru.ru_minflt + a->ru.ru_majflt, 1);
	out_uint(o, "predicted_fault_around_calls", NULL, p.calls, 1);
	adv_meas(o, "fault_around_calls", "fault-around calls", p.calls, calls, ok);
	adv_meas(o, "premapped", "pre-mapped", p.premapped, pre, ok && useful);
	adv_meas(o, "untouched", "untouched", p.untouched, unt, ok && useful);
	if (!useful)
		out_text(o, "  (pre-mapped and untouched need '" PROG " set usefulness_enable 1')\n");
	adv_meas_rules(o, a);
	out_obj_end(o);
}

/* --pid or --cgroup, and nothing a record needs. */
static int adv_live_args(int argc, struct adv_args *g)
{
	g->l.json = g->json;
	if (g->live > 1)
		return usage_err("advise", "one of --pid and --cgroup");
	if (optind < argc || g->apply || g->keep || g->budget_kib >= 0)
		return usage_err("advise", "--pid and --cgroup advise from what runs now: no RECORD, "
				 "COMMAND, --apply, --record or --budget");
	return 0;
}

static int adv_args(int argc, char **argv, struct adv_args *g)
{
	int c;

	while ((c = getopt_long(argc, argv, advise_optstring, advise_opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (mmt_parse_long(optarg, 0, 1L << 40, &g->budget_kib))
				return usage_err("advise", "--budget '%.40s': want 0..%ld KiB", optarg, 1L << 40);
			break;
		case 'j': g->json = 1; break;
		case 'a': g->apply = 1; break;
		case 'r': g->keep = optarg; break;
		case 'p':
			if (mmt_parse_long(optarg, 1, PID_MAX, &g->l.pid))
				return usage_err("advise", "--pid '%.40s' is not a process id", optarg);
			g->live++;
			break;
		case 'c':
			if (cgroup_path_arg("advise", optarg, g->l.cgroup, sizeof(g->l.cgroup)))
				return MMT_EXIT_USAGE;
			g->live++;
			break;
		default: return bad_opt("advise", c, argv);
		}
	}
	if (g->live)
		return adv_live_args(argc, g);
	/* RECORD, RECORD -- COMMAND, or -- COMMAND (getopt took the "--") */
	if (optind < argc && strcmp(argv[optind - 1], "--")) {
		g->record = argv[optind++];
		if (optind < argc && strcmp(argv[optind++], "--"))
			return usage_err("advise", "want one RECORD, then -- COMMAND");
	}
	if (optind < argc)
		g->cmd = argv + optind;
	if (!g->record && !g->cmd)
		return usage_err("advise", "want a RECORD or -- COMMAND (" PROG " advise [--budget KIB] {RECORD | -- COMMAND})");
	if (g->apply && !g->cmd)
		return usage_err("advise", "--apply wants -- COMMAND to run under the rules");
	if (g->keep && (g->record || !g->cmd))
		return usage_err("advise", "--record FILE is where COMMAND's record goes: not with a RECORD");
	return 0;
}

/* COMMAND recorded into @path, as record does it: 0 or an exit code. */
static int adv_record(char **cmd, const char *path)
{
	char **av;
	int n, i, rc;

	for (n = 0; cmd[n]; n++)
		;
	av = calloc(n + 5, sizeof(*av));
	if (!av)
		return lib_fail(MMT_EIO);
	av[0] = "record";
	av[1] = "--output";
	av[2] = (char *)path;
	av[3] = "--";
	for (i = 0; i < n; i++)
		av[4 + i] = cmd[i];
	optind = 0;	/* glibc: a fresh parse for record's options */
	rc = cmd_record.fn(n + 4, av);
	free(av);
	/* the command's own status: advise from its record if whole */
	if (rc && !replay_check(path)) {
		fprintf(stderr, PROG ": advise: the command exited %d; advising from its record\n", rc);
		rc = 0;
	}
	return rc;
}

/* The record to advise from: given, kept (--record), or a temporary one in @tmp. */
static int adv_source(struct adv_args *g, char *tmp, size_t n)
{
	int fd;

	if (g->record)
		return 0;
	if (!g->keep) {
		snprintf(tmp, n, "%s/mmtune-advise.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		fd = mkstemp(tmp);
		if (fd < 0)
			return fprintf(stderr, PROG ": advise: cannot make %s: %s\n", tmp, strerror(errno)),
			       (tmp[0] = '\0', MMT_EXIT_FAIL);
		close(fd);
	}
	g->record = g->keep ? g->keep : tmp;
	return adv_record(g->cmd, g->record);
}

/* --apply: the rules the policy has room for, beside the rest's. */
static int adv_room(struct adv *a)
{
	struct mmt_policy *ps = malloc(sizeof(*ps));
	int rc = ps ? -read_policy(ps) : lib_fail(MMT_EIO);

	if (!rc && ps->nr + 1 > ps->max_rules)
		rc = (fprintf(stderr, PROG ": advise --apply needs room for one more rule (%d of %d in use)\n",
			      ps->nr, ps->max_rules), MMT_EXIT_FAIL);
	if (!rc && ps->max_rules - ps->nr - 1 < a->max_rules)
		a->max_rules = ps->max_rules - ps->nr - 1;
	free(ps);
	return rc;
}

static int do_advise(int argc, char **argv)
{
	struct adv_args g = { .budget_kib = -1 };
	struct adv a = { .max_rules = MMT_PRULES_MAX - 1 };
	char tmp[4096] = "";
	struct out o;
	int rc;

	rc = adv_args(argc, argv, &g);
	if (!rc && g.live)
		return adv_live(&g.l);
	rc = rc ? rc : adv_source(&g, tmp, sizeof(tmp));
	rc = rc ? rc : replay_figs(g.record, &a.g);
	if (!rc)
		adv_current(&a);
	if (!rc && g.apply)
		rc = adv_room(&a);
	rc = rc ? rc : adv_choose(&a, &g);
	if (!rc && g.apply)
		rc = adv_apply(&a, g.cmd);
	if (!rc) {
		out_init(&o, g.json, 0);
		out_obj(&o, NULL);
		adv_show(&o, &a, g.record, &g);
		if (g.apply && a.meas)
			adv_measured(&o, &a, g.cmd);
		out_obj_end(&o);
	}
	if (tmp[0])
		unlink(tmp);
	replay_figs_free(&a.g);
	free(a.f);
	free(a.order);
	free(a.meas);
	if (!rc && g.apply && WIFSIGNALED(a.status))
		return 128 + WTERMSIG(a.status);
	return rc ? rc : (g.apply ? WEXITSTATUS(a.status) : 0);
}
