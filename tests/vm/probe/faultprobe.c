// SPDX-License-Identifier: GPL-2.0
/*
 * faultprobe: an independent fault counter for the VM tests (it shares
 * no code with mmstress on purpose).
 *
 *   faultprobe FILE [ALIGN [THREAD]]
 *
 * Maps FILE shared and read-only at an address aligned to ALIGN bytes
 * (default, or 0: one page table's span, page_size * page_size / 8), reads
 * one byte per page, and prints "pages N minflt N majflt N" for that loop
 * only.  With THREAD, the loop runs in a second thread named THREAD
 * (PR_SET_NAME, as pthread_setname_np does): a process whose reader is a
 * renamed worker, as a JVM's or tokio's are.  With $FAULTPROBE_HOLD set
 * to a path (a FIFO), it then reads that until EOF before it exits, its
 * mapping still there: a process that lives on after its reads.  With
 * $FAULTPROBE_GO set to a FIFO, it reads that until EOF before its loop:
 * a process that has run (and faulted) for a while, whose cgroup or rules
 * a test changes before it reads.  With $FAULTPROBE_RENAME, the process
 * renames itself (PR_SET_NAME on its main thread: the name ps shows) just
 * before its loop.  With $FAULTPROBE_STRIDE=K it reads one page of every
 * K.  With $FAULTPROBE_LIVE=N:MS it maps FILE N times (each at its own
 * aligned address, none unmapped) and reads them one after another, MS
 * milliseconds apart: a service that keeps faulting in mappings it
 * holds, judged while it lives.  With $FAULTPROBE_SKEW=K the mapping
 * starts K pages past the aligned address: a window of fault-around's,
 * aligned in the address space, then straddles the file's large folios.
 * With $FAULTPROBE_RANDOM set, the mapping is madvise(MADV_RANDOM)'d.
 * With $FAULTPROBE_CGROUP=DIR it makes the cgroup DIR and moves itself
 * into it just before its loop, microseconds before its first fault: a
 * service whose cgroup is made again as it starts.
 * With $FAULTPROBE_UID=N it first becomes user and group N (no other
 * groups), before it opens FILE: another user's process, which may
 * read a world-readable file and name itself as it likes.
 * With $FAULTPROBE_ALT=FILE2:K it maps FILE2 too and, after each page of
 * FILE it reads, reads a page of FILE2: pages K-1, 2K-1 and so on, round
 * its end (a window of 2^order <= K pages around each lies in FILE2,
 * however FILE2's mapping is aligned): a process whose fault-arounds
 * alternate between two files.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <grp.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

struct loop {
	const char *p, *name;
	size_t pages, stride, size, span;	/* span: one mapping's */
	unsigned int maps, pace_ms;
	long psz;
	unsigned long sum;
	const char *alt;			/* FAULTPROBE_ALT's mapping */
	size_t alt_pages, alt_step;
};

static void *read_loop(void *arg)
{
	struct loop *l = arg;
	volatile unsigned long sum = 0;
	unsigned int m;
	size_t i, a = l->alt ? (l->alt_step - 1) % l->alt_pages : 0;

	if (l->name)
		prctl(PR_SET_NAME, l->name, 0, 0, 0);
	for (m = 0; m < l->maps; m++) {
		const char *p = l->p + m * l->span;

		if (m && l->pace_ms)
			usleep(l->pace_ms * 1000);
		for (i = 0; i < l->pages; i += l->stride) {
			sum += p[i * l->psz];
			if (!l->alt)
				continue;
			sum += l->alt[a * l->psz];
			a = (a + l->alt_step) % l->alt_pages;
		}
	}
	l->sum = sum;
	return NULL;
}

/* Read the FIFO named by $@env, if set, until EOF. */
static void drain(const char *env)
{
	const char *path = getenv(env);
	char buf[64];
	int h;

	if (!path)
		return;
	h = open(path, O_RDONLY);
	while (h >= 0 && read(h, buf, sizeof(buf)) > 0)
		;
	if (h >= 0)
		close(h);
}

/* mkdir @dir (a cgroup v2 directory) and move this process into it */
static int join_new_cgroup(const char *dir)
{
	char procs[4096];
	int h, ok;

	if (mkdir(dir, 0755)) {
		perror(dir);
		return 1;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	h = open(procs, O_WRONLY);
	ok = h >= 0 && write(h, "0\n", 2) == 2;
	if (h >= 0)
		close(h);
	if (!ok)
		perror(procs);
	return !ok;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t align = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	struct loop l = { .psz = psz, .name = argc > 3 ? argv[3] : NULL,
			  .stride = 1, .maps = 1 };
	const char *live = getenv("FAULTPROBE_LIVE");
	const char *skew = getenv("FAULTPROBE_SKEW");
	unsigned int k;
	pthread_t th;
	struct rusage r0, r1;
	struct stat st;
	size_t pages;
	uintptr_t base;
	char *res, *p;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: faultprobe FILE [ALIGN [THREAD]]\n");
		return 2;
	}
	if (getenv("FAULTPROBE_UID")) {
		unsigned long id = strtoul(getenv("FAULTPROBE_UID"), NULL, 0);

		if (setgroups(0, NULL) || setgid((gid_t)id) || setuid((uid_t)id)) {
			perror("faultprobe: FAULTPROBE_UID");
			return 1;
		}
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	if (!align)
		align = (size_t)psz * (psz / 8);
	pages = (st.st_size + psz - 1) / psz;
	if (getenv("FAULTPROBE_STRIDE"))
		l.stride = strtoul(getenv("FAULTPROBE_STRIDE"), NULL, 0);
	if (live && sscanf(live, "%u:%u", &l.maps, &l.pace_ms) != 2)
		l.maps = 0;
	if (!l.stride || !l.maps) {
		fprintf(stderr, "faultprobe: bad FAULTPROBE_STRIDE or _LIVE\n");
		return 2;
	}
	l.span = (st.st_size + align - 1) / align * align;
	if (skew)
		l.span += align;	/* room for the skew in each span */
	res = mmap(NULL, l.span * l.maps + align, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap reserve");
		return 1;
	}
	base = ((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1);
	if (skew)
		base += strtoul(skew, NULL, 0) * psz;
	for (k = 0; k < l.maps; k++) {
		p = mmap((void *)(base + k * l.span), st.st_size, PROT_READ,
			 MAP_SHARED | MAP_FIXED, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap file");
			return 1;
		}
		if (getenv("FAULTPROBE_RANDOM") && madvise(p, st.st_size, MADV_RANDOM)) {
			perror("madvise");
			return 1;
		}
	}
	if (getenv("FAULTPROBE_ALT")) {
		char path[4096];
		struct stat st2;
		int fd2;

		if (sscanf(getenv("FAULTPROBE_ALT"), "%4095[^:]:%zu", path,
			   &l.alt_step) != 2 || !l.alt_step) {
			fprintf(stderr, "faultprobe: bad FAULTPROBE_ALT\n");
			return 2;
		}
		fd2 = open(path, O_RDONLY);
		if (fd2 < 0 || fstat(fd2, &st2) || !st2.st_size) {
			perror(path);
			return 1;
		}
		l.alt_pages = (st2.st_size + psz - 1) / psz;
		l.alt = mmap(NULL, st2.st_size, PROT_READ, MAP_SHARED, fd2, 0);
		if (l.alt == MAP_FAILED) {
			perror("mmap FAULTPROBE_ALT");
			return 1;
		}
	}
	p = (char *)base;
	l.p = p;
	l.pages = pages;
	drain("FAULTPROBE_GO");
	if (getenv("FAULTPROBE_RENAME"))
		prctl(PR_SET_NAME, getenv("FAULTPROBE_RENAME"), 0, 0, 0);
	if (getenv("FAULTPROBE_CGROUP") && join_new_cgroup(getenv("FAULTPROBE_CGROUP")))
		return 1;
	getrusage(RUSAGE_SELF, &r0);
	if (!l.name)
		read_loop(&l);
	else if (pthread_create(&th, NULL, read_loop, &l) ||
		 pthread_join(th, NULL)) {
		fprintf(stderr, "faultprobe: cannot run the reading thread\n");
		return 1;
	}
	getrusage(RUSAGE_SELF, &r1);
	printf("pages %zu minflt %ld majflt %ld\n", pages * l.maps,
	       r1.ru_minflt - r0.ru_minflt, r1.ru_majflt - r0.ru_majflt);
	fflush(stdout);
	drain("FAULTPROBE_HOLD");
	return 0;
}
