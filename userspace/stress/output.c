// SPDX-License-Identifier: GPL-2.0
/*
 * Output: csv (one line per run), json (the same records), table (the
 * seed's layout: a row group per thread count, a column per order).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "mmstress.h"

#define CSV_COLS "workload,order,threads,repeat,minor_faults,major_faults,seconds," \
	"throughput,unit,block,size,ops,vm_pgfault,vm_pgmajfault,vm_pgmigrate_success,vm_pgmigrate_fail"

/*
 * SIGPIPE is ignored (main.c): a reader that went away (| head) shows up
 * here as EPIPE, and stops the sweep like a signal would, so that the
 * order, the files and nr_hugepages are restored on the way out.
 */
int mms_out_flush(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	if (errno == EPIPE && !mms_stop)
		mms_stop = SIGPIPE;
	return -1;
}

void mms_out_csv_header(void)
{
	printf("%s\n", CSV_COLS);
	mms_out_flush();
}

void mms_out_csv_line(const struct mms_result *r)
{
	char order[16] = "";

	if (r->order >= 0)
		snprintf(order, sizeof(order), "%d", r->order);
	printf("%s,%s,%d,%d,%ld,%ld,%.6f,%.3f,%s,%ld,%lld,%lld,%lld,%lld,%lld,%lld\n",
	       r->workload, order, r->threads, r->repeat, r->minflt, r->majflt, r->seconds,
	       r->throughput, r->unit, r->block, r->size, r->ops, r->vm_pgfault, r->vm_pgmajfault,
	       r->vm_pgmigrate_success, r->vm_pgmigrate_fail);
	mms_out_flush();
}

void mms_out_json(const struct mms_result *res, int n)
{
	printf("[");
	for (int i = 0; i < n; i++) {
		const struct mms_result *r = &res[i];
		char order[16] = "null";

		if (r->order >= 0)
			snprintf(order, sizeof(order), "%d", r->order);
		printf("%s\n  {\"workload\": \"%s\", \"order\": %s, \"threads\": %d, \"repeat\": %d, "
		       "\"minor_faults\": %ld, \"major_faults\": %ld, \"seconds\": %.6f, "
		       "\"throughput\": %.3f, \"unit\": \"%s\", \"block\": %ld, \"size\": %lld, "
		       "\"ops\": %lld, \"vm_pgfault\": %lld, \"vm_pgmajfault\": %lld, "
		       "\"vm_pgmigrate_success\": %lld, \"vm_pgmigrate_fail\": %lld}",
		       i ? "," : "", r->workload, order, r->threads, r->repeat, r->minflt, r->majflt,
		       r->seconds, r->throughput, r->unit, r->block, r->size, r->ops, r->vm_pgfault,
		       r->vm_pgmajfault, r->vm_pgmigrate_success, r->vm_pgmigrate_fail);
	}
	printf("%s]\n", n ? "\n" : "");
}

struct agg {
	int n;
	double flt, sec, sec2, thr, thr2;
};

static void agg_fmt(char *buf, size_t len, double sum, double sum2, int n, const char *fmt, int spread)
{
	double mean = sum / n;
	int k;

	k = snprintf(buf, len, fmt, mean);
	if (spread && n > 1 && k > 0 && (size_t)k < len) {
		double var = (sum2 - sum * sum / n) / (n - 1);
		double rsd = mean > 0 && var > 0 ? sqrt(var) / mean * 100 : 0;

		snprintf(buf + k, len - k, "±%.1f%%", rsd);
	}
}

void mms_out_table(struct mms_ctx *c, const char *title, const struct mms_result *r, int n)
{
	int orders[MMS_MAX_LIST], no = 0;
	struct { int threads; long block; } grp[MMS_MAX_LIST * MMS_MAX_LIST];
	int ng = 0, rep = 0, spread, w;
	char sz[64], cell[64];

	for (int i = 0; i < n; i++) {
		int j;

		for (j = 0; j < no && orders[j] != r[i].order; j++)
			;
		if (j == no && no < MMS_MAX_LIST)
			orders[no++] = r[i].order;
		for (j = 0; j < ng && !(grp[j].threads == r[i].threads && grp[j].block == r[i].block); j++)
			;
		if (j == ng)
			grp[ng].threads = r[i].threads, grp[ng].block = r[i].block, ng++;
		if (r[i].repeat > rep)
			rep = r[i].repeat;
	}
	spread = rep > 1;
	w = spread ? 20 : 14;
	if (n && r[0].size && c->w->size_label) {
		mms_fmt_size(r[0].size, sz, sizeof(sz));
		snprintf(sz + strlen(sz), sizeof(sz) - strlen(sz), " %s, ", c->w->size_label);
	} else {
		sz[0] = 0;
	}
	printf("%s: %spage %ld bytes, %d run%s per point%s\n", title, sz, c->page, rep,
	       rep > 1 ? "s" : "", spread ? " (mean±relative stddev)" : "");
	printf("%-22s", "FAULT_AROUND_ORDER");
	for (int j = 0; j < no; j++) {
		if (orders[j] < 0)
			printf("%*s", w, "current");
		else
			printf("%*d", w, orders[j]);
	}
	printf("\n");
	for (int g = 0; g < ng; g++) {
		struct agg a[MMS_MAX_LIST];
		const char *unit = "";
		char label[64], b[32];

		memset(a, 0, sizeof(a));
		for (int i = 0; i < n; i++) {
			int j;

			if (r[i].threads != grp[g].threads || r[i].block != grp[g].block)
				continue;
			for (j = 0; j < no && orders[j] != r[i].order; j++)
				;
			if (j == no)
				continue;
			a[j].n++;
			a[j].flt += r[i].minflt;
			a[j].sec += r[i].seconds;
			a[j].sec2 += r[i].seconds * r[i].seconds;
			a[j].thr += r[i].throughput;
			a[j].thr2 += r[i].throughput * r[i].throughput;
			unit = r[i].unit;
		}
		snprintf(label, sizeof(label), "%d %s", grp[g].threads,
			 grp[g].threads == 1 ? "thread" : "threads");
		if (grp[g].block) {
			mms_fmt_size(grp[g].block, b, sizeof(b));
			snprintf(label + strlen(label), sizeof(label) - strlen(label), ", %s blocks", b);
		}
		printf("%s\n", label);
		printf("  %-20s", "minor-faults");
		for (int j = 0; j < no; j++) {
			if (a[j].n)
				snprintf(cell, sizeof(cell), "%.0f", a[j].flt / a[j].n);
			else
				snprintf(cell, sizeof(cell), "-");
			printf("%*s", w, cell);
		}
		printf("\n  %-20s", "times in seconds");
		for (int j = 0; j < no; j++) {
			if (a[j].n)
				agg_fmt(cell, sizeof(cell), a[j].sec, a[j].sec2, a[j].n, "%.6f", spread);
			else
				snprintf(cell, sizeof(cell), "-");
			printf("%*s", w + (strstr(cell, "±") ? 1 : 0), cell);
		}
		printf("\n  %-20s", unit);
		for (int j = 0; j < no; j++) {
			if (a[j].n)
				agg_fmt(cell, sizeof(cell), a[j].thr, a[j].thr2, a[j].n, "%.1f", spread);
			else
				snprintf(cell, sizeof(cell), "-");
			printf("%*s", w + (strstr(cell, "±") ? 1 : 0), cell);
		}
		printf("\n");
	}
	fflush(stdout);
}
