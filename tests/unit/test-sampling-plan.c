/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for orchestrator/config/sampling-plan.c: the stop rule, case by case,
 * and its coverage by simulation.  The simulation plays the engine's rounds
 * (sampling_plan_round() decides, the test draws the samples) for a
 * baseline and one cell with a known true slowdown, 10,000 runs per
 * scenario, and counts how often the final 95% interval (stats_delta(), the
 * one the reports show) covers the truth.  Seeded: the figures are the same
 * on every run; docs/sampling.md quotes them.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sampling-plan.h"
#include "stats.h"

/* ---- the stop rule, case by case ---- */

static struct stats_delta delta(double lo, double hi)
{
	struct stats_delta d;

	memset(&d, 0, sizeof(d));
	d.valid = true;
	d.bounded = true;
	d.lo = lo;
	d.hi = hi;
	d.delta = (lo + hi) / 2;
	return d;
}

static void test_reason_names(void **state)
{
	enum stop_reason r;

	(void)state;
	assert_string_equal(stop_reason_name(STOP_TARGET), "target");
	assert_string_equal(stop_reason_name(STOP_MAX_REPEAT), "max_repeat");
	assert_int_equal(stop_reason_parse("repeat", &r), 0);
	assert_int_equal(r, STOP_REPEAT);
	assert_int_equal(stop_reason_parse("none", &r), -EINVAL);
	assert_int_equal(stop_reason_parse("targets", &r), -EINVAL);
}

static void test_halfwidth(void **state)
{
	struct stats_delta d = delta(0.08, 0.12);

	(void)state;
	assert_true(fabs(sampling_halfwidth(&d) - 0.02) < 1e-15);
	d.bounded = false;
	assert_true(isinf(sampling_halfwidth(&d)));
	d = delta(0.08, 0.12);
	d.valid = false;
	assert_true(isinf(sampling_halfwidth(&d)));
}

/*
 * A table of (baseline, cell) states after a round and what the plan
 * says: each row's own reason and sample count.
 */
static void test_plan_table(void **state)
{
	static const struct {
		const char *what;
		double target;
		long repeat, max_repeat;
		long base_n, cell_n; /* samples == ok units here */
		double lo, hi;	     /* the cell's interval; lo > hi: none */
		enum stop_reason want_cell, want_base;
		long want_cell_more, want_base_more;
	} rows[] = {
	    {"no target: fixed repeat", 0, 3, 3, 3, 3, 0.0, 0.5, STOP_REPEAT,
	     STOP_REPEAT, 0, 0},
	    {"met, both at the minimum", 0.02, 3, 50, 5, 5, 0.09, 0.11,
	     STOP_TARGET, STOP_TARGET, 0, 0},
	    {"met but under the minimum: up to 5", 0.02, 3, 50, 3, 3, 0.09,
	     0.11, STOP_NONE, STOP_NONE, 2, 2},
	    {"twice the target: 4x units, capped at doubling", 0.02, 3, 50, 6,
	     6, 0.06, 0.14, STOP_NONE, STOP_NONE, 6, 6},
	    {"1.2x the target: 1.44 n", 0.02, 3, 50, 10, 10, 0.076, 0.124,
	     STOP_NONE, STOP_NONE, 5, 5},
	    {"at the cap", 0.02, 3, 10, 10, 10, 0.0, 0.5, STOP_MAX_REPEAT,
	     STOP_MAX_REPEAT, 0, 0},
	    {"near the cap: clamped", 0.02, 3, 12, 10, 10, 0.0, 0.5, STOP_NONE,
	     STOP_NONE, 2, 2},
	    {"unbounded: double", 0.02, 3, 50, 4, 4, 1, 0, STOP_NONE, STOP_NONE,
	     4, 4},
	    {"baseline at the cap, cell not", 0.02, 3, 10, 10, 6, 0.0, 0.5,
	     STOP_NONE, STOP_MAX_REPEAT, 4, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sampling_rule rule = {rows[i].target, rows[i].repeat,
					     rows[i].max_repeat};
		struct sampling_cell c[2];

		memset(c, 0, sizeof(c));
		c[0].active = c[1].active = true;
		c[0].per_unit = c[1].per_unit = 1;
		c[0].nsamples = rows[i].base_n;
		c[0].nunits = (size_t)rows[i].base_n;
		c[1].nsamples = rows[i].cell_n;
		c[1].nunits = (size_t)rows[i].cell_n;
		c[1].d = delta(rows[i].lo, rows[i].hi);
		if (rows[i].lo > rows[i].hi)
			c[1].d.bounded = false;
		sampling_plan_round(&rule, c, 2, 0);
		if (c[1].reason != rows[i].want_cell ||
		    c[0].reason != rows[i].want_base ||
		    c[1].more != rows[i].want_cell_more ||
		    c[0].more != rows[i].want_base_more)
			fail_msg("%s: cell %s +%ld, baseline %s +%ld; want "
				 "%s +%ld, %s +%ld",
				 rows[i].what, stop_reason_name(c[1].reason),
				 c[1].more, stop_reason_name(c[0].reason),
				 c[0].more, stop_reason_name(rows[i].want_cell),
				 rows[i].want_cell_more,
				 stop_reason_name(rows[i].want_base),
				 rows[i].want_base_more);
	}
}

static void test_plan_inactive(void **state)
{
	struct sampling_rule rule = {0.02, 3, 50};
	struct sampling_cell c[3];

	(void)state;
	memset(c, 0, sizeof(c));
	/* A failed baseline: the others cannot be compared. */
	c[0].reason = STOP_FAILED;
	c[1].active = c[2].active = true;
	c[1].per_unit = c[2].per_unit = 1;
	c[1].nsamples = c[2].nsamples = 3;
	c[1].nunits = 3;
	assert_int_equal(sampling_plan_round(&rule, c, 3, 0), 0);
	assert_int_equal(c[1].reason, STOP_NO_BASELINE);
	/* A cell with no ok unit is failed, not sampled on. */
	assert_int_equal(c[2].reason, STOP_FAILED);
	assert_int_equal(c[2].more, 0);

	/* Boots: units of 2 samples each. */
	memset(c, 0, sizeof(c));
	c[0].active = c[1].active = true;
	c[0].per_unit = c[1].per_unit = 2;
	c[0].nsamples = c[1].nsamples = 6;
	c[0].nunits = c[1].nunits = 3;
	c[1].d = delta(0.0, 0.04);
	sampling_plan_round(&rule, c, 2, 0);
	assert_int_equal(c[1].reason, STOP_NONE);
	assert_int_equal(c[1].more, 4); /* 2 boots up to the minimum */
	assert_int_equal(c[0].more, 4);
}

/* ---- coverage by simulation ---- */

struct rng {
	uint64_t s;
};

/* splitmix64 */
static uint64_t rng_next(struct rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(struct rng *g)
{
	return ((rng_next(g) >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller, one value per call (the other is dropped: simpler). */
static double rng_normal(struct rng *g)
{
	return sqrt(-2 * log(rng_unit(g))) * cos(2 * M_PI * rng_unit(g));
}

enum dist { NORMAL, LOGNORMAL };

struct scenario {
	const char *name;
	enum dist dist;
	double spread; /* normal: CV; lognormal: sigma of the log */
	double slowdown;
	double target;
	long repeat, max_repeat;
};

#define SIM_MAX 200

/* A sample of a cell whose true mean is MEAN. */
static double draw(struct rng *g, const struct scenario *sc, double mean)
{
	if (sc->dist == NORMAL)
		return mean * (1 + sc->spread * rng_normal(g));
	/* E[exp(s Z)] = exp(s^2 / 2): scaled so that the mean is MEAN. */
	return mean *
	       exp(sc->spread * rng_normal(g) - sc->spread * sc->spread / 2);
}

struct sim_result {
	double coverage, fixed_coverage, mean_n;
	long by_target, by_cap;
};

static void simulate(const struct scenario *sc, long runs, uint64_t seed,
		     struct sim_result *out)
{
	struct sampling_rule rule = {sc->target, sc->repeat, sc->max_repeat};
	double x[2][SIM_MAX], truth = sc->slowdown, nsum = 0;
	struct rng g = {seed};
	long covered = 0, fixed_covered = 0, run;
	const double mean[2] = {100, 100 * (1 + sc->slowdown)};

	memset(out, 0, sizeof(*out));
	for (run = 0; run < runs; run++) {
		struct sampling_cell c[2];
		struct stats_summary s[2];
		struct stats_delta d;
		long n[2] = {0, 0}, k;
		int j;

		memset(c, 0, sizeof(c));
		for (j = 0; j < 2; j++) {
			c[j].active = true;
			c[j].per_unit = 1;
			c[j].more = sc->repeat;
		}
		for (;;) {
			for (j = 0; j < 2; j++) {
				for (k = 0; k < c[j].more && n[j] < SIM_MAX;
				     k++)
					x[j][n[j]++] = draw(&g, sc, mean[j]);
				stats_summarize(x[j], (size_t)n[j], &s[j]);
				c[j].nsamples = n[j];
				c[j].nunits = (size_t)n[j];
			}
			stats_delta(&s[1], &s[0], false, &d);
			if (n[0] == sc->repeat && n[1] == sc->repeat)
				fixed_covered +=
				    d.bounded && d.lo <= truth && truth <= d.hi;
			c[1].d = d;
			if (!sampling_plan_round(&rule, c, 2, 0))
				break;
			for (j = 0; j < 2; j++)
				c[j].active = c[j].reason == STOP_NONE;
		}
		covered += d.bounded && d.lo <= truth && truth <= d.hi;
		nsum += n[1];
		out->by_target += c[1].reason == STOP_TARGET;
		out->by_cap += c[1].reason == STOP_MAX_REPEAT;
	}
	out->coverage = (double)covered / runs;
	out->fixed_coverage = (double)fixed_covered / runs;
	out->mean_n = nsum / runs;
}

static const struct scenario scenarios[] = {
    /* Needs ~20 samples: a few rounds. */
    {"normal, CV 3%, target 2%", NORMAL, 0.03, 0.10, 0.02, 3, 50},
    /* Often met at the minimum of 5: where stopping bias is largest. */
    {"normal, CV 1.5%, target 2%", NORMAL, 0.015, 0.10, 0.02, 3, 50},
    /* The cap binds in some runs. */
    {"normal, CV 4%, target 2%, cap 30", NORMAL, 0.04, 0.05, 0.02, 3, 30},
    /* Skewed: lognormal sigma 0.3 (skewness 0.95). */
    {"lognormal s=0.3, target 15%", LOGNORMAL, 0.3, 0.25, 0.15, 3, 60},
    /* More skewed: sigma 0.5 (skewness 1.75). */
    {"lognormal s=0.5, target 25%", LOGNORMAL, 0.5, 0.25, 0.25, 3, 80},
};

static void test_coverage(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		struct sim_result res;

		simulate(&scenarios[i], 10000, 0x5eed0000 + i, &res);
		print_message("coverage %-36s %.4f (mean n %.1f; target %ld, "
			      "cap %ld of 10000; fixed repeat=%ld: %.4f)\n",
			      scenarios[i].name, res.coverage, res.mean_n,
			      res.by_target, res.by_cap, scenarios[i].repeat,
			      res.fixed_coverage);
		if (res.coverage < 0.93)
			fail_msg("%s: the 95%% interval covers the true "
				 "slowdown in %.4f of runs (< 0.93)",
				 scenarios[i].name, res.coverage);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reason_names),
	    cmocka_unit_test(test_halfwidth),
	    cmocka_unit_test(test_plan_table),
	    cmocka_unit_test(test_plan_inactive),
	    cmocka_unit_test(test_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
