/* SPDX-License-Identifier: MIT */
/*
 * slowdown.h - which interval a cell's slowdown gets (docs/sampling.md,
 * "Which interval a cell gets"), and how two cells are paired.  One rule
 * for the report model (reports/paired.c: what every format prints) and
 * for the run engine's stop rule (orchestrator/engine/run-sampling.c:
 * [run] target is judged on the interval the report prints).  Pure code:
 * no I/O.
 *
 * A cell as the rule sees it (struct slowdown_cell, its arrays owned): per
 * sample its metric (NaN for a sample that is not ok), its interleaved
 * round and its guest boot (-1 where not recorded), and its units for
 * Fieller's interval (sample-unit.h).  The rule, the first that applies:
 *	- the cell shares rounds with the baseline: paired rounds
 *	  (slowdown_pair(): stats_paired() over stats_paired_units());
 *	- it shares none, but some cell M shares rounds with both: paired,
 *	  bridged through the M that shares the most (stats_paired_bridge());
 *	- else Fieller over the units (stats_delta()).
 * A pairing takes logs, so a round in which either side's ok metric is 0
 * is left out of it; the pairing counts the rounds the two share and the
 * rounds left out, so that the reports say so where they count samples.
 */
#ifndef VMTAX_SLOWDOWN_H
#define VMTAX_SLOWDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats-paired.h"
#include "stats.h"

/* How a slowdown's interval is made (the reports' names:
 * slowdown_interval_name()). */
enum report_interval { REPORT_IV_FIELLER, REPORT_IV_PAIRED, REPORT_IV_BRIDGE };

/* "Fieller", "paired rounds", "paired, bridged". */
const char *slowdown_interval_name(enum report_interval iv);

struct slowdown_cell {
	size_t n;	   /* samples */
	double *metric;	   /* n: NaN for a sample that is not ok */
	long *round, *boot; /* n: -1 where not recorded */
	struct stats_summary units; /* Fieller's units */
};
/* N samples' arrays allocated into V (n set, units untouched); freed by
 * slowdown_cell_release() (NULL-safe arrays). */
void slowdown_cell_init(struct slowdown_cell *v, size_t n);
void slowdown_cell_release(struct slowdown_cell *v);

struct slowdown_pairing {
	struct stats_paired p; /* log(A / B) over the rounds used */
	size_t shared;	       /* rounds with an ok sample on both sides */
	size_t zero;	       /* of them, left out: a metric of 0 */
	double hboot_lo, hboot_hi; /* the bootstrap's, NaN unless asked */
};

/*
 * A against B over the rounds they share (log(A/B); the units the coarser
 * side's boots: stats_paired_units()); with BOOTSTRAP, the hierarchical
 * bootstrap's interval of the delta too, seeded by SEED.  False when no
 * round is left to pair (OUT's shared and zero still count).
 */
bool slowdown_pair(const struct slowdown_cell *a, const struct slowdown_cell *b,
		   bool higher_better, bool bootstrap, uint64_t seed,
		   struct slowdown_pairing *out);

struct slowdown {
	enum report_interval iv;
	struct stats_delta d;	/* the slowdown and its interval */
	struct stats_paired paired; /* paired or bridged: the estimate */
	long bridge_via;	/* the bridge's cell, else -1 */
	/* paired or bridged: the rounds shared and those left out (a
	 * bridge: over both pairings); 0 for Fieller */
	size_t rounds_shared, rounds_zero;
	double hboot_lo, hboot_hi; /* paired rounds with BOOTSTRAP, else NaN */
};

/*
 * The slowdown of *CELLS[CI] against *CELLS[BASE] (N cells) by the rule
 * above.  CI == BASE gets Fieller against itself (callers ignore it).
 */
void slowdown_of(const struct slowdown_cell *const *cells, size_t n,
		 size_t base,
		 size_t ci, bool higher_better, bool bootstrap, uint64_t seed,
		 struct slowdown *out);

#endif
