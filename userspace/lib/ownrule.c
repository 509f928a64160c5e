// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl's own rule in the module's policy: put first (first match
 * wins) and taken out again, each by one write of the module's "first"
 * or "drop" to /sys/kernel/mm/mmtune/rules/edit.  The module edits its
 * rules as they are, so a concurrent editor's stay, and nothing of the
 * policy is read back as text to be written again.  Without that tree
 * (a kernel whose /sys/kernel/mm the module cannot find: docs/design.md)
 * the same edit goes to the policy parameter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgrun.h"
#include "priv.h"
#include "mmtune_abi.h"

int mmt_rules_edit(const char *line)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/" MMT_ABI_RULES_DIR "/" MMT_ABI_RULES_EDIT, mmt_sysfs_mm());
	if (access(p, F_OK)) {
		/* the parameter takes ';' for a newline, debugfs sets alone */
		if (strchr(line, ';'))
			return mmt__fail(MMT_EINVAL, "a ';' in a rule needs %s", p);
		return mmt_knob_write("policy", line);
	}
	if (mmt__write_path(p, line)) {
		int e = errno, err = mmt_errno_to_err(e, p, line);

		errno = e;	/* the kernel's error, for the caller */
		return err;
	}
	return MMT_OK;
}

int mmt_policy_own(const char *match, int order)
{
	char v[MMT_ABI_MATCH_MAX + 32];
	int n;

	if (order >= 0)
		n = snprintf(v, sizeof(v), "first %s order=%d", match, order);
	else
		n = snprintf(v, sizeof(v), "drop %s", match);
	if (n < 0 || (size_t)n >= sizeof(v))
		return mmt__fail(MMT_EINVAL, "the rule '%s' is longer than the module takes", match);
	return mmt_rules_edit(v);
}
