// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl advise --pid PID | --cgroup PATH: advice for processes that
 * are running, without a restart, from what the module measures now:
 * the rss file's pages of each file they map (rss.c), those
 * fault-around mapped ahead and that nobody read since usefulness was
 * enabled.  A record (advise.c) predicts every order; this cannot: it
 * knows the current order's waste, and a bound on order 0's faults (each
 * page read so far faulting alone).  So it advises order 0 for the files
 * whose mapped pages are mostly untouched, and nothing for the rest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "advlive.h"

/* A file is advised order 0 when more than this share of its pages is untouched. */
#define LIVE_UNTOUCHED_PCT	50

/* The rule key that names the processes: pid=N or cgroup=PATH. */
static void live_key(const struct adv_live *l, char *b, size_t n)
{
	if (l->pid)
		snprintf(b, n, "pid=%ld", l->pid);
	else
		snprintf(b, n, "cgroup=%s", l->cgroup);
}

static int live_advised(const struct rfile *f)
{
	return f->mapped && f->untouched * 100 > f->mapped * LIVE_UNTOUCHED_PCT;
}

/* A file's row; @adv: 0 keep, 1 order 0, 2 order 0 but no rule can name it. */
static void live_file(struct out *o, const struct rfile *f, unsigned long long kib, int adv)
{
	static const char *const what[] = { "keep", "order 0", "unnamed" };

	out_text(o, "%12llu %14llu %9llu %%  %-7s  %s\n", f->mapped * kib, f->untouched * kib,
		 f->mapped ? f->untouched * 100 / f->mapped : 0, what[adv], f->path);
	out_obj(o, NULL);
	out_str(o, "file", NULL, f->path, NULL);
	out_uint(o, "mapped", NULL, f->mapped, 1);
	out_uint(o, "untouched", NULL, f->untouched, 1);
	out_uint(o, "mapped_kib", NULL, f->mapped * kib, 1);
	out_uint(o, "untouched_kib", NULL, f->untouched * kib, 1);
	out_int(o, "order", NULL, 0, adv);	/* null: keep */
	out_bool(o, "nameable", adv != 2);
	out_obj_end(o);
}

/* The table, the sums and the rules: text or JSON, in @o's open object. */
static void live_show(struct out *o, const struct adv_live *l, const struct rfile *f, size_t n,
		      unsigned long long psz)
{
	unsigned long long kib = psz / 1024, freed = 0, faults = 0;
	char key[PATH_MAX + 16];
	size_t i;
	int cur, via_kernel = 0;

	live_key(l, key, sizeof(key));
	out_text(o, "live advice for %s: the pages of each file it maps, and those fault-around "
		 "mapped ahead that nobody read since usefulness was enabled\n", key);
	out_str(o, "processes", NULL, key, NULL);
	if (!mmt_order_get(&cur, &via_kernel)) {
		out_text(o, "the current order: %d (%s); a rule may give these processes another\n", cur,
			 via_kernel ? "the kernel's fault_around_bytes" : "the module's fault_around_order");
		out_int(o, "current_order", NULL, cur, 1);
	}
	out_text(o, "\n%12s %14s %11s  %-7s  %s\n", "mapped KiB", "untouched KiB", "untouched", "advice",
		 "file");
	out_arr(o, "files");
	for (i = 0; i < n; i++) {
		int adv = live_advised(&f[i]) ? 2 - rule_can_name(f[i].path) : 0;

		live_file(o, &f[i], kib, adv);
		if (adv == 1) {
			freed += f[i].untouched;
			faults += f[i].mapped - f[i].untouched;
		}
	}
	out_arr_end(o);
	out_uint(o, "freed_kib", NULL, freed * kib, 1);
	out_uint(o, "faults_at_most", NULL, faults, 1);
	out_text(o, "\nat order 0 those files would map %llu KiB less ahead, for at most %llu faults "
		 "(each page read so far faulting alone; the current order took some of them)\n",
		 freed * kib, faults);
	out_text(o, "to set it:\n");
	for (i = 0; i < n; i++)
		if (live_advised(&f[i]) && rule_can_name(f[i].path))
			out_text(o, "  " PROG " policy add \"%s file=%s order=0\"\n", key, f[i].path);
	if (!freed)
		out_text(o, "  nothing: no file a rule can name has pages mostly untouched\n");
	out_text(o, "(order 0: more than %d %% of the file's mapped pages untouched; unnamed: "
		 "the same, but a rule cannot name its path)\n", LIVE_UNTOUCHED_PCT);
	out_text(o, "the faults at every order need a record of the program: " PROG " advise -- COMMAND\n");
}

int adv_live(const struct adv_live *l)
{
	struct rss_head h = { 0 };
	struct rfile *f = NULL;
	char *buf = NULL;
	struct out o;
	size_t n = 0;
	int rc = rss_files_of(l->pid, l->cgroup, &h, &f, &n, &buf);

	if (!rc && (!h.available || !h.useful)) {
		fprintf(stderr, PROG ": advise: %s: enable it (" PROG " set usefulness_enable 1) "
			"and let the processes run a while\n",
			!h.available ? "the module measures no untouched pages here" : "usefulness is off");
		rc = MMT_EXIT_FAIL;
	}
	if (!rc) {
		out_init(&o, l->json, 0);
		out_obj(&o, NULL);
		live_show(&o, l, f, n, h.page_size);
		out_obj_end(&o);
	}
	free(f);
	free(buf);
	return rc;
}
