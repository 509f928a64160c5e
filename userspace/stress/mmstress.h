/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmstress: page-fault workloads, one file per workload.  main.c parses
 * the options, sweep.c runs the sweep (orders x threads x variants x
 * repeats), output.c prints it.  What several workloads share, a file per
 * job: msg.c (messages), parse.c (option values), cleanup.c (signals and
 * undoing every change on the way out), die.c (an error's way out: message,
 * skip record, cleanup), measure.c (the measured phase), knobs.c (/proc and
 * /sys values), testfile.c (the test file).
 */
#ifndef MMSTRESS_H
#define MMSTRESS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef MMT_VERSION
#define MMT_VERSION "0.0.0"
#endif

#define MMS_EXIT_SKIP	77	/* the workload cannot run here (one NUMA node, no O_DIRECT) */
#define MMS_MAX_LIST	64
#define MMS_MAX_THREADS	4096

enum mms_format { FMT_TABLE, FMT_CSV, FMT_JSON };
enum mms_touch { TOUCH_DEFAULT, TOUCH_WORD, TOUCH_PAGE };

struct mms_opts {
	const char *workload;
	int threads[MMS_MAX_LIST];
	int nthreads;
	int max_threads;
	int orders[MMS_MAX_LIST];
	int norders;			/* 0: no sweep, the knob is left alone */
	long long size;			/* bytes per thread (0: workload default) */
	int size_given;
	const char *file;		/* --file, or NULL */
	int repeat;
	int warmup;			/* unmeasured runs before the first point */
	long count;			/* iterations / passes (0: workload default) */
	long blocks[MMS_MAX_LIST];	/* dio block sizes */
	int nblocks;
	enum mms_format format;
	enum mms_touch touch;
	long stride;			/* seq: every stride-th page (0: 1) */
	const char *cmd;		/* build: command run by /bin/sh -c */
	const char *plot;		/* --plot: the SVG file, or NULL */
	int quiet;
};

/* One measured run. */
struct mms_result {
	const char *workload;
	int order;			/* set by --orders; -1: none (the knob left alone) */
	int eff_order;			/* in force for mmstress during the run; -1: unknown */
	int threads;
	int run;			/* index of the run at its point, 1..--repeat */
	long block;			/* dio block size, else 0 */
	long long size;			/* bytes per thread */
	long minflt, majflt;		/* rusage deltas, measured phase only */
	double seconds;
	double throughput;
	const char *unit;
	long long ops;			/* what throughput counts (bytes, records, ...) */
	/* /proc/vmstat deltas over the same window (system wide) */
	long long vm_pgfault, vm_pgmajfault, vm_pgmigrate_success, vm_pgmigrate_fail;
};

struct mms_ctx;

struct mms_workload {
	const char *name;
	const char *summary;
	/* once per invocation, before any knob is changed */
	int (*setup)(struct mms_ctx *c);
	/* one measured run; fills r (except workload/order/threads/repeat) */
	int (*run)(struct mms_ctx *c, int threads, long block, struct mms_result *r);
	void (*teardown)(struct mms_ctx *c);
	int uses_blocks;
	const char *size_label;	/* what mms_result.size is, for the table title */
};

/* What the results were measured on (meta.c); "" or -1: unknown / none. */
enum { MMS_VIA_NONE, MMS_VIA_MODULE, MMS_VIA_KERNEL };
struct mms_meta {
	int argc;
	char **argv;
	char kernel[65], arch[65], date[32];
	char thp[32], thp_shmem[32];
	char file[4096], fs[64], fs_opts[512];	/* the test file, its file system */
	int order_found;			/* the order at start */
	int via;				/* MMS_VIA_*: how the order is reached */
	char module_version[64];
	char rule[4200];			/* the policy rule matching mmstress at start */
};

struct mms_ctx {
	const struct mms_opts *o;
	const struct mms_workload *w;
	long page;			/* page size */
	long ptrs_per_pte;
	int max_order;			/* log2(ptrs_per_pte) */
	int sweep_max_order;		/* highest order this invocation uses */
	void *priv;			/* workload state */
	struct mms_meta meta;
};

/* ---- msg.c ---- */
extern int mms_progress;		/* stderr is a tty and not --quiet */

void mms_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mms_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- die.c ---- */
/* one-line error, a skip's record (code MMS_EXIT_SKIP), cleanup, exit(code) */
void mms_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* ---- parse.c ---- */
int mms_parse_size(const char *s, long long *out);
int mms_parse_list(const char *s, long min, long max, long *out, int max_n);
void mms_fmt_size(long long bytes, char *buf, size_t len);
/* the directory a new file at @path would be made in: "." for a bare name */
void mms_path_dir(const char *path, char *dir, size_t len);
uint64_t mms_rand(uint64_t *state);

/* ---- cleanup.c: everything mmstress changed or created ---- */
extern volatile sig_atomic_t mms_stop;	/* SIGINT/SIGTERM/SIGHUP, or SIGPIPE on EPIPE */
/* at exit, and the signals that set mms_stop (SIGPIPE: ignored, EPIPE) */
void mms_cleanup_init(void);
int mms_cleanup_run(void);			/* 0, or -1: something not restored */
void mms_cleanup_add_file(const char *path);
void mms_cleanup_forget_file(const char *path);
void mms_cleanup_set_order(int orig);		/* restore this order at exit */
int mms_cleanup_restore_order(void);		/* now; 0 ok */
void mms_cleanup_set_hugepages(const char *path, long orig);
void mms_cleanup_add_fd(int fd);		/* closed at exit (loop device) */

/* ---- measure.c ---- */
double mms_now(void);
/* /proc/vmstat counters mmstress records */
struct mms_vmstat {
	long long pgfault, pgmajfault, pgmigrate_success, pgmigrate_fail;
};
int mms_vmstat_read(struct mms_vmstat *v);

/*
 * The measured phase of a threaded workload.  Threads are created, run
 * their prologue, and wait at a start gate; then the counters are
 * sampled, the gate opens, each thread runs fn(arg_i), waits at an end
 * gate, and the counters are sampled again when the last one is there.
 * prologue may be NULL.  Returns 0, or -1 if threads could not start.
 */
struct mms_meas {
	long minflt, majflt;
	double seconds;
	struct mms_vmstat vm;
};
int mms_run_threads(int n, void *(*fn)(void *), void *args, size_t argsize,
		    int children, struct mms_meas *m);
/* Sample now (who: RUSAGE_SELF or RUSAGE_CHILDREN) / compute deltas. */
struct mms_snap {
	long minflt, majflt;
	double t;
	struct mms_vmstat vm;
	int children;
};
void mms_snap_begin(struct mms_snap *s, int children);
void mms_snap_end(const struct mms_snap *s, struct mms_meas *m);
/*
 * Record a measured phase in r: faults, seconds and vmstat fault deltas of
 * m, ops, and throughput = ops / seconds / scale (scale 1e6 for MB/s).
 */
void mms_result_set(struct mms_result *r, const struct mms_meas *m,
		    long long ops, double scale, const char *unit);

/*
 * ---- testfile.c ----
 * The test file.  mms_file_prepare() creates a temporary file in the
 * default tmpfs directory, in a directory given by --file, or at the
 * path --file names (an existing regular file is used as it is and
 * left in place).  fill(fd, len, arg) writes the content; NULL writes
 * every byte.  need: the bytes it will really take (sparse files), 0: size.  The file is in the page cache on return.
 */
struct mms_file {
	char path[4096];
	int fd;
	int created;
	int is_tmpfs;
	int is_blockdev;
	long long size;
};
int mms_default_dir(char *buf, size_t len);
int mms_file_prepare(struct mms_ctx *c, struct mms_file *f, long long size, long long need,
		     int (*fill)(int fd, long long size, void *arg), void *arg,
		     int allow_blockdev);
void mms_file_close(struct mms_file *f);
int mms_fill_all(int fd, long long size, void *arg);
int mms_cache_file(int fd, long long size);

/* A region aligned to 'align' holding a mapping of fd (or NULL). */
void *mms_map_aligned(size_t len, size_t align, int prot, int flags, int fd, off_t off);

/* ---- knobs.c ---- */
/* NUMA nodes with memory: fills up to max ids, returns the count. */
int mms_mem_nodes(int *ids, int max);

/* Read an integer from a file, write one. */
int mms_read_long(const char *path, long *v);
int mms_write_long(const char *path, long v);
long mms_meminfo(const char *key);	/* kB, or -1 */

/* ---- workloads ---- */
extern const struct mms_workload mms_wl_seq, mms_wl_rand, mms_wl_sparse,
	mms_wl_build, mms_wl_ebizzy, mms_wl_dio, mms_wl_migrate, mms_wl_pfnscan;
/* the EOF/SIGBUS correctness probe (filemap.c), run by main.c */
int mms_eofprobe(struct mms_ctx *c);

/* ---- sweep.c ---- */
/* setup, the runs, teardown, the records; the exit code (a failing run exits) */
int mms_sweep(struct mms_ctx *c);

/* ---- meta.c ---- */
void mms_meta_init(struct mms_ctx *c, int argc, char **argv);
/* the test file (mms_file_prepare calls it) */
void mms_meta_file(struct mms_ctx *c, const char *path, int fd, int blockdev);
/* The order in force for mmstress: the first policy rule matching it (rule[]
 * gets its text), else the knob; -1 if unknown. */
int mms_effective_order(char *rule, size_t len);

/* ---- output.c ---- */
int mms_out_flush(void);	/* 0, or -1 (EPIPE: mms_stop = SIGPIPE) */
/* "order" as CSV and the table write it: "no order" is an empty field, "-" */
const char *mms_order_str(int order, enum mms_format f, char *buf, size_t len);
/* The sweep's records: begin (CSV: '#' lines and the header), one per run
 * (CSV: its line), end (JSON: the document; table), or skip (exit 77: the
 * record of what ran, with the reason). */
void mms_out_init(struct mms_ctx *c);		/* once, before setup */
void mms_out_begin(const char *csv_cols);	/* NULL: the workloads' columns */
int mms_out_add(const struct mms_result *r);	/* 0, or -1: out of memory */
void mms_out_end(void);
const struct mms_result *mms_out_records(int *n);
void mms_out_skip(const char *reason);
/*
 * JSON's {"meta": {...}, "runs": [ and ]} around records the caller writes
 * through the writer open returns (lib/jsonw.h), a record a line
 * (jsonw_flow); mms_out_json_order() writes an order member, null for none.
 */
struct jsonw;
struct jsonw *mms_out_json_open(const char *status, const char *reason);
void mms_out_json_close(void);
void mms_out_json_order(struct jsonw *w, const char *key, int order);
void mms_out_table(struct mms_ctx *c, const char *title, const struct mms_result *r, int n);

/* ---- plot.c ---- */
/* 0 if gnuplot can be run (else a message and MMT_EXIT_FAIL) */
int mms_plot_check(void);
/* The SVG of a sweep: order on x, faults and throughput, a line per thread
 * count (and block size).  Written to a temporary file and renamed: never
 * a partial FILE.  0, or MMT_EXIT_FAIL with a message. */
int mms_plot(const struct mms_ctx *c, const struct mms_result *r, int n, const char *file);

#endif
