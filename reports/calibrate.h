/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h - the A/A check of 'vmtax calibrate' (docs/sampling.md,
 * "Calibration"): a config run with [run] replicas = 2, both copies of
 * every cell in the same interleaved rounds with guests of their own, is
 * split into two ordinary runs, A and B, and each cell is judged:
 *	- the interval of the ratio A/B over their shared rounds (the boots as
 *	  units) should hold 1: the test of calibration (Cumming & Maillardet
 *	  2006; Kalibera & Jones 2012);
 *	- each run's slowdown interval should hold the other's estimate (a
 *	  calibrated 95% interval does so about 83% of the time, not 95%).
 * The verdict: "consistent with a re-run" when the cells whose ratio
 * interval misses 1 are no more than a binomial(n, 0.05) count would give
 * 95% of the time; with no bounded ratio interval (n = 0), "cannot judge"
 * (not a finding either way: exit 0, as vmtax compare has it).  Pure code over loaded reports: no I/O but in
 * calibrate_split() (which writes nothing either: it returns the two docs).
 */
#ifndef VMTAX_CALIBRATE_H
#define VMTAX_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "model.h"

/*
 * The replica REP ("a" or "b") of an A/A results document DOC as a run of
 * its own (new ref): its cells without "/replica=REP", the replica axis
 * gone, the baseline renamed.  NULL with a message when DOC is not an A/A
 * run.
 */
json_t *calibrate_split(json_t *doc, const char *rep, char *why, size_t len);

struct calib_row {
	const char *id; /* the cell's id without the replica */
	bool baseline;
	struct stats_paired ab; /* A against B; ab.d.valid when computed */
	bool ab_holds;		/* ab's interval holds 0 (a ratio of 1) */
	struct stats_delta a, b; /* each run's slowdown */
	int rerun;		 /* -1, or how many of a, b hold the other */
	bool a_holds_b, b_holds_a;
};

struct calib {
	struct calib_row *rows; /* owned */
	size_t nrows;
	size_t nratio, nratio_hold; /* cells with an A/B interval; holding 1 */
	size_t nrerun, nrerun_hold; /* interval-estimate checks; holding */
	size_t allowed_misses;	    /* binomial(nratio, 0.05) 95th pct */
	bool judged;		    /* nratio > 0: a verdict at all */
	bool consistent;	    /* judged, and consistent */
};

/*
 * Judge AA (the combined run) with A and B (its halves, loaded from the
 * documents calibrate_split() made).  Returns 0, or -EINVAL with a message
 * when they do not match.
 */
int calibrate_judge(const struct report *aa, const struct report *a,
		    const struct report *b, struct calib *out);
void calibrate_release(struct calib *c);
/* The verdict's words (calibrate and compare print them). */
#define CALIBRATE_CONSISTENT "consistent with a re-run"
#define CALIBRATE_INCONSISTENT "NOT consistent with a re-run"
#define CALIBRATE_CANNOT_JUDGE "cannot judge whether consistent with a re-run"
/* The misses N calibrated 95% intervals show 95% of the time or fewer:
 * the 95th percentile of binomial(N, 0.05). */
size_t calibrate_allowed_misses(size_t n);
/* The table and the summary line; calibration.json's document (new ref:
 * "consistent" null when not judged). */
void calibrate_print(const struct calib *c, FILE *out);
json_t *calibrate_json(const struct calib *c);
/* vmtax calibrate's exit status for C: 1 when judged NOT consistent, else
 * 0 (cannot judge is no finding: docs/sampling.md, "Consistent with a
 * re-run"). */
int calibrate_exit_status(const struct calib *c);

#endif
