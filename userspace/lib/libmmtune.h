/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmmtune: the one place where mmtunectl and mmstress touch the module
 * or the kernel's own fault-around knob.  Everything returns 0 or a
 * negative MMT_E* code; mmt_errmsg() then holds a one-line message that
 * names what to do.
 */
#ifndef MMTUNE_LIB_H
#define MMTUNE_LIB_H

#include <stddef.h>
#include <stdio.h>

/* as the kernel spells it: module/mmtune_abi.h's tables use it */
#ifndef __maybe_unused
#define __maybe_unused __attribute__((__unused__))
#endif
/* the limits and rule keys the module holds to (by path: any -I will do) */
#include "../../module/mmtune_abi.h"

/* Exit codes shared by every tool (docs/admin-guide.md; docs/mmstress.md). */
#define MMT_EXIT_OK	0	/* done */
#define MMT_EXIT_FAIL	1	/* could not: no module, not root, no debugfs */
#define MMT_EXIT_USAGE	2	/* bad usage or value out of range */

enum mmt_err {
	MMT_OK		= 0,
	MMT_ENOMOD	= -1,	/* module not loaded */
	MMT_ENODEBUGFS	= -2,	/* debugfs not mounted */
	MMT_EPERM	= -3,	/* not root / permission denied */
	MMT_EINVAL	= -4,	/* value rejected (by us or by the kernel) */
	MMT_ENOKNOB	= -5,	/* no such knob */
	MMT_EIO		= -6,	/* anything else */
};

/* Map an MMT_E* code to MMT_EXIT_*. */
int mmt_exit_code(int err);
/* One-line message for the last failure in this thread (never NULL). */
const char *mmt_errmsg(void);

/* debugfs mount point from /proc/self/mounts, or NULL if not mounted. */
const char *mmt_debugfs_root(void);
/* 1 if /sys/module/mmtune exists. */
int mmt_module_loaded(void);

/* Read a file of <debugfs>/mmtune/ into buf (NUL-terminated). */
int mmt_knob_read(const char *knob, char *buf, size_t len);
/* Read any whole file by path into buf (NUL-terminated): bytes, or -1/errno. */
long mmt_read_path(const char *path, char *buf, size_t len);
/* Write value to <debugfs>/mmtune/<knob>; kernel's errno -> MMT_E*. */
int mmt_knob_write(const char *knob, const char *value);
/*
 * One edit of the module's rules as they are ("add RULE", "first RULE",
 * "drop MATCH", "del N" or "clear"): /sys/kernel/mm/mmtune/rules/edit,
 * else the policy parameter.  On failure errno holds the kernel's error.
 */
int mmt_rules_edit(const char *line);

/*
 * The fault-around order, through the module when loaded, else through
 * the kernel's own <debugfs>/fault_around_bytes.  *via_kernel (may be
 * NULL) is set to 1 when the kernel's knob was used.
 */
int mmt_order_get(int *order, int *via_kernel);
int mmt_order_set(int order, int *via_kernel);

/* key/value parsers for info ("key: value"), stats ("name value"). */
struct mmt_kv {
	char key[64];
	char value[192];
};
/* Return number of pairs parsed (<= max), or MMT_EINVAL on garbage. */
int mmt_parse_info(const char *text, size_t len, struct mmt_kv *kv, int max);
int mmt_parse_stats(const char *text, size_t len, struct mmt_kv *kv, int max);
/* Value for key, or NULL. */
const char *mmt_kv_get(const struct mmt_kv *kv, int n, const char *key);

/* Strict integer parse: whole string, base 10, range [min, max]. */
int mmt_parse_long(const char *s, long min, long max, long *out);

/*
 * The order list every tool's --orders takes (mmtunectl(8), mmstress(1)):
 * orders N and ranges A-B (A <= B), each 0..max, joined by commas, like
 * 0,2,4 or 0-9 or 0-3,9.  Into o[] in the order given (a range rising),
 * or with MMT_ORDERS_SET sorted and each once.  Returns the count (>= 1),
 * or MMT_EINVAL (a bad element, none, more than max_n) with a message
 * that names --orders.  max is taken as MMT_ORDER_MAX when beyond it.
 */
#define MMT_ORDER_MAX	63	/* no order can exceed this on any arch */
#define MMT_ORDERS_SET	1u
int mmt_parse_orders(const char *s, int max, unsigned int flags, int *o, int max_n);

/* ---- additions (everything above keeps its signature) ---- */

/* Known files of <debugfs>/mmtune/ (NULL-terminated), for help and completion. */
extern const char *const *const mmt_knobs;

/* Override roots for tests: env MMTUNE_DEBUGFS (a directory standing for
 * the debugfs mount; empty or not a directory = "not mounted") and
 * MMTUNE_SYSFS_MODULE (stands for /sys/module/mmtune). */
const char *mmt_sysfs_module(void);

/*
 * The lockdown-proof interface (docs/admin-guide.md, "Under lockdown"): the module's
 * parameters and /sys/kernel/mm/mmtune (env MMTUNE_SYSFS_MM stands for
 * the latter).  The knob functions use it first and debugfs when it
 * cannot serve a knob.  mmt_interface() names the one in use,
 * mmt_lockdown() the kernel's lockdown mode ("none", "integrity",
 * "confidentiality", or "unknown" without securityfs).
 */
const char *mmt_sysfs_mm(void);
const char *mmt_interface(void);
const char *mmt_lockdown(void);

/* Path of the kernel's own knob (<debugfs>/fault_around_bytes) or NULL. */
const char *mmt_kernel_knob_path(void);

/* System page size (sysconf). */
long mmt_page_size(void);

/*
 * The module's records, typed: read from /sys/kernel/mm/mmtune/ (which
 * works under lockdown) or from the debugfs file, whichever serves, into
 * the structs the parsers fill.  mmt_info: the pairs of info (debugfs
 * first: its text has every line), like mmt_parse_info.  mmt_stats_read:
 * the counters, "name value" pairs like mmt_parse_stats.  Both return
 * the count, or an MMT_E* code (MMT_EIO for content they cannot read).
 */
int mmt_info(struct mmt_kv *kv, int max);
int mmt_stats_read(struct mmt_kv *kv, int max);

/*
 * Largest valid fault-around order: max_order from info when the module
 * is loaded, else log2(page_size / 8) (a PTE page's entries).
 * default: default_order from info, else the order that makes 64 KiB.
 */
int mmt_max_order(int *max);
int mmt_default_order(int *def);

/* Set the order to "default" (module: writes "default"; kernel: 64 KiB). */
int mmt_order_set_default(int *via_kernel);

/* Like mmt_knob_read but returns the byte count (>= 0) on success. */
long mmt_knob_read_n(const char *knob, char *buf, size_t len);

/* 1 if name is a plausible knob name: components of [A-Za-z0-9_.-]
 * joined by '/' (pfn_valid/mode), none "." or "..", <= 64 bytes. */
int mmt_knob_name_ok(const char *name);

/* Map errno from open/read (value NULL) or write of path to MMT_E*;
 * sets the message. */
int mmt_errno_to_err(int e, const char *path, const char *value);

/*
 * latency (module/stats.c): "key: value" lines (state, unit,
 * fault_around_samples, ...), '#' comments, and bucket lines of four
 * unsigned integers LOW HIGH FAULT_AROUND NO_FAULT_AROUND (faults that
 * took LOW <= ns < HIGH).  Tolerant: any other line is skipped, key/value
 * pairs and buckets beyond the arrays are dropped.  Returns the number of
 * buckets stored, or MMT_EINVAL if the text holds a NUL or non-ASCII byte.
 */
#define MMT_LAT_MAX_KV		16
#define MMT_LAT_MAX_BUCKETS	MMT_ABI_LAT_BUCKETS
struct mmt_lat_bucket {
	unsigned long long low, high, fault_around, no_fault_around;
};
struct mmt_latency {
	struct mmt_kv kv[MMT_LAT_MAX_KV];
	int nkv;
	struct mmt_lat_bucket b[MMT_LAT_MAX_BUCKETS];
	int nb;
};
int mmt_parse_latency(const char *text, size_t len, struct mmt_latency *lat);
/*
 * The latency record typed (mmt_info's order): the buckets' count, 0 with
 * lat empty for content that is not the latency's, or an MMT_E* code
 * where neither file can be read.
 */
int mmt_latency_read(struct mmt_latency *lat);

/* Strict unsigned 64-bit parse of a whole string (base 10). */
int mmt_parse_u64(const char *s, unsigned long long *out);

/*
 * s as a Prometheus label value (text format): backslash, double quote and
 * newline escaped, a byte that is not part of valid UTF-8 as U+FFFD; no
 * quotes around it.  Into buf (NUL-terminated, cut to len); returns the
 * length it needs (like snprintf).
 */
size_t mmt_prom_escape(char *buf, size_t len, const char *s);

/* Write s as a JSON string literal (quoted, escaped; bytes >= 0x80 as \u00XX). */
void mmt_json_str(FILE *f, const char *s);
/* Same into buf; returns the length it needs (like snprintf). */
size_t mmt_json_escape(char *buf, size_t len, const char *s);

/*
 * The module's policy text (module/policy.c; docs/policy.md): "# rules
 * N/MAX", "# kernel order=K", "# default order=D[ hits=H pages=P]", then a
 * line per rule "MATCH order=X #[ exited] hits=H pages=P" ("pages=-" while
 * pages are not counted), then "prefaulted=F untouched=U" once the
 * usefulness measurement counted for the set; an order=auto rule's line goes on with
 * "auto_order=K raised=R lowered=L learned=N useful=U" (U "-" or like
 * "87.5%").  Unknown words after '#' are skipped; everything after '#' is
 * ignored when the text is written back to the module.
 */
#define MMT_PRULES_MAX	MMT_ABI_RULES_MAX
#define MMT_MATCH_LEN	MMT_ABI_MATCH_MAX	/* a cgroup path, a file path, the short keys */

/* An order=auto rule's fields, as indexes of mmt_prule.au[] */
enum { MMT_PA_ORDER, MMT_PA_RAISED, MMT_PA_LOWERED, MMT_PA_LEARNED,
       MMT_PA_UNTRUSTED,	/* pages of processes it does not learn from */
       MMT_PA_NR };

struct mmt_prule {
	char match[MMT_MATCH_LEN];	/* its keys as the module shows them, blanks between */
	char order[16];		/* as written: N, default or auto */
	unsigned long long hits, pages;
	int has_hits, has_pages, exited;
	unsigned long long prefaulted, untouched;	/* the usefulness counts */
	int has_prefaulted, has_untouched;
	unsigned long long au[MMT_PA_NR];	/* order=auto: the MMT_PA_* fields */
	int au_seen;		/* bit MMT_PA_*: that field was shown */
	int useful;		/* useful=: per mille, -1 for '-' or not shown */
};

struct mmt_policy {
	int nr, max_rules, kernel_order, default_order;	/* orders: -1 if not shown */
	struct mmt_prule def;	/* faults no rule matched: hits, pages */
	struct mmt_prule r[MMT_PRULES_MAX];
};

/*
 * Parse the text (up to len bytes or a NUL) into p: MMT_OK, MMT_EINVAL if
 * it is not the policy text (no "# rules" line, a rule line without MATCH
 * or order=, more than MMT_PRULES_MAX rules), MMT_EIO without memory.
 */
int mmt_parse_policy(const char *text, size_t len, struct mmt_policy *p);
/*
 * The policy record typed, the whole set or none: a read that the rules
 * changed under, or that got fewer rules than the module counts, is made
 * again, up to 20 times.  MMT_OK; MMT_ENOKNOB for a module without a
 * policy; MMT_EIO for content that is not the policy, a set that stayed
 * partial or changing; or the read's MMT_E* code.
 */
int mmt_policy_read(struct mmt_policy *p);
int mmt_prule_is_auto(const struct mmt_prule *r);
/* Whether r has mapping keys (file=, vma=, madv=): it matches per mapping. */
int mmt_prule_maps(const struct mmt_prule *r);
/* The rule key (MMT_KEY_*, module/mmtune_rule_keys.h) of "KEY=VALUE", or -1. */
int mmt_rule_key(const char *word);
/* The kinds (bit MMT_ABI_KEY_*) of match's keys, of @key's alone if >= 0. */
int mmt_match_kinds(const char *match, int key);
/*
 * The keys of @kinds (bits MMT_ABI_KEY_*) but order=, as "a=, b= or c="
 * (@last before the last; with @values "a=VALUE"), like snprintf.
 */
size_t mmt_rule_keys_text(char *buf, size_t len, int kinds, int values, const char *last);
/* The order r gives now: its N, an auto rule's auto_order=; -1 for none
 * (default, an auto rule that shows no order yet, an unreadable one). */
int mmt_prule_order(const struct mmt_prule *r);

/*
 * A BPF program that chooses the fault-around order (module/mmtune_bpf.h,
 * docs/bpf.md), loaded without libbpf (the static tools of every arch
 * cannot link it): bpfobj.c reads a clang -target bpf object, its one
 * raw_tp.w/ program, its license, its relocations; bpfbtf.c its
 * BTF-defined maps (.maps); bpfload.c makes them with bpf(2), attaches
 * the program to the module's raw tracepoint and pins the link.
 */
#define MMT_BPF_SEC_PREFIX	"raw_tp.w/"
#define MMT_BPF_PIN_DEFAULT	"/sys/fs/bpf/mmtune_order"
#define MMT_BPF_MAPS_MAX	16
#define MMT_BPF_OBJ_NAME	16	/* a kernel object's name and its NUL */

struct mmt_bpf_map {
	char name[64];			/* its variable's in the object */
	unsigned int type, key_size, value_size, max_entries, flags;
	unsigned long long off;		/* its place in .maps */
	int fd;				/* -1 until made */
};

/* An ld_imm64 that loads a map: the map's fd goes into it at load. */
struct mmt_bpf_reloc {
	unsigned int insn;
	int map;			/* into maps[] */
};

struct bpf_insn;

struct mmt_bpf_obj {
	char section[128];		/* raw_tp.w/... */
	char name[64];			/* the program's function */
	char license[128];
	struct bpf_insn *insns;		/* the host's byte order (the object's) */
	unsigned int ninsns;
	struct mmt_bpf_map maps[MMT_BPF_MAPS_MAX];
	int nmaps;
	struct mmt_bpf_reloc *relocs;
	int nrelocs;
	int prog_fd;			/* -1 until loaded */
};

/*
 * Read the object at path into o: MMT_OK; MMT_EINVAL for an object load
 * would refuse (not BPF, the other byte order, no or two raw_tp.w/
 * programs, global data, calls, maps it cannot make), the message says
 * what to change; MMT_EIO for a file it cannot read.  No bpf(2) call.
 * mmt_bpf_obj_close() frees it (and closes what load made) either way.
 */
int mmt_bpf_obj_open(const char *path, struct mmt_bpf_obj *o);
void mmt_bpf_obj_close(struct mmt_bpf_obj *o);
/* A map type's name as bpftool spells it ("hash"), or NULL. */
const char *mmt_bpf_map_type_name(unsigned int type);
/*
 * Make the maps, point the program's ld_imm64 at them and load it as a
 * BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE program; the verifier's log into
 * log (len bytes, NUL-terminated).  MMT_EINVAL: the verifier or the
 * kernel refused the object (the log says why); MMT_EPERM; MMT_EIO.
 */
int mmt_bpf_obj_load(struct mmt_bpf_obj *o, char *log, size_t len);
/*
 * Write key -> value into the loaded object's map name (its key and
 * value each 4 or 8 bytes, the host's order): what --map sets before the
 * program is attached.  MMT_EINVAL: no such map, a size or a number that
 * does not fit, or the kernel refused (an array's key past max_entries).
 */
int mmt_bpf_map_set(const struct mmt_bpf_obj *o, const char *name,
		    unsigned long long key, unsigned long long value);
/*
 * Attach the loaded program to raw tracepoint tp and pin the link at
 * pin; the link lives as long as the pin.
 */
int mmt_bpf_attach(const struct mmt_bpf_obj *o, const char *tp, const char *pin);
/* Whether pin's directory is a bpf file system: MMT_OK, else MMT_EIO saying how to mount one. */
int mmt_bpf_fs(const char *pin);
/* Remove the pin (the program goes with its last reference). */
int mmt_bpf_unpin(const char *pin);

/* The module's sysfs bpf/ (module/mmtune_abi.h's mmt_abi_bpf[]). */
struct mmt_bpf_state {
	int attached;
	unsigned long long calls, refused;
	unsigned long long decisions[MMT_ORDER_MAX + 1];	/* per order */
	int ndecisions;
	char tracepoint[64];
};

/* MMT_OK; MMT_ENOMOD; MMT_EIO for a module without bpf/ (older) or content it cannot read. */
int mmt_bpf_read(struct mmt_bpf_state *s);

#endif
