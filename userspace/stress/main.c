// SPDX-License-Identifier: GPL-2.0
/*
 * mmstress WORKLOAD [options]: option parsing and the sweep
 * (orders x thread counts x block sizes x repeats).
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

#include "mmtune.h"
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
"  -s, --size SIZE      bytes PER THREAD (K, M, G, T suffixes: 64M, 1G); the\n"
"                       file holds threads x SIZE.  Defaults: seq/rand 64M,\n"
"                       sparse 256M, dio 64M, migrate 64M, ebizzy 16M (chunk\n"
"                       pool, shared); build and pfnscan ignore it\n"
"  -f, --file PATH      test file: a directory (a temporary file is made there\n"
"                       and removed), a new path (created and removed), or an\n"
"                       existing file (used as is, kept; dio: also a block\n"
"                       device).  Default: a temporary file on tmpfs\n"
"                       ($TMPDIR if tmpfs, else /dev/shm), removed at exit\n"
"  -o, --orders LIST    sweep fault_around_order, e.g. 0,1,3,4,5,7: set before\n"
"                       each run (through mmtune, or the kernel's own\n"
"                       fault_around_bytes without it), restored at the end,\n"
"                       on errors, signals and EPIPE.  Default: leave it alone\n"
"  -r, --repeat N       runs per point (default 1); the table shows mean and\n"
"                       relative standard deviation\n"
"      --warmup N       unmeasured runs before the first point (default 1:\n"
"                       first-touch costs stay out of the figures)\n"
"  -n, --count N        build: processes per worker (100); ebizzy: records per\n"
"                       thread (2000); dio, migrate, pfnscan: passes (1, 2, 1)\n"
"  -b, --block LIST     dio block sizes (default 64K,1M)\n"
"      --touch word|page  seq/rand: read every 8-byte word (default, as the\n"
"                       seed) or one byte per page\n"
"      --cmd CMD        build: command each process runs through /bin/sh -c\n"
"                       (default 'exec true')\n"
"  -F, --format F       table (default), csv or json; both carry what the run\n"
"                       was measured on (kernel, page size, THP, the file's\n"
"                       file system, ...): JSON as \"meta\", CSV as '#' lines\n"
"      --plot FILE      also draw the sweep into FILE (SVG, with gnuplot):\n"
"                       faults and throughput by order, a line per thread count\n"
"  -q, --quiet          no progress on stderr\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"\n"
"Faults are the measured phase's alone (rusage deltas, all threads; build:\n"
"the children's), setup excluded.  Exit: 0 done, 1 could not, 2 bad usage,\n"
"77 skipped (migrate with one NUMA node, dio without O_DIRECT), 130 Ctrl-C,\n"
"141 the reader of stdout went away (| head); everything is restored first.\n",
		"eofprobe", "correctness probe: pages past EOF raise SIGBUS at each order");
}

static char **args;	/* argv before getopt, for the results' metadata */

static void handler(int sig)
{
	mms_stop = sig;
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
	char buf[4096];
	struct mmt_kv kv[64];
	const char *v;
	int n;

	c->page = sysconf(_SC_PAGESIZE);
	c->ptrs_per_pte = c->page / 8;
	if (mmt_module_loaded() && mmt_knob_read("info", buf, sizeof(buf)) == 0) {
		n = mmt_parse_info(buf, strlen(buf), kv, 64);
		if (n > 0 && (v = mmt_kv_get(kv, n, "ptrs_per_pte")) && atol(v) > 1)
			c->ptrs_per_pte = atol(v);
	}
	c->max_order = ilog2l(c->ptrs_per_pte);
}

static void progress(const struct mms_ctx *c, int order, int threads, long block,
		     int rep, int done, int total)
{
	char b[32] = "", ob[16];

	if (!mms_progress)
		return;
	if (block)
		mms_fmt_size(block, b, sizeof(b));
	fprintf(stderr, "\r\033[Kmmstress: %s [%d/%d] order %s threads %d%s%s %s %d",
		c->w->name, done + 1, total, mms_order_str(order, FMT_TABLE, ob, sizeof(ob)),
		threads, block ? " block " : "", b, rep ? "run" : "warm-up", rep);
	fflush(stderr);
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
	char dir[4096], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	if (stat(file, &st) == 0 && !S_ISREG(st.st_mode))
		usage_die("--plot '%s': not a regular file", file);
	if (access(dir, W_OK) != 0)
		usage_die("--plot '%s': cannot write a file in that directory", file);
}

int main(int argc, char **argv)
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
		{ "cmd", required_argument, NULL, 'C' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "plot", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct mms_opts o;
	struct mms_ctx c;
	long tl[MMS_MAX_LIST], v;
	int opt, n, nres = 0, total, orig = -1, cur = -1, probe = 0, ret = 0;
	struct sigaction sa;

	/* the command as given, for the results' metadata (getopt permutes argv) */
	args = calloc(argc + 1, sizeof(*args));
	if (!args)
		mms_die(MMT_EXIT_FAIL, "out of memory");
	memcpy(args, argv, argc * sizeof(*args));
	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	o.threads[0] = 1;
	o.nthreads = 1;
	o.repeat = 1;
	o.warmup = 1;
	o.blocks[0] = 64 << 10;
	o.blocks[1] = 1 << 20;
	o.nblocks = 2;
	o.format = FMT_TABLE;
	c.o = &o;
	geometry(&c);

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":t:s:f:o:r:n:b:F:qhV", lo, NULL)) != -1) {
		switch (opt) {
		case 't':
			n = mms_parse_list(optarg, 1, MMS_MAX_THREADS, tl, MMS_MAX_LIST);
			if (n < 0)
				usage_die("--threads '%s': want a list of counts 1..4096, e.g. 1,8,32", optarg);
			o.nthreads = n;
			for (int i = 0; i < n; i++)
				o.threads[i] = tl[i];
			break;
		case 's':
			if (mms_parse_size(optarg, &o.size) != 0)
				usage_die("--size '%s': want a positive size like 4096, 64M or 1G", optarg);
			if (o.size > (1LL << 50))
				usage_die("--size '%s': too large", optarg);
			o.size_given = 1;
			break;
		case 'f':
			if (!*optarg)
				usage_die("--file '%s': empty path", optarg);
			o.file = optarg;
			break;
		case 'o':
			n = mms_parse_list(optarg, 0, c.max_order, o.orders, MMS_MAX_LIST);
			if (n < 0) {
				char m[128];

				snprintf(m, sizeof(m), "--orders '%%s': want a list of orders 0..%d, e.g. 0,1,3,4",
					 c.max_order);
				usage_die(m, optarg);
			}
			o.norders = n;
			break;
		case 'r':
			if (mmt_parse_long(optarg, 1, 1000000, &v) != 0)
				usage_die("--repeat '%s': want a count >= 1", optarg);
			o.repeat = v;
			break;
		case 'n':
			if (mmt_parse_long(optarg, 1, LONG_MAX / 2, &v) != 0)
				usage_die("--count '%s': want a count >= 1", optarg);
			o.count = v;
			break;
		case 'b': {
			char buf[512], *tok, *save = NULL;

			snprintf(buf, sizeof(buf), "%s", optarg);
			o.nblocks = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				long long b;

				if (o.nblocks >= MMS_MAX_LIST || mms_parse_size(tok, &b) != 0 ||
				    b < 512 || b > (1LL << 30) || (b & (b - 1)))
					usage_die("--block '%s': want powers of two from 512 to 1G, e.g. 64K,1M", optarg);
				o.blocks[o.nblocks++] = b;
			}
			if (!o.nblocks)
				usage_die("--block '%s': empty list", optarg);
			break;
		}
		case 'F':
			if (!strcmp(optarg, "table"))
				o.format = FMT_TABLE;
			else if (!strcmp(optarg, "csv"))
				o.format = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				o.format = FMT_JSON;
			else
				usage_die("--format '%s': want table, csv or json", optarg);
			break;
		case 'T':
			if (!strcmp(optarg, "word"))
				o.touch = TOUCH_WORD;
			else if (!strcmp(optarg, "page"))
				o.touch = TOUCH_PAGE;
			else
				usage_die("--touch '%s': want word or page", optarg);
			break;
		case 'C':
			o.cmd = optarg;
			break;
		case 'W':
			if (mmt_parse_long(optarg, 0, 1000, &v) != 0)
				usage_die("--warmup '%s': want a count >= 0", optarg);
			o.warmup = v;
			break;
		case 'P':
			if (!*optarg)
				usage_die("--plot '%s': empty path", optarg);
			o.plot = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mmstress %s\n", MMT_VERSION);
			return 0;
		case ':':
			usage_die("option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			usage_die("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_die("no workload given%s", "");
	if (optind + 1 < argc)
		usage_die("unexpected argument '%s'", argv[optind + 1]);
	o.workload = argv[optind];
	if (!strcmp(o.workload, "eofprobe")) {
		probe = 1;
	} else {
		for (int i = 0; i < NWL; i++)
			if (!strcmp(o.workload, workloads[i]->name))
				c.w = workloads[i];
		if (!c.w)
			usage_die("unknown workload '%s' (seq rand sparse build ebizzy dio migrate pfnscan eofprobe)",
				  o.workload);
	}
	for (int i = 0; i < o.nthreads; i++)
		if (o.threads[i] > o.max_threads)
			o.max_threads = o.threads[i];
	if (o.plot) {
		if (probe)
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
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed stdout is EPIPE, seen by mms_out_flush(): stop and clean up */
	signal(SIGPIPE, SIG_IGN);
	{
		struct mms_vmstat warm;

		mms_vmstat_read(&warm);
	}

	/* the knob: fail early, before anything is created */
	if (o.norders) {
		int err = mmt_order_get(&orig, NULL);

		if (!err)
			err = mmt_order_set(orig, NULL);
		if (err)
			mms_die(mmt_exit_code(err), "--orders needs the fault-around knob: %s", mmt_errmsg());
		mms_cleanup_set_order(orig);
		c.sweep_max_order = 0;
		for (int i = 0; i < o.norders; i++)
			if (o.orders[i] > c.sweep_max_order)
				c.sweep_max_order = o.orders[i];
	} else {
		if (mmt_order_get(&cur, NULL) != 0)
			cur = -1;
		c.sweep_max_order = cur >= 0 ? cur : c.max_order;
		if (o.plot && cur < 0)
			mms_die(MMT_EXIT_FAIL, "--plot: the fault-around order cannot be read (%s), so there is no x axis",
				mmt_errmsg());
	}

	if (probe) {
		ret = mms_eofprobe(&c);
		goto out;
	}

	ret = c.w->setup(&c);
	if (ret) {
		/* the workload said why (77: skipped) */
		if (ret == MMS_EXIT_SKIP)
			mms_out_skip("the workload cannot run here");
		mms_cleanup_run();
		return ret;
	}

	{
		int no = o.norders ? o.norders : 1;
		int nb = c.w->uses_blocks ? o.nblocks : 1;

		total = no * o.nthreads * nb * o.repeat;
		mms_out_begin(NULL);
		for (int oi = 0; oi < no && !mms_stop; oi++) {
			int order = -1, eff;
			char rule[sizeof(c.meta.rule)];

			if (o.norders) {
				int err;

				order = o.orders[oi];
				err = mmt_order_set(order, NULL);
				if (err)
					mms_die(mmt_exit_code(err), "cannot set fault_around_order %d: %s",
						order, mmt_errmsg());
			}
			for (int wu = 0; oi == 0 && wu < o.warmup && !mms_stop; wu++) {
				struct mms_result scratch;

				memset(&scratch, 0, sizeof(scratch));
				progress(&c, order, o.threads[0], c.w->uses_blocks ? o.blocks[0] : 0, 0, nres, total);
				ret = c.w->run(&c, o.threads[0], c.w->uses_blocks ? o.blocks[0] : 0, &scratch);
				if (ret) {
					mms_cleanup_run();
					exit(ret);
				}
			}
			for (int ti = 0; ti < o.nthreads && !mms_stop; ti++)
				for (int bi = 0; bi < nb && !mms_stop; bi++)
					for (int rep = 1; rep <= o.repeat && !mms_stop; rep++) {
						struct mms_result rr, *r = &rr;
						long block = c.w->uses_blocks ? o.blocks[bi] : 0;

						progress(&c, order, o.threads[ti], block, rep, nres, total);
						memset(r, 0, sizeof(*r));
						eff = mms_effective_order(rule, sizeof(rule));
						ret = c.w->run(&c, o.threads[ti], block, r);
						if (ret) {
							mms_cleanup_run();
							exit(ret);
						}
						if (mms_stop)
							break;
						r->workload = c.w->name;
						r->order = order;
						r->eff_order = eff;
						r->threads = o.threads[ti];
						r->run = rep;
						r->block = block;
						nres++;
						if (mms_out_add(r))
							mms_die(MMT_EXIT_FAIL, "out of memory");
					}
		}
		if (mms_progress)
			fputs("\r\033[K", stderr);
		if (o.norders && mms_cleanup_restore_order())
			ret = MMT_EXIT_FAIL;
		c.w->teardown(&c);
		mms_out_end();
		if (o.plot && !mms_stop && nres) {
			const struct mms_result *res = mms_out_records(&nres);

			if (mms_plot(&c, res, nres, o.plot))
				ret = MMT_EXIT_FAIL;
		}
	}
out:
	mms_out_flush();
	if (mms_cleanup_run())
		return MMT_EXIT_FAIL;	/* it said what it could not restore */
	if (mms_stop) {
		/* a reader that left (| head) is no news; a signal is */
		if (mms_stop != SIGPIPE)
			mms_err("interrupted%s", o.norders ? "; fault_around_order restored" : "");
		signal(mms_stop, SIG_DFL);
		raise(mms_stop);
		return 128 + mms_stop;
	}
	return ret;
}
