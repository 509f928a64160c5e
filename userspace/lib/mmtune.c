// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: finding debugfs, reading and writing the module's knobs, and
 * the fallback to the kernel's own fault_around_bytes.  The error state
 * and the file I/O under it are base.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "priv.h"

#define INFO_BUF	65536
#define SMALL_BUF	256

static __thread char rootbuf[PATH_MAX];


/* Undo the octal escapes (\040 for a space, ...) of /proc/self/mounts. */
static void unescape_mnt(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

const char *mmt_debugfs_root(void)
{
	const char *e = getenv("MMTUNE_DEBUGFS");
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	const char *found = NULL;
	FILE *f;

	if (e) {
		if (!*e || stat(e, &st) || !S_ISDIR(st.st_mode) ||
		    strlen(e) >= sizeof(rootbuf))
			return NULL;
		strcpy(rootbuf, e);
		return rootbuf;
	}
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *save, *dev, *mnt, *type;

		dev = strtok_r(line, " \t\n", &save);
		mnt = dev ? strtok_r(NULL, " \t\n", &save) : NULL;
		type = mnt ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!type || strcmp(type, "debugfs") || strlen(mnt) >= sizeof(rootbuf))
			continue;
		unescape_mnt(mnt);
		strcpy(rootbuf, mnt);
		found = rootbuf;
		/* prefer the usual place if debugfs is mounted twice */
		if (!strcmp(mnt, "/sys/kernel/debug"))
			break;
	}
	free(line);
	fclose(f);
	return found;
}

const char *mmt_kernel_knob_path(void)
{
	static __thread char p[PATH_MAX + 32];
	const char *root = mmt_debugfs_root();

	if (!root)
		return NULL;
	snprintf(p, sizeof(p), "%s/fault_around_bytes", root);
	return p;
}

/* Path components of [A-Za-z0-9_.-], none "." or "..", at most 64 bytes. */
int mmt_knob_name_ok(const char *name)
{
	size_t n, comp = 0;

	if (!name || !*name || strlen(name) > 64)
		return 0;
	for (n = 0;; n++) {
		char c = name[n];

		if (c == '/' || !c) {
			size_t len = n - comp;

			if (!len || (len == 1 && name[comp] == '.') ||
			    (len == 2 && name[comp] == '.' && name[comp + 1] == '.'))
				return 0;
			if (!c)
				return 1;
			comp = n + 1;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return 0;
	}
}



/* <root>/mmtune/<knob> into p; MMT_OK or an error with the message set. */
/* a file of the module's: a knob, rss or the pfn_valid directory */
static int module_file(const char *knob)
{
	int i;

	for (i = 0; mmt_knobs[i]; i++)
		if (!strcmp(knob, mmt_knobs[i]))
			return 1;
	return !strcmp(knob, "rss") || !strcmp(knob, "pfn_valid");
}

static int knob_path(char *p, size_t n, const char *knob)
{
	const char *root;

	mmt__last_errno = 0;
	if (!mmt_knob_name_ok(knob))
		return mmt__fail(MMT_ENOKNOB, "invalid knob name '%.64s'", knob ? knob : "");
	/* a usage error whether the module is loaded or not */
	if (!module_file(knob))
		return mmt__fail(MMT_ENOKNOB, "no such knob: %s (see 'mmtunectl --help' for the knobs)", knob);
	if (!mmt_module_loaded())
		return mmt__fail(MMT_ENOMOD, "mmtune module is not loaded: run 'modprobe mmtune' as root");
	root = mmt_debugfs_root();
	if (!root) {
		return mmt__fail(MMT_ENODEBUGFS,
			"debugfs is not mounted: run 'mount -t debugfs none /sys/kernel/debug'");
	}
	if ((size_t)snprintf(p, n, "%s/mmtune/%s", root, knob) >= n)
		return mmt__fail(MMT_EIO, "path too long: %s/mmtune/%s", root, knob);
	return MMT_OK;
}

long mmt_knob_read_n(const char *knob, char *buf, size_t len)
{
	char p[PATH_MAX + 128];
	long r;
	int err;

	if (!buf || !len)
		return mmt__fail(MMT_EINVAL, "no buffer to read %s into", knob ? knob : "");
	buf[0] = '\0';
	/*
	 * A tunable through its parameter first (plane.c), debugfs after;
	 * the records (info, stats, latency, policy) from their debugfs
	 * file: a caller that wants their values reads them typed (read.c).
	 */
	if (mmt_knob_name_ok(knob) && mmt_module_loaded()) {
		r = mmt__plane_read(knob, buf, len);
		if (r >= 0)
			return r;
	}
	err = knob_path(p, sizeof(p), knob);
	if (err)
		return err;
	r = mmt_read_path(p, buf, len);
	if (r >= 0)
		return r;
	return mmt_errno_to_err(errno, p, NULL);
}

int mmt_knob_read(const char *knob, char *buf, size_t len)
{
	long r = mmt_knob_read_n(knob, buf, len);

	return r < 0 ? (int)r : MMT_OK;
}

int mmt_knob_write(const char *knob, const char *value)
{
	char p[PATH_MAX + 128];
	int err;

	if (!value)
		return mmt__fail(MMT_EINVAL, "no value to write to %s", knob ? knob : "");
	if (mmt_knob_name_ok(knob) && mmt_module_loaded()) {
		err = mmt__plane_write(knob, value);
		if (err != MMT__NOPLANE)
			return err;
	}
	err = knob_path(p, sizeof(p), knob);
	if (err)
		return err;
	if (mmt__write_path(p, value))
		return mmt_errno_to_err(errno, p, value);
	return MMT_OK;
}

/* Parse "N\n" (surrounding whitespace allowed) within [min, max]. */
static int parse_trimmed(const char *buf, long min, long max, long *out)
{
	char tmp[SMALL_BUF];
	size_t a = 0, b = strlen(buf);

	while (buf[a] == ' ' || buf[a] == '\t' || buf[a] == '\n')
		a++;
	while (b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t' || buf[b - 1] == '\n'))
		b--;
	if (b - a >= sizeof(tmp))
		return MMT_EINVAL;
	memcpy(tmp, buf + a, b - a);
	tmp[b - a] = '\0';
	return mmt_parse_long(tmp, min, max, out);
}

/* /sys/module/mmtune/parameters/fault_around_order (works under lockdown). */
static void order_param_path(char *p, size_t n)
{
	snprintf(p, n, "%s/parameters/fault_around_order", mmt_sysfs_module());
}

/*
 * The module's debugfs failed with err: is it debugfs that is missing or
 * refused to root (lockdown), so that the module parameter is worth a try?
 */
static int debugfs_refused(int err)
{
	return err == MMT_ENODEBUGFS ||
	       (err == MMT_EPERM && mmt__last_errno == EPERM && geteuid() == 0);
}

/* At most 32 bytes of s, trailing blanks dropped, printable, for a message. */
static const char *shown(const char *s)
{
	static __thread char b[33];
	size_t i, n = strnlen(s, sizeof(b) - 1);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (i = 0; i < n; i++)
		b[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	b[n] = '\0';
	return b;
}

static int order_from_text(const char *buf, const char *path, int *order)
{
	long v;

	if (parse_trimmed(buf, 0, MMT_ORDER_MAX, &v))
		return mmt__fail(MMT_EIO, "%s: unexpected content '%s'", path, shown(buf));
	*order = (int)v;
	return MMT_OK;
}

int mmt_order_get(int *order, int *via_kernel)
{
	char buf[SMALL_BUF], p[PATH_MAX + 64];
	const char *kp;
	unsigned long long bytes;
	long r;
	int err;

	if (via_kernel)
		*via_kernel = 0;
	if (!order)
		return mmt__fail(MMT_EINVAL, "no place for the order");
	if (mmt_module_loaded()) {
		r = mmt_knob_read_n("fault_around_order", buf, sizeof(buf));
		if (r >= 0)
			return order_from_text(buf, "fault_around_order", order);
		err = (int)r;
		order_param_path(p, sizeof(p));
		if (debugfs_refused(err) && mmt_read_path(p, buf, sizeof(buf)) >= 0)
			return order_from_text(buf, p, order);
		return err;
	}
	kp = mmt_kernel_knob_path();
	if (!kp)
		return mmt__fail(MMT_ENODEBUGFS,
			"mmtune module is not loaded and debugfs is not mounted: run 'modprobe mmtune' or 'mount -t debugfs none /sys/kernel/debug'");
	if (mmt_read_path(kp, buf, sizeof(buf)) < 0) {
		err = mmt_errno_to_err(errno, kp, NULL);
		if (err == MMT_ENOKNOB || err == MMT_ENOMOD)
			err = mmt__fail(MMT_ENOMOD,
				"mmtune module is not loaded and the kernel has no %s: run 'modprobe mmtune'", kp);
		return err;
	}
	{
		char *end;
		size_t i = 0;

		while (buf[i] == ' ' || buf[i] == '\t')
			i++;
		if (buf[i] < '0' || buf[i] > '9')
			return mmt__fail(MMT_EIO, "%s: unexpected content '%s'", kp, shown(buf));
		errno = 0;
		bytes = strtoull(buf + i, &end, 10);
		if (errno || (*end && *end != '\n' && *end != ' '))
			return mmt__fail(MMT_EIO, "%s: unexpected content '%s'", kp, shown(buf));
	}
	if (via_kernel)
		*via_kernel = 1;
	bytes /= (unsigned long long)mmt_page_size();
	*order = bytes ? mmt__ilog2(bytes) : 0;
	return MMT_OK;
}

static int kernel_max_order(void)
{
	long ps = mmt_page_size();

	return ps >= 16 ? mmt__ilog2((unsigned long long)ps / 8) : 0;
}

static int kernel_default_order(void)
{
	unsigned long long ps = (unsigned long long)mmt_page_size();

	return ps >= 65536 ? 0 : mmt__ilog2(65536 / ps);
}

/* Write value through the module (debugfs, or the parameter when refused). */
static int module_order_write(const char *value)
{
	char p[PATH_MAX + 64];
	int err;

	err = mmt_knob_write("fault_around_order", value);
	if (!err)
		return MMT_OK;
	order_param_path(p, sizeof(p));
	if (!debugfs_refused(err))
		return err;
	if (mmt__write_path(p, value))
		return mmt_errno_to_err(errno, p, value);
	return MMT_OK;
}

static int kernel_order_write(int order, int *via_kernel)
{
	char v[32];
	const char *kp = mmt_kernel_knob_path();
	int max = kernel_max_order();

	if (order < 0 || order > max)
		return mmt__fail(MMT_EINVAL, "order %d out of range 0..%d", order, max);
	if (!kp)
		return mmt__fail(MMT_ENODEBUGFS,
			"mmtune module is not loaded and debugfs is not mounted: run 'modprobe mmtune' or 'mount -t debugfs none /sys/kernel/debug'");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mmt_page_size() << order);
	if (mmt__write_path(kp, v)) {
		int err = mmt_errno_to_err(errno, kp, v);

		if (err == MMT_ENOKNOB || err == MMT_ENOMOD)
			err = mmt__fail(MMT_ENOMOD,
				"mmtune module is not loaded and the kernel has no %s: run 'modprobe mmtune'", kp);
		return err;
	}
	if (via_kernel)
		*via_kernel = 1;
	return MMT_OK;
}

int mmt_order_set(int order, int *via_kernel)
{
	char v[32];

	if (via_kernel)
		*via_kernel = 0;
	if (order < 0 || order > MMT_ORDER_MAX)
		return mmt__fail(MMT_EINVAL, "order %d out of range", order);
	if (mmt_module_loaded()) {
		snprintf(v, sizeof(v), "%d", order);
		return module_order_write(v);
	}
	return kernel_order_write(order, via_kernel);
}

int mmt_order_set_default(int *via_kernel)
{
	if (via_kernel)
		*via_kernel = 0;
	if (mmt_module_loaded())
		return module_order_write("default");
	return kernel_order_write(kernel_default_order(), via_kernel);
}

/*
 * Here, not with the other records in read.c, as the orders above read
 * it.  sysfs info/ first, a value a file (every line of debugfs info has
 * its file); the debugfs text where the module has no sysfs tree.
 */
int mmt_info(struct mmt_kv *kv, int max)
{
	char *buf;
	long r;
	int n = mmt__sys_info(kv, max);

	if (n != MMT__NOPLANE)
		goto out;
	buf = malloc(INFO_BUF);
	if (!buf)
		return mmt__fail(MMT_EIO, "out of memory");
	r = mmt_knob_read_n("info", buf, INFO_BUF);
	n = r >= 0 ? mmt_parse_info(buf, (size_t)r, kv, max) : (int)r;
	free(buf);
	if (r < 0)
		return n;
out:
	if (n < 0)
		return mmt__fail(MMT_EIO, "cannot parse the module's info file");
	return n;
}

#define INFO_MAX 128

static int info_int(const char *key, int *out)
{
	struct mmt_kv *kv = calloc(INFO_MAX, sizeof(*kv));
	const char *v;
	long l;
	int n, err = MMT_OK;

	if (!kv)
		return mmt__fail(MMT_EIO, "out of memory");
	n = mmt_info(kv, INFO_MAX);
	if (n < 0) {
		err = n;
	} else {
		v = mmt_kv_get(kv, n, key);
		if (!v || mmt_parse_long(v, 0, MMT_ORDER_MAX, &l))
			err = mmt__fail(MMT_EIO, "the module's info has no usable '%s'", key);
		else
			*out = (int)l;
	}
	free(kv);
	return err;
}

/*
 * Without info (debugfs missing or locked down) the page-size bound still
 * holds; the module checks the exact one when the value is written.
 */
int mmt_max_order(int *max)
{
	int err;

	if (mmt_module_loaded()) {
		err = info_int("max_order", max);
		if (!err || !debugfs_refused(err))
			return err;
	}
	*max = kernel_max_order();
	return MMT_OK;
}

int mmt_default_order(int *def)
{
	int err;

	if (mmt_module_loaded()) {
		err = info_int("default_order", def);
		if (!err || !debugfs_refused(err))
			return err;
	}
	*def = kernel_default_order();
	return MMT_OK;
}
