// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl policy: per-process fault-around orders
 * (<debugfs>/mmtune/policy), and the rule helpers tune, run and save use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"

static const char policy_optstring[] = ":jh";	/* options anywhere: rule words never start with '-' */
static const struct option policy_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_policy(int argc, char **argv);

const struct cmd cmd_policy = {
	"policy", do_policy, policy_optstring, policy_opts,
	"usage: " PROG " policy [--json] [show | set RULE... | add RULE... | del MATCH... | clear | load FILE]",
	"Per-process fault-around orders.  RULE: MATCH order=N|default|auto, MATCH at\n"
	"most one of comm=NAME, pid=TGID, cgroup=PATH and any of file=PATH,\n"
	"vma=exec|data|shmem, madv=random (no auto), all matching; first match wins.\n"
	"See mmtunectl(8).\n"
	"  show (default)   the rules and their counters\n"
	"  set RULE...      replace every rule\n"
	"  add RULE...      append rules after those there\n"
	"  del MATCH...     remove the rules with these matches\n"
	"  clear            remove every rule\n"
	"  load FILE        write FILE's rules ('-': standard input)\n"
	"  --json           show: one JSON object\n"
};

/* sysfs REL (under the module's directory) as a number, or -1 (none). */
static int sysfs_int(const char *rel)
{
	char p[PATH_MAX];
	FILE *f;
	int n = -1;

	snprintf(p, sizeof(p), "%s/%s", mmt_sysfs_mm(), rel);
	f = fopen(p, "re");
	if (!f)
		return -1;	/* a module without it */
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* sysfs policy/rules: the module's count of its rules, or -1 (none). */
static int rules_count(void)
{
	return sysfs_int("policy/rules");
}

/* Whether the module has no policy at all (one from before it). */
int policy_absent(void)
{
	char b[64];
	long r = mmt_knob_read_n("policy", b, sizeof(b));

	return r == MMT_ENOKNOB || (r == MMT_EIO && errno == ENOENT);
}

/*
 * Read the policy (mmt_policy_read: the whole set or none, read again
 * while it tears); -(exit code) after saying why.
 */
int read_policy(struct mmt_policy *ps)
{
	int err = mmt_policy_read(ps);

	if (err == MMT_ENOKNOB) {	/* the module's fault, not a usage error */
		fprintf(stderr, PROG ": %s\n", mmt_errmsg());
		return -MMT_EXIT_FAIL;
	}
	return err ? -lib_fail(err) : 0;
}

int rule_match(const struct mmt_prule *r, long *pid, const char **val)
{
	static char first[MMT_MATCH_LEN];	/* the first key's value, until the next call */
	const char *m = r->match, *eq = strchr(m, '=');

	/* up to the next key (an auto rule's learn_uid=): no value holds a blank */
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(eq ? eq + 1 : m, " "), eq ? eq + 1 : m);
	*val = first;
	if (mmt_prule_maps(r))
		return MATCH_MAP;
	switch (mmt_rule_key(m)) {
	case MMT_KEY_pid:
		return mmt_parse_long(*val, 1, INT_MAX, pid) ? MATCH_OTHER : MATCH_PID;
	case MMT_KEY_comm:
		return MATCH_COMM;
	case MMT_KEY_cgroup:
		return MATCH_CGROUP;
	default:
		return MATCH_OTHER;
	}
}

/*
 * Check a mapping key and write its canonical form (file=: the absolute
 * path, symbolic links resolved, as the module holds its inode) into out.
 */
static int check_map_key(const char *verb, const char *m, char *out, size_t len)
{
	const char *v = strchr(m, '=') + 1;
	char real[PATH_MAX], want[200];
	struct stat st;
	int key = mmt_rule_key(m);

	if (key == MMT_KEY_file) {
		if (!realpath(v, real))
			return usage_err(verb, "file %.80s: %s", v, strerror(errno));
		if (stat(real, &st) || !S_ISREG(st.st_mode))
			return usage_err(verb, "file %.80s: not a regular file", v);
		if (strlen(real) >= MMT_ABI_PATH_MAX || strpbrk(real, " \t#"))
			return usage_err(verb, "file %.80s: want a path under %d bytes without blanks or '#'",
					 real, MMT_ABI_PATH_MAX);
		snprintf(out, len, "file=%s", real);
		return 0;
	}
	if (key == MMT_KEY_vma) {
		if (strcmp(v, "exec") && strcmp(v, "data") && strcmp(v, "shmem"))
			return usage_err(verb, "vma '%.40s': want exec, data or shmem", v);
		snprintf(out, len, "%s", m);
		return 0;
	}
	if (key == MMT_KEY_madv) {
		if (strcmp(v, "random"))
			return usage_err(verb, "madv '%.40s': want random", v);
		snprintf(out, len, "%s", m);
		return 0;
	}
	if (key == MMT_KEY_learn_uid) {
		long uid;

		if (strcmp(v, "any") && (!*v || strspn(v, "0123456789") != strlen(v) ||
					 mmt_parse_long(v, 0, 4294967294L, &uid)))
			return usage_err(verb, "learn_uid '%.40s': want a user id or 'any'", v);
		snprintf(out, len, "%s", m);
		return 0;
	}
	mmt_rule_keys_text(want, sizeof(want), -1, 1, " or ");
	return usage_err(verb, "'%.40s': want %s", m, want);
}

/*
 * Check one matcher ("comm=...", "pid=...", "cgroup=...") and write its
 * canonical form into out (a cgroup given under the cgroup2 mount point
 * becomes its cgroup path).  0, or an exit code after saying why.
 */
int check_match(const char *verb, const char *m, char *out, size_t len)
{
	const char *v = strchr(m, '=') + 1;
	size_t n = strlen(v), i;
	int key = mmt_rule_key(m);

	if (key == MMT_KEY_comm) {
		if (!n || n >= MMT_ABI_COMM_LEN)
			return usage_err(verb, "comm '%.40s': want 1 to %d bytes (the kernel's comm length)",
					 v, MMT_ABI_COMM_LEN - 1);
		for (i = 0; i < n; i++)
			if ((unsigned char)v[i] <= ' ' || v[i] == 0x7f || v[i] == '#')
				return usage_err(verb, "comm '%.40s': no blanks, control characters or '#'", v);
		snprintf(out, len, "comm=%s", v);
		return 0;
	}
	if (key == MMT_KEY_pid) {
		char p[64];
		long pid;

		if (!n || strspn(v, "0123456789") != n || mmt_parse_long(v, 1, PID_MAX, &pid))
			return usage_err(verb, "pid '%.40s': want a process id", v);
		snprintf(p, sizeof(p), "/proc/%ld/status", pid);
		if (access(p, F_OK))
			return usage_err(verb, "pid %ld: no such process", pid);
		snprintf(out, len, "pid=%ld", pid);
		return 0;
	}
	if (key == MMT_KEY_cgroup) {
		const char *root = mmt_cgroup2_root(), *path = v;
		char dir[PATH_MAX + MMT_MATCH_LEN];
		size_t rl = root ? strlen(root) : 0;

		if (root && rl > 1 && !strncmp(v, root, rl) && (v[rl] == '/' || !v[rl]))
			path = v[rl] ? v + rl : "/";
		if (path[0] != '/' || strlen(path) >= MMT_ABI_PATH_MAX || strpbrk(path, " \t#"))
			return usage_err(verb, "cgroup '%.60s': want a cgroup v2 path like /system.slice/foo.service", v);
		if (root) {
			struct stat st;

			snprintf(dir, sizeof(dir), "%s%s", root, path);
			if (stat(dir, &st) || !S_ISDIR(st.st_mode))
				return usage_err(verb, "cgroup %.60s: no such cgroup (%.80s)", path, dir);
		}
		snprintf(out, len, "cgroup=%s", path);
		return 0;
	}
	return check_map_key(verb, m, out, len);
}

/*
 * A key's place in a rule as the module shows it (mmtune_rule_keys.h's
 * order): the task key first, whichever it is
 */
static int key_family(const char *k)
{
	int key = mmt_rule_key(k);

	return key < 0 || mmt_abi_rule_keys[key].kind == MMT_ABI_KEY_TASK ? 0 : key;
}

/*
 * Add the checked key @k to @r's match, keys in the module's order (task
 * key, file=, vma=, madv=, learn_uid=); 0, or an exit code if @r has one
 * of its kind.
 */
static int add_key(const char *verb, struct mmt_prule *r, const char *k)
{
	char part[MMT_KEY_NR][MMT_MATCH_LEN] = { "" }, *w, *save = NULL;
	int f = key_family(k), i;
	size_t off = 0;

	for (w = strtok_r(r->match, " ", &save); w; w = strtok_r(NULL, " ", &save))
		snprintf(part[key_family(w)], MMT_MATCH_LEN, "%s", w);
	if (part[f][0]) {
		char task[64];

		mmt_rule_keys_text(task, sizeof(task), 1 << MMT_ABI_KEY_TASK, 0, " or ");
		return usage_err(verb, "'%.40s': the rule has a %s already", k,
				 f ? "key of that kind" : task);
	}
	snprintf(part[f], MMT_MATCH_LEN, "%s", k);
	r->match[0] = '\0';
	for (i = 0; i < MMT_KEY_NR; i++)
		if (part[i][0])
			off += (size_t)snprintf(r->match + off, sizeof(r->match) - off, "%s%s",
						off ? " " : "", part[i]);
	return off < sizeof(r->match) ? 0 : usage_err(verb, "rule '%.60s...': too long", r->match);
}

/*
 * Rules from the command line: words (split at blanks, so one quoted
 * argument per rule works as well as separate words); a key word (comm=,
 * pid=, cgroup=, file=, vma=, madv=) starts a rule or adds to the one
 * before it while that has no order yet; order=N (or default, or auto)
 * ends the rule before it; learn_uid= belongs to the rule before it,
 * before or after its order=auto.
 * Returns the number of rules, or -(exit code).
 */
static int rules_from_args(const char *verb, int argc, char **argv, struct mmt_prule *out, int max)
{
	static int maxo = -1;	/* policy load asks once a line: info once */
	int n = 0, i, rc = 0;
	char keys[96];

	if (maxo < 0 && mmt_max_order(&maxo))
		maxo = 63;
	mmt_rule_keys_text(keys, sizeof(keys), (1 << MMT_ABI_KEY_TASK) | (1 << MMT_ABI_KEY_MAP), 0, ", ");
	for (i = 0; i < argc && !rc; i++) {
		char *copy = strdup(argv[i]), *tok, *save = NULL;

		if (!copy)
			return -lib_fail(MMT_EIO);
		for (tok = strtok_r(copy, " \t\n", &save); tok && !rc; tok = strtok_r(NULL, " \t\n", &save)) {
			int key = mmt_rule_key(tok);

			if (key == MMT_KEY_order) {
				const char *o = tok + 6;
				long v;

				if (!n || out[n - 1].order[0])
					rc = usage_err(verb, "'%.40s' without a key (%s) before it", tok, keys);
				else if (strcmp(o, "default") && strcmp(o, "auto") && strcmp(o, "auto:file") &&
					 (strncmp(o, "auto:", 5) ? mmt_parse_long(o, 0, maxo, &v) :
					  mmt_parse_long(o + 5, 0, maxo, &v)))
					rc = usage_err(verb, "order '%.40s': want 0..%d, 'default', 'auto', 'auto:N' or 'auto:file'",
						       o, maxo);
				else
					snprintf(out[n - 1].order, sizeof(out[n - 1].order), "%s", o);
			} else if (!strchr(tok, '=')) {
				rc = usage_err(verb, "'%.40s' is not KEY=VALUE", tok);
			} else if (n && (!out[n - 1].order[0] || key == MMT_KEY_learn_uid)) {
				char k[MMT_MATCH_LEN];

				rc = check_match(verb, tok, k, sizeof(k));
				if (!rc)
					rc = add_key(verb, &out[n - 1], k);
			} else if (key == MMT_KEY_learn_uid) {
				rc = usage_err(verb, "'%.40s' without a key (%s) before it", tok, keys);
			} else if (n == max) {
				rc = usage_err(verb, "more than %d rules", max);
			} else {
				memset(&out[n], 0, sizeof(out[n]));
				rc = check_match(verb, tok, out[n].match, sizeof(out[n].match));
				n++;
			}
		}
		free(copy);
	}
	if (rc)
		return -rc;
	if (n && !out[n - 1].order[0])
		return -usage_err(verb, "rule '%.60s' has no order=N", out[n - 1].match);
	for (i = 0; i < n; i++)
		if (!mmt_prule_is_auto(&out[i]) && mmt_match_kinds(out[i].match, MMT_KEY_learn_uid))
			return -usage_err(verb, "rule '%.60s': learn_uid= is for order=auto (whose processes it learns from)",
					  out[i].match);
	return n;
}

/* Rules as the module reads them, one per line. */
static char *rules_text(const struct mmt_prule *r, int n)
{
	size_t len = 16, off = 0;
	char *t;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(r[i].match) + strlen(r[i].order) + 16;
	t = malloc(len);
	if (!t)
		return NULL;
	t[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(t + off, len - off, "%s order=%s\n", r[i].match, r[i].order);
	if (!n)
		snprintf(t, len, "clear\n");
	return t;
}

/*
 * @t to the policy: a set or "clear" (@edit false), or one edit (@edit:
 * rules/edit's line, mmt_rules_edit); 0 or an exit code.
 */
static int write_one(const char *t, bool edit)
{
	int err = edit ? mmt_rules_edit(t) : mmt_knob_write("policy", t);

	if (!err)
		return 0;
	switch (errno) {
	case EINVAL:
		fprintf(stderr, PROG ": the module rejected the rules (the kernel log says why)\n");
		return MMT_EXIT_USAGE;
	case ESRCH:
		fprintf(stderr, PROG ": a pid= rule names a process that is gone\n");
		return MMT_EXIT_USAGE;
	case ENOENT:
	case ENOTDIR:
		if (mmt_module_loaded()) {
			fprintf(stderr, PROG ": a cgroup= rule names a cgroup that does not exist\n");
			return MMT_EXIT_USAGE;
		}
		break;
	case EOPNOTSUPP:
		fprintf(stderr, PROG ": the module cannot change fault-around windows on this kernel (see the kernel log)\n");
		return MMT_EXIT_FAIL;
	}
	return lib_fail(err);
}

/* Replace the module's rules with r[0..n) ("clear" when n == 0). */
int write_rules(const struct mmt_prule *r, int n)
{
	char *t = rules_text(r, n);
	int rc;

	if (!t)
		return lib_fail(MMT_EIO);
	rc = write_one(t, false);
	free(t);
	return rc;
}

/* The current rules minus exited pid rules (they cannot be written back). */
static int live_rules(const struct mmt_policy *ps, struct mmt_prule *out)
{
	int i, n = 0;

	for (i = 0; i < ps->nr; i++) {
		if (ps->r[i].exited) {
			fprintf(stderr, PROG ": note: dropping %s: its process has exited\n", ps->r[i].match);
			continue;
		}
		out[n++] = ps->r[i];
	}
	return n;
}

/*
 * The rules of a policy file ("-": stdin) as policy show or the module's
 * file print them: a rule per line, text after '#' and blank lines
 * ignored, "clear" alone for none.  Refused with a clear error, before
 * anything is written: a file over LOAD_MAX bytes or holding a NUL byte
 * (a prefix of it would pass for the whole), a bad rule, a line with more
 * or less than one rule.  Returns the number of rules or -(exit code).
 */
static int load_rules(const char *path, struct mmt_prule *out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *text = malloc(LOAD_MAX + 1), *line, *save = NULL;
	size_t got = 0, k;
	int n = 0, clear = 0, lineno = 0, rc = 0;

	if (!f || !text) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		free(text);
		return -MMT_EXIT_FAIL;
	}
	while (got <= LOAD_MAX && (k = fread(text + got, 1, LOAD_MAX + 1 - got, f)) > 0)
		got += k;
	if (ferror(f))
		rc = -(fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno)), MMT_EXIT_FAIL);
	else if (got > LOAD_MAX)
		rc = -usage_err("policy", "load: %.200s is larger than %d bytes: refused", path, LOAD_MAX);
	else if (memchr(text, '\0', got))
		rc = -usage_err("policy", "load: %.200s holds a NUL byte: not a policy file", path);
	if (f != stdin)
		fclose(f);
	text[got < LOAD_MAX ? got : LOAD_MAX] = '\0';
	for (line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *w = line;
		int m;

		lineno++;
		if (hash)
			*hash = '\0';
		w += strspn(w, " \t\r");
		if (!*w || strspn(w, " \t\r") == strlen(w))
			continue;
		if (!strncmp(w, "clear", 5) && strspn(w + 5, " \t\r") == strlen(w + 5)) {
			clear = 1;
			continue;
		}
		if (n == MMT_PRULES_MAX) {
			rc = -usage_err("policy", "load: %.200s: more than %d rules", path,
					MMT_PRULES_MAX);
			break;
		}
		m = rules_from_args("policy", 1, &w, out + n, MMT_PRULES_MAX - n);
		if (m != 1) {
			fprintf(stderr, PROG ": policy load: %.200s line %d: want one rule, MATCH order=N\n",
				path, lineno);
			rc = m < 0 ? m : -MMT_EXIT_USAGE;
			break;
		}
		n++;
	}
	free(text);
	if (!rc && clear && n)
		rc = -usage_err("policy", "load: %.200s: 'clear' must be alone", path);
	return rc ? rc : n;
}


/* Counters as policy show prints them: the number, or "-" if not counted. */
static const char *ctr_text(char *buf, size_t len, int has, unsigned long long v)
{
	if (!has)
		return "-";
	snprintf(buf, len, "%llu", v);
	return buf;
}

static void show_ctrs(struct out *o, const struct mmt_prule *r)
{
	out_uint(o, "hits", NULL, r->hits, r->has_hits);
	out_uint(o, "pages", NULL, r->pages, r->has_pages);
}

/* useful= as the module prints it ("87.5%"), "-" before any judgement. */
static const char *pct_text(char *buf, size_t len, int pm, const char *unit)
{
	if (pm < 0)
		return "-";
	snprintf(buf, len, "%d.%d%s", pm / 10, pm % 10, unit);
	return buf;
}

/*
 * An auto rule's fields after its counters (nothing for other rules):
 * the order in force, its changes, the last judgement and what it saw.
 */
static void auto_text(char *buf, size_t len, const struct mmt_prule *r)
{
	char v[MMT_PA_NR][32], u[16];
	const char *t[MMT_PA_NR];
	int i;

	buf[0] = '\0';
	if (!mmt_prule_is_auto(r))
		return;
	for (i = 0; i < MMT_PA_NR; i++)
		t[i] = ctr_text(v[i], sizeof(v[i]), r->au_seen & 1 << i, r->au[i]);
	/* untrusted= where the module shows it (modules before it did not) */
	snprintf(buf, len, " auto_order=%s raised=%s lowered=%s useful=%s learned=%s%s%s",
		 t[MMT_PA_ORDER], t[MMT_PA_RAISED], t[MMT_PA_LOWERED],
		 pct_text(u, sizeof(u), r->useful, "%"), t[MMT_PA_LEARNED],
		 r->au_seen & 1 << MMT_PA_UNTRUSTED ? " untrusted=" : "",
		 r->au_seen & 1 << MMT_PA_UNTRUSTED ? t[MMT_PA_UNTRUSTED] : "");
}

/*
 * JSON: "auto": {order, raised, lowered, learned, useful_pct}; null: not
 * shown; "untrusted" where the module shows it.
 */
static void show_auto(struct out *o, const struct mmt_prule *r)
{
	static const char *const key[MMT_PA_NR] = {
		[MMT_PA_ORDER] = "order", [MMT_PA_RAISED] = "raised",
		[MMT_PA_LOWERED] = "lowered", [MMT_PA_LEARNED] = "learned",
		[MMT_PA_UNTRUSTED] = "untrusted",
	};
	char pct[16];
	int i;

	if (!out_json(o) || !mmt_prule_is_auto(r))
		return;
	out_obj(o, "auto");
	for (i = 0; i < MMT_PA_NR; i++)
		if (i != MMT_PA_UNTRUSTED || r->au_seen & 1 << i)
			out_uint(o, key[i], NULL, r->au[i], r->au_seen & 1 << i);
	jsonw_name(&o->jw, "useful_pct");
	if (r->useful < 0)
		jsonw_null(&o->jw);
	else	/* the module's one decimal as it is: no binary rounding */
		jsonw_number_raw(&o->jw, pct_text(pct, sizeof(pct), r->useful, ""));
	out_obj_end(o);
}

/* "keys": each KEY=VALUE word of @match as a member (values hold no blank) */
static void show_keys(struct out *o, const char *match)
{
	char m[MMT_MATCH_LEN], *w, *save = NULL, *eq;

	snprintf(m, sizeof(m), "%s", match);
	out_obj(o, "keys");
	for (w = strtok_r(m, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		out_str(o, w, NULL, eq + 1, NULL);
	}
	out_obj_end(o);
}

/* A rule: "MATCH order=N # hits pages[ auto...][ exited]", or a JSON object. */
static void show_rule(struct out *o, const struct mmt_prule *r, int w)
{
	const char *eq = strchr(r->match, '=');
	char kind[16], val[MMT_MATCH_LEN], o_eq[32], h[32], p[32], au[200];
	long v;

	snprintf(kind, sizeof(kind), "%.*s", (int)(eq - r->match), r->match);
	/* match, value: the first key (the process key if there is one) */
	snprintf(val, sizeof(val), "%.*s", (int)strcspn(eq + 1, " "), eq + 1);
	snprintf(o_eq, sizeof(o_eq), "order=%s", r->order);
	auto_text(au, sizeof(au), r);
	out_text(o, "%-*s %-13s # %10s %12s%s%s\n", w, r->match, o_eq,
		 ctr_text(h, sizeof(h), r->has_hits, r->hits),
		 ctr_text(p, sizeof(p), r->has_pages, r->pages), au, r->exited ? " exited" : "");
	out_obj(o, NULL);
	out_str(o, "match", NULL, kind, NULL);
	out_str(o, "value", NULL, val, NULL);
	show_keys(o, r->match);
	if (!strcmp(r->order, "default") || mmt_parse_long(r->order, 0, 63, &v))
		out_str(o, "order", NULL, r->order, NULL);
	else
		out_int(o, "order", NULL, v, 1);
	show_ctrs(o, r);
	out_bool(o, "exited", r->exited);
	show_auto(o, r);
	out_obj_end(o);
}

/*
 * A BPF program attached decides after the rules (docs/bpf.md): a comment
 * line and "bpf" in JSON while one is, nothing otherwise.
 */
static void show_bpf_line(struct out *o)
{
	struct mmt_bpf_state b;

	if (mmt_bpf_read(&b) || !b.attached)
		return;
	out_text(o, "# a BPF program lowers these orders: %llu calls decided, %llu refused "
		 "(mmtunectl bpf status)\n", b.calls, b.refused);
	out_obj(o, "bpf");
	out_uint(o, "calls", NULL, b.calls, 1);
	out_uint(o, "refused", NULL, b.refused, 1);
	out_obj_end(o);
}

/*
 * Policy text: comments and "MATCH order=N # counters" lines, so that
 * what show prints, policy load takes back unchanged; or one JSON object.
 */
static void policy_show(const struct mmt_policy *ps, int json)
{
	char h[32], p[32];
	struct out o;
	int i, w = 4;

	for (i = 0; i < ps->nr; i++)
		if ((int)strlen(ps->r[i].match) > w)
			w = (int)strlen(ps->r[i].match);
	out_init(&o, json, 0);
	out_text(&o, "# rules %d of %d, first match wins; default order %d, kernel order %d\n",
		 ps->nr, ps->max_rules, ps->default_order, ps->kernel_order);
	out_text(&o, "# %-*s %-13s %12s %12s\n", w - 2 > 0 ? w - 2 : 0, "rule", "order", "hits", "pages");
	out_obj(&o, NULL);
	out_int(&o, "max_rules", NULL, ps->max_rules, 1);
	out_int(&o, "kernel_order", NULL, ps->kernel_order, 1);
	out_obj(&o, "default");
	out_int(&o, "order", NULL, ps->default_order, 1);
	show_ctrs(&o, &ps->def);
	out_obj_end(&o);
	out_arr(&o, "rules");
	for (i = 0; i < ps->nr; i++)
		show_rule(&o, &ps->r[i], w);
	out_arr_end(&o);
	show_bpf_line(&o);
	out_obj_end(&o);
	if (ps->nr)
		out_text(&o, "# %-*s order=%-7d %12s %12s\n", w - 2 > 0 ? w - 2 : 0, "(no rule)",
			 ps->default_order, ctr_text(h, sizeof(h), ps->def.has_hits, ps->def.hits),
			 ctr_text(p, sizeof(p), ps->def.has_pages, ps->def.pages));
}

/*
 * The parameter's "add RULE", one rule at a time: the module appends it
 * to the set as it is then, so an editor beside us loses nothing (a
 * whole set written back would drop what it added meanwhile).  0, -1 if
 * there is no such parameter (debugfs alone: a whole set instead), or an
 * exit code after saying why (the rules before @nr[i] are in).
 */
static int add_in_kernel(const struct mmt_prule *nr, int n)
{
	char t[MMT_MATCH_LEN + 32];
	int i, rc;

	if (!strcmp(mmt_interface(), "debugfs"))
		return -1;
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(t, sizeof(t), "add %s order=%s", nr[i].match,
				     nr[i].order) >= sizeof(t))
			return i ? usage_err("policy", "add: rule %d too long (the ones before it are in)", i + 1) : -1;
		rc = write_one(t, true);
		if (rc) {
			if (i)
				fprintf(stderr, PROG ": add: the %d rule(s) before it are in\n", i);
			return rc;
		}
	}
	return 0;
}

/* policy add: the new rules after those there (first match wins). */
static int policy_add(const struct mmt_policy *ps, struct mmt_prule *nr, int n)
{
	struct mmt_prule *all = nr + MMT_PRULES_MAX;
	int m = live_rules(ps, all), i, rc;

	if (m + n > ps->max_rules)
		return usage_err("policy", "add: %d rules would exceed the module's %d", m + n, ps->max_rules);
	rc = add_in_kernel(nr, n);
	if (rc != -1)
		return rc;
	for (i = 0; i < n; i++)
		all[m + i] = nr[i];
	return write_rules(all, m + n);
}

static int named(const char *match, int argc, char **argv)
{
	int j;

	for (j = 0; j < argc; j++)
		if (!strcmp(match, argv[j]))
			return 1;
	return 0;
}

/*
 * The parameter's "drop MATCH", one match at a time: the module drops the
 * rules of that match from the set as it is, so that an editor beside us
 * loses nothing.  0 or an exit code after saying why.
 */
static int drop_in_kernel(int argc, char **argv)
{
	char t[MMT_MATCH_LEN + 32];
	int j, rc;

	for (j = 0; j < argc; j++) {
		snprintf(t, sizeof(t), "drop %s", argv[j]);
		rc = write_one(t, true);
		if (rc)
			return rc;
	}
	return 0;
}

/* policy del MATCH...: every MATCH must name a rule there. */
static int policy_del(const struct mmt_policy *ps, struct mmt_prule *keep, int argc, char **argv)
{
	int m = 0, i, j, found;

	for (j = 0; j < argc; j++) {
		for (found = 0, i = 0; i < ps->nr; i++)
			found |= !strcmp(ps->r[i].match, argv[j]);
		if (!found)
			return usage_err("policy", "del: no rule %.60s (see 'mmtunectl policy')", argv[j]);
	}
	if (strcmp(mmt_interface(), "debugfs"))
		return drop_in_kernel(argc, argv);
	for (i = 0; i < ps->nr; i++)
		if (!named(ps->r[i].match, argc, argv) && !ps->r[i].exited)
			keep[m++] = ps->r[i];
	return write_rules(keep, m);
}

/* The subcommand's arguments checked; 0 or an exit code after saying why. */
static int policy_args(const char *sub, int nargs, int json)
{
	if (strcmp(sub, "show") && strcmp(sub, "set") && strcmp(sub, "add") &&
	    strcmp(sub, "del") && strcmp(sub, "clear") && strcmp(sub, "load"))
		return usage_err("policy", "unknown subcommand '%.40s'", sub);
	if (json && strcmp(sub, "show"))
		return usage_err("policy", "--json is for show");
	if ((!strcmp(sub, "show") || !strcmp(sub, "clear")) && nargs > 1)
		return usage_err("policy", "%s: too many arguments", sub);
	if ((!strcmp(sub, "add") || !strcmp(sub, "del")) && nargs < 2)
		return usage_err("policy", "%s: missing RULE", sub);
	if (!strcmp(sub, "load") && nargs != 2)
		return usage_err("policy", nargs < 2 ? "load: missing FILE" : "load: too many arguments");
	return 0;
}

/*
 * An auto rule learns only from the usefulness measurement: a note when
 * the user's rules hold one and the measurement is off (the write stands,
 * the rule keeps the default order until it is turned on).
 */
static void auto_note(const struct mmt_prule *r, int n)
{
	char v[32];
	int i;

	for (i = 0; i < n && !mmt_prule_is_auto(&r[i]); i++)
		;
	if (i == n)
		return;
	param_value("usefulness_enable", v, sizeof(v));
	if (!strcmp(v, "0"))
		fprintf(stderr, PROG ": note: order=auto learns only while usefulness_enable is 1 (it is 0): "
			"run '" PROG " set usefulness_enable 1'\n");
	damon_stat_note();
}

/* set, add, load: the user's rules nr[0..n) written (add: after those there). */
static int policy_write(const char *sub, struct mmt_policy *ps, struct mmt_prule *nr, int n)
{
	int rc;

	if (!strcmp(sub, "add"))
		rc = policy_add(ps, nr, n);
	else if (!strcmp(sub, "load") && n > ps->max_rules)	/* checked and read before */
		rc = usage_err("policy", "load: %d rules, the module takes at most %d", n, ps->max_rules);
	else
		rc = write_rules(nr, n);
	if (!rc)
		auto_note(nr, n);
	return rc;
}

/* What the subcommand does once the rules are read (ps) and checked (nr). */
static int policy_apply(const char *sub, struct mmt_policy *ps, struct mmt_prule *nr, int n,
			int json, int nargs, char **args)
{
	if (!strcmp(sub, "show")) {
		policy_show(ps, json);
		return 0;
	}
	if (!strcmp(sub, "clear"))
		return write_rules(NULL, 0);
	if (!strcmp(sub, "del"))
		return policy_del(ps, nr + MMT_PRULES_MAX, nargs - 1, args + 1);
	return policy_write(sub, ps, nr, n);
}

/*
 * policy add where the module takes "add" (the parameter): no read of the
 * set, which editors beside us may be changing; the module's count and
 * limit for the check.  0, an exit code after saying why, or -1 where the
 * whole set must be read and written instead.
 */
static int policy_add_verb(struct mmt_prule *nr, int n)
{
	int have = rules_count(), max = sysfs_int("info/policy_max_rules"), rc;

	if (!strcmp(mmt_interface(), "debugfs") || have < 0 || max < 0)
		return -1;
	if (have + n > max)
		return usage_err("policy", "add: %d rules would exceed the module's %d", have + n, max);
	rc = add_in_kernel(nr, n);
	if (!rc)
		auto_note(nr, n);
	return rc;
}

static int do_policy(int argc, char **argv)
{
	struct mmt_policy *ps = NULL;
	struct mmt_prule *nr = NULL;
	const char *sub;
	int json = 0, c, n = 0, rc, nargs;

	while ((c = getopt_long(argc, argv, policy_optstring, policy_opts, NULL)) != -1) {
		if (c != 'j')
			return bad_opt("policy", c, argv);
		json = 1;
	}
	nargs = argc - optind;
	sub = nargs ? argv[optind] : "show";
	rc = policy_args(sub, nargs, json);
	if (rc)
		return rc;
	ps = malloc(sizeof(*ps));
	nr = calloc(2 * MMT_PRULES_MAX, sizeof(*nr));
	if (!ps || !nr) {
		rc = lib_fail(MMT_EIO);
		goto out;
	}
	/* rules are checked before the module is asked anything */
	if (!strcmp(sub, "load"))
		n = load_rules(argv[optind + 1], nr);
	else if (!strcmp(sub, "set") || !strcmp(sub, "add"))
		n = rules_from_args("policy", nargs - 1, argv + optind + 1, nr, MMT_PRULES_MAX);
	if (n < 0) {
		rc = -n;
		goto out;
	}
	rc = !strcmp(sub, "add") ? policy_add_verb(nr, n) : -1;
	if (rc == -1) {
		rc = -read_policy(ps);
		if (!rc)
			rc = policy_apply(sub, ps, nr, n, json, nargs, argv + optind);
	}
out:
	free(ps);
	free(nr);
	return rc;
}
