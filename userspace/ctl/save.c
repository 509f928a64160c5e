// SPDX-License-Identifier: GPL-2.0
/*
 * mmtunectl save: the settings in force, in the files the boot applies
 * (docs/admin-guide.md, "Settings that survive a reboot").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"

static const char save_optstring[] = "+:r:sh";
static const struct option save_opts[] = {
	{ "root", required_argument, NULL, 'r' },
	{ "stdout", no_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int do_save(int argc, char **argv);

const struct cmd cmd_save = {
	"save", do_save, save_optstring, save_opts,
	"usage: " PROG " save [--root DIR] [--stdout]",
	"Write the settings in force to /etc/modprobe.d/mmtune.conf and\n"
	"/etc/mmtune/policy, for the next boot (the old files stay as FILE.bak).\n"
	"  --root DIR       write under DIR instead of /\n"
	"  --stdout         print both files instead of writing them\n"
};


/*
 * Replace path with text atomically (a temporary file renamed over it);
 * what was there, if different, stays as path.bak.  text NULL: the file
 * goes (kept as path.bak).  0, or an exit code after saying why.
 */
static int save_file(const char *path, const char *text)
{
	char tmp[PATH_MAX], bak[PATH_MAX], old[8192];
	int fd = -1, have_old;
	long n = -1;
	FILE *f;

	/* mkostemp's: never another writer's file, nor a link planted there */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp) ||
	    (size_t)snprintf(bak, sizeof(bak), "%s.bak", path) >= sizeof(bak))
		return usage_err("save", "path too long: %.80s", path);
	f = fopen(path, "r");
	have_old = f != NULL;
	if (f) {
		n = (long)fread(old, 1, sizeof(old) - 1, f);
		old[n] = '\0';
		fclose(f);
	}
	if (text && have_old && !strcmp(old, text))
		return 0;	/* already saved */
	if (have_old && (link(path, bak) && (errno != EEXIST ||
	    rename(path, bak) || link(bak, path)))) {
		fprintf(stderr, PROG ": save: cannot keep %s as %s: %s\n", path, bak, strerror(errno));
		return MMT_EXIT_FAIL;
	}
	if (!text) {
		if (have_old && unlink(path)) {
			fprintf(stderr, PROG ": save: %s: %s\n", path, strerror(errno));
			return MMT_EXIT_FAIL;
		}
		return 0;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, 0644)) {
		close(fd);
		unlink(tmp);
		fd = -1;
	}
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fsync(fd) || close(fd) || rename(tmp, path)) {
		fprintf(stderr, PROG ": save: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return MMT_EXIT_FAIL;
	}
	return 0;
}


/* Append to a fixed buffer; 0, or -1 once it would overflow. */
static int __attribute__((format(printf, 3, 4))) cat_text(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

/* /etc/modprobe.d/mmtune.conf: the options that differ from a plain load. */
static void save_conf(char *conf, size_t len, int order)
{
	char v[64], opt[256] = "";

	snprintf(opt, sizeof(opt), " fault_around_order=%d", order);
	param_value("stats_enable", v, sizeof(v));
	if (!strcmp(v, "1"))
		strcat(opt, " stats_enable=1");
	param_value("latency_enable", v, sizeof(v));
	if (!strcmp(v, "0"))
		strcat(opt, " latency_enable=0");
	param_value("mapped_enable", v, sizeof(v));
	if (!strcmp(v, "1"))
		strcat(opt, " mapped_enable=1");
	/* what an order=auto rule learns from, and judges with after a reboot */
	param_value("usefulness_enable", v, sizeof(v));
	if (!strcmp(v, "1"))
		strcat(opt, " usefulness_enable=1");
	param_value("pfn_valid/mode", v, sizeof(v));
	if (v[0] && strcmp(v, "off") && strspn(v, "abcdefghijklmnopqrstuvwxyz") == strlen(v))
		cat_text(opt, sizeof(opt), " pfn_valid_mode=%s", v);
	conf[0] = '\0';
	cat_text(conf, len,
		 "# /etc/modprobe.d/mmtune.conf: written by 'mmtunectl save' (the previous\n"
		 "# file, if any, is mmtune.conf.bak). Options modprobe gives mmtune at\n"
		 "# every load (docs/admin-guide.md, \"Settings that survive a reboot\").\n"
		 "options mmtune%s\n", opt);
}

/*
 * /etc/mmtune/policy: the rules but pid= ones (a process number means
 * nothing after a reboot); "" when none is left.  0 or an exit code.
 */
static int save_policy(char *pol, size_t len)
{
	struct mmt_policy *ps = calloc(1, sizeof(*ps));
	int i, skipped = 0, rc;

	if (!ps)
		return lib_fail(MMT_EIO);
	pol[0] = '\0';
	/* unreadable is not empty: /etc/mmtune/policy stays as it is */
	rc = policy_absent() ? 0 : -read_policy(ps);
	if (rc) {
		free(ps);
		return rc;	/* read_policy said why; nothing written */
	}
	if (ps->nr) {
		cat_text(pol, len,
			 "# /etc/mmtune/policy: written by 'mmtunectl save'; loaded at boot by\n"
			 "# mmtune.service ('mmtunectl policy load'). One rule a line, first match wins.\n");
		for (i = 0; i < ps->nr; i++) {
			if (!strncmp(ps->r[i].match, "pid=", 4)) {
				skipped++;
				continue;
			}
			/*
			 * an auto rule as auto:N, N the order it learned: it
			 * starts there after a reboot, not at the default; an
			 * auto:file rule as it is (its files' orders are not
			 * kept)
			 */
			if (mmt_prule_is_auto(&ps->r[i]) && strcmp(ps->r[i].order, "auto:file") &&
			    mmt_prule_order(&ps->r[i]) >= 0 ?
			    cat_text(pol, len, "%s order=auto:%d\n", ps->r[i].match,
				     mmt_prule_order(&ps->r[i])) :
			    cat_text(pol, len, "%s order=%s\n", ps->r[i].match, ps->r[i].order)) {
				free(ps);
				fprintf(stderr, PROG ": save: the policy does not fit %d bytes\n", LOAD_MAX);
				return MMT_EXIT_FAIL;
			}
		}
		if (skipped == ps->nr)
			pol[0] = '\0';
	}
	free(ps);
	if (skipped)
		fprintf(stderr, PROG ": note: save: %d pid= rule(s) left out (a process does not survive a reboot)\n",
			skipped);
	return 0;
}

static int do_save(int argc, char **argv)
{
	static char conf[4096], pol[LOAD_MAX];
	char path[PATH_MAX];
	const char *root = "";
	int c, err, order, via, to_stdout = 0, rc;

	while ((c = getopt_long(argc, argv, save_optstring, save_opts, NULL)) != -1) {
		switch (c) {
		case 'r': root = optarg; break;
		case 's': to_stdout = 1; break;
		default: return bad_opt("save", c, argv);
		}
	}
	if (optind != argc)
		return usage_err("save", "unexpected argument '%s'", argv[optind]);
	if (!mmt_module_loaded()) {
		fprintf(stderr, PROG ": save: mmtune module is not loaded: nothing to save\n");
		return MMT_EXIT_FAIL;
	}
	err = mmt_order_get(&order, &via);
	if (err)
		return lib_fail(err);
	save_conf(conf, sizeof(conf), order);
	rc = save_policy(pol, sizeof(pol));
	if (rc)
		return rc;
	if (to_stdout) {
		fputs(conf, stdout);
		fputs(pol[0] ? pol : "# no policy rules: no /etc/mmtune/policy\n", stdout);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/etc/modprobe.d/mmtune.conf", root);
	rc = save_file(path, conf);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/etc/mmtune", root);
	if (pol[0] && mkdir(path, 0755) && errno != EEXIST) {
		fprintf(stderr, PROG ": save: %s: %s\n", path, strerror(errno));
		return MMT_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/etc/mmtune/policy", root);
	return save_file(path, pol[0] ? pol : NULL);
}
