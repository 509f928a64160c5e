// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the module's tunables through the files lockdown leaves
 * usable, the module's parameters: a read gives the parameter's value
 * (the debugfs file's), a write goes to it.  The records (info, stats,
 * latency, policy) are read from /sys/kernel/mm/mmtune/ by sysrec.c.
 * The names come from module/mmtune_abi.h, the table the module itself
 * is built from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"
#include "mmtune_abi.h"

static const char *param_of(const char *knob)
{
	size_t i;

	for (i = 0; mmt_abi_tunables[i].param; i++)
		if (!strcmp(knob, mmt_abi_tunables[i].debugfs))
			return mmt_abi_tunables[i].param;
	return NULL;
}

static void param_path(char *p, size_t n, const char *param)
{
	snprintf(p, n, "%s/parameters/%s", mmt_sysfs_module(), param);
}

/*
 * Whether the module has the whole lockdown-proof interface (a module
 * from before it has the order's parameter alone: debugfs then).
 */
int mmt__plane_present(void)
{
	return strcmp(mmt_interface(), "debugfs") != 0;
}

long mmt__plane_read(const char *knob, char *buf, size_t len)
{
	const char *param = param_of(knob);
	char p[PATH_MAX];

	/*
	 * The records are sysrec.c's: stats' parameter (stats_reset) has no
	 * value to read, policy's lists the rules without their counters.
	 */
	if (!mmt__plane_present() || !param || !strcmp(knob, "stats") ||
	    !strcmp(knob, "policy"))
		return -1;
	param_path(p, sizeof(p), param);
	return mmt_read_path(p, buf, len);
}

int mmt__plane_write(const char *knob, const char *value)
{
	const char *param = param_of(knob);
	char p[PATH_MAX];

	if (!mmt__plane_present())
		return MMT__NOPLANE;
	if (!strcmp(knob, "stats")) {
		/* debugfs stats takes "0" for a reset */
		if (strcmp(value, "0") && strcmp(value, "0\n"))
			return MMT__NOPLANE;
		param = "stats_reset";
		value = "1";
	}
	if (!param)
		return MMT__NOPLANE;
	/*
	 * A parameter holds a page, and takes ';' for a newline (a policy
	 * in /etc/modprobe.d has no other way): a longer policy, or one
	 * with ';' of its own, goes to debugfs as it is.
	 */
	if (!strcmp(param, "policy") &&
	    (strlen(value) >= (size_t)mmt_page_size() || strchr(value, ';')))
		return MMT__NOPLANE;
	param_path(p, sizeof(p), param);
	if (access(p, F_OK))
		return MMT__NOPLANE;	/* a module without it */
	if (mmt__write_path(p, value))
		return mmt_errno_to_err(errno, p, value);
	return MMT_OK;
}

const char *mmt_interface(void)
{
	char p[PATH_MAX];

	param_path(p, sizeof(p), "stats_enable");
	if (!access(p, F_OK) && !access(mmt_sysfs_mm(), F_OK))
		return "parameters and " MMT_ABI_SYSFS_DIR;
	return "debugfs";
}

const char *mmt_lockdown(void)
{
	static __thread char mode[32];
	char buf[128], *a, *b;

	if (mmt_read_path(MMT_ABI_LOCKDOWN, buf, sizeof(buf)) < 0)
		return "unknown";
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b || (size_t)(b - a) > sizeof(mode))
		return "unknown";
	snprintf(mode, sizeof(mode), "%.*s", (int)(b - a - 1), a + 1);
	return mode;
}
