/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtunectl's private header: the verb table, the helpers every verb
 * uses (util.c), the output emitter (out.c) and what the verb groups share
 * (policy rules: policy.c; a command run under a cgroup= rule: run.c; the
 * module's rss file: rssfile.c).
 *
 * Exit codes: 0 done; 1 could not (module not loaded, not root, debugfs
 * not mounted); 2 bad usage or a value out of range.  Every error is one
 * line on stderr that names what to do.
 */
#ifndef MMTUNECTL_H
#define MMTUNECTL_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>

#include "libmmtune.h"
#include "jsonw.h"
#include "cgrun.h"

#ifndef MMT_VERSION
#define MMT_VERSION "0.0.0"
#endif

#define PROG	"mmtunectl"
#define BUFSZ	65536
#define MAXKV	256

/*
 * A verb: do_NAME(argc, argv) with argv[0] the verb.  optstring and opts
 * are the verb's getopt_long options (with "help"/'h'): main.c answers
 * -h/--help from them before the verb runs, the verb never sees it.  A
 * verb's file holds its entry, cmd_NAME, beside its options: a new verb
 * is its file and a line in main.c's cmds[].
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *optstring;
	const struct option *opts;
	const char *usage;
	const char *help;
};

/* The verbs' entries, each in its verb's file (get and set: knob.c) */
extern const struct cmd cmd_status, cmd_get, cmd_set, cmd_stats, cmd_pfn_valid, cmd_policy;
extern const struct cmd cmd_tune, cmd_save, cmd_run, cmd_report, cmd_rss, cmd_record, cmd_replay;
extern const struct cmd cmd_advise, cmd_bpf;

/* util.c: errors and reads every verb shares (main.c only dispatches) */
int usage_err(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int bad_opt(const char *verb, int c, char **argv);
int lib_fail(int err);
void note_kernel_knob(void);
/* stats_enable: 1, 0, or -1 if it cannot be read. */
int stats_enabled(void);
/* The counters (mmt_stats_read): pairs, or -(exit code) after saying why. */
int read_stats(struct mmt_kv *kv, int max);
/* A parameter's value, trailing blanks dropped, into v ("" if unknown). */
void param_value(const char *knob, char *v, size_t n);
/* Whether a file= rule can name @path (advise's and its live advice's test). */
int rule_can_name(const char *path);
/* /proc, or env MMTUNE_PROC standing for it (tests). */
const char *proc_dir(void);
/* DAMON_STAT: 1 on, 0 off, -1 absent; the note rss and order=auto print when on. */
int damon_stat_on(void);
void damon_stat_note(void);
/* --orders LIST of @verb into o[] (at most max): the count, or -(exit code). */
int parse_orders(const char *verb, const char *s, int maxo, int *o, int max);

/*
 * out.c: one output path for text and JSON.  A verb renders once through
 * these calls; the text backend prints the lines (label, value) a verb
 * has always printed, the JSON backend the members (key, value).  A NULL
 * key: text only; a NULL label: JSON only.
 */
struct out {
	struct jsonw jw;
	int json;
	int width;		/* text: the label column */
};

void out_init(struct out *o, int json, int width);
static inline int out_json(const struct out *o)
{
	return o->json;
}
void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_obj(struct out *o, const char *key);
void out_obj_end(struct out *o);
void out_arr(struct out *o, const char *key);
void out_arr_end(struct out *o);
/* JSON: key: val (NULL: null); text: "label text" unless text is NULL. */
void out_str(struct out *o, const char *key, const char *label, const char *val, const char *text);
/* JSON: key: v (ok 0: null); text: "label v" when ok. */
void out_int(struct out *o, const char *key, const char *label, long long v, int ok);
void out_uint(struct out *o, const char *key, const char *label, unsigned long long v, int ok);
/* JSON only: v < 0 null, else true or false. */
void out_bool(struct out *o, const char *key, int v);
/* JSON only: a number stays a number, "unavailable" is null, else a string. */
void out_value(struct out *o, const char *key, const char *v);
/* JSON only: key: v as printf's fmt writes it (a number format). */
void out_float(struct out *o, const char *key, const char *fmt, double v);
/* JSON only: an array's string element. */
void out_item(struct out *o, const char *s);

/*
 * prom.c: stats --prometheus, the counters (kv, n), stats_enable (sen)
 * and what other files hold; buf: BUFSZ bytes to read into.  0 or an
 * exit code.
 */
int print_prometheus(const struct mmt_kv *kv, int n, int sen, char *buf, int rss);

/*
 * rectext.c: the debugfs text of a record (info, stats, latency, policy)
 * made from it as libmmtune reads it, to f, for get where debugfs cannot
 * serve; 0, or -1 (not a record, or unread; nothing printed).
 */
int record_text(const char *knob, FILE *f);

/* knob.c: value checks set and pfn_valid share */
#define PFV_COUNT_MAX	(1 << 24)
int bench_arg_ok(const char *v);
int word_ok(const char *v);

/* policy.c: the module's policy file (module/policy.c; lib: its parser) and rules */
#define LOAD_MAX	65536	/* policy load: larger files are refused, not cut */

int read_policy(struct mmt_policy *ps);
int policy_absent(void);
int check_match(const char *verb, const char *m, char *out, size_t len);
int write_rules(const struct mmt_prule *r, int n);
/*
 * What a rule matches on: MATCH_PID (*pid), MATCH_COMM or MATCH_CGROUP
 * (*val: after '='); MATCH_MAP for a rule with mapping keys (file=, vma=,
 * madv=), which matches per mapping, not per process.
 */
enum { MATCH_OTHER, MATCH_PID, MATCH_COMM, MATCH_CGROUP, MATCH_MAP };
int rule_match(const struct mmt_prule *r, long *pid, const char **val);

/* rssfile.c: <debugfs>/mmtune/rss (module/rss.c) found, read and parsed */
struct rss_head {
	int available, useful;		/* useful: usefulness_enable */
	unsigned long long page_size;
};

/* One line of the file: a process's, a file's of it, or a busy one. */
struct rline {
	long pid;
	int busy, file;
	unsigned long long mapped, untouched;	/* pages */
	char *name;		/* comm or path, unescaped, in the read buffer */
	int order;		/* a file's under an order=auto:file rule; -1: none */
};

#define PID_MAX		4194304		/* the kernel's PID_MAX_LIMIT */

#define ORDER_MIXED	(-2)	/* rfile.order of lines summed that differ */

/* A file's pages: of one process, or summed over processes. */
struct rfile {
	const char *path;	/* into the read buffer, unescaped */
	unsigned long long mapped, untouched;
	int order;		/* rline's; ORDER_MIXED: the lines summed differ */
};

/* rss.c: @verb's --cgroup argument into @out (as policy takes it): 0 or an exit code */
int cgroup_path_arg(const char *verb, const char *v, char *out, size_t n);
/* rss.c: the files of a pid (else of a cgroup) for advise's live advice */
int rss_files_of(long pid, const char *cgroup, struct rss_head *h, struct rfile **f, size_t *n,
		 char **buf);

/* The file's path into path: 0, or an exit code after saying why (no module, no debugfs). */
int rss_path(char *path, size_t n);
/* Its open failed with errno e: an exit code after saying why. */
int rss_open_fail(const char *path, int e);
/* path opened to read, and with sel to write a selection first: open()'s result. */
int rss_open_sel(const char *path, int sel);
/* The selection line (with its newline) written to fd: 0, or the errno the module gave. */
int rss_write_sel(int fd, const char *line);
/* All of fd from offset 0 into *buf (NUL-terminated; the caller frees it): 0 or an exit code. */
int rss_read_all(int fd, const char *path, char **buf);
/* buf's header line into h (strtok_r's state in *save): 0, or an exit code after saying why. */
int rss_header(char *buf, struct rss_head *h, char **save);
/* The next line of a known form into r: 1, or 0 at the end (others skipped). */
int rss_next(char **save, struct rline *r);

/*
 * rssrule.c: stats --prometheus --rss, every process of the rss file
 * summed under the policy rule it matches first (bytes).
 */
struct rss_sum {
	unsigned long long mapped, untouched, procs;
};

struct rss_by_rule {
	int shown;		/* 0: left out (a note said why) */
	unsigned long long busy;
	struct rss_sum def, r[MMT_PRULES_MAX];	/* def: no rule matched */
};

/* 0 (by->shown 0 if left out), or an exit code after saying why. */
int rss_by_rule(const struct mmt_policy *ps, struct rss_by_rule *by);

/* replay.c: a record's replayed orders as report's section "replay"; 0 or an exit code */
int replay_section(struct out *o, const char *file);
/* replay.c: whether @file is a whole record (0), or an exit code after saying why */
int replay_check(const char *file);

/* run.c: COMMAND in a cgroup of its own under a cgroup= rule (tune, run) */
struct tune_ctx {
	char **cmd;
	int errfd;		/* the command's stderr, kept for a failure */
	int devnull;
	int verbose;
	struct mmt_cg cg;	/* the command and all it starts run in it */
	/*
	 * record's: run_ruled calls @started, if set, once COMMAND is forked
	 * and before it runs (0 or an exit code; *traced: COMMAND is), and a
	 * traced COMMAND calls @child_setup just before its exec
	 */
	int (*started)(pid_t pid, void *arg, bool *traced);
	void *started_arg;
	void (*child_setup)(void);
};

extern volatile sig_atomic_t tune_sig;
void tune_signals(struct sigaction *old);	/* old[3]: INT, TERM, HUP */
void tune_signals_restore(const struct sigaction *old);
double mono_now(void);
int wait_child(pid_t pid, int *status, struct rusage *ru);
int tune_rule(struct tune_ctx *t, int order);
/* COMMAND under the rule at @order, waited for: 0 or an exit code. */
int run_ruled(struct tune_ctx *t, int order, int *status, struct rusage *ru, double *wall);
void __attribute__((noreturn)) cmd_child(struct tune_ctx *t, const int *go, const int *ex,
					 bool quiet);
int tune_cleanup(struct tune_ctx *t);
/* The counters of the rule of @match, read before the rule goes: 0 if found. */
int rule_ctrs(const char *match, struct mmt_prule *out);
void print_cmd(FILE *f, char **cmd);

#endif
