// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: mmt_parse_policy on arbitrary bytes.  What it keeps
 * must be what its users index and print: a count within the array,
 * terminated strings, a per mille within 0..1000, an order of
 * mmt_prule_order that is -1 or the rule's own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmmtune.h"

static void check_rule(const struct mmt_prule *r)
{
	int o = mmt_prule_order(r);

	if (!memchr(r->match, 0, sizeof(r->match)) || !memchr(r->order, 0, sizeof(r->order)))
		abort();
	if (r->useful < -1 || r->useful > 1000 || r->au_seen >> MMT_PA_NR)
		abort();
	if (o < -1 || (o >= 0 && mmt_prule_is_auto(r) && o != (int)r->au[MMT_PA_ORDER]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mmt_policy p;
	int rc, i;

	rc = mmt_parse_policy((const char *)data, size, &p);
	if (rc != MMT_OK && rc != MMT_EINVAL)
		abort();
	if (p.nr < 0 || p.nr > MMT_PRULES_MAX)
		abort();
	check_rule(&p.def);
	for (i = 0; i < p.nr; i++) {
		check_rule(&p.r[i]);
		if (rc == MMT_OK && (!p.r[i].match[0] || !p.r[i].order[0]))
			abort();
	}
	return 0;
}
