// SPDX-License-Identifier: GPL-2.0
/*
 * stats --prometheus --rss: every process of the module's rss file (a
 * plain read, no selection written: all of them) summed under the policy
 * rule it matches first, in policy order, as the module matches faults:
 * pid= its pid, comm= its comm as the rss line gives it, cgroup= its
 * cgroup v2 path (/proc/PID/cgroup's "0::" line; env MMTUNE_PROC stands
 * for /proc in tests) that path or below it.  A rule with mapping keys
 * (file=, vma=, madv=) takes mappings, not processes: the module gives
 * each such rule's pages per process (a read with "rule=N" written
 * first), they are that rule's, and a process's other pages go to the
 * first rule of a process key it matches.  Processes no rule matches
 * go under the default; busy ones (mmap lock held) are only counted.
 * prom.c prints the sums.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

/* Why the metrics are left out: a note, and still exit 0 (see prom.c). */
static int left_out(const char *why)
{
	fprintf(stderr, PROG ": note: the rss metrics are left out: %s\n", why);
	return 0;
}

/* PID's cgroup v2 path into cg: 1, or 0 if there is none to read. */
static int proc_cgroup(long pid, char *cg, size_t n)
{
	char path[PATH_MAX], b[8192], *l;

	snprintf(path, sizeof(path), "%s/%ld/cgroup", proc_dir(), pid);
	if (mmt_read_path(path, b, sizeof(b)) < 0)
		return 0;
	for (l = b; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "0::", 3))
			continue;
		l += 3;
		snprintf(cg, n, "%.*s", (int)strcspn(l, "\n"), l);
		return 1;
	}
	return 0;
}

/* Whether cgroup cg is rule path p or below it ("/a" holds "/a/b", not "/ab"). */
static int below(const char *cg, const char *p)
{
	size_t n = strlen(p);

	while (n && p[n - 1] == '/')
		n--;	/* "/" holds every cgroup */
	return !strncmp(cg, p, n) && (cg[n] == '/' || !cg[n]);
}

/*
 * The index of the first rule process l matches, or -1.  An exited pid=
 * rule matches nobody: the module holds the process, not its number.  A
 * process gone before its cgroup file is read matches no cgroup= rule
 * (nothing says where it was); a later pid= or comm= rule may still take it.
 */
static int first_rule(const struct mmt_policy *ps, const struct rline *l)
{
	char cg[PATH_MAX];
	int i, have = -1;	/* cg: -1 not read yet, 0 none, 1 read */
	const char *v;
	long pid;

	for (i = 0; i < ps->nr; i++) {
		switch (rule_match(&ps->r[i], &pid, &v)) {
		case MATCH_PID:
			if (!ps->r[i].exited && pid == l->pid)
				return i;
			break;
		case MATCH_COMM:
			if (!strcmp(v, l->name))
				return i;
			break;
		case MATCH_CGROUP:
			if (have < 0)
				have = proc_cgroup(l->pid, cg, sizeof(cg));
			if (have && below(cg, v))
				return i;
			break;
		}
	}
	return -1;
}

/* A process's pages that rules with mapping keys took (pages). */
struct taken {
	long pid;
	unsigned long long mapped, untouched;
};

struct takens {
	struct taken *t;
	size_t n, cap;
};

static int taken_cmp(const void *a, const void *b)
{
	long x = ((const struct taken *)a)->pid, y = ((const struct taken *)b)->pid;

	return (x > y) - (x < y);
}

/* l's pages less what mapping rules took of its process (tk sorted by pid). */
static void take_off(const struct takens *tk, struct rline *l)
{
	struct taken key = { .pid = l->pid }, *t;
	size_t i;

	t = tk->n ? bsearch(&key, tk->t, tk->n, sizeof(key), taken_cmp) : NULL;
	if (!t)
		return;
	while (t > tk->t && t[-1].pid == l->pid)
		t--;
	for (i = t - tk->t; i < tk->n && tk->t[i].pid == l->pid; i++) {
		l->mapped -= tk->t[i].mapped < l->mapped ? tk->t[i].mapped : l->mapped;
		l->untouched -= tk->t[i].untouched < l->untouched ? tk->t[i].untouched : l->untouched;
	}
}

/*
 * Each process line of the rest of the file into by (file lines: in its
 * figures), less what mapping rules took; a process they took whole is
 * not counted again.
 */
static void sum_procs(const struct mmt_policy *ps, struct rss_by_rule *by,
		      unsigned long long page_size, char **save,
		      const struct takens *tk)
{
	struct rss_sum *s;
	struct rline l;
	int i;

	while (rss_next(save, &l)) {
		if (l.file)
			continue;
		if (l.busy) {
			by->busy++;
			continue;
		}
		take_off(tk, &l);
		if (!l.mapped)
			continue;
		i = first_rule(ps, &l);
		s = i < 0 ? &by->def : &by->r[i];
		s->mapped += l.mapped * page_size;
		s->untouched += l.untouched * page_size;
		s->procs++;
	}
	by->shown = 1;
}

/* The header's say: 1 to go on, or 0 after the note why the metrics are left out. */
static int head_ok(const struct rss_head *h)
{
	if (!h->available)
		return left_out("rss is unavailable on this kernel/arch (the module cannot walk page tables here)");
	if (!h->useful)
		return left_out("usefulness_enable is 0, so untouched would count only the pages the kernel itself maps old: run '" PROG " set usefulness_enable 1'");
	return 1;
}

/*
 * The rss file into *buf, with "rule=@rule" written first (0: none): 0,
 * -1 after the note why the metrics are left out, or an exit code.
 */
static int read_sel(const char *path, int rule, char **buf)
{
	char line[32];
	int fd = rss_open_sel(path, rule), rc;

	if (fd < 0 && errno == ENOENT)
		return left_out("this mmtune module has no rss file") - 1;
	if (fd < 0 && errno == EPERM && rule)
		return left_out("rules with file=, vma= or madv= take mappings, which only the module selects, and it refuses the selection (lockdown?)") - 1;
	if (fd < 0)
		return rss_open_fail(path, errno);
	snprintf(line, sizeof(line), "rule=%d\n", rule);
	if (rule && rss_write_sel(fd, line))
		rc = left_out("the module refused a rule= selection (a module older than this mmtunectl?)") - 1;
	else
		rc = rss_read_all(fd, path, buf);
	close(fd);
	return rc;
}

/*
 * Rule @i's pages, a rule with mapping keys, into by->r[i] and tk (per
 * process): 0, -1 if left out (a note said why), or an exit code.
 */
static int sum_map_rule(const char *path, int i, struct rss_by_rule *by,
			struct takens *tk)
{
	char *buf = NULL, *save;
	struct rss_head h;
	struct rline l;
	int rc = read_sel(path, i + 1, &buf);

	if (!rc)
		rc = rss_header(buf, &h, &save);
	while (!rc && rss_next(&save, &l)) {
		if (l.file || l.busy)
			continue;
		if (tk->n == tk->cap) {
			size_t cap = tk->cap ? 2 * tk->cap : 64;
			struct taken *t = realloc(tk->t, cap * sizeof(*t));

			if (!t) {
				rc = lib_fail(MMT_EIO);
				break;
			}
			tk->t = t;
			tk->cap = cap;
		}
		tk->t[tk->n++] = (struct taken){ l.pid, l.mapped, l.untouched };
		by->r[i].mapped += l.mapped * h.page_size;
		by->r[i].untouched += l.untouched * h.page_size;
		by->r[i].procs++;
	}
	free(buf);
	return rc;
}

int rss_by_rule(const struct mmt_policy *ps, struct rss_by_rule *by)
{
	char path[PATH_MAX + 16], *buf = NULL, *save;
	struct takens tk = { 0 };
	struct rss_head h;
	const char *v;
	long pid;
	int i, rc;

	memset(by, 0, sizeof(*by));
	rc = rss_path(path, sizeof(path));
	if (rc)
		return rc;
	rc = read_sel(path, 0, &buf);
	if (!rc)
		rc = rss_header(buf, &h, &save);
	if (!rc && head_ok(&h)) {
		for (i = 0; !rc && i < ps->nr; i++)
			if (rule_match(&ps->r[i], &pid, &v) == MATCH_MAP)
				rc = sum_map_rule(path, i, by, &tk);
		if (!rc) {
			if (tk.n)
				qsort(tk.t, tk.n, sizeof(*tk.t), taken_cmp);
			sum_procs(ps, by, h.page_size, &save, &tk);
		}
	}
	free(tk.t);
	free(buf);
	if (rc < 0)
		memset(by, 0, sizeof(*by));	/* left out, a note said why */
	return rc < 0 ? 0 : rc;
}
