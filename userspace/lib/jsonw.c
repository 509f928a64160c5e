// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer of jsonw.h.  Every value goes through begin_value(),
 * which writes the separator the position needs: a comma between the
 * members of an object or array, nothing after a name (its ':' is
 * written with the name).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>

#include "jsonw.h"
#include "libmmtune.h"

void jsonw_init(struct jsonw *jw, FILE *f)
{
	jw->f = f;
	jw->depth = 0;
	jw->pretty = 0;
	jw->named = 0;
	jw->flow = 0;
	jw->flow_next = 0;
	jw->count[0] = 0;
}

void jsonw_pretty(struct jsonw *jw, int on)
{
	jw->pretty = on;
}

void jsonw_flow(struct jsonw *jw)
{
	jw->flow_next = 1;
}

static int in_flow(const struct jsonw *jw)
{
	return jw->flow && jw->depth >= jw->flow;
}

static void indent(struct jsonw *jw)
{
	int i;

	fputc('\n', jw->f);
	for (i = 0; i < jw->depth; i++)
		fputs("  ", jw->f);
}

/* The separator before a value (or a name) at the current level. */
static void separate(struct jsonw *jw)
{
	unsigned char *n;

	if (jw->depth <= 0 || jw->depth > JSONW_DEPTH)
		return;
	n = &jw->count[jw->depth - 1];
	if (*n)
		fputs(in_flow(jw) ? ", " : ",", jw->f);
	if (*n < 255)
		(*n)++;
	if (jw->pretty && !in_flow(jw))
		indent(jw);
}

static void begin_value(struct jsonw *jw)
{
	if (jw->named)
		jw->named = 0;
	else
		separate(jw);
}

/* After a value: a top-level one ends the document. */
static void end_value(struct jsonw *jw)
{
	if (!jw->depth)
		fputc('\n', jw->f);
}

void jsonw_name(struct jsonw *jw, const char *name)
{
	separate(jw);
	mmt_json_str(jw->f, name);
	fputs(jw->pretty || in_flow(jw) ? ": " : ":", jw->f);
	jw->named = 1;
}

static void open_level(struct jsonw *jw, char c)
{
	begin_value(jw);
	fputc(c, jw->f);
	if (jw->depth < JSONW_DEPTH)
		jw->count[jw->depth] = 0;
	jw->depth++;
	if (jw->flow_next && !jw->flow)
		jw->flow = jw->depth;
	jw->flow_next = 0;
}

static void close_level(struct jsonw *jw, char c)
{
	int had = jw->depth > 0 && jw->depth <= JSONW_DEPTH && jw->count[jw->depth - 1];
	int flowed = in_flow(jw);

	if (jw->flow == jw->depth)
		jw->flow = 0;
	if (jw->depth > 0)
		jw->depth--;
	if (jw->pretty && had && !flowed)
		indent(jw);
	fputc(c, jw->f);
	end_value(jw);
}

void jsonw_start_object(struct jsonw *jw)
{
	open_level(jw, '{');
}

void jsonw_end_object(struct jsonw *jw)
{
	close_level(jw, '}');
}

void jsonw_start_array(struct jsonw *jw)
{
	open_level(jw, '[');
}

void jsonw_end_array(struct jsonw *jw)
{
	close_level(jw, ']');
}

void jsonw_string(struct jsonw *jw, const char *s)
{
	begin_value(jw);
	if (s)
		mmt_json_str(jw->f, s);
	else
		fputs("null", jw->f);
	end_value(jw);
}

void jsonw_uint(struct jsonw *jw, unsigned long long v)
{
	begin_value(jw);
	fprintf(jw->f, "%llu", v);
	end_value(jw);
}

void jsonw_int(struct jsonw *jw, long long v)
{
	begin_value(jw);
	fprintf(jw->f, "%lld", v);
	end_value(jw);
}

void jsonw_bool(struct jsonw *jw, int v)
{
	begin_value(jw);
	fputs(v ? "true" : "false", jw->f);
	end_value(jw);
}

void jsonw_null(struct jsonw *jw)
{
	begin_value(jw);
	fputs("null", jw->f);
	end_value(jw);
}

void jsonw_float_fmt(struct jsonw *jw, const char *fmt, double v)
{
	begin_value(jw);
	if (isfinite(v))
		fprintf(jw->f, fmt, v);
	else
		fputs("null", jw->f);
	end_value(jw);
}

void jsonw_number_raw(struct jsonw *jw, const char *num)
{
	begin_value(jw);
	fputs(num, jw->f);
	end_value(jw);
}

void jsonw_string_field(struct jsonw *jw, const char *name, const char *s)
{
	jsonw_name(jw, name);
	jsonw_string(jw, s);
}

void jsonw_uint_field(struct jsonw *jw, const char *name, unsigned long long v)
{
	jsonw_name(jw, name);
	jsonw_uint(jw, v);
}

void jsonw_int_field(struct jsonw *jw, const char *name, long long v)
{
	jsonw_name(jw, name);
	jsonw_int(jw, v);
}

void jsonw_bool_field(struct jsonw *jw, const char *name, int v)
{
	jsonw_name(jw, name);
	jsonw_bool(jw, v);
}

void jsonw_null_field(struct jsonw *jw, const char *name)
{
	jsonw_name(jw, name);
	jsonw_null(jw);
}
