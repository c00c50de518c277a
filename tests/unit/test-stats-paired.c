/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for reports/stats-paired.c: the Kalibera-Jones components and
 * plan, the paired interval, the bridge and the bootstrap, case by case
 * (expected values derived in comments; t quantiles and p values from
 * mpmath at 30 digits).  The simulation of issue 20 is in
 * test-stats-paired-sim.c.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"
#include "stats-paired.h"
#include "stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define assert_close(got, want, tol)                                           \
	do {                                                                   \
		double g_ = (got), w_ = (want);                                \
		if (!(fabs(g_ - w_) <= (tol)*fmax(1, fabs(w_))))               \
			fail_msg("%s = %.12g, want %.12g", #got, g_, w_);      \
	} while (0)

/* ---- variance components ---- */

static void test_kj(void **state)
{
	/* Boot means 2, 6, 10; each sample 1 from its mean: S1^2 = 6 / (6 -
	 * 3) = 2; S2^2 = (16 + 0 + 16) / 2 = 16; T2^2 = 16 - 2 / 2 = 15. */
	const double x[] = {1, 3, 5, 7, 9, 11};
	const long b[] = {0, 0, 1, 1, 2, 2};
	/* Unbalanced: means 3 and 10, S1^2 = (4 + 0 + 4) / (4 - 2) = 4,
	 * S2^2 = 24.5, mean(1 / n_i) = (1/3 + 1) / 2 = 2/3,
	 * T2^2 = 24.5 - 4 * 2/3 = 21.8333 (the mean boot size, r1 = 2, gave
	 * 22.5). */
	const double u[] = {1, 3, 5, 10};
	const long ub[] = {7, 7, 7, 9};
	/* Equal means 2 and 2, S1^2 = 10 / 2 = 5: T2^2 = 0 - 5 / 2 < 0. */
	const double c[] = {0, 4, 1, 3};
	const long cb[] = {0, 0, 1, 1};
	const double one[] = {1, 2, 3};
	const long each[] = {0, 1, 2};
	struct stats_kj k;

	(void)state;
	assert_int_equal(stats_kj(x, b, 6, &k), 0);
	assert_int_equal(k.nboots, 3);
	assert_int_equal(k.nsamples, 6);
	assert_close(k.r1, 2, 1e-15);
	assert_close(k.s1sq, 2, 1e-14);
	assert_close(k.t1sq, 2, 1e-14);
	assert_close(k.s2sq, 16, 1e-14);
	assert_close(k.t2sq, 15, 1e-14);
	assert_false(k.t2sq_clamped);

	assert_int_equal(stats_kj(u, ub, 4, &k), 0);
	assert_close(k.s1sq, 4, 1e-14);
	assert_close(k.s2sq, 24.5, 1e-14);
	assert_close(k.t2sq, 24.5 - 4.0 * 2 / 3, 1e-14);

	assert_int_equal(stats_kj(c, cb, 4, &k), 0);
	assert_close(k.s1sq, 5, 1e-14);
	assert_close(k.s2sq, 0, 0);
	assert_close(k.t2sq, 0, 0);
	assert_true(k.t2sq_clamped);

	/* One boot: no between; boots of one sample: no within. */
	assert_int_equal(stats_kj(one, NULL, 3, &k), 0);
	assert_int_equal(k.nboots, 1);
	assert_close(k.t1sq, 1, 1e-15);
	assert_true(isnan(k.s2sq) && isnan(k.t2sq));
	assert_int_equal(stats_kj(one, each, 3, &k), 0);
	assert_int_equal(k.nboots, 3);
	assert_close(k.s2sq, 1, 1e-15);
	assert_true(isnan(k.s1sq) && isnan(k.t1sq) && isnan(k.t2sq));
}

/*
 * Issue 35: the exact unequal-boot correction.  Boots of 1, 6, 6, 6
 * samples: S1^2 = 43/120 (df 15), S2^2 = 2.0758101852 (df 3),
 * mean(1 / n_i) = 3/8 against k / N = 4/19, so T2^2 = S2^2 - 3/8 S1^2 =
 * 1.9414351852 (the mean boot size gave 2.0003715887).  And by
 * simulation (seeded, 20,000 data sets of those boot sizes, T1^2 = 1,
 * T2^2 = 4): the mean estimate is 4 within 0.06, where the mean boot
 * size's is 4 + (3/8 - 4/19) = 4.164.
 */
static void test_kj_unequal(void **state)
{
	const double x[] = {10, 11,   12,  11.5, 12.5, 11,   12,   9,  9.5, 10,
			    9,	10.5, 9.5, 13,	 12,   12.5, 13.5, 12, 13};
	const long b[] = {0, 1, 1, 1, 1, 1, 1, 2, 2, 2,
			  2, 2, 2, 3, 3, 3, 3, 3, 3};
	const size_t size[] = {1, 6, 6, 6};
	struct stats_kj k;
	struct rng g;
	double sum = 0, xs[19];
	long bs[19];
	int run;

	(void)state;
	assert_int_equal(stats_kj(x, b, 19, &k), 0);
	assert_int_equal(k.nboots, 4);
	assert_close(k.r1, 19.0 / 4, 1e-15);
	assert_close(k.inv_r1, 3.0 / 8, 1e-15);
	assert_close(k.s1sq, 43.0 / 120, 1e-13);
	assert_close(k.s2sq, 2.07581018518519, 1e-12);
	assert_close(k.t2sq, 1.94143518518519, 1e-12);
	assert_false(k.t2sq_clamped);

	rng_seed(&g, 0x35004);
	for (run = 0; run < 20000; run++) {
		size_t i, j, n = 0;

		for (i = 0; i < 4; i++) {
			double zb = 2 * rng_normal(&g);

			for (j = 0; j < size[i]; j++) {
				bs[n] = (long)i;
				xs[n++] = 100 + zb + rng_normal(&g);
			}
		}
		assert_int_equal(stats_kj(xs, bs, n, &k), 0);
		sum += k.t2sq;
	}
	print_message("K-J T2^2 over 20000 data sets of boots 1, 6, 6, 6 "
		      "(T1^2 = 1, T2^2 = 4): mean %.4f\n",
		      sum / 20000);
	if (fabs(sum / 20000 - 4) > 0.06)
		fail_msg("mean T2^2 %.4f, want 4 within 0.06", sum / 20000);
}

static void test_kj_plan(void **state)
{
	static const struct {
		const char *what;
		double t1sq, t2sq, c1, c2;
		long max, want;
	} rows[] = {
	    /* sqrt(5 / 144) = 0.19: between-boot variance dominates */
	    {"issue 20's case", 1, 144, 1, 5, 10, 1},
	    {"sqrt(100 * 4) = 20", 4, 1, 1, 100, 50, 20},
	    {"20 capped", 4, 1, 1, 100, 10, 10},
	    {"sqrt(2) = 1.41 rounds up", 1, 1, 1, 2, 10, 2},
	    {"sqrt(9) = 3 exactly", 1, 1, 1, 9, 10, 3},
	    {"no within variance: 1", 0, 1, 1, 5, 10, 1},
	    {"no between variance: max", 1, 0, 1, 5, 7, 7},
	    {"free boots: 1", 1, 1, 1, 0, 10, 1},
	    {"max 0", 1, 1, 1, 5, 0, -EINVAL},
	    {"c1 0", 1, 1, 0, 5, 10, -EINVAL},
	    {"c2 < 0", 1, 1, 1, -1, 10, -EINVAL},
	    {"t1sq NaN", NAN, 1, 1, 5, 10, -EINVAL},
	    {"t2sq < 0", 1, -1, 1, 5, 10, -EINVAL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(rows); i++) {
		long got = stats_kj_samples_per_boot(rows[i].t1sq, rows[i].t2sq,
						     rows[i].c1, rows[i].c2,
						     rows[i].max);

		if (got != rows[i].want)
			fail_msg("%s: %ld samples per boot, want %ld",
				 rows[i].what, got, rows[i].want);
	}
}

static void test_kj_boots(void **state)
{
	static const struct {
		const char *what;
		double t1sq, t2sq;
		long r1;
		double mean, target;
		long max, want;
	} rows[] = {
	    /* var 145, want 5: t(.975, k-1) sqrt(145 / k) is 5.085 at 24,
	     * 4.971 at 25 (mpmath) */
	    {"T2^2 144, 5% of 100", 1, 144, 1, 100, 0.05, 100, 25},
	    {"the same, capped", 1, 144, 1, 100, 0.05, 20, 20},
	    /* r1 = 4: var 144.25, still 25 (4.9705 * sqrt(144.25/145)) */
	    {"r1 4", 1, 144, 4, 100, 0.05, 100, 25},
	    /* var 1, want 10: t(.975, 1) sqrt(1/2) = 8.98 */
	    {"two boots suffice", 0, 1, 1, 1, 10, 100, 2},
	    /* want 5: 8.98 > 5, t(.975, 2) sqrt(1/3) = 2.48 */
	    {"three", 0, 1, 1, 1, 5, 100, 3},
	    {"negative mean: |mean|", 0, 1, 1, -1, 5, 100, 3},
	    {"no variance", 0, 0, 1, 1, 0.01, 100, 2},
	    {"r1 0", 1, 1, 0, 1, 0.1, 10, -EINVAL},
	    {"max_boots 1", 1, 1, 1, 1, 0.1, 1, -EINVAL},
	    {"target 0", 1, 1, 1, 1, 0, 10, -EINVAL},
	    {"mean 0", 1, 1, 1, 0, 0.1, 10, -EINVAL},
	    {"t2sq NaN", 1, NAN, 1, 1, 0.1, 10, -EINVAL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(rows); i++) {
		long got = stats_kj_boots_for(rows[i].t1sq, rows[i].t2sq,
					      rows[i].r1, rows[i].mean,
					      rows[i].target, rows[i].max);

		if (got != rows[i].want)
			fail_msg("%s: %ld boots, want %ld", rows[i].what, got,
				 rows[i].want);
	}
}

/* ---- the paired estimate and the bridge ---- */

static void test_paired_rounds(void **state)
{
	/* Bare metal: rounds are the units.  mean 0.2, sd 0.1, se 0.1 /
	 * sqrt(3), t(.975, 2) = 4.302653: log interval 0.2 +- 0.248414. */
	const double d[] = {0.1, 0.2, 0.3};
	const long neg[] = {-1, -1, -1}, same[] = {5, 5, 5};
	struct stats_paired p;
	double lo, hi;

	(void)state;
	assert_int_equal(stats_paired(d, NULL, 3, false, &p), 0);
	assert_int_equal(p.unit, STATS_UNIT_ROUND);
	assert_string_equal(stats_unit_name(p.unit), "round");
	assert_int_equal(p.nrounds, 3);
	assert_int_equal(p.nunits, 3);
	assert_close(p.mean_log, 0.2, 1e-15);
	assert_close(p.se, 0.0577350269189626, 1e-13);
	assert_close(p.df, 2, 0);
	assert_close(p.ratio, 1.22140275816017, 1e-13);
	assert_close(p.ratio_lo, 0.952739489370600, 1e-9);
	assert_close(p.ratio_hi, 1.56582645548449, 1e-9);
	assert_true(p.d.valid && p.d.bounded);
	assert_close(p.d.delta, 0.221402758160170, 1e-13);
	assert_close(p.d.lo, -0.0472605106293998, 1e-9);
	assert_close(p.d.hi, 0.565826455484490, 1e-9);
	/* df 2: p = 1 - t / sqrt(2 + t^2), t^2 = 12: 0.0741799 */
	assert_close(p.d.p, 0.0741799002274485, 1e-9);
	assert_close(p.d.df, 2, 0);
	assert_false(p.d.significant);
	/* S1^2 of d over one boot: its variance, 0.01 */
	assert_int_equal(p.kj.nboots, 1);
	assert_close(p.kj.t1sq, 0.01, 1e-13);

	/* Higher is better: delta = 1/ratio - 1, the interval mirrored. */
	assert_int_equal(stats_paired(d, NULL, 3, true, &p), 0);
	assert_close(p.d.delta, -0.181269246922018, 1e-13);
	assert_close(p.d.lo, -0.361359621625128, 1e-9);
	assert_close(p.d.hi, 0.0496048617241856, 1e-9);

	/* All negative boots: still rounds. */
	assert_int_equal(stats_paired(d, neg, 3, false, &p), 0);
	assert_int_equal(p.unit, STATS_UNIT_ROUND);
	assert_close(p.d.hi, 0.565826455484490, 1e-9);
	/* One boot holds every round: one unit, too few to judge, with its
	 * reason (the rounds stood in before, an interval too narrow by the
	 * between-boot variance nothing measured). */
	assert_int_equal(stats_paired(d, same, 3, false, &p), 0);
	assert_int_equal(p.unit, STATS_UNIT_BOOT);
	assert_int_equal(p.nunits, 1);
	assert_int_equal(p.nrounds, 3);
	assert_true(p.d.valid);
	assert_false(p.d.bounded);
	assert_false(p.d.significant);
	assert_true(isnan(p.d.lo) && isnan(p.d.hi) && isnan(p.d.p));
	assert_close(p.d.delta, 0.221402758160170, 1e-13);
	assert_string_equal(p.d.why, STATS_WHY_ONE_UNIT);
	/* The bootstrap has one unit to resample: none. */
	assert_int_equal(stats_hboot_paired(d, same, 3, 1, 100, false, &lo,
					    &hi),
			 -EDOM);
}

static void test_paired_boots(void **state)
{
	/* Boot means 0.2, 0.6, 0.3: mean 0.366667, sd 0.208167, se
	 * 0.120185, df 2; d's within variance 0.06 / 3 = 0.02, between
	 * 0.043333, T2^2 = 0.043333 - 0.02 / 2 = 0.033333. */
	const double d[] = {0.1, 0.3, 0.5, 0.7, 0.2, 0.4};
	const long b[] = {3, 3, 7, 7, 9, 9};
	struct stats_paired p;

	(void)state;
	assert_int_equal(stats_paired(d, b, 6, false, &p), 0);
	assert_int_equal(p.unit, STATS_UNIT_BOOT);
	assert_string_equal(stats_unit_name(p.unit), "boot");
	assert_int_equal(p.nrounds, 6);
	assert_int_equal(p.nunits, 3);
	assert_close(p.mean_log, 0.366666666666667, 1e-13);
	assert_close(p.se, 0.120185042515466, 1e-12);
	assert_close(p.d.delta, 0.442916866655337, 1e-12);
	assert_close(p.d.lo, -0.139677392079461, 1e-9);
	assert_close(p.d.hi, 1.42003297938528, 1e-9);
	assert_close(p.d.p, 0.0927352912734452, 1e-9);
	assert_int_equal(p.kj.nboots, 3);
	assert_close(p.kj.s1sq, 0.02, 1e-12);
	assert_close(p.kj.s2sq, 0.0433333333333333, 1e-12);
	assert_close(p.kj.t2sq, 0.0333333333333333, 1e-12);
}

static void test_bridge(void **state)
{
	/* 0.2 (se 0.05, df 4) + 0.1 (se 0.03, df 9): se sqrt(0.0034) =
	 * 0.0583095, Welch-Satterthwaite df 0.0034^2 / (0.0025^2 / 4 +
	 * 0.0009^2 / 9) = 6.995461, t = 2.364935. */
	struct stats_paired a, b, out;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.d.valid = b.d.valid = true;
	a.nrounds = 5;
	b.nrounds = 10;
	a.mean_log = 0.2, a.se = 0.05, a.df = 4;
	b.mean_log = 0.1, b.se = 0.03, b.df = 9;
	assert_int_equal(stats_paired_bridge(&a, &b, false, &out), 0);
	assert_int_equal(out.unit, STATS_UNIT_BRIDGE);
	assert_int_equal(out.nrounds, 15);
	assert_close(out.mean_log, 0.3, 1e-15);
	assert_close(out.se, 0.0583095189484530, 1e-13);
	assert_close(out.df, 6.99546142208775, 1e-12);
	assert_close(out.d.delta, 0.349858807576003, 1e-13);
	assert_close(out.d.lo, 0.175979904321424, 1e-9);
	assert_close(out.d.hi, 0.549447225836675, 1e-9);
	assert_close(out.d.p, 0.00133407009938907, 1e-7);
	assert_true(out.d.significant);
	assert_true(isnan(out.kj.t1sq));

	assert_int_equal(stats_paired_bridge(&a, &b, true, &out), 0);
	assert_close(out.d.delta, -0.259181779318282, 1e-13);
	assert_close(out.d.lo, -0.354608544695663, 1e-9);
	assert_close(out.d.hi, -0.149645332947224, 1e-9);

	/* One side with one unit: the point, no interval. */
	b.df = 0;
	b.se = NAN;
	assert_int_equal(stats_paired_bridge(&a, &b, false, &out), 0);
	assert_true(out.d.valid && !out.d.bounded);
	assert_close(out.d.delta, 0.349858807576003, 1e-13);
	b.d.valid = false;
	assert_int_equal(stats_paired_bridge(&a, &b, false, &out), -EINVAL);
	assert_false(out.d.valid);
}

/* A table of bad inputs: each row's own return and validity. */
static void test_paired_bad(void **state)
{
	static const double one[] = {0.3}, nan3[] = {0.1, NAN, 0.2};
	static const double inf2[] = {INFINITY, 0.1}, ok3[] = {0.1, 0.2, 0.3};
	static const long mixed[] = {-1, 0, 1}, b1[] = {4};
	static const struct {
		const char *what;
		const double *d;
		const long *boot;
		size_t n;
		int ret;
		bool valid, bounded;
	} rows[] = {
	    {"n = 0", ok3, NULL, 0, 0, false, false},
	    {"one round", one, NULL, 1, 0, true, false},
	    {"one boot of one round", one, b1, 1, 0, true, false},
	    {"NaN", nan3, NULL, 3, -EDOM, false, false},
	    {"infinity", inf2, NULL, 2, -EDOM, false, false},
	    {"boots mixed with none", ok3, mixed, 3, -EINVAL, false, false},
	};
	struct stats_paired p;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(rows); i++) {
		int ret =
		    stats_paired(rows[i].d, rows[i].boot, rows[i].n, false, &p);

		if (ret != rows[i].ret || p.d.valid != rows[i].valid ||
		    p.d.bounded != rows[i].bounded)
			fail_msg("%s: ret %d valid %d bounded %d; want %d %d "
				 "%d",
				 rows[i].what, ret, p.d.valid, p.d.bounded,
				 rows[i].ret, rows[i].valid, rows[i].bounded);
	}
	/* One unit: the point estimate, nothing else. */
	stats_paired(one, NULL, 1, false, &p);
	assert_close(p.d.delta, expm1(0.3), 1e-15);
	assert_true(isnan(p.d.lo) && isnan(p.d.p) && isnan(p.se));
}

static void test_log_ratios(void **state)
{
	const double cell[] = {60, 0, 30, -2, 45};
	const double ref[] = {40, 40, 0, 40, 45};
	double d[5];

	(void)state;
	assert_int_equal(stats_log_ratios(cell, ref, 1, d), 0);
	assert_close(d[0], log(1.5), 1e-15);
	/* A zero or negative metric: log undefined, NaN, -EDOM; the others
	 * are still computed, and stats_paired() refuses the NaN. */
	assert_int_equal(stats_log_ratios(cell, ref, 5, d), -EDOM);
	assert_true(isnan(d[1]) && isnan(d[2]) && isnan(d[3]));
	assert_close(d[4], 0, 0);
	{
		struct stats_paired p;

		assert_int_equal(stats_paired(d, NULL, 5, false, &p), -EDOM);
		assert_false(p.d.valid);
	}
}

/* ---- the hierarchical bootstrap ---- */

/* 5 boots x 4 rounds: within pattern W, boot offsets B scaled by S. */
static void boot_data(double s, double *d, long *boot)
{
	static const double w[] = {-0.02, 0.01, 0.03, -0.015};
	static const double b[] = {-1, 0.4, 1.3, -0.6, 0.1};
	size_t i;

	for (i = 0; i < 20; i++) {
		boot[i] = (long)(i / 4);
		d[i] = 0.3 + s * b[i / 4] + w[i % 4];
	}
}

static void test_hboot(void **state)
{
	double d[20], lo, hi, lo2, hi2, prev = 0;
	long boot[20];
	struct stats_paired p;
	const double spread[] = {0, 0.05, 0.1, 0.3};
	size_t i;

	(void)state;
	boot_data(0.1, d, boot);
	stats_paired(d, boot, 20, false, &p);
	assert_int_equal(stats_hboot_paired(d, boot, 20, 42,
					    STATS_HBOOT_RESAMPLES, false, &lo,
					    &hi),
			 0);
	/* Deterministic for a seed, another seed moves it a little. */
	assert_int_equal(stats_hboot_paired(d, boot, 20, 42,
					    STATS_HBOOT_RESAMPLES, false, &lo2,
					    &hi2),
			 0);
	assert_true(lo == lo2 && hi == hi2);
	stats_hboot_paired(d, boot, 20, 43, STATS_HBOOT_RESAMPLES, false, &lo2,
			   &hi2);
	assert_true(lo != lo2 && fabs(lo - lo2) < 0.02);
	print_message("hboot: delta %.4f, t [%.4f, %.4f], bootstrap "
		      "[%.4f, %.4f] (5 boots)\n",
		      p.d.delta, p.d.lo, p.d.hi, lo, hi);
	assert_true(lo < p.d.delta && p.d.delta < hi);
	/* With 5 units the percentile interval is narrower than t's. */
	assert_true(hi - lo < p.d.hi - p.d.lo);
	/* Higher is better: the same interval, mirrored. */
	stats_hboot_paired(d, boot, 20, 42, STATS_HBOOT_RESAMPLES, true, &lo2,
			   &hi2);
	assert_close(lo2, 1 / (1 + hi) - 1, 1e-12);
	assert_close(hi2, 1 / (1 + lo) - 1, 1e-12);

	/* Wider with more between-boot variance. */
	for (i = 0; i < ARRAY_LEN(spread); i++) {
		boot_data(spread[i], d, boot);
		stats_hboot_paired(d, boot, 20, 7, STATS_HBOOT_RESAMPLES, false,
				   &lo, &hi);
		if (!(hi - lo > prev))
			fail_msg("between-boot scale %g: width %.4f, not "
				 "above %.4f",
				 spread[i], hi - lo, prev);
		prev = hi - lo;
	}
}

static void test_hboot_ratio(void **state)
{
	/* x: 3 boots of 60-ish; y: bare metal, 40-ish. */
	const double x[] = {58, 59, 63, 64, 60, 61};
	const long xb[] = {0, 0, 1, 1, 2, 2};
	const double y[] = {39.5, 40.5, 40, 39.8, 40.2};
	const double bad[] = {40, 0, 41};
	double lo, hi, lo2, hi2, point = (60.83333333 / 40.0) - 1;

	(void)state;
	assert_int_equal(stats_hboot_ratio(x, xb, 6, y, NULL, 5, 1,
					   STATS_HBOOT_RESAMPLES, false, &lo,
					   &hi),
			 0);
	assert_true(lo < point && point < hi);
	assert_true(lo > 0.45 && hi < 0.6);
	stats_hboot_ratio(x, xb, 6, y, NULL, 5, 1, STATS_HBOOT_RESAMPLES, false,
			  &lo2, &hi2);
	assert_true(lo == lo2 && hi == hi2);
	stats_hboot_ratio(x, xb, 6, y, NULL, 5, 1, STATS_HBOOT_RESAMPLES, true,
			  &lo2, &hi2);
	assert_true(hi2 < 0 && lo2 < hi2);
	/* A against itself holds 0. */
	stats_hboot_ratio(x, xb, 6, x, xb, 6, 2, STATS_HBOOT_RESAMPLES, false,
			  &lo, &hi);
	assert_true(lo < 0 && 0 < hi);
	/* Bad input: a zero metric, one unit, no resamples, no data. */
	assert_int_equal(
	    stats_hboot_ratio(x, xb, 6, bad, NULL, 3, 1, 100, false, &lo, &hi),
	    -EDOM);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(stats_hboot_ratio(x, (const long[]){0, 0, 0, 0, 0, 0},
					   6, y, NULL, 5, 1, 100, false, &lo,
					   &hi),
			 0); /* one boot label: the samples are the units */
	assert_int_equal(
	    stats_hboot_ratio(x, xb, 1, y, NULL, 5, 1, 100, false, &lo, &hi),
	    -EDOM);
	assert_int_equal(
	    stats_hboot_ratio(x, xb, 6, y, NULL, 5, 1, 1, false, &lo, &hi),
	    -EINVAL);
	assert_int_equal(
	    stats_hboot_ratio(x, xb, 6, y, NULL, 0, 1, 100, false, &lo, &hi),
	    -EINVAL);
	assert_int_equal(
	    stats_hboot_paired(x, NULL, 0, 1, 100, false, &lo, &hi), -EINVAL);
	assert_int_equal(
	    stats_hboot_paired(x, NULL, 1, 1, 100, false, &lo, &hi), -EDOM);
	assert_int_equal(stats_hboot_paired((const double[]){0.1, NAN}, NULL, 2,
					    1, 100, false, &lo, &hi),
			 -EDOM);
}

/* ---- A/A ---- */

static struct stats_delta iv(double delta, double lo, double hi)
{
	struct stats_delta d;

	memset(&d, 0, sizeof(d));
	d.valid = d.bounded = true;
	d.delta = delta;
	d.lo = lo;
	d.hi = hi;
	return d;
}

static void test_rerun(void **state)
{
	static const struct {
		const char *what;
		double a, alo, ahi, b, blo, bhi;
		int want;
		bool ab, ba;
	} rows[] = {
	    {"both hold", 0.5, 0.4, 0.6, 0.55, 0.45, 0.65, 2, true, true},
	    {"A narrow", 0.5, 0.49, 0.51, 0.55, 0.3, 0.8, 1, false, true},
	    {"B narrow", 0.5, 0.3, 0.8, 0.55, 0.54, 0.56, 1, true, false},
	    /* issue 20: +330.9% [+322.2%, +340.1%] against +220.5% */
	    {"apart", 3.309, 3.222, 3.401, 2.205, 2.1, 2.3, 0, false, false},
	    {"on the edge holds", 0.5, 0.4, 0.6, 0.6, 0.5, 0.7, 2, true, true},
	};
	struct stats_delta a, b;
	bool ab, ba;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(rows); i++) {
		int got;

		a = iv(rows[i].a, rows[i].alo, rows[i].ahi);
		b = iv(rows[i].b, rows[i].blo, rows[i].bhi);
		got = stats_rerun_holds(&a, &b, &ab, &ba);
		if (got != rows[i].want || ab != rows[i].ab || ba != rows[i].ba)
			fail_msg("%s: %d (%d, %d), want %d (%d, %d)",
				 rows[i].what, got, ab, ba, rows[i].want,
				 rows[i].ab, rows[i].ba);
	}
	a = iv(0.01, -0.02, 0.04);
	assert_true(stats_interval_holds(&a, 0));
	assert_false(stats_interval_holds(&a, 0.05));
	a.bounded = false;
	assert_false(stats_interval_holds(&a, 0.01));
	a = iv(0.01, -0.02, 0.04);
	b = iv(0.01, -0.02, 0.04);
	b.valid = false;
	assert_int_equal(stats_rerun_holds(&a, &b, &ab, &ba), -EINVAL);
	assert_false(ab || ba);
}

/* Two rounds that agree: too few to judge, not significant (issue 35). */
static void test_paired_too_few(void **state)
{
	const double d[] = {1e-5, 1e-5}, e[] = {1e-5, 1e-5 + 1e-9};
	struct stats_paired p;

	(void)state;
	assert_int_equal(stats_paired(d, NULL, 2, false, &p), 0);
	assert_true(p.d.valid);
	assert_false(p.d.bounded);
	assert_false(p.d.significant);
	assert_true(isnan(p.d.p));
	assert_string_equal(p.d.why, STATS_WHY_TOO_FEW);
	assert_int_equal(stats_paired(e, NULL, 2, false, &p), 0);
	assert_false(p.d.significant);
	assert_string_equal(p.d.why, STATS_WHY_TOO_FEW);
	/* One unit: the point estimate, and why there is no interval. */
	assert_int_equal(stats_paired(d, NULL, 1, false, &p), 0);
	assert_true(p.d.valid);
	assert_string_equal(p.d.why, STATS_WHY_TOO_FEW);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kj),
	    cmocka_unit_test(test_kj_unequal),
	    cmocka_unit_test(test_kj_plan),
	    cmocka_unit_test(test_kj_boots),
	    cmocka_unit_test(test_paired_rounds),
	    cmocka_unit_test(test_paired_boots),
	    cmocka_unit_test(test_bridge),
	    cmocka_unit_test(test_paired_bad),
	    cmocka_unit_test(test_paired_too_few),
	    cmocka_unit_test(test_log_ratios),
	    cmocka_unit_test(test_hboot),
	    cmocka_unit_test(test_hboot_ratio),
	    cmocka_unit_test(test_rerun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
