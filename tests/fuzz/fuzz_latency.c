// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: mmt_parse_latency on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mmt_latency lat;
	int n, i;

	n = mmt_parse_latency((const char *)data, size, &lat);
	if (n != MMT_EINVAL && (n < 0 || n > MMT_LAT_MAX_BUCKETS || n != lat.nb))
		abort();
	if (lat.nkv < 0 || lat.nkv > MMT_LAT_MAX_KV)
		abort();
	for (i = 0; i < lat.nkv; i++)
		if (!lat.kv[i].key[0] || strchr(lat.kv[i].key, ':') ||
		    !memchr(lat.kv[i].key, 0, sizeof(lat.kv[i].key)) ||
		    !memchr(lat.kv[i].value, 0, sizeof(lat.kv[i].value)))
			abort();
	return 0;
}
