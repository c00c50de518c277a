/* SPDX-License-Identifier: MIT */
/*
 * json: the computed statistics, schema "vmtax-report/1" (and
 * "vmtax-compare/1" for comparisons).  What cannot be computed is null.
 * Reals are printed with 12 significant digits so the output is stable.
 */
#include "format.h"
#include "sample-unit.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util.h"

#define JSON_FLAGS                                                             \
	(JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

static json_t *jreal(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static json_t *jstrn(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jsummary(const struct stats_summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:[o, o]}", "n",
			 (json_int_t)s->n, "mean", jreal(s->mean), "median",
			 jreal(s->median), "stddev", jreal(s->stddev), "cv",
			 jreal(s->cv), "min", jreal(s->min), "max",
			 jreal(s->max), "ci95", jreal(s->ci_lo),
			 jreal(s->ci_hi));
}

/*
 * A delta; its degrees of freedom are "welch_df" for Fieller's interval
 * (Welch's df) and "paired_df" for a PAIRED one (paired rounds: units - 1;
 * bridged: Welch-Satterthwaite over the two pairings), docs/reports.md.
 */
static json_t *jdelta(const struct stats_delta *d, bool paired)
{
	json_t *j;

	if (!d->valid)
		return json_null();
	j = json_pack("{s:o, s:o, s:b, s:o, s:o, s:b, s:b}", "value",
		      jreal(d->delta), "ci95",
		      d->bounded
			  ? json_pack("[o, o]", jreal(d->lo), jreal(d->hi))
			  : json_null(),
		      "bounded", d->bounded, "p", jreal(d->p),
		      paired ? "paired_df" : "welch_df",
		      jreal(d->df), "significant", d->significant,
		      "within_noise", !isnan(d->p) && !d->significant);
	/* Only an interval that is not there says why: others stay as-is. */
	if (d->why)
		json_object_set_new(j, "why", json_string(d->why));
	return j;
}

/* "thp_contrasts": the report's THP contrasts (model.h). */
static json_t *jcontrasts(const struct report *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->ncontrasts; i++) {
		const struct report_contrast *k = &r->contrasts[i];

		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:I, s:s, "
				 "s:s}",
				 "axis", k->axis, "never",
				 r->cells[k->never].id, "always",
				 r->cells[k->always].id, "context",
				 k->context, "delta",
				 jdelta(&k->d, strcmp(k->method, "Fieller") != 0),
				 "method",
				 k->method, "units", (json_int_t)k->units,
				 "verdict",
				 report_contrast_verdict_name(k->verdict),
				 "text", k->text));
	}
	return a;
}

static json_t *jcounter(const struct report_counter_stats *cs)
{
	if (cs->state == CS_NOT_SUPPORTED)
		return json_pack("{s:s}", "state", "not supported");
	if (cs->state == CS_NOT_COUNTED)
		return json_pack("{s:s}", "state", "not counted");
	return json_pack("{s:s, s:o, s:o}", "state", "ok", "mean",
			 jreal(cs->mean), "rel_stddev", jreal(cs->rel_sd));
}

/* {"x": [...], "y": [...]} (mean y per x over the ok samples). */
static json_t *jseries(const struct report_series *s)
{
	json_t *xs = json_array(), *ys = json_array();
	size_t k;

	for (k = 0; k < s->npoints; k++) {
		json_array_append_new(xs, jreal(s->x[k]));
		json_array_append_new(ys, jreal(s->y[k]));
	}
	return json_pack("{s:o, s:o}", "x", xs, "y", ys);
}

/*
 * A guest cell's KVM evidence: counts per sample, pages at the end of the
 * last sample, every exit reason and delta counter.
 */
static json_t *jkvm(const struct report_kvm *k)
{
	json_t *reasons = json_array(), *delta = json_object(), *j;
	size_t i;

	for (i = 0; i < k->nreasons; i++)
		json_array_append_new(
		    reasons,
		    json_pack("{s:s, s:I, s:o, s:o}", "reason",
			      k->reasons[i].reason, "code",
			      (json_int_t)k->reasons[i].code, "per_sample",
			      jreal(k->reasons[i].per_sample), "share",
			      jreal(k->reasons[i].share)));
	for (i = 0; i < k->ndelta; i++)
		json_object_set_new(delta, k->delta[i].name,
				    jreal(k->delta[i].mean));
	j = json_pack(
	    "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "samples",
	    (json_int_t)k->nsamples, "vendor", jstrn(k->vendor),
	    "exits_per_sample", jreal(k->exits_per_sample),
	    "exits_total_per_sample", jreal(k->exits_total_mean), "pages_4k",
	    jreal(k->pages_4k), "pages_2m", jreal(k->pages_2m), "pages_1g",
	    jreal(k->pages_1g), "share_2m", jreal(k->share_2m), "share_1g",
	    jreal(k->share_1g), "delta_per_sample", delta);
	if (k->nreason_samples) {
		json_object_set_new(j, "exits_by_reason", reasons);
		json_object_set_new(
		    j, "exits_by_reason_samples",
		    json_integer((json_int_t)k->nreason_samples));
	} else {
		json_decref(reasons);
		json_object_set_new(j, "exits_by_reason", json_null());
		json_object_set_new(j, "exits_by_reason_why",
				    jstrn(k->reasons_why));
	}
	return j;
}

/*
 * How a paired or bridged interval was made (docs/sampling.md); the
 * variance components are of the log ratio (T1^2, T2^2).
 */
static json_t *jinterval(const struct report *r, const struct report_cell *c)
{
	const struct stats_paired *p = &c->paired;

	return json_pack(
		"{s:s, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:[o, o], s:o}",
		"method", report_interval_name(c), "unit",
		stats_unit_name(p->unit), "rounds", (json_int_t)p->nrounds,
		"rounds_shared", (json_int_t)c->rounds_shared,
		"rounds_left_out", (json_int_t)c->rounds_zero, "units",
		(json_int_t)p->nunits, "df", jreal(p->df),
		"log_ratio_within_var", jreal(p->kj.t1sq),
		"log_ratio_between_var", jreal(p->kj.t2sq),
		"bootstrap", jreal(c->hboot_lo), jreal(c->hboot_hi), "via",
		c->bridge_via >= 0 ? json_string(r->cells[c->bridge_via].id)
				   : json_null());
}

/* How the cell sampled: docs/sampling.md; boots' variances are of the
 * metric: pooled within a boot (S1^2) and of the boot means (S2^2). */
static json_t *jsampling(const struct report_cell *c)
{
	json_t *out = json_array(), *boots = json_null();
	size_t i;

	for (i = 0; i < c->nsamples; i++)
		if (c->samples[i].outlier)
			json_array_append_new(out,
					      json_integer(c->samples[i].index));
	if (c->boots.ngroups > 1)
		boots = json_pack("{s:I, s:o, s:o}", "n",
				  (json_int_t)c->boots.ngroups, "within_boot_var",
				  jreal(c->boots.within_var), "boot_means_var",
				  jreal(c->boots.between_var));
	return json_pack("{s:o, s:s, s:I, s:o, s:{s:o, s:o, s:s, s:b}, s:o}",
			 "stop_reason", jstrn(c->stop_reason), "unit",
			 sample_unit_name(c->unit_boot), "units",
			 (json_int_t)c->units.n, "outliers", out, "trend", "z",
			 jreal(c->trend.z), "p", jreal(c->trend.p), "direction",
			 c->trend.direction > 0	  ? "rising"
			 : c->trend.direction < 0 ? "falling"
						  : "none",
			 "significant", c->trend.significant, "boots", boots);
}

/*
 * The keys of cell C that only some runs have (busy samples, interleaved
 * intervals, series, KVM, profiles, named axes): older reports stay as-is.
 */
static void jcell_extras(const struct report *r, const struct report_cell *c,
			 json_t *jc)
{
	int k;

	/* Only cells with busy samples have the keys: older reports stay. */
	if (c->nbusy) {
		json_object_set_new(jc, "busy_samples",
				    json_integer((json_int_t)c->nbusy));
		json_object_set_new(jc, "busy", json_string(c->busy_text));
	}
	json_object_set_new(jc, "sampling", jsampling(c));
	/* Only cells measured in interleaved rounds: older reports as-is. */
	if (c->iv != REPORT_IV_FIELLER)
		json_object_set_new(jc, "interval", jinterval(r, c));
	/* Only cells with a series have the key: older reports stay as-is. */
	if (c->series.npoints)
		json_object_set_new(jc, "series", jseries(&c->series));
	/* Only when the run has KVM evidence: older reports stay as-is. */
	if (fmt_kvm_shown(r, c)) {
		json_object_set_new(
		    jc, "kvm", c->kvm.present ? jkvm(&c->kvm) : json_null());
		if (!c->kvm.present)
			json_object_set_new(jc, "kvm_why",
					    json_string(c->kvm.why));
	}
	/* Only when the run has profiles: older reports stay as-is. */
	if (r->has_profile)
		json_object_set_new(jc, "profile", fmt_profile_json(c));
	if (!r->axes_derived) {
		json_t *ax = json_object();

		for (k = 0; k < (int)r->naxes; k++)
			if (c->axv[k])
				json_object_set_new(ax, r->axes[k].name,
						    json_string(c->axv[k]));
		json_object_set_new(jc, "axes", ax);
	}
}

static json_t *jcell(const struct report *r, const struct report_cell *c)
{
	json_t *counters = json_object(), *jc;
	size_t k;

	/* raw means (task-clock in ns): perf stat's figures are the text's */
	for (k = 0; k < r->ncounters; k++)
		json_object_set_new(counters, fmt_counter_name(r, k),
				    jcounter(&c->counters[k]));
	jc = json_pack(
	    "{s:s, s:s, s:s, s:{s:s, s:o, s:o, s:o, s:o}, s:s, s:o, "
	    "s:{s:o, s:o}, s:o, s:b, s:I, s:I, s:o, s:o, s:o, s:o, s:o, "
	    "s:o, s:o, s:o}",
	    "id", c->id, "label", c->label, "column", c->column, "env",
	    AXIS_ENV_WHERE, c->where, AXIS_ENV_HOST_THP, jstrn(c->host_thp),
	    AXIS_ENV_GUEST_THP, jstrn(c->guest_thp), AXIS_ENV_PAGING,
	    jstrn(c->paging), AXIS_ENV_BACKING, jstrn(c->backing), "status",
	    c->status, "reason", jstrn(c->reason), "observed",
	    AXIS_ENV_HOST_THP, jstrn(c->obs_host_thp), AXIS_ENV_GUEST_THP,
	    jstrn(c->obs_guest_thp), "mismatch", jstrn(c->mismatch_text),
	    "baseline", c->is_baseline, "samples_ok", (json_int_t)c->nok,
	    "samples_total", (json_int_t)c->nsamples, "metric",
	    jsummary(&c->metric), "elapsed_s", jsummary(&c->elapsed), "user_s",
	    jsummary(&c->user), "sys_s", jsummary(&c->sys), "counters",
	    counters, "ipc", c->ipc.valid ? jreal(c->ipc.value) : json_null(),
	    "dtlb_miss_rate",
	    c->dtlb_miss_rate.valid ? jreal(c->dtlb_miss_rate.value)
				    : json_null(),
	    "slowdown", jdelta(&c->vs_base, c->iv != REPORT_IV_FIELLER));
	/* A slowdown that is null says why (a baseline mean of 0); others
	 * stay as-is. */
	if (jc && !c->is_baseline && c->nok && !c->vs_base.valid &&
	    c->vs_base.why)
		json_object_set_new(jc, "slowdown_why",
				    json_string(c->vs_base.why));
	if (jc)
		jcell_extras(r, c, jc);
	return jc;
}

/* A row's key for an axis: the legacy names for the THP axes. */
static const char *row_key(const struct report_axis *a)
{
	if (!strcmp(a->name, AXIS_NAME_GUEST_THP))
		return AXIS_ENV_GUEST_THP;
	if (!strcmp(a->name, AXIS_NAME_HOST_THP))
		return AXIS_ENV_HOST_THP;
	return a->name;
}

static json_t *jmatrix(const struct report *r)
{
	const struct report_matrix *m = &r->matrix;
	json_t *cols = json_array(), *rows = json_array();
	size_t row, col, k;

	for (col = 0; col < m->ncols; col++)
		json_array_append_new(cols, json_string(m->cols[col]));
	for (row = 0; row < m->nrows; row++) {
		json_t *ids = json_array(), *jr = json_object();

		for (col = 0; col < m->ncols; col++) {
			long s = m->slot[row * m->ncols + col];

			json_array_append_new(
			    ids,
			    s < 0 ? json_null() : json_string(r->cells[s].id));
		}
		for (k = 0; k < m->nrow_axes; k++) {
			const char *v = m->row_val[row * m->nrow_axes + k];

			json_object_set_new(
			    jr, row_key(&r->axes[m->row_axes[k]]),
			    *v ? json_string(v) : json_null());
		}
		json_object_set_new(jr, "cells", ids);
		json_array_append_new(rows, jr);
	}
	return json_pack("{s:o, s:o}", "columns", cols, "rows", rows);
}

/* "geomean_by_column": model.h's struct report_colgeo, in its order. */
static json_t *jcolgeo(const struct report *r)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; k < r->ncolgeo; k++)
		json_array_append_new(
		    a, json_pack("{s:s, s:o, s:I, s:I}", "column",
				 r->colgeo[k].column, "value",
				 jreal(r->colgeo[k].geomean), "cells",
				 (json_int_t)r->colgeo[k].n, "column_cells",
				 (json_int_t)r->colgeo[k].ncells));
	return a;
}

/*
 * "axes": the run's axes as read (or derived); "scaling": per numeric
 * axis, each line's points with the cell's slowdown.  Only written when
 * the run has a numeric axis or axes of its own, so reports of older
 * runs stay as they were.
 */
static json_t *jaxes(const struct report *r)
{
	json_t *axes = json_array();
	size_t i, k;

	for (i = 0; i < r->naxes; i++) {
		const struct report_axis *a = &r->axes[i];
		json_t *vals = json_array(), *ja;

		for (k = 0; k < a->nvalues; k++)
			json_array_append_new(vals, json_string(a->values[k]));
		ja = json_pack("{s:s, s:o, s:b, s:s}", "name", a->name,
			       "values", vals, "numeric", a->numeric,
			       "applies", a->guest_only ? "guest" : "all");
		if (a->numeric) {
			json_t *nums = json_array();

			for (k = 0; k < a->nvalues; k++)
				json_array_append_new(nums,
						      jreal(a->numbers[k]));
			json_object_set_new(ja, "numbers", nums);
		}
		json_array_append_new(axes, ja);
	}
	return axes;
}

static json_t *jscaling(const struct report *r)
{
	json_t *all = json_array();
	size_t i, j, k;

	for (i = 0; i < r->nscaling; i++) {
		const struct report_scaling *s = &r->scaling[i];
		json_t *lines = json_array();

		for (j = 0; j < s->nlines; j++) {
			const struct report_scaling_line *l = &s->lines[j];
			json_t *pts = json_array();

			for (k = 0; k < l->npoints; k++) {
				const struct report_cell *c =
				    &r->cells[l->points[k].cell];

				json_array_append_new(
				    pts,
				    json_pack("{s:o, s:s, s:s, s:s, s:b, s:o}",
					      "x", jreal(l->points[k].x),
					      "value", l->points[k].value, "id",
					      c->id, "status", c->status,
					      "baseline", c->is_baseline,
					      "slowdown",
					      jdelta(&c->vs_base,
						     c->iv != REPORT_IV_FIELLER)));
			}
			json_array_append_new(
			    lines, json_pack("{s:s, s:o}", "label", l->label,
					     "points", pts));
		}
		json_array_append_new(
		    all, json_pack("{s:s, s:o}", "axis",
				   r->axes[s->axis].name, "lines", lines));
	}
	return all;
}

static int dump(json_t *doc, FILE *out)
{
	int ret;

	if (!doc)
		return err("cannot build the JSON report");
	ret = json_dumpf(doc, out, JSON_FLAGS);
	json_decref(doc);
	if (ret < 0)
		return -EIO;
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

static int json_render(const struct report *r, FILE *out)
{
	json_t *cells = json_array(), *doc;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		json_array_append_new(cells, jcell(r, &r->cells[i]));
	doc =
	    json_pack("{s:s, s:{s:s, s:s, s:o, s:o, s:{s:o, s:o, s:o, "
		      "s:o, s:o, s:o, s:o}, s:{s:o, s:o, s:o}}, "
		      "s:{s:s, s:s, s:s, s:s, s:s, s:O*}, s:s, "
		      "s:o, s:o, s:{s:o, s:I}}",
		      "schema", "vmtax-report/1", "run", "name", r->run_name,
		      "status", r->run_status, "started", jstrn(r->started),
		      "finished", jstrn(r->finished), "host", "hostname",
		      jstrn(r->hostname), "kernel", jstrn(r->kernel),
		      "cpu_model", jstrn(r->cpu_model), "cpus",
		      r->cpus < 0 ? json_null() : json_integer(r->cpus),
		      "mem_bytes", jreal(r->mem_bytes),
		      "accel", jstrn(r->accel), "accel_reason",
		      jstrn(r->accel_reason), "versions", "vmtax",
		      jstrn(r->v_vmtax), "libvirt", jstrn(r->v_libvirt), "qemu",
		      jstrn(r->v_qemu), "workload", "name", r->wl_name,
		      "description", r->wl_description, "metric", r->wl_metric,
		      "unit", r->wl_unit, "better", r->wl_better, "params",
		      r->wl_params, "baseline", r->baseline_id, "cells", cells,
		      "matrix", jmatrix(r), "geomean_slowdown", "value",
		      jreal(r->geomean_slowdown), "cells", (json_int_t)r->ngeo);
	if (doc && !r->axes_derived)
		json_object_set_new(doc, "axes", jaxes(r));
	if (doc)
		json_object_set_new(doc, "geomean_by_column", jcolgeo(r));
	/* A run inside a lab host: what it was, and the line reports show. */
	if (doc && r->lab) {
		json_t *lab = json_deep_copy(r->lab);
		char *line = fmt_lab_new(r);

		json_object_set_new(lab, "summary", json_string(line));
		json_object_set_new(doc, "lab", lab);
		free(line);
	}
	/* Guests on a remote libvirt: the same, its line "summary". */
	if (doc && r->remote_libvirt) {
		json_t *rl = json_deep_copy(r->remote_libvirt);
		char *line = fmt_remote_libvirt_new(r);

		json_object_set_new(rl, "summary", json_string(line));
		json_object_set_new(doc, "remote_libvirt", rl);
		free(line);
	}
	if (doc && r->nscaling)
		json_object_set_new(doc, "scaling", jscaling(r));
	/* Only files that record the host's identity have these keys. */
	if (doc && r->host_recorded)
		json_object_set_new(doc, "host_label",
				    json_string(r->host_word));
	if (doc && r->host_note)
		json_object_set_new(doc, "host_note",
				    json_string(r->host_note));
	if (doc && r->ncontrasts)
		json_object_set_new(doc, "thp_contrasts", jcontrasts(r));
	if (doc && r->contrast_note)
		json_object_set_new(doc, "thp_contrast_note",
				    json_string(r->contrast_note));
	if (doc && r->metric_warning)
		json_object_set_new(doc, "metric_warning",
				    json_string(r->metric_warning));
	return dump(doc, out);
}

static json_t *jcompare_kvm(const struct compare_kvm *k)
{
	json_t *top = json_array();
	size_t j;

	if (!k->valid) {
		json_decref(top);
		return json_null();
	}
	for (j = 0; j < k->ntop; j++)
		json_array_append_new(
		    top, json_pack("{s:s, s:o, s:o, s:o}", "reason",
				   k->top[j].reason, "ref_per_sample",
				   jreal(k->top[j].ref), "per_sample",
				   jreal(k->top[j].val), "delta",
				   jreal(k->top[j].delta)));
	return json_pack(
	    "{s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:o}", "exits_per_sample",
	    "ref", jreal(k->exits_ref), "value", jreal(k->exits), "delta",
	    jreal(k->exits_delta), "share_2m", "ref", jreal(k->share_2m_ref),
	    "value", jreal(k->share_2m), "delta", jreal(k->share_2m_delta),
	    "most_changed", top);
}

/* One side of an effect row: {"baseline": true} or the slowdown. */
static json_t *jeffect_side(bool base, const struct report_cell *c)
{
	const struct stats_delta *d = &c->vs_base;

	if (base)
		return json_pack("{s:b, s:s}", "baseline", 1, "value",
				 "0 by definition");
	return json_pack("{s:b, s:o}", "baseline", 0, "slowdown",
			 jdelta(d, c->iv != REPORT_IV_FIELLER));
}

static int json_effect(const struct compare *c, FILE *out)
{
	json_t *runs = json_array(), *rows = json_array(), *notes;
	char lb[1024];
	size_t i;

	for (i = 0; i < c->nruns; i++) {
		const struct report *r = c->runs[i];

		json_array_append_new(
		    runs, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
				    "letter", compare_run_letter(i), "name",
				    r->run_name, "path", r->path, "workload",
				    r->wl_name, "metric", r->wl_metric, "unit",
				    r->wl_unit, "better", r->wl_better,
				    "baseline", r->baseline_id));
	}
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct compare_effect *e = &row->effect;
		bool ok = !row->note;

		json_array_append_new(
		    rows,
		    json_pack(
			"{s:o, s:o, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
			"ref_id", jstrn(row->ref ? row->ref->id : NULL), "id",
			jstrn(row->cell ? row->cell->id : NULL), "label",
			fmt_compare_label(lb, sizeof(lb), row), "ref",
			compare_run_letter(row->ref_run), "vs",
			compare_run_letter(row->run), "ref_effect",
			ok ? jeffect_side(e->ref_base, row->ref)
			   : json_null(),
			"effect",
			ok ? jeffect_side(e->base, row->cell)
			   : json_null(),
			"points",
			ok && e->valid ? jreal(e->points) : json_null(),
			"ratio", ok && e->valid ? jreal(e->ratio) : json_null(),
			"note", jstrn(row->note ? row->note : e->why)));
	}
	notes = json_array();
	for (i = 0; i < c->nnotes; i++)
		json_array_append_new(notes, json_string(c->notes[i]));
	return dump(json_pack("{s:s, s:b, s:s, s:o, s:o, s:o}", "schema",
			      "vmtax-compare/1", "effect", 1, "title",
			      FMT_EFFECT_TITLE, "runs", runs, "notes", notes,
			      "rows", rows),
		    out);
}

static int json_compare(const struct compare *c, FILE *out)
{
	json_t *runs = json_array(), *rows = json_array(), *notes = NULL;
	size_t i;

	if (c->effect) {
		json_decref(runs);
		json_decref(rows);
		return json_effect(c, out);
	}

	for (i = 0; i < c->nruns; i++)
		json_array_append_new(
		    runs,
		    json_pack("{s:s, s:s, s:s, s:o, s:o}", "letter",
			      compare_run_letter(i), "name",
			      c->runs[i]->run_name, "path", c->runs[i]->path,
			      "hostname", jstrn(c->runs[i]->hostname), "kernel",
			      jstrn(c->runs[i]->kernel)));
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct report_cell *any =
		    row->cell ? row->cell : row->ref;

		json_array_append_new(
		    rows,
		    json_pack(
			"{s:s, s:s, s:o, s:s, s:s, s:o, s:o, s:o, "
			"s:o}",
			"id", any->id, "label", any->label, "ref_id",
			jstrn(row->ref ? row->ref->id : NULL), "ref",
			c->by ? row->ref_name
			      : compare_run_letter(row->ref_run),
			"vs", c->by ? row->name : compare_run_letter(row->run),
			"ref_metric",
			row->ref ? jsummary(&row->ref->metric) : json_null(),
			"metric",
			row->cell ? jsummary(&row->cell->metric) : json_null(),
			"delta",
			row->note ? json_null() : jdelta(&row->d, row->paired),
			"note", jstrn(row->note)));
		/* Only when some row has KVM deltas: older output stays. */
		if (c->has_kvm)
			json_object_set_new(json_array_get(rows, i), "kvm",
					    jcompare_kvm(&row->kvm));
	}
	/* Only when there are some (hosts that differ): older output stays. */
	if (c->nnotes) {
		notes = json_array();
		for (i = 0; i < c->nnotes; i++)
			json_array_append_new(notes,
					      json_string(c->notes[i]));
	}
	return dump(json_pack("{s:s, s:o, s:s, s:s, s:s, s:o, s:o*, s:o, "
			      "s:{s:o, s:I}, s:o*}",
			      "schema", "vmtax-compare/1", "by", jstrn(c->by),
			      "workload", c->runs[0]->wl_name, "metric",
			      c->runs[0]->wl_metric, "unit",
			      c->runs[0]->wl_unit, "runs", runs, "notes", notes,
			      "rows", rows, "geomean_delta", "value",
			      jreal(c->geomean), "cells", (json_int_t)c->ngeo,
			      "rerun", c->rerun ? json_string(c->rerun) : NULL),
		    out);
}

const struct report_format report_format_json = {
    .name = "json",
    .render = json_render,
    .render_compare = json_compare,
};
