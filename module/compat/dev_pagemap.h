/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: get_dev_pagemap(), whose prototype changed
 * (pfn_valid/pfn_valid.c).
 */
#ifndef MMTUNE_COMPAT_DEV_PAGEMAP_H
#define MMTUNE_COMPAT_DEV_PAGEMAP_H

#include <linux/compiler.h>
#include <linux/memremap.h>

/*
 * get_dev_pagemap(pfn, pgmap) lost its second argument (always NULL here)
 * between 6.12 and 7.3.  No macro tells, so the prototype picks the call;
 * both calls must compile, hence through a pointer the compiler cannot see
 * through (no "called through a non-compatible type" for the dead one).
 */
typedef struct dev_pagemap *(*mmtune_gdp1_t)(unsigned long pfn);
typedef struct dev_pagemap *(*mmtune_gdp2_t)(unsigned long pfn,
					     struct dev_pagemap *pgmap);

static __always_inline struct dev_pagemap *
mmtune_get_dev_pagemap(unsigned long pfn)
{
	void *fn = (void *)get_dev_pagemap;

	OPTIMIZER_HIDE_VAR(fn);
	if (__builtin_types_compatible_p(typeof(get_dev_pagemap) *,
					 mmtune_gdp1_t))
		return ((mmtune_gdp1_t)fn)(pfn);
	return ((mmtune_gdp2_t)fn)(pfn, NULL);
}

#endif /* MMTUNE_COMPAT_DEV_PAGEMAP_H */
