// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune parsers: info, stats, latency, numbers, order lists, and JSON
 * strings.
 * Pure functions over (text, len): the text need not be NUL-terminated,
 * and nothing here touches the file system.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static int is_sp(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Text the kernel could have written: printable ASCII, tab, CR, LF. */
static int text_ok(const char *t, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c == '\n' || c == '\t' || c == '\r')
			continue;
		if (c < 0x20 || c >= 0x7f)
			return 0;
	}
	return 1;
}

/*
 * Next line of [*pos, len): sets *a, *b to its bounds with surrounding
 * blanks trimmed; returns 0 at the end.
 */
static int next_line(const char *t, size_t len, size_t *pos, size_t *a, size_t *b)
{
	size_t s = *pos, e = s;

	if (s >= len)
		return 0;
	while (e < len && t[e] != '\n')
		e++;
	*pos = e < len ? e + 1 : e;
	while (s < e && is_sp(t[s]))
		s++;
	while (e > s && is_sp(t[e - 1]))
		e--;
	*a = s;
	*b = e;
	return 1;
}

static void copy_field(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int mmt_parse_info(const char *text, size_t len, struct mmt_kv *kv, int max)
{
	size_t pos = 0, a, b;
	int n = 0;

	if (!text && len)
		return MMT_EINVAL;
	if (!text_ok(text, len))
		return MMT_EINVAL;
	while (next_line(text, len, &pos, &a, &b)) {
		const char *colon;
		size_t ke, vs;

		if (a == b || text[a] == '#')
			continue;
		colon = memchr(text + a, ':', b - a);
		if (!colon)
			return MMT_EINVAL;
		ke = (size_t)(colon - text);
		vs = ke + 1;
		while (ke > a && is_sp(text[ke - 1]))
			ke--;
		while (vs < b && is_sp(text[vs]))
			vs++;
		if (ke == a || ke - a >= sizeof(kv->key))
			return MMT_EINVAL;
		if (n < max && kv) {
			copy_field(kv[n].key, sizeof(kv[n].key), text + a, ke - a);
			copy_field(kv[n].value, sizeof(kv[n].value), text + vs, b - vs);
		}
		if (n < max)
			n++;
	}
	return n;
}

int mmt_parse_stats(const char *text, size_t len, struct mmt_kv *kv, int max)
{
	size_t pos = 0, a, b;
	int n = 0;

	if (!text && len)
		return MMT_EINVAL;
	if (!text_ok(text, len))
		return MMT_EINVAL;
	while (next_line(text, len, &pos, &a, &b)) {
		size_t ne = a, vs, ve;

		if (a == b || text[a] == '#')
			continue;
		while (ne < b && !is_sp(text[ne]))
			ne++;
		vs = ne;
		while (vs < b && is_sp(text[vs]))
			vs++;
		ve = vs;
		while (ve < b && !is_sp(text[ve]))
			ve++;
		if (vs == b || ve != b)		/* not exactly two tokens */
			return MMT_EINVAL;
		if (ne - a > 1 && text[ne - 1] == ':')	/* tolerate "name: value" */
			ne--;
		if (ne - a >= sizeof(kv->key) || ve - vs >= sizeof(kv->value))
			return MMT_EINVAL;
		if (n < max && kv) {
			copy_field(kv[n].key, sizeof(kv[n].key), text + a, ne - a);
			copy_field(kv[n].value, sizeof(kv[n].value), text + vs, ve - vs);
		}
		if (n < max)
			n++;
	}
	return n;
}

const char *mmt_kv_get(const struct mmt_kv *kv, int n, const char *key)
{
	int i;

	if (!kv || !key)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int mmt_parse_long(const char *s, long min, long max, long *out)
{
	const char *d;
	char *end;
	long v;

	if (!s || !*s)
		return mmt__fail(MMT_EINVAL, "empty value where a number is needed");
	d = (*s == '-' || *s == '+') ? s + 1 : s;
	if (!all_digits(d))
		return mmt__fail(MMT_EINVAL, "'%.40s' is not a number", s);
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || *end || v < min || v > max)
		return mmt__fail(MMT_EINVAL, "'%.40s' is out of range %ld..%ld", s, min, max);
	if (out)
		*out = v;
	return MMT_OK;
}

int mmt_parse_u64(const char *s, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !all_digits(s))
		return mmt__fail(MMT_EINVAL, "'%.40s' is not a number", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || *end)
		return mmt__fail(MMT_EINVAL, "'%.40s' is too large", s);
	if (out)
		*out = v;
	return MMT_OK;
}

/* One element of an order list, "N" or "A-B" (A <= B), each 0..max. */
static int order_range(char *el, int max, long *a, long *b)
{
	char *dash = strchr(el, '-');

	if (dash)
		*dash = '\0';
	if (mmt_parse_long(el, 0, max, a))
		return -1;
	if (!dash) {
		*b = *a;
		return 0;
	}
	return mmt_parse_long(dash + 1, 0, max, b) || *b < *a ? -1 : 0;
}

int mmt_parse_orders(const char *s, int max, unsigned int flags, int *o, int max_n)
{
	unsigned long long seen = 0;
	char *copy, *tok, *save = NULL;
	int n = 0, bad = 0, full = 0;
	long a, b;

	if (max < 0 || max > MMT_ORDER_MAX)
		max = MMT_ORDER_MAX;
	copy = strdup(s ? s : "");
	if (!copy)
		return mmt__fail(MMT_EIO, "out of memory");
	/* strtok_r: empty elements (",0", "0,,2") are skipped */
	for (tok = strtok_r(copy, ",", &save); tok && !bad && !full; tok = strtok_r(NULL, ",", &save)) {
		bad = order_range(tok, max, &a, &b);
		for (; !bad && !full && a <= b; a++) {
			if (flags & MMT_ORDERS_SET)
				seen |= 1ULL << a;
			else if (!(full = n == max_n))
				o[n++] = (int)a;
		}
	}
	free(copy);
	for (a = 0; a <= max && !full; a++)
		if (((seen >> a) & 1) && !(full = n == max_n))
			o[n++] = (int)a;
	if (bad)
		return mmt__fail(MMT_EINVAL, "--orders '%.40s': want orders 0..%d like 0,2,4 or 0-%d",
				 s, max, max);
	if (full)
		return mmt__fail(MMT_EINVAL, "--orders: at most %d orders", max_n);
	if (!n)
		return mmt__fail(MMT_EINVAL, "--orders: empty list");
	return n;
}

/* Up to 4 unsigned integers separated by blanks in [a, b); count or -1. */
static int parse_ints(const char *t, size_t a, size_t b, unsigned long long *v, int max)
{
	int n = 0;

	while (a < b) {
		char num[24];
		size_t e = a;
		char *end;

		while (e < b && !is_sp(t[e]))
			e++;
		if (n == max || e - a >= sizeof(num))
			return -1;
		memcpy(num, t + a, e - a);
		num[e - a] = '\0';
		if (!all_digits(num))
			return -1;
		errno = 0;
		v[n++] = strtoull(num, &end, 10);
		if (errno == ERANGE)
			return -1;
		while (e < b && is_sp(t[e]))
			e++;
		a = e;
	}
	return n;
}

int mmt_parse_latency(const char *text, size_t len, struct mmt_latency *lat)
{
	size_t pos = 0, a, b;

	if (!lat || (!text && len))
		return MMT_EINVAL;
	memset(lat, 0, sizeof(*lat));
	if (!text_ok(text, len))
		return MMT_EINVAL;
	while (next_line(text, len, &pos, &a, &b)) {
		unsigned long long v[4];
		const char *colon;

		if (a == b || text[a] == '#')
			continue;
		colon = memchr(text + a, ':', b - a);
		if (colon) {
			size_t ke = (size_t)(colon - text), vs = ke + 1;

			while (ke > a && is_sp(text[ke - 1]))
				ke--;
			while (vs < b && is_sp(text[vs]))
				vs++;
			if (ke == a || ke - a >= sizeof(lat->kv[0].key) ||
			    lat->nkv == MMT_LAT_MAX_KV)
				continue;
			copy_field(lat->kv[lat->nkv].key, sizeof(lat->kv[0].key), text + a, ke - a);
			copy_field(lat->kv[lat->nkv].value, sizeof(lat->kv[0].value), text + vs, b - vs);
			lat->nkv++;
			continue;
		}
		if (parse_ints(text, a, b, v, 4) != 4 || lat->nb == MMT_LAT_MAX_BUCKETS)
			continue;
		lat->b[lat->nb].low = v[0];
		lat->b[lat->nb].high = v[1];
		lat->b[lat->nb].fault_around = v[2];
		lat->b[lat->nb].no_fault_around = v[3];
		lat->nb++;
	}
	return lat->nb;
}

/* The escape for byte c, into e (at least 7 bytes); returns its length. */
static size_t json_esc1(unsigned char c, char *e)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"':  memcpy(e, "\\\"", 2); return 2;
	case '\\': memcpy(e, "\\\\", 2); return 2;
	case '\b': memcpy(e, "\\b", 2); return 2;
	case '\f': memcpy(e, "\\f", 2); return 2;
	case '\n': memcpy(e, "\\n", 2); return 2;
	case '\r': memcpy(e, "\\r", 2); return 2;
	case '\t': memcpy(e, "\\t", 2); return 2;
	}
	if (c < 0x20 || c >= 0x7f) {
		/* bytes >= 0x80 as Latin-1: always valid JSON, never invalid UTF-8 */
		memcpy(e, "\\u00", 4);
		e[4] = hex[c >> 4];
		e[5] = hex[c & 15];
		return 6;
	}
	e[0] = (char)c;
	return 1;
}

size_t mmt_json_escape(char *buf, size_t len, const char *s)
{
	size_t need = 0, i, k;
	char e[8];

#define PUT(ch) do { if (need + 1 < len) buf[need] = (ch); need++; } while (0)
	PUT('"');
	for (i = 0; s && s[i]; i++) {
		size_t el = json_esc1((unsigned char)s[i], e);

		for (k = 0; k < el; k++)
			PUT(e[k]);
	}
	PUT('"');
#undef PUT
	if (len)
		buf[need < len ? need : len - 1] = '\0';
	return need;
}

/* The length of the valid UTF-8 sequence at s (1..4), or 0 if there is none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int cp, n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also the string's end */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

size_t mmt_prom_escape(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t need = 0, step, n, k;
	const char *e;

	while (*p) {
		step = n = utf8_len(p);	/* bytes read, bytes written */
		e = (const char *)p;
		if (*p == '\\' || *p == '"' || *p == '\n') {
			e = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : "\\n";
			n = 2;
		} else if (!n) {
			e = "\xef\xbf\xbd";	/* U+FFFD: label values are UTF-8 */
			step = 1;
			n = 3;
		}
		for (k = 0; k < n; k++, need++)
			if (need + 1 < len)
				buf[need] = e[k];
		p += step;
	}
	if (len)
		buf[need < len ? need : len - 1] = '\0';
	return need;
}

void mmt_json_str(FILE *f, const char *s)
{
	char e[8];
	size_t i;

	fputc('"', f);
	for (i = 0; s && s[i]; i++)
		fwrite(e, 1, json_esc1((unsigned char)s[i], e), f);
	fputc('"', f);
}
