/* SPDX-License-Identifier: MIT */
#include "slowdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *slowdown_interval_name(enum report_interval iv)
{
	switch (iv) {
	case REPORT_IV_PAIRED:
		return "paired rounds";
	case REPORT_IV_BRIDGE:
		return "paired, bridged";
	default:
		return "Fieller";
	}
}

void slowdown_cell_init(struct slowdown_cell *v, size_t n)
{
	size_t cap = n ? n : 1;

	v->n = n;
	v->metric = xcalloc(cap, sizeof(*v->metric));
	v->round = xcalloc(cap, sizeof(*v->round));
	v->boot = xcalloc(cap, sizeof(*v->boot));
}

void slowdown_cell_release(struct slowdown_cell *v)
{
	free(v->metric);
	free(v->round);
	free(v->boot);
	v->metric = NULL;
	v->round = v->boot = NULL;
	v->n = 0;
}

enum at { AT_NONE, AT_OK, AT_ZERO };

/* Cell C's ok metric and boot of round RD (the mean if it has several
 * there); AT_ZERO when an ok metric there is 0 (no log of it). */
static enum at at_round(const struct slowdown_cell *c, long rd, double *x,
			long *boot)
{
	double sum = 0;
	size_t i, n = 0;
	bool zero = false;

	for (i = 0; i < c->n; i++) {
		if (c->round[i] != rd || isnan(c->metric[i]))
			continue;
		zero |= !(c->metric[i] > 0);
		sum += c->metric[i];
		*boot = c->boot[i];
		n++;
	}
	if (!n)
		return AT_NONE;
	*x = sum / (double)n;
	return zero ? AT_ZERO : AT_OK;
}

/* The rounds A and B share, bar those left out: log(A/B) into D, A's and
 * B's boots into ABOOT and BBOOT. */
static size_t shared_rounds(const struct slowdown_cell *a,
			    const struct slowdown_cell *b, double *d,
			    long *aboot, long *bboot,
			    struct slowdown_pairing *out)
{
	size_t i, j, n = 0;
	enum at ka, kb;
	double x, y;
	long rd;

	for (i = 0; i < a->n; i++) {
		bool seen = false;

		rd = a->round[i];
		if (rd < 0)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = a->round[j] == rd;
		if (seen)
			continue;
		ka = at_round(a, rd, &x, &aboot[n]);
		kb = ka == AT_NONE ? AT_NONE : at_round(b, rd, &y, &bboot[n]);
		if (kb == AT_NONE)
			continue;
		out->shared++;
		if (ka == AT_ZERO || kb == AT_ZERO) {
			out->zero++;
			continue;
		}
		d[n++] = log(x / y);
	}
	return n;
}

bool slowdown_pair(const struct slowdown_cell *a, const struct slowdown_cell *b,
		   bool higher_better, bool bootstrap, uint64_t seed,
		   struct slowdown_pairing *out)
{
	size_t n = a->n ? a->n : 1;
	double *d = xcalloc(n, sizeof(*d));
	long *unit = xcalloc(n, sizeof(*unit));
	long *aboot = xcalloc(n, sizeof(*aboot));
	long *bboot = xcalloc(n, sizeof(*bboot));
	bool ok = false;

	memset(out, 0, sizeof(*out));
	out->hboot_lo = out->hboot_hi = NAN;
	n = shared_rounds(a, b, d, aboot, bboot, out);
	stats_paired_units(aboot, bboot, n, unit);
	if (n && stats_paired(d, unit, n, higher_better, &out->p) == 0 &&
	    out->p.d.valid) {
		ok = true;
		if (bootstrap &&
		    stats_hboot_paired(d, unit, n, seed, STATS_HBOOT_RESAMPLES,
				       higher_better, &out->hboot_lo,
				       &out->hboot_hi) < 0)
			out->hboot_lo = out->hboot_hi = NAN;
	}
	free(d);
	free(unit);
	free(aboot);
	free(bboot);
	return ok;
}

void slowdown_of(const struct slowdown_cell *const *cells, size_t n,
		 size_t base, size_t ci, bool higher_better, bool bootstrap,
		 uint64_t seed, struct slowdown *out)
{
	const struct slowdown_cell *c = cells[ci], *b = cells[base];
	struct slowdown_pairing direct, best_a, best_b;
	struct stats_paired via;
	size_t m, best_n = 0;

	memset(out, 0, sizeof(*out));
	out->iv = REPORT_IV_FIELLER;
	out->bridge_via = -1;
	out->hboot_lo = out->hboot_hi = NAN;
	if (ci != base &&
	    slowdown_pair(c, b, higher_better, bootstrap, seed, &direct)) {
		out->iv = REPORT_IV_PAIRED;
		out->paired = direct.p;
		out->d = direct.p.d;
		out->rounds_shared = direct.shared;
		out->rounds_zero = direct.zero;
		out->hboot_lo = direct.hboot_lo;
		out->hboot_hi = direct.hboot_hi;
		return;
	}
	/* A bridge: the cell that shares the most rounds with both. */
	for (m = 0; ci != base && m < n; m++) {
		struct slowdown_pairing pa, pb;
		size_t k;

		if (m == ci || m == base ||
		    !slowdown_pair(c, cells[m], higher_better, false, 0, &pa) ||
		    !slowdown_pair(cells[m], b, higher_better, false, 0, &pb))
			continue;
		k = pa.p.nrounds < pb.p.nrounds ? pa.p.nrounds : pb.p.nrounds;
		if (k > best_n) {
			best_n = k;
			best_a = pa;
			best_b = pb;
			out->bridge_via = (long)m;
		}
	}
	if (best_n && stats_paired_bridge(&best_a.p, &best_b.p, higher_better,
					  &via) == 0 &&
	    via.d.valid) {
		out->iv = REPORT_IV_BRIDGE;
		out->paired = via;
		out->d = via.d;
		out->rounds_shared = best_a.shared + best_b.shared;
		out->rounds_zero = best_a.zero + best_b.zero;
		return;
	}
	out->bridge_via = -1;
	stats_delta(&c->units, &b->units, higher_better, &out->d);
}
