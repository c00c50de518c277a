/* SPDX-License-Identifier: MIT */
/*
 * stats-paired.h - the slowdown from interleaved rounds, with guest boots
 * as a level: variance components, the cost-aware plan, the paired
 * log-ratio interval, a bridge between groups of rounds, a hierarchical
 * bootstrap, and the A/A (re-run) checks.  Pure functions, as stats.h: no
 * I/O, no global state (the bootstrap carries its own seeded generator);
 * a value that cannot be computed is NaN.  Errors are negative errno:
 * -EINVAL for a malformed call, -EDOM for data the method cannot take (a
 * value that is not finite, a log of a value <= 0), -ENOMEM.
 *
 * The data.  A run takes rounds; each round takes one sample of every cell
 * and of the baseline, in a shuffled order (Abedi & Brecht, "Conducting
 * Repeatable Experiments in Highly Variable Cloud Computing Environments",
 * ICPE 2017: randomized multiple interleaved trials).  A sample of a guest
 * cell carries its boot (which guest boot took it); a bare-metal cell has
 * none (boot < 0, or one value throughout).  A boot is the label of a
 * group of samples that share one guest's life; the caller may label
 * groups however it likes (for a pair of guest cells that reboot together,
 * the pair's boot).
 *
 * Variance components (Kalibera & Jones, "Rigorous Benchmarking in
 * Reasonable Time", ISMM 2013, section 4).  Two levels: boots (level 2)
 * and samples within a boot (level 1), n_i samples in boot i, r1 = N / k
 * their mean.  S1^2 is the pooled within-boot variance (df N - k), S2^2
 * the sample variance of the k boot means (df k - 1).  A boot mean of n_i
 * samples has variance T2^2 + T1^2 / n_i, so E[S2^2] = T2^2 + T1^2
 * mean(1 / n_i), and the unbiased estimators of the components are
 * T1^2 = S1^2 and T2^2 = S2^2 - S1^2 mean(1 / n_i), which is the paper's
 * S2^2 - S1^2 / r1 when the boots are equal.  (With unequal boots, 1 / r1
 * in its place is biased upward by T1^2 (mean(1 / n_i) - k / N): boots of
 * 1, 6, 6, 6 samples, 0.164 T1^2.)  A negative T2^2 (a sampling accident
 * when the between-boot variance is small) is clamped to 0 and flagged.
 *
 * The plan (same paper, section 6).  With c1 the cost of one sample and c2
 * the cost of one boot without its samples (boot, setup, warm-up), the
 * variance of the mean for a fixed budget is least with
 *	r1 = ceil(sqrt(c2 T1^2 / (c1 T2^2)))
 * samples per boot.  Between-boot variance that dominates (T2^2 >> T1^2)
 * asks for one sample per boot unless boots are very dear.  The boots
 * needed for a target: the smallest k >= 2 with
 *	t(0.975, k - 1) sqrt((T2^2 + T1^2 / r1) / k) <= target |mean|.
 *
 * The paired estimate.  For each round, d = log(cell / ref) of the two
 * samples of that round: a drift of the host that multiplies both cancels.
 * The units are the boots' means of d when the rounds record a boot, else
 * the rounds themselves; boots, not rounds, are independent (Kalibera &
 * Jones: the interval's df comes from the top level), and the boots are
 * the coarser side's (stats_paired_units()): a round's log ratio carries
 * both samples' boots, so either side's boot ties the rounds it spans.
 * One boot that holds every round is one unit: nothing measures the
 * between-boot variance then, and its rounds standing in (as before issue
 * 35's review) gave an interval too narrow by as much as that variance
 * matters; it is valid, unbounded and not judged (STATS_WHY_ONE_UNIT, the
 * too-few rule of stats.h).  With u the unit means and
 * k their number: mean_log = mean(u), se = sd(u) / sqrt(k), df = k - 1,
 * and the ratio cell/ref is exp(mean_log) with the interval
 * exp(mean_log +- t(0.975, df) se).  That ratio is a geometric mean of
 * per-round ratios: the slowdown of the typical round, which equals the
 * ratio of the arithmetic means only when both sides' noise has the same
 * shape.  It fills a struct stats_delta as stats_delta() does (positive is
 * slower: ratio - 1 when lower is better, 1/ratio - 1 when higher is), with
 * p from the one-sample t-test of mean_log = 0, so reports print it
 * unchanged.  Its interval is on the log scale, so never outside
 * (-100%, inf); with fewer than 3 units (df + 1 for a bridge) whose spread
 * is at most STATS_NEAR_ZERO_SPREAD, or one unit, it is valid, unbounded
 * and not judged (d.why = STATS_WHY_TOO_FEW), as stats_delta() has it.
 *
 * The bridge.  A cell that shares no rounds with the baseline, but shares
 * rounds with a cell M that also shares rounds with the baseline (the
 * engine runs groups of cells that share host settings; a bare-metal cell
 * sampled in both groups bridges them): log(cell/base) = log(cell/M) +
 * log(M/base), the two estimates independent (different rounds), so the
 * means add, se = sqrt(se1^2 + se2^2), and df is Welch-Satterthwaite's
 * (se1^2 + se2^2)^2 / (se1^4/df1 + se2^4/df2).
 *
 * The hierarchical bootstrap (Kalibera & Jones, "Quantifying Performance
 * Changes with Effect Size Confidence Intervals", Technical Report 4-12,
 * University of Kent, 2012, section 5; Ren et al., "Nonparametric
 * bootstrapping for hierarchical data", J. Applied Statistics 37(9),
 * 2010).  Each resample draws k units with replacement, then within each
 * drawn unit as many observations as it has, with replacement; the
 * statistic is the mean of the drawn units' means (as the point estimate),
 * and the interval is the 2.5th and 97.5th percentiles (linear
 * interpolation) of STATS_HBOOT_RESAMPLES statistics.  Resampling both
 * levels counts the within-boot variance twice, so with many samples per
 * boot the interval errs wide; with few units it errs narrow (a percentile
 * bootstrap of 4 boots cannot see beyond its 4 values: the t interval
 * above is the one to print then).  The generator is splitmix64 seeded by
 * the caller: the same seed gives the same interval.
 *
 * The A/A check (Cumming & Maillardet, "Confidence intervals and
 * replication: where will the next mean fall?", Psychological Methods
 * 11(3), 2006).  A calibrated 95% interval holds a re-run's estimate about
 * 83% of the time, not 95%; the test of calibration is the interval of
 * the ratio of the two runs (stats_paired() on d = log(run A / run B) in
 * shared rounds), which should hold 1 (a delta of 0) 95% of the time.
 */
#ifndef VMTAX_STATS_PAIRED_H
#define VMTAX_STATS_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Resamples of the hierarchical bootstrap (issue 20: 10,000). */
#define STATS_HBOOT_RESAMPLES 10000

/* ---- variance components ---- */

struct stats_kj {
	size_t nboots, nsamples;
	double r1;	   /* mean samples per boot, N / k */
	double inv_r1;	   /* mean of 1 / n_i over the boots (1 / r1 when
			      the boots are equal) */
	double s1sq, s2sq; /* within-boot (pooled), between boot means */
	double t1sq, t2sq; /* the components; NaN when not estimable */
	bool t2sq_clamped; /* S2^2 - S1^2 inv_r1 was negative: t2sq is 0 */
};
/*
 * The Kalibera-Jones components of X[0..N) grouped by BOOT[0..N) (equal
 * values are one boot; BOOT may be NULL: one boot).  One boot: no S2^2
 * (s2sq, t2sq NaN); boots of one sample each: no S1^2 (s1sq, t1sq, t2sq
 * NaN).  N == 0: all NaN.  Returns 0, -EDOM when an x is not finite
 * (then all NaN), -ENOMEM.
 */
int stats_kj(const double *x, const long *boot, size_t n, struct stats_kj *out);

/*
 * Samples per boot: ceil(sqrt(C2 T1SQ / (C1 T2SQ))) within [1, MAX]; MAX
 * when T2SQ is 0 (boots do not vary: sample one boot as much as allowed).
 * -EINVAL when MAX < 1, C1 <= 0, C2 < 0, or a variance is negative or NaN.
 */
long stats_kj_samples_per_boot(double t1sq, double t2sq, double c1, double c2,
			       long max);

/*
 * Boots for a relative 95% half-width of at most TARGET around MEAN, with
 * R1 samples per boot: the smallest k in [2, MAX_BOOTS] that meets it,
 * MAX_BOOTS when none does.  -EINVAL when R1 < 1, MAX_BOOTS < 2,
 * TARGET <= 0, MEAN is 0, or a variance is negative or NaN.
 */
long stats_kj_boots_for(double t1sq, double t2sq, long r1, double mean,
			double target, long max_boots);

/* ---- the paired estimate ---- */

enum stats_unit {
	STATS_UNIT_ROUND,  /* rounds (neither side records a boot) */
	STATS_UNIT_BOOT,   /* boot means of the rounds */
	STATS_UNIT_BRIDGE, /* two paired estimates through a third cell */
};
/* "round", "boot", "bridge" (for results.json and reports). */
const char *stats_unit_name(enum stats_unit u);

struct stats_paired {
	size_t nrounds, nunits;
	enum stats_unit unit;
	double mean_log, se, df;	  /* of log(cell / ref) */
	double ratio, ratio_lo, ratio_hi; /* cell / ref; lo, hi NaN unless
					     d.bounded */
	struct stats_kj kj;		  /* of d (NaN for a bridge) */
	struct stats_delta d;		  /* as stats_delta() fills it */
};

/*
 * D[i] = log(cell / ref) for CELL[0..N) and REF[0..N) measured in the same
 * rounds.  Returns 0, or -EDOM when a value is not finite or <= 0 (D[i]
 * is then NaN).
 */
int stats_log_ratios(const double *cell, const double *ref, size_t n,
		     double *d);

/*
 * The units of N rounds measured on two sides, from each side's boot per
 * round (BOOT_A, BOOT_B; a negative boot, or a NULL array: that side has
 * no level above the round).  Rounds that share a boot on either side are
 * one unit: the coarser side's level decides (a bare-metal cell against a
 * guest baseline with boots has the baseline's boots as its units, not
 * its rounds), and where both sides have boots that do not nest, the
 * groups they chain into.  UNIT[i] is round i's unit (0 first, in order of
 * first appearance), or -1 for every round when neither side records a
 * boot.  Returns the number of units.
 */
size_t stats_paired_units(const long *boot_a, const long *boot_b, size_t n,
			  long *unit);

/*
 * The slowdown from D[0..N) (stats_log_ratios()) with each round's unit
 * in BOOT (stats_paired_units(); NULL or all negative: the rounds are the
 * units; all equal: one unit, d.why STATS_WHY_ONE_UNIT).  One unit: the
 * point estimate, valid, not bounded.  N == 0:
 * not valid, returns 0.  Returns -EDOM for a D that is not finite, and
 * -EINVAL for BOOT mixing negative and non-negative values (out->d not
 * valid either way), -ENOMEM.
 */
int stats_paired(const double *d, const long *boot, size_t n,
		 bool higher_better, struct stats_paired *out);

/*
 * Cell against the baseline through M: CELL_VS_M and M_VS_BASE from
 * disjoint rounds.  Not valid (returns -EINVAL) unless both are valid;
 * bounded only when both have df > 0.
 */
int stats_paired_bridge(const struct stats_paired *cell_vs_m,
			const struct stats_paired *m_vs_base,
			bool higher_better, struct stats_paired *out);

/* ---- the hierarchical bootstrap ---- */

/*
 * The 95% percentile interval of the delta from D[0..N) grouped by BOOT
 * as stats_paired() groups it, NRES resamples seeded by SEED.  -EINVAL
 * for N == 0, NRES < 2 or mixed boots; -EDOM for one unit or a D that is
 * not finite (LO, HI NaN).
 */
int stats_hboot_paired(const double *d, const long *boot, size_t n,
		       uint64_t seed, size_t nres, bool higher_better,
		       double *lo, double *hi);

/*
 * The same for two sides measured apart (order = cells): the ratio of the
 * mean of X's boot means to Y's, each side resampled on its own (XBOOT,
 * YBOOT may be NULL: every sample its own unit), as a delta.  All values
 * must be finite and > 0 (-EDOM); each side needs 2 units (-EDOM).
 */
int stats_hboot_ratio(const double *x, const long *xboot, size_t nx,
		      const double *y, const long *yboot, size_t ny,
		      uint64_t seed, size_t nres, bool higher_better,
		      double *lo, double *hi);

/* ---- A/A: does an interval hold a re-run? ---- */

/* D is valid and bounded and lo <= VALUE <= hi. */
bool stats_interval_holds(const struct stats_delta *d, double value);

/*
 * Two runs' deltas of one cell: whether A's interval holds B's estimate
 * and B's holds A's.  Returns how many hold (0 to 2), or -EINVAL when
 * either is not valid.
 */
int stats_rerun_holds(const struct stats_delta *a, const struct stats_delta *b,
		      bool *a_holds_b, bool *b_holds_a);

#endif
