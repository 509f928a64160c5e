// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: a BPF object read by bpfobj.c made real with bpf(2): its
 * maps (BPF_MAP_CREATE), the program (BPF_PROG_LOAD, a writable raw
 * tracepoint program: its context is the module's struct
 * mmtune_fault_ctx), attached (BPF_RAW_TRACEPOINT_OPEN) and the link
 * pinned (BPF_OBJ_PIN) so that it outlives mmtunectl.  The layouts are
 * the uapi's union bpf_attr, zeroed past the fields used: the kernel
 * takes a larger or smaller union as long as the rest is zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "priv.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC	0xcafe4a11	/* linux/magic.h */
#endif

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* The kernel's object name: 15 bytes of [A-Za-z0-9_.], others as '_'. */
static void obj_name(char *dst, const char *src)
{
	size_t i;

	memset(dst, 0, MMT_BPF_OBJ_NAME);
	for (i = 0; src[i] && i < MMT_BPF_OBJ_NAME - 1; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' ? c : '_';
	}
}

/* A bpf(2) failure of what: errno into an MMT_E* code and a message. */
static int bpf_fail(const char *what, int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return mmt__fail(MMT_EPERM, "%s: %s: run as root (CAP_BPF and CAP_PERFMON, or "
				 "CAP_SYS_ADMIN)", what, strerror(e));
	case ENOSYS:
		return mmt__fail(MMT_EIO, "%s: this kernel has no bpf(2) (CONFIG_BPF_SYSCALL)", what);
	case EINVAL:
		return mmt__fail(MMT_EINVAL, "%s: the kernel refused it: %s", what, strerror(e));
	default:
		return mmt__fail(MMT_EIO, "%s: %s", what, strerror(e));
	}
}

static int map_create(struct mmt_bpf_map *m)
{
	union bpf_attr a;
	char what[96];

	memset(&a, 0, sizeof(a));
	a.map_type = m->type;
	a.key_size = m->key_size;
	a.value_size = m->value_size;
	a.max_entries = m->max_entries;
	a.map_flags = m->flags;
	obj_name(a.map_name, m->name);
	m->fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
	if (m->fd >= 0)
		return MMT_OK;
	snprintf(what, sizeof(what), "map %.32s (type %u, key %u, value %u, max_entries %u)",
		 m->name, m->type, m->key_size, m->value_size, m->max_entries);
	return bpf_fail(what, errno);
}

/* @v as @size bytes (4 or 8) of the host's order into @buf: 0, or -1 if it does not fit. */
static int int_bytes(unsigned char *buf, unsigned int size, unsigned long long v)
{
	uint32_t v32 = (uint32_t)v;

	if (size == 8) {
		memcpy(buf, &v, 8);
		return 0;
	}
	if (size != 4 || v > UINT32_MAX)
		return -1;
	memcpy(buf, &v32, 4);
	return 0;
}

int mmt_bpf_map_set(const struct mmt_bpf_obj *o, const char *name,
		    unsigned long long key, unsigned long long value)
{
	unsigned char k[8], v[8];
	const struct mmt_bpf_map *m = NULL;
	union bpf_attr a;
	char what[96];
	int i;

	for (i = 0; i < o->nmaps && !m; i++)
		if (!strcmp(o->maps[i].name, name))
			m = &o->maps[i];
	if (!m)
		return mmt__fail(MMT_EINVAL, "--map %.40s: the object has no such map", name);
	if (m->fd < 0)
		return mmt__fail(MMT_EINVAL, "--map %.40s: not made yet", name);
	if (int_bytes(k, m->key_size, key) || int_bytes(v, m->value_size, value))
		return mmt__fail(MMT_EINVAL, "--map %.40s: key %llu, value %llu: its key is %u bytes and its value %u; "
				 "--map takes integers of 4 or 8 bytes that fit", name, key, value,
				 m->key_size, m->value_size);
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)m->fd;
	a.key = ptr(k);
	a.value = ptr(v);
	a.flags = BPF_ANY;
	if (!sys_bpf(BPF_MAP_UPDATE_ELEM, &a))
		return MMT_OK;
	snprintf(what, sizeof(what), "--map %.40s: key %llu", name, key);
	return bpf_fail(what, errno);
}

/* Each ld_imm64 of a map: src_reg BPF_PSEUDO_MAP_FD, imm the map's fd. */
static void point_at_maps(struct mmt_bpf_obj *o)
{
	int i;

	for (i = 0; i < o->nrelocs; i++) {
		struct bpf_insn *in = &o->insns[o->relocs[i].insn];

		in[0].src_reg = BPF_PSEUDO_MAP_FD;
		in[0].imm = o->maps[o->relocs[i].map].fd;
		in[1].imm = 0;
	}
}

static long prog_load(const struct mmt_bpf_obj *o, char *log, size_t len, int level)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE;
	a.insn_cnt = o->ninsns;
	a.insns = ptr(o->insns);
	a.license = ptr(o->license);
	obj_name(a.prog_name, o->name);
	if (level && len >= 128) {
		a.log_level = (uint32_t)level;
		a.log_buf = ptr(log);
		/* the kernel's bound (UINT_MAX >> 2 before 6.4) */
		a.log_size = (uint32_t)(len < (UINT_MAX >> 2) ? len : UINT_MAX >> 2);
	}
	return sys_bpf(BPF_PROG_LOAD, &a);
}

int mmt_bpf_obj_load(struct mmt_bpf_obj *o, char *log, size_t len)
{
	long fd;
	int i, err, e;

	if (len)
		log[0] = '\0';
	for (i = 0; i < o->nmaps; i++)
		if ((err = map_create(&o->maps[i])))
			return err;
	point_at_maps(o);
	fd = prog_load(o, log, len, 1);
	/* a log cut short fails the load before 6.4: the answer without one */
	if (fd < 0 && errno == ENOSPC)
		fd = prog_load(o, NULL, 0, 0);
	if (fd >= 0) {
		o->prog_fd = (int)fd;
		return MMT_OK;
	}
	e = errno;
	if ((e == EACCES || e == EINVAL) && len && log[0])
		return mmt__fail(MMT_EINVAL, "the verifier refused program %s (its log above)", o->name);
	return bpf_fail("BPF_PROG_LOAD", e);
}

static int link_open(const struct mmt_bpf_obj *o, const char *tp)
{
	union bpf_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = ptr(tp);
	a.raw_tracepoint.prog_fd = (uint32_t)o->prog_fd;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (fd >= 0)
		return (int)fd;
	if (errno == ENOENT)
		return mmt__fail(MMT_EIO, "no raw tracepoint %s in this kernel: is the module's "
				 MMT_ABI_BPF_DIR "/tracepoint right?", tp);
	if (errno == EINVAL)
		return mmt__fail(MMT_EINVAL, "the kernel refused to attach %s to %s: does the program "
				 "reach past struct mmtune_fault_ctx (module/mmtune_bpf.h)?",
				 o->name, tp);
	return bpf_fail("BPF_RAW_TRACEPOINT_OPEN", errno);
}

int mmt_bpf_attach(const struct mmt_bpf_obj *o, const char *tp, const char *pin)
{
	union bpf_attr a;
	int fd = link_open(o, tp), e;

	if (fd < 0)
		return fd;
	memset(&a, 0, sizeof(a));
	a.pathname = ptr(pin);
	a.bpf_fd = (uint32_t)fd;
	if (!sys_bpf(BPF_OBJ_PIN, &a)) {
		close(fd);
		return MMT_OK;
	}
	e = errno;
	close(fd);	/* detaches: the pin was to keep it */
	if (e == EEXIST)
		return mmt__fail(MMT_EIO, "%s exists: mmtunectl bpf unload first", pin);
	return bpf_fail(pin, e);
}

/* The directory pin goes in: 1 if a bpf file system, 0 if not, -1/errno. */
static int dir_is_bpffs(const char *pin, char *dir, size_t n)
{
	char tmp[PATH_MAX];
	struct statfs sf;

	snprintf(tmp, sizeof(tmp), "%s", pin);
	snprintf(dir, n, "%s", dirname(tmp));
	if (statfs(dir, &sf))
		return -1;
	return sf.f_type == (typeof(sf.f_type))BPF_FS_MAGIC;
}

int mmt_bpf_fs(const char *pin)
{
	char dir[PATH_MAX];
	int r = dir_is_bpffs(pin, dir, sizeof(dir));

	if (r > 0)
		return MMT_OK;
	if (r < 0 && errno == ENOENT && strcmp(pin, MMT_BPF_PIN_DEFAULT))
		return mmt__fail(MMT_EIO, "no directory %s: make it under a bpf file system", dir);
	if (r < 0 && errno != ENOENT)
		return mmt__fail(MMT_EIO, "%s: %s", dir, strerror(errno));
	if (!strcmp(pin, MMT_BPF_PIN_DEFAULT))
		return mmt__fail(MMT_EIO, "%s is not a bpf file system: mount -t bpf bpf %s", dir, dir);
	return mmt__fail(MMT_EIO, "%s is not on a bpf file system: pin under one "
			 "(mount -t bpf bpf /sys/fs/bpf)", dir);
}

int mmt_bpf_unpin(const char *pin)
{
	struct statfs sf;

	if (statfs(pin, &sf)) {
		if (errno == ENOENT)
			return mmt__fail(MMT_EIO, "no program pinned at %s", pin);
		return mmt_errno_to_err(errno, pin, NULL);
	}
	if (sf.f_type != (typeof(sf.f_type))BPF_FS_MAGIC)
		return mmt__fail(MMT_EINVAL, "%s is not on a bpf file system: not a pin", pin);
	if (unlink(pin))
		return mmt_errno_to_err(errno, pin, NULL);
	return MMT_OK;
}
