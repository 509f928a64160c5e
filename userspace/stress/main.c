// SPDX-License-Identifier: GPL-2.0
/*
 * mmstress WORKLOAD [options]: the options, the knob checked before anything
 * changes, and the end (a signal ends mmstress as it would have); the
 * sweep itself (orders x thread counts x block sizes x repeats) is sweep.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

static const struct mms_workload *workloads[] = {
	&mms_wl_seq, &mms_wl_rand, &mms_wl_sparse, &mms_wl_build,
	&mms_wl_ebizzy, &mms_wl_dio, &mms_wl_migrate, &mms_wl_pfnscan,
};
#define NWL (int)(sizeof(workloads) / sizeof(workloads[0]))

static void usage(FILE *f)
{
	fprintf(f,
"usage: mmstress WORKLOAD [options]\n"
"\n"
"Workloads:\n");
	for (int i = 0; i < NWL; i++)
		fprintf(f, "  %-9s %s\n", workloads[i]->name, workloads[i]->summary);
	fprintf(f,
"  %-9s %s\n"
"\n"
"Options:\n"
"  -t, --threads LIST   thread (build: process) counts, e.g. 1,8,32 (default 1)\n"
"  -s, --size SIZE      bytes per thread, e.g. 64M (default per workload)\n"
"  -f, --file PATH      test file, directory or device (default: a tmpfs file)\n"
"  -o, --orders LIST    sweep fault_around_order, e.g. 0,1,3,4 or 0-9 (restored after)\n"
"  -r, --repeat N       runs per point (default 1): mean and relative std dev\n"
"      --warmup N       unmeasured runs before the first point (default 1)\n"
"  -n, --count N        build, ebizzy: work per worker; dio, migrate, pfnscan: passes\n"
"  -b, --block LIST     dio block sizes (default 64K,1M)\n"
"      --touch word|page  seq/rand: every 8-byte word (default) or a byte a page\n"
"      --stride K       seq: a byte of every K-th page only (default 1)\n"
"      --cmd CMD        build: what each process runs (default 'exec true')\n"
"  -F, --format F       table (default), csv or json, with what the run ran on\n"
"      --plot FILE      also draw the sweep into FILE (SVG, with gnuplot)\n"
"  -q, --quiet          no progress on stderr\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"\n"
"Exit: 0 done, 1 could not, 2 bad usage, 77 skipped, 130 Ctrl-C, 141 stdout\n"
"closed; everything is restored first.  See mmstress(1).\n",
		"eofprobe", "correctness probe: pages past EOF raise SIGBUS at each order");
}

static int ilog2l(long v)
{
	int r = 0;

	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r;
}

/* page-table geometry: from the module when it is loaded, else x86/arm64-like */
static void geometry(struct mms_ctx *c)
{
	struct mmt_kv kv[64];
	const char *v;
	int n;

	c->page = sysconf(_SC_PAGESIZE);
	c->ptrs_per_pte = c->page / 8;
	if (mmt_module_loaded()) {
		n = mmt_info(kv, 64);
		if (n > 0 && (v = mmt_kv_get(kv, n, "ptrs_per_pte")) && atol(v) > 1)
			c->ptrs_per_pte = atol(v);
	}
	c->max_order = ilog2l(c->ptrs_per_pte);
}

static void usage_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "mmstress: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see mmstress --help)\n");
	exit(MMT_EXIT_USAGE);
}

/* --plot FILE: its directory must take a new file (the SVG is renamed there) */
static void plot_target_ok(const char *file)
{
	char dir[4096];
	struct stat st;

	mms_path_dir(file, dir, sizeof(dir));
	if (stat(file, &st) == 0 && !S_ISREG(st.st_mode))
		usage_die("--plot '%s': not a regular file", file);
	if (access(dir, W_OK) != 0)
		usage_die("--plot '%s': cannot write a file in that directory", file);
}

static void opts_init(struct mms_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads[0] = 1;
	o->nthreads = 1;
	o->repeat = 1;
	o->warmup = 1;
	o->blocks[0] = 64 << 10;
	o->blocks[1] = 1 << 20;
	o->nblocks = 2;
	o->format = FMT_TABLE;
}

static void parse_threads(struct mms_opts *o, const char *arg)
{
	long tl[MMS_MAX_LIST];
	int n = mms_parse_list(arg, 1, MMS_MAX_THREADS, tl, MMS_MAX_LIST);

	if (n < 0)
		usage_die("--threads '%s': want a list of counts 1..4096, e.g. 1,8,32", arg);
	o->nthreads = n;
	for (int i = 0; i < n; i++)
		o->threads[i] = tl[i];
}

/* --orders: libmmtune's grammar, swept in the order given (repeats too) */
static void parse_orders(struct mms_opts *o, const char *arg, int max_order)
{
	int n = mmt_parse_orders(arg, max_order, 0, o->orders, MMS_MAX_LIST);

	if (n < 0)
		usage_die("%s", mmt_errmsg());
	o->norders = n;
}

static void parse_blocks(struct mms_opts *o, const char *arg)
{
	char buf[512], *tok, *save = NULL;
	long long b;

	snprintf(buf, sizeof(buf), "%s", arg);
	o->nblocks = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nblocks >= MMS_MAX_LIST || mms_parse_size(tok, &b) != 0 ||
		    b < 512 || b > (1LL << 30) || (b & (b - 1)))
			usage_die("--block '%s': want powers of two from 512 to 1G, e.g. 64K,1M", arg);
		o->blocks[o->nblocks++] = b;
	}
	if (!o->nblocks)
		usage_die("--block '%s': empty list", arg);
}

/* arg as one of names[] (NULL-terminated): its index */
static int parse_word(const char *opt, const char *arg, const char *const *names, const char *want)
{
	char m[128];

	for (int i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	snprintf(m, sizeof(m), "%s '%%s': want %s", opt, want);
	usage_die(m, arg);
	return -1;
}

static long parse_count(const char *opt, const char *arg, long min, long max)
{
	char m[128];
	long v;

	if (mmt_parse_long(arg, min, max, &v) != 0) {
		snprintf(m, sizeof(m), "%s '%%s': want a count >= %ld", opt, min);
		usage_die(m, arg);
	}
	return v;
}

static const char *nonempty(const char *opt, const char *arg)
{
	char m[64];

	if (!*arg) {
		snprintf(m, sizeof(m), "%s '%%s': empty path", opt);
		usage_die(m, arg);
	}
	return arg;
}

/* One option of getopt_long's; exits on --help, --version and errors. */
static void parse_opt(struct mms_ctx *c, struct mms_opts *o, int opt, char **argv)
{
	static const char *const formats[] = { "table", "csv", "json", NULL };
	static const char *const touches[] = { "word", "page", NULL };

	switch (opt) {
	case 't':
		parse_threads(o, optarg);
		break;
	case 's':
		if (mms_parse_size(optarg, &o->size) != 0)
			usage_die("--size '%s': want a positive size like 4096, 64M or 1G", optarg);
		if (o->size > (1LL << 50))
			usage_die("--size '%s': too large", optarg);
		o->size_given = 1;
		break;
	case 'f':
		o->file = nonempty("--file", optarg);
		break;
	case 'o':
		parse_orders(o, optarg, c->max_order);
		break;
	case 'r':
		o->repeat = parse_count("--repeat", optarg, 1, 1000000);
		break;
	case 'n':
		o->count = parse_count("--count", optarg, 1, LONG_MAX / 2);
		break;
	case 'b':
		parse_blocks(o, optarg);
		break;
	case 'F':
		o->format = parse_word("--format", optarg, formats, "table, csv or json");
		break;
	case 'T':
		o->touch = parse_word("--touch", optarg, touches, "word or page") + TOUCH_WORD;
		break;
	case 'K':
		o->stride = parse_count("--stride", optarg, 1, 1L << 30);
		break;
	case 'C':
		o->cmd = optarg;
		break;
	case 'W':
		o->warmup = parse_count("--warmup", optarg, 0, 1000);
		break;
	case 'P':
		o->plot = nonempty("--plot", optarg);
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("mmstress %s\n", MMT_VERSION);
		exit(0);
	case ':':
		usage_die("option '%s' needs a value", argv[optind - 1]);
		break;
	default:
		usage_die("unknown option '%s'", argv[optind - 1]);
	}
}

static void parse_args(struct mms_ctx *c, struct mms_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "file", required_argument, NULL, 'f' },
		{ "orders", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "block", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'F' },
		{ "touch", required_argument, NULL, 'T' },
		{ "stride", required_argument, NULL, 'K' },
		{ "cmd", required_argument, NULL, 'C' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "plot", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":t:s:f:o:r:n:b:F:qhV", lo, NULL)) != -1)
		parse_opt(c, o, opt, argv);
	if (optind >= argc)
		usage_die("no workload given%s", "");
	if (optind + 1 < argc)
		usage_die("unexpected argument '%s'", argv[optind + 1]);
	o->workload = argv[optind];
	if (o->stride > 1 && strcmp(o->workload, "seq"))
		usage_die("--stride: for seq only, not '%s'", o->workload);
	if (strcmp(o->workload, "eofprobe")) {
		for (int i = 0; i < NWL; i++)
			if (!strcmp(o->workload, workloads[i]->name))
				c->w = workloads[i];
		if (!c->w)
			usage_die("unknown workload '%s' (seq rand sparse build ebizzy dio migrate pfnscan eofprobe)",
				  o->workload);
	}
	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > o->max_threads)
			o->max_threads = o->threads[i];
}

/*
 * The knob, before anything is created: --orders needs it writable (it is
 * restored at exit); without --orders the order in force is the sweep's
 * highest, and --plot needs it for its x axis.
 */
static void knob_setup(struct mms_ctx *c)
{
	const struct mms_opts *o = c->o;
	int orig = -1, cur = -1, err;

	if (o->norders) {
		err = mmt_order_get(&orig, NULL);
		if (!err)
			err = mmt_order_set(orig, NULL);
		if (err)
			mms_die(mmt_exit_code(err), "--orders needs the fault-around knob: %s", mmt_errmsg());
		mms_cleanup_set_order(orig);
		c->sweep_max_order = 0;
		for (int i = 0; i < o->norders; i++)
			if (o->orders[i] > c->sweep_max_order)
				c->sweep_max_order = o->orders[i];
		return;
	}
	if (mmt_order_get(&cur, NULL) != 0)
		cur = -1;
	c->sweep_max_order = cur >= 0 ? cur : c->max_order;
	if (o->plot && cur < 0)
		mms_die(MMT_EXIT_FAIL, "--plot: the fault-around order cannot be read (%s), so there is no x axis",
			mmt_errmsg());
}

/* Everything restored; a signal ends mmstress as that signal would have. */
static int finish(const struct mms_opts *o, int ret)
{
	mms_out_flush();
	if (mms_cleanup_run())
		return MMT_EXIT_FAIL;	/* it said what it could not restore */
	if (mms_stop) {
		/* a reader that left (| head) is no news; a signal is */
		if (mms_stop != SIGPIPE)
			mms_err("interrupted%s", o->norders ? "; fault_around_order restored" : "");
		signal(mms_stop, SIG_DFL);
		raise(mms_stop);
		return 128 + mms_stop;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct mms_opts o;
	struct mms_ctx c;
	struct mms_vmstat warm;
	char **args;

	/* the command as given, for the results' metadata (getopt permutes argv) */
	args = calloc(argc + 1, sizeof(*args));
	if (!args)
		mms_die(MMT_EXIT_FAIL, "out of memory");
	memcpy(args, argv, argc * sizeof(*args));
	opts_init(&o);
	memset(&c, 0, sizeof(c));
	c.o = &o;
	geometry(&c);
	parse_args(&c, &o, argc, argv);
	if (o.plot) {
		if (!c.w)
			usage_die("--plot: eofprobe has no figures to draw%s", "");
		plot_target_ok(o.plot);
		/* before anything changes: no gnuplot, no sweep */
		if (mms_plot_check())
			return MMT_EXIT_FAIL;
	}
	mms_meta_init(&c, argc, args);
	mms_out_init(&c);

	mms_progress = isatty(2) && !o.quiet;
	mms_cleanup_init();
	mms_vmstat_read(&warm);
	knob_setup(&c);
	if (!c.w)
		return finish(&o, mms_eofprobe(&c));
	return finish(&o, mms_sweep(&c));
}
