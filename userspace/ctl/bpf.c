// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl bpf: the BPF program that chooses the fault-around order
 * (module/mmtune_bpf.h, docs/bpf.md): load one from a clang -target bpf
 * object, unload it, show the module's bpf/ counters, or check an object
 * without loading it.  The object's reading and the bpf(2) calls are
 * libmmtune's (lib/bpfobj.c, bpfbtf.c, bpfload.c): no libbpf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

#define LOG_SIZE	(1u << 20)	/* the verifier's log of a refused program */
#define LOG_TAIL	30		/* its lines shown */

static const char bpf_optstring[] = ":jp:m:h";	/* options anywhere: an OBJ never starts with '-' */
static const struct option bpf_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pin", required_argument, NULL, 'p' },
	{ "map", required_argument, NULL, 'm' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_bpf(int argc, char **argv);

const struct cmd cmd_bpf = {
	"bpf", do_bpf, bpf_optstring, bpf_opts,
	"usage: " PROG " bpf [--json] [--pin PATH] [status | load OBJ [--map NAME:KEY=VALUE]... | unload | check OBJ]",
	"The BPF program that chooses the fault-around order (docs/bpf.md): one a machine,\n"
	"a writable raw tracepoint program (MMTUNE_ORDER_PROG, module/mmtune_bpf.h).\n"
	"  status (default, or list)  attached, calls, refused, decisions per order, the pin\n"
	"  load OBJ     load OBJ (clang -O2 -g -target bpf -c), attach it to the module's\n"
	"               tracepoint (bpf/tracepoint) and pin the link (needs root, bpffs)\n"
	"  unload       remove the pin: the program goes with it\n"
	"  check OBJ    what load would do, without bpf(2): the program, its maps and\n"
	"               relocations; a refusal says what to change\n"
	"  --map NAME:KEY=VALUE  load: write VALUE at KEY into the object's map NAME\n"
	"               before it is attached (integers; repeat for more)\n"
	"  --pin PATH   the pin (default " MMT_BPF_PIN_DEFAULT ")\n"
	"  --json       one JSON object\n"
	"Exit status: 0 done; 1 could not (no module or one without bpf/, a program\n"
	"attached, not root, no bpffs, no such tracepoint); 2 bad usage, or an object\n"
	"the loader, the verifier or the kernel refuses.\n"
};

#define MAP_SETS	64	/* --map options a load takes */

struct map_set {
	char name[64];
	unsigned long long key, value;
};

struct bpf_args {
	int json;
	const char *pin;
	const char *obj;
	struct map_set set[MAP_SETS];
	int nset;
};

/* --map NAME:KEY=VALUE into @a: 0, or the usage error's exit code */
static int parse_map(struct bpf_args *a, const char *arg)
{
	struct map_set *m = &a->set[a->nset];
	const char *colon = strchr(arg, ':'), *eq = colon ? strchr(colon, '=') : NULL;
	char *end;

	if (a->nset >= MAP_SETS)
		return usage_err("bpf", "at most %d --map", MAP_SETS);
	if (!colon || !eq || colon == arg || (size_t)(colon - arg) >= sizeof(m->name))
		return usage_err("bpf", "--map '%.60s': want NAME:KEY=VALUE", arg);
	memcpy(m->name, arg, (size_t)(colon - arg));
	m->name[colon - arg] = '\0';
	errno = 0;
	m->key = strtoull(colon + 1, &end, 0);
	if (end != eq || colon + 1 == eq || errno || colon[1] == '-')
		return usage_err("bpf", "--map '%.60s': KEY is not a number", arg);
	m->value = strtoull(eq + 1, &end, 0);
	if (*end || !eq[1] || errno || eq[1] == '-')
		return usage_err("bpf", "--map '%.60s': VALUE is not a number", arg);
	a->nset++;
	return 0;
}

/* The object as check and load show it. */
static void show_obj(struct out *o, const char *path, const struct mmt_bpf_obj *b)
{
	const char *tn;
	int i;

	out_str(o, "object", "object:", path, path);
	out_str(o, "program", "program:", b->name, b->name);
	out_str(o, "section", "section:", b->section, b->section);
	out_uint(o, "instructions", "instructions:", b->ninsns, 1);
	out_str(o, "license", "license:", b->license, b->license);
	out_arr(o, "maps");
	for (i = 0; i < b->nmaps; i++) {
		const struct mmt_bpf_map *m = &b->maps[i];

		tn = mmt_bpf_map_type_name(m->type);
		out_text(o, "%-*s %s %s key %u value %u max_entries %u flags %#x\n", o->width, "map:",
			 m->name, tn ? tn : "?", m->key_size, m->value_size, m->max_entries, m->flags);
		out_obj(o, NULL);
		out_str(o, "name", NULL, m->name, NULL);
		out_uint(o, "type", NULL, m->type, 1);
		out_str(o, "type_name", NULL, tn, NULL);
		out_uint(o, "key_size", NULL, m->key_size, 1);
		out_uint(o, "value_size", NULL, m->value_size, 1);
		out_uint(o, "max_entries", NULL, m->max_entries, 1);
		out_uint(o, "flags", NULL, m->flags, 1);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_arr(o, "relocations");
	for (i = 0; i < b->nrelocs; i++) {
		const char *mn = b->maps[b->relocs[i].map].name;

		out_text(o, "%-*s instruction %u: ld_imm64 of map %s\n", o->width, "relocation:",
			 b->relocs[i].insn, mn);
		out_obj(o, NULL);
		out_uint(o, "insn", NULL, b->relocs[i].insn, 1);
		out_str(o, "map", NULL, mn, NULL);
		out_obj_end(o);
	}
	out_arr_end(o);
}

static int bpf_check(const struct bpf_args *a)
{
	struct mmt_bpf_obj b;
	struct mmt_bpf_state st;
	struct out o;
	int err = mmt_bpf_obj_open(a->obj, &b), rc = 0;

	if (err) {
		rc = lib_fail(err);
	} else {
		out_init(&o, a->json, 14);
		out_obj(&o, NULL);
		show_obj(&o, a->obj, &b);
		/* where load would attach it, when this machine's module says */
		err = mmt_bpf_read(&st);
		out_str(&o, "tracepoint", "tracepoint:", err ? NULL : st.tracepoint,
			err ? "the module's " MMT_ABI_BPF_DIR "/tracepoint, read at load" : st.tracepoint);
		out_obj_end(&o);
	}
	mmt_bpf_obj_close(&b);
	return rc;
}

/* The log's last lines, on stderr: where the verifier says what it refused. */
static void log_tail(const char *log)
{
	const char *p = log + strlen(log);
	int n = 0;

	while (p > log && p[-1] == '\n')
		p--;
	while (p > log && n <= LOG_TAIL)
		if (*--p == '\n')
			n++;
	if (*p == '\n')
		p++;
	if (*p)
		fprintf(stderr, PROG ": the verifier's log%s:\n%s%s", p > log ? ", its end" : "", p,
			p[strlen(p) - 1] == '\n' ? "" : "\n");
}

/* What load checks before any bpf(2): the module, one program, the pin's place. */
static int load_ready(const struct bpf_args *a, struct mmt_bpf_state *st)
{
	int err = mmt_bpf_read(st);

	if (err)
		return lib_fail(err);
	if (st->attached) {
		fprintf(stderr, PROG ": a program is attached: " PROG " bpf unload first\n");
		return MMT_EXIT_FAIL;
	}
	err = mmt_bpf_fs(a->pin);
	if (err)
		return lib_fail(err);
	if (!access(a->pin, F_OK)) {
		fprintf(stderr, PROG ": %s exists: " PROG " bpf unload%s%s first\n", a->pin,
			strcmp(a->pin, MMT_BPF_PIN_DEFAULT) ? " --pin " : "",
			strcmp(a->pin, MMT_BPF_PIN_DEFAULT) ? a->pin : "");
		return MMT_EXIT_FAIL;
	}
	return 0;
}

/* Maps, program, attach, pin: 0 or an exit code after saying why. */
static int load_obj(const struct bpf_args *a, struct mmt_bpf_obj *b, const char *tp)
{
	char *log = malloc(LOG_SIZE);
	int err, i;

	if (!log)
		return lib_fail(MMT_EIO);
	err = mmt_bpf_obj_load(b, log, LOG_SIZE);
	if (err)
		log_tail(log);
	free(log);
	for (i = 0; !err && i < a->nset; i++)
		err = mmt_bpf_map_set(b, a->set[i].name, a->set[i].key, a->set[i].value);
	if (!err)
		err = mmt_bpf_attach(b, tp, a->pin);
	return err ? lib_fail(err) : 0;
}

static int bpf_load(const struct bpf_args *a)
{
	struct mmt_bpf_obj b;
	struct mmt_bpf_state st;
	struct out o;
	int err = mmt_bpf_obj_open(a->obj, &b), rc;

	rc = err ? lib_fail(err) : load_ready(a, &st);
	if (!rc)
		rc = load_obj(a, &b, st.tracepoint);
	if (!rc) {
		out_init(&o, a->json, 14);
		out_obj(&o, NULL);
		show_obj(&o, a->obj, &b);
		out_str(&o, "tracepoint", "tracepoint:", st.tracepoint, st.tracepoint);
		out_str(&o, "pin", "pin:", a->pin, a->pin);
		out_obj_end(&o);
	}
	mmt_bpf_obj_close(&b);
	return rc;
}

static int bpf_unload(const struct bpf_args *a)
{
	struct out o;
	int err = mmt_bpf_unpin(a->pin);

	if (err)
		return lib_fail(err);
	out_init(&o, a->json, 14);
	out_obj(&o, NULL);
	out_str(&o, "unloaded", "unloaded:", a->pin, a->pin);
	out_obj_end(&o);
	return 0;
}

static void show_state(struct out *o, const struct mmt_bpf_state *st, const char *pin)
{
	char line[32];
	int i;

	out_bool(o, "attached", st->attached);
	out_str(o, NULL, "attached:", NULL, st->attached ? "yes" : "no");
	out_str(o, "tracepoint", "tracepoint:", st->tracepoint, st->tracepoint);
	out_uint(o, "calls", "calls:", st->calls, 1);
	out_uint(o, "refused", "refused:", st->refused, 1);
	out_text(o, "decisions:\n");
	out_arr(o, "decisions");
	for (i = 0; i < st->ndecisions; i++) {
		snprintf(line, sizeof(line), "  order %d", i);
		out_uint(o, NULL, line, st->decisions[i], 1);
		if (out_json(o))
			jsonw_uint(&o->jw, st->decisions[i]);
	}
	out_arr_end(o);
	out_str(o, "pin", "pin:", pin, pin ? pin : "none");
}

static int bpf_status(const struct bpf_args *a)
{
	struct mmt_bpf_state st;
	struct out o;
	int err = mmt_bpf_read(&st);

	if (err)
		return lib_fail(err);
	out_init(&o, a->json, 14);
	out_obj(&o, NULL);
	show_state(&o, &st, access(a->pin, F_OK) ? NULL : a->pin);
	out_obj_end(&o);
	return 0;
}

/* The subcommand and its operands: 0, or the usage error's exit code. */
static int parse_sub(int nargs, char **args, struct bpf_args *a, const char **sub)
{
	*sub = nargs ? args[0] : "status";
	if (!strcmp(*sub, "list"))
		*sub = "status";
	if (!strcmp(*sub, "load") || !strcmp(*sub, "check")) {
		if (nargs != 2)
			return usage_err("bpf", nargs < 2 ? "%s needs OBJ" : "%s takes one OBJ", *sub);
		a->obj = args[1];
		return 0;
	}
	if (strcmp(*sub, "status") && strcmp(*sub, "unload"))
		return usage_err("bpf", "unknown subcommand '%.40s'", *sub);
	if (nargs > 1)
		return usage_err("bpf", "too many arguments");
	return 0;
}

static int do_bpf(int argc, char **argv)
{
	struct bpf_args a = { .pin = MMT_BPF_PIN_DEFAULT };
	const char *sub;
	int c, rc;

	while ((c = getopt_long(argc, argv, bpf_optstring, bpf_opts, NULL)) != -1) {
		if (c == 'j')
			a.json = 1;
		else if (c == 'p' && *optarg)
			a.pin = optarg;
		else if (c == 'm' && (rc = parse_map(&a, optarg)))
			return rc;
		else if (c == 'm')
			continue;
		else
			return c == 'p' ? usage_err("bpf", "--pin needs a path") : bad_opt("bpf", c, argv);
	}
	rc = parse_sub(argc - optind, argv + optind, &a, &sub);
	if (rc)
		return rc;
	if (!strcmp(sub, "check"))
		return bpf_check(&a);
	if (a.nset && strcmp(sub, "load"))
		return usage_err("bpf", "--map is for load");
	if (!strcmp(sub, "load"))
		return bpf_load(&a);
	if (!strcmp(sub, "unload"))
		return bpf_unload(&a);
	return bpf_status(&a);
}
