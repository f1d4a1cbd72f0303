/* SPDX-License-Identifier: BSD-2-Clause */
/* Text for terminals: `top` (the flat self/total table) and
 * `diff --text` (each function's change in share). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A change in points, rounded as printed, never "-0.00". */
static double points(double after, double before)
{
	double c = round((after - before) * 100.0) / 100.0;

	return c == 0.0 ? 0.0 : c;
}

static void meta_summary(struct buf *out, const struct profile *p)
{
	const struct fold_meta *m = &p->meta;
	char t[48];

	buf_printf(out, "# %s: %s", p->path,
		   value_text(p, profile_value_total(p), t, sizeof t));
	if (m->weight_ns)
		buf_printf(out, " (%s samples)", count_text(p, p->total, t, sizeof t));
	if (m->have & META_CPUS)
		buf_printf(out, ", %llu cpus", (unsigned long long)m->cpus);
	if (m->have & META_DROPPED)
		buf_printf(out, ", %llu dropped", (unsigned long long)m->dropped);
	if (m->have & META_WINDOW)
		buf_printf(out, ", %llu ms", (unsigned long long)m->window_ms);
	if (m->have & META_HZ)
		buf_printf(out, ", %llu hz", (unsigned long long)m->hz);
	if (m->have & META_SOURCE)
		buf_printf(out, ", source %s", m->source);
	buf_add(out, "\n", 1);
	if (p->note)
		buf_printf(out, "# %s\n", p->note);
}

struct top_sort {
	const struct func_counts *fc;
	const struct names *names;
};

static struct top_sort top_ctx;

static int top_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct func_counts *fc = top_ctx.fc;

	if (fc->self[x] != fc->self[y])
		return fc->self[x] > fc->self[y] ? -1 : 1;
	if (fc->total[x] != fc->total[y])
		return fc->total[x] > fc->total[y] ? -1 : 1;
	return strcmp(top_ctx.names->str[x], top_ctx.names->str[y]);
}

void report_top(struct buf *out, const struct profile *p, unsigned n)
{
	struct func_counts fc;
	size_t *order, count = 0;

	func_counts(p, &fc);
	order = xmalloc(fc.n * sizeof *order);
	for (size_t i = 0; i < fc.n; i++)
		if (fc.total[i])
			order[count++] = i;
	top_ctx = (struct top_sort){ &fc, p->names };
	qsort(order, count, sizeof *order, top_cmp);
	meta_summary(out, p);
	buf_printf(out, "%10s %7s %10s %7s  %s\n",
		   p->meta.weight_ns ? "self ms" : "self", "self%",
		   p->meta.weight_ns ? "total ms" : "total", "total%", "function");
	for (size_t i = 0; i < count && i < n; i++) {
		size_t f = order[i];
		char a[32], b[32];

		buf_printf(out, "%10s %6.2f%% %10s %6.2f%%  %s\n",
			   value_cell(p, fc.self[f], a, sizeof a),
			   share(fc.self[f], profile_value_total(p)),
			   value_cell(p, fc.total[f], b, sizeof b),
			   share(fc.total[f], profile_value_total(p)),
			   p->names->str[f]);
	}
	if (count > n)
		buf_printf(out, "# %zu more functions (-n to show them)\n",
			   count - n);
	free(order);
	free(fc.self);
	free(fc.total);
}

/* ---- diff --text ---- */

struct diff_row {
	size_t name;
	double self_b, self_a, total_b, total_a;
};

static const struct names *diff_names;

static int diff_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double sx = fabs(points(x->self_a, x->self_b));
	double sy = fabs(points(y->self_a, y->self_b));
	double tx = fabs(points(x->total_a, x->total_b));
	double ty = fabs(points(y->total_a, y->total_b));

	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(diff_names->str[x->name], diff_names->str[y->name]);
}

void report_diff_text(struct buf *out, const struct profile *before,
		      const struct profile *after, unsigned n)
{
	struct func_counts b, a;
	struct diff_row *rows, *gone;
	size_t nrows = 0, ngone = 0;

	func_counts(before, &b);
	func_counts(after, &a);
	rows = xmalloc(a.n * sizeof *rows);
	gone = xmalloc(a.n * sizeof *gone);
	for (size_t i = 0; i < a.n; i++) {
		/* One names table for both sides: counts past a side's own
		 * names are zero. */
		uint64_t sb = i < b.n ? b.self[i] : 0, tb = i < b.n ? b.total[i] : 0;
		uint64_t vb = profile_value_total(before);
		uint64_t va = profile_value_total(after);
		struct diff_row r = {
			i, share(sb, vb), share(a.self[i], va),
			share(tb, vb), share(a.total[i], va),
		};

		if (a.total[i])
			rows[nrows++] = r;
		else if (tb)
			gone[ngone++] = r;
	}
	diff_names = after->names;
	qsort(rows, nrows, sizeof *rows, diff_cmp);
	qsort(gone, ngone, sizeof *gone, diff_cmp);
	meta_summary(out, before);
	meta_summary(out, after);
	buf_printf(out, "# share of each side's %s, in %%; change in points\n",
		   before->meta.weight_ns && after->meta.weight_ns ? "time"
		   : !before->meta.weight_ns && !after->meta.weight_ns ? "samples"
		   : "time (weights) or samples (no weights)");
	buf_printf(out, "%12s %7s %7s %13s %7s %7s  %s\n", "self:before", "after",
		   "change", "total:before", "after", "change", "function");
	for (size_t i = 0; i < nrows && i < n; i++) {
		const struct diff_row *r = &rows[i];

		buf_printf(out, "%12.2f %7.2f %+7.2f %13.2f %7.2f %+7.2f  %s\n",
			   r->self_b, r->self_a, points(r->self_a, r->self_b),
			   r->total_b, r->total_a, points(r->total_a, r->total_b),
			   after->names->str[r->name]);
	}
	if (nrows > n)
		buf_printf(out, "# %zu more functions (-n to show them)\n",
			   nrows - n);
	buf_printf(out, "# only in before: %zu functions\n", ngone);
	if (ngone)
		buf_printf(out, "%12s %13s  %s\n", "self:before", "total:before",
			   "function");
	/* -n limits these rows as it does the others. */
	for (size_t i = 0; i < ngone && i < n; i++)
		buf_printf(out, "%12.2f %13.2f  %s\n", gone[i].self_b,
			   gone[i].total_b, after->names->str[gone[i].name]);
	if (ngone > n)
		buf_printf(out, "# %zu more functions only in before (-n to show them)\n",
			   ngone - n);
	free(rows);
	free(gone);
	free(b.self);
	free(b.total);
	free(a.self);
	free(a.total);
}
