/* SPDX-License-Identifier: MIT */
/*
 * The run engine's side of adaptive sampling: each cell's units from its
 * recorded samples, its slowdown against the baseline, and the plan of
 * sampling-plan.h applied to the run's cell states.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run-engine.h"
#include "stats-robust.h"
#include "util.h"

long run_per_boot(const struct run *r, int ci)
{
	if (r->cfg.boots <= 1 || r->cells[ci].where != WHERE_GUEST)
		return 0;
	return (r->cfg.repeat + r->cfg.boots - 1) / r->cfg.boots;
}

bool run_unit_is_boot(const struct run *r, int ci)
{
	return run_per_boot(r, ci) > 0;
}

/* The ok metrics of ST (boot means when BY_BOOT) into S. */
static void cell_units(const struct cell_state *st, bool by_boot,
		       struct stats_summary *s)
{
	size_t n = json_array_size(st->samples), i, k = 0;
	double *x = xcalloc(n ? n : 1, sizeof(*x));
	double *means = xcalloc(n ? n : 1, sizeof(*means));
	long *boot = xcalloc(n ? n : 1, sizeof(*boot));
	struct stats_groups g;

	for (i = 0; i < n; i++) {
		json_t *sj = json_array_get(st->samples, i);
		json_t *m = json_object_get(sj, "metric");
		const char *status =
		    json_string_value(json_object_get(sj, "status"));

		if (!status || strcmp(status, "ok") || !json_is_number(m))
			continue;
		x[k] = json_number_value(m);
		boot[k++] =
		    (long)json_integer_value(json_object_get(sj, "boot"));
	}
	if (by_boot) {
		stats_groups(x, boot, k, &g, means);
		stats_summarize(means, g.ngroups, s);
	} else {
		stats_summarize(x, k, s);
	}
	free(x);
	free(means);
	free(boot);
}

long run_sampling_plan(struct run *r)
{
	struct sampling_rule rule = {r->cfg.target, r->cfg.repeat,
				     r->cfg.max_repeat};
	struct sampling_cell *sc = xcalloc(r->ncells, sizeof(*sc));
	struct stats_summary *sum = xcalloc(r->ncells, sizeof(*sum));
	int b = r->matrix.baseline, i;
	long total;

	for (i = 0; i < r->ncells; i++) {
		const struct cell_state *st = &r->states[i];
		long per_boot = run_per_boot(r, i);

		cell_units(st, per_boot > 0, &sum[i]);
		sc[i].active =
		    st->status == CELL_PENDING && st->stop == STOP_NONE;
		sc[i].nsamples = st->nsamples;
		sc[i].nunits = sum[i].n;
		sc[i].per_unit = per_boot > 0 ? per_boot : 1;
		sc[i].reason = st->status == CELL_FAILED    ? STOP_FAILED
			       : st->status == CELL_SKIPPED ? STOP_SKIPPED
							    : st->stop;
	}
	for (i = 0; i < r->ncells; i++)
		if (i != b)
			stats_delta(&sum[i], &sum[b],
				    !strcmp(r->cfg.wl.better, "higher"),
				    &sc[i].d);
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
			     "±%.2f%%",
			     r->cells[i].id, stop_reason_name(st->stop),
			     st->nsamples, st->halfwidth * 100);
		else if (st->stop != STOP_NONE)
			note("%s: the baseline is done sampling (%s): %ld "
			     "samples",
			     r->cells[i].id, stop_reason_name(st->stop),
			     st->nsamples);
	}
	r->samples_total += total;
	free(sc);
	free(sum);
	return total;
}
