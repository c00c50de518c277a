/* SPDX-License-Identifier: MIT */
/* md: the text report's tables in Markdown, for a mailing list or an issue. */
#include "format.h"
#include "fmt-walk.h"

#include <errno.h>
#include <stdlib.h>

/* Every string argument through the Markdown escape (format.h). */
#define mdprintf(out, ...) fmt_printf(out, fmt_md_escape, __VA_ARGS__)

/* A cell: a value without one as code, and perf stat's figure after ", ". */
static void md_cell(const struct fmt_cell *c, FILE *out)
{
	if (c->flags & FMT_CELL_NA)
		fputc('`', out);
	if (c->flags & FMT_CELL_RAW)
		fputs(c->text, out);
	else
		fmt_md_escape(out, c->text);
	if (c->flags & FMT_CELL_NA)
		fputc('`', out);
	else if (c->note && !(c->flags & FMT_CELL_SKIP)) {
		fputs(", ", out);
		fmt_md_escape(out, c->note);
	}
}

/* Table T (fmt-walk.h) as a Markdown table; frees it. */
static void md_table(struct fmt_table *t, FILE *out)
{
	size_t row, col;

	fputc('|', out);
	for (col = 0; col < t->ncols; col++) {
		if (t->head[col]) {
			fputc(' ', out);
			fmt_md_escape(out, t->head[col]);
		}
		fputs(" |", out);
	}
	fputs("\n|", out);
	for (col = 0; col < t->ncols; col++)
		fputs(t->right[col] ? "---:|" : "---|", out);
	fputc('\n', out);
	for (row = 0; row < t->nrows; row++) {
		fputc('|', out);
		for (col = 0; col < t->ncols; col++) {
			fputc(' ', out);
			md_cell(fmt_table_cell(t, row, col), out);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	fmt_table_free(t);
}

static void md_header(const struct report *r, FILE *out)
{
	char *axes;

	mdprintf(out, "# vmtax report: run '");
	fmt_md_escape(out, r->run_name);
	mdprintf(out, "' (%s)\n\n", r->run_status);
	mdprintf(out, "- workload: **%s**", r->wl_name);
	if (*r->wl_description) {
		mdprintf(out, " - ");
		fmt_md_escape(out, r->wl_description);
	}
	mdprintf(out, "\n- metric: %s in %s, %s\n", r->wl_metric, r->wl_unit,
		fmt_better(r));
	mdprintf(out, "- baseline: %s (`%s`)\n", r->cells[r->baseline].label,
		r->baseline_id);
	if ((axes = fmt_axes_new(r))) {
		mdprintf(out, "- axes: ");
		fmt_md_escape(out, axes);
		mdprintf(out, "\n");
		free(axes);
	}
	mdprintf(out, "- host: %s, kernel %s, %s, ",
		r->hostname ? r->hostname : "?", r->kernel ? r->kernel : "?",
		r->cpu_model ? r->cpu_model : "?");
	if (r->cpus < 0)
		mdprintf(out, "cpus n/a, ");
	else
		mdprintf(out, "%ld cpus, ", r->cpus);
	mdprintf(out, "accel %s\n", r->accel ? r->accel : "n/a");
	{
		char *lab = fmt_lab_new(r);

		if (lab) {
			mdprintf(out, "- **lab host** (every cell ran inside "
				     "it): ");
			fmt_md_escape(out, lab);
			mdprintf(out, "\n");
		}
		free(lab);
		lab = fmt_remote_libvirt_new(r);
		if (lab) {
			mdprintf(out, "- **remote libvirt**: ");
			fmt_md_escape(out, lab);
			mdprintf(out, "\n");
		}
		free(lab);
		lab = fmt_fleet_unlike_new(r);
		if (lab) {
			mdprintf(out, "- **unlike hosts**: ");
			fmt_md_escape(out, lab);
			mdprintf(out, "\n");
		}
		free(lab);
	}
	if (r->host_note) {
		fprintf(out, "- **host identity**: ");
		fmt_md_escape(out, r->host_note);
		fprintf(out, "\n");
	}
	mdprintf(out, "- versions: vmtax %s, libvirt %s, qemu %s\n",
		r->v_vmtax ? r->v_vmtax : "n/a",
		r->v_libvirt ? r->v_libvirt : "n/a",
		r->v_qemu ? r->v_qemu : "n/a");
	mdprintf(out, "- started %s, finished %s\n",
		r->started ? r->started : "n/a",
		r->finished ? r->finished : "n/a");
	if (r->metric_warning) {
		fprintf(out, "- **warning**: ");
		fmt_md_escape(out, r->metric_warning);
		fprintf(out, "\n");
	}
}

static void md_cells(const struct report *r, FILE *out)
{
	mdprintf(out, "\n## Cells\n\n");
	md_table(fmt_walk_cells_new(r), out);
}

/* How the cells sampled: only when some cell has something to say. */
static void md_sampling(const struct report *r, FILE *out)
{
	struct fmt_table *t = fmt_walk_sampling_new(r);
	size_t i;
	bool any;

	if (!t)
		return;
	mdprintf(out, "\n## Sampling\n\n");
	md_table(t, out);
	for (i = 0, any = false; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		char iv[1024];

		if (!*fmt_iv(iv, sizeof(iv), r, c))
			continue;
		if (!any)
			fprintf(out, "\nIntervals from interleaved rounds:\n\n");
		any = true;
		mdprintf(out, "- %s: %s\n", c->label, iv);
	}
}

/* One column per counter: perf stat's value and note, then the spread. */
static void md_counters(const struct report *r, FILE *out)
{
	mdprintf(out, "\n## Counters (mean, ± stddev/mean; perf stat's "
		      "derived figures)\n\n");
	md_table(fmt_walk_counters_new(r), out);
}

/* What KVM saw per guest cell; nothing for a run without KVM evidence. */
static void md_kvm(const struct report *r, FILE *out)
{
	char buf[512];
	size_t i;

	if (!r->has_kvm)
		return;
	mdprintf(out, "\n## KVM (what KVM saw of each guest, per sample)\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		const struct report_kvm *k = &c->kvm;

		if (!fmt_kvm_shown(r, c))
			continue;
		mdprintf(out, "\n%s (`%s`):\n\n", c->label, c->id);
		if (!k->present) {
			mdprintf(out, "KVM: no evidence: ");
			fmt_md_escape(out, k->why);
			mdprintf(out, "\n");
			continue;
		}
		mdprintf(out, "KVM: %s\n\n",
			fmt_kvm_summary(buf, sizeof(buf), k));
		if (!k->nreason_samples) {
			mdprintf(out, "Exits by reason n/a: ");
			fmt_md_escape(out, k->reasons_why);
			mdprintf(out, "\n");
		} else
			md_table(fmt_walk_kvm_new(k), out);
		if (*fmt_kvm_counter_list(buf, sizeof(buf), k))
			mdprintf(out, "\nPer sample: %s\n", buf);
	}
}

static void md_series(const struct report *r, FILE *out)
{
	char y[FMT_BUF];
	size_t i, k;

	if (!r->has_series)
		return;
	mdprintf(out, "\n## Series (x -> mean y)\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_series *s = &r->cells[i].series;

		if (!s->npoints)
			continue;
		mdprintf(out, "\n%s (`%s`):\n\n| x | mean y |\n|---:|---:|\n",
			r->cells[i].label, r->cells[i].id);
		for (k = 0; k < s->npoints; k++)
			mdprintf(out, "| %g | %s |\n", s->x[k],
				fmt_num(y, sizeof(y), s->y[k]));
	}
}

static void md_matrix(const struct report *r, FILE *out)
{
	mdprintf(out, "\n## Slowdown matrix (vs %s; %s)\n\n",
		 r->cells[r->baseline].label, FMT_MATRIX_KEY);
	md_table(fmt_walk_matrix_new(r), out);
}

static void md_scaling(const struct report *r, const struct report_scaling *s,
		       FILE *out)
{
	mdprintf(out, "\n## Slowdown against %s (vs %s; [95%% "
		      "interval]; * p < 0.05)\n\n",
		 r->axes[s->axis].name, r->cells[r->baseline].label);
	md_table(fmt_walk_scaling_new(r, s), out);
}

static int md_render(const struct report *r, FILE *out)
{
	char buf[FMT_BUF];
	size_t i, n = 0;

	md_header(r, out);
	md_cells(r, out);
	md_sampling(r, out);
	md_counters(r, out);
	md_kvm(r, out);
	fmt_profile_md(r, out);
	md_series(r, out);
	md_matrix(r, out);
	for (i = 0; i < r->nscaling; i++)
		md_scaling(r, &r->scaling[i], out);
	if (r->ncontrasts)
		mdprintf(out, "\n### THP contrasts\n\nNever against always, "
			      "cells alike but for it:\n\n");
	for (i = 0; i < r->ncontrasts; i++)
		mdprintf(out, "- %s\n", r->contrasts[i].text);
	if (r->contrast_note)
		mdprintf(out, "\nNote: %s.\n", r->contrast_note);
	mdprintf(out, "\n%s:\n\n", FMT_COLGEO_TITLE);
	for (i = 0; i < r->ncolgeo; i++)
		mdprintf(out, "- %s: %s\n", r->colgeo[i].column,
			 fmt_colgeo(buf, sizeof(buf), &r->colgeo[i]));
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		char rp[FMT_BUF];

		fmt_rounds_paired(rp, sizeof(rp), c);
		if (c->nok && !c->mismatch_text && !c->busy_text && !*rp)
			continue;
		if (!n++)
			mdprintf(out, "\n## Notes\n\n");
		if (!c->nok) {
			mdprintf(out, "- `%s` %s: ", c->id, c->status);
			fmt_md_escape(out, fmt_reason(c));
			mdprintf(out, "\n");
		} else if (c->mismatch_text) {
			mdprintf(out, "- `%s`: %s\n", c->id, c->mismatch_text);
		}
		if (c->nok && *rp)
			mdprintf(out, "- `%s`: %zu of %zu samples ok; %s\n",
				 c->id, c->nok, c->nsamples, rp);
		if (c->busy_text) {
			mdprintf(out, "- `%s`: **busy host**: ", c->id);
			fmt_md_escape(out, c->busy_text);
			mdprintf(out, "\n");
		}
	}
	return ferror(out) ? -EIO : 0;
}

static void md_effect_side(FILE *out, bool base, const struct stats_delta *d)
{
	char s[FMT_BUF], iv[FMT_BUF];

	mdprintf(out, " %s | %s |",
		fmt_effect_side(s, sizeof(s), base, d->delta),
		base ? "" : fmt_interval(iv, sizeof(iv), d));
}

static int md_effect(const struct compare *c, FILE *out)
{
	char buf[1024], r[FMT_BUF], pt[FMT_BUF];
	size_t i;

	mdprintf(out, "# vmtax compare --effect\n\n%s.\n\n", FMT_EFFECT_TITLE);
	for (i = 0; i < c->nruns; i++) {
		mdprintf(out, "- %s: ", compare_run_letter(i));
		fmt_md_escape(out,
			      fmt_effect_run(buf, sizeof(buf), c->runs[i]));
		mdprintf(out, "\n");
	}
	for (i = 0; i < c->nnotes; i++) {
		mdprintf(out, "%s**Note**: ", i ? "" : "\n");
		fmt_md_escape(out, c->notes[i]);
		mdprintf(out, "\n");
	}
	mdprintf(out,
		"\n%s.\n\n| cell | ref | slowdown | 95%% interval | vs | "
		"slowdown | 95%% interval | difference | ratio | note |\n"
		"|---|---|---:|---|---|---:|---|---:|---:|---|\n",
		FMT_EFFECT_LEGEND);
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct compare_effect *e = &row->effect;

		mdprintf(out, "| ");
		fmt_md_escape(out, fmt_compare_label(buf, sizeof(buf), row));
		mdprintf(out, " | %s |", compare_run_letter(row->ref_run));
		if (row->note) {
			mdprintf(out, "  |  | %s |  |  |  |  | ",
				compare_run_letter(row->run));
			fmt_md_escape(out, row->note);
			mdprintf(out, " |\n");
			continue;
		}
		md_effect_side(out, e->ref_base, &row->ref->vs_base);
		mdprintf(out, " %s |", compare_run_letter(row->run));
		md_effect_side(out, e->base, &row->cell->vs_base);
		mdprintf(out, " %s | %s | ",
			fmt_effect_points(pt, sizeof(pt), row),
			fmt_effect_ratio(r, sizeof(r), row));
		if (e->why)
			fmt_md_escape(out, e->why);
		mdprintf(out, " |\n");
	}
	return ferror(out) ? -EIO : 0;
}

/* The heading and the runs compared (or the axis compared by). */
static void md_compare_head(const struct compare *c, FILE *out)
{
	const struct report *a = c->runs[0];
	size_t i;

	mdprintf(out, "# vmtax compare: %s, %s in %s, %s\n\n", a->wl_name,
		 a->wl_metric, a->wl_unit, fmt_better(a));
	if (c->by)
		mdprintf(out, "- run '%s', by `%s`\n", a->run_name, c->by);
	else
		for (i = 0; i < c->nruns; i++)
			mdprintf(out, "- %s: run '%s', host %s, kernel %s\n",
				 compare_run_letter(i), c->runs[i]->run_name,
				 c->runs[i]->hostname ? c->runs[i]->hostname
						      : "?",
				 c->runs[i]->kernel ? c->runs[i]->kernel : "?");
}

/* One row of the table: the two means and their delta, or its note. */
static void md_compare_row(const struct compare *c,
			   const struct compare_row *row, FILE *out)
{
	char m1[FMT_BUF], m2[FMT_BUF], d[FMT_BUF], iv[FMT_BUF], p[FMT_BUF];
	const char *rn =
	    c->by ? row->ref_name : compare_run_letter(row->ref_run);
	const char *n = c->by ? row->name : compare_run_letter(row->run);
	char lb[1024];

	mdprintf(out, "| %s | %s | ",
		 c->by ? (row->cell ? row->cell->label : row->ref->label)
		       : fmt_compare_label(lb, sizeof(lb), row),
		 rn);
	if (row->note) {
		mdprintf(out, " | %s |  |  |  |  | ", n);
		fmt_md_escape(out, row->note);
		mdprintf(out, " |\n");
		return;
	}
	mdprintf(out, "%s | %s | %s | %s | %s | %s | %s |\n",
		 fmt_num(m1, sizeof(m1), row->ref->metric.mean), n,
		 fmt_num(m2, sizeof(m2), row->cell->metric.mean),
		 fmt_spct(d, sizeof(d), row->d.delta),
		 fmt_interval(iv, sizeof(iv), &row->d),
		 fmt_p(p, sizeof(p), row->d.p), fmt_signif(&row->d));
}

/* What KVM saw change, per row that has it. */
static void md_compare_kvm(const struct compare *c, FILE *out)
{
	size_t i;

	mdprintf(out, "\n## KVM\n\n");
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		char kb[1024];

		if (!row->kvm.valid)
			continue;
		mdprintf(out, "- %s (%s -> %s): ", row->cell->label,
			 c->by ? row->ref_name
			       : compare_run_letter(row->ref_run),
			 c->by ? row->name : compare_run_letter(row->run));
		fmt_md_escape(out, fmt_kvm_compare(kb, sizeof(kb), &row->kvm));
		mdprintf(out, "\n");
	}
}

static int md_compare(const struct compare *c, FILE *out)
{
	char d[FMT_BUF];
	size_t i;

	if (c->effect)
		return md_effect(c, out);
	md_compare_head(c, out);
	for (i = 0; i < c->nnotes; i++) {
		mdprintf(out, "%s**Note**: ", i ? "" : "\n");
		fmt_md_escape(out, c->notes[i]);
		mdprintf(out, "\n");
	}
	mdprintf(out, "\n| cell | ref | ref mean | vs | mean | delta | "
		      "95%% interval | p | |\n"
		      "|---|---|---:|---|---:|---:|---|---:|---|\n");
	for (i = 0; i < c->nrows; i++)
		md_compare_row(c, &c->rows[i], out);
	mdprintf(out, "\nGeometric mean of (1 + delta) over %zu cells: **%s**\n",
		 c->ngeo, fmt_spct(d, sizeof(d), c->geomean));
	if (c->rerun)
		mdprintf(out, "\n%s\n", c->rerun);
	if (c->has_kvm)
		md_compare_kvm(c, out);
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_format_md = {
    .name = "md",
    .render = md_render,
    .render_compare = md_compare,
};
