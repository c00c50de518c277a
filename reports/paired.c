/* SPDX-License-Identifier: MIT */
/*
 * A cell's slowdown against the baseline for the report model (model.h),
 * by the rule of slowdown.h (which the run engine's stop rule shares):
 * from the rounds it shares with the baseline when the run interleaved
 * them, through a bridge cell when it shares none, else Fieller over its
 * units (order = cells, older files).
 */
#include <stdlib.h>

#include "model.h"
#include "util.h"

bool report_pair(const struct report *r, const struct report_cell *a,
		 const struct report_cell *b, struct stats_paired *p,
		 double *lo, double *hi)
{
	struct slowdown_pairing sp;
	bool ok = slowdown_pair(&a->view, &b->view, r->higher_better, lo,
				r->seed, &sp);

	*p = sp.p;
	if (lo) {
		*lo = sp.hboot_lo;
		*hi = sp.hboot_hi;
	}
	return ok;
}

void report_cell_slowdown(const struct report *r, struct report_cell *c)
{
	const struct slowdown_cell **v = xcalloc(r->ncells, sizeof(*v));
	struct slowdown s;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		v[i] = &r->cells[i].view;
	slowdown_of(v, r->ncells, (size_t)r->baseline,
		    (size_t)(c - r->cells), r->higher_better, true, r->seed,
		    &s);
	c->iv = s.iv;
	c->vs_base = s.d;
	c->paired = s.paired;
	c->bridge_via = s.bridge_via;
	c->hboot_lo = s.hboot_lo;
	c->hboot_hi = s.hboot_hi;
	c->rounds_shared = s.rounds_shared;
	c->rounds_zero = s.rounds_zero;
	free(v);
}

const char *report_interval_name(const struct report_cell *c)
{
	return slowdown_interval_name(c->iv);
}
