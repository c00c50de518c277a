/* SPDX-License-Identifier: MIT */
/*
 * csv: one row per cell (kind "cell": means and statistics) and one per
 * sample (kind "sample": the raw values), for pandas and spreadsheets, then
 * one per point of a cell's series (kind "series": x in the "sample" column,
 * the mean y in "metric", the ok samples in "n"), then one per point of a
 * numeric axis's scaling line (kind "scaling": label "AXIS: LINE", the
 * axis's number in "sample", the cell's slowdown columns), then for each
 * guest cell with KVM evidence one per quantity (kind "kvm": the quantity
 * in "label" -- exits, exits_total, pages_4k, pages_2m, pages_1g, share_2m,
 * share_1g, exit:REASON, exit_share:REASON, delta:COUNTER -- its value in
 * "metric", the samples with evidence in "n"; counts are per sample, pages
 * at the end of the last one).  A comparison has a row per pair of cells
 * (kind "compare"), then for pairs where both have KVM evidence rows of
 * kind "kvm" (label exits, share_2m or exit:REASON for the reasons that
 * changed most; ref_mean and mean the two values, delta the relative change
 * of exits, the difference of the share and of a reason's count per
 * sample; ref_n and n the samples with evidence).  Then, for a cell with
 * something to say of its sampling (docs/sampling.md), rows of kind
 * "sampling": label stop_reason (the reason in "reason"), boots (their
 * count in "n"), within_boot_var and boot_means_var (in "metric"),
 * interval for a paired or bridged cell (its units in "n", its df in
 * "metric", how it was made in "reason"), outliers (the count in "metric", "samples 3, 7" in "reason") and trend_p
 * (the Mann-Kendall p in "metric", "rising, p 0.0210" in "reason" when
 * significant).  A run inside a lab host has a row of kind "lab", one whose
 * guest cells ran on a remote libvirt a row of kind "remote_libvirt" (the
 * line in label: where they ran, the host named being the one that drove
 * them).  A run whose results record the host's identity has a
 * row of kind "host" (label "bare metal" or "host (a PVM guest)", reason
 * what that means when not bare metal), one whose metric is the same in
 * every sample a row of kind "warning" (the warning in "reason").  A run
 * with profiles ends with rows of kind "profile" per cell (label
 * self:SYMBOL or total:SYMBOL for the top entries of its differential
 * profile, n the cell's profile samples, metric the symbol's contribution
 * to the slowdown as a fraction of the baseline's time: docs/profile.md).
 * An effect compare (--effect) has columns of its own: rows of kind "run"
 * (the run's letter in "vs", its name in "label", then workload, metric,
 * unit, better, baseline and path), then a row of kind "effect" per pair
 * (each side's is_baseline yes/no, slowdown, lo, hi and bounded yes/no,
 * empty for a baseline, whose slowdown is 0 by definition; points and
 * ratio as fractions; note).  The column order is fixed.  A delta's
 * degrees of freedom are in welch_df (Fieller's interval) or paired_df (a
 * paired or bridged one), as the JSON report names them; the other is
 * empty.  A numeric
 * column holds a number or nothing, never a word: an empty field is "not
 * applicable" unless the row's last column, why_empty, names it as
 * COLUMN:REASON (space-separated; see why_add()), or the row's status is
 * not ok (the status is then why).  A counter is never 0 for "not
 * supported": it is empty with COUNTER:not_supported.
 */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CSV_NCOLS 27 /* in cols */
static const char *const cols =
    "kind,id,label,status,reason,sample,n,metric,median,stddev,cv,min,max,"
    "ci95_lo,ci95_hi,elapsed_s,user_s,sys_s,slowdown,slowdown_lo,"
    "slowdown_hi,p_value,welch_df,paired_df,significant,ipc,dtlb_miss_rate";
/* after cols and the counters, the last column */
#define CSV_WHY_COL "why_empty"
/* every column of a report's csv: cols, the counters shown, why_empty */
static int csv_ncols(const struct report *r)
{
	return CSV_NCOLS + (int)r->ncounters + 1;
}

/*
 * Why a row's numeric columns are empty, for its why_empty column: the
 * reasons are words a program can match (not_supported, not_counted,
 * baseline, too_few_samples, unbounded, no_ok_sample, zero_mean,
 * zero_baseline, zero_denominator, no_spread).
 */
struct why {
	char buf[1024];
	size_t len;
};

static void why_add(struct why *w, const char *col, const char *reason)
{
	int n;

	if (!w || !reason || w->len >= sizeof(w->buf))
		return;
	n = snprintf(w->buf + w->len, sizeof(w->buf) - w->len, "%s%s:%s",
		     w->len ? " " : "", col, reason);
	if (n > 0)
		w->len += (size_t)n;
}

/* A number, or an empty field said in W as COL:REASON (no REASON: not
 * applicable). */
static void numw(FILE *out, struct why *w, const char *col, double x,
		 const char *reason)
{
	fputc(',', out);
	if (!isnan(x) && !isinf(x))
		fprintf(out, "%.9g", x);
	else
		why_add(w, col, reason);
}

static void num(FILE *out, double x)
{
	numw(out, NULL, NULL, x, NULL);
}

static void str(FILE *out, const char *s)
{
	fputc(',', out);
	fmt_csv_field(out, s);
}

static const char *state_why(enum counter_state st)
{
	return st == CS_NOT_SUPPORTED ? "not_supported"
	       : st == CS_NOT_COUNTED ? "not_counted"
				      : NULL;
}

/* A ratio of counters NUM/DEN that is not valid: why. */
static const char *ratio_why(enum counter_state num, enum counter_state den)
{
	if (state_why(num))
		return state_why(num);
	if (state_why(den))
		return state_why(den);
	return "zero_denominator";
}

/* The word for a stats_delta's why (STATS_WHY_*, stats.h). */
static const char *delta_why(const struct stats_delta *d)
{
	if (!d->why)
		return NULL;
	if (!strcmp(d->why, STATS_WHY_NO_SAMPLE))
		return "no_ok_sample";
	if (!strcmp(d->why, STATS_WHY_ZERO_REF))
		return "zero_baseline";
	if (!strcmp(d->why, STATS_WHY_ZERO_CELL))
		return "zero_mean";
	if (!strcmp(d->why, STATS_WHY_TOO_FEW) ||
	    !strcmp(d->why, STATS_WHY_ONE_UNIT))
		return "too_few_samples";
	return "unbounded"; /* STATS_WHY_DENOM, STATS_WHY_REACHES_ZERO */
}

/*
 * The degrees of freedom of delta D, in the column of its interval's kind
 * (as the JSON report names them): welch_df for Fieller's (Welch's df),
 * paired_df for a paired one (units - 1; bridged: Welch-Satterthwaite
 * over the two pairings).  The other column is not applicable: empty,
 * unsaid, unless ALL (the delta is missing altogether) says why for both.
 */
static void df_cols(FILE *out, struct why *w, const struct stats_delta *d,
		    bool paired, const char *all, const char *part)
{
	const char *why = part ? part : "too_few_samples";

	numw(out, w, "welch_df", d->valid && !paired ? d->df : NAN,
	     paired ? all : why);
	numw(out, w, "paired_df", d->valid && paired ? d->df : NAN,
	     paired ? why : all);
}

/* slowdown .. significant of cell C against the baseline, said in W */
static void slowdown_cols(const struct report_cell *c, struct why *w,
			  FILE *out)
{
	const struct stats_delta *d = &c->vs_base;
	const char *all = c->is_baseline ? "baseline"
			  : !d->valid	 ? delta_why(d)
					 : NULL;
	const char *part = all ? all : delta_why(d);

	numw(out, w, "slowdown", d->valid ? d->delta : NAN, all);
	numw(out, w, "slowdown_lo", d->valid ? d->lo : NAN, part);
	numw(out, w, "slowdown_hi", d->valid ? d->hi : NAN, part);
	numw(out, w, "p_value", d->valid ? d->p : NAN,
	     part ? part : "too_few_samples");
	df_cols(out, w, d, c->iv != REPORT_IV_FIELLER, all, part);
	str(out,
	    d->valid && !isnan(d->p) ? (d->significant ? "yes" : "no") : NULL);
}

/* Empty fields from column FROM (0-based) to the last, then the end of
 * the row. */
static void pad(const struct report *r, FILE *out, int from)
{
	for (; from < csv_ncols(r); from++)
		fputc(',', out);
	fputc('\n', out);
}

/*
 * A cell with no ok sample has every value empty: its status says why
 * (skipped, failed), so its why_empty is empty too.
 */
static void cell_row(const struct report *r, const struct report_cell *c,
		     FILE *out)
{
	const struct report_counter_stats *ct = c->counters;
	struct why w = {.len = 0}, *wp = c->nok ? &w : NULL;
	const char *one = c->nok == 1 ? "too_few_samples" : NULL;
	size_t k;

	fprintf(out, "cell");
	str(out, c->id);
	str(out, c->label);
	str(out, c->status);
	str(out, c->reason);
	str(out, NULL);
	fprintf(out, ",%zu", c->nok);
	num(out, c->metric.mean);
	num(out, c->metric.median);
	numw(out, wp, "stddev", c->metric.stddev, one);
	numw(out, wp, "cv", c->metric.cv, one ? one : "zero_mean");
	num(out, c->metric.min);
	num(out, c->metric.max);
	numw(out, wp, "ci95_lo", c->metric.ci_lo, one);
	numw(out, wp, "ci95_hi", c->metric.ci_hi, one);
	num(out, c->elapsed.mean);
	num(out, c->user.mean);
	num(out, c->sys.mean);
	slowdown_cols(c, wp, out);
	numw(out, wp, "ipc", c->ipc.valid ? c->ipc.value : NAN,
	     ratio_why(ct[RC_INSTRUCTIONS].state, ct[RC_CYCLES].state));
	numw(out, wp, "dtlb_miss_rate",
	     c->dtlb_miss_rate.valid ? c->dtlb_miss_rate.value : NAN,
	     ratio_why(ct[RC_DTLB_LOAD_MISSES].state,
		       ct[RC_DTLB_LOADS].state));
	for (k = 0; k < r->ncounters; k++)
		numw(out, wp, fmt_counter_name(r, k),
		     c->nok && ct[k].state == CS_OK ? ct[k].mean : NAN,
		     state_why(ct[k].state));
	str(out, w.buf);
	fputc('\n', out);
}

/*
 * A sample taken on a busy host: "busy,ID,LABEL,STATUS,WHY,INDEX" and the
 * other columns empty (only runs with such samples have these rows).
 */
static void busy_row(const struct report *r, const struct report_cell *c,
		     const struct report_sample *s, FILE *out)
{
	fprintf(out, "busy");
	str(out, c->id);
	str(out, c->label);
	str(out, s->status);
	str(out, s->busy_why);
	fprintf(out, ",%ld", s->index);
	/* the six columns so far, then one empty field per other column */
	pad(r, out, 6);
}

/* A sample's ratio of counters NUM/DEN, or NaN said in W. */
static void sample_ratio(FILE *out, struct why *w, const char *col,
			 const struct report_sample *s, int num, int den)
{
	bool ok = s->cstate[num] == CS_OK && s->cstate[den] == CS_OK &&
		  s->counter[den] > 0;

	numw(out, w, col, ok ? s->counter[num] / s->counter[den] : NAN,
	     ratio_why(s->cstate[num], s->cstate[den]));
}

static void sample_row(const struct report *r, const struct report_cell *c,
		       const struct report_sample *s, FILE *out)
{
	struct why w = {.len = 0};
	size_t k;

	fprintf(out, "sample");
	str(out, c->id);
	str(out, c->label);
	str(out, s->status);
	str(out, s->reason);
	fprintf(out, ",%ld,", s->index);
	num(out, s->metric);
	/* median .. ci95_hi */
	fprintf(out, ",,,,,,,");
	num(out, s->elapsed);
	num(out, s->user);
	num(out, s->sys);
	/* slowdown .. significant */
	fprintf(out, ",,,,,,,");
	sample_ratio(out, &w, "ipc", s, RC_INSTRUCTIONS, RC_CYCLES);
	sample_ratio(out, &w, "dtlb_miss_rate", s, RC_DTLB_LOAD_MISSES,
		     RC_DTLB_LOADS);
	for (k = 0; k < r->ncounters; k++)
		numw(out, &w, fmt_counter_name(r, k),
		     s->cstate[k] == CS_OK ? s->counter[k] : NAN,
		     state_why(s->cstate[k]));
	str(out, w.buf);
	fputc('\n', out);
}

static void series_rows(const struct report *r, const struct report_cell *c,
			FILE *out)
{
	size_t k;

	for (k = 0; k < c->series.npoints; k++) {
		fprintf(out, "series");
		str(out, c->id);
		str(out, c->label);
		str(out, c->status);
		str(out, NULL);
		num(out, c->series.x[k]);
		fprintf(out, ",%zu", c->nok);
		num(out, c->series.y[k]);
		/* median .. why_empty */
		pad(r, out, 8);
	}
}

static void sampling_row(const struct report *r, const struct report_cell *c,
			 size_t n, const char *what, const char *reason,
			 double x, FILE *out)
{
	fprintf(out, "sampling");
	str(out, c->id);
	str(out, what);
	str(out, c->status);
	str(out, reason);
	fprintf(out, ",,%zu", n);
	num(out, x);
	/* median .. why_empty */
	pad(r, out, 8);
}

static void kvm_row(const struct report *r, const struct report_cell *c,
		    size_t n, const char *what, const char *name, double x,
		    FILE *out)
{
	char *label =
	    xasprintf("%s%s%s", what, name ? ":" : "", name ? name : "");

	fprintf(out, "kvm");
	str(out, c->id);
	str(out, label);
	str(out, c->status);
	str(out, NULL);
	fprintf(out, ",,%zu", n);
	num(out, x);
	/* median .. why_empty */
	pad(r, out, 8);
	free(label);
}

/* A cell's sampling rows (fmt_sampling_shown()): label and value. */
static void sampling_rows(const struct report *r, const struct report_cell *c,
			  FILE *out)
{
	char buf[1024];
	size_t n = c->nsamples;

	if (!fmt_sampling_shown(c))
		return;
	if (c->stop_reason)
		sampling_row(r, c, n, "stop_reason", c->stop_reason, NAN, out);
	if (c->boots.ngroups > 1) {
		sampling_row(r, c, c->boots.ngroups, "boots",
			     c->unit_boot ? "interval over boot means" : NULL,
			     NAN, out);
		sampling_row(r, c, n, "within_boot_var", NULL,
			     c->boots.within_var, out);
		sampling_row(r, c, c->boots.ngroups, "boot_means_var", NULL,
			     c->boots.between_var, out);
	}
	if (*fmt_iv(buf, sizeof(buf), r, c))
		sampling_row(r, c, c->paired.nunits, "interval", buf, c->paired.df,
			     out);
	sampling_row(r, c, c->nok, "outliers",
		     c->noutliers ? fmt_outliers(buf, sizeof(buf), c) : NULL,
		     (double)c->noutliers, out);
	sampling_row(r, c, c->nok, "trend_p",
		     c->trend.significant ? fmt_trend(buf, sizeof(buf), c)
					  : NULL,
		     c->trend.p, out);
}

static void kvm_rows(const struct report *r, const struct report_cell *c,
		     FILE *out)
{
	const struct report_kvm *k = &c->kvm;
	size_t i, n = k->nsamples;

	if (!k->present)
		return;
	kvm_row(r, c, n, "exits", NULL, k->exits_per_sample, out);
	kvm_row(r, c, n, "exits_total", NULL, k->exits_total_mean, out);
	kvm_row(r, c, n, "pages_4k", NULL, k->pages_4k, out);
	kvm_row(r, c, n, "pages_2m", NULL, k->pages_2m, out);
	kvm_row(r, c, n, "pages_1g", NULL, k->pages_1g, out);
	kvm_row(r, c, n, "share_2m", NULL, k->share_2m, out);
	kvm_row(r, c, n, "share_1g", NULL, k->share_1g, out);
	for (i = 0; i < k->nreasons; i++)
		kvm_row(r, c, k->nreason_samples, "exit", k->reasons[i].reason,
			k->reasons[i].per_sample, out);
	for (i = 0; i < k->nreasons; i++)
		kvm_row(r, c, k->nreason_samples, "exit_share",
			k->reasons[i].reason, k->reasons[i].share, out);
	for (i = 0; i < k->ndelta; i++)
		kvm_row(r, c, n, "delta", k->delta[i].name, k->delta[i].mean, out);
}

static void scaling_rows(const struct report *r,
			 const struct report_scaling *s, FILE *out)
{
	size_t j, k;

	for (j = 0; j < s->nlines; j++) {
		const struct report_scaling_line *l = &s->lines[j];

		for (k = 0; k < l->npoints; k++) {
			const struct report_cell *c =
			    &r->cells[l->points[k].cell];
			struct why w = {.len = 0};
			char *label = xasprintf(
			    "%s: %s", r->axes[s->axis].name, l->label);

			fprintf(out, "scaling");
			str(out, c->id);
			str(out, label);
			str(out, c->status);
			str(out, c->reason);
			num(out, l->points[k].x);
			fprintf(out, ",%zu", c->nok);
			num(out, c->metric.mean);
			/* median .. sys_s */
			fprintf(out, ",,,,,,,,,,");
			slowdown_cols(c, c->nok ? &w : NULL, out);
			/* ipc, dtlb_miss_rate, the counters */
			for (size_t k2 = 0; k2 < 2 + r->ncounters; k2++)
				fputc(',', out);
			str(out, w.buf);
			fputc('\n', out);
			free(label);
		}
	}
}

/*
 * A line of the report: "KIND,,LABEL,,REASON" and the other columns empty
 * (kind "host": the host's word in label, the note in reason; "warning").
 */
static void line_row(const struct report *r, FILE *out, const char *kind,
		     const char *label, const char *reason)
{
	fputs(kind, out);
	str(out, NULL);
	str(out, label);
	str(out, NULL);
	str(out, reason);
	pad(r, out, 5);
}

/* A run inside a lab host: one row of kind "lab", the line in "label". */
static void lab_row(const struct report *r, FILE *out)
{
	char *lab = fmt_lab_new(r);

	if (!lab)
		return;
	fprintf(out, "lab,");
	str(out, lab);
	pad(r, out, 3);
	free(lab);
}

/* Guests on a remote libvirt: one row of kind "remote_libvirt", the line
 * in "label". */
static void remote_row(const struct report *r, FILE *out)
{
	char *remote = fmt_remote_libvirt_new(r);

	if (remote)
		line_row(r, out, "remote_libvirt", remote, NULL);
	free(remote);
}

static int csv_render(const struct report *r, FILE *out)
{
	size_t i, j, k;

	fputs(cols, out);
	for (k = 0; k < r->ncounters; k++)
		fprintf(out, ",%s", fmt_counter_name(r, k));
	fputs("," CSV_WHY_COL "\n", out);
	for (i = 0; i < r->ncells; i++)
		cell_row(r, &r->cells[i], out);
	for (i = 0; i < r->ncells; i++)
		for (j = 0; j < r->cells[i].nsamples; j++)
			sample_row(r, &r->cells[i], &r->cells[i].samples[j], out);
	for (i = 0; i < r->ncells; i++)
		for (j = 0; j < r->cells[i].nsamples; j++)
			if (r->cells[i].samples[j].busy)
				busy_row(r, &r->cells[i], &r->cells[i].samples[j],
					 out);
	for (i = 0; i < r->ncells; i++)
		series_rows(r, &r->cells[i], out);
	for (i = 0; i < r->nscaling; i++)
		scaling_rows(r, &r->scaling[i], out);
	for (i = 0; i < r->ncells; i++)
		kvm_rows(r, &r->cells[i], out);
	lab_row(r, out);
	remote_row(r, out);
	if (r->host_recorded)
		line_row(r, out, "host", r->host_word, r->host_note);
	if (r->metric_warning)
		line_row(r, out, "warning", NULL, r->metric_warning);
	for (i = 0; i < r->ncells; i++)
		sampling_rows(r, &r->cells[i], out);
	fmt_profile_csv(r, out, csv_ncols(r));
	return ferror(out) ? -EIO : 0;
}

static void compare_kvm_row(const struct compare *c,
			    const struct compare_row *row, const char *what,
			    const char *name, double ref, double val,
			    double delta, FILE *out)
{
	char *label =
	    xasprintf("%s%s%s", what, name ? ":" : "", name ? name : "");

	fprintf(out, "kvm");
	str(out, row->cell->id);
	str(out, label);
	str(out, row->ref->id);
	str(out, c->by ? row->ref_name : compare_run_letter(row->ref_run));
	str(out, c->by ? row->name : compare_run_letter(row->run));
	fprintf(out, ",%zu", row->ref->kvm.nsamples);
	num(out, ref);
	fprintf(out, ",%zu", row->cell->kvm.nsamples);
	num(out, val);
	num(out, delta);
	/* delta_lo .. note */
	fprintf(out, ",,,,,,,\n");
	free(label);
}

static void compare_kvm_rows(const struct compare *c,
			     const struct compare_row *row, FILE *out)
{
	const struct compare_kvm *k = &row->kvm;
	size_t j;

	if (!k->valid)
		return;
	compare_kvm_row(c, row, "exits", NULL, k->exits_ref, k->exits,
			k->exits_delta, out);
	compare_kvm_row(c, row, "share_2m", NULL, k->share_2m_ref, k->share_2m,
			k->share_2m_delta, out);
	for (j = 0; j < k->ntop; j++)
		compare_kvm_row(c, row, "exit", k->top[j].reason, k->top[j].ref,
				k->top[j].val, k->top[j].delta, out);
}

static void effect_side(FILE *out, bool base, const struct stats_delta *d)
{
	str(out, base ? "yes" : "no");
	num(out, base ? NAN : d->delta);
	num(out, base ? NAN : d->lo);
	num(out, base ? NAN : d->hi);
	str(out, base ? NULL : d->bounded ? "yes" : "no");
}

static int csv_effect(const struct compare *c, FILE *out)
{
	size_t i;

	fputs("kind,ref,vs,ref_id,id,label,ref_is_baseline,ref_slowdown,"
	      "ref_lo,ref_hi,ref_bounded,is_baseline,slowdown,lo,hi,bounded,"
	      "points,ratio,note,workload,metric,unit,better,baseline,path\n",
	      out);
	for (i = 0; i < c->nruns; i++) {
		const struct report *r = c->runs[i];

		fprintf(out, "run,,%s,,,", compare_run_letter(i));
		fmt_csv_field(out, r->run_name);
		fputs(",,,,,,,,,,,,,", out);
		str(out, r->wl_name);
		str(out, r->wl_metric);
		str(out, r->wl_unit);
		str(out, r->wl_better);
		str(out, r->baseline_id);
		str(out, r->path);
		fputc('\n', out);
	}
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct compare_effect *e = &row->effect;
		char lb[1024];

		fprintf(out, "effect");
		str(out, compare_run_letter(row->ref_run));
		str(out, compare_run_letter(row->run));
		str(out, row->ref ? row->ref->id : NULL);
		str(out, row->cell ? row->cell->id : NULL);
		str(out, fmt_compare_label(lb, sizeof(lb), row));
		if (row->note) {
			fputs(",,,,,,,,,,,,", out);
		} else {
			effect_side(out, e->ref_base, &row->ref->vs_base);
			effect_side(out, e->base, &row->cell->vs_base);
			num(out, e->valid ? e->points : NAN);
			num(out, e->valid ? e->ratio : NAN);
		}
		str(out, row->note ? row->note : e->why);
		fputs(",,,,,,\n", out);
	}
	return ferror(out) ? -EIO : 0;
}

static int csv_compare(const struct compare *c, FILE *out)
{
	size_t i;

	if (c->effect)
		return csv_effect(c, out);
	fputs("kind,id,label,ref_id,ref,vs,ref_n,ref_mean,n,mean,delta,"
	      "delta_lo,delta_hi,p_value,welch_df,paired_df,significant,note\n",
	      out);
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct report_cell *any =
		    row->cell ? row->cell : row->ref;
		bool ok = !row->note;

		fprintf(out, "compare");
		str(out, any->id);
		str(out, any->label);
		str(out, row->ref ? row->ref->id : NULL);
		str(out,
		    c->by ? row->ref_name : compare_run_letter(row->ref_run));
		str(out, c->by ? row->name : compare_run_letter(row->run));
		fprintf(out, ",%zu", row->ref ? row->ref->nok : 0);
		num(out, row->ref ? row->ref->metric.mean : NAN);
		fprintf(out, ",%zu", row->cell ? row->cell->nok : 0);
		num(out, row->cell ? row->cell->metric.mean : NAN);
		num(out, ok ? row->d.delta : NAN);
		num(out, ok ? row->d.lo : NAN);
		num(out, ok ? row->d.hi : NAN);
		num(out, ok ? row->d.p : NAN);
		num(out, ok && !row->paired ? row->d.df : NAN);
		num(out, ok && row->paired ? row->d.df : NAN);
		str(out, ok && !isnan(row->d.p)
			     ? (row->d.significant ? "yes" : "no")
			     : NULL);
		str(out, row->note);
		fputc('\n', out);
	}
	for (i = 0; i < c->nrows; i++)
		compare_kvm_rows(c, &c->rows[i], out);
	/* kind "note": what the whole comparison must say (hosts that
	 * differ), in the note column */
	for (i = 0; i < c->nnotes; i++) {
		fputs("note,,,,,,,,,,,,,,,,", out);
		str(out, c->notes[i]);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_format_csv = {
    .name = "csv",
    .render = csv_render,
    .render_compare = csv_compare,
};
