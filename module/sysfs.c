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
 * like the module's other kernel symbols (symbols.c), else found as
 * kernel_kobj's "mm" directory through kernfs, and checked to be that
 * directory; without it the tree is absent and info says why.  The
 * feature is brought up last and taken down first: no file can outlive
 * what it shows.
 */
#include <linux/capability.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "hooks.h"
#include "stats.h"

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

/* The value of @text's "@key: value" line, or "unavailable". */
static ssize_t text_value(const char *text, size_t len, const char *key,
			  char *buf)
{
	size_t klen = strlen(key);
	const char *p, *end, *nl;
	ssize_t ret = 0;

	for (p = text, end = text + len; p < end && !ret; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (nl - p >= klen + 2 && !memcmp(p, key, klen) &&
		    p[klen] == ':' && p[klen + 1] == ' ')
			ret = sysfs_emit(buf, "%.*s\n", (int)(nl - p - klen - 2),
					 p + klen + 2);
	}
	return ret ? ret : sysfs_emit(buf, "unavailable\n");
}

/* The value of @show's "@key: value" line, or "unavailable". */
static ssize_t seq_value(void (*show)(struct seq_file *m), const char *key,
			 char *buf)
{
	size_t len;
	ssize_t ret;
	char *text;

	text = seq_text(show, &len);
	if (!text)
		return -ENOMEM;
	ret = text_value(text, len, key, buf);
	kvfree(text);
	return ret;
}

/* ---- info/ */

/* debugfs info's text, from main.c: set before any feature is up */
static void (*info_source)(struct seq_file *m);

void mmtune_sysfs_info_source(void (*show)(struct seq_file *m))
{
	info_source = show;
}

/*
 * info/ is world-readable, and rendering info takes every feature's
 * lock: a user without CAP_SYS_ADMIN gets the text as rendered at most a
 * tenth of a second ago, so reading in a loop cannot hold root's writes
 * back more than ten renders a second.
 */
#define INFO_CACHE_AGE	(HZ / 10)

static DEFINE_MUTEX(info_cache_lock);
static char *info_cache;		/* under info_cache_lock */
static size_t info_cache_len;
static unsigned long info_cache_at;

static ssize_t info_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	ssize_t ret = -ENOMEM;

	if (capable(CAP_SYS_ADMIN))
		return seq_value(info_source, attr->attr.name, buf);
	mutex_lock(&info_cache_lock);
	if (!info_cache || time_after(jiffies, info_cache_at + INFO_CACHE_AGE)) {
		kvfree(info_cache);
		info_cache = seq_text(info_source, &info_cache_len);
		info_cache_at = jiffies;
	}
	if (info_cache)
		ret = text_value(info_cache, info_cache_len, attr->attr.name, buf);
	mutex_unlock(&info_cache_lock);
	return ret;
}

/* ---- stats/ */

static ssize_t ctr_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	struct mmtune_pcpu_stats *s;
	unsigned int id;
	ssize_t ret;

	/* the counters' table is in enum mmtune_ctr's order */
	for (id = 0; mmt_abi_counters[id].name; id++)
		if (!strcmp(attr->attr.name, mmt_abi_counters[id].name))
			break;
	if (!mmt_abi_counters[id].name)
		return -ENOENT;

	if (mmtune_ctr_absent(id))
		return sysfs_emit(buf, "%s\n", mmtune_ctr_absent(id));
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mmtune_stats_snapshot(s, NULL);
	ret = sysfs_emit(buf, "%llu\n", s->ctr[id]);
	kfree(s);
	return ret;
}

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
	if (!strcmp(name, "untimed"))
		return sysfs_emit(buf, "%llu\n", s->ctr[MMT_CTR_LAT_UNTIMED]);
	if (!strcmp(name, "bucket_low_ns")) {
		for (b = 0; b < MMT_LAT_BUCKETS; b++)
			low[b] = b ? 1ULL << (b - 1) : 0;
		return lat_array(buf, low);
	}
	k = strncmp(name, "fault_around", 12) ? MMT_LAT_NOFA : MMT_LAT_FA;
	if (strstr(name, "_buckets"))
		return lat_array(buf, s->lat[k]);
	/* *_samples */
	if (!mmtune_latency_classified())
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
	/* as debugfs latency: no histogram where the hook cannot be placed */
	if (st == MMT_HOOK_UNAVAILABLE)
		return sysfs_emit(buf, "unavailable\n");
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mmtune_stats_snapshot(s, &missed);
	ret = lat_value(name, s, missed, buf);
	kfree(s);
	return ret;
}

/* ---- policy/ */

static ssize_t pol_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return mmtune_policy_sysfs(attr->attr.name, buf);
}

/* ---- pfn_valid/ */

/*
 * debugfs pfn_valid/bench's text, from main.c: set before any feature is
 * up, so that this file names nothing of pfn_valid/'s, whose folder shares
 * only the module's general parts.
 */
static void (*bench_source)(struct seq_file *m);

void mmtune_sysfs_bench_source(void (*show)(struct seq_file *m))
{
	bench_source = show;
}

/*
 * Column @col of the bench's table rows (the lines after its "impl ..."
 * header), space-separated, one per strategy benched.
 */
static ssize_t bench_column(unsigned int col, char *buf)
{
	const char *p, *end, *nl, *w, *sp;
	bool rows = false;
	ssize_t len = 0;
	unsigned int c;
	size_t tlen;
	char *text;

	text = seq_text(bench_source, &tlen);
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
		for (w = p, c = 0; c < col && w < nl; c++) {
			sp = memchr(w, ' ', nl - w);
			w = sp ? sp + 1 : nl;
		}
		sp = memchr(w, ' ', nl - w);
		len += sysfs_emit_at(buf, len, "%s%.*s", len ? " " : "",
				     (int)((sp ? sp : nl) - w), w);
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
	return seq_value(bench_source, name + 6, buf);
}

/* ---- the tree */

/*
 * One directory: its files' names (an mmtune_abi.h table) and the show
 * every one of them shares.  The attributes are built at init from the
 * table, so that the module cannot show a name the tools do not know.
 */
struct dir {
	const char *name;
	const char *const *files;	/* or, for stats/, the counters' */
	ssize_t (*show)(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf);
};

static const struct dir dirs[] = {
	{ "info", mmt_abi_info, info_show },
	{ "stats", NULL, ctr_show },
	{ "latency", mmt_abi_latency, lat_show },
	{ "policy", mmt_abi_policy, pol_show },
	{ "pfn_valid", mmt_abi_pfn_valid, pfv_show },
};

static struct attribute_group groups[ARRAY_SIZE(dirs)];
static const struct attribute_group *group_ptrs[ARRAY_SIZE(dirs) + 1];
static struct kobj_attribute *attrs[ARRAY_SIZE(dirs)];

static const char *file_name(unsigned int d, unsigned int i)
{
	return dirs[d].files ? dirs[d].files[i] : mmt_abi_counters[i].name;
}

static void dirs_free(void)
{
	unsigned int d;

	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		kfree(groups[d].attrs);
		groups[d].attrs = NULL;
		kfree(attrs[d]);
		attrs[d] = NULL;
	}
}

static int dirs_build(void)
{
	unsigned int d, i, n;

	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		for (n = 0; file_name(d, n); n++)
			;
		attrs[d] = kcalloc(n, sizeof(*attrs[d]), GFP_KERNEL);
		groups[d].attrs = kcalloc(n + 1, sizeof(*groups[d].attrs),
					  GFP_KERNEL);
		if (!attrs[d] || !groups[d].attrs) {
			dirs_free();
			return -ENOMEM;
		}
		for (i = 0; i < n; i++) {
			sysfs_attr_init(&attrs[d][i].attr);
			attrs[d][i].attr.name = file_name(d, i);
			attrs[d][i].attr.mode = 0444;
			attrs[d][i].show = dirs[d].show;
			groups[d].attrs[i] = &attrs[d][i].attr;
		}
		groups[d].name = dirs[d].name;
		group_ptrs[d] = &groups[d];
	}
	return 0;
}

static bool is_mm_kobj(struct kobject *k)
{
	return k && k->parent == kernel_kobj && !strcmp(kobject_name(k), "mm");
}

/*
 * Without CONFIG_KALLSYMS_ALL (Debian 6.1 on arm64 and ppc64le) the kprobe
 * core resolves no data symbol: then the directory kernel_kobj holds named
 * "mm", whose kernfs node's priv is its kobject (sysfs_create_dir_ns).
 * mm_kobj is never freed, so the node's reference need not outlive this.
 */
static struct kobject *mm_kobj_from_kernfs(void)
{
	struct kernfs_node *kn = kernfs_find_and_get(kernel_kobj->sd, "mm");
	struct kobject *k = NULL;

	if (!kn)
		return NULL;
	if (kernfs_type(kn) == KERNFS_DIR)
		k = kn->priv;
	kernfs_put(kn);
	return is_mm_kobj(k) ? k : NULL;
}

/* The kernel's /sys/kernel/mm kobject, or NULL. */
static struct kobject *find_mm_kobj(void)
{
	unsigned long addr = mmtune_lookup_name("mm_kobj");

	if (!mmtune_symbol_is(addr, "mm_kobj", true) ||
	    !mmtune_in_kernel_data(addr) ||
	    !is_mm_kobj(*(struct kobject **)addr))
		return mm_kobj_from_kernfs();
	return *(struct kobject **)addr;
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
	ret = dirs_build();
	if (ret)
		return ret;
	mmt_kobj = kobject_create_and_add(MMT_ABI_SYSFS_NAME, mm);
	if (!mmt_kobj) {
		dirs_free();
		return -ENOMEM;
	}
	ret = sysfs_create_groups(mmt_kobj, group_ptrs);
	if (ret) {
		kobject_put(mmt_kobj);
		mmt_kobj = NULL;
		dirs_free();
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
	sysfs_remove_groups(mmt_kobj, group_ptrs);
	kobject_put(mmt_kobj);
	mmt_kobj = NULL;
	dirs_free();
	kvfree(info_cache);	/* no reader left: the groups are gone */
	info_cache = NULL;
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
