// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: mmt_parse_info on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"

#define MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmt_kv kv[MAX];
	int n, i;

	n = mmt_parse_info((const char *)data, size, kv, MAX);
	if (n != MMT_EINVAL && (n < 0 || n > MAX))
		abort();
	for (i = 0; i < n; i++) {
		/* keys are never empty, never hold ':', always terminated */
		if (!kv[i].key[0] || strchr(kv[i].key, ':') ||
		    !memchr(kv[i].key, 0, sizeof(kv[i].key)) ||
		    !memchr(kv[i].value, 0, sizeof(kv[i].value)))
			abort();
		if (mmt_kv_get(kv, n, kv[i].key) == NULL)
			abort();
	}
	/* counting without storing agrees */
	if (mmt_parse_info((const char *)data, size, NULL, MAX) != n)
		abort();
	return 0;
}
