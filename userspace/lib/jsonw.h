/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: objects, arrays, names and scalars are
 * written as they come, commas and (pretty mode) indentation are the
 * writer's business.  Strings are escaped as mmt_json_str() does.
 *
 *	struct jsonw jw;
 *
 *	jsonw_init(&jw, stdout);
 *	jsonw_start_object(&jw);
 *	jsonw_name(&jw, "order");
 *	jsonw_uint(&jw, 4);
 *	jsonw_end_object(&jw);		-> {"order":4} and a newline
 *
 * A top-level value ends with a newline (one document a line in compact
 * mode).  Nesting deeper than JSONW_DEPTH is a caller's bug: the levels
 * beyond it are written without separators.
 */
#ifndef MMTUNE_JSONW_H
#define MMTUNE_JSONW_H

#include <stdio.h>

#define JSONW_DEPTH	16

struct jsonw {
	FILE *f;
	int depth;
	int pretty;
	int named;			/* a name was written, its value is next */
	int flow;			/* the depth of the flow container, 0: none */
	int flow_next;			/* jsonw_flow(): the next container flows */
	unsigned char count[JSONW_DEPTH];	/* members so far, saturating */
};

void jsonw_init(struct jsonw *jw, FILE *f);
/* Two-space indentation and "name": value; off (compact) by default. */
void jsonw_pretty(struct jsonw *jw, int on);
/*
 * The next object or array, and everything in it, on one line with ", "
 * between members and ": " after names: a record a line in a pretty
 * document, {"order": 4, "list": [1, 2]}.
 */
void jsonw_flow(struct jsonw *jw);

void jsonw_start_object(struct jsonw *jw);
void jsonw_end_object(struct jsonw *jw);
void jsonw_start_array(struct jsonw *jw);
void jsonw_end_array(struct jsonw *jw);
/* The name of the next member (in an object). */
void jsonw_name(struct jsonw *jw, const char *name);

/* Scalars; jsonw_string(NULL) writes null. */
void jsonw_string(struct jsonw *jw, const char *s);
void jsonw_uint(struct jsonw *jw, unsigned long long v);
void jsonw_int(struct jsonw *jw, long long v);
void jsonw_bool(struct jsonw *jw, int v);
void jsonw_null(struct jsonw *jw);
/* A double printed with fmt ("%.6f"); NaN and infinities become null. */
void jsonw_float_fmt(struct jsonw *jw, const char *fmt, double v);
/* A token the caller has checked is a JSON number, written as it is. */
void jsonw_number_raw(struct jsonw *jw, const char *num);

/* name + value in one call */
void jsonw_string_field(struct jsonw *jw, const char *name, const char *s);
void jsonw_uint_field(struct jsonw *jw, const char *name, unsigned long long v);
void jsonw_int_field(struct jsonw *jw, const char *name, long long v);
void jsonw_bool_field(struct jsonw *jw, const char *name, int v);
void jsonw_null_field(struct jsonw *jw, const char *name);

#endif
