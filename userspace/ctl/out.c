// SPDX-License-Identifier: GPL-2.0
/*
 * The output emitter of ctl.h: a verb renders its result once, the
 * backend chosen by --json decides what reaches stdout.  JSON goes
 * through the library's writer (lib/jsonw.h), compact, one document a
 * line; text is the verb's lines as they have always been printed.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

void out_init(struct out *o, int json, int width)
{
	jsonw_init(&o->jw, stdout);
	o->json = json;
	o->width = width;
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* A member's name, or nothing for an array's element or the document. */
static void json_key(struct out *o, const char *key)
{
	if (key)
		jsonw_name(&o->jw, key);
}

void out_obj(struct out *o, const char *key)
{
	if (!o->json)
		return;
	json_key(o, key);
	jsonw_start_object(&o->jw);
}

void out_obj_end(struct out *o)
{
	if (o->json)
		jsonw_end_object(&o->jw);
}

void out_arr(struct out *o, const char *key)
{
	if (!o->json)
		return;
	json_key(o, key);
	jsonw_start_array(&o->jw);
}

void out_arr_end(struct out *o)
{
	if (o->json)
		jsonw_end_array(&o->jw);
}

void out_str(struct out *o, const char *key, const char *label, const char *val, const char *text)
{
	if (o->json && key)
		jsonw_string_field(&o->jw, key, val);
	else if (!o->json && label && text)
		printf("%-*s %s\n", o->width, label, text);
}

void out_int(struct out *o, const char *key, const char *label, long long v, int ok)
{
	if (o->json && key) {
		jsonw_name(&o->jw, key);
		if (ok)
			jsonw_int(&o->jw, v);
		else
			jsonw_null(&o->jw);
	} else if (!o->json && label && ok) {
		printf("%-*s %lld\n", o->width, label, v);
	}
}

void out_uint(struct out *o, const char *key, const char *label, unsigned long long v, int ok)
{
	if (o->json && key) {
		jsonw_name(&o->jw, key);
		if (ok)
			jsonw_uint(&o->jw, v);
		else
			jsonw_null(&o->jw);
	} else if (!o->json && label && ok) {
		printf("%-*s %llu\n", o->width, label, v);
	}
}

void out_bool(struct out *o, const char *key, int v)
{
	if (!o->json)
		return;
	jsonw_name(&o->jw, key);
	if (v < 0)
		jsonw_null(&o->jw);
	else
		jsonw_bool(&o->jw, v);
}

void out_value(struct out *o, const char *key, const char *v)
{
	unsigned long long u;

	if (!o->json)
		return;
	jsonw_name(&o->jw, key);
	if (!mmt_parse_u64(v, &u))
		jsonw_uint(&o->jw, u);
	else if (!strcmp(v, "unavailable"))
		jsonw_null(&o->jw);
	else
		jsonw_string(&o->jw, v);
}

void out_float(struct out *o, const char *key, const char *fmt, double v)
{
	if (!o->json)
		return;
	jsonw_name(&o->jw, key);
	jsonw_float_fmt(&o->jw, fmt, v);
}

void out_item(struct out *o, const char *s)
{
	if (o->json)
		jsonw_string(&o->jw, s);
}
