// SPDX-License-Identifier: GPL-2.0
/*
 * The measured phase: the clock, /proc/vmstat and rusage snapshots around
 * it, and the start/end gate of the threads that run it, so that thread
 * creation and teardown stay out of the window.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

double mms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ----------------------------------------------------------------- vmstat */

int mms_vmstat_read(struct mms_vmstat *v)
{
	/* static and pre-touched by the first call: no faults in the window */
	static char buf[32768];
	ssize_t n, got = 0;
	int fd;
	char *p;

	memset(v, 0, sizeof(*v));
	fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *sp = strchr(p, ' ');
		size_t kl;

		if (!sp)
			break;
		kl = sp - p;
#define KEY(k, f) if (kl == sizeof(k) - 1 && !memcmp(p, k, kl)) v->f = strtoll(sp + 1, NULL, 10)
		KEY("pgfault", pgfault);
		KEY("pgmajfault", pgmajfault);
		KEY("pgmigrate_success", pgmigrate_success);
		KEY("pgmigrate_fail", pgmigrate_fail);
#undef KEY
	}
	return 0;
}

/* ------------------------------------------------------ the measured phase */

void mms_snap_begin(struct mms_snap *s, int children)
{
	struct rusage ru;

	s->children = children;
	mms_vmstat_read(&s->vm);
	getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru);
	s->minflt = ru.ru_minflt;
	s->majflt = ru.ru_majflt;
	s->t = mms_now();
}

void mms_result_set(struct mms_result *r, const struct mms_meas *m,
		    long long ops, double scale, const char *unit)
{
	r->minflt = m->minflt;
	r->majflt = m->majflt;
	r->seconds = m->seconds;
	r->vm_pgfault = m->vm.pgfault;
	r->vm_pgmajfault = m->vm.pgmajfault;
	r->ops = ops;
	r->unit = unit;
	r->throughput = m->seconds > 0 ? ops / m->seconds / scale : 0;
}

void mms_snap_end(const struct mms_snap *s, struct mms_meas *m)
{
	struct rusage ru;
	struct mms_vmstat vm;
	double t = mms_now();

	getrusage(s->children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru);
	mms_vmstat_read(&vm);
	m->seconds = t - s->t;
	m->minflt = ru.ru_minflt - s->minflt;
	m->majflt = ru.ru_majflt - s->majflt;
	m->vm.pgfault = vm.pgfault - s->vm.pgfault;
	m->vm.pgmajfault = vm.pgmajfault - s->vm.pgmajfault;
	m->vm.pgmigrate_success = vm.pgmigrate_success - s->vm.pgmigrate_success;
	m->vm.pgmigrate_fail = vm.pgmigrate_fail - s->vm.pgmigrate_fail;
}

struct gate {
	int ready, go, done, release, abort;
	int n;
};

struct tramp {
	void *(*fn)(void *);
	void *arg;
	struct gate *g;
};

static void futex_wait(int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void wait_until(int *addr, int want)
{
	int v;

	while ((v = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) < want)
		futex_wait(addr, v);
}

static void bump(int *addr)
{
	__atomic_add_fetch(addr, 1, __ATOMIC_ACQ_REL);
	futex_wake(addr);
}

static void *trampoline(void *p)
{
	struct tramp *t = p;
	volatile char stack[16384];

	/* fault in the stack this thread will use before the window opens */
	memset((char *)stack, 0, sizeof(stack));
	bump(&t->g->ready);
	wait_until(&t->g->go, 1);
	if (!t->g->abort)
		t->fn(t->arg);
	bump(&t->g->done);
	wait_until(&t->g->release, 1);
	return NULL;
}

int mms_run_threads(int n, void *(*fn)(void *), void *args, size_t argsize,
		    int children, struct mms_meas *m)
{
	struct gate g = { .n = n };
	struct tramp *t = calloc(n, sizeof(*t));
	pthread_t *tid = calloc(n, sizeof(*tid));
	struct mms_snap s;
	sigset_t all, old;
	int i, created = 0, ret = 0;
	struct mms_vmstat warm;

	if (!t || !tid) {
		free(t);
		free(tid);
		return -1;
	}
	/* warm up every code path used inside the window */
	mms_vmstat_read(&warm);
	mms_now();
	futex_wake(&g.abort);
	/* signals go to this thread; workers poll mms_stop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < n; i++) {
		t[i].fn = fn;
		t[i].arg = (char *)args + i * argsize;
		t[i].g = &g;
		if (pthread_create(&tid[i], NULL, trampoline, &t[i]) != 0)
			break;
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (created < n) {
		g.abort = 1;
		ret = -1;
		g.n = created;
	}
	wait_until(&g.ready, created);
	mms_snap_begin(&s, children);
	bump(&g.go);
	wait_until(&g.done, created);
	mms_snap_end(&s, m);
	bump(&g.release);
	for (i = 0; i < created; i++)
		pthread_join(tid[i], NULL);
	free(t);
	free(tid);
	return ret;
}
