/* SPDX-License-Identifier: MIT */
#include "sampling-plan.h"

#include <errno.h>
#include <math.h>
#include <string.h>

double sampling_halfwidth(const struct stats_delta *d)
{
	if (!d->valid || !d->bounded || isnan(d->lo) || isnan(d->hi))
		return INFINITY;
	return (d->hi - d->lo) / 2;
}

static long min_l(long a, long b)
{
	return a < b ? a : b;
}

static long max_l(long a, long b)
{
	return a > b ? a : b;
}

/* The samples cell C should add so that its half-width meets TARGET. */
static long more_samples(const struct sampling_rule *rule,
			 const struct sampling_cell *c)
{
	long n = (long)c->nunits, lo, units;

	lo = max_l(1, SAMPLING_MIN_UNITS - n);
	if (isinf(c->halfwidth)) {
		units = n;
	} else {
		double want = ceil(n * (c->halfwidth / rule->target) *
				   (c->halfwidth / rule->target));

		units = want > 2.0 * n ? n : (long)want - n;
	}
	units = max_l(lo, min_l(units, max_l(n, lo)));
	return min_l(units * c->per_unit, rule->max_repeat - c->nsamples);
}

long sampling_plan_round(const struct sampling_rule *rule,
			 struct sampling_cell *cells, size_t n, size_t base)
{
	struct sampling_cell *b = &cells[base];
	bool base_ok = b->nunits > 0 && (b->active || b->reason != STOP_FAILED);
	long total = 0, base_more = 0;
	bool unsettled = false;
	size_t i;

	for (i = 0; i < n; i++) {
		struct sampling_cell *c = &cells[i];

		if (!c->active || i == base)
			continue;
		c->halfwidth = sampling_halfwidth(&c->d);
		c->more = 0;
		c->reason = STOP_NONE;
		if (c->nunits == 0)
			c->reason = STOP_FAILED;
		else if (!base_ok)
			c->reason = STOP_NO_BASELINE;
		else if (!(rule->target > 0))
			c->reason = STOP_REPEAT;
		else if (c->halfwidth <= rule->target &&
			 c->nunits >= SAMPLING_MIN_UNITS &&
			 b->nunits >= SAMPLING_MIN_UNITS)
			c->reason = STOP_TARGET;
		else if (c->nsamples >= rule->max_repeat)
			c->reason = STOP_MAX_REPEAT;
		else
			c->more = more_samples(rule, c);
		if (c->reason == STOP_NONE) {
			unsettled = true;
			total += c->more;
			base_more = max_l(base_more, c->more / c->per_unit);
		}
	}
	if (!b->active)
		return total;
	b->halfwidth = 0;
	b->more = 0;
	b->reason = STOP_NONE;
	if (b->nunits == 0)
		b->reason = STOP_FAILED;
	else if (!(rule->target > 0))
		b->reason = STOP_REPEAT;
	else if (b->nsamples >= rule->max_repeat)
		b->reason = STOP_MAX_REPEAT;
	else if (!unsettled && b->nunits >= SAMPLING_MIN_UNITS)
		b->reason = STOP_TARGET;
	else
		/* The same units as the neediest cell, or what the minimum
		 * asks for when no other cell is left (a run of one cell). */
		b->more = min_l(max_l(max_l(base_more, 1),
				      SAMPLING_MIN_UNITS - (long)b->nunits) *
				    b->per_unit,
				rule->max_repeat - b->nsamples);
	total += b->more;
	return total;
}
