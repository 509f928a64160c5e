// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl record: the names of the files of processes that ended.
 *
 * record.c's reader names a file from the maps of the process whose
 * fault it reads, and a process that has ended by then has no maps.  So
 * the reader also traces the command and every process and thread it
 * starts (ptrace, PTRACE_SEIZE: nothing stops but what is asked for),
 * and each of them stops where a mapping of its goes: at its exit, and
 * before each munmap() and execve() (a seccomp filter the command is
 * started with returns SECCOMP_RET_TRACE for those alone).  There its
 * mappings are still whole: their files' (device, inode, path) go into
 * a table before it is let go.  A mapping cannot go before the reader has
 * taken its name, so a file the reader cannot find in a live process's
 * maps is in the table.
 *
 * Nothing else changes for the command: forks are followed, signals
 * passed on as they came, group stops (SIGSTOP, SIGTSTP) listened to.
 * PTRACE_O_EXITKILL: a process the filter stops must not outlive its
 * tracer (its munmap() would fail with ENOSYS), and record's processes
 * do not outlive it anyway (run's cgroup is killed at the end).  What
 * cannot be traced (no CAP_SYS_PTRACE, Yama's ptrace_scope 3, a command
 * that is being traced already) is named as before, from the maps of
 * live processes, with a warning.  A command that traces (gdb, strace)
 * cannot do so under record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "recnames.h"

struct name {
	unsigned int maj, min;
	unsigned long ino;
	char *path;
	int fd;			/* the file, as mapped (-1: none): deleted later, still read */
};

#define NAMES_FDS	512	/* files held open, of the 1024 a process may have */

static struct name *names;
static int nnames, capnames, nfds;
static int sfd = -1;		/* SIGCHLD as a file: a tracee stopped */

/* SIGCHLD blocked and read from a file the reader polls: 0 or -1. */
int names_init(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &s, NULL))
		return -1;
	sfd = signalfd(-1, &s, SFD_NONBLOCK | SFD_CLOEXEC);
	return sfd < 0 ? -1 : 0;
}

int names_fd(void)
{
	return sfd;
}

/* Trace @pid and all it starts: 0, or -1 with errno. */
int names_attach(pid_t pid)
{
	return ptrace(PTRACE_SEIZE, pid, NULL,
		      (void *)(long)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				     PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT |
				     PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) ? -1 : 0;
}

#if defined(__x86_64__)
#define NAMES_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NAMES_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NAMES_ARCH	AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define NAMES_ARCH	AUDIT_ARCH_S390X
#elif defined(__riscv) && __riscv_xlen == 64
#define NAMES_ARCH	AUDIT_ARCH_RISCV64
#endif

/*
 * In the command, just before its exec (traced by then): munmap(),
 * execve() and execveat() stop for the tracer; every other call, and
 * another ABI's (x32, 32-bit compat), runs as ever.  0, or -1 with errno
 * (then only exits stop).
 */
int names_filter(void)
{
#ifdef NAMES_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NAMES_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_munmap, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
#else
	errno = ENOSYS;
	return -1;
#endif
}

static struct name *names_of(unsigned int maj, unsigned int min, unsigned long ino)
{
	int i;

	for (i = 0; i < nnames; i++)
		if (names[i].ino == ino && names[i].maj == maj && names[i].min == min)
			return &names[i];
	return NULL;
}

const char *names_find(unsigned int maj, unsigned int min, unsigned long ino)
{
	const struct name *n = names_of(maj, min, ino);

	return n ? n->path : NULL;
}

/* The file as it was mapped, a new fd of it, or -1. */
int names_open(unsigned int maj, unsigned int min, unsigned long ino)
{
	const struct name *n = names_of(maj, min, ino);

	return n && n->fd >= 0 ? fcntl(n->fd, F_DUPFD_CLOEXEC, 0) : -1;
}

/*
 * A new file into the table, held open through its mapping's
 * /proc/TID/map_files link (root's): a file removed before the reader
 * reads its cache is still there to read.
 */
static void names_add(pid_t tid, const char *range, unsigned int maj, unsigned int min,
		      unsigned long ino, const char *path)
{
	char p[96];
	struct name *n;

	if (names_of(maj, min, ino))
		return;
	if (nnames == capnames) {
		n = realloc(names, (capnames ? 2 * capnames : 64) * sizeof(*n));
		if (!n)
			return;
		names = n;
		capnames = capnames ? 2 * capnames : 64;
	}
	n = &names[nnames];
	n->path = strdup(path);
	if (!n->path)
		return;
	n->maj = maj;
	n->min = min;
	n->ino = ino;
	n->fd = -1;
	snprintf(p, sizeof(p), "%s/%d/map_files/%s", proc_dir(), (int)tid, range);
	if (nfds < NAMES_FDS && (n->fd = open(p, O_RDONLY | O_CLOEXEC)) >= 0)
		nfds++;
	nnames++;
}

int maps_file(char *line, struct maps_file *f)
{
	int off = 0;

	if (sscanf(line, "%39[0-9a-f-] %*s %*x %x:%x %lu %n", f->range, &f->maj, &f->min,
		   &f->ino, &off) < 4 || !off || line[off] != '/')
		return -1;
	line[strcspn(line, "\n")] = '\0';
	f->path = line + off;
	return 0;
}

/* The file mappings of @tid, stopped at its exit, into the table. */
static void names_take(pid_t tid)
{
	char p[64], line[PATH_MAX + 128];
	struct maps_file f;
	FILE *m;

	snprintf(p, sizeof(p), "%s/%d/maps", proc_dir(), (int)tid);
	m = fopen(p, "re");
	while (m && fgets(line, sizeof(line), m))
		if (!maps_file(line, &f))
			names_add(tid, f.range, f.maj, f.min, f.ino, f.path);
	if (m)
		fclose(m);
}

/* One tracee's stop, answered: it goes on as it would have untraced. */
static void names_stop(pid_t w, int st)
{
	int ev = st >> 16, sig = WSTOPSIG(st);

	if (ev == PTRACE_EVENT_EXIT || ev == PTRACE_EVENT_SECCOMP)
		names_take(w);
	if (ev == PTRACE_EVENT_STOP && (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
					sig == SIGTTOU)) {
		ptrace(PTRACE_LISTEN, w, NULL, NULL);	/* a group stop */
		return;
	}
	/* an event (fork, exit, munmap, a new tracee's first stop): no signal */
	ptrace(PTRACE_CONT, w, NULL, (void *)(long)(ev ? 0 : sig));
}

/* Every stop pending, answered; never blocks. */
void names_poll(void)
{
	struct signalfd_siginfo si;
	pid_t w;
	int st;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
	while ((w = waitpid(-1, &st, WNOHANG | __WALL)) > 0)
		if (WIFSTOPPED(st))
			names_stop(w, st);
}
