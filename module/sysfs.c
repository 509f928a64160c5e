// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: /sys/kernel/mm/mmtune/, the module's state and counters, one
 * value per file (an array of one type counts as one value), read only
 * but rules/edit, in the place lockdown leaves usable.  The names are
 * mmtune_abi.h's, the contract docs/ABI/.
 *
 *   info/NAME        the value debugfs info shows as "NAME: value"
 *   stats/NAME       a counter of debugfs stats
 *   latency/         the histogram of debugfs latency: state, samples,
 *                    and three arrays of MMT_LAT_BUCKETS numbers
 *   policy/          the rule count and the per-rule counters
 *   rules/           the rule count, N/: rule N's values, and edit: one
 *                    edit of the policy parameter's (add, first, ...)
 *   pfn_valid/       the last bench of debugfs pfn_valid/bench
 *
 * info/ and pfn_valid/ show struct mmtune_info values, each read by its
 * own show, as debugfs info renders them: no text is rendered to be cut
 * up here.
 *
 * The directory hangs off the kernel's own /sys/kernel/mm kobject,
 * mm_kobj.  Not every kernel exports it to modules, so it is looked up
 * like the module's other kernel symbols (symbols.c), else found as
 * kernel_kobj's "mm" directory through kernfs, and checked to be that
 * directory; without it the tree is absent and info says why.  The
 * feature is brought up last and taken down first: no file can outlive
 * what it shows.
 */
#include <linux/kernel.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "hooks.h"
#include "stats.h"

static struct kobject *mmt_kobj;
static char sysfs_reason[96] = "off: not initialised";

/* From main.c, set before any feature is up: see mmtune_sysfs_values(). */
static const struct mmtune_info *(*info_find)(const char *name);
static const struct mmtune_info *bench_values;

void mmtune_sysfs_values(const struct mmtune_info *(*info)(const char *name),
			 const struct mmtune_info *bench)
{
	info_find = info;
	bench_values = bench;
}

const struct mmtune_info *mmtune_info_find(const struct mmtune_info *table,
					   const char *name)
{
	const struct mmtune_info *v, *found;

	for (v = table; v->name || v->more; v++) {
		if (!v->name)
			found = mmtune_info_find(v->more, name);
		else
			found = strcmp(v->name, name) ? NULL : v;
		if (found)
			return found;
	}
	return NULL;
}

/* ---- info/, pfn_valid/ */

/*
 * A file of info/ or pfn_valid/: its value, NULL where this kernel has
 * none.  Resolved once, when the tree is built.
 */
struct value_attr {
	struct kobj_attribute attr;
	const struct mmtune_info *value;
};

/*
 * The value, "unavailable" where there is none.  In info/ an empty
 * value is none too: its line "NAME:" has no value.
 *
 * Both are world-readable, and no read is rate-limited: a value's show
 * takes only the lock its own state is under (the policy's orders that
 * and fault-around's), briefly, as policy/'s files and the parameters'
 * reads do.  A reader waits while root holds the lock (a bench, up to
 * seconds); it holds no writer back longer than one show.  (info/ was
 * cut out of debugfs info's whole text, which took every feature's lock:
 * then a reader without CAP_SYS_ADMIN got a text up to 0.1 s old.)
 */
static ssize_t value_show(struct kobj_attribute *attr, char *buf,
			  bool empty_is_none)
{
	const struct mmtune_info *v = container_of(attr, struct value_attr,
						   attr)->value;
	ssize_t len = v ? v->show(buf, v->arg) : -ENODATA;

	if (len == -ENODATA || (len <= 1 && empty_is_none))
		return sysfs_emit(buf, "unavailable\n");
	return len;
}

static ssize_t info_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return value_show(attr, buf, true);
}

/* an empty list is a bench's table before any bench: an empty line */
static ssize_t pfv_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return value_show(attr, buf, false);
}

static const struct mmtune_info *info_value(const char *name)
{
	return info_find(name);
}

static const struct mmtune_info *bench_value(const char *name)
{
	return mmtune_info_find(bench_values, name);
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

/* ---- bpf/ */

static ssize_t bpf_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return mmtune_bpf_sysfs(attr->attr.name, buf);
}

/* ---- rules/ */

/*
 * rules/N/ for every N a set can hold, made once at init: an edit moves
 * no directory, so no reader races one that comes or goes.  Each value
 * is read under the policy's lock by policy_file.c, as policy/'s are; a
 * slot past count reads ENODATA.
 */
static struct kobject *rules_kobj;
static struct kobject *rule_kobjs[MMT_ABI_RULES_MAX];

static ssize_t rule_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	unsigned int n;

	/* the slot is its directory's name (rules_add()) */
	if (kstrtouint(kobject_name(kobj), 10, &n))
		return -EINVAL;
	return mmtune_policy_rule_sysfs(n, attr->attr.name, buf);
}

static ssize_t count_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return mmtune_policy_sysfs("rules", buf);
}

/*
 * One edit a write.  kernfs hands a longer write to the store a page at
 * a time: a write that fills the page may have been cut, so it is
 * refused, as is one with a NUL byte (as debugfs's writes are).
 */
static ssize_t edit_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	int ret;

	if (count >= PAGE_SIZE || strnlen(buf, count) != count)
		return -EINVAL;
	ret = mmtune_policy_edit(buf);
	return ret ? ret : count;
}

static struct kobj_attribute count_attr = {
	.attr	= { .name = MMT_ABI_RULES_COUNT, .mode = 0444 },
	.show	= count_show,
};

static struct kobj_attribute edit_attr = {
	.attr	= { .name = MMT_ABI_RULES_EDIT, .mode = 0200 },
	.store	= edit_store,
};

static struct attribute *rules_attrs[] = {
	&count_attr.attr, &edit_attr.attr, NULL
};

static const struct attribute_group rules_group = { .attrs = rules_attrs };

/*
 * kobject_del() first: the directories go now, waiting for every read
 * and write in progress, also where the kobjects' release is delayed
 * (CONFIG_DEBUG_KOBJECT_RELEASE).
 */
static void rules_del(void)
{
	unsigned int n;

	for (n = 0; n < MMT_ABI_RULES_MAX && rule_kobjs[n]; n++) {
		kobject_del(rule_kobjs[n]);
		kobject_put(rule_kobjs[n]);
		rule_kobjs[n] = NULL;
	}
	if (rules_kobj) {
		kobject_del(rules_kobj);
		kobject_put(rules_kobj);
		rules_kobj = NULL;
	}
}

/* rules/ under @parent, its slots' files @slot (every slot's the same) */
static int rules_add(struct kobject *parent,
		     const struct attribute_group *slot)
{
	char name[8];
	unsigned int n;
	int ret;

	rules_kobj = kobject_create_and_add(MMT_ABI_RULES_DIR, parent);
	if (!rules_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(rules_kobj, &rules_group);
	for (n = 0; !ret && n < MMT_ABI_RULES_MAX; n++) {
		snprintf(name, sizeof(name), "%u", n);
		rule_kobjs[n] = kobject_create_and_add(name, rules_kobj);
		ret = rule_kobjs[n] ? sysfs_create_group(rule_kobjs[n], slot) :
				      -ENOMEM;
	}
	if (ret)
		rules_del();
	return ret;
}

/* ---- the tree */

/*
 * One directory: its files' names (an mmtune_abi.h table), the show
 * every one of them shares and, for info/ and pfn_valid/, where each
 * file's value is found.  The attributes are built at init from the
 * table, so that the module cannot show a name the tools do not know.
 * The last, without a name, is every rules/N/'s (rules_add()).
 */
struct dir {
	const char *name;
	const char *const *files;	/* or, for stats/, the counters' */
	ssize_t (*show)(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf);
	const struct mmtune_info *(*value)(const char *name);
};

static const struct dir dirs[] = {
	{ "info", mmt_abi_info, info_show, info_value },
	{ "stats", NULL, ctr_show },
	{ "latency", mmt_abi_latency, lat_show },
	{ "policy", mmt_abi_policy, pol_show },
	{ "pfn_valid", mmt_abi_pfn_valid, pfv_show, bench_value },
	{ "bpf", mmt_abi_bpf, bpf_show },
	{ NULL, mmt_abi_rule, rule_show },
};

#define RULE_DIR	(ARRAY_SIZE(dirs) - 1)

static struct attribute_group groups[ARRAY_SIZE(dirs)];
static const struct attribute_group *group_ptrs[ARRAY_SIZE(dirs) + 1];
static struct value_attr *attrs[ARRAY_SIZE(dirs)];

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
			struct kobj_attribute *ka = &attrs[d][i].attr;

			sysfs_attr_init(&ka->attr);
			ka->attr.name = file_name(d, i);
			/*
			 * A rule's match names processes, cgroups and files:
			 * root's, as the policy parameter and debugfs policy
			 * are; its numbers are everyone's, as stats/ are.
			 */
			ka->attr.mode = d == RULE_DIR &&
				!strcmp(ka->attr.name, "match") ? 0400 : 0444;
			ka->show = dirs[d].show;
			if (dirs[d].value)
				attrs[d][i].value = dirs[d].value(ka->attr.name);
			groups[d].attrs[i] = &ka->attr;
		}
		groups[d].name = dirs[d].name;
		if (d != RULE_DIR)
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
	if (!ret) {
		ret = rules_add(mmt_kobj, &groups[RULE_DIR]);
		if (ret)
			sysfs_remove_groups(mmt_kobj, group_ptrs);
	}
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
	rules_del();
	sysfs_remove_groups(mmt_kobj, group_ptrs);
	kobject_put(mmt_kobj);
	mmt_kobj = NULL;
	dirs_free();
}

MMTUNE_INFO_SHOW(sysfs_reason, "%s", sysfs_reason)

static const struct mmtune_info mmt_sysfs_info[] = {
	{ "sysfs", sysfs_reason_show },
	{ }
};

const struct mmtune_feature mmtune_sysfs_feature = {
	.name	= "sysfs",
	.init	= mmt_sysfs_init,
	.exit	= mmt_sysfs_exit,
	.info	= mmt_sysfs_info,
};
