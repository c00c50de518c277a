/* SPDX-License-Identifier: MIT */
/* text: the manner of the seed's mailing-list table and of perf stat. */
#include "format.h"
#include "fmt-walk.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Every string argument through the text escape (format.h). */
#define tprintf(out, ...) fmt_printf(out, fmt_text_escape, __VA_ARGS__)

/* The host line: name, kernel, CPU, memory, accel, the lab, identity. */
static void text_host(const struct report *r, FILE *out)
{
	char *lab = fmt_lab_new(r), *remote = fmt_remote_libvirt_new(r);
	char *unlike = fmt_fleet_unlike_new(r);

	tprintf(out, "host: %s, kernel %s, %s, ",
		r->hostname ? r->hostname : "?", r->kernel ? r->kernel : "?",
		r->cpu_model ? r->cpu_model : "?");
	if (r->cpus < 0)
		tprintf(out, "cpus n/a, ");
	else
		tprintf(out, "%ld cpus, ", r->cpus);
	if (isnan(r->mem_bytes))
		tprintf(out, "memory n/a, ");
	else
		tprintf(out, "%.1f GiB, ", r->mem_bytes / (1 << 30));
	tprintf(out, "accel %s", r->accel ? r->accel : "n/a");
	if (r->accel_reason)
		tprintf(out, " (%s)", r->accel_reason);
	if (lab)
		tprintf(out, "\nlab host: every cell ran inside it: %s", lab);
	if (remote)
		tprintf(out, "\nremote libvirt: %s", remote);
	free(lab);
	free(remote);
	if (unlike)
		tprintf(out, "\nunlike hosts: %s", unlike);
	free(unlike);
	if (r->host_note)
		tprintf(out, "\nhost identity: %s", r->host_note);
}

static void text_header(const struct report *r, FILE *out)
{
	char *axes;
	const char *k;
	json_t *v;
	bool first = true;

	tprintf(out, "vmtax report: run '%s' (%s)\n", r->run_name,
		r->run_status);
	tprintf(out, "workload: %s%s%s\n", r->wl_name,
		*r->wl_description ? " - " : "", r->wl_description);
	tprintf(out, "metric: %s in %s, %s; baseline: %s (%s)\n", r->wl_metric,
		r->wl_unit, fmt_better(r), r->cells[r->baseline].label,
		r->baseline_id);
	if (json_object_size(r->wl_params)) {
		tprintf(out, "params:");
		json_object_foreach(r->wl_params, k, v)
		{
			tprintf(out, "%s %s=%s", first ? "" : ",", k,
				json_is_string(v) ? json_string_value(v) : "?");
			first = false;
		}
		tprintf(out, "\n");
	}
	if ((axes = fmt_axes_new(r))) {
		tprintf(out, "axes: %s\n", axes);
		free(axes);
	}
	text_host(r, out);
	tprintf(out, "\nversions: vmtax %s, libvirt %s, qemu %s\n",
		r->v_vmtax ? r->v_vmtax : "n/a",
		r->v_libvirt ? r->v_libvirt : "n/a",
		r->v_qemu ? r->v_qemu : "n/a");
	tprintf(out, "started %s, finished %s\n",
		r->started ? r->started : "n/a",
		r->finished ? r->finished : "n/a");
	if (r->metric_warning)
		tprintf(out, "warning: %s\n", r->metric_warning);
}

/* A counter's line as perf stat prints it: value, name, "# note", spread. */
static void text_counter(const struct report *r, const struct report_cell *c,
			 size_t k, FILE *out)
{
	const struct report_counter_stats *cs = &c->counters[k];
	char num[FMT_BUF], fig[FMT_BUF], note[FMT_BUF] = "", pm[FMT_BUF] = "";
	char line[512];
	bool msec = false;
	size_t len;

	fmt_counter_value(num, sizeof(num), r, c, k);
	/* "1910.90 msec": the unit in a column of its own, as perf */
	len = strlen(num);
	if (len > 5 && !strcmp(num + len - 5, " msec")) {
		num[len - 5] = '\0';
		msec = true;
	}
	fmt_counter_note(fig, sizeof(fig), r, c, k);
	/* "#    0.998 CPUs utilized": the figure right-aligned, as perf */
	if (*fig)
		snprintf(note, sizeof(note), "# %8.*s%s",
			 (int)strcspn(fig, " "), fig, fig + strcspn(fig, " "));
	if (cs->state == CS_OK && !isnan(cs->rel_sd))
		snprintf(pm, sizeof(pm), "( +- %6.2f%% )", 100 * cs->rel_sd);
	snprintf(line, sizeof(line), "%19s %-4s %-24s %-30s %s", num,
		 msec ? "msec" : "", fmt_counter_name(r, k), note, pm);
	/* No trailing blanks: the output is pasted into mail. */
	len = strlen(line);
	while (len && line[len - 1] == ' ')
		line[--len] = '\0';
	tprintf(out, "%s\n", line);
}

static void text_time(FILE *out, const char *name,
		      const struct stats_summary *s, const char *unit)
{
	char mean[FMT_BUF], cv[FMT_BUF];

	tprintf(out, " %-6s %s %s (± %s)\n", name,
		fmt_num(mean, sizeof(mean), s->mean), unit,
		fmt_pct(cv, sizeof(cv), s->cv));
}

/* How the cell sampled, when there is something to say (format.h). */
static void text_sampling(const struct report *r, const struct report_cell *c,
			  FILE *out)
{
	char buf[1024];

	if (!fmt_sampling_shown(c))
		return;
	if (c->stop_reason)
		tprintf(out, " stopped: %s\n", fmt_stop(buf, sizeof(buf), c));
	if (*fmt_boots(buf, sizeof(buf), c))
		tprintf(out, " boots: %s\n", buf);
	if (*fmt_iv(buf, sizeof(buf), r, c))
		tprintf(out, " interval: %s\n", buf);
	tprintf(out, " outliers (modified z > 3.5, kept): %s\n",
		fmt_outliers(buf, sizeof(buf), c));
	tprintf(out, " trend over the samples (Mann-Kendall): %s\n",
		fmt_trend(buf, sizeof(buf), c));
}

static void text_cell(const struct report *r, const struct report_cell *c,
		      FILE *out)
{
	char note[512], a[FMT_BUF], b[FMT_BUF], d[FMT_BUF], e[FMT_BUF],
	    f[FMT_BUF];
	size_t i, k;

	tprintf(out, "\n%s (%s)\n", c->label,
		fmt_cell_note(note, sizeof(note), c));
	tprintf(out, " cell %s: %s, %zu of %zu samples ok%s%s\n", c->id,
		c->status, c->nok, c->nsamples,
		*fmt_rounds_paired(note, sizeof(note), c) ? "; " : "", note);
	if (c->mismatch_text)
		tprintf(out, " warning: %s\n", c->mismatch_text);
	if (c->busy_text)
		tprintf(out, " warning: %s\n", c->busy_text);
	for (i = 0; i < c->nsamples; i++)
		if (c->samples[i].busy)
			tprintf(out, " sample %ld: busy host\n",
				c->samples[i].index);
	for (i = 0; i < c->nsamples; i++)
		if (strcmp(c->samples[i].status, "ok"))
			tprintf(out, " sample %ld %s: %s\n",
				c->samples[i].index, c->samples[i].status,
				c->samples[i].reason ? c->samples[i].reason
						     : "no reason given");
	if (!c->nok)
		return;

	tprintf(out, "\n Performance counter stats (%zu runs):\n\n", c->nok);
	for (k = 0; k < r->ncounters; k++)
		text_counter(r, c, k, out);
	tprintf(out, "\n");
	if (!r->metric_is_elapsed)
		text_time(out, r->wl_metric, &c->metric, r->wl_unit);
	text_time(out, "real", &c->elapsed, "s");
	text_time(out, "user", &c->user, "s");
	text_time(out, "sys", &c->sys, "s");
	tprintf(
	    out, " %s: n %zu, median %s, min %s, max %s, 95%% CI [%s, %s]\n",
	    r->wl_metric, c->metric.n, fmt_num(a, sizeof(a), c->metric.median),
	    fmt_num(b, sizeof(b), c->metric.min),
	    fmt_num(d, sizeof(d), c->metric.max),
	    fmt_num(e, sizeof(e), c->metric.ci_lo),
	    fmt_num(f, sizeof(f), c->metric.ci_hi));
	text_sampling(r, c, out);
	if (!c->vs_base.valid)
		return;
	snprintf(e, sizeof(e), "%.1f", c->vs_base.df);
	tprintf(
	    out,
	    " slowdown %s, 95%% interval %s (%s), %sp %s, df %s%s%s\n",
	    fmt_spct(a, sizeof(a), c->vs_base.delta),
	    fmt_interval(b, sizeof(b), &c->vs_base), report_interval_name(c),
	    c->iv == REPORT_IV_FIELLER ? "Welch " : "",
	    fmt_p(d, sizeof(d), c->vs_base.p), isnan(c->vs_base.df) ? "n/a" : e,
	    *fmt_signif(&c->vs_base) ? ": " : "",
	    c->vs_base.significant ? "significant *" : fmt_signif(&c->vs_base));
	if (!c->vs_base.bounded && c->vs_base.why)
		tprintf(out, " no interval: %s\n", c->vs_base.why);
}

/* A guest cell's KVM evidence, or why it has none (format.h). */
static void text_kvm(const struct report *r, const struct report_cell *c,
		     FILE *out)
{
	const struct report_kvm *k = &c->kvm;
	char buf[512];
	size_t i;

	if (!fmt_kvm_shown(r, c))
		return;
	if (!k->present) {
		tprintf(out, "\n KVM: no evidence: %s\n", k->why);
		return;
	}
	tprintf(out, "\n KVM: %s\n", fmt_kvm_summary(buf, sizeof(buf), k));
	if (!k->nreason_samples) {
		tprintf(out, "  exits by reason n/a: %s\n", k->reasons_why);
	} else {
		struct fmt_table *t = fmt_walk_kvm_new(k);

		/* fixed widths: the reasons' names are KVM's, and short */
		tprintf(out, "  %-20s %12s %8s\n", t->head[0], t->head[1],
			t->head[2]);
		for (i = 0; i < t->nrows; i++)
			tprintf(out, "  %-20s %12s %8s\n",
				fmt_table_cell(t, i, 0)->text,
				fmt_table_cell(t, i, 1)->text,
				fmt_table_cell(t, i, 2)->text);
		fmt_table_free(t);
	}
	if (*fmt_kvm_counter_list(buf, sizeof(buf), k))
		tprintf(out, "  per sample: %s\n", buf);
}

/* A cell's series, one point per line; nothing when it has none. */
static void text_series(const struct report_cell *c, FILE *out)
{
	char y[FMT_BUF];
	size_t i;

	if (!c->series.npoints)
		return;
	tprintf(out, " series (x -> mean y), %zu points:\n", c->series.npoints);
	for (i = 0; i < c->series.npoints; i++)
		tprintf(out, "  %g -> %s\n", c->series.x[i],
			fmt_num(y, sizeof(y), c->series.y[i]));
}

/* After the matrix: its columns' geometric means, each said. */
static void text_colgeo(const struct report *r, FILE *out)
{
	char buf[FMT_BUF];
	size_t k, w = 0;

	for (k = 0; k < r->ncolgeo; k++)
		if (strlen(r->colgeo[k].column) > w)
			w = strlen(r->colgeo[k].column);
	tprintf(out, "\n%s:\n", FMT_COLGEO_TITLE);
	for (k = 0; k < r->ncolgeo; k++)
		tprintf(out, " %-*s  %s\n", (int)w, r->colgeo[k].column,
			fmt_colgeo(buf, sizeof(buf), &r->colgeo[k]));
}

/* Characters, not bytes, of UTF-8 S ("±" is two bytes, one column). */
static size_t cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* S in W columns, after BLANKS, padded on the left when RIGHT. */
static void text_pad(FILE *out, const char *blanks, const char *s, size_t w,
		     bool right)
{
	size_t pad = w > cols(s) ? w - cols(s) : 0;

	tprintf(out, "%s%*s%s%*s", blanks, right ? (int)pad : 0, "", s,
		right ? 0 : (int)pad, "");
}

/*
 * Table T (fmt-walk.h) as columns fitted to their widest entry, two
 * blanks apart, numbers right-aligned; frees it.
 */
static void text_table(struct fmt_table *t, FILE *out)
{
	size_t *w = xcalloc(t->ncols + 1, sizeof(*w)), row, col;

	for (col = 0; col < t->ncols; col++) {
		w[col] = t->head[col] ? cols(t->head[col]) : 0;
		for (row = 0; row < t->nrows; row++) {
			size_t n = cols(fmt_table_cell(t, row, col)->text);

			if (n > w[col])
				w[col] = n;
		}
	}
	for (col = 0; col < t->ncols; col++)
		text_pad(out, col ? "  " : " ",
			 t->head[col] ? t->head[col] : "", w[col],
			 t->right[col]);
	tprintf(out, "\n");
	for (row = 0; row < t->nrows; row++) {
		for (col = 0; col < t->ncols; col++)
			text_pad(out, col ? "  " : " ",
				 fmt_table_cell(t, row, col)->text, w[col],
				 t->right[col]);
		tprintf(out, "\n");
	}
	free(w);
	fmt_table_free(t);
}

static void text_matrix(const struct report *r, FILE *out)
{
	tprintf(out, "\nSlowdown vs %s (%s):\n\n", r->cells[r->baseline].label,
		FMT_MATRIX_KEY);
	text_table(fmt_walk_matrix_new(r), out);
}

/* Per numeric axis: one row per line, one column per value. */
static void text_scaling(const struct report *r, const struct report_scaling *s,
			 FILE *out)
{
	tprintf(out,
		"\nSlowdown against %s (vs %s; [95%% interval], "
		"* p < 0.05):\n\n",
		r->axes[s->axis].name, r->cells[r->baseline].label);
	text_table(fmt_walk_scaling_new(r, s), out);
}

static int text_render(const struct report *r, FILE *out)
{
	size_t i, nskip = 0;

	text_header(r, out);
	for (i = 0; i < r->ncells; i++) {
		text_cell(r, &r->cells[i], out);
		text_kvm(r, &r->cells[i], out);
		fmt_profile_text(r, &r->cells[i], out);
		text_series(&r->cells[i], out);
	}
	text_matrix(r, out);
	for (i = 0; i < r->nscaling; i++)
		text_scaling(r, &r->scaling[i], out);
	if (r->ncontrasts)
		tprintf(out, "\nTHP contrasts (never against always, cells "
			     "alike but for it):\n");
	for (i = 0; i < r->ncontrasts; i++)
		tprintf(out, " %s\n", r->contrasts[i].text);
	if (r->contrast_note)
		tprintf(out, " note: %s\n", r->contrast_note);
	text_colgeo(r, out);
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (c->nok)
			continue;
		if (!nskip++)
			tprintf(out, "\nNot measured:\n");
		tprintf(out, " %s: %s: %s\n", c->id, c->status, fmt_reason(c));
	}
	return ferror(out) ? -EIO : 0;
}

static const char *cmp_label(const struct compare_row *row)
{
	return row->cell ? row->cell->label : row->ref->label;
}

static int text_effect(const struct compare *c, FILE *out)
{
	char buf[1024], s1[FMT_BUF], s2[FMT_BUF], iv[FMT_BUF], pt[FMT_BUF];
	size_t i;

	tprintf(out, "vmtax compare --effect: %s\n", FMT_EFFECT_TITLE);
	for (i = 0; i < c->nruns; i++)
		tprintf(out, "%s: %s\n", compare_run_letter(i),
			fmt_effect_run(buf, sizeof(buf), c->runs[i]));
	for (i = 0; i < c->nnotes; i++)
		tprintf(out, "note: %s\n", c->notes[i]);
	tprintf(out, "%s\n", FMT_EFFECT_LEGEND);
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct compare_effect *e = &row->effect;
		const char *rn = compare_run_letter(row->ref_run);
		const char *n = compare_run_letter(row->run);

		tprintf(out, "\n%s\n",
			fmt_compare_label(buf, sizeof(buf), row));
		if (row->ref && row->cell &&
		    strcmp(row->ref->id, row->cell->id))
			tprintf(out, " cell %s (%s) with %s (%s)\n",
				row->ref->id, rn, row->cell->id, n);
		else
			tprintf(out, " cell %s\n",
				row->ref ? row->ref->id : row->cell->id);
		if (row->note) {
			tprintf(out, " run %s -> %s: no slowdowns: %s\n", rn, n,
				row->note);
			continue;
		}
		tprintf(out, " %s %s%s%s -> ", rn,
			fmt_effect_side(s1, sizeof(s1), e->ref_base,
					row->ref->vs_base.delta),
			e->ref_base ? "" : " ",
			e->ref_base
			    ? ""
			    : fmt_interval(iv, sizeof(iv), &row->ref->vs_base));
		tprintf(out, "%s %s%s%s: ", n,
			fmt_effect_side(s2, sizeof(s2), e->base,
					row->cell->vs_base.delta),
			e->base ? "" : " ",
			e->base ? ""
				: fmt_interval(iv, sizeof(iv),
					       &row->cell->vs_base));
		if (e->why)
			tprintf(out, "no difference: %s\n", e->why);
		else if (e->ref_base && e->base)
			tprintf(out, "difference 0 by definition\n");
		else
			tprintf(out, "difference %s, ratio %s\n",
				fmt_effect_points(pt, sizeof(pt), row),
				fmt_effect_ratio(s1, sizeof(s1), row));
	}
	return ferror(out) ? -EIO : 0;
}

/* The heading: the runs compared, or the axis compared by. */
static void text_compare_head(const struct compare *c, FILE *out)
{
	const struct report *a = c->runs[0];
	size_t i;

	tprintf(out, "vmtax compare: workload %s, metric %s in %s, %s\n",
		a->wl_name, a->wl_metric, a->wl_unit, fmt_better(a));
	if (c->by)
		tprintf(out, "run '%s' (%s), by %s: each cell against %s=%s\n",
			a->run_name, a->path, c->by, c->by,
			c->nrows ? c->rows[0].ref_name : "?");
	else
		for (i = 0; i < c->nruns; i++)
			tprintf(out, "%s: run '%s' (%s), host %s, kernel %s\n",
				compare_run_letter(i), c->runs[i]->run_name,
				c->runs[i]->path,
				c->runs[i]->hostname ? c->runs[i]->hostname
						     : "?",
				c->runs[i]->kernel ? c->runs[i]->kernel : "?");
	tprintf(out, "delta > 0: slower than the reference; 95%% interval by "
		     "Fieller; * Welch p < 0.05\n");
}

/* One row: its cells, the two means and their delta (or its note). */
static void text_compare_row(const struct compare *c,
			     const struct compare_row *row, FILE *out)
{
	const struct report *a = c->runs[0];
	char kb[1024];
	char m1[FMT_BUF], m2[FMT_BUF], d[FMT_BUF], iv[FMT_BUF], p[FMT_BUF];
	const char *rn =
	    c->by ? row->ref_name : compare_run_letter(row->ref_run);
	const char *n = c->by ? row->name : compare_run_letter(row->run);

	tprintf(out, "\n%s\n",
		c->by ? cmp_label(row) : fmt_compare_label(kb, sizeof(kb), row));
	tprintf(out, " cell %s", row->cell ? row->cell->id : row->ref->id);
	if (row->ref && row->cell &&
	    (c->by || strcmp(row->ref->id, row->cell->id)))
		tprintf(out, " vs %s", row->ref->id);
	tprintf(out, "\n");
	if (row->note) {
		tprintf(out, " %s %s -> %s: no delta: %s\n",
			c->by ? c->by : "run", rn, n, row->note);
		return;
	}
	tprintf(out, " %s %s %s -> %s %s %s: delta %s %s, p %s%s%s\n", rn,
		fmt_num(m1, sizeof(m1), row->ref->metric.mean), a->wl_unit, n,
		fmt_num(m2, sizeof(m2), row->cell->metric.mean), a->wl_unit,
		fmt_spct(d, sizeof(d), row->d.delta),
		fmt_interval(iv, sizeof(iv), &row->d),
		fmt_p(p, sizeof(p), row->d.p), *fmt_signif(&row->d) ? " " : "",
		fmt_signif(&row->d));
	if (row->kvm.valid)
		tprintf(out, " KVM: %s\n",
			fmt_kvm_compare(kb, sizeof(kb), &row->kvm));
}

static int text_compare(const struct compare *c, FILE *out)
{
	char d[FMT_BUF];
	size_t i;

	if (c->effect)
		return text_effect(c, out);
	text_compare_head(c, out);
	for (i = 0; i < c->nnotes; i++)
		tprintf(out, "note: %s\n", c->notes[i]);
	for (i = 0; i < c->nrows; i++)
		text_compare_row(c, &c->rows[i], out);
	tprintf(out, "\ngeometric mean of (1 + delta) over %zu cells: %s\n",
		c->ngeo, fmt_spct(d, sizeof(d), c->geomean));
	if (c->rerun)
		tprintf(out, "%s\n", c->rerun);
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_format_text = {
    .name = "text",
    .render = text_render,
    .render_compare = text_compare,
};
