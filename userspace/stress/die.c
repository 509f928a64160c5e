// SPDX-License-Identifier: GPL-2.0
/*
 * mms_die(): the way out on an error.  Apart from msg.c because it calls
 * cleanup.c and output.c, which themselves report through msg.c: here,
 * above the three, no two files call each other.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "libmmtune.h"
#include "mmstress.h"

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
