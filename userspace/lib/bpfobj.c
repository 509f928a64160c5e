// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: a BPF object as clang -target bpf writes it (ELF64, ET_REL,
 * EM_BPF), read without libbpf: its one raw_tp.w/ program, its license,
 * its maps (bpfbtf.c) and the relocations that point the program's
 * ld_imm64 at them.  What a fuller loader would do more (global data,
 * calls into .text, externs) is refused with what to change in the
 * program.  No bpf(2) call here: mmtunectl bpf check runs this alone.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "priv.h"

#ifndef EM_BPF
#define EM_BPF		247
#endif
#ifndef R_BPF_64_64
#define R_BPF_64_64	1	/* ld_imm64 of a symbol's address */
#endif
#ifndef R_BPF_64_32
#define R_BPF_64_32	10	/* a call's pc-relative target */
#endif

#define OBJ_MAX		(64u << 20)	/* far beyond a program's 1M insns */
#define LD_IMM64	(BPF_LD | BPF_IMM | BPF_DW)

/* The object as read: its bytes and the sections load needs. */
struct elf {
	const char *path;
	const unsigned char *buf;
	size_t size;
	const Elf64_Shdr *sh;
	unsigned int nsh;
	const char *shstr;
	size_t shstr_len;
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t str_len;
	unsigned int prog, maps;	/* section indexes, 0: none */
};

static int bad(const struct elf *e, const char *why)
{
	return mmt__fail(MMT_EINVAL, "%s: %s", e->path, why);
}

/* Whether [off, off + len) is in the file, aligned to al. */
static int in_file(const struct elf *e, uint64_t off, uint64_t len, unsigned int al)
{
	return off <= e->size && len <= e->size - off && !(off % al);
}

static const char *str_at(const char *tab, size_t len, uint64_t off)
{
	if (!tab || off >= len || !memchr(tab + off, '\0', len - off))
		return "";
	return tab + off;
}

static const char *sec_name(const struct elf *e, unsigned int i)
{
	return i < e->nsh ? str_at(e->shstr, e->shstr_len, e->sh[i].sh_name) : "";
}

/* Section i's bytes (NULL if it has none in the file), aligned to al. */
static const void *sec_data(const struct elf *e, unsigned int i, size_t *len, unsigned int al)
{
	const Elf64_Shdr *s = &e->sh[i];

	if (s->sh_type == SHT_NOBITS || !in_file(e, s->sh_offset, s->sh_size, al))
		return NULL;
	*len = s->sh_size;
	return e->buf + s->sh_offset;
}

/* The whole file into *buf (malloc'd), its size into *size. */
static int read_file(const char *path, unsigned char **buf, size_t *size)
{
	struct stat st;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_size > OBJ_MAX) {
		close(fd);
		return mmt__fail(MMT_EINVAL, "%s: not a BPF object (not a regular file, or over 64 MiB)",
				 path);
	}
	*size = (size_t)st.st_size;
	*buf = malloc(*size + 1);
	if (!*buf) {
		close(fd);
		return mmt__fail(MMT_EIO, "out of memory");
	}
	r = pread(fd, *buf, *size, 0);
	if (r < 0 || (size_t)r != *size)
		goto fail;
	close(fd);
	return MMT_OK;
fail:
	e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	return mmt__fail(MMT_EIO, "%s: %s", path, strerror(e));
}

static int host_data(void)
{
	return __BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
}

/* The ELF header: a BPF relocatable object of this host's byte order. */
static int check_header(struct elf *e)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->buf;

	if (e->size < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG))
		return bad(e, "not an ELF file: build the program with clang -target bpf -c");
	if (h->e_ident[EI_CLASS] != ELFCLASS64)
		return bad(e, "not a BPF object (a 32-bit ELF file)");
	if (h->e_ident[EI_DATA] != host_data()) {
		if (__builtin_bswap16(h->e_machine) != EM_BPF)
			return bad(e, "not a BPF object (an ELF file of another machine)");
		return mmt__fail(MMT_EINVAL, "%s: a %s-endian BPF object on a %s-endian host: "
				 "build it with clang -target %s", e->path,
				 host_data() == ELFDATA2LSB ? "big" : "little",
				 host_data() == ELFDATA2LSB ? "little" : "big",
				 host_data() == ELFDATA2LSB ? "bpfel" : "bpfeb");
	}
	if (h->e_machine != EM_BPF)
		return mmt__fail(MMT_EINVAL, "%s: not a BPF object (ELF machine %u): "
				 "build it with clang -target bpf -c", e->path, h->e_machine);
	if (h->e_type != ET_REL)
		return bad(e, "not a relocatable object: build it with clang -c, not linked");
	if (h->e_shentsize != sizeof(Elf64_Shdr) || !h->e_shnum || h->e_shstrndx >= h->e_shnum ||
	    !in_file(e, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr), 8))
		return bad(e, "a malformed ELF file (section headers)");
	e->sh = (const Elf64_Shdr *)(e->buf + h->e_shoff);
	e->nsh = h->e_shnum;
	e->shstr = sec_data(e, h->e_shstrndx, &e->shstr_len, 1);
	return e->shstr ? MMT_OK : bad(e, "a malformed ELF file (section names)");
}

/* The symbol table and its strings: the relocations name symbols. */
static int find_symtab(struct elf *e)
{
	unsigned int i;
	size_t len;

	for (i = 1; i < e->nsh; i++) {
		if (e->sh[i].sh_type != SHT_SYMTAB)
			continue;
		e->sym = sec_data(e, i, &len, 8);
		if (!e->sym || e->sh[i].sh_entsize != sizeof(Elf64_Sym) || e->sh[i].sh_link >= e->nsh)
			return bad(e, "a malformed ELF file (symbol table)");
		e->nsym = len / sizeof(Elf64_Sym);
		e->str = sec_data(e, e->sh[i].sh_link, &e->str_len, 1);
		return e->str ? MMT_OK : bad(e, "a malformed ELF file (symbol names)");
	}
	return bad(e, "no symbol table (was it stripped?)");
}

static int is_prog(const struct elf *e, unsigned int i)
{
	return e->sh[i].sh_type == SHT_PROGBITS && (e->sh[i].sh_flags & SHF_EXECINSTR) &&
	       !strncmp(sec_name(e, i), MMT_BPF_SEC_PREFIX, strlen(MMT_BPF_SEC_PREFIX));
}

/* The one raw_tp.w/ program section, .maps, and no legacy maps. */
static int find_sections(struct elf *e, struct mmt_bpf_obj *o)
{
	unsigned int i;

	for (i = 1; i < e->nsh; i++) {
		if (!strcmp(sec_name(e, i), "maps"))
			return bad(e, "a legacy \"maps\" section: declare the maps with __uint() and "
				   "__type() in SEC(\".maps\")");
		if (!strcmp(sec_name(e, i), ".maps"))
			e->maps = i;
		if (!is_prog(e, i))
			continue;
		if (e->prog)
			return mmt__fail(MMT_EINVAL, "%s: two programs (%s and %s): one program a machine, "
					 "keep one", e->path, sec_name(e, e->prog), sec_name(e, i));
		e->prog = i;
	}
	if (!e->prog)
		return bad(e, "no program section \"" MMT_BPF_SEC_PREFIX "...\": declare the program with "
			   "MMTUNE_ORDER_PROG() (module/mmtune_bpf.h)");
	snprintf(o->section, sizeof(o->section), "%s", sec_name(e, e->prog));
	return MMT_OK;
}

/* The program's instructions, copied (the relocations patch them). */
static int read_prog(const struct elf *e, struct mmt_bpf_obj *o)
{
	size_t len = 0, i;
	const void *d = sec_data(e, e->prog, &len, 8);

	if (!d || !len || len % sizeof(struct bpf_insn))
		return bad(e, "an empty or malformed program section");
	if (len / sizeof(struct bpf_insn) > (1u << 20))
		return bad(e, "a program of more instructions than the kernel takes (1M)");
	o->insns = malloc(len);
	if (!o->insns)
		return mmt__fail(MMT_EIO, "out of memory");
	memcpy(o->insns, d, len);
	o->ninsns = (unsigned int)(len / sizeof(struct bpf_insn));
	/* the program's function: the section's symbol at offset 0 */
	for (i = 0; i < e->nsym; i++)
		if (e->sym[i].st_shndx == e->prog && !e->sym[i].st_value &&
		    ELF64_ST_TYPE(e->sym[i].st_info) == STT_FUNC)
			snprintf(o->name, sizeof(o->name), "%s", str_at(e->str, e->str_len, e->sym[i].st_name));
	if (!o->name[0])
		snprintf(o->name, sizeof(o->name), "%s", o->section + strlen(MMT_BPF_SEC_PREFIX));
	return MMT_OK;
}

static int read_license(const struct elf *e, struct mmt_bpf_obj *o)
{
	unsigned int i;
	size_t len = 0;
	const char *d;

	for (i = 1; i < e->nsh && strcmp(sec_name(e, i), "license"); i++)
		;
	if (i == e->nsh)
		return bad(e, "no license: add char LICENSE[] SEC(\"license\") = \"GPL\";");
	d = sec_data(e, i, &len, 1);
	if (!d || !len || !memchr(d, '\0', len) || strlen(d) >= sizeof(o->license))
		return bad(e, "a malformed license section (a string under 128 bytes)");
	strcpy(o->license, d);
	return MMT_OK;
}

/* A symbol's name for a message: its own, or its section's. */
static const char *sym_name(const struct elf *e, const Elf64_Sym *s)
{
	const char *n = str_at(e->str, e->str_len, s->st_name);

	return *n ? n : sec_name(e, s->st_shndx);
}

/* What a call relocation calls, for a message: a function, or "a function in SECTION". */
static void callee(const struct elf *e, const Elf64_Sym *s, char *buf, size_t n)
{
	if (ELF64_ST_TYPE(s->st_info) == STT_SECTION)
		snprintf(buf, n, "a function in %s", sec_name(e, s->st_shndx));
	else
		snprintf(buf, n, "%s", sym_name(e, s));
}

static int is_data(const char *sec)
{
	return !strncmp(sec, ".data", 5) || !strncmp(sec, ".rodata", 7) || !strncmp(sec, ".bss", 4);
}

/* Why an ld_imm64's symbol cannot be one: a message, MMT_EINVAL. */
static int reloc_refuse(const struct elf *e, const Elf64_Sym *s, unsigned int insn)
{
	const char *sec = sec_name(e, s->st_shndx);

	if (s->st_shndx == SHN_UNDEF)
		return mmt__fail(MMT_EINVAL, "%s: instruction %u uses extern %s: externs (__kconfig, "
				 "__ksym) are not supported", e->path, insn, sym_name(e, s));
	if (is_data(sec))
		return mmt__fail(MMT_EINVAL, "%s: instruction %u uses %s in %s: global data is not "
				 "supported: make it a map", e->path, insn, sym_name(e, s), sec);
	return mmt__fail(MMT_EINVAL, "%s: instruction %u uses %s in section %s: only maps "
			 "(SEC(\".maps\")) can be referred to", e->path, insn, sym_name(e, s), sec);
}

static int map_at(const struct mmt_bpf_obj *o, uint64_t off)
{
	int i;

	for (i = 0; i < o->nmaps; i++)
		if (o->maps[i].off == off)
			return i;
	return -1;
}

/* One relocation of the program: an ld_imm64 of a map, or refused. */
static int reloc_one(const struct elf *e, struct mmt_bpf_obj *o, const Elf64_Rel *r)
{
	uint64_t sym = ELF64_R_SYM(r->r_info), type = ELF64_R_TYPE(r->r_info);
	unsigned int insn = (unsigned int)(r->r_offset / sizeof(struct bpf_insn));
	const Elf64_Sym *s;
	char what[96];
	int m;

	if (sym >= e->nsym || r->r_offset % sizeof(struct bpf_insn) || insn >= o->ninsns)
		return bad(e, "a malformed relocation of the program");
	s = &e->sym[sym];
	if (type == R_BPF_64_32) {
		callee(e, s, what, sizeof(what));
		return mmt__fail(MMT_EINVAL, "%s: instruction %u calls %s: calls to other functions "
				 "are not supported: make them static __always_inline", e->path, insn,
				 what);
	}
	if (type != R_BPF_64_64)
		return mmt__fail(MMT_EINVAL, "%s: instruction %u: relocation type %u is not supported",
				 e->path, insn, (unsigned int)type);
	if (!e->maps || s->st_shndx != e->maps)
		return reloc_refuse(e, s, insn);
	m = map_at(o, s->st_value);
	if (m < 0 || o->insns[insn].code != LD_IMM64 || insn + 1 >= o->ninsns)
		return mmt__fail(MMT_EINVAL, "%s: instruction %u: a malformed load of map %s",
				 e->path, insn, sym_name(e, s));
	o->relocs[o->nrelocs].insn = insn;
	o->relocs[o->nrelocs++].map = m;
	return MMT_OK;
}

/* The program's relocation section (.rel<section>), if any, applied. */
static int relocate(const struct elf *e, struct mmt_bpf_obj *o)
{
	const Elf64_Rel *rel = NULL;
	unsigned int i;
	size_t len = 0, n, k;
	int err;

	for (i = 1; i < e->nsh; i++) {
		if ((e->sh[i].sh_type != SHT_REL && e->sh[i].sh_type != SHT_RELA) ||
		    e->sh[i].sh_info != e->prog)
			continue;
		rel = sec_data(e, i, &len, 8);
		if (e->sh[i].sh_type == SHT_RELA || !rel || e->sh[i].sh_entsize != sizeof(*rel))
			return bad(e, "a malformed relocation section of the program");
	}
	n = len / sizeof(*rel);
	o->relocs = calloc(n ? n : 1, sizeof(*o->relocs));
	if (!o->relocs)
		return mmt__fail(MMT_EIO, "out of memory");
	for (k = 0; k < n; k++)
		if ((err = reloc_one(e, o, &rel[k])))
			return err;
	return MMT_OK;
}

/* Instructions a loader would have to rewrite without a relocation. */
static int check_insns(const struct elf *e, const struct mmt_bpf_obj *o)
{
	const struct bpf_insn *in = o->insns;
	unsigned int i;

	for (i = 0; i < o->ninsns; i++) {
		if (in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL)
			return mmt__fail(MMT_EINVAL, "%s: instruction %u calls a function: calls to other "
					 "functions are not supported: make them static __always_inline",
					 e->path, i);
		if (in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg)
			return mmt__fail(MMT_EINVAL, "%s: instruction %u calls a kernel function (kfunc): "
					 "not supported", e->path, i);
	}
	return MMT_OK;
}

/*
 * Each map's place in .maps from its symbol: clang leaves the offsets of
 * a DATASEC's variables 0 in .BTF (libbpf fills them in the same way), so
 * with two maps or more only the symbols tell them apart.
 */
static int maps_at_symbols(const struct elf *e, struct mmt_bpf_obj *o)
{
	unsigned int i;
	int m, found;

	for (m = 0; m < o->nmaps; m++) {
		for (found = 0, i = 0; i < e->nsym && !found; i++) {
			const Elf64_Sym *s = &e->sym[i];

			if (s->st_shndx == e->maps && !strcmp(sym_name(e, s), o->maps[m].name)) {
				o->maps[m].off = s->st_value;
				found = 1;
			}
		}
		if (!found)
			return bad(e, "a map of .BTF without its symbol in .maps");
	}
	return MMT_OK;
}

/* The maps .BTF describes in .maps (bpfbtf.c), placed by their symbols. */
static int read_maps(const struct elf *e, struct mmt_bpf_obj *o)
{
	unsigned int i;
	int err;
	size_t len = 0;
	const void *btf = NULL;

	if (!e->maps || !e->sh[e->maps].sh_size)
		return MMT_OK;
	for (i = 1; i < e->nsh; i++)
		if (!strcmp(sec_name(e, i), ".BTF"))
			btf = sec_data(e, i, &len, 4);
	if (!btf)
		return bad(e, "maps without .BTF: build the program with clang -g");
	err = mmt__bpf_btf_maps(e->path, btf, len, o);
	return err ? err : maps_at_symbols(e, o);
}

/* bpftool's names, by enum bpf_map_type (the uapi's numbers never change) */
static const char *const map_types[] = {
	"unspec", "hash", "array", "prog_array", "perf_event_array", "percpu_hash",
	"percpu_array", "stack_trace", "cgroup_array", "lru_hash", "lru_percpu_hash",
	"lpm_trie", "array_of_maps", "hash_of_maps", "devmap", "sockmap", "cpumap",
	"xskmap", "sockhash", "cgroup_storage", "reuseport_sockarray",
	"percpu_cgroup_storage", "queue", "stack", "sk_storage", "devmap_hash",
	"struct_ops", "ringbuf", "inode_storage", "task_storage", "bloom_filter",
	"user_ringbuf", "cgrp_storage",
};

const char *mmt_bpf_map_type_name(unsigned int type)
{
	return type && type < sizeof(map_types) / sizeof(map_types[0]) ? map_types[type] : NULL;
}

int mmt__bpf_obj_parse(const char *path, const void *buf, size_t size, struct mmt_bpf_obj *o)
{
	struct elf e = { .path = path, .buf = buf, .size = size };
	int err, i;

	memset(o, 0, sizeof(*o));
	o->prog_fd = -1;
	for (i = 0; i < MMT_BPF_MAPS_MAX; i++)
		o->maps[i].fd = -1;
	err = check_header(&e);
	if (!err)
		err = find_symtab(&e);
	if (!err)
		err = find_sections(&e, o);
	if (!err)
		err = read_prog(&e, o);
	if (!err)
		err = read_license(&e, o);
	if (!err)
		err = read_maps(&e, o);
	if (!err)
		err = relocate(&e, o);
	if (!err)
		err = check_insns(&e, o);
	return err;
}

int mmt_bpf_obj_open(const char *path, struct mmt_bpf_obj *o)
{
	unsigned char *buf = NULL;
	size_t size = 0;
	int err = read_file(path, &buf, &size);

	if (err) {
		memset(o, 0, sizeof(*o));
		o->prog_fd = -1;
		return err;
	}
	err = mmt__bpf_obj_parse(path, buf, size, o);
	free(buf);
	return err;
}

void mmt_bpf_obj_close(struct mmt_bpf_obj *o)
{
	int i;

	for (i = 0; i < o->nmaps; i++)
		if (o->maps[i].fd >= 0)
			close(o->maps[i].fd);
	if (o->prog_fd >= 0)
		close(o->prog_fd);
	free(o->insns);
	free(o->relocs);
	memset(o, 0, sizeof(*o));
	o->prog_fd = -1;
}
