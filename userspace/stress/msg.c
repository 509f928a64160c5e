// SPDX-License-Identifier: GPL-2.0
/*
 * mmstress's messages: one line on stderr each, over the progress line.
 * A leaf: cleanup.c and the rest call it, it calls none of them (the way
 * out that also cleans up is die.c's).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>

#include "libmmtune.h"
#include "mmstress.h"

int mms_progress;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (mms_progress)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "mmstress: %s%s\n", prefix, buf);
}

void mms_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void mms_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}
