/* SPDX-License-Identifier: MIT */
/*
 * A cell's sampling statistics for the report model (model.h): the units
 * of its slowdown interval (samples, or boot means for a cell run with
 * [run] boots > 1), outliers and trend over its ok samples in index order,
 * and how the metric's variance splits within and between boots; the
 * cell as slowdown.h sees it.
 */
#include <math.h>
#include <string.h>

#include "model.h"
#include "sample-unit.h"
#include "util.h"

void report_cell_sampling(struct report_cell *c)
{
	size_t n = c->nsamples ? c->nsamples : 1, i, k = 0, nboot = 0;
	double *x = xcalloc(n, sizeof(*x));
	long *boot = xcalloc(n, sizeof(*boot));
	size_t *idx = xcalloc(n, sizeof(*idx));
	bool *flag = xcalloc(n, sizeof(*flag));

	slowdown_cell_release(&c->view);
	slowdown_cell_init(&c->view, c->nsamples);
	for (i = 0; i < c->nsamples; i++) {
		const struct report_sample *s = &c->samples[i];

		c->view.round[i] = s->round;
		c->view.boot[i] = s->boot;
		c->view.metric[i] = strcmp(s->status, "ok") ? NAN : s->metric;
		if (strcmp(s->status, "ok") || isnan(s->metric))
			continue;
		idx[k] = i;
		boot[k] = s->boot;
		nboot += s->boot >= 0;
		x[k++] = s->metric;
	}
	c->noutliers = stats_outliers(x, k, flag);
	for (i = 0; i < k; i++)
		c->samples[idx[i]].outlier = flag[i];
	stats_trend(x, k, &c->trend);
	memset(&c->boots, 0, sizeof(c->boots));
	c->boots.within_var = c->boots.between_var = NAN;
	if (nboot == k && k)
		stats_groups(x, boot, k, &c->boots, NULL);
	sample_units_summarize(c->unit_boot, x, boot, k, &c->units);
	c->view.units = c->units;
	free(x);
	free(boot);
	free(idx);
	free(flag);
}
