/* SPDX-License-Identifier: MIT */
/*
 * The run engine's side of adaptive sampling: each cell's units from its
 * recorded samples, its slowdown against the baseline by the interval its
 * report will print (slowdown.h), and the plan of sampling-plan.h applied
 * to the run's cell states.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run-engine.h"
#include "sample-unit.h"
#include "slowdown.h"
#include "stats-paired.h"
#include "stats-robust.h"
#include "util.h"

long run_per_boot(const struct run *r, int ci)
{
	return sample_unit_per_boot(run_exec_has(r, ci, EXEC_NEEDS_GUEST),
				    r->cfg.repeat, r->cfg.boots);
}

bool run_unit_is_boot(const struct run *r, int ci)
{
	return run_per_boot(r, ci) > 0;
}

/* Cell ST as slowdown.h sees it, as the reports will (reports/sampling.c):
 * each sample's metric (NaN unless ok), round and boot (-1 where not
 * recorded), and its units (boot means when BY_BOOT). */
static void cell_view(const struct cell_state *st, bool by_boot,
		      struct slowdown_cell *v)
{
	size_t n = json_array_size(st->samples), i, k = 0;
	double *x = xcalloc(n ? n : 1, sizeof(*x));
	long *boot = xcalloc(n ? n : 1, sizeof(*boot));

	slowdown_cell_init(v, n);
	for (i = 0; i < n; i++) {
		json_t *sj = json_array_get(st->samples, i);
		json_t *m = json_object_get(sj, "metric");
		json_t *b = json_object_get(sj, "boot");
		json_t *rd = json_object_get(sj, "round");
		const char *status =
		    json_string_value(json_object_get(sj, "status"));

		v->boot[i] = json_is_integer(b) ? (long)json_integer_value(b)
						: -1;
		v->round[i] =
		    json_is_integer(rd) ? (long)json_integer_value(rd) : -1;
		v->metric[i] = NAN;
		if (!status || strcmp(status, "ok") || !json_is_number(m))
			continue;
		v->metric[i] = x[k] = json_number_value(m);
		boot[k++] = v->boot[i];
	}
	sample_units_summarize(by_boot, x, boot, k, &v->units);
	free(x);
	free(boot);
}

long run_sampling_plan(struct run *r)
{
	struct sampling_rule rule = {r->cfg.target, r->cfg.repeat,
				     r->cfg.max_repeat};
	struct sampling_cell *sc = xcalloc(r->ncells, sizeof(*sc));
	struct slowdown_cell *view = xcalloc(r->ncells, sizeof(*view));
	const struct slowdown_cell **vp = xcalloc(r->ncells, sizeof(*vp));
	enum report_interval *iv = xcalloc(r->ncells, sizeof(*iv));
	int b = r->matrix.baseline, i;
	long total;

	for (i = 0; i < r->ncells; i++) {
		const struct cell_state *st = &r->states[i];
		long per_boot = run_per_boot(r, i);

		cell_view(st, per_boot > 0, &view[i]);
		vp[i] = &view[i];
		sc[i].active =
		    st->status == CELL_PENDING && st->stop == STOP_NONE;
		sc[i].nsamples = st->nsamples;
		sc[i].nunits = view[i].units.n;
		sc[i].per_unit = per_boot > 0 ? per_boot : 1;
		sc[i].reason = st->status == CELL_FAILED    ? STOP_FAILED
			       : st->status == CELL_SKIPPED ? STOP_SKIPPED
							    : st->stop;
	}
	/* The interval the report will print (slowdown.h): paired in an
	 * interleaved run, Fieller's in cells order. */
	for (i = 0; i < r->ncells; i++)
		if (i != b) {
			struct slowdown s;

			slowdown_of(vp, (size_t)r->ncells, (size_t)b, (size_t)i,
				    !strcmp(r->cfg.wl.better, "higher"), false,
				    0, &s);
			sc[i].d = s.d;
			iv[i] = s.iv;
		}
	total = sampling_plan_round(&rule, sc, (size_t)r->ncells, (size_t)b);
	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];

		if (!sc[i].active)
			continue;
		st->halfwidth = sc[i].halfwidth;
		st->stop = sc[i].reason;
		st->planned = st->nsamples + sc[i].more;
		if (st->stop != STOP_NONE && i != b)
			note("%s: done sampling (%s): %ld samples, interval "
			     "half-width %.2f%% (%s)",
			     r->cells[i].id, stop_reason_name(st->stop),
			     st->nsamples, st->halfwidth * 100,
			     slowdown_interval_name(iv[i]));
		else if (st->stop != STOP_NONE)
			note("%s: the baseline is done sampling (%s): %ld "
			     "samples",
			     r->cells[i].id, stop_reason_name(st->stop),
			     st->nsamples);
	}
	r->samples_total += total;
	for (i = 0; i < r->ncells; i++)
		slowdown_cell_release(&view[i]);
	free(view);
	free(vp);
	free(iv);
	free(sc);
	return total;
}

/* Cell CI's ok samples as log(metric) and boot; the mean elapsed time. */
static size_t log_units(const struct cell_state *st, double *x, long *boot,
			double *elapsed)
{
	size_t n = json_array_size(st->samples), i, k = 0;
	double sum = 0;

	for (i = 0; i < n; i++) {
		json_t *sj = json_array_get(st->samples, i);
		json_t *m = json_object_get(sj, "metric");
		const char *status =
		    json_string_value(json_object_get(sj, "status"));

		if (!status || strcmp(status, "ok") || !json_is_number(m) ||
		    !(json_number_value(m) > 0))
			continue;
		x[k] = log(json_number_value(m));
		boot[k++] =
		    (long)json_integer_value(json_object_get(sj, "boot"));
		sum += json_number_value(json_object_get(sj, "elapsed_s"));
	}
	*elapsed = k ? sum / (double)k : NAN;
	return k;
}

void run_plan_group(struct run *r, const int *cells, size_t n, long *r1,
		    long *boots)
{
	size_t i;

	*r1 = 1;
	*boots = 2;
	for (i = 0; i < n; i++) {
		struct cell_state *st = &r->states[cells[i]];
		size_t cap = json_array_size(st->samples) + 1, k;
		double *x = xcalloc(cap, sizeof(*x)), c1, c2, hello;
		long *boot = xcalloc(cap, sizeof(*boot)), per, nb;
		struct stats_kj kj;
		char why[512];

		k = log_units(st, x, boot, &c1);
		hello = json_number_value(
			json_object_get(st->observed, "boot_to_hello_s"));
		c2 = hello + (double)r->cfg.warmup * c1;
		if (k < 2 || stats_kj(x, boot, k, &kj) < 0 || isnan(kj.t1sq) ||
		    isnan(kj.t2sq) || !(c1 > 0)) {
			snprintf(why, sizeof(why),
				 "the sizing pass gave too little to plan "
				 "with (%zu ok samples): 2 boots",
				 k);
			per = 1;
			nb = 2;
			kj.t1sq = kj.t2sq = NAN;
		} else {
			/* A boot is never worth more than half the samples
			 * a cell may take. */
			per = stats_kj_samples_per_boot(
				kj.t1sq, kj.t2sq, c1, c2,
				r->cfg.max_repeat / 2 > 1 ? r->cfg.max_repeat / 2
							  : 1);
			nb = r->cfg.target > 0
				     ? stats_kj_boots_for(kj.t1sq, kj.t2sq, per,
							  1, r->cfg.target,
							  r->cfg.max_boots)
				     : r->cfg.max_repeat / per;
			if (nb < 2)
				nb = 2;
			if (nb > r->cfg.max_boots)
				nb = r->cfg.max_boots;
			if (nb * per > r->cfg.max_repeat && r->cfg.max_repeat >= 2)
				nb = r->cfg.max_repeat / per < 2
					     ? 2
					     : r->cfg.max_repeat / per;
			snprintf(why, sizeof(why),
				 "variance of log(%s) within a boot %.3g, "
				 "between boots %.3g%s; a sample costs %.1f s, "
				 "a boot %.1f s: %ld sample%s per boot, %ld "
				 "boots (%s)",
				 r->cfg.wl.metric, kj.t1sq, kj.t2sq,
				 kj.t2sq_clamped ? " (clamped at 0)" : "", c1,
				 c2, per, per == 1 ? "" : "s", nb,
				 r->cfg.target > 0
					 ? "for the target, within max_boots "
					   "and max_repeat"
					 : "max_repeat's samples, within "
					   "max_boots");
		}
		json_decref(st->plan);
		st->plan = json_pack(
			"{s:I, s:I, s:o, s:o, s:o, s:o, s:s}",
			"samples_per_boot", (json_int_t)per, "boots",
			(json_int_t)nb, "log_within_var",
			isnan(kj.t1sq) ? json_null() : json_real(kj.t1sq),
			"log_between_var",
			isnan(kj.t2sq) ? json_null() : json_real(kj.t2sq),
			"sample_s", isnan(c1) ? json_null() : json_real(c1),
			"boot_s", isnan(c2) ? json_null() : json_real(c2),
			"why", why);
		note("%s: plan: %s", r->cells[cells[i]].id, why);
		if (per > *r1)
			*r1 = per;
		if (nb > *boots)
			*boots = nb;
		free(x);
		free(boot);
	}
}

json_t *run_cell_variance_new(const struct run *r, int ci)
{
	const struct cell_state *st = &r->states[ci];
	size_t cap = json_array_size(st->samples) + 1, k;
	double *x = xcalloc(cap, sizeof(*x)), c1;
	long *boot = xcalloc(cap, sizeof(*boot));
	struct stats_kj kj;
	json_t *j = NULL;

	k = log_units(st, x, boot, &c1);
	if (run_exec_has(r, ci, EXEC_NEEDS_GUEST) && k > 1 &&
	    stats_kj(x, boot, k, &kj) == 0 && kj.nboots > 1)
		j = json_pack("{s:s, s:I, s:f, s:o, s:o, s:b}", "of",
			      "log(metric)", "boots", (json_int_t)kj.nboots,
			      "samples_per_boot", kj.r1, "log_within_var",
			      isnan(kj.t1sq) ? json_null() : json_real(kj.t1sq),
			      "log_between_var",
			      isnan(kj.t2sq) ? json_null() : json_real(kj.t2sq),
			      "between_clamped", kj.t2sq_clamped);
	free(x);
	free(boot);
	return j;
}
