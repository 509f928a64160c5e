// SPDX-License-Identifier: GPL-2.0
/*
 * stallprobe: the module's waits, seen from outside, for the VM tests.
 *
 *   stallprobe ftrace PIDFILE FILE VALUE
 *	Holds ftrace_lock: a write(2) to PIDFILE (tracefs set_ftrace_pid)
 *	from a buffer whose page a userfaultfd serves, so the kernel copies
 *	it under ftrace_lock and waits for the page.  Meanwhile writes VALUE
 *	to FILE (a trace event's enable) and times it, then serves the page
 *	(a space: no pid is added).  Prints "write_us N held H": H is 1 when
 *	the set_ftrace_pid write was still waiting after FILE's write
 *	returned (ftrace_lock was held all along).  t-50-trace.
 *
 *   stallprobe churn FILE MAPS SECONDS [RSS]
 *	Maps page 0 of FILE MAPS times, one mapping each (not merged), reads
 *	each, then for SECONDS unmaps one and maps it again, over and over,
 *	a millisecond apart (rss only tries the lock at first).  Prints its
 *	pid and "ready" once mapped, then "ops N max_us M": the mmap(2) +
 *	munmap(2) pairs done and the longest one (the mmap lock's wait: a
 *	reader of the mappings that holds it across them shows here).  With
 *	RSS (debugfs mmtune/rss), a thread reads it for this process
 *	meanwhile, over and over, and the line goes on with "reads R busy B
 *	read_us_avg A read_us_max X read_ops_max K" (B: reads that found the
 *	lock taken, not in the others; K: the most mmap+munmap pairs done
 *	during one read: at most 2 when a read holds the lock throughout).
 *	t-64-walks.
 *
 * Exit 0; 1 when a call fails (errno printed); 2: usage; 3: no
 * userfaultfd for kernel faults here (the check skips).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long psz;

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static int die(const char *what)
{
	fprintf(stderr, "stallprobe: %s: %s\n", what, strerror(errno));
	return 1;
}

struct pidw {
	int fd;
	char *buf;
	volatile int done;
	ssize_t ret;
};

static void *pid_writer(void *arg)
{
	struct pidw *w = arg;

	w->ret = write(w->fd, w->buf, 1);
	w->done = 1;
	return NULL;
}

static int ftrace_hold(const char *pidfile, const char *file, const char *val)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_copy cp;
	struct uffd_msg msg;
	struct pollfd pfd;
	struct pidw w;
	pthread_t th;
	unsigned long long t0, t1;
	char *page;
	int uffd, fd, held;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		fprintf(stderr, "stallprobe: userfaultfd: %s\n", strerror(errno));
		return 3;
	}
	w.buf = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page = aligned_alloc(psz, psz);
	if (w.buf == MAP_FAILED || !page)
		return die("mmap");
	memset(page, ' ', psz);
	reg.range.start = (unsigned long)w.buf;
	reg.range.len = psz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		fprintf(stderr, "stallprobe: UFFDIO_REGISTER: %s\n", strerror(errno));
		return 3;
	}
	w.fd = open(pidfile, O_WRONLY);	/* no O_TRUNC: the pids stay */
	if (w.fd < 0)
		return die(pidfile);
	fd = open(file, O_WRONLY);
	if (fd < 0)
		return die(file);
	w.done = 0;
	if (pthread_create(&th, NULL, pid_writer, &w))
		return die("pthread_create");
	/* the writer's copy faults: it now holds ftrace_lock */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg)) {
		fprintf(stderr, "stallprobe: no fault from the set_ftrace_pid write\n");
		return 3;
	}
	usleep(100000);
	t0 = now_us();
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		return die(file);
	t1 = now_us();
	held = !w.done;
	cp.dst = (unsigned long)w.buf;
	cp.src = (unsigned long)page;
	cp.len = psz;
	cp.mode = 0;
	if (ioctl(uffd, UFFDIO_COPY, &cp))
		return die("UFFDIO_COPY");
	pthread_join(th, NULL);
	printf("write_us %llu held %d\n", t1 - t0, held);
	return 0;
}

static volatile unsigned long long churn_ops;	/* done so far */

struct rdr {
	const char *rss;
	volatile int stop;
	unsigned long long reads, busy, tot, max, ops_max;
	int err;
};

/* The process's rss lines, read over and over: each read timed. */
static void *rss_reader(void *arg)
{
	static char buf[1 << 16];
	struct rdr *r = arg;
	char sel[32];
	unsigned long long t0, d, o0, o;
	int fd, busy;
	ssize_t n;

	snprintf(sel, sizeof(sel), "pid=%d", getpid());
	while (!r->stop) {
		fd = open(r->rss, O_RDWR);
		if (fd < 0 || write(fd, sel, strlen(sel)) != (ssize_t)strlen(sel)) {
			r->err = errno;
			break;
		}
		/* the walk is in the first read (seq_file's show, once) */
		o0 = churn_ops;
		t0 = now_us();
		n = read(fd, buf, sizeof(buf) - 1);
		d = now_us() - t0;
		o = churn_ops - o0;
		busy = n > 0 && (buf[n] = 0, strstr(buf, " busy ") != NULL);
		while (n > 0)
			n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (busy) {
			r->busy++;
			continue;
		}
		r->reads++;
		r->tot += d;
		if (d > r->max)
			r->max = d;
		if (o > r->ops_max)
			r->ops_max = o;
	}
	return NULL;
}

static int churn(const char *file, long maps, long secs, const char *rss)
{
	unsigned long long end, t, d, max = 0, ops = 0;
	struct rdr r = { .rss = rss };
	pthread_t th;
	char **m;
	long i;
	int fd;

	fd = open(file, O_RDONLY);
	m = calloc(maps, sizeof(*m));
	if (fd < 0 || !m)
		return die(file);
	for (i = 0; i < maps; i++) {
		/* page 0 each: neighbours' offsets do not follow, no merge */
		m[i] = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
		if (m[i] == MAP_FAILED)
			return die("mmap");
		(void)*(volatile char *)m[i];
	}
	printf("%d\nready\n", getpid());
	fflush(stdout);
	if (rss && pthread_create(&th, NULL, rss_reader, &r))
		return die("pthread_create");
	end = now_us() + secs * 1000000ULL;
	for (i = 0; (t = now_us()) < end; i = (i + 7919) % maps) {
		if (munmap(m[i], psz))
			return die("munmap");
		m[i] = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
		if (m[i] == MAP_FAILED)
			return die("mmap");
		d = now_us() - t;
		if (d > max)
			max = d;
		ops++;
		churn_ops = ops;
		(void)*(volatile char *)m[i];
		usleep(1000);	/* the lock free most of the time: rss tries it */
	}
	if (!rss) {
		printf("ops %llu max_us %llu\n", ops, max);
		return 0;
	}
	r.stop = 1;
	pthread_join(th, NULL);
	if (r.err) {
		errno = r.err;
		return die(rss);
	}
	printf("ops %llu max_us %llu reads %llu busy %llu read_us_avg %llu read_us_max %llu read_ops_max %llu\n",
	       ops, max, r.reads, r.busy, r.reads ? r.tot / r.reads : 0, r.max,
	       r.ops_max);
	return 0;
}

int main(int argc, char **argv)
{
	psz = sysconf(_SC_PAGESIZE);
	if (argc == 5 && !strcmp(argv[1], "ftrace"))
		return ftrace_hold(argv[2], argv[3], argv[4]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "churn"))
		return churn(argv[2], atol(argv[3]), atol(argv[4]),
			     argc == 6 ? argv[5] : NULL);
	fprintf(stderr, "usage: stallprobe ftrace PIDFILE FILE VALUE | churn FILE MAPS SECONDS [RSS]\n");
	return 2;
}
