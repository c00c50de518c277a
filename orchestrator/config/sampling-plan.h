/* SPDX-License-Identifier: MIT */
/*
 * sampling-plan.h - when a cell has enough samples: the stop rule of
 * adaptive sampling ([run] target, repeat, max_repeat, boots), and why
 * each cell stopped.  Pure code: no I/O; the run engine feeds it what the
 * cells measured, round by round, and does what it says (docs/sampling.md).
 *
 * The engine works in rounds.  Round 0 gives every cell its 'repeat'
 * samples, cell after cell, as vmtax always has.  After each round,
 * sampling_plan_round() looks at each cell still sampling: its slowdown
 * against the baseline with the 95% interval its report will print
 * (slowdown.h, which the report model shares: paired rounds or bridged in
 * an interleaved run, Fieller's over the units in cells order), and
 *	- without a target, the cell is done ("repeat");
 *	- with one, it is done when the interval's half-width is at most the
 *	  target and both it and the baseline have SAMPLING_MIN_UNITS units
 *	  ("target"), or when it has max_repeat samples ("max_repeat");
 *	- otherwise it gets more samples next round: the units its half-width
 *	  predicts (half-widths shrink as 1/sqrt(n): n (hw/target)^2 - n), at
 *	  least one unit and what SAMPLING_MIN_UNITS still asks for, at most as
 *	  many as it has (a round at most doubles a cell) and the cap.
 * The baseline's samples are in every interval, so it samples alongside:
 * while any other cell is unsettled it gets the most any of them gets
 * (up to the cap).  It is done when every other cell is ("target", or
 * "max_repeat" at the cap).  A baseline with no ok unit settles the
 * others at once ("no_baseline"): nothing can be compared.
 *
 * Units: a sample, or with boots > 1 a guest boot's mean (the samples of
 * one guest are not independent; boots are).  PER_UNIT converts units to
 * samples for the plan.
 *
 * Why the minimum of SAMPLING_MIN_UNITS: the stop decision looks at the
 * sample variance; stopping when it happens to be small makes the reported
 * interval too narrow, and most so at small n.  The unit test
 * (tests/unit/test-sampling-plan.c) simulates the rule and checks that the
 * 95% interval still covers the true slowdown at least 93% of the time.
 */
#ifndef VMTAX_SAMPLING_PLAN_H
#define VMTAX_SAMPLING_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"
#include "vocab.h"

#define SAMPLING_MIN_UNITS 5

struct sampling_rule {
	double target;	 /* relative half-width; 0: none (fixed repeat) */
	long repeat;	 /* samples of round 0 */
	long max_repeat; /* the cap, >= repeat */
};

/* One cell as the plan sees it after a round. */
struct sampling_cell {
	bool active;	      /* still sampling (pending, not failed) */
	long nsamples;	      /* samples measured, ok or not */
	size_t nunits;	      /* ok units (samples, or boots) */
	long per_unit;	      /* samples per unit, >= 1 */
	struct stats_delta d; /* against the baseline, as slowdown_of() gives
				 it (unused for the baseline) */
	/* out */
	double halfwidth; /* (hi - lo) / 2; INFINITY when unbounded */
	long more;	  /* samples to take next round */
	enum stop_reason reason;
};

/* Half the width of D's interval, INFINITY when it has none. */
double sampling_halfwidth(const struct stats_delta *d);

/*
 * Plan the next round for CELLS[0..N), BASE the baseline's index: set each
 * active cell's halfwidth, more and reason (STOP_NONE while it samples on).
 * Inactive cells are left alone.  Returns the samples planned in all.
 */
long sampling_plan_round(const struct sampling_rule *rule,
			 struct sampling_cell *cells, size_t n, size_t base);

#endif
