// SPDX-License-Identifier: GPL-2.0
/*
 * What a result was measured on, so that a CSV or JSON file can be read
 * later without the machine: kernel, arch, page size, THP mode, the test
 * file and its file system, and the order each run really had (the knob,
 * or the policy rule that governs mmstress itself: mmtunectl tune runs
 * it under a cgroup= rule).
 */
#define _GNU_SOURCE
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

/* The bracketed word of a THP sysfs file ("always [madvise] never"). */
static void thp_mode(const char *path, char *out, size_t len)
{
	char buf[256], *a, *b;
	FILE *f = fopen(path, "re");

	out[0] = 0;
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && (a = strchr(buf, '[')) && (b = strchr(a, ']'))) {
		*b = 0;
		snprintf(out, len, "%s", a + 1);
	}
	fclose(f);
}

/* Copy the next blank-separated field of *p into out; 0 when there is none. */
static int field(char **p, char *out, size_t len)
{
	char *s = *p, *e;

	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return 0;
	for (e = s; *e && *e != ' ' && *e != '\n'; e++)
		;
	snprintf(out, len, "%.*s", (int)(e - s), s);
	*p = e;
	return 1;
}

/*
 * The file system holding fd: the mountinfo line of its device gives the
 * type and super options (tmpfs's huge= among them); statfs's magic only
 * when mountinfo is unreadable.
 */
static void file_fs(int fd, char *fs, size_t fslen, char *opts, size_t olen)
{
	struct stat st;
	struct statfs sf;
	char line[4096], f[1024], dev[32];
	FILE *mi;

	fs[0] = opts[0] = 0;
	if (fstat(fd, &st) != 0)
		return;
	snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	mi = fopen("/proc/self/mountinfo", "re");
	while (mi && fgets(line, sizeof(line), mi)) {
		char *p = line;
		int i;

		/* id parent MAJ:MIN root mountpoint opts [optional...] - type source superopts */
		for (i = 0; i < 3 && field(&p, f, sizeof(f)); i++)
			;
		if (i < 3 || strcmp(f, dev))
			continue;
		while (field(&p, f, sizeof(f)) && strcmp(f, "-"))
			;
		if (field(&p, fs, fslen) && field(&p, f, sizeof(f)))
			field(&p, opts, olen);
		break;
	}
	if (mi)
		fclose(mi);
	if (fs[0] || fstatfs(fd, &sf) != 0)
		return;
	switch ((unsigned long)sf.f_type) {
	case TMPFS_MAGIC: snprintf(fs, fslen, "tmpfs"); break;
	case EXT4_SUPER_MAGIC: snprintf(fs, fslen, "ext2/3/4"); break;
	case BTRFS_SUPER_MAGIC: snprintf(fs, fslen, "btrfs"); break;
	case V9FS_MAGIC: snprintf(fs, fslen, "9p"); break;
	default: snprintf(fs, fslen, "0x%lx", (unsigned long)sf.f_type); break;
	}
}

void mms_meta_file(struct mms_ctx *c, const char *path, int fd, int blockdev)
{
	struct mms_meta *m = &c->meta;

	snprintf(m->file, sizeof(m->file), "%s", path);
	if (blockdev)
		snprintf(m->fs, sizeof(m->fs), "block device");
	else
		file_fs(fd, m->fs, sizeof(m->fs), m->fs_opts, sizeof(m->fs_opts));
}

/* This process's cgroup v2 path (/proc/self/cgroup "0::PATH"), or "". */
static void own_cgroup(char *out, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s", line + 3);
			break;
		}
	if (f)
		fclose(f);
}

/*
 * Does rule r (comm=, pid= or cgroup=) name this process?  A rule with
 * mapping keys (file=, vma=, madv=) names mappings: -1, the order not
 * known without the mapping.
 */
static int rule_matches(const struct mmt_prule *r, const char *comm, const char *cg)
{
	const char *m = r->match;
	size_t n;

	if (mmt_prule_maps(r))
		return -1;
	/* the process key's value: up to an auto rule's learn_uid=, if any */
	if (!strncmp(m, "comm=", 5))
		return strcspn(m + 5, " ") == strlen(comm) && !strncmp(m + 5, comm, strlen(comm));
	if (!strncmp(m, "pid=", 4))
		return atol(m + 4) == (long)getpid();
	if (strncmp(m, "cgroup=", 7))
		return 0;
	m += 7;
	n = strcspn(m, " ");
	return (n == 1 && m[0] == '/') || (!strncmp(cg, m, n) && (cg[n] == 0 || cg[n] == '/'));
}

/*
 * The policy's first rule matching this process (first match wins, as in
 * the module): its order (an auto rule's: the one in force now), the rule
 * in rule[]; -1 when none matches or the policy cannot be read (no
 * module, not root, lockdown).
 */
static int policy_order(char *rule, size_t len)
{
	char comm[64] = "", cg[4096];
	struct mmt_policy *p;
	int i, m, order = -1;
	FILE *f;

	rule[0] = 0;
	if (!mmt_module_loaded())
		return -1;
	p = malloc(sizeof(*p));
	if (!p || mmt_policy_read(p)) {
		free(p);
		return -1;
	}
	f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	own_cgroup(cg, sizeof(cg));
	for (i = 0, m = 0; i < p->nr && !m; i++) {
		m = rule_matches(&p->r[i], comm, cg);
		if (m)
			snprintf(rule, len, "%s order=%s", p->r[i].match, p->r[i].order);
		if (m > 0)
			order = mmt_prule_order(&p->r[i]);
	}
	free(p);
	return order;
}

int mms_effective_order(char *rule, size_t len)
{
	int order = policy_order(rule, len);

	if (order >= 0)
		return order;
	return mmt_order_get(&order, NULL) == 0 ? order : -1;
}

void mms_meta_init(struct mms_ctx *c, int argc, char **argv)
{
	struct mms_meta *m = &c->meta;
	struct utsname u;
	time_t now = time(NULL);
	int via = 0;

	m->argc = argc;
	m->argv = argv;
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", m->thp, sizeof(m->thp));
	thp_mode("/sys/kernel/mm/transparent_hugepage/shmem_enabled", m->thp_shmem,
		 sizeof(m->thp_shmem));
	if (mmt_order_get(&m->order_found, &via) == 0)
		m->via = via ? MMS_VIA_KERNEL : MMS_VIA_MODULE;
	else
		m->order_found = -1, m->via = MMS_VIA_NONE;
	policy_order(m->rule, sizeof(m->rule));
	if (m->via == MMS_VIA_MODULE) {
		struct mmt_kv kv[64];
		int n = mmt_info(kv, 64);
		const char *v = n > 0 ? mmt_kv_get(kv, n, "version") : NULL;

		snprintf(m->module_version, sizeof(m->module_version), "%s", v ? v : "");
	}
}
