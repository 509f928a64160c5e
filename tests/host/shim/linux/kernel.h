/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: <linux/kernel.h>'s number parsers and scnprintf. */
#ifndef MMT_SHIM_KERNEL_H
#define MMT_SHIM_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/types.h>

/* as the kernel's: the whole string (one trailing newline), no overflow */
static inline int shim_kstrtoul(const char *s, unsigned int base,
				unsigned long max, unsigned long *v)
{
	char *end;

	if (*s == '+')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, base);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	return errno || *v > max ? -ERANGE : 0;
}

static inline int kstrtouint(const char *s, unsigned int base, unsigned int *r)
{
	unsigned long v;
	int ret = shim_kstrtoul(s, base, UINT_MAX, &v);

	if (!ret)
		*r = (unsigned int)v;
	return ret;
}

static inline int kstrtoint(const char *s, unsigned int base, int *r)
{
	unsigned long v;
	int ret = shim_kstrtoul(s, base, INT_MAX, &v);

	if (!ret)
		*r = (int)v;
	return ret;
}

/* what it wrote, never more than @size - 1 */
static inline __printf(3, 4) int scnprintf(char *buf, size_t size,
					   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

#endif
