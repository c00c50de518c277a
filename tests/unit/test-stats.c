/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for reports/stats.c.  Every expected number is written with its
 * derivation; the reference values were computed independently with mpmath
 * at 30 digits (betainc, findroot, quad over the t density), and the t
 * quantiles agree with printed tables.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats.h"

#define assert_close(got, want, tol)                                           \
	do {                                                                   \
		double g_ = (got), w_ = (want);                                \
		if (!(fabs(g_ - w_) <= (tol)*fmax(1, fabs(w_))))               \
			fail_msg("%s = %.12g, want %.12g", #got, g_, w_);      \
	} while (0)

static void test_t_quantile(void **state)
{
	(void)state;
	/* Tables: t(0.975, 1) = 12.706205, t(0.975, 2) = 4.302653,
	 * t(0.975, 4) = 2.776445, t(0.975, 30) = 2.042272. */
	assert_close(stats_t_quantile(0.975, 1), 12.7062047361747, 1e-9);
	assert_close(stats_t_quantile(0.975, 2), 4.30265272974946, 1e-9);
	assert_close(stats_t_quantile(0.975, 4), 2.77644510519779, 1e-9);
	assert_close(stats_t_quantile(0.975, 30), 2.04227245630124, 1e-9);
	/* Symmetry and the centre. */
	assert_close(stats_t_quantile(0.025, 4), -2.77644510519779, 1e-9);
	assert_close(stats_t_quantile(0.5, 7), 0, 1e-12);
	/* Non-integer df, as Welch produces: df = 216/53 (see below). */
	assert_close(stats_t_quantile(0.975, 216.0 / 53), 2.75628487435957,
		     1e-9);
	/* Round trip through the CDF. */
	assert_close(stats_t_cdf(stats_t_quantile(0.9, 3.5), 3.5), 0.9, 1e-12);
	assert_true(isnan(stats_t_quantile(1, 3)));
	assert_true(isnan(stats_t_quantile(0.9, 0)));
}

static void test_betai(void **state)
{
	(void)state;
	/* I_0.4(2, 3) = sum_{j=2..4} C(4,j) 0.4^j 0.6^(4-j)
	 *             = 6*0.16*0.36 + 4*0.064*0.6 + 0.0256 = 0.5248 */
	assert_close(stats_betai(2, 3, 0.4), 0.5248, 1e-13);
	assert_close(stats_betai(2, 3, 0), 0, 0);
	assert_close(stats_betai(2, 3, 1), 1, 0);
	/* I_x(1, 1) = x */
	assert_close(stats_betai(1, 1, 0.3), 0.3, 1e-13);
}

static void test_summary(void **state)
{
	const double x[] = {4, 1, 10, 3, 2};
	struct stats_summary s;

	(void)state;
	/* mean = 20/5 = 4; squares about the mean 0+9+36+1+4 = 50;
	 * stddev = sqrt(50/4) = 3.5355339; cv = 0.8838835; median 3;
	 * CI = 4 -+ 2.776445 * 3.5355339 / sqrt(5) = [-0.3899452, 8.3899452],
	 * cut at 0 (every value >= 0: the mean of a time is not below 0) */
	stats_summarize(x, 5, &s);
	assert_int_equal(s.n, 5);
	assert_close(s.mean, 4, 1e-15);
	assert_close(s.median, 3, 0);
	assert_close(s.min, 1, 0);
	assert_close(s.max, 10, 0);
	assert_close(s.stddev, 3.53553390593274, 1e-12);
	assert_close(s.cv, 0.883883476483184, 1e-12);
	assert_close(s.ci_lo, 0, 0);
	assert_close(s.ci_hi, 8.38994516542542, 1e-9);
	/* The input is left alone. */
	assert_close(x[0], 4, 0);
	/* Values below 0 (not a time): the interval is not cut. */
	{
		const double y[] = {4 - 6, 1 - 6, 10 - 6, 3 - 6, 2 - 6};

		stats_summarize(y, 5, &s);
		assert_close(s.ci_lo, -0.389945165425415 - 6, 1e-9);
		assert_close(s.ci_hi, 8.38994516542542 - 6, 1e-9);
	}

	/* Even n: the median is the mean of the middle two. */
	stats_summarize(x, 4, &s);
	assert_close(s.median, 3.5, 0);

	/* n = 1: a mean, no spread. */
	stats_summarize(x, 1, &s);
	assert_close(s.mean, 4, 0);
	assert_true(isnan(s.stddev));
	assert_true(isnan(s.ci_lo));

	stats_summarize(x, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean));
}

static void test_welch(void **state)
{
	const double a[] = {1, 2, 3}, b[] = {2, 4, 6, 8};
	struct stats_summary sa, sb;
	struct stats_welch w;

	(void)state;
	/*
	 * a: mean 2, s^2 = 1, n = 3  -> va = s^2/n = 1/3
	 * b: mean 5, s^2 = 20/3, n 4 -> vb = 5/3
	 * t  = (2 - 5) / sqrt(1/3 + 5/3) = -3 / sqrt(2) = -2.1213203
	 * df = (va + vb)^2 / (va^2/(3-1) + vb^2/(4-1))
	 *    = 4 / (1/18 + 25/27) = 4 / (53/54) = 216/53 = 4.0754717
	 * p  = 2 * integral_{2.1213}^inf t-density(df) = 0.0999128643
	 */
	stats_summarize(a, 3, &sa);
	stats_summarize(b, 4, &sb);
	stats_welch(&sa, &sb, &w);
	assert_close(w.t, -2.12132034355964, 1e-12);
	assert_close(w.df, 216.0 / 53, 1e-12);
	assert_close(w.p, 0.0999128643118009, 1e-9);

	/* No spread on either side: equal means p = 1, else p = 0. */
	{
		const double c[] = {5, 5, 5}, d[] = {6, 6};
		struct stats_summary sc, sd;

		stats_summarize(c, 3, &sc);
		stats_summarize(d, 2, &sd);
		stats_welch(&sc, &sc, &w);
		assert_close(w.p, 1, 0);
		stats_welch(&sc, &sd, &w);
		assert_close(w.p, 0, 0);
	}
	/* n < 2: no test. */
	stats_summarize(a, 1, &sa);
	stats_welch(&sa, &sb, &w);
	assert_true(isnan(w.p));
}

static void test_fieller(void **state)
{
	struct stats_ratio r;

	(void)state;
	/*
	 * a = 12, var(a) = 0.04; b = 10, var(b) = 0.01; t = 2.
	 * R = 1.2, g = t^2 var(b) / b^2 = 4 * 0.01 / 100 = 0.0004
	 * half = (t/|b|) sqrt(var(a)(1-g) + R^2 var(b))
	 *      = 0.2 * sqrt(0.039984 + 0.0144) = 0.2 * 0.2332038 = 0.04664076
	 * lo = (1.2 - half) / 0.9996 = 1.1538208, hi = 1.2471396
	 */
	assert_int_equal(stats_fieller(12, 0.04, 10, 0.01, 2, &r), 0);
	assert_true(r.bounded);
	assert_close(r.ratio, 1.2, 1e-15);
	assert_close(r.lo, 1.15382077359856, 1e-12);
	assert_close(r.hi, 1.24713961055510, 1e-12);

	/* g = 4 * 30 / 100 >= 1: the denominator may be zero: unbounded. */
	stats_fieller(12, 0.04, 10, 30, 2, &r);
	assert_false(r.bounded);
	assert_close(r.ratio, 1.2, 1e-15);
	assert_true(isnan(r.lo));

	assert_int_equal(stats_fieller(1, 0, 0, 0, 2, &r), -EDOM);
}

/*
 * Issue 35: every interval of a time ratio in (-100%, inf), or unbounded
 * with the reason; too few samples to judge; the same figures at 1e300.
 */
static void test_delta_edges(void **state)
{
	struct stats_summary sr, sc, sr1, sc1;
	struct stats_delta d, d1;

	(void)state;
	/* 10.0 s against 10.0001 s, n = 2 each: no spread to judge by. */
	{
		const double c[] = {10.0001, 10.0001}, b[] = {10.0, 10.0};

		stats_summarize(c, 2, &sc);
		stats_summarize(b, 2, &sr);
		stats_delta(&sc, &sr, false, &d);
		assert_true(d.valid);
		assert_close(d.delta, 1e-5, 1e-9);
		assert_false(d.bounded);
		assert_false(d.significant);
		assert_true(isnan(d.p));
		assert_string_equal(d.why, STATS_WHY_TOO_FEW);
	}
	/* Near zero: a spread of a billionth of the mean is none. */
	{
		const double c[] = {10.0001, 10.0001 + 1e-8},
			     b[] = {10.0, 10.0 + 1e-8};

		stats_summarize(c, 2, &sc);
		stats_summarize(b, 2, &sr);
		stats_delta(&sc, &sr, false, &d);
		assert_false(d.significant);
		assert_string_equal(d.why, STATS_WHY_TOO_FEW);
	}
	/* n = 1 on one side: too few too. */
	{
		const double c[] = {12}, b[] = {10, 11, 10.5};

		stats_summarize(c, 1, &sc);
		stats_summarize(b, 3, &sr);
		stats_delta(&sc, &sr, false, &d);
		assert_true(d.valid);
		assert_false(d.bounded);
		assert_string_equal(d.why, STATS_WHY_TOO_FEW);
	}
	/*
	 * n = 2 with a wide spread: Fieller's lower end is a negative
	 * ratio (cell mean 52.5, se 47.5; baseline 10.1, se 0.1; t(0.975,
	 * ~1) = 12.7: (5.2 - 59.3) / 0.98 < 0): unbounded, with why.
	 */
	{
		const double c[] = {5, 100}, b[] = {10, 10.2};

		stats_summarize(c, 2, &sc);
		stats_summarize(b, 2, &sr);
		stats_delta(&sc, &sr, false, &d);
		assert_true(d.valid);
		assert_false(d.bounded);
		assert_true(isnan(d.lo));
		assert_string_equal(d.why, STATS_WHY_REACHES_ZERO);
		/* Higher is better: the same ratio, inverted. */
		stats_delta(&sc, &sr, true, &d);
		assert_true(!d.bounded || d.lo > -1);
	}
	/* A baseline mean of 0 says so. */
	{
		const double c[] = {1, 2, 3}, b[] = {0, 0, 0};

		stats_summarize(c, 3, &sc);
		stats_summarize(b, 3, &sr);
		stats_delta(&sc, &sr, false, &d);
		assert_false(d.valid);
		assert_string_equal(d.why, STATS_WHY_ZERO_REF);
	}
	/* 1e300: the figures of the same data at 1. */
	{
		const double c[] = {1.1e300, 1.25e300, 1.3e300},
			     b[] = {1e300, 1.05e300, 0.95e300};
		const double c1[] = {1.1, 1.25, 1.3}, b1[] = {1, 1.05, 0.95};

		stats_summarize(c, 3, &sc);
		stats_summarize(b, 3, &sr);
		stats_summarize(c1, 3, &sc1);
		stats_summarize(b1, 3, &sr1);
		assert_true(isfinite(sc.stddev));
		assert_close(sc.stddev / 1e300, sc1.stddev, 1e-12);
		assert_close(sc.mean / 1e300, sc1.mean, 1e-12);
		assert_close(sc.ci_hi / 1e300, sc1.ci_hi, 1e-12);
		stats_delta(&sc, &sr, false, &d);
		stats_delta(&sc1, &sr1, false, &d1);
		assert_true(d.bounded);
		assert_close(d.delta, d1.delta, 1e-12);
		assert_close(d.lo, d1.lo, 1e-12);
		assert_close(d.hi, d1.hi, 1e-12);
		assert_close(d.p, d1.p, 1e-12);
		assert_close(d.df, d1.df, 1e-9);
	}
}

static void test_delta(void **state)
{
	const double ref[] = {1, 2, 3}, cell[] = {2, 4, 6, 8};
	struct stats_summary sr, sc;
	struct stats_delta d;

	(void)state;
	stats_summarize(ref, 3, &sr);
	stats_summarize(cell, 4, &sc);
	/*
	 * Lower is better: ratio = 5/2 = 2.5, slowdown 1.5.  Fieller with
	 * var(num) = 5/3, var(den) = 1/3, t = t(0.975, 216/53) = 2.7562849,
	 * g = t^2 (1/3) / 4 = 0.6330922 (< 1: bounded);
	 * interval - 1 = [-0.3523083, 11.9797098].  p = 0.0999: not
	 * significant.
	 */
	stats_delta(&sc, &sr, false, &d);
	assert_true(d.valid);
	assert_true(d.bounded);
	assert_close(d.delta, 1.5, 1e-15);
	assert_close(d.lo, -0.352308293704149, 1e-8);
	assert_close(d.hi, 11.9797097723076, 1e-8);
	assert_close(d.df, 216.0 / 53, 1e-12);
	assert_close(d.p, 0.0999128643118009, 1e-9);
	assert_false(d.significant);

	/*
	 * Higher is better: ratio = ref/cell = 2/5, slowdown -0.6 (faster).
	 * var(num) = 1/3, var(den) = 5/3, g = t^2 (5/3) / 25 = 0.5064738;
	 * interval - 1 = [-0.9229567, 0.5439444].
	 */
	stats_delta(&sc, &sr, true, &d);
	assert_close(d.delta, -0.6, 1e-15);
	assert_close(d.lo, -0.922956674876236, 1e-8);
	assert_close(d.hi, 0.543944426460237, 1e-8);

	/* Zero spread, different means: exact ratio, significant. */
	{
		const double c[] = {11, 11, 11}, b[] = {10, 10, 10};

		stats_summarize(c, 3, &sc);
		stats_summarize(b, 3, &sr);
		stats_delta(&sc, &sr, false, &d);
		assert_true(d.bounded);
		assert_close(d.delta, 0.1, 1e-12);
		assert_close(d.lo, 0.1, 1e-12);
		assert_close(d.hi, 0.1, 1e-12);
		assert_true(d.significant);
	}
}

static void test_geomean(void **state)
{
	const double x[] = {1.1, 1.21, 1.331}, bad[] = {1, 0};

	(void)state;
	/* (1.1 * 1.1^2 * 1.1^3)^(1/3) = 1.1^2 = 1.21 */
	assert_close(stats_geomean(x, 3), 1.21, 1e-13);
	assert_true(isnan(stats_geomean(bad, 2)));
	assert_true(isnan(stats_geomean(x, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_t_quantile),	cmocka_unit_test(test_betai),
	    cmocka_unit_test(test_summary),	cmocka_unit_test(test_welch),
	    cmocka_unit_test(test_fieller),	cmocka_unit_test(test_delta),
	    cmocka_unit_test(test_delta_edges), cmocka_unit_test(test_geomean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
