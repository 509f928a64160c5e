// SPDX-License-Identifier: GPL-2.0
/*
 * The module's <debugfs>/mmtune/rss (module/rss.c, docs/ABI/debugfs-mmtune)
 * found, read whole and parsed a line at a time: what `mmtunectl rss`
 * (rss.c) and `stats --prometheus --rss` (rssrule.c) share, with the
 * selection written before a read (pid=, cgroup=, rule=).  What a failed
 * open or selection means stays the caller's to say.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

#define READ_MAX	(1UL << 30)	/* a larger read is refused, not cut */

int rss_path(char *path, size_t n)
{
	const char *root;

	if (!mmt_module_loaded())	/* the library's "not loaded: modprobe" */
		return lib_fail(mmt_errno_to_err(ENOENT, "rss", NULL));
	root = mmt_debugfs_root();
	if (!root) {
		fprintf(stderr, PROG ": debugfs is not mounted: run 'mount -t debugfs none /sys/kernel/debug'\n");
		return MMT_EXIT_FAIL;
	}
	snprintf(path, n, "%s/mmtune/rss", root);
	return 0;
}

int rss_open_fail(const char *path, int e)
{
	if (e == ENOENT) {
		fprintf(stderr, PROG ": this mmtune module has no rss file (see '" PROG " status')\n");
		return MMT_EXIT_FAIL;
	}
	return lib_fail(mmt_errno_to_err(e, path, NULL));
}

int rss_open_sel(const char *path, int sel)
{
	/*
	 * O_APPEND: the module's write handler takes no position (the file's
	 * stays 0); a regular file standing for it in tests keeps its text,
	 * the selection after it (a line the parser skips).
	 */
	return open(path, sel ? O_RDWR | O_APPEND | O_CLOEXEC : O_RDONLY | O_CLOEXEC);
}

int rss_write_sel(int fd, const char *line)
{
	size_t n = strlen(line);
	ssize_t w;

	do
		w = write(fd, line, n);
	while (w < 0 && errno == EINTR);
	if (w >= 0 && (size_t)w == n)
		return 0;
	return w < 0 ? errno : EIO;
}

/* A buffer twice *cap bytes, or NULL (errno set; *b freed). */
static char *twice(char *b, size_t *cap)
{
	char *nb = *cap < READ_MAX ? realloc(b, *cap * 2) : NULL;

	if (!nb) {
		free(b);
		errno = *cap < READ_MAX ? ENOMEM : EFBIG;
		return NULL;
	}
	*cap *= 2;
	return nb;
}

/* The whole file from offset 0 into *buf (NUL-terminated): 0, or -1 with errno. */
static int read_all(int fd, char **buf)
{
	size_t cap = 1 << 20, got = 0;
	char *b = lseek(fd, 0, SEEK_SET) < 0 ? NULL : malloc(cap);
	ssize_t r;

	if (!b)
		return -1;	/* errno: lseek's, or malloc's ENOMEM */
	for (;;) {
		if (got + 1 == cap && !(b = twice(b, &cap)))
			return -1;
		r = read(fd, b + got, cap - 1 - got);
		if (r > 0)
			got += (size_t)r;
		else if (!r || errno != EINTR)
			break;
	}
	if (r < 0) {
		r = errno;
		free(b);
		errno = (int)r;
		return -1;
	}
	b[got] = '\0';
	*buf = b;
	return 0;
}

int rss_read_all(int fd, const char *path, char **buf)
{
	if (!read_all(fd, buf))
		return 0;
	if (errno != ENOMEM)
		return lib_fail(mmt_errno_to_err(errno, path, NULL));
	fprintf(stderr, PROG ": rss: out of memory\n");
	return MMT_EXIT_FAIL;
}

int rss_header(char *buf, struct rss_head *h, char **save)
{
	char *l = strtok_r(buf, "\n", save);

	if (!l || sscanf(l, "# available %d usefulness_enable %d page_size %llu", &h->available,
			 &h->useful, &h->page_size) != 3 || !h->page_size) {
		fprintf(stderr, PROG ": rss: unexpected content in the module's rss file\n");
		return MMT_EXIT_FAIL;
	}
	return 0;
}

/* Undo the \ooo escapes of module/rss.c (space, tab, newline, backslash) in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/*
 * The fields after r's NAME or PATH cut off it (the module escapes their
 * spaces): a file's "order=N" (under an order=auto:file rule) into
 * r->order; any other, a later module's, skipped.
 */
static void tail_fields(struct rline *r)
{
	char *t = strchr(r->name, ' '), *save;
	long v;

	if (!t)
		return;
	*t++ = '\0';
	for (t = strtok_r(t, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (r->file && !strncmp(t, "order=", 6) && !mmt_parse_long(t + 6, 0, 63, &v))
			r->order = (int)v;
}

/*
 * "pid=N mapped=M untouched=U comm=NAME", "... file=PATH [order=O]" or
 * "pid=N busy comm=NAME" into r: 0, or -1 for a line of another form
 * (skipped).
 */
static int parse_line(char *l, struct rline *r)
{
	char *e;
	int n = -1;

	memset(r, 0, sizeof(*r));
	r->order = -1;
	if (strncmp(l, "pid=", 4))
		return -1;
	r->pid = strtol(l + 4, &e, 10);
	if (e == l + 4 || *e != ' ' || r->pid <= 0)
		return -1;
	l = e + 1;
	if (!strncmp(l, "busy comm=", 10)) {
		r->busy = 1;
		r->name = l + 10;
	} else if (sscanf(l, "mapped=%llu untouched=%llu %n", &r->mapped, &r->untouched, &n) == 2 &&
		   n > 0 && (!strncmp(l + n, "comm=", 5) || !strncmp(l + n, "file=", 5))) {
		r->file = l[n] == 'f';
		r->name = l + n + 5;
	} else {
		return -1;
	}
	tail_fields(r);
	unescape(r->name);
	return 0;
}

int rss_next(char **save, struct rline *r)
{
	char *l;

	while ((l = strtok_r(NULL, "\n", save)))
		if (!parse_line(l, r))
			return 1;
	return 0;
}
