// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the module's records typed: stats, latency and the policy
 * into their structs, from the sysfs files (sysrec.c), or the debugfs
 * file parsed (parse.c, policy.c) where the module has no sysfs tree.  The one place that knows that order,
 * and the one place that reads the policy again when it tore.  (info is
 * mmt_info(), in mmtune.c, whose orders read it.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"

#define TEXT_BUF	65536

/*
 * Editors beside us (mmtunectl run puts a rule in and takes it out) can
 * change the rules between the reads of one try, many times in a row on a
 * busy machine: tries enough for a dozen of them, a short sleep between.
 */
#define READ_TRIES	20

/* The debugfs file knob into *text (malloc'd): bytes, or an MMT_E* code. */
static long debugfs_text(const char *knob, char **text)
{
	long r;

	*text = malloc(TEXT_BUF);
	if (!*text)
		return mmt__fail(MMT_EIO, "out of memory");
	r = mmt_knob_read_n(knob, *text, TEXT_BUF);
	if (r < 0) {
		free(*text);
		*text = NULL;
	}
	return r;
}

/*
 * stats/ first, as the counters are reset through the parameters: the
 * debugfs file where a module has no stats/.
 */
int mmt_stats_read(struct mmt_kv *kv, int max)
{
	int n = mmt__sys_stats(kv, max);
	char *text;
	long r;

	if (n == MMT__NOPLANE) {
		r = debugfs_text("stats", &text);
		if (r < 0)
			return (int)r;
		n = mmt_parse_stats(text, (size_t)r, kv, max);
		free(text);
	}
	if (n < 0)
		return mmt__fail(MMT_EIO, "unexpected content in the module's stats file");
	return n;
}

/*
 * latency/ first, a value a file; the debugfs text where the module has
 * no sysfs tree.  A text that is not the latency text reads as no
 * histogram (the parser is tolerant of the rest).
 */
int mmt_latency_read(struct mmt_latency *lat)
{
	char *text;
	long r;
	int n = mmt__sys_latency(lat);

	if (n == MMT__NOPLANE) {
		r = debugfs_text("latency", &text);
		if (r < 0)
			return (int)r;
		n = mmt_parse_latency(text, (size_t)r, lat);
		free(text);
	}
	if (n < 0)
		memset(lat, 0, sizeof(*lat));
	return n < 0 ? 0 : n;
}

enum { TORN = 1, PARTIAL };	/* a try to make again */

/*
 * The debugfs policy text once, between two counts of policy/rules: a
 * count that moved is a tear; a text of another number of rules than the
 * count, the same before and after, is a change and one back, or a text
 * cut short.  MMT_OK, TORN, PARTIAL, or an MMT_E* code with the message.
 */
static int policy_debugfs(struct mmt_policy *p, char *buf)
{
	int before = mmt__sys_rules(), after, err;
	long r = mmt_knob_read_n("policy", buf, TEXT_BUF);

	if (r < 0) {
		if (r == MMT_ENOKNOB || (r == MMT_EIO && mmt__last_errno == ENOENT))
			return mmt__fail(MMT_ENOKNOB,
					 "this mmtune module has no policy (see 'mmtunectl status': policy)");
		return (int)r;
	}
	after = mmt__sys_rules();
	if (before != after)
		return TORN;
	err = mmt_parse_policy(buf, (size_t)r, p);
	if (err == MMT_EIO)
		return err;
	if (err)
		return mmt__sys_rules() != after ? TORN :
		       mmt__fail(MMT_EIO, "unexpected content in the module's policy file");
	return after < 0 || after == p->nr ? MMT_OK : PARTIAL;
}

/* One try: sysfs policy/ and the parameter, else the debugfs text. */
static int policy_once(struct mmt_policy *p, char *buf)
{
	int err = mmt__sys_policy(p);

	if (err == MMT__TORN)
		return TORN;
	if (err == MMT_EINVAL)
		return mmt__fail(MMT_EIO, "unexpected content in the module's policy file");
	if (err != MMT__NOPLANE)
		return err;
	return policy_debugfs(p, buf);
}

/*
 * A set with rules missing must never be taken for the whole set (it
 * would be written back as such): a torn or partial read is made again,
 * a short sleep between, and refused if it stays so.
 */
int mmt_policy_read(struct mmt_policy *p)
{
	char *buf = malloc(TEXT_BUF);
	int tries, rc = TORN;

	if (!buf)
		return mmt__fail(MMT_EIO, "out of memory");
	for (tries = 0; tries < READ_TRIES && rc > 0; tries++) {
		if (tries)
			usleep(1000 * (tries < 10 ? tries : 10));
		rc = policy_once(p, buf);
	}
	free(buf);
	if (rc == PARTIAL)
		return mmt__fail(MMT_EIO,
				 "read %d of the module's %d policy rules: refusing to go on with a partial set",
				 p->nr, mmt__sys_rules());
	if (rc == TORN)
		return mmt__fail(MMT_EIO, "the policy changed while read, %d times: try again",
				 READ_TRIES);
	return rc;
}

/* sysfs bpf/ alone: no debugfs file ever had it. */
int mmt_bpf_read(struct mmt_bpf_state *s)
{
	int err;

	if (!mmt_module_loaded())
		return mmt__fail(MMT_ENOMOD, "mmtune module is not loaded: run 'modprobe mmtune' as root");
	err = mmt__sys_bpf(s);
	if (err == MMT__NOPLANE)
		return mmt__fail(MMT_EIO, "this mmtune module has no BPF programs (no %s/" MMT_ABI_BPF_DIR
				 "/): it is older than mmtunectl", mmt_sysfs_mm());
	if (err)
		return mmt__fail(MMT_EIO, "unexpected content in %s/" MMT_ABI_BPF_DIR "/", mmt_sysfs_mm());
	return MMT_OK;
}
