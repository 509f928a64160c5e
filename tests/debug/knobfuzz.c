// SPDX-License-Identifier: GPL-2.0
/*
 * knobfuzz: fuzz one writable knob file of mmtune (a debugfs file or a module
 * parameter) from inside the check-debug guest. Built static (the guest has
 * no compiler or python guarantee).
 *
 *   knobfuzz [OPTIONS] FILE
 *
 * Half of the writes come from one process, one at a time: random bytes,
 * mutations of the valid inputs, and the valid inputs themselves, at offset
 * 0 or an odd offset (where the file can seek), 0..16 KiB long. Every refused write must fail with an
 * allowed errno and leave the file's state (its text, lines cut at --strip)
 * as it was; every valid input must succeed and read back (--valid
 * IN=>EXPECT: EXPECT is a substring of the state afterwards). A random input
 * the kernel accepts is counted and undone with --reset. The other half come
 * from --jobs concurrent writer processes (random bytes and mutations only);
 * if none of those was accepted, the state afterwards must be the state
 * before.
 *
 * Prints one summary line per file ("knobfuzz: FILE writes N refused N
 * accepted-random N valid N") and one line per violation; exits 1 on any
 * violation, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LEN		16384
#define MAX_VALID	32
#define STATE_MAX	65536

static const char *path;
static const char *strip;
static const char *reset_str;
static char *valid_in[MAX_VALID], *valid_out[MAX_VALID];
static int nvalid;
static int allowed[32] = { EINVAL, ERANGE };
static int nallowed = 2;
static int no_state;
static unsigned long long seed = 88172645463325252ULL;

struct counts {
	unsigned long writes, refused, accepted, valid, bad;
};

static unsigned long long rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* The file's state: its text, each line cut at --strip. */
static int read_state(char *out, size_t size)
{
	char buf[STATE_MAX];
	size_t o = 0;
	ssize_t n, len = 0;
	char *line, *save, *cut;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -1;
	buf[len] = '\0';
	out[0] = '\0';
	if (no_state)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strip) {
			cut = strstr(line, strip);
			if (cut)
				*cut = '\0';
		}
		o += snprintf(out + o, size - o, "%s\n", line);
		if (o >= size)
			break;
	}
	return 0;
}

static int errno_allowed(int e)
{
	int i;

	for (i = 0; i < nallowed; i++)
		if (allowed[i] == e)
			return 1;
	return 0;
}

/*
 * One write at @off on a fresh descriptor; returns 0 when accepted, else the
 * errno. lseek, not pwrite: seq_file-backed files refuse pwrite (ESPIPE).
 */
static int do_write(const char *buf, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int e;

	if (fd < 0)
		return errno;
	if (off)
		lseek(fd, off, SEEK_SET);	/* nonseekable: stays at 0 */
	n = write(fd, buf, len);
	e = n < 0 ? errno : 0;
	close(fd);
	return e;
}

/* Fill @buf with a random input (class 0: bytes; 1: a mutated valid one). */
static size_t gen(char *buf, int cls)
{
	size_t len, i, k;
	unsigned int r = rnd() % 10;

	len = r < 5 ? rnd() % 33 : r < 8 ? rnd() % 513 : rnd() % (MAX_LEN + 1);
	if (cls == 1 && nvalid) {
		const char *v = valid_in[rnd() % nvalid];

		len = strlen(v);
		memcpy(buf, v, len);
		switch (rnd() % 4) {
		case 0:	/* flip bytes */
			for (k = 0; k < 1 + rnd() % 3 && len; k++)
				buf[rnd() % len] = (char)rnd();
			break;
		case 1:	/* truncate */
			len = len ? rnd() % len : 0;
			break;
		case 2:	/* append junk */
			for (k = 0; k < 1 + rnd() % 8; k++)
				buf[len++] = (char)rnd();
			break;
		default: /* pad with spaces, a sign, or leading zeros */
			k = rnd() % 3;
			memmove(buf + 1, buf, len++);
			buf[0] = k == 0 ? ' ' : k == 1 ? '-' : '0';
			break;
		}
		return len;
	}
	for (i = 0; i < len; i++)
		buf[i] = (char)rnd();
	return len;
}

static off_t gen_off(void)
{
	return rnd() % 4 ? 0 : (off_t)(rnd() % 4096) | 1;
}

static void violation(struct counts *c, const char *what, const char *buf,
		      size_t len, off_t off, int e)
{
	char shown[41];
	size_t i;

	for (i = 0; i < len && i < 40; i++)
		shown[i] = buf[i] > ' ' && buf[i] < 0x7f ? buf[i] : '.';
	shown[i] = '\0';
	c->bad++;
	if (c->bad <= 10)
		printf("knobfuzz: %s: %s (len %zu off %lld, errno %d %s, input '%s')\n",
		       path, what, len, (long long)off, e, strerror(e), shown);
}

/* The single-threaded half: every write checked on its own. */
static void serial(unsigned long n, struct counts *c)
{
	static char buf[MAX_LEN + 16];
	static char before[STATE_MAX], after[STATE_MAX];
	unsigned long i;
	size_t len;
	off_t off;
	int e, v;

	for (i = 0; i < n; i++) {
		v = -1;
		if (nvalid && i % 7 == 3) {
			v = rnd() % nvalid;
			len = strlen(valid_in[v]);
			memcpy(buf, valid_in[v], len);
			off = 0;
		} else {
			len = gen(buf, (int)(i & 1));
			off = gen_off();
		}
		if (read_state(before, sizeof(before)))
			violation(c, "cannot read", "", 0, 0, errno);
		e = do_write(buf, len, off);
		c->writes++;
		if (read_state(after, sizeof(after)))
			violation(c, "cannot read", "", 0, 0, errno);
		if (v >= 0) {
			c->valid++;
			if (e)
				violation(c, "valid input refused", buf, len, off, e);
			else if (!strstr(after, valid_out[v]))
				violation(c, "valid input does not read back", buf,
					  len, off, 0);
		} else if (e) {
			c->refused++;
			if (!errno_allowed(e))
				violation(c, "refused with an errno not allowed",
					  buf, len, off, e);
			if (strcmp(before, after))
				violation(c, "refused input changed the state",
					  buf, len, off, e);
		} else {
			c->accepted++;
			if (reset_str && do_write(reset_str, strlen(reset_str), 0))
				violation(c, "--reset refused", reset_str,
					  strlen(reset_str), 0, errno);
		}
	}
}

/* The concurrent half: @jobs writers; counts summed in shared memory. */
static void concurrent(unsigned long n, int jobs, struct counts *c)
{
	static char before[STATE_MAX], after[STATE_MAX];
	struct counts *sh;
	unsigned long i, per = n / jobs;
	int j, st;

	sh = mmap(NULL, sizeof(*sh) * jobs, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("knobfuzz: mmap");
		exit(1);
	}
	memset(sh, 0, sizeof(*sh) * jobs);
	read_state(before, sizeof(before));
	for (j = 0; j < jobs; j++) {
		if (fork() == 0) {
			static char buf[MAX_LEN + 16];
			size_t len;
			off_t off;
			int e;

			seed += 0x9e3779b97f4a7c15ULL * (j + 1);
			for (i = 0; i < per; i++) {
				len = gen(buf, (int)(i & 1));
				off = gen_off();
				e = do_write(buf, len, off);
				sh[j].writes++;
				if (!e) {
					sh[j].accepted++;
				} else {
					sh[j].refused++;
					if (!errno_allowed(e))
						violation(&sh[j], "refused with an errno not allowed (concurrent)",
							  buf, len, off, e);
				}
			}
			fflush(stdout);
			_exit(0);
		}
	}
	while (wait(&st) > 0)
		;
	for (j = 0; j < jobs; j++) {
		c->writes += sh[j].writes;
		c->refused += sh[j].refused;
		c->accepted += sh[j].accepted;
		c->bad += sh[j].bad;
	}
	read_state(after, sizeof(after));
	for (j = 0; j < jobs; j++)
		if (sh[j].accepted)
			break;
	if (j == jobs && strcmp(before, after))
		violation(c, "concurrent refused writes changed the state", "", 0, 0, 0);
	if (j < jobs && reset_str)
		do_write(reset_str, strlen(reset_str), 0);
	munmap(sh, sizeof(*sh) * jobs);
}

static int errno_by_name(const char *s)
{
	static const struct { const char *n; int e; } t[] = {
		{ "EINVAL", EINVAL }, { "ERANGE", ERANGE }, { "ESRCH", ESRCH },
		{ "ENOENT", ENOENT }, { "EBUSY", EBUSY }, { "EPERM", EPERM },
		{ "EOPNOTSUPP", EOPNOTSUPP }, { "ENODEV", ENODEV },
		{ "ETIME", ETIME }, { "E2BIG", E2BIG }, { "EFAULT", EFAULT },
		{ "ENOSPC", ENOSPC }, { "EINTR", EINTR },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n))
			return t[i].e;
	return 0;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: knobfuzz [OPTIONS] FILE\n"
		"  -n, --count N      writes in all (default 10000)\n"
		"  -j, --jobs N       concurrent writers for the second half (default 4)\n"
		"  -v, --valid IN=>OUT  a valid input and a substring of its read-back (repeatable)\n"
		"  -e, --errno NAME   also allowed for refused input (EINVAL, ERANGE always)\n"
		"  -r, --reset STR    written after a random input was accepted\n"
		"  -s, --strip STR    state lines are cut at STR (counters that move)\n"
		"  -N, --no-state     the file's text is not a state (counters)\n"
		"  -S, --seed N       random seed\n"
		"  -h, --help\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", 1, NULL, 'n' }, { "jobs", 1, NULL, 'j' },
		{ "valid", 1, NULL, 'v' }, { "errno", 1, NULL, 'e' },
		{ "reset", 1, NULL, 'r' }, { "strip", 1, NULL, 's' },
		{ "no-state", 0, NULL, 'N' }, { "seed", 1, NULL, 'S' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	unsigned long count = 10000;
	struct counts c = { 0 };
	int jobs = 4, o, e;
	char *eq;

	while ((o = getopt_long(argc, argv, "n:j:v:e:r:s:NS:h", opts, NULL)) != -1) {
		switch (o) {
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'j': jobs = atoi(optarg); break;
		case 'v':
			eq = strstr(optarg, "=>");
			if (!eq || nvalid == MAX_VALID)
				usage(2);
			*eq = '\0';
			valid_in[nvalid] = optarg;
			valid_out[nvalid++] = eq + 2;
			break;
		case 'e':
			e = errno_by_name(optarg);
			if (!e || nallowed == 32)
				usage(2);
			allowed[nallowed++] = e;
			break;
		case 'r': reset_str = optarg; break;
		case 's': strip = optarg; break;
		case 'N': no_state = 1; break;
		case 'S': seed = strtoull(optarg, NULL, 0) | 1; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1 || jobs < 1 || !count)
		usage(2);
	path = argv[optind];
	/* Valid inputs use "\n" for a newline (the shell cannot pass one easily). */
	for (o = 0; o < nvalid; o++) {
		char *p;

		while ((p = strstr(valid_in[o], "\\n"))) {
			*p = '\n';
			memmove(p + 1, p + 2, strlen(p + 2) + 1);
		}
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	serial(count - count / 2, &c);
	concurrent(count / 2, jobs, &c);
	printf("knobfuzz: %s writes %lu refused %lu accepted-random %lu valid %lu violations %lu\n",
	       path, c.writes, c.refused, c.accepted, c.valid, c.bad);
	return c.bad ? 1 : 0;
}
