// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl report: what a kernel engineer pastes into a linux-mm thread
 * or a bug.  Plain-text aligned columns as in mm commit messages, or one
 * JSON object, rendered once through out.c.  A section shows only what
 * the machine shows: a file that cannot be read says "unavailable
 * (REASON)" (JSON: null or {"unavailable": REASON}), never a made-up 0.
 * With -- CMD, CMD runs and the counters are shown as deltas over it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"

static const char report_optstring[] = "+:jr:h";
static const struct option report_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "replay", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_report(int argc, char **argv);

const struct cmd cmd_report = {
	"report", do_report, report_optstring, report_opts,
	"usage: " PROG " report [--json] [--replay FILE] [-- COMMAND [ARGS]]",
	"A plain-text report for a linux-mm thread or a bug: kernel and THP settings,\n"
	"mmtune's knobs and rules, counters (deltas over COMMAND if given, which is\n"
	"run and its exit status shown), usefulness, latency percentiles.\n"
	"  --json           one JSON object, a member per section\n"
	"  --replay FILE    add a record's replayed order table (see replay)\n"
};

#define W	24	/* the text label column */
#define NCTR	64	/* counters a snapshot keeps */

/* Counters at one moment: name, value, ok (0: could not be read). */
struct ctr {
	char name[64];
	unsigned long long v;
	int ok;
};

struct snap {
	struct ctr c[NCTR];
	int n;
	char why_vmstat[128], why_stats[128], why_useful[128];
	char useful_state[96];	/* the usefulness file's state: on, off or why not */
};

/* MMTUNE_SYSFS_THP stands for /sys/kernel/mm/transparent_hugepage (tests). */
static const char *thp_dir(void)
{
	const char *e = getenv("MMTUNE_SYSFS_THP");

	return e && *e ? e : "/sys/kernel/mm/transparent_hugepage";
}

/* A whole file into b; 0, or -1 with the reason in why. */
static int slurp(const char *path, char *b, size_t len, char *why, size_t wl)
{
	if (mmt_read_path(path, b, len) >= 0)
		return 0;
	snprintf(why, wl, "%s: %s", path, strerror(errno));
	return -1;
}

/* The [bracketed] choice of a sysfs mode file into out; 0 or -1 (why). */
static int bracketed(const char *path, char *out, size_t len, char *why, size_t wl)
{
	char b[512], *s, *e;

	if (slurp(path, b, sizeof(b), why, wl))
		return -1;
	s = strchr(b, '[');
	e = s ? strchr(s, ']') : NULL;
	if (!e) {
		snprintf(why, wl, "%s: no [choice]", path);
		return -1;
	}
	snprintf(out, len, "%.*s", (int)(e - s - 1), s + 1);
	return 0;
}

static void show_na(struct out *o, const char *key, const char *label, const char *why)
{
	char t[300];

	snprintf(t, sizeof(t), "unavailable (%.280s)", why);
	out_str(o, key, NULL, NULL, NULL);
	out_str(o, NULL, label, NULL, t);
}

/* A section that has nothing to show: text a line, JSON {"unavailable": why}. */
static void section_na(struct out *o, const char *key, const char *why)
{
	out_obj(o, key);
	out_str(o, "unavailable", NULL, why, NULL);
	out_obj_end(o);
	out_text(o, "  unavailable (%s)\n", why);
}

static void show_mode(struct out *o, const char *key, const char *label, const char *file)
{
	char p[PATH_MAX], v[64], why[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", thp_dir(), file);
	if (bracketed(p, v, sizeof(v), why, sizeof(why)))
		show_na(o, key, label, why);
	else
		out_str(o, key, label, v, v);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * hugepages-<N>kB/enabled not [never]: the anonymous mTHP sizes in use
 * (the page cache's folio sizes are each file system's: not shown).
 */
static void show_folios(struct out *o)
{
	unsigned long long kb[64];
	char p[PATH_MAX], v[64], why[PATH_MAX + 64], line[1024] = "", name[32];
	struct dirent *de;
	int n = 0, i;
	DIR *d = opendir(thp_dir());

	if (!d) {
		snprintf(why, sizeof(why), "%s: %s", thp_dir(), strerror(errno));
		show_na(o, "anon_mthp_sizes", "  anon mTHP sizes:", why);
		return;
	}
	while ((de = readdir(d)) && n < 64) {
		if (sscanf(de->d_name, "hugepages-%llukB", &kb[n]) != 1)
			continue;
		snprintf(p, sizeof(p), "%s/%s/enabled", thp_dir(), de->d_name);
		if (!bracketed(p, v, sizeof(v), why, sizeof(why)) && strcmp(v, "never"))
			n++;
	}
	closedir(d);
	qsort(kb, (size_t)n, sizeof(kb[0]), cmp_ull);
	out_arr(o, "anon_mthp_sizes");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%llukB", kb[i]);
		out_item(o, name);
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", i ? " " : "", name);
	}
	out_arr_end(o);
	out_str(o, NULL, "  anon mTHP sizes:", NULL, n ? line : "none");
}

/*
 * An object key of the chosen lines of a "key: value" file (kv, n):
 * each line's value in text at indent, or unavailable (why) if the file
 * lacks it.
 */
static void show_lines(struct out *o, const char *key, const struct mmt_kv *kv, int n,
		       const char *const *keys, size_t nkeys, const char *indent, const char *why)
{
	char label[64];
	const char *v;
	size_t i;

	out_obj(o, key);
	for (i = 0; i < nkeys; i++) {
		snprintf(label, sizeof(label), "%s%s:", indent, keys[i]);
		v = mmt_kv_get(kv, n, keys[i]);
		if (v) {
			out_value(o, keys[i], v);
			out_str(o, NULL, label, NULL, v);
		} else {
			show_na(o, keys[i], label, why);
		}
	}
	out_obj_end(o);
}

/* info's lines that describe the kernel (not mmtune's own state) */
static const char *const info_keys[] = {
	"arch", "page_size", "max_order", "order", "fault_around_bytes", "base_order",
	"default_order", "pfn_valid", "usefulness", "usefulness_end", "ibt",
};

static void show_info(struct out *o)
{
	struct mmt_kv kv[MAXKV];
	int n = mmt_info(kv, MAXKV);

	if (n < 0)
		section_na(o, "module_info", mmt_errmsg());
	else
		show_lines(o, "module_info", kv, n, info_keys,
			   sizeof(info_keys) / sizeof(info_keys[0]), "    ", "not in info");
}

/* DAMON_STAT ages the pages usefulness judges (docs/policy.md) */
static void show_damon_stat(struct out *o)
{
	static const char *const v[3] = { "absent", "off", "on" };
	int on = damon_stat_on();

	out_str(o, "damon_stat", "  DAMON_STAT:", v[on + 1],
		on == 1 ? "on (it makes pages old: some touched pages count as untouched)" : v[on + 1]);
}

static void section_kernel(struct out *o)
{
	struct utsname un;

	out_text(o, "Kernel and configuration\n");
	out_obj(o, "kernel");
	if (uname(&un)) {
		show_na(o, "release", "  release:", strerror(errno));
	} else {
		out_str(o, "release", "  release:", un.release, un.release);
		out_str(o, "machine", "  machine:", un.machine, un.machine);
	}
	out_int(o, "page_size", "  page_size:", mmt_page_size(), 1);
	show_mode(o, "thp_enabled", "  THP enabled:", "enabled");
	show_mode(o, "thp_shmem_enabled", "  THP shmem_enabled:", "shmem_enabled");
	show_folios(o);
	show_damon_stat(o);
	out_text(o, "  module info:\n");
	show_info(o);
	out_obj_end(o);
}

static void show_knob(struct out *o, const char *knob)
{
	char v[64], label[64];

	snprintf(label, sizeof(label), "  %s:", knob);
	if (mmt_knob_read(knob, v, sizeof(v))) {
		show_na(o, knob, label, mmt_errmsg());
		return;
	}
	v[strcspn(v, " \n")] = '\0';
	out_value(o, knob, v);
	out_str(o, NULL, label, NULL, v);
}

static void rule_num(struct out *o, const char *key, unsigned long long v, int ok, int w)
{
	out_uint(o, key, NULL, v, ok);
	if (ok)
		out_text(o, " %*llu", w, v);
	else
		out_text(o, " %*s", w, "-");
}

static void show_rule(struct out *o, const struct mmt_prule *r, int mw)
{
	out_obj(o, NULL);
	out_str(o, "match", NULL, r->match, NULL);
	out_str(o, "order", NULL, r->order, NULL);
	out_text(o, "  %-*s %-7s", mw, r->match, r->order);
	rule_num(o, "hits", r->hits, r->has_hits, 10);
	rule_num(o, "pages", r->pages, r->has_pages, 10);
	rule_num(o, "prefaulted", r->prefaulted, r->has_prefaulted, 10);
	rule_num(o, "untouched", r->untouched, r->has_untouched, 10);
	out_text(o, "\n");
	out_obj_end(o);
}

static void show_rules(struct out *o)
{
	struct mmt_policy *ps;
	int i, mw = 7;

	if (!mmt_module_loaded()) {
		section_na(o, "rules", "mmtune module not loaded");
		return;
	}
	if (policy_absent()) {
		section_na(o, "rules", "no policy file: module without per-process rules");
		return;
	}
	ps = calloc(1, sizeof(*ps));
	if (!ps || read_policy(ps)) {
		section_na(o, "rules", "the policy file cannot be read");
		free(ps);
		return;
	}
	for (i = 0; i < ps->nr; i++)
		if ((int)strlen(ps->r[i].match) > mw)
			mw = (int)strlen(ps->r[i].match);
	snprintf(ps->def.match, sizeof(ps->def.match), "default");
	if (ps->default_order >= 0)
		snprintf(ps->def.order, sizeof(ps->def.order), "%d", ps->default_order);
	out_text(o, "  %-*s %-7s %10s %10s %10s %10s\n", mw, "rule", "order", "hits", "pages",
		 "prefaulted", "untouched");
	out_arr(o, "rules");
	for (i = 0; i < ps->nr; i++)
		show_rule(o, &ps->r[i], mw);
	show_rule(o, &ps->def, mw);
	out_arr_end(o);
	free(ps);
}

static void section_settings(struct out *o)
{
	int order, via;

	out_text(o, "\nmmtune settings and rules\n");
	out_obj(o, "settings");
	show_knob(o, "stats_enable");
	show_knob(o, "latency_enable");
	show_knob(o, "usefulness_enable");
	if (mmt_order_get(&order, &via))
		show_na(o, "order", "  order:", mmt_errmsg());
	else
		out_int(o, "order", "  order:", order, 1);
	show_rules(o);
	out_obj_end(o);
}

/* ---- counters: /proc/vmstat, the stats file, the usefulness file */

static void add(struct snap *s, const char *name, const char *v)
{
	struct ctr *c;

	if (s->n >= NCTR)
		return;
	c = &s->c[s->n++];
	snprintf(c->name, sizeof(c->name), "%.63s", name);
	c->ok = !mmt_parse_u64(v, &c->v);
}

static void snap_vmstat(struct snap *s, char *buf)
{
	char name[64], *line, *save;
	unsigned long long v;

	if (slurp("/proc/vmstat", buf, BUFSZ, s->why_vmstat, sizeof(s->why_vmstat)))
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		if (!strcmp(name, "pgfault") || !strcmp(name, "pgmajfault") ||
		    !strncmp(name, "workingset_", 11))
			add(s, name, line + strlen(name) + 1);
	}
}

/* The usefulness file's "key: value" pairs (debugfs alone has it): count, or -1 after saying why. */
static int useful_kv(struct mmt_kv *kv, char *why, size_t wl, char *buf)
{
	long r = mmt_knob_read_n("usefulness", buf, BUFSZ);
	int n;

	if (r < 0) {
		snprintf(why, wl, "%s", mmt_errmsg());
		return -1;
	}
	n = mmt_parse_info(buf, (size_t)r, kv, MAXKV);
	if (n < 0)
		snprintf(why, wl, "unexpected content in the module's usefulness file");
	return n;
}

/* The counters (keys NULL), or the usefulness file's keys, into s. */
static void snap_knob(struct snap *s, const char *const *keys, char *why, size_t wl, char *buf)
{
	struct mmt_kv kv[MAXKV];
	int n, i;

	if (keys) {
		n = useful_kv(kv, why, wl, buf);
	} else {
		n = mmt_stats_read(kv, MAXKV);
		if (n < 0)
			snprintf(why, wl, "%s", mmt_errmsg());
	}
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		if (keys && strcmp(kv[i].key, keys[0]) && strcmp(kv[i].key, keys[1]))
			continue;
		if (s->n < NCTR)
			add(s, kv[i].key, kv[i].value);
	}
	if (keys && !mmt_kv_get(kv, n, keys[0]))
		snprintf(why, wl, "the usefulness file shows no counts");
	if (keys && mmt_kv_get(kv, n, "state"))
		snprintf(s->useful_state, sizeof(s->useful_state), "%s",
			 mmt_kv_get(kv, n, "state"));
}

static const char *const useful_keys[] = { "prefaulted", "untouched" };

static void take_snap(struct snap *s, char *buf)
{
	memset(s, 0, sizeof(*s));
	snap_vmstat(s, buf);
	snap_knob(s, NULL, s->why_stats, sizeof(s->why_stats), buf);
	snap_knob(s, useful_keys, s->why_useful, sizeof(s->why_useful), buf);
}

/* ---- running CMD */

struct runres {
	char **cmd;
	int status;
	double wall;
};

/*
 * The child: CMD's standard output goes to our standard error, so that
 * the report on standard output stays whole (and --json one document).
 * An exec failure goes back through the close-on-exec pipe.
 */
static void __attribute__((noreturn)) exec_child(char **cmd, int fd, const struct sigaction *old)
{
	int e;

	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGQUIT, &old[1], NULL);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) >= 0)
		execvp(cmd[0], cmd);
	e = errno;
	if (write(fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * fork/exec CMD and wait, SIGINT and SIGQUIT ignored meanwhile as
 * system(3) does: Ctrl-C stops CMD, and the report of its run follows.
 * A CMD that cannot be run is refused before any report.  0, or an exit
 * code after saying why.
 */
static int run_cmd(struct runres *rr)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old[2];
	int p[2], e = 0;
	double t0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return lib_fail(mmt_errno_to_err(errno, "pipe", NULL));
	fflush(NULL);
	sigaction(SIGINT, &ign, &old[0]);
	sigaction(SIGQUIT, &ign, &old[1]);
	t0 = mono_now();
	pid = fork();
	if (!pid)
		exec_child(rr->cmd, p[1], old);
	if (pid < 0)
		e = errno;	/* before the calls below change it */
	close(p[1]);
	if (pid > 0 && read(p[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(p[0]);
	while (pid > 0 && waitpid(pid, &rr->status, 0) < 0 && errno == EINTR)
		;
	rr->wall = mono_now() - t0;
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGQUIT, &old[1], NULL);
	if (pid < 0) {
		fprintf(stderr, PROG ": report: cannot fork: %s\n", strerror(e));
		return MMT_EXIT_FAIL;
	}
	if (e)
		return usage_err("report", "cannot run '%.80s': %s", rr->cmd[0], strerror(e));
	return 0;
}

/* ---- section 3: the run, or the counters now */

static const struct ctr *find(const struct snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

static void ctr_row(struct out *o, const struct ctr *a, const struct snap *after)
{
	const struct ctr *b = after ? find(after, a->name) : NULL;
	int ok = a->ok && (!after || (b && b->ok));
	unsigned long long v = after && ok ? b->v - a->v : a->v;

	out_uint(o, a->name, NULL, v, ok);
	if (ok)
		out_text(o, "  %-34s %14llu\n", a->name, v);
	else
		out_text(o, "  %-34s %14s\n", a->name, "unavailable");
}

static void show_ctrs(struct out *o, const struct snap *b, const struct snap *a)
{
	int i;

	out_text(o, "  %-34s %14s\n", "counter", a ? "delta" : "value");
	out_obj(o, a ? "deltas" : "values");
	for (i = 0; i < b->n; i++)
		ctr_row(o, &b->c[i], a);
	out_obj_end(o);
	if (b->why_vmstat[0])
		show_na(o, "vmstat", "  vmstat:", b->why_vmstat);
	if (b->why_stats[0])
		show_na(o, "stats", "  stats:", b->why_stats);
	if (b->why_useful[0])
		show_na(o, "usefulness", "  usefulness:", b->why_useful);
}

/* useful % over the run: (prefaulted - untouched) / prefaulted of the deltas */
static void show_useful_delta(struct out *o, const struct snap *b, const struct snap *a)
{
	const struct ctr *p0 = find(b, "prefaulted"), *u0 = find(b, "untouched");
	const struct ctr *p1 = find(a, "prefaulted"), *u1 = find(a, "untouched");
	unsigned long long dp, du;
	char t[32];

	if (!p0 || !u0 || !p1 || !u1 || !p0->ok || !u0->ok || !p1->ok || !u1->ok)
		return;
	dp = p1->v - p0->v;
	du = u1->v - u0->v;
	/* off for all or part of the run: no pre-mapped page was judged */
	if (strcmp(b->useful_state, "on") || strcmp(a->useful_state, "on")) {
		show_na(o, "useful_pct", "  useful over the run:",
			!strcmp(b->useful_state, "off") || !strcmp(a->useful_state, "off") ?
			"usefulness is off: mmtunectl set usefulness_enable 1" :
			"usefulness is unavailable here: see the Usefulness section");
		return;
	}
	if (!dp || du > dp) {
		show_na(o, "useful_pct", "  useful over the run:", "nothing prefaulted");
		return;
	}
	snprintf(t, sizeof(t), "%.1f%%", 100.0 * (double)(dp - du) / (double)dp);
	out_str(o, NULL, "  useful over the run:", NULL, t);
	out_float(o, "useful_pct", "%.1f", 100.0 * (double)(dp - du) / (double)dp);
}

static void show_exit(struct out *o, const struct runres *rr)
{
	char t[64];
	int st = rr->status;

	if (WIFSIGNALED(st))
		snprintf(t, sizeof(t), "killed by signal %d", WTERMSIG(st));
	else
		snprintf(t, sizeof(t), "%d", WEXITSTATUS(st));
	out_str(o, NULL, "  exit status:", NULL, t);
	out_int(o, "exit_status", NULL, WEXITSTATUS(st), WIFEXITED(st));
	out_int(o, "signal", NULL, WTERMSIG(st), WIFSIGNALED(st));
	snprintf(t, sizeof(t), "%.3f s", rr->wall);
	out_str(o, NULL, "  wall time:", NULL, t);
	out_float(o, "wall_seconds", "%.3f", rr->wall);
}

static void section_run(struct out *o, const struct runres *rr, const struct snap *b,
			const struct snap *a)
{
	char cmd[256] = "";
	int i;

	out_obj(o, "run");
	if (!rr) {
		out_text(o, "\nCounters now (absolute values, no command run)\n");
		out_str(o, "command", NULL, NULL, NULL);
		show_ctrs(o, b, NULL);
		out_obj_end(o);
		return;
	}
	for (i = 0; rr->cmd[i]; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%s", i ? " " : "", rr->cmd[i]);
	out_text(o, "\nRun of: %s\n", cmd);
	out_arr(o, "command");
	for (i = 0; rr->cmd[i]; i++)
		out_item(o, rr->cmd[i]);
	out_arr_end(o);
	show_exit(o, rr);
	show_ctrs(o, b, a);
	show_useful_delta(o, b, a);
	out_obj_end(o);
}

/* ---- sections 4 and 5: usefulness, latency */

static void section_useful(struct out *o, char *buf)
{
	static const char *const keys[] = { "state", "prefaulted", "untouched", "useful",
					    "beyond_window", "missed", "reclaim_scanned" };
	struct mmt_kv kv[MAXKV];
	long r = mmt_knob_read_n("usefulness", buf, BUFSZ);
	int n;

	out_text(o, "\nUsefulness\n");
	n = r < 0 ? -1 : mmt_parse_info(buf, (size_t)r, kv, MAXKV);
	if (n < 0)
		section_na(o, "usefulness", r < 0 ? mmt_errmsg() : "unexpected content");
	else
		show_lines(o, "usefulness", kv, n, keys, sizeof(keys) / sizeof(keys[0]), "  ",
			   "not in the usefulness file");
}

/*
 * The nearest-rank percentile pm (per mille) of one kind: the upper
 * bound of the bucket holding the ceil(pm * n / 1000)-th sample.  The
 * histogram knows no more than the bucket, so its upper bound is what
 * can be said: "at most".  0 when there are no samples.
 */
static unsigned long long lat_percentile(const struct mmt_latency *l, int fa, unsigned pm)
{
	unsigned long long n = 0, rank, cum = 0;
	int i;

	for (i = 0; i < l->nb; i++)
		n += fa ? l->b[i].fault_around : l->b[i].no_fault_around;
	if (!n)
		return 0;
	rank = (pm * n + 999) / 1000;
	for (i = 0; i < l->nb; i++) {
		cum += fa ? l->b[i].fault_around : l->b[i].no_fault_around;
		if (cum >= rank)
			return l->b[i].high;
	}
	return l->b[l->nb - 1].high;
}

static void lat_kind(struct out *o, const struct mmt_latency *l, int fa)
{
	static const unsigned pm[] = { 500, 900, 990, 999 };
	static const char *const pk[] = { "p50", "p90", "p99", "p99.9" };
	unsigned long long n = 0;
	size_t i;
	int b;

	for (b = 0; b < l->nb; b++)
		n += fa ? l->b[b].fault_around : l->b[b].no_fault_around;
	out_obj(o, fa ? "fault_around" : "no_fault_around");
	out_uint(o, "samples", NULL, n, 1);
	out_text(o, "  %-16s %10llu", fa ? "fault-around" : "no fault-around", n);
	for (i = 0; i < 4; i++) {
		out_uint(o, pk[i], NULL, lat_percentile(l, fa, pm[i]), n > 0);
		if (n)
			out_text(o, " %10llu", lat_percentile(l, fa, pm[i]));
		else
			out_text(o, " %10s", "-");
	}
	out_text(o, "\n");
	out_obj_end(o);
}

static void section_latency(struct out *o)
{
	struct mmt_latency *l = calloc(1, sizeof(*l));
	const char *unit;
	int n = l ? mmt_latency_read(l) : MMT_EIO;

	out_text(o, "\nFault latency\n");
	if (n <= 0) {
		section_na(o, "latency", !l ? "out of memory" : n < 0 ? mmt_errmsg() :
			   "no histogram in the latency file");
		free(l);
		return;
	}
	unit = mmt_kv_get(l->kv, l->nkv, "unit");
	unit = unit ? unit : "ns";
	out_text(o, "  percentiles: the upper bound of the histogram bucket holding them, in %s\n", unit);
	out_text(o, "  %-16s %10s %10s %10s %10s %10s\n", "faults", "samples", "p50", "p90", "p99", "p99.9");
	out_obj(o, "latency");
	out_str(o, "unit", NULL, unit, NULL);
	out_str(o, "bound", NULL, "bucket upper bound", NULL);
	lat_kind(o, l, 1);
	lat_kind(o, l, 0);
	out_obj_end(o);
	free(l);
}

/* ---- the verb */

static int report_args(int argc, char **argv, struct runres *rr, int *json, const char **replay)
{
	int c;

	while ((c = getopt_long(argc, argv, report_optstring, report_opts, NULL)) != -1) {
		if (c == 'j')
			*json = 1;
		else if (c == 'r')
			*replay = optarg;
		else
			return bad_opt("report", c, argv);
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return usage_err("report", "unexpected argument '%.40s' (a command goes after --)",
				 argv[optind]);
	if (optind == argc && !strcmp(argv[optind - 1], "--"))
		return usage_err("report", "no command after --");
	rr->cmd = optind < argc ? argv + optind : NULL;
	return 0;
}

static int do_report(int argc, char **argv)
{
	struct runres rr = { 0 };
	struct snap *s = calloc(2, sizeof(*s));
	char *buf = malloc(BUFSZ);
	const char *replay = NULL;
	int json = 0, err;
	struct out o;

	err = report_args(argc, argv, &rr, &json, &replay);
	if (!err && replay)	/* a bad record stops the report before it begins */
		err = replay_check(replay);
	if (!err && (!s || !buf))
		err = lib_fail(MMT_EIO);
	if (!err)
		take_snap(&s[0], buf);
	if (!err && rr.cmd && !(err = run_cmd(&rr)))
		take_snap(&s[1], buf);
	if (!err) {
		out_init(&o, json, W);
		out_obj(&o, NULL);
		section_kernel(&o);
		section_settings(&o);
		section_run(&o, rr.cmd ? &rr : NULL, &s[0], rr.cmd ? &s[1] : NULL);
		section_useful(&o, buf);
		section_latency(&o);
		if (replay) {
			out_text(&o, "\nReplayed orders (docs/replay.md)\n");
			err = replay_section(&o, replay);
		}
		out_obj_end(&o);
		if (!err && !mmt_module_loaded())
			err = lib_fail(MMT_ENOMOD);
	}
	free(s);
	free(buf);
	return err;
}
