// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the BPF object reader of mmtunectl bpf (lib/bpfobj.c,
 * bpfbtf.c) on any bytes, the corpus tests/bpf/'s objects.  What it
 * accepts must be what load can use: instructions, maps it can make,
 * every relocation an ld_imm64 of one of them with its second half there.
 */
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static void check(const struct mmt_bpf_obj *o)
{
	int i;

	if (!o->ninsns || !o->insns || o->nmaps < 0 || o->nmaps > MMT_BPF_MAPS_MAX ||
	    strncmp(o->section, MMT_BPF_SEC_PREFIX, strlen(MMT_BPF_SEC_PREFIX)))
		abort();
	for (i = 0; i < o->nmaps; i++)
		if (!o->maps[i].type || o->maps[i].fd != -1)
			abort();
	for (i = 0; i < o->nrelocs; i++) {
		const struct mmt_bpf_reloc *r = &o->relocs[i];

		if (r->map < 0 || r->map >= o->nmaps || r->insn + 1 >= o->ninsns ||
		    o->insns[r->insn].code != (BPF_LD | BPF_IMM | BPF_DW))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmt_bpf_obj o;

	if (mmt__bpf_obj_parse("fuzz.o", data, size, &o) == MMT_OK)
		check(&o);
	mmt_bpf_obj_close(&o);
	return 0;
}
