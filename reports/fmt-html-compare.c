/* SPDX-License-Identifier: MIT */
/*
 * html: a comparison (compare.h) as one self-contained page, like a report
 * (fmt-html.c): a table with a row per pair of cells, then the KVM deltas
 * where some row has them; an effect compare (--effect) has a table of each
 * side's slowdown against its own baseline instead, one <tr class="effect"
 * data-ref-id=REF_ID data-id=ID> per pair.
 */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void esc(FILE *out, const char *s)
{
	fmt_html_escape(out, s);
}

/* The KVM deltas of the rows where both cells have KVM evidence. */
static void html_compare_kvm(const struct compare *c, FILE *out)
{
	char a[FMT_BUF], b[FMT_BUF], d[FMT_BUF];
	size_t i, j;

	fprintf(out, "<h2>KVM</h2>\n<table class=\"kvm\">\n<tr><th>cell</th>"
		     "<th>ref</th><th>vs</th><th>exits per sample</th>"
		     "<th>delta</th><th>2M share</th><th>delta (points)</th>"
		     "<th>exit reasons that changed most (per sample)</th>"
		     "</tr>\n");
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct compare_kvm *k = &row->kvm;

		if (!k->valid)
			continue;
		fprintf(out, "<tr data-id=\"");
		esc(out, row->cell->id);
		fprintf(out, "\"><td>");
		esc(out, row->cell->label);
		fprintf(out, "</td><td>");
		esc(out,
		    c->by ? row->ref_name : compare_run_letter(row->ref_run));
		fprintf(out, "</td><td>");
		esc(out, c->by ? row->name : compare_run_letter(row->run));
		fprintf(out, "</td><td>%s -&gt; %s</td><td>%s</td>",
			fmt_count(a, sizeof(a), k->exits_ref),
			fmt_count(b, sizeof(b), k->exits),
			isnan(k->exits_delta)
			    ? "n/a"
			    : fmt_spct(d, sizeof(d), k->exits_delta));
		fprintf(out, "<td>%s -&gt; %s</td>",
			isnan(k->share_2m_ref)
			    ? "n/a"
			    : fmt_pct(a, sizeof(a), k->share_2m_ref),
			isnan(k->share_2m)
			    ? "n/a"
			    : fmt_pct(b, sizeof(b), k->share_2m));
		if (isnan(k->share_2m_delta))
			fprintf(out, "<td>n/a</td><td>");
		else
			fprintf(out, "<td>%+.2f</td><td>",
				100 * k->share_2m_delta);
		for (j = 0; j < k->ntop; j++) {
			fprintf(out, "%s", j ? ", " : "");
			esc(out, k->top[j].reason);
			fprintf(out, " %s -&gt; %s (%+.1f)",
				fmt_count(a, sizeof(a), k->top[j].ref),
				fmt_count(b, sizeof(b), k->top[j].val),
				k->top[j].delta);
		}
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
}

static void html_effect_side(FILE *out, bool base, const struct stats_delta *d)
{
	char s[FMT_BUF], iv[FMT_BUF];

	fprintf(out, "<td>%s</td><td>%s</td>",
		fmt_effect_side(s, sizeof(s), base, d->delta),
		base ? "" : fmt_interval(iv, sizeof(iv), d));
}

static int html_effect(const struct compare *c, FILE *out)
{
	char buf[1024], r[FMT_BUF], pt[FMT_BUF];
	size_t i;

	fmt_html_begin(out, "vmtax compare --effect", "");
	fprintf(out, "<p>");
	esc(out, FMT_EFFECT_TITLE);
	fprintf(out, ".</p>\n<ul>\n");
	for (i = 0; i < c->nruns; i++) {
		fprintf(out, "<li>%s: ", compare_run_letter(i));
		esc(out, fmt_effect_run(buf, sizeof(buf), c->runs[i]));
		fprintf(out, "</li>\n");
	}
	fprintf(out, "</ul>\n");
	for (i = 0; i < c->nnotes; i++) {
		fprintf(out, "<p class=\"note\">Note: ");
		esc(out, c->notes[i]);
		fprintf(out, "</p>\n");
	}
	fprintf(out, "<p>");
	esc(out, FMT_EFFECT_LEGEND);
	fprintf(out, ".</p>\n<table>\n<tr><th>cell</th><th>ref</th>"
		     "<th>slowdown</th><th>95%% interval</th><th>vs</th>"
		     "<th>slowdown</th><th>95%% interval</th>"
		     "<th>difference</th><th>ratio</th><th>note</th></tr>\n");
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct compare_effect *e = &row->effect;

		fprintf(out, "<tr class=\"effect\" data-ref-id=\"");
		esc(out, row->ref ? row->ref->id : "");
		fprintf(out, "\" data-id=\"");
		esc(out, row->cell ? row->cell->id : "");
		fprintf(out, "\"><td>");
		esc(out, fmt_compare_label(buf, sizeof(buf), row));
		fprintf(out, "</td><td>%s</td>",
			compare_run_letter(row->ref_run));
		if (row->note) {
			fprintf(out,
				"<td></td><td></td><td>%s</td>"
				"<td colspan=\"5\" class=\"skip\">",
				compare_run_letter(row->run));
			esc(out, row->note);
			fprintf(out, "</td></tr>\n");
			continue;
		}
		html_effect_side(out, e->ref_base, &row->ref->vs_base);
		fprintf(out, "<td>%s</td>", compare_run_letter(row->run));
		html_effect_side(out, e->base, &row->cell->vs_base);
		fprintf(out, "<td>%s</td><td>%s</td><td>",
			fmt_effect_points(pt, sizeof(pt), row),
			fmt_effect_ratio(r, sizeof(r), row));
		esc(out, e->why ? e->why : "");
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n</body>\n</html>\n");
	return ferror(out) ? -EIO : 0;
}

/* One row of the table: the two means and their delta, or its note. */
static void html_compare_row(const struct compare *c,
			     const struct compare_row *row, FILE *out)
{
	char m1[FMT_BUF], m2[FMT_BUF], d[FMT_BUF], iv[FMT_BUF], p[FMT_BUF];
	char lb[1024];

	fprintf(out, "<tr><td>");
	esc(out, c->by ? (row->cell ? row->cell->label : row->ref->label)
		       : fmt_compare_label(lb, sizeof(lb), row));
	fprintf(out, "</td><td>");
	esc(out, c->by ? row->ref_name : compare_run_letter(row->ref_run));
	fprintf(out, "</td>");
	if (row->note) {
		fprintf(out, "<td colspan=\"7\" class=\"skip\">");
		esc(out, row->note);
		fprintf(out, "</td></tr>\n");
		return;
	}
	fprintf(out, "<td>%s</td><td>",
		fmt_num(m1, sizeof(m1), row->ref->metric.mean));
	esc(out, c->by ? row->name : compare_run_letter(row->run));
	fprintf(out,
		"</td><td>%s</td><td>%s</td><td>%s</td><td>%s"
		"</td><td>%s</td></tr>\n",
		fmt_num(m2, sizeof(m2), row->cell->metric.mean),
		fmt_spct(d, sizeof(d), row->d.delta),
		fmt_interval(iv, sizeof(iv), &row->d),
		fmt_p(p, sizeof(p), row->d.p), fmt_signif(&row->d));
}

int fmt_html_compare(const struct compare *c, FILE *out)
{
	const struct report *a = c->runs[0];
	char d[FMT_BUF];
	size_t i;

	if (c->effect)
		return html_effect(c, out);
	fmt_html_begin(out, "vmtax compare: ", a->wl_name);
	fprintf(out, "<ul>\n");
	for (i = 0; i < c->nruns; i++) {
		fprintf(out, "<li>%s: run '", compare_run_letter(i));
		esc(out, c->runs[i]->run_name);
		fprintf(out, "', host ");
		esc(out, c->runs[i]->hostname ? c->runs[i]->hostname : "?");
		fprintf(out, ", kernel ");
		esc(out, c->runs[i]->kernel ? c->runs[i]->kernel : "?");
		fprintf(out, "</li>\n");
	}
	fprintf(out, "</ul>\n");
	for (i = 0; i < c->nnotes; i++) {
		fprintf(out, "<p class=\"note\">Note: ");
		esc(out, c->notes[i]);
		fprintf(out, "</p>\n");
	}
	fprintf(out, "<table>\n<tr><th>cell</th><th>ref</th>"
		     "<th>ref mean</th><th>vs</th><th>mean</th><th>delta</th>"
		     "<th>95%% interval</th><th>p</th><th></th></tr>\n");
	for (i = 0; i < c->nrows; i++)
		html_compare_row(c, &c->rows[i], out);
	fprintf(out,
		"</table>\n<p>Geometric mean of (1 + delta) over %zu "
		"cells: <b>%s</b></p>\n",
		c->ngeo, fmt_spct(d, sizeof(d), c->geomean));
	if (c->rerun) {
		fprintf(out, "<p>");
		fmt_html_escape(out, c->rerun);
		fprintf(out, "</p>\n");
	}
	if (c->has_kvm)
		html_compare_kvm(c, out);
	fprintf(out, "</body>\n</html>\n");
	return ferror(out) ? -EIO : 0;
}
