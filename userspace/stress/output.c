// SPDX-License-Identifier: GPL-2.0
/*
 * Output: csv (one line per run), json (the same records), table (the
 * layout of the 2014 fault-around tables in docs/design.md, "Why": a row group
 * per thread count, a column per order).
 */
#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "libmmtune.h"
#include "jsonw.h"
#include "mmstress.h"

#define CSV_COLS "workload,order,effective_order,threads,run,minor_faults,major_faults," \
	"seconds,throughput,unit,block,size,ops,vm_pgfault,vm_pgmajfault,vm_pgmigrate_success," \
	"vm_pgmigrate_fail"

static struct mms_ctx *oc;		/* the invocation the records belong to */
static struct mms_result *recs;
static int nrec, caprec;
static int csv_begun, written;		/* CSV header out / the document is out */

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

const char *mms_order_str(int order, enum mms_format f, char *buf, size_t len)
{
	if (order >= 0)
		snprintf(buf, len, "%d", order);
	else
		snprintf(buf, len, "%s", f == FMT_CSV ? "" : "-");
	return buf;
}

/* ---- the metadata: the same keys as JSON members and as CSV '#' lines */

static struct jsonw jw;	/* the JSON document (lib/jsonw.h) */

static int json(void)
{
	return oc->o->format == FMT_JSON;
}

/* CSV: a value on one line whatever it holds */
static void csv_text(const char *v)
{
	for (; v && *v; v++)
		putchar((unsigned char)*v < ' ' ? '?' : *v);
}

/* a string; "" is JSON null, an empty CSV value */
static void meta_str(const char *key, const char *v)
{
	if (json()) {
		jsonw_string_field(&jw, key, v && *v ? v : NULL);
		return;
	}
	printf("# %s: ", key);
	csv_text(v);
	printf("\n");
}

/* a number; < 0 is "none" (null, empty) */
static void meta_num(const char *key, long long v)
{
	if (!json() && v >= 0)
		printf("# %s: %lld\n", key, v);
	else if (!json())
		printf("# %s: \n", key);
	else if (v >= 0)
		jsonw_int_field(&jw, key, v);
	else
		jsonw_null_field(&jw, key);
}

/* a list of numbers; n == 0 is "none" */
static void meta_list(const char *key, const long *v, int n)
{
	if (!json()) {
		printf("# %s: ", key);
		for (int i = 0; i < n; i++)
			printf("%s%ld", i ? "," : "", v[i]);
		printf("\n");
		return;
	}
	if (!n) {
		jsonw_null_field(&jw, key);
		return;
	}
	jsonw_name(&jw, key);
	jsonw_flow(&jw);
	jsonw_start_array(&jw);
	for (int i = 0; i < n; i++)
		jsonw_int(&jw, v[i]);
	jsonw_end_array(&jw);
}

static void meta_command(void)
{
	const struct mms_meta *m = &oc->meta;

	if (!json()) {
		printf("# command: ");
		for (int i = 0; i < m->argc; i++) {
			printf("%s", i ? " " : "");
			csv_text(m->argv[i]);
		}
		printf("\n");
		return;
	}
	jsonw_name(&jw, "command");
	jsonw_flow(&jw);
	jsonw_start_array(&jw);
	for (int i = 0; i < m->argc; i++)
		jsonw_string(&jw, m->argv[i]);
	jsonw_end_array(&jw);
}

static void meta_write(const char *status, const char *reason)
{
	const struct mms_opts *o = oc->o;
	const struct mms_meta *m = &oc->meta;
	static const char *const via[] = { "", "module", "kernel" };
	long threads[MMS_MAX_LIST], orders[MMS_MAX_LIST];
	int wants_blocks = oc->w && oc->w->uses_blocks;

	for (int i = 0; i < o->nthreads; i++)
		threads[i] = o->threads[i];
	for (int i = 0; i < o->norders; i++)
		orders[i] = o->orders[i];
	meta_str("tool", "mmstress");
	meta_str("mmtune_version", MMT_VERSION);
	meta_command();
	meta_str("workload", o->workload);
	meta_str("date", m->date);
	meta_str("kernel", m->kernel);
	meta_str("arch", m->arch);
	meta_num("page_size", oc->page);
	meta_num("ptrs_per_pte", oc->ptrs_per_pte);
	meta_num("max_order", oc->max_order);
	meta_str("thp", m->thp);
	meta_str("thp_shmem", m->thp_shmem);
	meta_str("file", m->file);
	meta_str("file_fs", m->fs);
	meta_str("file_fs_options", m->fs_opts);
	meta_str("order_via", via[m->via]);
	meta_str("module_version", m->module_version);
	meta_num("order_found", m->order_found);
	meta_str("policy_rule", m->rule);
	meta_list("orders", orders, o->norders);
	meta_list("threads", threads, o->nthreads);
	meta_list("blocks", o->blocks, wants_blocks ? o->nblocks : 0);
	meta_num("repeat", o->repeat);
	meta_num("warmup", o->warmup);
	if (status) {
		meta_str("status", status);
		meta_str("reason", reason);
	}
}

void mms_out_init(struct mms_ctx *c)
{
	oc = c;
}

void mms_out_begin(const char *csv_cols)
{
	if (oc->o->format != FMT_CSV || csv_begun)
		return;
	meta_write(NULL, NULL);
	printf("%s\n", csv_cols ? csv_cols : CSV_COLS);
	csv_begun = 1;
	mms_out_flush();
}

static void csv_line(const struct mms_result *r)
{
	char order[16], eff[16];

	printf("%s,%s,%s,%d,%d,%ld,%ld,%.6f,%.3f,%s,%ld,%lld,%lld,%lld,%lld,%lld,%lld\n",
	       r->workload, mms_order_str(r->order, FMT_CSV, order, sizeof(order)),
	       mms_order_str(r->eff_order, FMT_CSV, eff, sizeof(eff)), r->threads, r->run,
	       r->minflt, r->majflt, r->seconds, r->throughput, r->unit, r->block, r->size, r->ops,
	       r->vm_pgfault, r->vm_pgmajfault, r->vm_pgmigrate_success, r->vm_pgmigrate_fail);
	mms_out_flush();
}

int mms_out_add(const struct mms_result *r)
{
	if (nrec == caprec) {
		int cap = caprec ? caprec * 2 : 64;
		struct mms_result *n = realloc(recs, cap * sizeof(*n));

		if (!n)
			return -1;
		recs = n;
		caprec = cap;
	}
	recs[nrec++] = *r;
	if (oc->o->format == FMT_CSV)
		csv_line(r);
	return 0;
}

const struct mms_result *mms_out_records(int *n)
{
	*n = nrec;
	return recs;
}

struct jsonw *mms_out_json_open(const char *status, const char *reason)
{
	jsonw_init(&jw, stdout);
	jsonw_pretty(&jw, 1);
	jsonw_start_object(&jw);
	jsonw_name(&jw, "meta");
	jsonw_start_object(&jw);
	meta_write(status, reason);
	jsonw_end_object(&jw);
	jsonw_name(&jw, "runs");
	jsonw_start_array(&jw);
	return &jw;
}

void mms_out_json_close(void)
{
	jsonw_end_array(&jw);
	jsonw_end_object(&jw);
	mms_out_flush();
}

void mms_out_json_order(struct jsonw *w, const char *key, int order)
{
	if (order >= 0)
		jsonw_int_field(w, key, order);
	else
		jsonw_null_field(w, key);
}

static void json_runs(void)
{
	for (int i = 0; i < nrec; i++) {
		const struct mms_result *r = &recs[i];

		jsonw_flow(&jw);
		jsonw_start_object(&jw);
		jsonw_string_field(&jw, "workload", r->workload);
		mms_out_json_order(&jw, "order", r->order);
		mms_out_json_order(&jw, "effective_order", r->eff_order);
		jsonw_int_field(&jw, "threads", r->threads);
		jsonw_int_field(&jw, "run", r->run);
		jsonw_int_field(&jw, "minor_faults", r->minflt);
		jsonw_int_field(&jw, "major_faults", r->majflt);
		jsonw_name(&jw, "seconds");
		jsonw_float_fmt(&jw, "%.6f", r->seconds);
		jsonw_name(&jw, "throughput");
		jsonw_float_fmt(&jw, "%.3f", r->throughput);
		jsonw_string_field(&jw, "unit", r->unit);
		jsonw_int_field(&jw, "block", r->block);
		jsonw_int_field(&jw, "size", r->size);
		jsonw_int_field(&jw, "ops", r->ops);
		jsonw_int_field(&jw, "vm_pgfault", r->vm_pgfault);
		jsonw_int_field(&jw, "vm_pgmajfault", r->vm_pgmajfault);
		jsonw_int_field(&jw, "vm_pgmigrate_success", r->vm_pgmigrate_success);
		jsonw_int_field(&jw, "vm_pgmigrate_fail", r->vm_pgmigrate_fail);
		jsonw_end_object(&jw);
	}
}

void mms_out_end(void)
{
	if (written || mms_stop == SIGPIPE)	/* no reader left */
		return;
	written = 1;
	if (oc->o->format == FMT_JSON) {
		mms_out_json_open(mms_stop ? "interrupted" : "done", NULL);
		json_runs();
		mms_out_json_close();
	} else if (oc->o->format == FMT_TABLE && nrec) {
		mms_out_table(oc, oc->w->name, recs, nrec);
	}
}

/*
 * Exit 77: the record of what ran (often nothing) and why the rest could
 * not.  CSV: '#' status and reason lines (before the header when setup
 * skipped); JSON: the document with status "skipped".
 */
void mms_out_skip(const char *reason)
{
	if (!oc || written || mms_stop == SIGPIPE)
		return;
	written = 1;
	if (oc->o->format == FMT_CSV) {
		if (!csv_begun)
			meta_write(NULL, NULL);
		meta_str("status", "skipped");
		meta_str("reason", reason);
		if (!csv_begun)
			printf("%s\n", CSV_COLS);
		mms_out_flush();
	} else if (oc->o->format == FMT_JSON) {
		mms_out_json_open("skipped", reason);
		json_runs();
		mms_out_json_close();
	}
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

/* A table column: the order set, or without --orders the one in force. */
static int column(const struct mms_result *r)
{
	return r->order >= 0 ? r->order : r->eff_order;
}

/* What the figures were measured on, in one line. */
static void table_context(const struct mms_ctx *c)
{
	const struct mms_meta *m = &c->meta;

	printf("Linux %s %s, THP %s (shmem %s), mmtune %s", m->kernel, m->arch,
	       *m->thp ? m->thp : "-", *m->thp_shmem ? m->thp_shmem : "-", MMT_VERSION);
	if (*m->file) {
		/* tmpfs's huge= decides its folios, so the fault counts */
		const char *h = strstr(m->fs_opts, "huge=");

		printf(", file %s (%s%s%.*s)", m->file, m->fs, h ? " " : "",
		       h ? (int)strcspn(h, ",") : 0, h ? h : "");
	}
	printf("\n");
}

/*
 * The order mmstress really had, where it is not the column's: a policy
 * rule governs it (mmtunectl tune), or someone wrote the knob meanwhile.
 */
static void effective_row(const struct mms_result *r, int n, const int *orders, int no, int w)
{
	char cell[64];
	int differs = 0;

	for (int i = 0; i < n; i++)
		differs |= r[i].order >= 0 && r[i].eff_order != r[i].order;
	if (!differs)
		return;
	printf("%-22s", "effective order");
	for (int j = 0; j < no; j++) {
		int e = -1;

		for (int i = 0; i < n; i++)
			if (column(&r[i]) == orders[j]) {
				e = r[i].eff_order;
				break;
			}
		printf("%*s", w, mms_order_str(e, FMT_TABLE, cell, sizeof(cell)));
	}
	printf("\n");
}

/* One thread count (and block size): faults, seconds, throughput by order */
static void table_group(const struct mms_result *r, int n, const int *orders, int no,
			int threads, long block, int w, int spread)
{
	struct agg a[MMS_MAX_LIST];
	const char *unit = "";
	char label[64], b[32], cell[64];

	memset(a, 0, sizeof(a));
	for (int i = 0; i < n; i++) {
		int j;

		if (r[i].threads != threads || r[i].block != block)
			continue;
		for (j = 0; j < no && orders[j] != column(&r[i]); j++)
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
	snprintf(label, sizeof(label), "%d %s", threads,
		 threads == 1 ? "thread" : "threads");
	if (block) {
		mms_fmt_size(block, b, sizeof(b));
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

void mms_out_table(struct mms_ctx *c, const char *title, const struct mms_result *r, int n)
{
	int orders[MMS_MAX_LIST], no = 0;
	struct { int threads; long block; } grp[MMS_MAX_LIST * MMS_MAX_LIST];
	int ng = 0, rep = 0, spread, w;
	char sz[64], cell[64];

	for (int i = 0; i < n; i++) {
		int j;

		for (j = 0; j < no && orders[j] != column(&r[i]); j++)
			;
		if (j == no && no < MMS_MAX_LIST)
			orders[no++] = column(&r[i]);
		for (j = 0; j < ng && !(grp[j].threads == r[i].threads && grp[j].block == r[i].block); j++)
			;
		if (j == ng)
			grp[ng].threads = r[i].threads, grp[ng].block = r[i].block, ng++;
		if (r[i].run > rep)
			rep = r[i].run;
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
	table_context(c);
	printf("%-22s", "FAULT_AROUND_ORDER");
	for (int j = 0; j < no; j++)
		printf("%*s", w, mms_order_str(orders[j], FMT_TABLE, cell, sizeof(cell)));
	printf("\n");
	effective_row(r, n, orders, no, w);
	for (int g = 0; g < ng; g++)
		table_group(r, n, orders, no, grp[g].threads, grp[g].block, w, spread);
	fflush(stdout);
}
