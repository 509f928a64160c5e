// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: /sys/kernel/mm/mmtune/, the module's state and counters, read
 * only and one value per file (an array of one type counts as one value),
 * in the place lockdown leaves readable.  The names are mmtune_abi.h's,
 * the contract docs/ABI/.
 *
 *   info/NAME        the value of debugfs info's "NAME: value" line
 *   stats/NAME       a counter of debugfs stats
 *   latency/         the histogram of debugfs latency: state, samples,
 *                    and three arrays of MMT_LAT_BUCKETS numbers
 *   policy/          the rule count and the per-rule counters
 *   pfn_valid/       the last bench of debugfs pfn_valid/bench
 *
 * The directory hangs off the kernel's own /sys/kernel/mm kobject,
 * mm_kobj.  Not every kernel exports it to modules, so it is looked up
 * like the module's other kernel symbols (symbols.c) and checked to be
 * that directory; without it the tree is absent and info says why.  The
 * feature is brought up last and taken down first: no file can outlive
 * what it shows.
 */
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "hooks.h"

#define SEQ_TEXT_MAX	(64 * 1024)	/* room for info or the bench */

static struct kobject *mmt_kobj;
static char sysfs_reason[96] = "off: not initialised";

/* Render @show into a buffer the caller kvfree()s; NULL without memory. */
static char *seq_text(void (*show)(struct seq_file *m), size_t *len)
{
	struct seq_file m = { };

	m.size = SEQ_TEXT_MAX;
	m.buf = kvmalloc(m.size, GFP_KERNEL);
	if (!m.buf)
		return NULL;
	show(&m);
	*len = min(m.count, m.size);
	return m.buf;
}

/* The value of @show's "@key: value" line, or "unavailable". */
static ssize_t seq_value(void (*show)(struct seq_file *m), const char *key,
			 char *buf)
{
	size_t len, klen = strlen(key);
	const char *p, *end, *nl;
	ssize_t ret = 0;
	char *text;

	text = seq_text(show, &len);
	if (!text)
		return -ENOMEM;
	for (p = text, end = text + len; p < end && !ret; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (nl - p >= klen + 2 && !memcmp(p, key, klen) &&
		    p[klen] == ':' && p[klen + 1] == ' ')
			ret = sysfs_emit(buf, "%.*s\n", (int)(nl - p - klen - 2),
					 p + klen + 2);
	}
	kvfree(text);
	return ret ? ret : sysfs_emit(buf, "unavailable\n");
}

/* ---- info/ */

static ssize_t info_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return seq_value(mmtune_info_show, attr->attr.name, buf);
}

#define INFO_ATTR(n) \
	static struct kobj_attribute info_##n = __ATTR(n, 0444, info_show, NULL);
MMT_ABI_INFO(INFO_ATTR)
#define INFO_PTR(n)	&info_##n.attr,
static struct attribute *info_attrs[] = {
	MMT_ABI_INFO(INFO_PTR)
	NULL
};

/* ---- stats/ */

struct ctr_attr {
	struct kobj_attribute ka;
	unsigned int id;
};

static ssize_t ctr_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	unsigned int id = container_of(attr, struct ctr_attr, ka)->id;
	struct mmtune_pcpu_stats *s;
	ssize_t ret;

	if (!mmtune_ctr_available(id))
		return sysfs_emit(buf, "unavailable\n");
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mmtune_stats_snapshot(s, NULL);
	ret = sysfs_emit(buf, "%llu\n", s->ctr[id]);
	kfree(s);
	return ret;
}

#define CTR_ATTR(id, n, help) \
	static struct ctr_attr ctr_##n = { __ATTR(n, 0444, ctr_show, NULL), id };
MMT_ABI_COUNTERS(CTR_ATTR)
#define CTR_PTR(id, n, help)	&ctr_##n.ka.attr,
static struct attribute *stats_attrs[] = {
	MMT_ABI_COUNTERS(CTR_PTR)
	NULL
};

/* ---- latency/ */

static ssize_t lat_array(char *buf, const u64 *v)
{
	ssize_t len = 0;
	unsigned int b;

	for (b = 0; b < MMT_LAT_BUCKETS; b++)
		len += sysfs_emit_at(buf, len, "%s%llu", b ? " " : "", v[b]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t lat_value(const char *name, const struct mmtune_pcpu_stats *s,
			 unsigned long missed, char *buf)
{
	u64 low[MMT_LAT_BUCKETS], tot;
	unsigned int b, k;

	if (!strcmp(name, "unclassified"))
		return sysfs_emit(buf, "%llu\n", s->ctr[MMT_CTR_LAT_UNCLASSIFIED]);
	if (!strcmp(name, "missed"))
		return sysfs_emit(buf, "%lu\n", missed);
	if (!strcmp(name, "bucket_low_ns")) {
		for (b = 0; b < MMT_LAT_BUCKETS; b++)
			low[b] = b ? 1ULL << (b - 1) : 0;
		return lat_array(buf, low);
	}
	k = strncmp(name, "fault_around", 12) ? MMT_LAT_NOFA : MMT_LAT_FA;
	if (strstr(name, "_buckets"))
		return lat_array(buf, s->lat[k]);
	/* *_samples */
	if (!mmtune_hooks_latency_classified())
		return sysfs_emit(buf, "unavailable\n");
	for (tot = 0, b = 0; b < MMT_LAT_BUCKETS; b++)
		tot += s->lat[k][b];
	return sysfs_emit(buf, "%llu\n", tot);
}

static ssize_t lat_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	enum mmtune_hook_state st = mmtune_hook_state(MMT_HOOK_LATENCY);
	const char *name = attr->attr.name;
	struct mmtune_pcpu_stats *s;
	unsigned long missed;
	ssize_t ret;

	if (!strcmp(name, "state"))
		return sysfs_emit(buf, "%s\n", st == MMT_HOOK_ON ? "on" :
				  st == MMT_HOOK_UNAVAILABLE ? "unavailable" :
				  "off");
	if (!strcmp(name, "unit"))
		return sysfs_emit(buf, "ns\n");
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mmtune_stats_snapshot(s, &missed);
	ret = lat_value(name, s, missed, buf);
	kfree(s);
	return ret;
}

#define LAT_ATTR(n) \
	static struct kobj_attribute lat_##n = __ATTR(n, 0444, lat_show, NULL);
MMT_ABI_LATENCY(LAT_ATTR)
#define LAT_PTR(n)	&lat_##n.attr,
static struct attribute *latency_attrs[] = {
	MMT_ABI_LATENCY(LAT_PTR)
	NULL
};

/* ---- policy/ */

static ssize_t pol_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return mmtune_policy_sysfs(attr->attr.name, buf);
}

#define POL_ATTR(n) \
	static struct kobj_attribute pol_##n = __ATTR(n, 0444, pol_show, NULL);
MMT_ABI_POLICY(POL_ATTR)
#define POL_PTR(n)	&pol_##n.attr,
static struct attribute *policy_attrs[] = {
	MMT_ABI_POLICY(POL_PTR)
	NULL
};

/* ---- pfn_valid/ */

/*
 * Column @col of the bench's table rows (the lines after its "impl ..."
 * header), space-separated, one per strategy benched.
 */
static ssize_t bench_column(unsigned int col, char *buf)
{
	const char *p, *end, *nl, *w;
	bool rows = false;
	ssize_t len = 0;
	unsigned int c;
	size_t tlen;
	char *text;

	text = seq_text(mmtune_pfn_valid_bench_show, &tlen);
	if (!text)
		return -ENOMEM;
	for (p = text, end = text + tlen; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (!rows) {
			rows = !strncmp(p, "impl ", 5);
			continue;
		}
		for (w = p, c = 0; c < col && w < nl; c++)
			w = memchr(w, ' ', nl - w) ? memchr(w, ' ', nl - w) + 1 : nl;
		len += sysfs_emit_at(buf, len, "%s%.*s", len ? " " : "",
				     (int)strcspn(w, " \n"), w);
	}
	kvfree(text);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t pfv_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	const char *name = attr->attr.name;

	if (!strcmp(name, "bench_impls"))
		return bench_column(0, buf);
	if (!strcmp(name, "bench_median_ns"))
		return bench_column(1, buf);
	/* bench_KEY: the bench's "KEY: value" line */
	return seq_value(mmtune_pfn_valid_bench_show, name + 6, buf);
}

#define PFV_ATTR(n) \
	static struct kobj_attribute pfv_##n = __ATTR(n, 0444, pfv_show, NULL);
MMT_ABI_PFN_VALID(PFV_ATTR)
#define PFV_PTR(n)	&pfv_##n.attr,
static struct attribute *pfn_valid_attrs[] = {
	MMT_ABI_PFN_VALID(PFV_PTR)
	NULL
};

/* ---- the tree */

#define GROUP(n)							\
	static const struct attribute_group n##_group = {		\
		.name = #n, .attrs = n##_attrs,				\
	};
MMT_ABI_SYSFS_DIRS(GROUP)
#define GROUP_PTR(n)	&n##_group,
static const struct attribute_group *groups[] = {
	MMT_ABI_SYSFS_DIRS(GROUP_PTR)
	NULL
};

/* The kernel's /sys/kernel/mm kobject, or NULL. */
static struct kobject *find_mm_kobj(void)
{
	unsigned long addr = mmtune_lookup_name("mm_kobj");
	struct kobject *k;

	if (!mmtune_symbol_is(addr, "mm_kobj", true) ||
	    !mmtune_in_kernel_data(addr))
		return NULL;
	k = *(struct kobject **)addr;
	if (!k || k->parent != kernel_kobj || strcmp(kobject_name(k), "mm"))
		return NULL;
	return k;
}

static int mmt_sysfs_init(struct dentry *dir)
{
	struct kobject *mm = find_mm_kobj();
	int ret;

	if (!mm) {
		strscpy(sysfs_reason, "off: no mm_kobj (/sys/kernel/mm) found",
			sizeof(sysfs_reason));
		return 0;
	}
	mmt_kobj = kobject_create_and_add(MMT_ABI_SYSFS_NAME, mm);
	if (!mmt_kobj)
		return -ENOMEM;
	ret = sysfs_create_groups(mmt_kobj, groups);
	if (ret) {
		kobject_put(mmt_kobj);
		mmt_kobj = NULL;
		return ret;
	}
	strscpy(sysfs_reason, "on", sizeof(sysfs_reason));
	return 0;
}

static void mmt_sysfs_exit(void)
{
	if (!mmt_kobj)
		return;
	/* waits for every read in progress */
	sysfs_remove_groups(mmt_kobj, groups);
	kobject_put(mmt_kobj);
	mmt_kobj = NULL;
}

static void mmt_sysfs_info(struct seq_file *m)
{
	seq_printf(m, "sysfs: %s\n", sysfs_reason);
}

const struct mmtune_feature mmtune_sysfs_feature = {
	.name	= "sysfs",
	.init	= mmt_sysfs_init,
	.exit	= mmt_sysfs_exit,
	.info	= mmt_sysfs_info,
};
