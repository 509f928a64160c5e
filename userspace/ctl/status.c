// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl status: the module, the interface, the arch, the order in
 * force and the module's info, in text or as one JSON object.  What
 * is missing is left out of the text (or "unavailable"), null in JSON,
 * named in JSON's "missing" and in a note on stderr.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ctl.h"

static const char status_optstring[] = "+:jh";
static const struct option status_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_status(int argc, char **argv);

const struct cmd cmd_status = {
	"status", do_status, status_optstring, status_opts, "usage: " PROG " status [--json]",
	"Show whether the mmtune module is loaded, the arch, the current\n"
	"fault-around order and size, and whether the counters are on.\n"
	"  --json   one JSON object (the module's info under \"info\")\n"
};

struct status {
	int loaded, order, have_order, via, nkv, maxo, defo, sen, info_read;
	long ps;
	char version[64];
	const char *root, *arch;
	struct mmt_kv *kv;
	struct utsname un;
};

static int read_version(char *out, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/version", mmt_sysfs_module());
	f = fopen(p, "re");
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* The module's side: info, stats_enable, version.  0 or an exit code. */
static int read_module(struct status *s)
{
	const char *v;
	long l;

	s->kv = calloc(MAXKV, sizeof(*s->kv));
	if (!s->kv)
		return lib_fail(MMT_EIO);
	s->nkv = mmt_info(s->kv, MAXKV);
	if (s->nkv == MMT_ENODEBUGFS || s->nkv == MMT_EPERM) {
		/* the order came through the module parameter */
		fprintf(stderr, PROG ": note: no info: %s\n", mmt_errmsg());
		s->nkv = 0;
	} else if (s->nkv < 0) {
		return lib_fail(s->nkv);
	} else {
		s->info_read = 1;
	}
	if ((v = mmt_kv_get(s->kv, s->nkv, "arch")))
		s->arch = v;
	if ((v = mmt_kv_get(s->kv, s->nkv, "page_size")) && !mmt_parse_long(v, 1, LONG_MAX, &l))
		s->ps = l;
	s->sen = stats_enabled();
	read_version(s->version, sizeof(s->version));
	return 0;
}

/*
 * Everything status shows.  0, or the exit code of a failure (said on
 * stderr) that leaves nothing to show.  An order there is no way to read
 * (no module, and no debugfs or no kernel knob) is missing, not a
 * failure: a note, and the rest is shown.
 */
static int read_status(struct status *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->sen = s->maxo = s->defo = -1;
	s->loaded = mmt_module_loaded();
	s->root = mmt_debugfs_root();
	err = mmt_order_get(&s->order, &s->via);
	if (err == MMT_ENODEBUGFS || err == MMT_ENOMOD)
		fprintf(stderr, PROG ": note: no fault-around order: %s\n", mmt_errmsg());
	else if (err)
		return lib_fail(err);
	s->have_order = !err;
	s->ps = mmt_page_size();
	uname(&s->un);
	s->arch = s->un.machine;
	if (s->loaded) {
		err = read_module(s);
		if (err)
			return err;
	}
	if (mmt_max_order(&s->maxo))
		s->maxo = -1;
	if (mmt_default_order(&s->defo))
		s->defo = -1;
	return 0;
}

static void show_order(struct out *o, const struct status *s)
{
	unsigned long long bytes = (unsigned long long)s->ps << s->order;

	out_int(o, "page_size", "page_size:", s->ps, 1);
	if (!s->have_order) {
		out_str(o, "fault_around_order", "fault_around_order:", NULL, "unavailable");
		out_str(o, "fault_around_bytes", NULL, NULL, NULL);
		out_str(o, "via", NULL, NULL, NULL);
	} else {
		out_int(o, "fault_around_order", "fault_around_order:", s->order, 1);
		out_uint(o, "fault_around_bytes", "fault_around_bytes:", bytes, 1);
		out_str(o, "via", "via:", s->via ? "kernel" : "module",
			s->via ? "kernel (fault_around_bytes)" : "module");
	}
	out_int(o, "max_order", "max_order:", s->maxo, s->maxo >= 0);
	out_int(o, "default_order", "default_order:", s->defo, s->defo >= 0);
	out_bool(o, "stats_enable", s->sen);
	out_str(o, NULL, "stats:", NULL, s->sen < 0 ? "unavailable" : s->sen ? "on" : "off");
}

/* info: every line in text, the first of each key in JSON (null: no module). */
static void show_info(struct out *o, const struct status *s)
{
	int i;

	if (!s->loaded) {
		out_str(o, "info", NULL, NULL, NULL);
		return;
	}
	out_obj(o, "info");
	if (s->nkv > 0)
		out_text(o, "info:\n");
	for (i = 0; i < s->nkv; i++) {
		out_text(o, "  %s: %s\n", s->kv[i].key, s->kv[i].value);
		if (!mmt_kv_get(s->kv, i, s->kv[i].key))	/* duplicate: keep the first */
			out_str(o, s->kv[i].key, NULL, s->kv[i].value, NULL);
	}
	out_obj_end(o);
}

static void show_missing(struct out *o, const struct status *s)
{
	out_arr(o, "missing");
	if (!s->loaded)
		out_item(o, "module");
	if (!s->root)
		out_item(o, "debugfs");
	if (!s->have_order)
		out_item(o, "fault_around_order");
	if (s->loaded && !s->info_read)
		out_item(o, "info");
	if (s->loaded && s->sen < 0)
		out_item(o, "stats_enable");
	out_arr_end(o);
}

/* The BPF program that chooses the order (mmtunectl bpf): null without bpf/. */
static void show_bpf(struct out *o, const struct status *s)
{
	struct mmt_bpf_state b;
	char line[96];

	if (!s->loaded || mmt_bpf_read(&b)) {
		out_str(o, "bpf", s->loaded ? "bpf:" : NULL, NULL, "unavailable");
		return;
	}
	snprintf(line, sizeof(line), "%s, %llu calls decided, %llu refused",
		 b.attached ? "attached" : "none", b.calls, b.refused);
	out_obj(o, "bpf");
	out_text(o, "%-*s %s\n", o->width, "bpf:", line);
	out_bool(o, "attached", b.attached);
	out_uint(o, "calls", NULL, b.calls, 1);
	out_uint(o, "refused", NULL, b.refused, 1);
	out_obj_end(o);
}

static void show_status(struct out *o, const struct status *s)
{
	char mod[128];

	snprintf(mod, sizeof(mod), "%s%s%s%s", s->loaded ? "loaded" : "not loaded",
		 s->version[0] ? " (version " : "", s->version, s->version[0] ? ")" : "");
	out_obj(o, NULL);
	out_bool(o, "module_loaded", s->loaded);
	out_str(o, NULL, "module:", NULL, mod);
	out_str(o, "module_version", NULL, s->version[0] ? s->version : NULL, NULL);
	out_str(o, "debugfs", "debugfs:", s->root, s->root ? s->root : "not mounted");
	out_str(o, "interface", s->loaded ? "interface:" : NULL, s->loaded ? mmt_interface() : NULL,
		mmt_interface());
	out_str(o, "lockdown", "lockdown:", mmt_lockdown(), mmt_lockdown());
	out_str(o, "arch", "arch:", s->arch, s->arch);
	show_order(o, s);
	show_bpf(o, s);
	show_info(o, s);
	show_missing(o, s);
	out_obj_end(o);
}

static int do_status(int argc, char **argv)
{
	struct status s;
	struct out o;
	int json = 0, c, err;

	while ((c = getopt_long(argc, argv, status_optstring, status_opts, NULL)) != -1) {
		if (c != 'j')
			return bad_opt("status", c, argv);
		json = 1;
	}
	if (optind != argc)
		return usage_err("status", "unexpected argument '%s'", argv[optind]);
	err = read_status(&s);
	if (!err) {
		out_init(&o, json, 20);
		show_status(&o, &s);
	}
	free(s.kv);
	return err;
}
