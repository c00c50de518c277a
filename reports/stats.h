/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics behind vmtax reports.  Pure functions: no I/O, no
 * global state; every result is a plain struct filled by the caller's
 * pointer.  A value that cannot be computed (too few samples, zero
 * denominator) is NaN, and renderers print it as "n/a".
 *
 * Methods and accuracy:
 * - stddev is the sample standard deviation (n - 1); CV = stddev / mean.
 *   Means and spreads are summed over values divided by a power of two
 *   near the largest (exact), so they are finite and right at 1e300.
 * - The 95% interval of a mean is mean +- t(0.975, n-1) * stddev / sqrt(n),
 *   its lower end cut at 0 when every value is >= 0 (a time's mean is
 *   never below 0; the cut loses no coverage).
 * - t quantiles invert the Student t CDF, which is computed through the
 *   regularized incomplete beta function I_x(a, b) (Lentz's continued
 *   fraction, as in Numerical Recipes 6.4, relative tolerance 1e-15).  The
 *   inversion solves on x = df / (df + t^2) by Newton steps kept inside a
 *   shrinking bracket (bisecting when a step would leave it), to a step
 *   below 1e-16 x or 400 steps.
 *   Checked against published tables (t(0.975, 2) = 4.302653,
 *   t(0.975, 4) = 2.776445) and mpmath to better than 1e-9 relative for
 *   0.5 < p < 0.9999 and df >= 1 (non-integer df included).
 * - Welch's t-test: unequal variances, Welch-Satterthwaite df, two-sided p.
 * - The interval of a ratio of two independent means uses Fieller's theorem
 *   with the Welch df: with g = t^2 * var(b) / b^2, the interval is
 *   (R +- (t / |b|) * sqrt(var(a) * (1 - g) + R^2 * var(b))) / (1 - g),
 *   R = a / b, var() the squared standard errors.  When g >= 1 the
 *   denominator is not significantly different from zero and the interval
 *   is unbounded (bounded = false).  Fieller rather than a bootstrap
 *   because it is exact under normality, deterministic, and honest with
 *   the 3-5 samples a VM matrix affords, where a bootstrap resamples too few
 *   distinct values to say anything.
 */
#ifndef VMTAX_STATS_H
#define VMTAX_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_ALPHA 0.05 /* significance level; intervals are 1 - alpha */

struct stats_summary {
	size_t n;
	double mean, median, stddev, cv, min, max;
	double ci_lo, ci_hi; /* 95% interval of the mean; NaN when n < 2 */
};

/*
 * Summarize X[0..N).  X is not modified (the median sorts a private copy).
 * N == 0 gives n = 0 and NaN everywhere.  Returns 0.
 */
int stats_summarize(const double *x, size_t n, struct stats_summary *s);

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1. */
double stats_betai(double a, double b, double x);
/* Student t CDF P(T <= t) with DF > 0 degrees of freedom. */
double stats_t_cdf(double t, double df);
/* The P quantile (0 < P < 1) of Student t with DF > 0; NaN otherwise. */
double stats_t_quantile(double p, double df);

struct stats_welch {
	double t, df, p; /* NaN when either side has n < 2 */
};
/* Welch's unequal-variance t-test of A against B (two-sided). */
int stats_welch(const struct stats_summary *a, const struct stats_summary *b,
		struct stats_welch *w);

struct stats_ratio {
	double ratio, lo, hi; /* lo/hi NaN when !bounded */
	bool bounded;
};
/*
 * Fieller interval of A / B for independent estimates with squared
 * standard errors VA and VB, and the t quantile TQ.  Returns 0, or -EDOM
 * when B is 0 (ratio undefined).
 */
int stats_fieller(double a, double va, double b, double vb, double tq,
		  struct stats_ratio *r);

/*
 * A cell against a reference (the baseline, or run A in a comparison).
 * delta = mean/ref - 1 when lower is better, ref/mean - 1 when higher is
 * better, so a positive delta is always a slowdown.  The interval is
 * Fieller's at 95% with Welch's df; significant = p < STATS_ALPHA.
 * Never outside (-100%, inf), and why says what it is instead:
 * - a mean of 0 on either side: not valid (STATS_WHY_ZERO_REF, _CELL);
 * - too few samples to judge (stats_too_few(), the smaller side's n):
 *   valid, not bounded, p NaN, not significant (STATS_WHY_TOO_FEW);
 * - Fieller unbounded (g >= 1): STATS_WHY_DENOM;
 * - Fieller's lower bound at a ratio <= 0, both means positive: not
 *   bounded (STATS_WHY_REACHES_ZERO) rather than a negative time ratio.
 * Each side is scaled by a power of two first (exact): values near 1e300
 * give the same interval as values near 1.
 */
struct stats_delta {
	bool valid; /* both sides have n >= 1 and a non-zero mean */
	double delta, lo, hi;
	bool bounded;
	double p, df;
	bool significant;
	/* Why not valid, or why not bounded (one of STATS_WHY_*, static);
	 * NULL when valid and bounded. */
	const char *why;
};

/* The reasons of struct stats_delta (reports print them; short enough
 * for a line: "unbounded: " and one of them fit FMT_BUF). */
#define STATS_WHY_NO_SAMPLE "no ok sample on one side"
#define STATS_WHY_ZERO_REF "the baseline's mean is 0"
#define STATS_WHY_ZERO_CELL "the cell's mean is 0"
#define STATS_WHY_TOO_FEW "too few samples to judge (under 3, no spread)"
/* A paired interval whose rounds one boot holds (stats-paired.h): the
 * same rule, one unit. */
#define STATS_WHY_ONE_UNIT "too few units to judge (one boot holds every round)"
#define STATS_WHY_DENOM "the denominator's mean is not clear of 0 at 95%"
#define STATS_WHY_REACHES_ZERO                                                 \
	"it would reach a ratio <= 0 (too few samples for their spread)"

/*
 * Too few samples to judge: fewer than STATS_JUDGE_MIN_N, with a relative
 * standard error (of the ratio, or of the log ratio) at most
 * STATS_NEAR_ZERO_SPREAD, or unknown (NaN).  Two samples that agree to the
 * timer's resolution show no spread, and a test that divides by that
 * spread calls any difference significant.
 */
#define STATS_JUDGE_MIN_N 3
#define STATS_NEAR_ZERO_SPREAD 1e-6
bool stats_too_few(size_t n, double rel_se);
int stats_delta(const struct stats_summary *cell,
		const struct stats_summary *ref, bool higher_better,
		struct stats_delta *d);

/*
 * Geometric mean of X[0..N) (all > 0); NaN when N is 0 or any x <= 0.
 * Reports use it on (1 + slowdown).
 */
double stats_geomean(const double *x, size_t n);

#endif
