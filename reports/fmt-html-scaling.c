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

/*
 * Slowdown against a numeric axis: one polyline per line of the model's
 * scaling, a dot with a 95% whisker per point (dodged sideways a little so
 * lines at the same value do not hide each other), x ticks at the axis's
 * values (log2 when they span 4x or more), y in percent from 0.
 */
void fmt_html_scaling(const struct report *r, const struct report_scaling *s,
		      FILE *out)
{
	const struct report_axis *a = &r->axes[s->axis];
	double xlo = INFINITY, xhi = -INFINITY, ylo = 0, yhi = 0, y, lo, hi;
	double step, t, w = SC_LEFT + SC_W + SC_KEY_W;
	double h = SC_TOP + SC_H + 46;
	bool lg = scaling_log(a);
	char buf[FMT_BUF];
	const char *sep;
	size_t j, k;

	for (k = 0; k < a->nvalues; k++) {
		double v = lg ? log2(a->numbers[k]) : a->numbers[k];

		xlo = fmin(xlo, v);
		xhi = fmax(xhi, v);
	}
	for (j = 0; j < s->nlines; j++)
		for (k = 0; k < s->lines[j].npoints; k++)
			if (scaling_y(r, s->lines[j].points[k].cell, &y, &lo,
				      &hi)) {
				ylo = fmin(ylo, lo);
				yhi = fmax(yhi, hi);
			}
	/* The key is as wide as its longest entry (~7 px a character). */
	for (j = 0; j < s->nlines; j++) {
		size_t n = strlen(s->lines[j].label);

		for (k = 0; k < s->lines[j].npoints; k++)
			if (!scaling_y(r, s->lines[j].points[k].cell, &y, &lo,
				       &hi))
				n += strlen(a->name) +
				     strlen(s->lines[j].points[k].value) +
				     strlen(r->cells[s->lines[j].points[k].cell]
						.status) +
				     4;
		w = fmax(w, SC_LEFT + SC_W + 44 + 7.0 * n);
	}
	if (xhi - xlo <= 0)
		xhi = xlo + 1;
	if (yhi - ylo <= 0)
		yhi = ylo + 0.01;
	step = nice_step(yhi - ylo);
	ylo = floor(ylo / step) * step;
	yhi = ceil(yhi / step) * step;
#define KX(v)                                                                  \
	(SC_LEFT + 20 +                                                        \
	 ((lg ? log2(v) : (v)) - xlo) / (xhi - xlo) * (SC_W - 40))
#define KY(v) (SC_TOP + SC_H - ((v)-ylo) / (yhi - ylo) * SC_H)
	fprintf(out, "<h2>Slowdown against ");
	fmt_html_escape(out, a->name);
	fprintf(out, " (95%% interval, Fieller; vs ");
	fmt_html_escape(out, r->cells[r->baseline].label);
	fprintf(out, ")</h2>\n<svg class=\"scaling\" data-axis=\"");
	fmt_html_escape(out, a->name);
	fprintf(out,
		"\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\">\n",
		w, h, w, h);
	for (t = ylo; t <= yhi + step / 2; t += step) {
		fprintf(out,
			"<line stroke=\"#e4e4e4\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n<text x=\"%.1f\" "
			"y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			SC_LEFT, KY(t), SC_LEFT + SC_W, KY(t), SC_LEFT - 4,
			KY(t) + 4, tick(buf, sizeof(buf), t, step));
	}
	fprintf(out,
		"<path class=\"axis\" fill=\"none\" d=\"M%.1f %.1fV%.1f"
		"H%.1f\"/>\n",
		SC_LEFT, SC_TOP, SC_TOP + SC_H, SC_LEFT + SC_W);
	if (ylo < 0)
		fprintf(out,
			"<line stroke=\"#888\" stroke-dasharray=\"4 3\" "
			"x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n",
			SC_LEFT, KY(0), SC_LEFT + SC_W, KY(0));
	for (k = 0; k < a->nvalues; k++) {
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">",
			KX(a->numbers[k]), SC_TOP + SC_H + 16);
		fmt_html_escape(out, a->values[k]);
		fprintf(out, "</text>\n");
	}
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		"class=\"hd\">",
		SC_LEFT + SC_W / 2, SC_TOP + SC_H + 36);
	fmt_html_escape(out, a->name);
	fprintf(out, "%s</text>\n", lg ? " (log2 scale)" : "");
	for (j = 0; j < s->nlines; j++) {
		const struct report_scaling_line *l = &s->lines[j];
		const char *color = fmt_colors[j % fmt_ncolors];
		double dx = (j - (s->nlines - 1) / 2.0) * 5;

		fprintf(out,
			"<g class=\"scaling-line\"><polyline "
			"class=\"scaling\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" points=\"",
			color);
		for (k = 0, sep = ""; k < l->npoints; k++) {
			if (!scaling_y(r, l->points[k].cell, &y, &lo, &hi))
				continue;
			fprintf(out, "%s%.1f,%.1f", sep,
				KX(l->points[k].x) + dx, KY(y));
			sep = " ";
		}
		fprintf(out, "\"/>\n");
		for (k = 0; k < l->npoints; k++) {
			const struct report_cell *c =
			    &r->cells[l->points[k].cell];
			double px = KX(l->points[k].x) + dx;

			if (!scaling_y(r, l->points[k].cell, &y, &lo, &hi))
				continue;
			fprintf(out, "<g class=\"point\" data-id=\"");
			fmt_html_escape(out, c->id);
			fprintf(out, "\"><title>");
			fmt_html_escape(out, l->label);
			fprintf(out, ", ");
			fmt_html_escape(out, a->name);
			fprintf(out, "=");
			fmt_html_escape(out, l->points[k].value);
			fprintf(out, ": %s</title>",
				fmt_scaling_entry(buf, sizeof(buf), r,
						  l->points[k].cell));
			if (hi > lo)
				fprintf(
				    out,
				    "<path stroke=\"%s\" stroke-width=\"1.5\" "
				    "fill=\"none\" "
				    "d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1f"
				    "M%.1f %.1fH%.1f\"/>",
				    color, px - 3, KY(lo), px + 3, px, KY(lo),
				    KY(hi), px - 3, KY(hi), px + 3);
			fprintf(out,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
				"fill=\"%s\"/></g>\n",
				px, KY(y), color);
		}
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" "
			"height=\"3\" fill=\"%s\"/><text x=\"%.1f\" "
			"y=\"%.1f\">",
			SC_LEFT + SC_W + 12, SC_TOP + 8 + 18.0 * j, color,
			SC_LEFT + SC_W + 32, SC_TOP + 13 + 18.0 * j);
		fmt_html_escape(out, l->label);
		/* A point with nothing to draw is said, not silently dropped.
		 */
		for (k = 0; k < l->npoints; k++) {
			if (scaling_y(r, l->points[k].cell, &y, &lo, &hi))
				continue;
			fprintf(out, "; ");
			fmt_html_escape(out, a->name);
			fprintf(out, "=");
			fmt_html_escape(out, l->points[k].value);
			fprintf(out, " ");
			fmt_html_escape(out,
					r->cells[l->points[k].cell].status);
		}
		fprintf(out, "</text></g>\n");
	}
#undef KX
#undef KY
	fprintf(out, "</svg>\n");
}
