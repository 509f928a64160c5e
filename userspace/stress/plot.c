// SPDX-License-Identifier: GPL-2.0
/*
 * --plot FILE: the sweep as an SVG drawn by gnuplot (an external program,
 * Debian's gnuplot-nox): faults on top, throughput below, the order on the
 * x axis, one line per thread count (and block size).  gnuplot writes a
 * temporary file next to FILE, renamed over it only when gnuplot succeeded:
 * FILE is never left half written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

#define GNUPLOT "gnuplot"

/* gnuplot on PATH, as execvp will find it */
int mms_plot_check(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char p[4200];

		snprintf(p, sizeof(p), "%s/%s", *dir ? dir : ".", GNUPLOT);
		if (access(p, X_OK) == 0)
			return 0;
	}
	mms_err("--plot needs gnuplot, which is not on PATH (Debian: apt-get install gnuplot-nox)");
	return MMT_EXIT_FAIL;
}

/* s as a gnuplot single-quoted string ('' stands for ') */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc((unsigned char)*s < ' ' ? '?' : *s, f);
	}
	fputc('\'', f);
}

struct line {
	int threads;
	long block;
};

/* The lines of the plot: the (threads, block) pairs in the order they ran. */
static int lines_of(const struct mms_result *r, int n, struct line *l, int max)
{
	int nl = 0;

	for (int i = 0; i < n; i++) {
		int j;

		for (j = 0; j < nl && !(l[j].threads == r[i].threads && l[j].block == r[i].block); j++)
			;
		if (j == nl && nl < max)
			l[nl].threads = r[i].threads, l[nl++].block = r[i].block;
	}
	return nl;
}

static int column(const struct mms_result *r)
{
	return r->order >= 0 ? r->order : r->eff_order;
}

/* One datablock per line: order, mean minor faults, mean throughput. */
static void datablock(FILE *f, int idx, const struct line *l, const struct mms_result *r, int n)
{
	fprintf(f, "$d%d << EOD\n", idx);
	for (int o = 0; o < 64; o++) {
		double flt = 0, thr = 0;
		int k = 0;

		for (int i = 0; i < n; i++)
			if (r[i].threads == l->threads && r[i].block == l->block && column(&r[i]) == o) {
				flt += r[i].minflt;
				thr += r[i].throughput;
				k++;
			}
		if (k)
			fprintf(f, "%d %.1f %.3f\n", o, flt / k, thr / k);
	}
	fprintf(f, "EOD\n");
}

static void line_title(char *buf, size_t len, const struct line *l)
{
	char b[32];

	snprintf(buf, len, "%d %s", l->threads, l->threads == 1 ? "thread" : "threads");
	if (l->block) {
		mms_fmt_size(l->block, b, sizeof(b));
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s blocks", b);
	}
}

static void plot_panel(FILE *f, const struct line *l, int nl, int col)
{
	char t[64];

	fprintf(f, "plot ");
	for (int i = 0; i < nl; i++) {
		line_title(t, sizeof(t), &l[i]);
		fprintf(f, "%s$d%d using 1:%d with linespoints title ", i ? ", " : "", i, col);
		gp_str(f, t);
	}
	fprintf(f, "\n");
}

static void script(FILE *f, const struct mms_ctx *c, const struct mms_result *r, int n,
		   const char *out)
{
	const struct mms_meta *m = &c->meta;
	struct line l[MMS_MAX_LIST * MMS_MAX_LIST];
	int nl = lines_of(r, n, l, MMS_MAX_LIST * MMS_MAX_LIST), lo = 64, hi = -1;
	char title[256], sub[320], sz[32] = "";

	for (int i = 0; i < n; i++) {
		lo = column(&r[i]) < lo ? column(&r[i]) : lo;
		hi = column(&r[i]) > hi ? column(&r[i]) : hi;
	}
	if (r[0].size && c->w->size_label) {
		mms_fmt_size(r[0].size, sz, sizeof(sz));
		snprintf(sz + strlen(sz), sizeof(sz) - strlen(sz), " %s, ", c->w->size_label);
	}
	snprintf(title, sizeof(title), "mmstress %s: %spage %ld bytes", c->w->name, sz, c->page);
	snprintf(sub, sizeof(sub), "Linux %s %s, THP %s%s%s, mmtune %s", m->kernel, m->arch,
		 *m->thp ? m->thp : "-", *m->fs ? ", file on " : "", m->fs, MMT_VERSION);
	fprintf(f, "set terminal svg size 800,760 dynamic noenhanced font 'sans,12'\nset output ");
	gp_str(f, out);
	fprintf(f, "\n");
	for (int i = 0; i < nl; i++)
		datablock(f, i, &l[i], r, n);
	fprintf(f, "set multiplot layout 2,1 title ");
	gp_str(f, title);
	fprintf(f, ".\"\\n\".");
	gp_str(f, sub);
	fprintf(f, "\nset lmargin 12\nset grid\nset key outside right top\nset xtics 1\n"
		"set xrange [%d:%d]\nset xlabel 'fault-around order'\n", lo - (lo == hi), hi + (lo == hi));
	fprintf(f, "set ylabel 'minor faults'\nset logscale y\nset format y '%%.0s%%c'\n");
	plot_panel(f, l, nl, 2);
	fprintf(f, "unset logscale y\nset format y '%%g'\nset yrange [0:*]\nset ylabel ");
	gp_str(f, r[0].unit ? r[0].unit : "throughput");
	fprintf(f, "\n");
	plot_panel(f, l, nl, 3);
	fprintf(f, "unset multiplot\nset output\n");
}

/* Run gnuplot on the script; 0 when it exited 0. */
static int run_gnuplot(const struct mms_ctx *c, const struct mms_result *r, int n, const char *tmp)
{
	int fds[2], st = 0;
	pid_t pid;
	FILE *f;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[0], 0);
		signal(SIGPIPE, SIG_DFL);
		execlp(GNUPLOT, GNUPLOT, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	f = fdopen(fds[1], "w");
	if (f) {
		script(f, c, r, n, tmp);
		fclose(f);
	} else {
		close(fds[1]);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return f && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int mms_plot(const struct mms_ctx *c, const struct mms_result *r, int n, const char *file)
{
	char tmp[4200];
	struct stat st;
	mode_t um;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file) >= (int)sizeof(tmp)) {
		mms_err("--plot %s: path too long", file);
		return MMT_EXIT_FAIL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		mms_err("--plot %s: cannot create a file there: %s", file, strerror(errno));
		return MMT_EXIT_FAIL;
	}
	close(fd);
	mms_cleanup_add_file(tmp);	/* a signal while gnuplot runs */
	if (run_gnuplot(c, r, n, tmp) != 0 || stat(tmp, &st) != 0 || st.st_size == 0) {
		unlink(tmp);
		mms_cleanup_forget_file(tmp);
		mms_err("--plot %s: gnuplot failed (its message is above); no plot written", file);
		return MMT_EXIT_FAIL;
	}
	um = umask(0);
	umask(um);
	chmod(tmp, 0666 & ~um);		/* as a file the user created */
	if (rename(tmp, file) != 0) {
		mms_err("--plot %s: %s", file, strerror(errno));
		unlink(tmp);
		mms_cleanup_forget_file(tmp);
		return MMT_EXIT_FAIL;
	}
	mms_cleanup_forget_file(tmp);
	return 0;
}
