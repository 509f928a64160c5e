// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: how every debugfs write handler of the module takes its write,
 * and how its 0/1 files read and write (declared in mmtune.h).  A file of
 * its own, below every feature, so that no feature file calls into
 * main.c, which lists the features.
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mmtune.h"

char *mmtune_write_get(const char __user *ubuf, size_t count, loff_t *ppos,
		       size_t max, bool chomp)
{
	char *buf;

	if (*ppos || !count || count > max)
		return ERR_PTR(-EINVAL);
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return buf;
	if (strlen(buf) != count) {
		kfree(buf);
		return ERR_PTR(-EINVAL);
	}
	if (chomp && buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	return buf;
}

ssize_t mmtune_write_done(int ret, size_t count, loff_t *ppos)
{
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

int mmtune_write_get_bool(const char __user *ubuf, size_t count, loff_t *ppos,
			  bool *val)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, 2, true);
	int ret = 0;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (strcmp(buf, "0") && strcmp(buf, "1"))
		ret = -EINVAL;
	*val = buf[0] == '1';
	kfree(buf);
	return ret;
}

ssize_t mmtune_read_bool(char __user *ubuf, size_t count, loff_t *ppos,
			 bool val)
{
	char buf[2] = { val ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

/*
 * The writes that change what kernel code runs or what a kernel variable
 * holds, not only mmtune's own state: root alone (a uid 0 in a container
 * that lost CAP_SYS_ADMIN but sees /sys/module read-write is refused),
 * and not under lockdown, which forbids changing the running kernel's
 * code and memory from user space.  The reason given to lockdown is that
 * of unsafe module parameters: its log line names it ("Lockdown: ...:
 * unsafe module parameters is restricted"), and ours says which write.
 */
int mmtune_kernel_write_allowed(const char *what)
{
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = security_locked_down(LOCKDOWN_MODULE_PARAMETERS);
	if (ret) {
		pr_warn_ratelimited("%s: refused under lockdown (%d)\n", what, ret);
		return ret;
	}
	return 0;
}
