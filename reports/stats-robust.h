/* SPDX-License-Identifier: MIT */
/*
 * stats-robust.h - what a cell's samples say beyond their mean: outliers,
 * a trend over the sample order, and how the variance splits between and
 * within guest boots.  Pure functions (no I/O, no global state), as
 * stats.h; a value that cannot be computed is NaN.
 *
 * Methods:
 * - Outliers: the modified z-score of Iglewicz and Hoaglin,
 *   M = 0.6745 (x - median) / MAD, flags |M| > STATS_OUTLIER_Z (3.5).
 *   When more than half the samples are equal the MAD is 0; the mean
 *   absolute deviation scaled by 1.2533 (= sqrt(pi / 2), the normal
 *   ratio of the two) stands in (as in R's robustbase), and when that is
 *   0 too nothing is an outlier.  Fewer than STATS_OUTLIER_MIN_N (5)
 *   samples: none (with 3, the MAD is the smaller of two deviations, and
 *   any asymmetry looks like an outlier).
 * - Trend: the Mann-Kendall test on the order of the samples.
 *   S = sum over i < j of sign(x[j] - x[i]); var(S) = (n(n-1)(2n+5) -
 *   sum over ties t(t-1)(2t+5)) / 18; z = (S - sign(S)) / sqrt(var(S))
 *   (continuity correction); two-sided p from the normal.  Fewer than 3
 *   samples: NaN.  With n = 4 the smallest p is 0.089, so a trend can be
 *   flagged only from 5 samples on.
 * - Variance components: samples grouped by boot; within = the pooled
 *   variance of samples about their boot's mean (df = n - k), between =
 *   the sample variance of the boot means (k - 1).  NaN where the df is 0.
 */
#ifndef VMTAX_STATS_ROBUST_H
#define VMTAX_STATS_ROBUST_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_OUTLIER_Z 3.5
#define STATS_OUTLIER_MIN_N 5

/*
 * Flag the outliers of X[0..N) in FLAG[0..N) (true: an outlier); returns
 * how many.  X is not modified.
 */
size_t stats_outliers(const double *x, size_t n, bool *flag);

struct stats_trend {
	double s;	  /* Mann-Kendall S */
	double z, p;	  /* NaN when n < 3 */
	int direction;	  /* +1 rising, -1 falling, 0 none (S = 0) */
	bool significant; /* p < STATS_ALPHA */
};
/* The Mann-Kendall trend of X[0..N) in that order.  Returns 0. */
int stats_trend(const double *x, size_t n, struct stats_trend *t);

struct stats_groups {
	size_t ngroups;
	double within_var;  /* pooled within-group variance */
	double between_var; /* variance of the group means */
};
/*
 * Group X[0..N) by GROUP[0..N) (any long; equal values are one group, in
 * order of first appearance) and write each group's mean to MEANS (at
 * least N entries; may be NULL).  Returns 0.
 */
int stats_groups(const double *x, const long *group, size_t n,
		 struct stats_groups *g, double *means);

#endif
