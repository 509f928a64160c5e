// SPDX-License-Identifier: GPL-2.0
/*
 * stats --prometheus --rss: every process of the module's rss file (a
 * plain read, no selection written: all of them) summed under the policy
 * rule it matches first, in policy order, as the module matches faults:
 * pid= its pid, comm= its comm as the rss line gives it, cgroup= its
 * cgroup v2 path (/proc/PID/cgroup's "0::" line; env MMTUNE_PROC stands
 * for /proc in tests) that path or below it.  Processes no rule matches
 * go under the default; busy ones (mmap lock held) are only counted.
 * prom.c prints the sums.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

/* Each process line of the rest of the file into by (file lines: in its figures). */
static void sum_procs(const struct mmt_policy *ps, struct rss_by_rule *by,
		      unsigned long long page_size, char **save)
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

int rss_by_rule(const struct mmt_policy *ps, struct rss_by_rule *by)
{
	char path[PATH_MAX + 16], *buf = NULL, *save;
	struct rss_head h;
	int fd, rc;

	memset(by, 0, sizeof(*by));
	rc = rss_path(path, sizeof(path));
	if (rc)
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? left_out("this mmtune module has no rss file") :
					 rss_open_fail(path, errno);
	rc = rss_read_all(fd, path, &buf);
	close(fd);
	if (!rc)
		rc = rss_header(buf, &h, &save);
	if (!rc && head_ok(&h))
		sum_procs(ps, by, h.page_size, &save);
	free(buf);
	return rc;
}
