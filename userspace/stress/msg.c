// SPDX-License-Identifier: GPL-2.0
/*
 * mmstress's messages: one line on stderr each, over the progress line;
 * mms_die() also writes a skip's record and undoes what mmstress changed
 * (cleanup.c) before it exits.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

void mms_die(int code, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mms_err("%s", buf);
	/* a skip still leaves its record (CSV, JSON), with the reason */
	if (code == MMS_EXIT_SKIP)
		mms_out_skip(buf);
	mms_cleanup_run();
	exit(code);
}
