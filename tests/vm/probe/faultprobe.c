// SPDX-License-Identifier: GPL-2.0
/*
 * faultprobe: an independent fault counter for the VM tests (it shares
 * no code with mmstress on purpose).
 *
 *   faultprobe FILE [ALIGN]
 *
 * Maps FILE shared and read-only at an address aligned to ALIGN bytes
 * (default: one page table's span, page_size * page_size / 8), reads one
 * byte per page, and prints "pages N minflt N majflt N" for that loop only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t align = argc > 2 ? strtoull(argv[2], NULL, 0) :
				  (size_t)psz * (psz / 8);
	struct rusage r0, r1;
	volatile unsigned long sum = 0;
	struct stat st;
	size_t pages, i;
	uintptr_t base;
	char *res, *p;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: faultprobe FILE [ALIGN]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	pages = (st.st_size + psz - 1) / psz;
	res = mmap(NULL, st.st_size + align, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap reserve");
		return 1;
	}
	base = ((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1);
	p = mmap((void *)base, st.st_size, PROT_READ, MAP_SHARED | MAP_FIXED,
		 fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap file");
		return 1;
	}
	getrusage(RUSAGE_SELF, &r0);
	for (i = 0; i < pages; i++)
		sum += p[i * psz];
	getrusage(RUSAGE_SELF, &r1);
	printf("pages %zu minflt %ld majflt %ld\n", pages,
	       r1.ru_minflt - r0.ru_minflt, r1.ru_majflt - r0.ru_majflt);
	return 0;
}
