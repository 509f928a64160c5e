// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the number parsers and the JSON string escaper.
 * The escaped literal must be quoted, hold no raw control or non-ASCII
 * byte, and agree in length between the sizing and the writing call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *e;
	unsigned long long u;
	size_t n, m, i;
	long v;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	if (mmt_parse_long(s, 0, 9, &v) == MMT_OK && (v < 0 || v > 9))
		abort();
	if (mmt_parse_long(s, -5, 5, &v) == MMT_OK && (v < -5 || v > 5))
		abort();
	if (mmt_parse_u64(s, &u) == MMT_OK && !s[0])
		abort();
	mmt_knob_name_ok(s);

	n = mmt_json_escape(NULL, 0, s);
	e = malloc(n + 1);
	if (!e)
		abort();
	m = mmt_json_escape(e, n + 1, s);
	if (m != n || strlen(e) != n || n < 2 || e[0] != '"' || e[n - 1] != '"')
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)e[i] < 0x20 || (unsigned char)e[i] >= 0x7f)
			abort();
	/* a short buffer truncates but stays terminated */
	if (n > 3) {
		char small[4];

		if (mmt_json_escape(small, sizeof(small), s) != n || strlen(small) != 3)
			abort();
	}
	free(e);
	free(s);
	return 0;
}
