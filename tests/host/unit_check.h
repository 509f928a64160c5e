/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host unit tests' one check (rule_unit.c, module_unit.c,
 * advise_unit.c): a KTAP line "ok - SUITE: NAME", or "not ok - SUITE:
 * NAME: why" and unit_failed set, which each test's main() returns.
 */
#ifndef MMT_UNIT_CHECK_H
#define MMT_UNIT_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int unit_failed;

static void __attribute__((format(printf, 4, 5)))
unit_check(const char *suite, const char *name, int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok - %s: %s\n", suite, name);
		return;
	}
	unit_failed = 1;
	printf("not ok - %s: %s: ", suite, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#endif
