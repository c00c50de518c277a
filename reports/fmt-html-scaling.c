/* SPDX-License-Identifier: MIT */
/*
 * html: the chart of the slowdown against a numeric axis (format.h
 * fmt_html_scaling), inline SVG like the rest of the page.
 */
#include "format.h"

#include <math.h>
#include <string.h>

#define SC_LEFT 60.0
#define SC_W 520.0
#define SC_H 260.0
#define SC_TOP 10.0
#define SC_KEY_W 330.0

/* A round tick step, 1, 2 or 5 times a power of ten, near SPAN / 5. */
static double nice_step(double span)
{
	double raw = span / 5, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* A y tick in percent with as many decimals as STEP needs: "150%". */
static char *tick(char *buf, size_t len, double t, double step)
{
	int dec = step >= 0.00999 ? 0 : step >= 0.000999 ? 1 : 2;

	snprintf(buf, len, "%.*f%%", dec, fabs(t) < step / 1000 ? 0 : 100 * t);
	return buf;
}

/* Is the axis drawn on a log2 scale (all values > 0, spanning 4x)? */
static bool scaling_log(const struct report_axis *a)
{
	double lo = INFINITY, hi = 0;
	size_t k;

	for (k = 0; k < a->nvalues; k++) {
		if (a->numbers[k] <= 0)
			return false;
		lo = fmin(lo, a->numbers[k]);
		hi = fmax(hi, a->numbers[k]);
	}
	return hi / lo >= 4;
}

/* A point's slowdown and interval; false when it has none to draw. */
static bool scaling_y(const struct report *r, long cell, double *y, double *lo,
		      double *hi)
{
	const struct report_cell *c = &r->cells[cell];

	if (c->is_baseline && c->nok) {
		*y = *lo = *hi = 0;
		return true;
	}
	if (!c->vs_base.valid)
		return false;
	*y = c->vs_base.delta;
	*lo = c->vs_base.bounded ? c->vs_base.lo : *y;
	*hi = c->vs_base.bounded ? c->vs_base.hi : *y;
	return true;
}

/* One chart: the data it draws, its ranges, and where it is written. */
struct scaling_plot {
	const struct report *r;
	const struct report_scaling *s;
	const struct report_axis *a;
	bool lg; /* x on a log2 scale */
	double xlo, xhi, ylo, yhi, step;
	double w, h;
	FILE *out;
};

static double plot_x(const struct scaling_plot *p, double v)
{
	return SC_LEFT + 20 +
	       ((p->lg ? log2(v) : v) - p->xlo) / (p->xhi - p->xlo) *
		   (SC_W - 40);
}

static double plot_y(const struct scaling_plot *p, double v)
{
	return SC_TOP + SC_H - (v - p->ylo) / (p->yhi - p->ylo) * SC_H;
}

/* The key is as wide as its longest entry (~7 px a character). */
static double scaling_width(const struct scaling_plot *p)
{
	const struct report_scaling *s = p->s;
	double w = SC_LEFT + SC_W + SC_KEY_W, y, lo, hi;
	size_t j, k;

	for (j = 0; j < s->nlines; j++) {
		const struct report_scaling_line *l = &s->lines[j];
		size_t n = strlen(l->label);

		for (k = 0; k < l->npoints; k++)
			if (!scaling_y(p->r, l->points[k].cell, &y, &lo, &hi))
				n +=
				    strlen(p->a->name) +
				    strlen(l->points[k].value) +
				    strlen(
					p->r->cells[l->points[k].cell].status) +
				    4;
		w = fmax(w, SC_LEFT + SC_W + 44 + 7.0 * n);
	}
	return w;
}

/* The x range (the axis's values), the y range (0 and every interval,
 * rounded out to the tick step) and the size of the picture. */
static void scaling_ranges(struct scaling_plot *p)
{
	const struct report_scaling *s = p->s;
	double y, lo, hi;
	size_t j, k;

	p->xlo = INFINITY;
	p->xhi = -INFINITY;
	p->ylo = p->yhi = 0;
	for (k = 0; k < p->a->nvalues; k++) {
		double v = p->lg ? log2(p->a->numbers[k]) : p->a->numbers[k];

		p->xlo = fmin(p->xlo, v);
		p->xhi = fmax(p->xhi, v);
	}
	for (j = 0; j < s->nlines; j++)
		for (k = 0; k < s->lines[j].npoints; k++)
			if (scaling_y(p->r, s->lines[j].points[k].cell, &y, &lo,
				      &hi)) {
				p->ylo = fmin(p->ylo, lo);
				p->yhi = fmax(p->yhi, hi);
			}
	p->w = scaling_width(p);
	p->h = SC_TOP + SC_H + 46;
	if (p->xhi - p->xlo <= 0)
		p->xhi = p->xlo + 1;
	if (p->yhi - p->ylo <= 0)
		p->yhi = p->ylo + 0.01;
	p->step = nice_step(p->yhi - p->ylo);
	p->ylo = floor(p->ylo / p->step) * p->step;
	p->yhi = ceil(p->yhi / p->step) * p->step;
}

/* The heading, the <svg> and its axes: y ticks in percent, x values. */
static void scaling_axes(const struct scaling_plot *p)
{
	const struct report_axis *a = p->a;
	FILE *out = p->out;
	char buf[FMT_BUF];
	double t;
	size_t k;

	fprintf(out, "<h2>Slowdown against ");
	fmt_html_escape(out, a->name);
	fprintf(out, " (95%% interval, Fieller; vs ");
	fmt_html_escape(out, p->r->cells[p->r->baseline].label);
	fprintf(out, ")</h2>\n<svg class=\"scaling\" data-axis=\"");
	fmt_html_escape(out, a->name);
	fprintf(out,
		"\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\">\n",
		p->w, p->h, p->w, p->h);
	for (t = p->ylo; t <= p->yhi + p->step / 2; t += p->step) {
		fprintf(out,
			"<line stroke=\"#e4e4e4\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n<text x=\"%.1f\" "
			"y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			SC_LEFT, plot_y(p, t), SC_LEFT + SC_W, plot_y(p, t),
			SC_LEFT - 4, plot_y(p, t) + 4,
			tick(buf, sizeof(buf), t, p->step));
	}
	fprintf(out,
		"<path class=\"axis\" fill=\"none\" d=\"M%.1f %.1fV%.1f"
		"H%.1f\"/>\n",
		SC_LEFT, SC_TOP, SC_TOP + SC_H, SC_LEFT + SC_W);
	if (p->ylo < 0)
		fprintf(out,
			"<line stroke=\"#888\" stroke-dasharray=\"4 3\" "
			"x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n",
			SC_LEFT, plot_y(p, 0), SC_LEFT + SC_W, plot_y(p, 0));
	for (k = 0; k < a->nvalues; k++) {
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">",
			plot_x(p, a->numbers[k]), SC_TOP + SC_H + 16);
		fmt_html_escape(out, a->values[k]);
		fprintf(out, "</text>\n");
	}
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		"class=\"hd\">",
		SC_LEFT + SC_W / 2, SC_TOP + SC_H + 36);
	fmt_html_escape(out, a->name);
	fprintf(out, "%s</text>\n", p->lg ? " (log2 scale)" : "");
}

/* Point K of line L: its title, its 95% whisker and its dot at x + DX. */
static void scaling_point(const struct scaling_plot *p,
			  const struct report_scaling_line *l, size_t k,
			  const char *color, double dx)
{
	const struct report_cell *c = &p->r->cells[l->points[k].cell];
	double px = plot_x(p, l->points[k].x) + dx, y, lo, hi;
	FILE *out = p->out;
	char buf[FMT_BUF];

	if (!scaling_y(p->r, l->points[k].cell, &y, &lo, &hi))
		return;
	fprintf(out, "<g class=\"point\" data-id=\"");
	fmt_html_escape(out, c->id);
	fprintf(out, "\"><title>");
	fmt_html_escape(out, l->label);
	fprintf(out, ", ");
	fmt_html_escape(out, p->a->name);
	fprintf(out, "=");
	fmt_html_escape(out, l->points[k].value);
	fprintf(out, ": %s</title>",
		fmt_scaling_entry(buf, sizeof(buf), p->r, l->points[k].cell));
	if (hi > lo)
		fprintf(out,
			"<path stroke=\"%s\" stroke-width=\"1.5\" "
			"fill=\"none\" "
			"d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1f"
			"M%.1f %.1fH%.1f\"/>",
			color, px - 3, plot_y(p, lo), px + 3, px, plot_y(p, lo),
			plot_y(p, hi), px - 3, plot_y(p, hi), px + 3);
	fprintf(out,
		"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
		"fill=\"%s\"/></g>\n",
		px, plot_y(p, y), color);
}

/* Line J's entry in the key; a point with nothing to draw is said. */
static void scaling_key(const struct scaling_plot *p, size_t j,
			const char *color)
{
	const struct report_scaling_line *l = &p->s->lines[j];
	FILE *out = p->out;
	double y, lo, hi;
	size_t k;

	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" "
		"height=\"3\" fill=\"%s\"/><text x=\"%.1f\" "
		"y=\"%.1f\">",
		SC_LEFT + SC_W + 12, SC_TOP + 8 + 18.0 * j, color,
		SC_LEFT + SC_W + 32, SC_TOP + 13 + 18.0 * j);
	fmt_html_escape(out, l->label);
	for (k = 0; k < l->npoints; k++) {
		if (scaling_y(p->r, l->points[k].cell, &y, &lo, &hi))
			continue;
		fprintf(out, "; ");
		fmt_html_escape(out, p->a->name);
		fprintf(out, "=");
		fmt_html_escape(out, l->points[k].value);
		fprintf(out, " ");
		fmt_html_escape(out, p->r->cells[l->points[k].cell].status);
	}
	fprintf(out, "</text>");
}

/* Line J: its polyline, its points (dodged sideways) and its key entry. */
static void scaling_line(const struct scaling_plot *p, size_t j)
{
	const struct report_scaling_line *l = &p->s->lines[j];
	const char *color = fmt_colors[j % fmt_ncolors];
	double dx = (j - (p->s->nlines - 1) / 2.0) * 5, y, lo, hi;
	const char *sep;
	FILE *out = p->out;
	size_t k;

	fprintf(out,
		"<g class=\"scaling-line\"><polyline "
		"class=\"scaling\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\" points=\"",
		color);
	for (k = 0, sep = ""; k < l->npoints; k++) {
		if (!scaling_y(p->r, l->points[k].cell, &y, &lo, &hi))
			continue;
		fprintf(out, "%s%.1f,%.1f", sep, plot_x(p, l->points[k].x) + dx,
			plot_y(p, y));
		sep = " ";
	}
	fprintf(out, "\"/>\n");
	for (k = 0; k < l->npoints; k++)
		scaling_point(p, l, k, color, dx);
	scaling_key(p, j, color);
	fprintf(out, "</g>\n");
}

/*
 * Slowdown against a numeric axis: one polyline per line of the model's
 * scaling, a dot with a 95% whisker per point (dodged sideways a little so
 * lines at the same value do not hide each other), x ticks at the axis's
 * values (log2 when they span 4x or more), y in percent from 0.
 */
void fmt_html_scaling(const struct report *r, const struct report_scaling *s,
		      FILE *out)
{
	struct scaling_plot p = {
	    .r = r,
	    .s = s,
	    .a = &r->axes[s->axis],
	    .lg = scaling_log(&r->axes[s->axis]),
	    .out = out,
	};
	size_t j;

	scaling_ranges(&p);
	scaling_axes(&p);
	for (j = 0; j < s->nlines; j++)
		scaling_line(&p, j);
	fprintf(out, "</svg>\n");
}
