/* SPDX-License-Identifier: MIT */
/*
 * A cell's slowdown against the baseline for the report model (model.h):
 * from the rounds it shares with the baseline when the run interleaved
 * them (stats-paired.h), through a bridge cell when it shares none (the
 * engine's groups of cells that share host settings), else Fieller over
 * its units as before (order = cells, older files).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

/* Cell C's ok metric and boot of round RD (the mean if it has several
 * there), or false. */
static bool at_round(const struct report_cell *c, long rd, double *x,
		     long *boot)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < c->nsamples; i++) {
		const struct report_sample *s = &c->samples[i];

		if (s->round != rd || strcmp(s->status, "ok") ||
		    isnan(s->metric) || !(s->metric > 0))
			continue;
		sum += s->metric;
		*boot = s->boot;
		n++;
	}
	if (!n)
		return false;
	*x = sum / (double)n;
	return true;
}

/* The rounds A and B share: log(A/B) into D, A's and B's boots into
 * ABOOT and BBOOT. */
static size_t shared_rounds(const struct report_cell *a,
			    const struct report_cell *b, double *d, long *aboot,
			    long *bboot)
{
	size_t i, n = 0;
	long rd;
	double x, y;

	for (i = 0; i < a->nsamples; i++) {
		size_t j;
		bool seen = false;

		rd = a->samples[i].round;
		if (rd < 0)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = a->samples[j].round == rd;
		if (seen || !at_round(a, rd, &x, &aboot[n]) ||
		    !at_round(b, rd, &y, &bboot[n]))
			continue;
		d[n++] = log(x / y);
	}
	return n;
}

bool report_pair(const struct report *r, const struct report_cell *a,
		 const struct report_cell *b, struct stats_paired *p,
		 double *lo, double *hi)
{
	size_t n = a->nsamples ? a->nsamples : 1;
	double *d = xcalloc(n, sizeof(*d));
	long *boot = xcalloc(n, sizeof(*boot));
	long *aboot = xcalloc(n, sizeof(*aboot));
	long *bboot = xcalloc(n, sizeof(*bboot));
	bool ok = false;

	n = shared_rounds(a, b, d, aboot, bboot);
	/* The units: the coarser side's boots (a guest baseline's, for a
	 * bare-metal cell), else the rounds. */
	stats_paired_units(aboot, bboot, n, boot);
	if (n && stats_paired(d, boot, n, r->higher_better, p) == 0 &&
	    p->d.valid) {
		ok = true;
		if (lo && stats_hboot_paired(d, boot, n, r->seed,
					     STATS_HBOOT_RESAMPLES,
					     r->higher_better, lo, hi) < 0)
			*lo = *hi = NAN;
	}
	free(d);
	free(boot);
	free(aboot);
	free(bboot);
	return ok;
}

void report_cell_slowdown(const struct report *r, struct report_cell *c)
{
	const struct report_cell *base = &r->cells[r->baseline];
	struct stats_paired via, best_a, best_b;
	size_t m, best_n = 0;

	c->iv = REPORT_IV_FIELLER;
	c->bridge_via = -1;
	c->hboot_lo = c->hboot_hi = NAN;
	memset(&c->paired, 0, sizeof(c->paired));
	if (c != base && report_pair(r, c, base, &c->paired, &c->hboot_lo,
				&c->hboot_hi)) {
		c->iv = REPORT_IV_PAIRED;
		c->vs_base = c->paired.d;
		return;
	}
	/* A bridge: the cell that shares the most rounds with both. */
	for (m = 0; c != base && m < r->ncells; m++) {
		const struct report_cell *mc = &r->cells[m];
		struct stats_paired a, b;
		size_t n;

		if (mc == c || mc == base ||
		    !report_pair(r, c, mc, &a, NULL, NULL) ||
		    !report_pair(r, mc, base, &b, NULL, NULL))
			continue;
		n = a.nrounds < b.nrounds ? a.nrounds : b.nrounds;
		if (n > best_n) {
			best_n = n;
			best_a = a;
			best_b = b;
			c->bridge_via = (long)m;
		}
	}
	if (best_n && stats_paired_bridge(&best_a, &best_b, r->higher_better,
					  &via) == 0 && via.d.valid) {
		c->iv = REPORT_IV_BRIDGE;
		c->paired = via;
		c->vs_base = via.d;
		return;
	}
	c->bridge_via = -1;
	stats_delta(&c->units, &base->units, r->higher_better, &c->vs_base);
}

const char *report_interval_name(const struct report_cell *c)
{
	switch (c->iv) {
	case REPORT_IV_PAIRED:
		return "paired rounds";
	case REPORT_IV_BRIDGE:
		return "paired, bridged";
	default:
		return "Fieller";
	}
}
