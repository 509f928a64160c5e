// SPDX-License-Identifier: GPL-2.0
/*
 * The values of mmstress's options: sizes and lists, read and written
 * back in the same units, and the workloads' pseudo-random numbers.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"
#include "mmstress.h"

uint64_t mms_rand(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}


/* "64M", "1G", "4096", "512k", "2MiB": binary units, > 0. */
int mms_parse_size(const char *s, long long *out)
{
	char num[32];
	const char *p = s;
	long v;
	long long mul = 1;
	size_t n;

	while (*p >= '0' && *p <= '9')
		p++;
	n = p - s;
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = 0;
	if (mmt_parse_long(num, 1, LONG_MAX, &v) != 0)
		return -1;
	switch (*p) {
	case 0: break;
	case 'k': case 'K': mul = 1LL << 10; p++; break;
	case 'm': case 'M': mul = 1LL << 20; p++; break;
	case 'g': case 'G': mul = 1LL << 30; p++; break;
	case 't': case 'T': mul = 1LL << 40; p++; break;
	default: return -1;
	}
	if (mul > 1 && (!strcmp(p, "iB") || !strcmp(p, "B")))
		p += strlen(p);
	if (*p)
		return -1;
	if (v > LLONG_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

/* "1,8,32": each in [min, max]; returns the count or -1. */
int mms_parse_list(const char *s, long min, long max, long *out, int max_n)
{
	char buf[512], *tok, *save = NULL;
	int n = 0;
	size_t len = strlen(s);

	if (len == 0 || len >= sizeof(buf) || s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
		return -1;
	memcpy(buf, s, len + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= max_n)
			return -1;
		if (mmt_parse_long(tok, min, max, &out[n]) != 0)
			return -1;
		n++;
	}
	return n ? n : -1;
}

void mms_fmt_size(long long b, char *buf, size_t len)
{
	if (b >= (1LL << 30) && b % (1LL << 30) == 0)
		snprintf(buf, len, "%lldG", b >> 30);
	else if (b >= (1LL << 20) && b % (1LL << 20) == 0)
		snprintf(buf, len, "%lldM", b >> 20);
	else if (b >= (1LL << 10) && b % (1LL << 10) == 0)
		snprintf(buf, len, "%lldK", b >> 10);
	else
		snprintf(buf, len, "%lld", b);
}

void mms_path_dir(const char *path, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
}
