// SPDX-License-Identifier: GPL-2.0
/*
 * policyflip: rule sets written over and over, each set's counts read
 * before the next, for the VM tests (t-40-policy).
 *
 *   policyflip FILE N USEC SET...
 *
 * Writes the SETs to FILE (the module's policy file) in turn, N writes in
 * all, each in one write(2), and sleeps USEC microseconds after each.
 * After every write it reads FILE back and adds up, per rule (its text up
 * to " #"), the pages= and prefaulted= that the set counted so far.
 * Prints "writes N", then "pages SUM prefaulted SUM RULE" for each rule
 * it saw.  A shell loop cannot do this: every write there is a fork and
 * an exec, 100-600 ms under TCG, and few land inside another task's
 * fault.
 * Exit 0; 1 when a write or read fails (errno printed); 2: usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RULES	64
#define BUF	65536

struct sum {
	char rule[512];
	unsigned long long pages;
	unsigned long long prefaulted;
};

static struct sum sums[RULES];
static unsigned int nsums;
static char buf[BUF];

static void add(const char *line)
{
	const char *hash = strstr(line, " #");
	const char *p = strstr(line, " pages=");
	const char *q = strstr(line, " prefaulted=");
	unsigned int i;
	size_t n;

	if (!hash || !p || line[0] == '#')
		return;
	n = hash - line;
	if (n >= sizeof(sums[0].rule))
		n = sizeof(sums[0].rule) - 1;
	for (i = 0; i < nsums; i++)
		if (strlen(sums[i].rule) == n && !strncmp(sums[i].rule, line, n))
			break;
	if (i == nsums) {
		if (nsums == RULES)
			return;
		memcpy(sums[i].rule, line, n);
		sums[nsums++].rule[n] = '\0';
	}
	sums[i].pages += strtoull(p + 7, NULL, 10);	/* "pages=-": 0 */
	if (q)
		sums[i].prefaulted += strtoull(q + 12, NULL, 10);
}

static int read_back(const char *file)
{
	ssize_t got, len = 0;
	char *line = buf, *nl;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((got = read(fd, buf + len, BUF - 1 - len)) > 0)
		len += got;
	close(fd);
	if (got < 0)
		return -1;
	buf[len] = '\0';
	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		add(line);
		line = nl + 1;
	}
	add(line);
	return 0;
}

static int write_set(const char *file, const char *set)
{
	size_t len = strlen(set);
	int fd = open(file, O_WRONLY);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = write(fd, set, len);
	if (got >= 0 && (size_t)got != len) {
		got = -1;
		errno = EIO;
	}
	close(fd);
	return got < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	unsigned long n, i, us;
	char *end;

	if (argc < 5) {
		fprintf(stderr, "usage: policyflip FILE N USEC SET...\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 10);
	us = *end ? 0 : strtoul(argv[3], &end, 10);
	if (*end || !n) {
		fprintf(stderr, "policyflip: bad N or USEC\n");
		return 2;
	}
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = us % 1000000 * 1000;
	for (i = 0; i < n; i++) {
		if (write_set(argv[1], argv[4 + i % (argc - 4)])) {
			fprintf(stderr, "policyflip: write %lu: %s\n", i + 1,
				strerror(errno));
			return 1;
		}
		if (read_back(argv[1])) {
			fprintf(stderr, "policyflip: read %lu: %s\n", i + 1,
				strerror(errno));
			return 1;
		}
		nanosleep(&ts, NULL);
	}
	printf("writes %lu\n", n);
	for (i = 0; i < nsums; i++)
		printf("pages %llu prefaulted %llu %s\n", sums[i].pages,
		       sums[i].prefaulted, sums[i].rule);
	return 0;
}
