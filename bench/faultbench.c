// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench: read-fault throughput, the workload of `make bench`.
 *
 *   faultbench [--passes N] [--markers] [--stride K] [--threads T [--procs]] FILE [SECONDS]
 *
 * Maps FILE (best a cached tmpfs file) read-only, aligned to one page
 * table's span so fault-around windows are whole, reads one byte per
 * page, unmaps, and repeats until SECONDS have passed (whole passes only),
 * or N passes with --passes (a fixed amount of work, for instruction
 * counts).  Prints one line:
 *   faults N pages N seconds S faults_per_s R pages_per_s R
 * where faults are the process's minor+major faults during the passes
 * (getrusage) and pages the pages read.
 *
 * --markers: execute the no-op markers that bench/plugin/insncount.c
 * (a QEMU TCG plugin) recognises: ON before and OFF after each pass's
 * read loop (the mmap calls around it are not counted), EMIT after the
 * last pass, so the plugin counts the guest instructions of the faults.
 * Each pass then starts after a short sleep, so that work deferred by
 * what came before (RCU callbacks freeing what exec and the last unmap
 * left, kworkers) runs while the CPU is idle, not in the counted loop.
 *
 * --stride K: read one page in K (a reader whose share of useful
 * pre-mapped pages is 1/K at every order: an order=auto rule holds
 * still at K = 2).  --threads T: T threads of the process, thread t
 * pinned to CPU t, read the t-th of T equal parts of each pass's mapping
 * at once, each between its own markers (the plugin counts per vCPU;
 * each thread emits in turn at the end: T counts per run).  --procs:
 * the T readers are processes instead (forked after the file is opened,
 * each mapping it itself: the faults of T mms on one file), with
 * --passes only; the faults printed are their sum.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "markers.h"

#define SETTLE_US 20000

static int markers;
static long stride = 1;
static int nthreads = 1;
static int procs;			/* --procs: the readers are processes */
static pthread_barrier_t *bar;		/* shared by the processes with --procs */
static long *pfaults;			/* --procs: each reader's faults */
static char *volatile cur;	/* this pass's mapping */
static size_t npages;
static long psz;
static volatile int quit;

/* Thread @t's part of each pass: between its markers, on its own CPU. */
static void read_part(int t)
{
	size_t lo = npages * t / nthreads, hi = npages * (t + 1) / nthreads, i;
	volatile unsigned long sum = 0;
	const char *p = cur;

	if (markers)
		MARKER(0);
	for (i = lo; i < hi; i++)
		if (!(i % stride))
			sum += p[i * psz];
	if (markers)
		MARKER(1);
	(void)sum;
}

static void pin(int t)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Reader t's count, after reader t - 1's (the main one's first). */
static void emit_in_turn(int t)
{
	for (int k = 1; k < nthreads; k++) {
		pthread_barrier_wait(bar);
		if (k == t && markers)
			MARKER(2);
	}
}

/* Threads 1..T-1: a part of each pass, between the main thread's barriers. */
static void *reader(void *arg)
{
	int t = (int)(intptr_t)arg;

	pin(t);
	for (;;) {
		pthread_barrier_wait(bar);
		if (quit)
			break;
		read_part(t);
		pthread_barrier_wait(bar);
	}
	emit_in_turn(t);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: faultbench [--passes N] [--markers] [--stride K] [--threads T [--procs]] FILE [SECONDS]\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long faults(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt + r.ru_majflt;
}

int main(int argc, char **argv)
{
	size_t align;
	static const struct option opts[] = {
		{ "passes", required_argument, NULL, 'n' },
		{ "markers", no_argument, NULL, 'm' },
		{ "stride", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "procs", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	pthread_t th[64];
	double secs = 0, t0, t;
	size_t pages, i, done = 0;
	long f0, passes = 0, pass = 0;
	struct stat st;
	char *res, *end;
	pthread_barrierattr_t ba;
	int fd, c, me = 0;

	psz = sysconf(_SC_PAGESIZE);
	align = (size_t)psz * (psz / 8);
	while ((c = getopt_long(argc, argv, "n:ms:t:ph", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			procs = 1;
			break;
		case 's':
			stride = strtol(optarg, &end, 10);
			if (*end || stride < 1) {
				fprintf(stderr, "faultbench: bad --stride %s\n", optarg);
				return 2;
			}
			break;
		case 't':
			nthreads = (int)strtol(optarg, &end, 10);
			if (*end || nthreads < 1 || nthreads > 64) {
				fprintf(stderr, "faultbench: bad --threads %s (1..64)\n", optarg);
				return 2;
			}
			break;
		case 'n':
			passes = strtol(optarg, &end, 10);
			if (*end || passes < 1) {
				fprintf(stderr, "faultbench: bad --passes %s\n", optarg);
				return 2;
			}
			break;
		case 'm':
#ifdef NO_MARKERS
			fprintf(stderr, "faultbench: no markers on this architecture\n");
			return 2;
#endif
			markers = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + (passes ? 1 : 2) != argc) {
		usage(stderr);
		return 2;
	}
	if (!passes)
		secs = atof(argv[optind + 1]);
	if (procs && !passes) {
		fprintf(stderr, "faultbench: --procs needs --passes (the readers must agree)\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[optind]);
		return 1;
	}
	pages = st.st_size / psz;
	res = mmap(NULL, st.st_size + align, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap reserve");
		return 1;
	}
	/* keep the reservation: each pass maps the file over its aligned part */
	res = (char *)(((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1));

	npages = pages;
	bar = mmap(NULL, sizeof(*bar) + 64 * sizeof(long), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bar == MAP_FAILED) {
		perror("mmap barrier");
		return 1;
	}
	pfaults = (long *)(bar + 1);
	pthread_barrierattr_init(&ba);
	if (procs)
		pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(bar, &ba, nthreads);
	for (i = 1; procs && i < (size_t)nthreads && !me; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			me = (int)i;
	}
	pin(me);
	for (i = 1; !procs && i < (size_t)nthreads; i++)
		if (pthread_create(&th[i], NULL, reader, (void *)(intptr_t)i)) {
			perror("pthread_create");
			return 1;
		}
	f0 = faults();
	t0 = now();
	do {
		char *p = mmap(res, st.st_size, PROT_READ, MAP_SHARED | MAP_FIXED,
			       fd, 0);

		if (p == MAP_FAILED) {
			perror("mmap file");
			return 1;
		}
		if (markers)
			usleep(SETTLE_US);
		cur = p;
		if (nthreads > 1)
			pthread_barrier_wait(bar);
		read_part(me);
		if (nthreads > 1)
			pthread_barrier_wait(bar);
		done += (pages + stride - 1) / stride;
		/* back to PROT_NONE, keeping the address range ours */
		if (mmap(res, st.st_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED) {
			perror("mmap reset");
			return 1;
		}
		t = now() - t0;
	} while (passes ? ++pass < passes : t < secs);
	f0 = faults() - f0;
	if (me) {	/* a reader process: its faults, its count in turn */
		pfaults[me] = f0;
		emit_in_turn(me);
		_exit(0);
	}
	if (markers)
		MARKER(2);
	if (nthreads > 1 && !procs) {
		quit = 1;
		pthread_barrier_wait(bar);
	}
	emit_in_turn(0);
	for (i = 1; i < (size_t)nthreads; i++) {
		if (procs) {
			int st;

			if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
				fprintf(stderr, "faultbench: a reader process failed\n");
				return 1;
			}
		} else {
			pthread_join(th[i], NULL);
		}
	}
	for (i = 1; procs && i < (size_t)nthreads; i++)
		f0 += pfaults[i];
	printf("faults %ld pages %zu seconds %.3f faults_per_s %.0f pages_per_s %.0f\n",
	       f0, done, t, f0 / t, done / t);
	return 0;
}
