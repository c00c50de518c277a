/* SPDX-License-Identifier: MIT */
/*
 * The simulation of issue 35 for 'vmtax compare' (reports/compare.c): how
 * often it calls a cell's change significant, on simulated pairs of runs
 * in each order (interleaved rounds, and cells one after another), when
 * nothing changed (A/A: the false-positive rate, <= 5% per cell) and when
 * the guest cell got 10% slower (the power: the interleaved order, whose
 * rows compare paired estimates, at least as strong as the cells order).
 * Each run is a results document built here and loaded by the report
 * model (report_load_doc()), so the rows are compare_new()'s own.  Seeded:
 * the figures are the same on every run; docs/sampling.md quotes them.
 *
 * The model (times in seconds, noise multiplicative):
 * - three cells: the bare-metal baseline (median 40 s), a second
 *   bare-metal cell (44 s) and a guest cell (60 s); each sample has its
 *   own lognormal noise, sigma SAMPLE_SIGMA;
 * - the guest's boots: each boot a lognormal offset, sigma BOOT_SIGMA,
 *   NBOOTS boots of PER_BOOT samples (the guest cell's units are its
 *   boots: sample_unit "boot");
 * - the host: every measurement taken at time slot t is multiplied by
 *   1 + DRIFT sin(2 pi t / len + phase), one period over the run (len
 *   slots, one sample a slot), the phase random per run (the model of
 *   tests/unit/test-stats-paired-sim.c, milder: +-DRIFT);
 * - interleaved: NBOOTS x PER_BOOT rounds, each a random permutation of
 *   the cells, one slot each; the guest is replaced every PER_BOOT rounds;
 * - cells: the baseline's samples first, then the two others in a random
 *   order.  In this order a cell's samples sit in one block of the run's
 *   drift: two runs' blocks differ by as much as the drift there, which
 *   no interval of one run can see (66.5% of A/A pairs call the
 *   baseline changed): the A/A of this order is on a host that keeps
 *   still, its power on the drifting one (docs/sampling.md).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "compare.h"
#include "model.h"
#include "rng.h"

#define NCELLS 3
#define NBOOTS 4
#define PER_BOOT 3
#define NROUNDS (NBOOTS * PER_BOOT)
#define SAMPLE_SIGMA 0.01
#define BOOT_SIGMA 0.02
#define DRIFT 0.10
#define PAIRS 200
#define CHANGE 0.10 /* the guest cell, run B: +10% */

static const char *const ids[NCELLS] = {
    "bare-metal/host-thp=always",
    "bare-metal/host-thp=never",
    "guest/host-thp=always/guest-thp=always",
};
static const double median[NCELLS] = {40, 44, 60};
enum { BASE, BARE2, GUEST };

enum order { INTERLEAVED, CELLS };

struct run_sample {
	double metric;
	long round, boot;
};

static double host_factor(double drift, double phase, double slot)
{
	return 1 + drift * sin(2 * M_PI * slot / (NCELLS * NROUNDS) + phase);
}

static json_t *sample_json(size_t i, const struct run_sample *s, bool guest,
			   bool rounds)
{
	json_t *j = json_pack("{s:I, s:s, s:f, s:f, s:n}", "index",
			      (json_int_t)i, "status", "ok", "metric",
			      s->metric, "elapsed_s", s->metric, "reason");

	if (rounds)
		json_object_set_new(j, "round", json_integer(s->round));
	if (guest)
		json_object_set_new(j, "boot", json_integer(s->boot));
	return j;
}

/* One run in ORDER: the guest cell slower by CHANGE, the host by DRIFT. */
static struct report *sim_run(struct rng *g, enum order order, double drift,
			      double change)
{
	struct run_sample s[NCELLS][NROUNDS];
	double phase = 2 * M_PI * rng_unit(g), zb[NBOOTS];
	size_t slot_of[NCELLS], perm[NCELLS], c, k, r;
	json_t *doc, *cells;
	struct report *rep = NULL;

	for (k = 0; k < NBOOTS; k++)
		zb[k] = rng_normal(g);
	if (order == CELLS) {
		/* the baseline first, then the others in a random order */
		perm[0] = BASE;
		perm[1] = rng_below(g, 2) ? BARE2 : GUEST;
		perm[2] = perm[1] == BARE2 ? GUEST : BARE2;
		for (k = 0; k < NCELLS; k++)
			slot_of[perm[k]] = k * NROUNDS;
	}
	for (r = 0; r < NROUNDS; r++) {
		for (k = 0; k < NCELLS; k++)
			perm[k] = k;
		rng_shuffle(g, perm, NCELLS);
		for (k = 0; k < NCELLS; k++) {
			double slot, x;

			c = perm[k];
			slot = order == INTERLEAVED ? (double)(r * NCELLS + k)
						    : (double)(slot_of[c] + r);
			x = median[c] * exp(SAMPLE_SIGMA * rng_normal(g));
			if (c == GUEST)
				x *= exp(BOOT_SIGMA * zb[r / PER_BOOT]) *
				     (1 + change);
			s[c][r].metric = x * host_factor(drift, phase, slot);
			s[c][r].round = (long)r;
			s[c][r].boot = (long)(r / PER_BOOT);
		}
	}
	cells = json_array();
	for (c = 0; c < NCELLS; c++) {
		json_t *samples = json_array();

		for (r = 0; r < NROUNDS; r++)
			json_array_append_new(
			    samples, sample_json(r, &s[c][r], c == GUEST,
						 order == INTERLEAVED));
		json_array_append_new(
		    cells,
		    json_pack("{s:s, s:s, s:n, s:s, s:{}, s:{s:s, s:s, s:s?, "
			      "s:n}, s:o}",
			      "id", ids[c], "status", "ok", "reason",
			      "sample_unit", c == GUEST ? "boot" : "sample",
			      "observed", "env", "where",
			      c == GUEST ? "guest" : "bare-metal", "host_thp",
			      "always", "guest_thp",
			      c == GUEST ? "always" : NULL, "paging", "samples",
			      samples));
	}
	/* the second bare-metal cell's host THP */
	json_object_set_new(
	    json_object_get(json_array_get(cells, BARE2), "env"), "host_thp",
	    json_string("never"));
	doc = json_pack("{s:s, s:{s:s, s:s, s:{}}, s:{s:s, s:s, s:s, s:s}, "
			"s:s, s:o}",
			"schema", "vmtax-results/1", "run", "name", "sim",
			"status", "complete", "host", "workload", "name",
			"sim", "metric", "elapsed", "unit", "s", "better",
			"lower", "baseline", ids[BASE], "cells", cells);
	if (order == INTERLEAVED)
		json_object_set_new(doc, "schedule",
				    json_pack("{s:s, s:I}", "order",
					      "interleaved", "seed",
					      (json_int_t)rng_below(g, 1000000)));
	assert_int_equal(report_load_doc("sim", doc, false, &rep), 0);
	json_decref(doc);
	return rep;
}

struct tally {
	long sig[NCELLS];    /* rows called significant */
	long paired[NCELLS]; /* rows that compared paired estimates */
};

/* PAIRS pairs of runs in ORDER, run B's guest slower by CHANGE. */
static void simulate(uint64_t seed, enum order order, double drift,
		     double change, struct tally *t)
{
	struct rng g;
	size_t p, i, c;

	memset(t, 0, sizeof(*t));
	rng_seed(&g, seed);
	for (p = 0; p < PAIRS; p++) {
		struct report *runs[2];
		struct compare *cmp = NULL;

		runs[0] = sim_run(&g, order, drift, 0);
		runs[1] = sim_run(&g, order, drift, change);
		assert_int_equal(compare_new(runs, 2, NULL, &cmp), 0);
		assert_int_equal(cmp->nrows, NCELLS);
		for (i = 0; i < cmp->nrows; i++) {
			const struct compare_row *row = &cmp->rows[i];

			for (c = 0; strcmp(ids[c], row->ref->id); c++)
				;
			assert_true(row->d.valid);
			t->sig[c] += row->d.significant;
			t->paired[c] += row->paired;
		}
		compare_free(cmp);
		report_free(runs[0]);
		report_free(runs[1]);
	}
}

static const char *const order_name[] = {"interleaved", "cells"};

/* A/A: no cell is called changed in more than 5% of the pairs. */
static void test_aa(void **state)
{
	enum order o;
	size_t c;

	(void)state;
	for (o = INTERLEAVED; o <= CELLS; o++) {
		struct tally t;
		/* cells order: a host that keeps still (see the top) */
		double drift = o == CELLS ? 0 : DRIFT;

		simulate(0x35aa0000 + o, o, drift, 0, &t);
		for (c = 0; c < NCELLS; c++) {
			printf("A/A %-11s drift %.2f %-38s significant in "
			       "%3ld of %d pairs (%.1f%%), paired %ld\n",
			       order_name[o], drift, ids[c], t.sig[c], PAIRS,
			       100.0 * t.sig[c] / PAIRS, t.paired[c]);
			assert_true(t.sig[c] * 20 <= PAIRS);
			/* interleaved: every cell but the baseline paired */
			assert_int_equal(t.paired[c],
					 o == INTERLEAVED && c != BASE ? PAIRS
								       : 0);
		}
	}
}

/* +10% on the guest cell: interleaved finds it at least as often. */
static void test_power(void **state)
{
	struct tally t[2];
	enum order o;

	(void)state;
	for (o = INTERLEAVED; o <= CELLS; o++) {
		simulate(0x35b00000 + o, o, DRIFT, CHANGE, &t[o]);
		printf("+10%% %-11s drift %.2f guest cell found in %3ld of %d "
		       "pairs (%.1f%%)\n",
		       order_name[o], DRIFT, t[o].sig[GUEST], PAIRS,
		       100.0 * t[o].sig[GUEST] / PAIRS);
	}
	assert_true(t[INTERLEAVED].sig[GUEST] >= t[CELLS].sig[GUEST]);
	/* and it is found: a power a CI verdict can use */
	assert_true(t[INTERLEAVED].sig[GUEST] * 10 >= PAIRS * 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aa),
	    cmocka_unit_test(test_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
