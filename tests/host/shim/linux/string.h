/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: <linux/string.h>'s strsep (the C library's) and strim. */
#ifndef MMT_SHIM_STRING_H
#define MMT_SHIM_STRING_H

#include <ctype.h>
#include <string.h>

/* @s without its leading and trailing blanks, cut in place */
static inline char *strim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

#endif
