/* SPDX-License-Identifier: MIT */
/*
 * html: one self-contained page - inline CSS and SVG, no scripts, no
 * external references - so it can be mailed, archived and opened offline.
 * The heatmap has exactly one <rect class="cell" data-id=ID> per matrix
 * cell (a bare-metal cell spans the guest rows of its host THP); the bar
 * chart one <g class="bar" data-id=ID> per cell with a slowdown; the series
 * chart, drawn only when some cell has a series, one <polyline
 * class="series" data-id=ID> per such cell (x on a log2 axis); the scaling
 * chart of each numeric axis is in fmt-html-scaling.c, comparisons in
 * fmt-html-compare.c.  A run with KVM
 * evidence has a KVM section: per guest cell a <table class="kvm"
 * data-id=ID> of the top exit reasons, or a <p class="na" data-id=ID> with
 * why it has none.
 */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define HM_LABEL_W 190.0
#define HM_COL_W 120.0
#define HM_ROW_H 34.0
#define HM_HEAD_H 30.0
#define BAR_LABEL_W 330.0
#define BAR_W 420.0
#define BAR_H 24.0
#define SER_LEFT 60.0
#define SER_W 520.0
#define SER_H 260.0
#define SER_TOP 10.0
#define SER_KEY_W 330.0

static void esc(FILE *out, const char *s)
{
	fmt_html_escape(out, s);
}

static void kv(FILE *out, const char *k, const char *v)
{
	fprintf(out, "<tr><th>%s</th><td>", k);
	esc(out, v ? v : "n/a");
	fprintf(out, "</td></tr>\n");
}

/* The host's rows of the run table: name, kernel, CPU, memory, accel. */
static void html_meta_host(const struct report *r, FILE *out)
{
	char buf[FMT_BUF], *lab = fmt_lab_new(r);

	kv(out, "host", r->hostname);
	kv(out, "kernel", r->kernel);
	kv(out, "cpu", r->cpu_model);
	if (r->cpus < 0)
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), "%ld", r->cpus);
	kv(out, "cpus", buf);
	if (isnan(r->mem_bytes))
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), "%.1f GiB",
			 r->mem_bytes / (1 << 30));
	kv(out, "memory", buf);
	kv(out, "accel", r->accel);
	kv(out, "accel reason", r->accel_reason);
	if (lab)
		kv(out, "lab host (every cell ran inside it)", lab);
	free(lab);
	if (r->host_note)
		kv(out, "host identity", r->host_note);
}

static void html_meta(const struct report *r, FILE *out)
{
	char buf[FMT_BUF], *axes;
	const char *k;
	json_t *v;

	fprintf(out, "<h2>Run</h2>\n<table class=\"meta\">\n");
	kv(out, "run", r->run_name);
	kv(out, "status", r->run_status);
	kv(out, "started", r->started);
	kv(out, "finished", r->finished);
	kv(out, "workload", r->wl_name);
	kv(out, "description", r->wl_description);
	snprintf(buf, sizeof(buf), "%s in %s, %s", r->wl_metric, r->wl_unit,
		 fmt_better(r));
	kv(out, "metric", buf);
	json_object_foreach(r->wl_params, k, v)
	{
		fprintf(out, "<tr><th>param ");
		esc(out, k);
		fprintf(out, "</th><td>");
		esc(out, json_is_string(v) ? json_string_value(v) : "?");
		fprintf(out, "</td></tr>\n");
	}
	kv(out, "baseline", r->baseline_id);
	if ((axes = fmt_axes_new(r))) {
		kv(out, "axes", axes);
		free(axes);
	}
	html_meta_host(r, out);
	if (r->metric_warning)
		kv(out, "&#9888; warning", r->metric_warning);
	kv(out, "vmtax", r->v_vmtax);
	kv(out, "libvirt", r->v_libvirt);
	kv(out, "qemu", r->v_qemu);
	kv(out, "config", r->config_path);
	fprintf(out, "</table>\n");
	if (r->config_text) {
		fprintf(out, "<details><summary>config text</summary><pre>");
		esc(out, r->config_text);
		fprintf(out, "</pre></details>\n");
	}
}

static void html_cells(const struct report *r, FILE *out)
{
	char a[FMT_BUF], b[FMT_BUF], c1[FMT_BUF], d[FMT_BUF], e[FMT_BUF],
	    f[FMT_BUF], g[FMT_BUF];
	size_t i;

	fprintf(out, "<h2>Cells</h2>\n<table>\n<tr><th>cell</th><th>n</th>"
		     "<th>");
	esc(out, r->wl_metric);
	fprintf(out, " (");
	esc(out, r->wl_unit);
	fprintf(out, ")</th><th>&plusmn;</th><th>95%% CI</th><th>real (s)</th>"
		     "<th>user (s)</th><th>sys (s)</th><th>slowdown</th>"
		     "<th>95%% interval</th><th>p</th><th></th></tr>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		fprintf(out, "<tr data-id=\"");
		esc(out, c->id);
		fprintf(out, "\"><td>");
		esc(out, c->label);
		fprintf(out, "</td>");
		if (!c->nok) {
			fprintf(out, "<td>0</td><td colspan=\"10\" "
				     "class=\"skip\">");
			esc(out, c->status);
			fprintf(out, ": ");
			esc(out, fmt_reason(c));
			fprintf(out, "</td></tr>\n");
			continue;
		}
		fprintf(out,
			"<td>%zu</td><td>%s</td><td>%s</td><td>[%s, %s]"
			"</td><td>%s</td><td>%s</td><td>%s</td>",
			c->metric.n, fmt_num(a, sizeof(a), c->metric.mean),
			fmt_pct(b, sizeof(b), c->metric.cv),
			fmt_num(c1, sizeof(c1), c->metric.ci_lo),
			fmt_num(d, sizeof(d), c->metric.ci_hi),
			fmt_num(e, sizeof(e), c->elapsed.mean),
			fmt_num(f, sizeof(f), c->user.mean),
			fmt_num(g, sizeof(g), c->sys.mean));
		if (c->is_baseline)
			fprintf(out, "<td>baseline</td><td></td><td></td>"
				     "<td></td></tr>\n");
		else
			fprintf(out,
				"<td>%s</td><td>%s</td><td>%s</td>"
				"<td>%s</td></tr>\n",
				fmt_spct(a, sizeof(a), c->vs_base.delta),
				fmt_interval(b, sizeof(b), &c->vs_base),
				fmt_p(d, sizeof(d), c->vs_base.p),
				fmt_signif(&c->vs_base));
	}
	fprintf(out, "</table>\n");
}

static void html_counters(const struct report *r, FILE *out)
{
	size_t i;
	int k;

	fprintf(out, "<h2>Counters</h2>\n<p>mean (&plusmn; stddev/mean)</p>\n"
		     "<table>\n<tr><th>cell</th>");
	for (k = 0; k < RC_NR; k++)
		fprintf(out, "<th>%s</th>", runner_counter_name(k));
	fprintf(out, "<th>IPC</th><th>dTLB miss rate</th></tr>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (!c->nok)
			continue;
		fprintf(out, "<tr><td>");
		esc(out, c->label);
		fprintf(out, "</td>");
		for (k = 0; k < RC_NR; k++) {
			const struct report_counter_stats *cs = &c->counters[k];

			if (cs->state == CS_NOT_SUPPORTED)
				fprintf(out, "<td class=\"na\">&lt;not "
					     "supported&gt;</td>");
			else if (cs->state == CS_NOT_COUNTED)
				fprintf(out, "<td class=\"na\">&lt;not "
					     "counted&gt;</td>");
			else if (isnan(cs->rel_sd))
				fprintf(out, "<td>%.0f</td>", cs->mean);
			else
				fprintf(out, "<td>%.0f (&plusmn;%.2f%%)</td>",
					cs->mean, 100 * cs->rel_sd);
		}
		if (c->ipc.valid)
			fprintf(out, "<td>%.3f</td>", c->ipc.value);
		else
			fprintf(out, "<td class=\"na\">&lt;not "
				     "supported&gt;</td>");
		if (c->dtlb_miss_rate.valid)
			fprintf(out, "<td>%.2f%%</td></tr>\n",
				100 * c->dtlb_miss_rate.value);
		else
			fprintf(out, "<td class=\"na\">&lt;not "
				     "supported&gt;</td></tr>\n");
	}
	fprintf(out, "</table>\n");
}

static void html_matrix_table(const struct report *r, FILE *out)
{
	const struct report_matrix *m = &r->matrix;
	char buf[FMT_BUF];
	size_t row, col;

	fprintf(out, "<h2>Slowdown matrix</h2>\n<p>vs ");
	esc(out, r->cells[r->baseline].label);
	fprintf(out, "; * Welch p &lt; 0.05</p>\n<table>\n<tr>");
	for (col = 0; col < m->nrow_axes; col++) {
		fprintf(out, "<th>");
		esc(out, report_axis_heading(&r->axes[m->row_axes[col]]));
		fprintf(out, "</th>");
	}
	for (col = 0; col < m->ncols; col++) {
		fprintf(out, "<th>");
		esc(out, m->cols[col]);
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n");
	for (row = 0; row < m->nrows; row++) {
		fprintf(out, "<tr>");
		for (col = 0; col < m->nrow_axes; col++) {
			fprintf(out, "<td>");
			esc(out, fmt_row_value(m, row, col));
			fprintf(out, "</td>");
		}
		for (col = 0; col < m->ncols; col++) {
			fprintf(out, "<td>");
			esc(out, fmt_matrix_entry(buf, sizeof(buf), r,
						  m->slot[row * m->ncols + col]));
			fprintf(out, "</td>");
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

/* White at 0, red for slowdowns, green for speedups, by |d| / scale. */
static void heat_color(char *buf, size_t len, double d, double scale)
{
	double t = fmin(1, fabs(d) / scale);
	int fade = (int)lround(255 - 175 * t);

	if (d >= 0)
		snprintf(buf, len, "rgb(255,%d,%d)", fade, fade);
	else
		snprintf(buf, len, "rgb(%d,255,%d)", fade, fade);
}

static double delta_scale(const struct report *r)
{
	double scale = 0.01;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].vs_base.valid)
			scale = fmax(scale, fabs(r->cells[i].vs_base.delta));
	return scale;
}

/* The default rows: the legacy heading "guest / host THP". */
static bool default_rows(const struct report *r)
{
	const struct report_matrix *m = &r->matrix;

	return m->nrow_axes == 2 &&
	       !strcmp(r->axes[m->row_axes[0]].name, "guest-thp") &&
	       !strcmp(r->axes[m->row_axes[1]].name, "host-thp");
}

/* The row labels' width: HM_LABEL_W, or ~7 px a character if wider. */
static double heat_label_w(const struct report *r)
{
	const struct report_matrix *m = &r->matrix;
	size_t row, k, n, most = 0;

	for (k = 0, n = 0; k < m->nrow_axes; k++)
		n += strlen(r->axes[m->row_axes[k]].name) + 3;
	most = n;
	for (row = 0; row < m->nrows; row++) {
		for (k = 0, n = 0; k < m->nrow_axes; k++)
			n += strlen(fmt_row_value(m, row, k)) + 3;
		most = n > most ? n : most;
	}
	return fmax(HM_LABEL_W, 7.0 * most + 16);
}

static void heat_rect(const struct report *r, size_t i, size_t cpos,
		      size_t first, size_t span, double scale, FILE *out)
{
	const struct report_cell *c = &r->cells[i];
	char fill[FMT_BUF], entry[FMT_BUF];
	double x = heat_label_w(r) + cpos * HM_COL_W;
	double y = HM_HEAD_H + first * HM_ROW_H;

	if (!c->nok)
		snprintf(fill, sizeof(fill), "#d9d9d9");
	else if (c->is_baseline || !c->vs_base.valid)
		snprintf(fill, sizeof(fill), "#dce6f2");
	else
		heat_color(fill, sizeof(fill), c->vs_base.delta, scale);
	fmt_matrix_entry(entry, sizeof(entry), r, (long)i);
	fprintf(out, "<rect class=\"cell\" data-id=\"");
	esc(out, c->id);
	fprintf(out,
		"\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\"><title>",
		x + 1, y + 1, HM_COL_W - 2, span * HM_ROW_H - 2, fill);
	esc(out, c->label);
	fprintf(out, ": ");
	esc(out, entry);
	if (!c->nok && c->reason) {
		fprintf(out, ": ");
		esc(out, c->reason);
	}
	fprintf(out,
		"</title></rect>\n<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">",
		x + HM_COL_W / 2, y + span * HM_ROW_H / 2 + 4);
	esc(out, entry);
	fprintf(out, "</text>\n");
}

static void html_heatmap(const struct report *r, FILE *out)
{
	const struct report_matrix *m = &r->matrix;
	double scale = delta_scale(r);
	double lw = heat_label_w(r);
	double w = lw + m->ncols * HM_COL_W + 10;
	double h = HM_HEAD_H + m->nrows * HM_ROW_H + 10;
	size_t row, col, i;

	fprintf(out,
		"<h2>Heatmap</h2>\n<svg class=\"heatmap\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		w, h, w, h);
	fprintf(out, "<text x=\"4\" y=\"20\" class=\"hd\">");
	if (default_rows(r))
		fprintf(out, "guest / host THP");
	for (col = 0; !default_rows(r) && col < m->nrow_axes; col++) {
		fprintf(out, "%s", col ? " / " : "");
		esc(out, r->axes[m->row_axes[col]].name);
	}
	fprintf(out, "</text>\n");
	for (col = 0; col < m->ncols; col++) {
		fprintf(out,
			"<text x=\"%.1f\" y=\"20\" class=\"hd\" "
			"text-anchor=\"middle\">",
			lw + (col + 0.5) * HM_COL_W);
		esc(out, m->cols[col]);
		fprintf(out, "</text>\n");
	}
	for (row = 0; row < m->nrows; row++) {
		fprintf(out, "<text x=\"4\" y=\"%.1f\">",
			HM_HEAD_H + (row + 0.5) * HM_ROW_H + 4);
		for (col = 0; col < m->nrow_axes; col++) {
			fprintf(out, "%s", col ? " / " : "");
			esc(out, fmt_row_value(m, row, col));
		}
		fprintf(out, "</text>\n");
	}
	/* One rectangle per cell and run of adjacent rows it fills. */
	for (i = 0; i < r->ncells; i++)
		for (col = 0; col < m->ncols; col++)
			for (row = 0; row < m->nrows; row++) {
				size_t span = 0;

				if (m->slot[row * m->ncols + col] != (long)i ||
				    (row &&
				     m->slot[(row - 1) * m->ncols + col] ==
					 (long)i))
					continue;
				while (row + span < m->nrows &&
				       m->slot[(row + span) * m->ncols + col] ==
					   (long)i)
					span++;
				heat_rect(r, i, col, row, span, scale, out);
			}
	fprintf(out, "</svg>\n");
}

/* The bar chart's x scale: label width LW, then LO..LO+SPAN over BAR_W. */
struct bar_scale {
	double lw, lo, span;
};

static double bar_x(const struct bar_scale *b, double v)
{
	return b->lw + (v - b->lo) / b->span * BAR_W;
}

/* The scale for the cells with a slowdown; how many of them. */
static size_t bars_scale(const struct report *r, struct bar_scale *b)
{
	double lo = 0, hi = 0, span;
	size_t i, n = 0;

	b->lw = BAR_LABEL_W;
	for (i = 0; i < r->ncells; i++) {
		const struct stats_delta *d = &r->cells[i].vs_base;

		if (!d->valid)
			continue;
		n++;
		/* Labels with more axes need more room (~6.8 px a character). */
		b->lw = fmax(b->lw, 6.8 * strlen(r->cells[i].label) + 12);
		lo = fmin(lo, d->bounded ? d->lo : d->delta);
		hi = fmax(hi, d->bounded ? d->hi : d->delta);
	}
	span = hi - lo > 0 ? hi - lo : 1;
	lo -= span * 0.05;
	hi += span * 0.05;
	b->lo = lo;
	b->span = hi - lo;
	return n;
}

/* Cell C's bar in row Y: its label, bar, whisker and value. */
static void html_bar(const struct bar_scale *b, const struct report_cell *c,
		     double y, FILE *out)
{
	const struct stats_delta *d = &c->vs_base;
	double x0 = bar_x(b, 0), xv = bar_x(b, d->delta), lw = b->lw;
	char buf[FMT_BUF], iv[FMT_BUF];

	fprintf(out, "<g class=\"bar\" data-id=\"");
	esc(out, c->id);
	fprintf(out, "\"><title>");
	esc(out, c->label);
	fprintf(out, ": %s %s</title>\n", fmt_spct(buf, sizeof(buf), d->delta),
		fmt_interval(iv, sizeof(iv), d));
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">",
		lw - 6, y + 16);
	esc(out, c->label);
	fprintf(out,
		"</text>\n<rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\" class=\"%s\"/>\n",
		fmin(x0, xv), y + 5, fabs(xv - x0), BAR_H - 10,
		d->delta >= 0 ? "slow" : "fast");
	if (d->bounded)
		fprintf(out,
			"<path class=\"whisker\" d=\"M%.1f %.1fV"
			"%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f\"/>\n",
			bar_x(b, d->lo), y + 7, y + BAR_H - 7, bar_x(b, d->lo),
			y + BAR_H / 2, bar_x(b, d->hi), bar_x(b, d->hi), y + 7,
			y + BAR_H - 7);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\">%s%s%s</text>"
		"</g>\n",
		lw + BAR_W + 6, y + 16, buf, d->significant ? "*" : "",
		d->bounded ? "" : " (unbounded)");
}

static void html_bars(const struct report *r, FILE *out)
{
	struct bar_scale b;
	double x0, lw;
	size_t i, n, k = 0;

	n = bars_scale(r, &b);
	lw = b.lw;
	fprintf(out, "<h2>Slowdown with 95%% interval (Fieller)</h2>\n");
	if (!n) {
		fprintf(out, "<p>no cell has a slowdown</p>\n");
		return;
	}
	x0 = bar_x(&b, 0);
	fprintf(out,
		"<svg class=\"bars\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		lw + BAR_W + 90, n * BAR_H + 30,
		lw + BAR_W + 90, n * BAR_H + 30);
	fprintf(out,
		"<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\" "
		"class=\"axis\"/>\n",
		x0, x0, n * BAR_H + 6);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">0%%"
		"</text>\n",
		x0, n * BAR_H + 22);
	for (i = 0; i < r->ncells; i++) {
		if (!r->cells[i].vs_base.valid)
			continue;
		html_bar(&b, &r->cells[i], k * BAR_H, out);
		k++;
	}
	fprintf(out, "</svg>\n");
}

/* The series chart's scale: log2 x from XLO to XHI, y from 0 to YHI. */
struct series_scale {
	double xlo, xhi, yhi;
};

static double series_x(const struct series_scale *s, double v)
{
	return SER_LEFT + (log2(v) - s->xlo) / (s->xhi - s->xlo) * SER_W;
}

static double series_y(const struct series_scale *s, double v)
{
	return SER_TOP + SER_H - v / s->yhi * SER_H;
}

/* Cell C's line, the N-th, and its entry in the key. */
static void series_line(const struct series_scale *sc,
			const struct report_cell *c, size_t n, FILE *out)
{
	const char *color = fmt_colors[n % fmt_ncolors];
	const char *sep;
	size_t k;

	fprintf(out, "<g data-id=\"");
	esc(out, c->id);
	fprintf(out, "\"><title>");
	esc(out, c->label);
	fprintf(out, "</title>\n<polyline class=\"series\" data-id=\"");
	esc(out, c->id);
	fprintf(out, "\" fill=\"none\" stroke=\"%s\" points=\"", color);
	for (k = 0, sep = ""; k < c->series.npoints; k++) {
		if (c->series.x[k] <= 0 || isnan(c->series.y[k]))
			continue;
		fprintf(out, "%s%.1f,%.1f", sep, series_x(sc, c->series.x[k]),
			series_y(sc, c->series.y[k]));
		sep = " ";
	}
	fprintf(out, "\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
		SER_LEFT + SER_W + 10, SER_TOP + 12 + 16.0 * n, color);
	esc(out, c->label);
	fprintf(out, "</text></g>\n");
}

/* One line per cell with a series: log2 x, linear y from 0. */
static void html_series(const struct report *r, FILE *out)
{
	struct series_scale sc = {INFINITY, -INFINITY, 0};
	size_t i, k, n = 0;

	if (!r->has_series)
		return;
	for (i = 0; i < r->ncells; i++) {
		const struct report_series *s = &r->cells[i].series;

		for (k = 0; k < s->npoints; k++) {
			if (s->x[k] <= 0 || isnan(s->y[k]))
				continue;
			sc.xlo = fmin(sc.xlo, log2(s->x[k]));
			sc.xhi = fmax(sc.xhi, log2(s->x[k]));
			sc.yhi = fmax(sc.yhi, s->y[k]);
		}
	}
	fprintf(out, "<h2>Series (x on a log2 scale, mean y)</h2>\n");
	if (sc.xlo > sc.xhi) {
		fprintf(out, "<p>no series point has x &gt; 0</p>\n");
		return;
	}
	if (sc.xhi - sc.xlo <= 0)
		sc.xhi = sc.xlo + 1;
	if (sc.yhi <= 0)
		sc.yhi = 1;
	fprintf(out,
		"<svg class=\"series\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		SER_LEFT + SER_W + SER_KEY_W, SER_TOP + SER_H + 40,
		SER_LEFT + SER_W + SER_KEY_W, SER_TOP + SER_H + 40);
	fprintf(
	    out,
	    "<path class=\"axis\" fill=\"none\" d=\"M%.1f %.1fV%.1fH%.1f\"/>"
	    "\n",
	    SER_LEFT, SER_TOP, SER_TOP + SER_H, SER_LEFT + SER_W);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
		SER_LEFT - 4, SER_TOP + 10, sc.yhi, SER_LEFT - 4,
		SER_TOP + SER_H);
	fprintf(
	    out,
	    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n"
	    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
	    SER_LEFT, SER_TOP + SER_H + 16, exp2(sc.xlo), SER_LEFT + SER_W,
	    SER_TOP + SER_H + 16, exp2(sc.xhi));
	for (i = 0; i < r->ncells; i++) {
		if (!r->cells[i].series.npoints)
			continue;
		series_line(&sc, &r->cells[i], n, out);
		n++;
	}
	fprintf(out, "</svg>\n");
}

/* What KVM saw per guest cell; nothing for a run without KVM evidence. */
static void html_kvm(const struct report *r, FILE *out)
{
	char buf[512], n[FMT_BUF], sh[FMT_BUF];
	size_t i, j;

	if (!r->has_kvm)
		return;
	fprintf(out, "<h2>KVM</h2>\n<p>what KVM saw of each guest, per "
		     "sample</p>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		const struct report_kvm *k = &c->kvm;

		if (!fmt_kvm_shown(r, c))
			continue;
		fprintf(out, "<h3>");
		esc(out, c->label);
		fprintf(out, "</h3>\n");
		if (!k->present) {
			fprintf(out, "<p class=\"na\" data-id=\"");
			esc(out, c->id);
			fprintf(out, "\">no evidence: ");
			esc(out, k->why);
			fprintf(out, "</p>\n");
			continue;
		}
		fprintf(out, "<p>");
		esc(out, fmt_kvm_summary(buf, sizeof(buf), k));
		fprintf(out, "</p>\n");
		if (!k->nreason_samples) {
			fprintf(out, "<p class=\"na\">exits by reason n/a: ");
			esc(out, k->reasons_why);
			fprintf(out, "</p>\n");
		} else {
			fprintf(out, "<table class=\"kvm\" data-id=\"");
			esc(out, c->id);
			fprintf(out, "\">\n<tr><th>exit reason</th><th>per "
				     "sample</th><th>share</th></tr>\n");
			for (j = 0; j < k->nreasons && j < FMT_KVM_TOP; j++) {
				fprintf(out, "<tr><td>");
				esc(out, k->reasons[j].reason);
				fprintf(out,
					"</td><td>%s</td><td>%s</td></tr>\n",
					fmt_count(n, sizeof(n),
						  k->reasons[j].per_sample),
					fmt_pct(sh, sizeof(sh),
						k->reasons[j].share));
			}
			fprintf(out, "</table>\n");
		}
		if (*fmt_kvm_counter_list(buf, sizeof(buf), k)) {
			fprintf(out, "<p>per sample: ");
			esc(out, buf);
			fprintf(out, "</p>\n");
		}
	}
}

static void html_observed(const struct report *r, FILE *out)
{
	size_t i;

	fprintf(out, "<h2>Requested and observed settings</h2>\n<table>\n"
		     "<tr><th>cell</th><th>status</th><th>host THP requested"
		     "</th><th>observed</th><th>guest THP requested</th>"
		     "<th>observed</th><th>guest kernel</th><th></th></tr>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		fprintf(out, "<tr%s><td>",
			c->mismatch || c->busy_text ? " class=\"flag\"" : "");
		esc(out, c->id);
		fprintf(out, "</td><td>");
		esc(out, c->status);
		if (c->reason) {
			fprintf(out, ": ");
			esc(out, c->reason);
		}
		fprintf(out, "</td><td>");
		esc(out, c->host_thp ? c->host_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->obs_host_thp ? c->obs_host_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->guest_thp ? c->guest_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->obs_guest_thp ? c->obs_guest_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->guest_kernel ? c->guest_kernel : "-");
		fprintf(out, "</td><td>");
		if (c->mismatch_text) {
			fprintf(out, "&#9888; ");
			esc(out, c->mismatch_text);
		}
		if (c->busy_text) {
			fprintf(out, "%s&#9888; busy host: ",
				c->mismatch_text ? "<br>" : "");
			esc(out, c->busy_text);
		}
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
}

static const char *const css =
    "body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{border:1px solid #bbb;padding:2px 6px;text-align:left}"
    "td{font-variant-numeric:tabular-nums}"
    ".meta th{background:#f3f3f3}.na{color:#888}.skip{color:#a33}"
    "tr.flag td{background:#fff3c4}"
    "svg text{font:12px sans-serif}svg .hd{font-weight:bold}"
    "rect.cell{stroke:#666}.slow{fill:#e06666}.fast{fill:#6aa84f}"
    ".whisker{stroke:#222;stroke-width:1.5;fill:none}"
    ".axis{stroke:#888}pre{background:#f6f6f6;padding:.5em}";

void fmt_html_begin(FILE *out, const char *title1, const char *title2)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n<title>");
	esc(out, title1);
	esc(out, title2);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	esc(out, title1);
	esc(out, title2);
	fprintf(out, "</h1>\n");
}

/* How the cells sampled: only when some cell has something to say. */
static void html_sampling(const struct report *r, FILE *out)
{
	char buf[512];
	size_t i;
	bool any = false;

	for (i = 0; i < r->ncells; i++)
		any |= fmt_sampling_shown(&r->cells[i]);
	if (!any)
		return;
	fprintf(out, "<h2>Sampling</h2>\n<table>\n<tr><th>cell</th>"
		     "<th>stopped</th><th>boots</th><th>outliers (kept)</th>"
		     "<th>trend (Mann-Kendall)</th></tr>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (!fmt_sampling_shown(c))
			continue;
		fprintf(out, "<tr><td>");
		esc(out, c->label);
		fprintf(out, "</td><td>");
		esc(out, fmt_stop(buf, sizeof(buf), c));
		fprintf(out, "</td><td>");
		esc(out, fmt_boots(buf, sizeof(buf), c));
		fprintf(out, "</td><td>");
		esc(out, fmt_outliers(buf, sizeof(buf), c));
		fprintf(out, "</td><td>");
		esc(out, fmt_trend(buf, sizeof(buf), c));
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
	for (i = 0, any = false; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		char iv[1024];

		if (!*fmt_iv(iv, sizeof(iv), r, c))
			continue;
		if (!any)
			fprintf(out, "<p>Intervals from interleaved rounds:</p>\n<ul>\n");
		any = true;
		fprintf(out, "<li>");
		esc(out, c->label);
		fprintf(out, ": ");
		esc(out, iv);
		fprintf(out, "</li>\n");
	}
	if (any)
		fprintf(out, "</ul>\n");
}

static int html_render(const struct report *r, FILE *out)
{
	char buf[FMT_BUF];
	size_t i, n = 0;

	fmt_html_begin(out, "vmtax report: ", r->run_name);
	{
		char *lab = fmt_lab_new(r);

		if (lab) {
			fprintf(out, "<p class=\"lab\" style=\"background:#fff3cd;padding:.5em\"><b>Emulated hardware.</b> "
				     "Every cell ran inside a lab host: ");
			esc(out, lab);
			fprintf(out, ".</p>\n");
		}
		free(lab);
	}
	html_matrix_table(r, out);
	html_heatmap(r, out);
	html_bars(r, out);
	html_series(r, out);
	for (i = 0; i < r->nscaling; i++)
		fmt_html_scaling(r, &r->scaling[i], out);
	fprintf(out,
		"<p>Geometric mean of (1 + slowdown) over %zu cells: "
		"slowdown <b>%s</b>.</p>\n",
		r->ngeo, fmt_pct(buf, sizeof(buf), r->geomean_slowdown));
	html_cells(r, out);
	html_sampling(r, out);
	html_counters(r, out);
	html_kvm(r, out);
	if (r->has_profile)
		fprintf(out, "<h2>Profiles</h2>\n");
	for (i = 0; i < r->ncells; i++)
		fmt_html_profile(r, &r->cells[i], out);
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (c->nok)
			continue;
		if (!n++)
			fprintf(out, "<h2>Not measured</h2>\n<ul>\n");
		fprintf(out, "<li><code>");
		esc(out, c->id);
		fprintf(out, "</code> ");
		esc(out, c->status);
		fprintf(out, ": ");
		esc(out, fmt_reason(c));
		fprintf(out, "</li>\n");
	}
	if (n)
		fprintf(out, "</ul>\n");
	html_observed(r, out);
	html_meta(r, out);
	fprintf(out, "</body>\n</html>\n");
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_format_html = {
    .name = "html",
    .render = html_render,
    .render_compare = fmt_html_compare,
};
