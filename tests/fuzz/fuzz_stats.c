// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: mmt_parse_stats on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"

#define MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmt_kv kv[MAX];
	int n, i;

	n = mmt_parse_stats((const char *)data, size, kv, MAX);
	if (n != MMT_EINVAL && (n < 0 || n > MAX))
		abort();
	for (i = 0; i < n; i++) {
		/* both tokens non-empty, without blanks */
		if (!kv[i].key[0] || !kv[i].value[0] ||
		    strpbrk(kv[i].key, " \t\r\n") || strpbrk(kv[i].value, " \t\r\n"))
			abort();
		if (!memchr(kv[i].key, 0, sizeof(kv[i].key)) ||
		    !memchr(kv[i].value, 0, sizeof(kv[i].value)))
			abort();
	}
	if (mmt_parse_stats((const char *)data, size, NULL, MAX) != n)
		abort();
	return 0;
}
