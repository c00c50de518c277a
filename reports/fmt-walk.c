/* SPDX-License-Identifier: MIT */
/* The report's tables, walked once from the model (fmt-walk.h). */
#include "fmt-walk.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct fmt_table *fmt_table_new(size_t ncols)
{
	struct fmt_table *t = xcalloc(1, sizeof(*t));

	t->ncols = ncols;
	t->head = xcalloc(ncols ? ncols : 1, sizeof(*t->head));
	t->right = xcalloc(ncols ? ncols : 1, sizeof(*t->right));
	return t;
}

void fmt_table_free(struct fmt_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncols; i++)
		free(t->head[i]);
	for (i = 0; i < t->nrows; i++)
		free(t->row_id[i]);
	for (i = 0; i < t->nrows * t->ncols; i++) {
		free(t->cells[i].text);
		free(t->cells[i].note);
	}
	free(t->head);
	free(t->right);
	free(t->row_id);
	free(t->cells);
	free(t);
}

void fmt_table_col(struct fmt_table *t, size_t col, const char *head,
		   bool right)
{
	free(t->head[col]);
	t->head[col] = head ? xstrdup(head) : NULL;
	t->right[col] = right;
}

size_t fmt_table_row(struct fmt_table *t, const char *id)
{
	size_t row = t->nrows++, col;

	t->row_id = xrealloc(t->row_id, t->nrows * sizeof(*t->row_id));
	t->row_id[row] = id ? xstrdup(id) : NULL;
	t->cells = xrealloc(t->cells, t->nrows * (t->ncols ? t->ncols : 1) *
					  sizeof(*t->cells));
	for (col = 0; col < t->ncols; col++)
		t->cells[row * t->ncols + col] =
		    (struct fmt_cell){.text = xstrdup("")};
	return row;
}

void fmt_table_set(struct fmt_table *t, size_t row, size_t col, unsigned flags,
		   const char *fmt, ...)
{
	struct fmt_cell *c = &t->cells[row * t->ncols + col];
	va_list ap;

	free(c->text);
	va_start(ap, fmt);
	if (vasprintf(&c->text, fmt, ap) < 0)
		abort();
	va_end(ap);
	c->flags = flags;
}

void fmt_table_note(struct fmt_table *t, size_t row, size_t col,
		    const char *note)
{
	struct fmt_cell *c = &t->cells[row * t->ncols + col];

	free(c->note);
	c->note = note ? xstrdup(note) : NULL;
}

const struct fmt_cell *fmt_table_cell(const struct fmt_table *t, size_t row,
				      size_t col)
{
	return &t->cells[row * t->ncols + col];
}

struct fmt_table *fmt_walk_matrix_new(const struct report *r)
{
	const struct report_matrix *m = &r->matrix;
	struct fmt_table *t = fmt_table_new(m->nrow_axes + m->ncols);
	char buf[FMT_BUF];
	size_t row, col, nl = m->nrow_axes;

	for (col = 0; col < nl; col++)
		fmt_table_col(t, col,
			      report_axis_heading(&r->axes[m->row_axes[col]]),
			      false);
	for (col = 0; col < m->ncols; col++)
		fmt_table_col(t, nl + col, m->cols[col], true);
	for (row = 0; row < m->nrows; row++) {
		fmt_table_row(t, NULL);
		for (col = 0; col < nl; col++)
			fmt_table_set(t, row, col, 0, "%s",
				      fmt_row_value(m, row, col));
		for (col = 0; col < m->ncols; col++)
			fmt_table_set(
			    t, row, nl + col, 0, "%s",
			    fmt_matrix_slot(buf, sizeof(buf), r, row, col));
	}
	return t;
}

struct fmt_table *fmt_walk_scaling_new(const struct report *r,
				       const struct report_scaling *s)
{
	const struct report_axis *a = &r->axes[s->axis];
	struct fmt_table *t = fmt_table_new(a->nvalues + 1);
	char buf[FMT_BUF];
	size_t j, k;

	fmt_table_col(t, 0, "line", false);
	for (k = 0; k < a->nvalues; k++) {
		snprintf(buf, sizeof(buf), "%s=%s", a->name, a->values[k]);
		fmt_table_col(t, k + 1, buf, true);
	}
	for (j = 0; j < s->nlines; j++) {
		fmt_table_row(t, NULL);
		fmt_table_set(t, j, 0, 0, "%s", s->lines[j].label);
		for (k = 0; k < a->nvalues; k++)
			fmt_table_set(
			    t, j, k + 1, 0, "%s",
			    fmt_scaling_entry(
				buf, sizeof(buf), r,
				fmt_scaling_cell(&s->lines[j], a->values[k])));
	}
	return t;
}

struct fmt_table *fmt_walk_cells_new(const struct report *r)
{
	/* the metric's is its own; the significance mark's is none */
	static const char *const heads[] = {
	    "cell",	"n",	    "",	       "±",	   "95% CI",
	    "real (s)", "user (s)", "sys (s)", "slowdown", "95% interval",
	    "p",	NULL};
	static const bool right[ARRAY_SIZE(heads)] = {
	    false, true, true, true,  false, true,
	    true,  true, true, false, true,  false};
	struct fmt_table *t = fmt_table_new(ARRAY_SIZE(heads));
	char a[FMT_BUF], b[FMT_BUF], *metric;
	const unsigned raw = FMT_CELL_RAW;
	size_t i, row;

	for (i = 0; i < ARRAY_SIZE(heads); i++)
		fmt_table_col(t, i, heads[i], right[i]);
	metric = xasprintf("%s (%s)", r->wl_metric, r->wl_unit);
	fmt_table_col(t, 2, metric, true);
	free(metric);
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		row = fmt_table_row(t, c->id);
		fmt_table_set(t, row, 0, 0, "%s", c->label);
		if (!c->nok) {
			fmt_table_set(t, row, 1, raw, "0");
			fmt_table_set(t, row, 2, FMT_CELL_SKIP, "%s",
				      c->status);
			fmt_table_note(t, row, 2, fmt_reason(c));
			continue;
		}
		fmt_table_set(t, row, 1, raw, "%zu", c->metric.n);
		fmt_table_set(t, row, 2, raw, "%s",
			      fmt_num(a, sizeof(a), c->metric.mean));
		fmt_table_set(t, row, 3, raw, "%s",
			      fmt_pct(a, sizeof(a), c->metric.cv));
		fmt_table_set(t, row, 4, raw, "[%s, %s]",
			      fmt_num(a, sizeof(a), c->metric.ci_lo),
			      fmt_num(b, sizeof(b), c->metric.ci_hi));
		fmt_table_set(t, row, 5, raw, "%s",
			      fmt_num(a, sizeof(a), c->elapsed.mean));
		fmt_table_set(t, row, 6, raw, "%s",
			      fmt_num(a, sizeof(a), c->user.mean));
		fmt_table_set(t, row, 7, raw, "%s",
			      fmt_num(a, sizeof(a), c->sys.mean));
		if (c->is_baseline) {
			fmt_table_set(t, row, 8, raw, "baseline");
			continue;
		}
		fmt_table_set(t, row, 8, raw, "%s",
			      fmt_spct(a, sizeof(a), c->vs_base.delta));
		fmt_table_set(t, row, 9, raw, "%s",
			      fmt_interval_why(a, sizeof(a), &c->vs_base));
		fmt_table_set(t, row, 10, raw, "%s",
			      fmt_p(a, sizeof(a), c->vs_base.p));
		fmt_table_set(t, row, 11, raw, "%s", fmt_signif(&c->vs_base));
	}
	return t;
}

struct fmt_table *fmt_walk_sampling_new(const struct report *r)
{
	static const char *const heads[] = {"cell", "stopped", "boots",
					    "outliers (kept)",
					    "trend (Mann-Kendall)"};
	struct fmt_table *t = NULL;
	char buf[512];
	size_t i, row;

	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (!fmt_sampling_shown(c))
			continue;
		if (!t) {
			t = fmt_table_new(ARRAY_SIZE(heads));
			for (row = 0; row < ARRAY_SIZE(heads); row++)
				fmt_table_col(t, row, heads[row], false);
		}
		row = fmt_table_row(t, NULL);
		fmt_table_set(t, row, 0, 0, "%s", c->label);
		fmt_table_set(t, row, 1, 0, "%s",
			      fmt_stop(buf, sizeof(buf), c));
		fmt_table_set(t, row, 2, 0, "%s",
			      fmt_boots(buf, sizeof(buf), c));
		fmt_table_set(t, row, 3, 0, "%s",
			      fmt_outliers(buf, sizeof(buf), c));
		fmt_table_set(t, row, 4, 0, "%s",
			      fmt_trend(buf, sizeof(buf), c));
	}
	return t;
}

/* Counter K of cell C: perf stat's value, its spread, its figure. */
static void counter_cell(struct fmt_table *t, size_t row,
			 const struct report *r, const struct report_cell *c,
			 size_t k)
{
	const struct report_counter_stats *cs = &c->counters[k];
	char v[FMT_BUF], note[FMT_BUF];

	fmt_counter_value(v, sizeof(v), r, c, k);
	fmt_counter_note(note, sizeof(note), r, c, k);
	if (cs->state != CS_OK)
		fmt_table_set(t, row, k + 1, FMT_CELL_NA, "%s", v);
	else if (isnan(cs->rel_sd))
		fmt_table_set(t, row, k + 1, 0, "%s", v);
	else
		fmt_table_set(t, row, k + 1, 0, "%s (±%.2f%%)", v,
			      100 * cs->rel_sd);
	if (*note)
		fmt_table_note(t, row, k + 1, note);
}

struct fmt_table *fmt_walk_counters_new(const struct report *r)
{
	struct fmt_table *t = fmt_table_new(r->ncounters + 3);
	const unsigned na = FMT_CELL_NA | FMT_CELL_RAW;
	size_t i, k, row, ipc = r->ncounters + 1, dtlb = r->ncounters + 2;

	fmt_table_col(t, 0, "cell", false);
	for (k = 0; k < r->ncounters; k++)
		fmt_table_col(t, k + 1, fmt_counter_name(r, k), true);
	fmt_table_col(t, ipc, "IPC", true);
	fmt_table_col(t, dtlb, "dTLB miss rate", true);
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (!c->nok)
			continue;
		row = fmt_table_row(t, NULL);
		fmt_table_set(t, row, 0, 0, "%s", c->label);
		for (k = 0; k < r->ncounters; k++)
			counter_cell(t, row, r, c, k);
		if (c->ipc.valid)
			fmt_table_set(t, row, ipc, FMT_CELL_RAW, "%.3f",
				      c->ipc.value);
		else
			fmt_table_set(t, row, ipc, na, "<not supported>");
		if (c->dtlb_miss_rate.valid)
			fmt_table_set(t, row, dtlb, FMT_CELL_RAW, "%.2f%%",
				      100 * c->dtlb_miss_rate.value);
		else
			fmt_table_set(t, row, dtlb, na, "<not supported>");
	}
	return t;
}

struct fmt_table *fmt_walk_kvm_new(const struct report_kvm *k)
{
	struct fmt_table *t = fmt_table_new(3);
	char buf[FMT_BUF];
	size_t j;

	fmt_table_col(t, 0, "exit reason", false);
	fmt_table_col(t, 1, "per sample", true);
	fmt_table_col(t, 2, "share", true);
	for (j = 0; j < k->nreasons && j < FMT_KVM_TOP; j++) {
		fmt_table_row(t, NULL);
		fmt_table_set(t, j, 0, 0, "%s", k->reasons[j].reason);
		fmt_table_set(
		    t, j, 1, FMT_CELL_RAW, "%s",
		    fmt_count(buf, sizeof(buf), k->reasons[j].per_sample));
		fmt_table_set(t, j, 2, FMT_CELL_RAW, "%s",
			      fmt_pct(buf, sizeof(buf), k->reasons[j].share));
	}
	return t;
}
