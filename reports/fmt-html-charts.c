/* SPDX-License-Identifier: MIT */
/*
 * html: the run's charts (format.h fmt_html_heatmap and its like), inline
 * SVG like the rest of the page.  The heatmap has exactly one <rect
 * class="cell" data-id=ID> per matrix cell (a bare-metal cell spans the
 * guest rows of its host THP); the bar chart one <g class="bar"
 * data-id=ID> per cell with a slowdown; the series chart, drawn only when
 * some cell has a series, one <polyline class="series" data-id=ID> per
 * such cell (x on a log2 axis).
 */
#include "format.h"

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
	       !strcmp(r->axes[m->row_axes[0]].name, AXIS_NAME_GUEST_THP) &&
	       !strcmp(r->axes[m->row_axes[1]].name, AXIS_NAME_HOST_THP);
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
	fmt_html_escape(out, c->id);
	fprintf(out,
		"\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\"><title>",
		x + 1, y + 1, HM_COL_W - 2, span * HM_ROW_H - 2, fill);
	fmt_html_escape(out, c->label);
	fprintf(out, ": ");
	fmt_html_escape(out, entry);
	if (!c->nok && c->reason) {
		fprintf(out, ": ");
		fmt_html_escape(out, c->reason);
	}
	fprintf(out,
		"</title></rect>\n<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">",
		x + HM_COL_W / 2, y + span * HM_ROW_H / 2 + 4);
	fmt_html_escape(out, entry);
	fprintf(out, "</text>\n");
}

void fmt_html_heatmap(const struct report *r, FILE *out)
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
		fmt_html_escape(out, r->axes[m->row_axes[col]].name);
	}
	fprintf(out, "</text>\n");
	for (col = 0; col < m->ncols; col++) {
		fprintf(out,
			"<text x=\"%.1f\" y=\"20\" class=\"hd\" "
			"text-anchor=\"middle\">",
			lw + (col + 0.5) * HM_COL_W);
		fmt_html_escape(out, m->cols[col]);
		fprintf(out, "</text>\n");
	}
	for (row = 0; row < m->nrows; row++) {
		fprintf(out, "<text x=\"4\" y=\"%.1f\">",
			HM_HEAD_H + (row + 0.5) * HM_ROW_H + 4);
		for (col = 0; col < m->nrow_axes; col++) {
			fprintf(out, "%s", col ? " / " : "");
			fmt_html_escape(out, fmt_row_value(m, row, col));
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
	fmt_html_escape(out, c->id);
	fprintf(out, "\"><title>");
	fmt_html_escape(out, c->label);
	fprintf(out, ": %s %s</title>\n", fmt_spct(buf, sizeof(buf), d->delta),
		fmt_interval_why(iv, sizeof(iv), d));
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">",
		lw - 6, y + 16);
	fmt_html_escape(out, c->label);
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

void fmt_html_bars(const struct report *r, FILE *out)
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
	fmt_html_escape(out, c->id);
	fprintf(out, "\"><title>");
	fmt_html_escape(out, c->label);
	fprintf(out, "</title>\n<polyline class=\"series\" data-id=\"");
	fmt_html_escape(out, c->id);
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
	fmt_html_escape(out, c->label);
	fprintf(out, "</text></g>\n");
}

/* One line per cell with a series: log2 x, linear y from 0. */
void fmt_html_series(const struct report *r, FILE *out)
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
