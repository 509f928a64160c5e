// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench: read-fault throughput, the workload of `make bench`.
 *
 *   faultbench FILE SECONDS
 *
 * Maps FILE (best a cached tmpfs file) read-only, aligned to one page
 * table's span so fault-around windows are whole, reads one byte per
 * page, unmaps, and repeats until SECONDS have passed (whole passes only).
 * Prints one line:
 *   faults N pages N seconds S faults_per_s R pages_per_s R
 * where faults are the process's minor+major faults during the passes
 * (getrusage) and pages the pages read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

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
	long psz = sysconf(_SC_PAGESIZE);
	size_t align = (size_t)psz * (psz / 8);
	volatile unsigned long sum = 0;
	double secs, t0, t;
	size_t pages, i, done = 0;
	long f0;
	struct stat st;
	char *res;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: faultbench FILE SECONDS\n");
		return 2;
	}
	secs = atof(argv[2]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
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

	f0 = faults();
	t0 = now();
	do {
		char *p = mmap(res, st.st_size, PROT_READ, MAP_SHARED | MAP_FIXED,
			       fd, 0);

		if (p == MAP_FAILED) {
			perror("mmap file");
			return 1;
		}
		for (i = 0; i < pages; i++)
			sum += p[i * psz];
		done += pages;
		/* back to PROT_NONE, keeping the address range ours */
		if (mmap(res, st.st_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED) {
			perror("mmap reset");
			return 1;
		}
		t = now() - t0;
	} while (t < secs);
	f0 = faults() - f0;
	printf("faults %ld pages %zu seconds %.3f faults_per_s %.0f pages_per_s %.0f\n",
	       f0, done, t, f0 / t, done / t);
	return 0;
}
