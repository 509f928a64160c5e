// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the BTF-defined maps of a BPF object (bpfobj.c), read from
 * its .BTF section as clang writes them: a DATASEC ".maps" whose VARs
 * are each a STRUCT of pointer members, __uint(name, val) an
 * int (*name)[val] (the value is the array's nelems) and __type(key, T)
 * a T *key (the size is T's).  Nothing else of the BTF is used: the maps
 * are made without it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>

#include "priv.h"

#define BTF_TYPES_MAX	(1u << 20)
#define DEPTH_MAX	32	/* typedefs and modifiers in a row */

#ifndef BTF_KIND_DECL_TAG
#define BTF_KIND_DECL_TAG	17
#endif
#ifndef BTF_KIND_TYPE_TAG
#define BTF_KIND_TYPE_TAG	18
#endif
#ifndef BTF_KIND_ENUM64
#define BTF_KIND_ENUM64		19
#endif

struct btf {
	const char *path;
	const char *str;
	size_t str_len;
	const struct btf_type **t;	/* by type id; t[0]: void */
	unsigned int n;
};

static int bad(const struct btf *b, const char *why)
{
	return mmt__fail(MMT_EINVAL, "%s: %s", b->path, why);
}

static const char *str_of(const struct btf *b, uint32_t off)
{
	if (off >= b->str_len || !memchr(b->str + off, '\0', b->str_len - off))
		return "";
	return b->str + off;
}

static const char *name_of(const struct btf *b, const struct btf_type *t)
{
	return str_of(b, t->name_off);
}

/* The bytes that follow a type of this kind and vlen; -1 for a kind unknown. */
static long extra_len(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return 12L * vlen;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return 8L * vlen;
	default:
		return -1;
	}
}

/* Every type's place, by id. */
static int index_types(struct btf *b, const unsigned char *p, size_t len)
{
	size_t off = 0, cap = 0;
	const struct btf_type **nt;

	b->n = 1;
	while (off < len) {
		const struct btf_type *t = (const struct btf_type *)(p + off);
		long x;

		if (len - off < sizeof(*t) || b->n >= BTF_TYPES_MAX)
			return bad(b, "malformed BTF (types)");
		x = extra_len(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
		if (x < 0 || (size_t)x > len - off - sizeof(*t))
			return bad(b, "malformed BTF (a type of a kind unknown, or cut)");
		if (b->n >= cap) {
			cap = cap ? cap * 2 : 256;
			nt = realloc(b->t, cap * sizeof(*b->t));
			if (!nt)
				return mmt__fail(MMT_EIO, "out of memory");
			b->t = nt;
		}
		b->t[b->n++] = t;
		off += sizeof(*t) + (size_t)x;
	}
	return MMT_OK;
}

/* The header, the strings, the types indexed. */
static int btf_init(struct btf *b, const void *data, size_t len)
{
	const struct btf_header *h = data;
	const unsigned char *base = data;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > len || h->hdr_len % 4)
		return bad(b, "malformed .BTF (its header)");
	base += h->hdr_len;
	len -= h->hdr_len;
	if (h->type_off > len || h->type_len > len - h->type_off || h->type_off % 4 ||
	    h->str_off > len || h->str_len > len - h->str_off)
		return bad(b, "malformed .BTF (its sections)");
	b->str = (const char *)base + h->str_off;
	b->str_len = h->str_len;
	return index_types(b, base + h->type_off, h->type_len);
}

static const struct btf_type *type_at(const struct btf *b, uint32_t id)
{
	return id && id < b->n ? b->t[id] : NULL;
}

static unsigned int kind(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info);
}

/* id past typedefs and modifiers, NULL for void or a loop. */
static const struct btf_type *skip_mods(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = type_at(b, id);
	int d;

	for (d = 0; t && d < DEPTH_MAX; d++) {
		switch (kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = type_at(b, t->type);
			break;
		default:
			return t;
		}
	}
	return NULL;
}

/* A type's size in bytes, 0 when it has none (void, a function). */
static uint64_t type_size(const struct btf *b, uint32_t id, int depth)
{
	const struct btf_type *t = skip_mods(b, id);
	const struct btf_array *a;

	if (!t || depth > DEPTH_MAX)
		return 0;
	switch (kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FLOAT:
		return t->size;
	case BTF_KIND_PTR:
		return 8;
	case BTF_KIND_ARRAY:
		a = (const struct btf_array *)(t + 1);
		return a->nelems * type_size(b, a->type, depth + 1);
	default:
		return 0;
	}
}

/* A member's pointer target: a __uint()'s array length or a __type()'s size. */
static int member_value(const struct btf *b, const struct btf_member *mb, int is_type, uint64_t *v)
{
	const struct btf_type *p = skip_mods(b, mb->type), *a;

	if (!p || kind(p) != BTF_KIND_PTR)
		return -1;
	if (is_type) {
		*v = type_size(b, p->type, 0);
		return *v ? 0 : -1;
	}
	a = skip_mods(b, p->type);
	if (!a || kind(a) != BTF_KIND_ARRAY)
		return -1;
	*v = ((const struct btf_array *)(a + 1))->nelems;
	return 0;
}

/* The definition's members this loader knows, into m: -1 for one it does not. */
static int map_field(struct mmt_bpf_map *m, const char *name, uint64_t v)
{
	static const char *const names[] = {
		"type", "max_entries", "map_flags", "key_size", "value_size", "key", "value", NULL
	};
	unsigned int *const dst[] = {
		&m->type, &m->max_entries, &m->flags, &m->key_size, &m->value_size,
		&m->key_size, &m->value_size,
	};
	int i;

	for (i = 0; names[i] && strcmp(names[i], name); i++)
		;
	if (!names[i] || v > UINT32_MAX)
		return -1;
	*dst[i] = (unsigned int)v;
	return 0;
}

/* One VAR of .maps: its struct's members into m. */
static int read_map(const struct btf *b, const struct btf_var_secinfo *vs, struct mmt_bpf_map *m)
{
	const struct btf_type *var = type_at(b, vs->type), *st;
	const struct btf_member *mb;
	unsigned int i;
	uint64_t v;

	if (!var || kind(var) != BTF_KIND_VAR)
		return bad(b, "malformed BTF (.maps holds a type that is no variable)");
	snprintf(m->name, sizeof(m->name), "%s", name_of(b, var));
	m->off = vs->offset;
	st = skip_mods(b, var->type);
	if (!st || kind(st) != BTF_KIND_STRUCT)
		return mmt__fail(MMT_EINVAL, "%s: map %s: not a struct of __uint() and __type()",
				 b->path, m->name);
	mb = (const struct btf_member *)(st + 1);
	for (i = 0; i < BTF_INFO_VLEN(st->info); i++) {
		const char *n = str_of(b, mb[i].name_off);
		int is_type = !strcmp(n, "key") || !strcmp(n, "value");

		if (member_value(b, &mb[i], is_type, &v) || map_field(m, n, v))
			return mmt__fail(MMT_EINVAL, "%s: map %s: member '%.32s' is not supported (type, "
					 "max_entries, key, value, key_size, value_size, map_flags are)",
					 b->path, m->name, n);
	}
	if (!m->type)
		return mmt__fail(MMT_EINVAL, "%s: map %s: no __uint(type, ...)", b->path, m->name);
	return MMT_OK;
}

static const struct btf_type *find_datasec(const struct btf *b, const char *name)
{
	unsigned int i;

	for (i = 1; i < b->n; i++)
		if (kind(b->t[i]) == BTF_KIND_DATASEC && !strcmp(name_of(b, b->t[i]), name))
			return b->t[i];
	return NULL;
}

int mmt__bpf_btf_maps(const char *path, const void *data, size_t len, struct mmt_bpf_obj *o)
{
	struct btf b = { .path = path };
	const struct btf_type *ds;
	const struct btf_var_secinfo *vs;
	unsigned int i;
	int err = btf_init(&b, data, len);

	ds = err ? NULL : find_datasec(&b, ".maps");
	if (!err && !ds)
		err = bad(&b, "no .maps in .BTF: build the program with clang -g");
	vs = ds ? (const struct btf_var_secinfo *)(ds + 1) : NULL;
	if (!err && BTF_INFO_VLEN(ds->info) > MMT_BPF_MAPS_MAX)
		err = mmt__fail(MMT_EINVAL, "%s: %u maps: at most %d", path, BTF_INFO_VLEN(ds->info),
				MMT_BPF_MAPS_MAX);
	for (i = 0; !err && i < BTF_INFO_VLEN(ds->info); i++) {
		err = read_map(&b, &vs[i], &o->maps[i]);
		o->nmaps = (int)i + 1;
	}
	free(b.t);
	return err;
}
