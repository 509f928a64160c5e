// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the fault-around order knob.
 *
 * The kernel keeps its fault-around size in mm/memory.c: a static
 * "fault_around_bytes" up to 6.3, "fault_around_pages" from 6.4 on.  Both
 * kernels have the same debugfs accessors, fault_around_bytes_get() and
 * fault_around_bytes_set(), which convert bytes to pages where needed and
 * validate the value (power of two, at most PTRS_PER_PTE pages, at least
 * one page).  They are text symbols on every Debian kernel, also where
 * CONFIG_KALLSYMS_ALL=n hides the variable, so they are the first choice:
 * the kernel's own validation stays in force.
 *
 * Only if they are missing do we write the variable itself, and only
 * after verifying it: the symbol is exactly that name at offset 0, lies in
 * the kernel's data, holds a plausible value, and that value is what the
 * kernel's own debugfs file shows.  Anything less leaves the feature off.
 * We never decide by kernel version.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "mmtune_trace_order.h"

typedef int (*attr_get_t)(void *data, u64 *val);
typedef int (*attr_set_t)(void *data, u64 val);

static attr_get_t fa_get;
static attr_set_t fa_set;
static unsigned long *fa_var;	/* fallback: the variable itself */
static bool fa_var_pages;	/* it counts pages, not bytes */

static const char *fa_symbol = "none";
static char fa_reason[128] = "not initialised";

/*
 * Whose value the kernel holds.  fa_lock serialises every read-modify-
 * write of the kernel's size and of the state below: the knob, the
 * parameter, the policy's raise and its poll, load and unload.  Only the
 * kernel's own debugfs file bypasses it; such a write is noticed by
 * fa_sync_locked() the next time anyone looks.
 *
 * base is the user's order: what the knob and the parameter read and
 * write, what processes without a policy rule see, what clearing the
 * rules leaves in the kernel.  While the policy raises the kernel's size
 * (raised), the kernel holds max(base, floor); otherwise base itself.
 * written is what the kernel held when mmtune last wrote or looked: a
 * kernel value that differs from it was set through the kernel's own file
 * and becomes the base.  base_ours: the base was set through mmtune (knob,
 * parameter, load), so unload puts the load-time size back; a base set
 * through the kernel's own file is the user's and stays.
 */
enum fa_state {
	FA_LOADING,	/* before init: a parameter write waits for it */
	FA_READY,
	FA_OFF,		/* no knob on this kernel */
	FA_GONE,	/* unloading */
};

static enum fa_state fa_state = FA_LOADING;
static u64 loaded_bytes;
static unsigned int loaded_order;
static int pending_order = -1;	/* from the module parameter at load */
static u64 fa_written;
/*
 * The size the kernel's own file last held from the user (at load: what
 * was found).  A base written through mmtune that equals it is the
 * kernel's, not mmtune's: a tool that saved the user's size and puts it
 * back through the knob (mmstress --orders) does not make it mmtune's.
 */
static u64 fa_user_bytes;
unsigned int mmtune_fa_base;	/* read by the policy's fault path */
static bool fa_base_ours;
static bool fa_raised;
static unsigned int fa_floor;
static unsigned int fa_traced_base;	/* the base the last event showed */
static DEFINE_MUTEX(fa_lock);

/*
 * For tests/vm only (load time, 0444): 1 makes the read-back check of
 * fault_around_order= at load fail, 2 hides the knob as on a kernel
 * without it.  Error paths nothing else reaches on a working kernel.
 */
static unsigned int test_fault;
module_param(test_fault, uint, 0444);
MODULE_PARM_DESC(test_fault,
		 "for the test suite: 1 fails the load-time read-back check, 2 hides the knob");

bool mmtune_fa_available(void)
{
	return READ_ONCE(fa_state) == FA_READY;
}

/* A plausible fault-around size: whole pages, a power of two, <= PTE table. */
static bool plausible_bytes(u64 bytes)
{
	u64 pages = bytes >> PAGE_SHIFT;

	return bytes && !(bytes & ~PAGE_MASK) && is_power_of_2(pages) &&
	       pages <= PTRS_PER_PTE;
}

static int fa_read_bytes(u64 *bytes)
{
	if (fa_get)
		return fa_get(NULL, bytes);
	if (fa_var) {
		unsigned long v = READ_ONCE(*fa_var);

		*bytes = fa_var_pages ? (u64)v << PAGE_SHIFT : v;
		return 0;
	}
	return -ENODEV;
}

static int fa_write_bytes(u64 bytes)
{
	if (!plausible_bytes(bytes))
		return -EINVAL;
	if (fa_set)
		return fa_set(NULL, bytes);
	if (fa_var) {
		WRITE_ONCE(*fa_var, fa_var_pages ? bytes >> PAGE_SHIFT : bytes);
		return 0;
	}
	return -ENODEV;
}

static unsigned int bytes_to_order(u64 bytes)
{
	u64 pages = bytes >> PAGE_SHIFT;

	return pages ? ilog2(pages) : 0;
}

/*
 * The mmtune:order_change event, if the kernel's size went from
 * @old_bytes to @new_bytes or the base changed since the last one.
 * Caller holds fa_lock (or is the only one left: unload).
 */
static void fa_trace_change(u64 old_bytes, u64 new_bytes,
			    enum mmtune_order_src src)
{
	unsigned int old = bytes_to_order(old_bytes);
	unsigned int to = bytes_to_order(new_bytes);

	if (old == to && mmtune_fa_base == fa_traced_base)
		return;
	fa_traced_base = mmtune_fa_base;
	trace_order_change(old, to, mmtune_fa_base, src);
}

/*
 * The order the kernel holds at this moment, without fa_lock, or -1: for
 * the fault_around event only, while someone listens (fa_get is a
 * verified indirect-branch target, a plain read of one variable).
 */
int notrace mmtune_fa_kernel_order_now(void)
{
	u64 bytes;

	if (READ_ONCE(fa_state) != FA_READY || fa_read_bytes(&bytes))
		return -1;
	return bytes_to_order(bytes);
}

/* Write @order into the kernel and read it back.  Caller holds fa_lock. */
static int fa_set_order_locked(unsigned int order, enum mmtune_order_src src)
{
	u64 bytes = (u64)PAGE_SIZE << order, now, old = fa_written;
	int ret;

	if (order > mmtune_max_order())
		return -EINVAL;
	ret = fa_write_bytes(bytes);
	if (ret)
		return ret;
	fa_written = bytes;
	ret = fa_read_bytes(&now);
	if (ret)
		return ret;
	if (now != bytes) {
		pr_err_ratelimited("fault-around size reads %llu after writing %llu\n",
				   now, bytes);
		return -EIO;
	}
	fa_trace_change(old, bytes, src);
	return 0;
}

/*
 * Notice a write to the kernel's own file since mmtune last wrote or
 * looked: that value is the user's, the new base.  Caller holds fa_lock.
 */
static int fa_sync_locked(u64 *live)
{
	int ret = fa_read_bytes(live);

	u64 old = fa_written;

	if (ret || *live == fa_written)
		return ret;
	fa_written = *live;
	fa_user_bytes = *live;
	WRITE_ONCE(mmtune_fa_base, bytes_to_order(*live));
	fa_base_ours = false;
	fa_trace_change(old, *live, MMT_SRC_KERNEL);
	if (fa_raised)
		pr_info_ratelimited("fault-around order set to %u through the kernel's own file: the base order under the policy\n",
				    mmtune_fa_base);
	return 0;
}

/* What the kernel should hold now. */
static unsigned int fa_want(void)
{
	return fa_raised ? max(mmtune_fa_base, fa_floor) : mmtune_fa_base;
}

/* Sync, then make the kernel hold fa_want().  Caller holds fa_lock. */
static int fa_apply_locked(bool always, enum mmtune_order_src src)
{
	u64 live;
	int ret;

	ret = fa_sync_locked(&live);
	if (ret)
		return ret;
	if (!always && live == (u64)PAGE_SIZE << fa_want())
		return 0;
	return fa_set_order_locked(fa_want(), src);
}

/* The base order: the kernel's own unless the policy raised it. */
int mmtune_fa_get_order(unsigned int *order)
{
	u64 live;
	int ret = -ENODEV;

	mutex_lock(&fa_lock);
	if (fa_state == FA_READY)
		ret = fa_sync_locked(&live);
	if (!ret)
		*order = mmtune_fa_base;
	mutex_unlock(&fa_lock);
	return ret;
}

/* The order the kernel holds now (raised or not). */
int mmtune_fa_kernel_order(unsigned int *order)
{
	u64 live;
	int ret = -ENODEV;

	mutex_lock(&fa_lock);
	if (fa_state == FA_READY)
		ret = fa_sync_locked(&live);
	if (!ret)
		*order = bytes_to_order(live);
	mutex_unlock(&fa_lock);
	return ret;
}

/* A user's write (knob or parameter): the new base.  Holds fa_lock. */
static int fa_set_base_locked(unsigned int order, enum mmtune_order_src src)
{
	unsigned int old_base = mmtune_fa_base;
	bool old_ours = fa_base_ours;
	u64 live;
	int ret;

	if (fa_state != FA_READY)
		return fa_state == FA_GONE ? -EBUSY : -ENODEV;
	if (order > mmtune_max_order())
		return -EINVAL;
	/* the fallback writes the kernel's variable where kallsyms put it */
	if (!fa_set && fa_var) {
		ret = mmtune_kernel_write_allowed("fault_around_order (the kernel's variable)");
		if (ret)
			return ret;
	}
	ret = fa_sync_locked(&live);
	if (ret)
		return ret;
	WRITE_ONCE(mmtune_fa_base, order);
	fa_base_ours = ((u64)PAGE_SIZE << order) != fa_user_bytes;
	ret = fa_apply_locked(true, src);
	if (ret) {
		WRITE_ONCE(mmtune_fa_base, old_base);
		fa_base_ours = old_ours;
	}
	return ret;
}

int mmtune_fa_set_order(unsigned int order)
{
	int ret;

	mutex_lock(&fa_lock);
	ret = fa_set_base_locked(order, MMT_SRC_KNOB);
	mutex_unlock(&fa_lock);
	return ret;
}

/*
 * The policy: hold the kernel's size at max(base, @floor) (raise), or at
 * the base again (unraise).  mmtune_fa_sync() notices writes to the
 * kernel's own file and raises again if needed.
 */
int mmtune_fa_raise(unsigned int floor)
{
	bool old_raised;
	unsigned int old_floor;
	int ret = -ENODEV;

	mutex_lock(&fa_lock);
	if (fa_state == FA_READY) {
		old_raised = fa_raised;
		old_floor = fa_floor;
		fa_raised = true;
		fa_floor = floor;
		ret = fa_apply_locked(false, MMT_SRC_RAISE);
		if (ret) {
			fa_raised = old_raised;
			fa_floor = old_floor;
		}
	}
	mutex_unlock(&fa_lock);
	return ret;
}

void mmtune_fa_unraise(void)
{
	mutex_lock(&fa_lock);
	fa_raised = false;
	if (fa_state == FA_READY && fa_apply_locked(false, MMT_SRC_RESTORE))
		pr_err_ratelimited("could not put the base fault-around order %u back\n",
				   mmtune_fa_base);
	mutex_unlock(&fa_lock);
}

void mmtune_fa_sync(void)
{
	mutex_lock(&fa_lock);
	if (fa_state == FA_READY && fa_apply_locked(false, MMT_SRC_RAISE))
		pr_err_ratelimited("could not raise the fault-around order to %u\n",
				   fa_want());
	mutex_unlock(&fa_lock);
}

/*
 * "N" with 0 <= N <= max_order, or "default"; one trailing newline is
 * allowed.  Everything else (signs, spaces, fractions, overflow, trailing
 * garbage) is -EINVAL.
 */
int mmtune_parse_order(const char *buf, unsigned int *order)
{
	char s[16];
	size_t len = strlen(buf);
	unsigned int v;
	size_t i;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(s))
		return -EINVAL;
	memcpy(s, buf, len);
	s[len] = '\0';
	if (!strcmp(s, "default")) {
		*order = mmtune_default_order();
		return 0;
	}
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	if (kstrtouint(s, 10, &v) || v > mmtune_max_order())
		return -EINVAL;
	*order = v;
	return 0;
}

/* ---- module parameter: /sys/module/mmtune/parameters/fault_around_order */

static int order_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int order;
	int ret;

	if (mmtune_parse_order(val, &order)) {
		pr_info_ratelimited("fault_around_order: '%.*s' is not an order 0..%u or 'default'\n",
				    (int)strcspn(val, "\n"), val,
				    mmtune_max_order());
		return -EINVAL;
	}
	mutex_lock(&fa_lock);
	if (fa_state == FA_LOADING) {
		pending_order = order;	/* applied by init */
		ret = 0;
	} else {
		/* no knob or unloading: say so, never a silent no-op */
		ret = fa_set_base_locked(order, MMT_SRC_PARAM);
	}
	mutex_unlock(&fa_lock);
	return ret;
}

static int order_param_get(char *buf, const struct kernel_param *kp)
{
	unsigned int order;

	if (mmtune_fa_get_order(&order))
		return sysfs_emit(buf, "unavailable\n");
	return sysfs_emit(buf, "%u\n", order);
}

static const struct kernel_param_ops order_param_ops = {
	.set = order_param_set,
	.get = order_param_get,
};
module_param_cb(MMT_PARAM_FAULT_AROUND_ORDER, &order_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_FAULT_AROUND_ORDER,
		  "fault-around order to set at load (0..log2(PTRS_PER_PTE) or 'default'); stays a live knob");

/* ---- debugfs: fault_around_order */

static ssize_t order_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	unsigned int order;
	char buf[16];
	int ret, len;

	ret = mmtune_fa_get_order(&order);
	if (ret)
		return ret;
	len = scnprintf(buf, sizeof(buf), "%u\n", order);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t order_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, 15, false);
	unsigned int order;
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = mmtune_parse_order(buf, &order);
	kfree(buf);
	if (!ret)
		ret = mmtune_fa_set_order(order);
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations order_fops = {
	.owner	= THIS_MODULE,
	.read	= order_read,
	.write	= order_write,
};

/* ---- finding the knob */

/* The value the kernel's own debugfs file shows, or -errno. */
static int read_kernel_debugfs(u64 *bytes)
{
	struct file *f;
	char buf[32] = "";
	loff_t pos = 0;
	ssize_t n;

	f = filp_open("/sys/kernel/debug/fault_around_bytes", O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return n ? n : -EIO;
	buf[n] = '\0';
	return kstrtoull(strim(buf), 10, bytes);
}

static int find_accessors(void)
{
	u64 before, after;
	int ret;

	fa_get = (attr_get_t)mmtune_lookup_callable("fault_around_bytes_get");
	fa_set = (attr_set_t)mmtune_lookup_callable("fault_around_bytes_set");
	if (!fa_get || !fa_set) {
		fa_get = NULL;
		fa_set = NULL;
		return -ENOENT;
	}
	/* The getter must give a plausible size, the setter must accept it. */
	ret = fa_get(NULL, &before);
	if (!ret && !plausible_bytes(before))
		ret = -EINVAL;
	if (!ret)
		ret = fa_set(NULL, before);
	if (!ret)
		ret = fa_get(NULL, &after);
	if (!ret && after != before)
		ret = -EINVAL;
	if (ret) {
		pr_err("fault_around_bytes_get/set do not behave as expected (%d): not using them\n",
		       ret);
		fa_get = NULL;
		fa_set = NULL;
		return ret;
	}
	fa_symbol = "fault_around_bytes_get/fault_around_bytes_set";
	return 0;
}

static int find_variable(const char *name, bool pages)
{
	unsigned long addr = mmtune_lookup_name(name);
	unsigned long v;
	u64 bytes, shown;
	int ret;

	if (!addr)
		return -ENOENT;
	if (!mmtune_symbol_is(addr, name, true) ||
	    !mmtune_in_kernel_data(addr)) {
		pr_err("%s resolves outside the kernel's data: not touching it\n",
		       name);
		return -EFAULT;
	}
	if (copy_from_kernel_nofault(&v, (void *)addr, sizeof(v)))
		return -EFAULT;
	bytes = pages ? (u64)v << PAGE_SHIFT : v;
	if (!plausible_bytes(bytes)) {
		pr_err("%s holds %lu, not a fault-around size: not touching it\n",
		       name, v);
		return -EINVAL;
	}
	ret = read_kernel_debugfs(&shown);
	if (ret) {
		pr_err("cannot cross-check %s with debugfs fault_around_bytes (%d): not touching it\n",
		       name, ret);
		return ret;
	}
	if (shown != bytes) {
		pr_err("%s holds %llu bytes but debugfs shows %llu: not touching it\n",
		       name, bytes, shown);
		return -EINVAL;
	}
	fa_var = (unsigned long *)addr;
	fa_var_pages = pages;
	fa_symbol = pages ? "fault_around_pages (variable, verified)" :
			    "fault_around_bytes (variable, verified)";
	return 0;
}

static int find_knob(void)
{
	int ret;

	if (test_fault & 2)
		return -ENOENT;		/* as on a kernel without the knob */
	ret = find_accessors();
	if (ret)
		ret = find_variable("fault_around_pages", true);
	if (ret == -ENOENT)
		ret = find_variable("fault_around_bytes", false);
	return ret;
}

/* fault_around_order= at load; on failure the kernel's size goes back. */
static int fa_apply_pending_locked(void)
{
	int ret = fa_set_base_locked(pending_order, MMT_SRC_PARAM);

	if (!ret && (test_fault & 1)) {
		pr_err("test_fault=1: failing the read-back check\n");
		ret = -EIO;
	}
	if (!ret) {
		pr_info("fault-around order %u -> %d\n", loaded_order,
			pending_order);
		return 0;
	}
	pr_err("cannot set fault_around_order=%d at load (%d)\n",
	       pending_order, ret);
	if (fa_write_bytes(loaded_bytes))
		pr_err("could not restore fault-around size %llu\n",
		       loaded_bytes);
	return ret;
}

static int fa_init(struct dentry *dir)
{
	int ret;

	mutex_lock(&fa_lock);
	ret = find_knob();
	if (ret) {
		snprintf(fa_reason, sizeof(fa_reason),
			 "off: neither fault_around_bytes_get/set nor a verified fault_around_{pages,bytes} (%d)",
			 ret);
		pr_err("fault-around knob %s\n", fa_reason);
		fa_state = FA_OFF;
		ret = pending_order >= 0 ? -ENODEV : 0;
		goto out;
	}
	ret = fa_read_bytes(&loaded_bytes);
	if (ret) {
		fa_state = FA_OFF;
		goto out;
	}
	loaded_order = bytes_to_order(loaded_bytes);
	fa_written = loaded_bytes;
	fa_user_bytes = loaded_bytes;
	WRITE_ONCE(mmtune_fa_base, loaded_order);
	fa_traced_base = loaded_order;
	fa_state = FA_READY;
	strscpy(fa_reason, "on", sizeof(fa_reason));

	if (pending_order >= 0) {
		ret = fa_apply_pending_locked();
		if (ret)
			fa_state = FA_OFF;
	}
out:
	mutex_unlock(&fa_lock);
	if (ret)
		return ret;
	debugfs_create_file("fault_around_order", 0600, dir, NULL, &order_fops);
	return 0;
}

static void fa_exit(void)
{
	u64 now;

	/*
	 * What mmtune set goes back to the size found at load; a size set
	 * through the kernel's own file since is the user's and stays.
	 */
	mutex_lock(&fa_lock);
	if (fa_state == FA_READY && !fa_sync_locked(&now) && fa_base_ours &&
	    now != loaded_bytes) {
		if (fa_write_bytes(loaded_bytes))
			pr_err("could not restore fault-around size %llu\n",
			       loaded_bytes);
		else
			trace_order_change(bytes_to_order(now), loaded_order,
					   loaded_order, MMT_SRC_UNLOAD);
	}
	fa_state = FA_GONE;
	mutex_unlock(&fa_lock);
}

MMTUNE_INFO_SHOW(fa_reason, "%s", fa_reason)
MMTUNE_INFO_SHOW(fa_symbol, "%s", fa_symbol)

/*
 * No symbol tells whether the kernel maps a whole large folio per fault
 * (7.x does in finish_fault and filemap_map_folio_range, and its ext4
 * caches files in large folios), so say what holds on every kernel
 * rather than guess from the version.
 */
static ssize_t fa_scope_show(char *buf, unsigned int arg)
{
	return sysfs_emit(buf, "%s\n",
			  "files in small folios (tmpfs without huge=); a file in large folios may be mapped a whole folio per fault");
}

enum {
	FA_INFO_LOADED, FA_INFO_ORDER, FA_INFO_BYTES, FA_INFO_BASE, FA_INFO_BASE_BY
};

/*
 * The orders, after a look for a write to the kernel's own file: none
 * when that look fails, and only loaded_order ("unavailable") when
 * fault-around is not there.
 */
static ssize_t fa_order_show(char *buf, unsigned int what)
{
	ssize_t ret = -ENODATA;
	u64 bytes;

	mutex_lock(&fa_lock);
	if (fa_state != FA_READY) {
		if (what == FA_INFO_LOADED)
			ret = sysfs_emit(buf, "unavailable\n");
	} else if (!fa_sync_locked(&bytes)) {
		if (what == FA_INFO_LOADED)
			ret = sysfs_emit(buf, "%u\n", loaded_order);
		else if (what == FA_INFO_ORDER)
			ret = sysfs_emit(buf, "%u\n", bytes_to_order(bytes));
		else if (what == FA_INFO_BYTES)
			ret = sysfs_emit(buf, "%llu\n", bytes);
		else if (what == FA_INFO_BASE)
			ret = sysfs_emit(buf, "%u\n", mmtune_fa_base);
		else
			ret = sysfs_emit(buf, "%s\n", fa_base_ours ?
					 "mmtune (unload restores loaded_order)" :
					 "kernel (stays at unload)");
	}
	mutex_unlock(&fa_lock);
	return ret;
}

static const struct mmtune_info fa_info[] = {
	{ "fault_around", fa_reason_show },
	{ "fault_around_symbol", fa_symbol_show },
	{ "order_scope", fa_scope_show },
	{ "loaded_order", fa_order_show, FA_INFO_LOADED },
	{ "order", fa_order_show, FA_INFO_ORDER },
	{ "fault_around_bytes", fa_order_show, FA_INFO_BYTES },
	{ "base_order", fa_order_show, FA_INFO_BASE },
	{ "base_set_by", fa_order_show, FA_INFO_BASE_BY },
	{ }
};

const struct mmtune_feature mmtune_fault_around_feature = {
	.name	= "fault_around",
	.init	= fa_init,
	.exit	= fa_exit,
	.info	= fa_info,
};
