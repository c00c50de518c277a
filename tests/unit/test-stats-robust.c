/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for reports/stats-robust.c: outliers, the Mann-Kendall trend
 * and the variance by boot.  Each expected value is derived in a comment;
 * the p values were computed with Python's math.erfc.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats-robust.h"
#include "stats.h"

#define assert_close(got, want, tol)                                           \
	do {                                                                   \
		double g_ = (got), w_ = (want);                                \
		if (!(fabs(g_ - w_) <= (tol)*fmax(1, fabs(w_))))               \
			fail_msg("%s = %.12g, want %.12g", #got, g_, w_);      \
	} while (0)

static void test_outliers(void **state)
{
	/* median 10.05; |x - med| sorted .05 .05 .05 .15 .15 39.95: MAD 0.1,
	 * scale 0.1 / 0.6745 = 0.148; 50 is 269 scales out, 10.2 is 1.01. */
	const double x[] = {10, 10.1, 9.9, 10, 10.2, 50};
	/* MAD 0: mean |x - 100| = 80, scale 1.2533 * 80 = 100.3; 500 is 3.99
	 * scales out. */
	const double spike[] = {100, 100, 100, 500, 100};
	const double flat[] = {7, 7, 7, 7, 7, 7};
	const double four[] = {1, 1, 1, 1000}; /* too few to say */
	bool f[6];

	(void)state;
	assert_int_equal(stats_outliers(x, 6, f), 1);
	assert_true(f[5]);
	assert_false(f[4]);
	assert_int_equal(stats_outliers(spike, 5, f), 1);
	assert_true(f[3]);
	assert_int_equal(stats_outliers(flat, 6, f), 0);
	assert_int_equal(stats_outliers(four, 4, f), 0);
	assert_false(f[3]);
}

static void test_trend(void **state)
{
	const double up[] = {1, 2, 3, 4, 5}, down[] = {5, 4, 3, 2, 1};
	const double four[] = {1, 2, 3, 4}, ties[] = {1, 1, 2, 2, 3};
	const double flat[] = {3, 3, 3};
	struct stats_trend t;

	(void)state;
	/* S = 10, var = 5*4*15/18, z = 9/sqrt(var) = 2.20454 */
	stats_trend(up, 5, &t);
	assert_close(t.s, 10, 0);
	assert_close(t.z, 2.2045407685048604, 1e-12);
	assert_close(t.p, 0.027486336111510353, 1e-9);
	assert_int_equal(t.direction, 1);
	assert_true(t.significant);
	stats_trend(down, 5, &t);
	assert_int_equal(t.direction, -1);
	assert_close(t.z, -2.2045407685048604, 1e-12);
	assert_true(t.significant);
	/* n = 4: the strongest trend has p 0.0894, never significant. */
	stats_trend(four, 4, &t);
	assert_close(t.p, 0.08942935902899359, 1e-9);
	assert_false(t.significant);
	/* Ties: S = 8; two pairs tie: var = (300 - 2*18)/18. */
	stats_trend(ties, 5, &t);
	assert_close(t.s, 8, 0);
	assert_close(t.p, 0.06757726305587058, 1e-9);
	/* All equal: S = 0 and no variance: no p. */
	stats_trend(flat, 3, &t);
	assert_int_equal(t.direction, 0);
	assert_true(isnan(t.p));
	assert_false(t.significant);
	/* Too few. */
	stats_trend(up, 2, &t);
	assert_true(isnan(t.p));
}

static void test_groups(void **state)
{
	/* Boots {1, 3} and {5, 7}: means 2 and 6; within: (1+1+1+1)/(4-2)
	 * = 2; between: the variance of (2, 6) = 8. */
	const double x[] = {1, 3, 5, 7};
	const long g[] = {4, 4, 9, 9};
	const long one[] = {0, 0, 0, 0};
	double means[4];
	struct stats_groups gr;

	(void)state;
	stats_groups(x, g, 4, &gr, means);
	assert_int_equal(gr.ngroups, 2);
	assert_close(means[0], 2, 1e-15);
	assert_close(means[1], 6, 1e-15);
	assert_close(gr.within_var, 2, 1e-15);
	assert_close(gr.between_var, 8, 1e-15);
	/* One group: no between. */
	stats_groups(x, one, 4, &gr, NULL);
	assert_int_equal(gr.ngroups, 1);
	assert_true(isnan(gr.between_var));
	assert_close(gr.within_var, 20.0 / 3, 1e-15);
	/* One sample per group: no within. */
	stats_groups(x, (const long[]){1, 2, 3, 4}, 4, &gr, NULL);
	assert_true(isnan(gr.within_var));
	assert_close(gr.between_var, 20.0 / 3, 1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outliers),
	    cmocka_unit_test(test_trend),
	    cmocka_unit_test(test_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
