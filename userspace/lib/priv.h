/* SPDX-License-Identifier: GPL-2.0 */
/* libmmtune internals, not for the tools. */
#ifndef MMTUNE_PRIV_H
#define MMTUNE_PRIV_H

#include "libmmtune.h"

/*
 * base.c, the bottom layer (it calls nothing else here): the message,
 * errno mapping, file I/O and roots.
 */
/* Set the thread's message; returns err. */
int mmt__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The errno behind the thread's last mmt_errno_to_err(); 0 for none. */
extern __thread int mmt__last_errno;

/* Echo-like write (0, -1/errno); the read is libmmtune.h's mmt_read_path. */
int mmt__write_path(const char *path, const char *value);

/*
 * plane.c: a tunable through the lockdown-proof files (its module
 * parameter).  Read: bytes, or < 0 when the parameter cannot serve it
 * (the caller tries debugfs).  Write: MMT_OK, an MMT_E* code, or
 * MMT__NOPLANE to try debugfs.  mmt__plane_present(): whether the module
 * has the whole lockdown-proof interface.
 */
#define MMT__NOPLANE	(-100)
long mmt__plane_read(const char *knob, char *buf, size_t len);
int mmt__plane_write(const char *knob, const char *value);
int mmt__plane_present(void);

/*
 * sysrec.c: the records (info, stats, latency, policy) from
 * /sys/kernel/mm/mmtune/ and the policy parameter, straight into the
 * structs: what mmt_parse_*() would give for the debugfs file.  Each
 * returns as its parser does, MMT_EINVAL (no message) for a value that
 * parser would refuse, or MMT__NOPLANE where those files cannot serve
 * (the caller reads debugfs then).  The policy's also MMT__TORN: the
 * rules changed during the read (read again).
 */
#define MMT__TORN	(-101)
int mmt__sys_info(struct mmt_kv *kv, int max);
int mmt__sys_stats(struct mmt_kv *kv, int max);
int mmt__sys_latency(struct mmt_latency *lat);
int mmt__sys_policy(struct mmt_policy *p);
/* sysfs policy/rules: the module's count of its rules, or -1 (none). */
int mmt__sys_rules(void);

/* sysfs bpf/ into s: MMT_OK, MMT__NOPLANE without it, MMT_EINVAL for a value unread. */
int mmt__sys_bpf(struct mmt_bpf_state *s);

/*
 * bpfbtf.c, for bpfobj.c: the maps the object's .BTF (data, len bytes)
 * describes in .maps, into o->maps: MMT_OK, or MMT_EINVAL with a
 * message that names path.
 */
int mmt__bpf_btf_maps(const char *path, const void *data, size_t len, struct mmt_bpf_obj *o);
/* bpfobj.c: mmt_bpf_obj_open() of an object already in memory (the fuzzer's). */
int mmt__bpf_obj_parse(const char *path, const void *buf, size_t size, struct mmt_bpf_obj *o);

/*
 * policy.c's pieces for sysrec.c: an empty policy (no orders shown);
 * a rule line "KEY=V... order=X # counters" into r (0, or -1 without
 * both; the line is cut up); "87.5" then unit (the module's per mille,
 * one decimal) into *pm (0, else -1).
 */
void mmt__policy_init(struct mmt_policy *p);
int mmt__parse_rule(char *line, struct mmt_prule *r);
int mmt__parse_permille(const char *s, const char *unit, int *pm);

/* floor(log2(x)), x > 0 */
static inline int mmt__ilog2(unsigned long long x)
{
	return 63 - __builtin_clzll(x);
}

#endif
