// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl's own rule in the module's policy: put first (first match
 * wins) and taken out again, each by one write of the module's "first"
 * or "drop" (the module edits its rules as they are: a concurrent
 * editor's stay).  With a module from before those verbs: the user's
 * rules written back as read, in their order, the policy re-read before
 * each write, so that rules the user changes meanwhile are kept (all but
 * a change between the read and the write).
 *
 * A user's rule can become one the module will not take back: a pid= rule
 * whose process exited (ESRCH, on modules that refuse any dead pid) or a
 * cgroup= rule whose cgroup was removed (ENOENT).  Such rules are dropped
 * only when a write fails with them, and named in 'dropped', so that the
 * caller can say the policy is not as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgrun.h"
#include "priv.h"

#define POL_BUF		65536
#define OWN_TRIES	3

/* The rule's match word (its first), into m. */
static void match_of(const char *rule, char *m, size_t len)
{
	size_t n = strcspn(rule, " \t");

	snprintf(m, len, "%.*s", (int)(n < len ? n : len - 1), rule);
}

/* A rule the module would refuse now: exited process, removed cgroup. */
static int is_dead(const char *match, const char *comment)
{
	const char *root = mmt_cgroup2_root();
	char dir[PATH_MAX + 512];
	struct stat st;

	if (!strncmp(match, "pid=", 4))
		return comment && strstr(comment, "exited") != NULL;
	if (!strncmp(match, "cgroup=", 7) && root) {
		snprintf(dir, sizeof(dir), "%s%s", strcmp(root, "/") ? root : "", match + 7);
		return stat(dir, &st) != 0;
	}
	return 0;
}

static void add_dropped(char *dropped, size_t dlen, const char *rule)
{
	size_t l = strlen(dropped);

	if (l + 1 < dlen)
		snprintf(dropped + l, dlen - l, "%s%s", l ? ", " : "", rule);
}

/*
 * The text to write: own first (NULL: none), then the rules of policy
 * (the module's file) but own's match; dead ones left out if drop_dead.
 */
static int build(char *policy, const char *match, const char *own, int drop_dead,
		 char *out, size_t len, char *dropped, size_t dlen)
{
	char *line, *save = NULL, m[512];
	size_t off = 0;

	out[0] = '\0';
	if (own)
		off += (size_t)snprintf(out, len, "%s\n", own);
	for (line = strtok_r(policy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *end;

		if (hash)
			*hash++ = '\0';
		line += strspn(line, " \t");
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*line)
			continue;
		match_of(line, m, sizeof(m));
		if (!strcmp(m, match))
			continue;
		if (drop_dead && is_dead(m, hash)) {
			add_dropped(dropped, dlen, line);
			continue;
		}
		if (off + strlen(line) + 2 > len)
			return mmt__fail(MMT_EIO, "the policy is larger than %zu bytes", len);
		off += (size_t)snprintf(out + off, len - off, "%s\n", line);
	}
	if (!off)
		snprintf(out, len, "clear\n");
	return MMT_OK;
}

/*
 * One write: the module's "first RULE" or "drop MATCH", which edit the
 * rules as they are in the kernel, so that another editor's rules stay.
 * MMT_OK, or MMT__NOPLANE where the module has no such verbs (a module
 * from before them takes the write as a set and refuses it: EINVAL).
 */
static int own_verb(const char *match, int order)
{
	char v[600];
	int err;

	if (order >= 0)
		snprintf(v, sizeof(v), "first %s order=%d", match, order);
	else
		snprintf(v, sizeof(v), "drop %s", match);
	err = mmt_knob_write("policy", v);
	if (err && errno == EINVAL)
		return MMT__NOPLANE;
	return err;
}

int mmt_policy_own(const char *match, int order, char *dropped, size_t dlen)
{
	char *pol = malloc(POL_BUF), *text = malloc(POL_BUF), own[256];
	int err = MMT_OK, tries, e = 0;
	long r;

	if (dlen)
		dropped[0] = '\0';
	err = own_verb(match, order);
	if (err != MMT__NOPLANE) {
		free(pol);
		free(text);
		return err;
	}
	err = MMT_OK;
	if (!pol || !text) {
		free(pol);
		free(text);
		return mmt__fail(MMT_EIO, "out of memory");
	}
	if (order >= 0)
		snprintf(own, sizeof(own), "%s order=%d", match, order);
	for (tries = 0; tries < OWN_TRIES; tries++) {
		r = mmt_knob_read_n("policy", pol, POL_BUF);
		if (r < 0) {
			err = (int)r;
			e = errno;
			break;
		}
		if (dlen)
			dropped[0] = '\0';
		err = build(pol, match, order >= 0 ? own : NULL, tries > 0, text, POL_BUF, dropped, dlen);
		if (err)
			break;
		err = mmt_knob_write("policy", text);
		e = errno;
		if (!err || (e != ESRCH && e != ENOENT))
			break;
	}
	free(pol);
	free(text);
	errno = e;
	return err;
}
