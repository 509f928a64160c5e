// SPDX-License-Identifier: GPL-2.0
/*
 * Values the kernel publishes or takes in /proc and /sys: a number in a
 * file (nr_hugepages), /proc/meminfo, the NUMA nodes with memory.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

int mms_read_long(const char *path, long *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtol(buf, NULL, 10);
	return 0;
}

int mms_write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_CLOEXEC), len, n;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%ld\n", v);
	n = write(fd, buf, len);
	if (close(fd) != 0 || n != len)
		return -1;
	return 0;
}

long mms_meminfo(const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ NUMA */

int mms_mem_nodes(int *ids, int max)
{
	char buf[256], *p = buf;
	ssize_t n;
	int fd = open("/sys/devices/system/node/has_memory", O_RDONLY | O_CLOEXEC), cnt = 0;

	if (fd < 0) {
		ids[0] = 0;
		return 1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		ids[0] = 0;
		return 1;
	}
	buf[n] = 0;
	while (*p && *p != '\n') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (long i = a; i <= b && cnt < max; i++)
			ids[cnt++] = i;
		if (*p == ',')
			p++;
		else
			break;
	}
	return cnt;
}
