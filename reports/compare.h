/* SPDX-License-Identifier: MIT */
/*
 * compare.h - comparisons built from loaded reports, rendered by the same
 * formatters as a single run (format.h).
 *
 * Across runs: cells are aligned by id; run A (the first) is the reference
 * and every later run is compared with it, cell by cell.  Across one axis of
 * one run (--by AXIS): each cell is paired with the cell that differs from it
 * only in AXIS and has the reference value (the baseline's value of AXIS, or
 * the axis's first value).  AXIS is any axis of the run (model.h
 * report_lookup_axis: the names of docs/axes.md, and host_thp, guest_thp as
 * before); for "where" the axes that apply to guests only are ignored, so
 * a guest cell pairs with bare metal at the same host THP (and host knobs).
 *
 * The delta is stats_delta(): positive means slower than the reference,
 * with a Fieller 95% interval and Welch's p, except across interleaved
 * runs (below, "Interleaved runs").  Runs of different workloads,
 * metrics, units or directions are refused (-EINVAL, reported, naming
 * --effect) unless o->effect.
 *
 * KVM evidence (model.h struct report_kvm): where both cells of a row have
 * it, row->kvm holds the exits per sample of each and their relative
 * change, the share of what KVM mapped with 2M pages of each and their
 * difference (in fractions: -0.19 is 19 points fewer), and the
 * COMPARE_KVM_TOP exit reasons whose count per sample changed most (a
 * reason one side never saw counts 0 there: the tracepoint hist lists only
 * reasons that occurred).  c->has_kvm when some row has it; formats print
 * nothing of KVM otherwise.
 *
 * Effects (o->effect, 'vmtax compare --effect'): runs of any workload,
 * metric and unit, each cell as the slowdown against its own run's
 * baseline -- cell->vs_base, the very slowdown 'vmtax report' prints
 * (positive = slower whatever the metric's direction) -- side by side.
 * Row by row row->effect holds the difference in points (s - s_ref, in
 * fractions: 0.12 is 12 points) and the ratio of the slowdown factors
 * ((1 + s) / (1 + s_ref) - 1: how much slower, relatively, the cell is
 * against its baseline than the reference's is against its own).  No
 * interval for either: the two sides come from different runs against
 * different baselines, and their own intervals are shown.  A cell that is
 * its run's baseline has a slowdown of 0 by definition (ref_base, base):
 * both baselines give points = ratio = 0 (valid), one alone gives no
 * difference and why says so (the rows' slowdowns are against different
 * cells).  A row without a cell on one side, or without ok samples, has
 * row->note as across runs.  c->notes says when the runs' baselines are
 * not in one row.  A run whose baseline has no ok samples is refused
 * (-EINVAL): it has no slowdowns.  No geometric mean (ngeo 0) and no KVM
 * deltas (has_kvm false): a row's two cells may run different workloads.
 *
 * Baselines (o->baselines, --baseline RUN=ID; effect compares only):
 * run RUN takes cell ID as its baseline (model.h report_set_baseline():
 * the same slowdowns against another cell), for a run whose own baseline
 * is not the cell the reference measures against (seed 001: 4K pages at
 * the memory-bound array size).  This changes the borrowed report.  A run
 * letter beyond the runs, an ID not a cell of the run or a run given two
 * baselines is -EINVAL, reported.
 *
 * Hosts: across runs, a run whose run.host differs from run A's in what
 * the machine is (reports/host-diff.h: CPU, microcode, memory, kernel,
 * NUMA, accel, virtualized...) is refused in a plain compare (-EINVAL,
 * reported naming each field and both values: its raw figures would be
 * the hosts' too) unless o->allow_unlike (--allow-unlike); then, and in
 * effect compares (each side against its own host's baseline: comparing
 * hosts' slowdowns, a seed reference's among them, is what they are
 * for), it gets that note in c->notes.  Runs on like hosts get none.
 *
 * Interleaved runs (results' "schedule"): when both runs of a row were
 * interleaved, share their baseline's id, and both cells have a paired
 * estimate against it (model.h REPORT_IV_PAIRED or _BRIDGE), the row's
 * delta is the change of the paired estimate: log(B/base_B) -
 * log(A/base_A), se = sqrt(se_A^2 + se_B^2), Welch-Satterthwaite df from
 * each run's units (stats_paired_bridge() on B and A negated), so the
 * host's drift that each run's rounds cancel stays cancelled; row->paired
 * is then true, and c->notes says so once.  The baseline row itself, and
 * any row without both estimates, compares the raw units (Fieller) as
 * in runs in cells order.
 *
 * The verdict ('vmtax compare' exit status, compare_verdict_new()): a row
 * is changed when its delta is valid and significant and |delta| exceeds
 * o->threshold (a fraction; 0: any significant change).  Effect rows have
 * no test and are never changed.
 *
 * Pairs (o->pairs, --pair REF_ID,ID): across runs, cell REF_ID of run A
 * is aligned with cell ID of each later run, whatever their ids; the
 * other cells align by id, but a cell named in a pair aligns only through
 * it (the cell of its id on the other side is then unpaired, and its
 * row->note names the pair).  Pairs work in plain compares too.  An id
 * absent from its run, or named in two pairs, is -EINVAL (reported with
 * the run's cell ids).  compare_parse_pair() splits the option's text.
 */
#ifndef VMTAX_COMPARE_H
#define VMTAX_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

#define COMPARE_KVM_TOP 3

struct compare_kvm_reason {
	const char *reason;	/* borrowed from a report */
	double ref, val, delta; /* per sample; delta = val - ref */
};

struct compare_kvm {
	bool valid;			      /* both cells have KVM evidence */
	double exits_ref, exits, exits_delta; /* delta = exits/ref - 1 */
	double share_2m_ref, share_2m, share_2m_delta; /* delta = difference */
	struct compare_kvm_reason top[COMPARE_KVM_TOP];
	size_t ntop; /* 0 when a side has no exits by reason */
};

struct compare_effect {
	bool ref_base, base; /* the cell is its run's baseline: 0 */
	bool valid;	     /* points and ratio are set */
	double points;	     /* s - s_ref, fractions */
	double ratio;	     /* (1 + s) / (1 + s_ref) - 1 */
	char *why;	     /* owned: why no difference though both are
				measured (one side a baseline), or NULL */
};

struct compare_row {
	size_t ref_run, run;		      /* indexes into compare.runs */
	const struct report_cell *ref, *cell; /* NULL when absent */
	const char *ref_name, *name;	      /* run letter or axis value */
	struct stats_delta d;
	bool paired; /* d is the change of the runs' paired estimates */
	char *note;  /* owned: why there is no delta, or NULL */
	struct compare_kvm kvm;
	struct compare_effect effect; /* c->effect only */
};

/* --pair REF_ID,ID: cell REF_ID of run A with cell ID of a later run. */
struct compare_pair {
	const char *ref_id, *id; /* borrowed */
};

/* --baseline RUN=ID: run RUN's (0 for A) slowdowns against cell ID. */
struct compare_baseline {
	size_t run;
	const char *id; /* borrowed */
};

struct compare_opts {
	const char *by; /* an axis of the one run, or NULL across runs */
	bool effect;	/* slowdowns against each run's baseline */
	const struct compare_pair *pairs; /* borrowed, npairs */
	size_t npairs;
	const struct compare_baseline *baselines; /* borrowed, nbaselines */
	size_t nbaselines;
	bool allow_unlike; /* compare runs whose hosts differ (with a note) */
	double threshold;  /* a change counts beyond this fraction (>= 0) */
};

struct compare {
	const char *by;	      /* the axis, or NULL across runs */
	struct report **runs; /* borrowed */
	size_t nruns;
	struct compare_row *rows;
	size_t nrows;
	double geomean; /* geometric mean of (1 + delta) - 1 over valid rows */
	size_t ngeo;
	bool has_kvm; /* some row's kvm.valid */
	bool effect;  /* an effect compare: rows have effect, not d */
	char **notes; /* owned: what the whole comparison must say (hosts
		       * that differ; with effect, baselines not aligned) */
	size_t nnotes;
	/*
	 * Two runs of one config (the same config text), compared plainly:
	 * whether they are consistent with a re-run (reports/calibrate.h's
	 * rule: the cells whose B/A interval misses 0 are no more than
	 * binomial(n, 0.05) gives 95% of the time; and how often each run's
	 * slowdown interval holds the other's estimate), or that no row has a
	 * bounded interval to judge by (CALIBRATE_CANNOT_JUDGE).  Owned; NULL
	 * else.
	 */
	char *rerun;
	bool rerun_inconsistent; /* rerun says "NOT consistent" */
	double threshold;	 /* o->threshold */
};

/* The run letters: "A", "B", ... (static storage; index < 26). */
const char *compare_run_letter(size_t i);
/*
 * The axes every run may have, "where|host-thp|..." (static storage); a
 * run's own axes are r->axes.
 */
const char *compare_axes(void);

/*
 * Compare RUNS (borrowed; they must outlive *OUT; o->baselines changes
 * them) as O says (NULL: across runs, by id).  Returns 0, or -EINVAL for
 * bad input (reported).
 */
int compare_new(struct report **runs, size_t nruns,
		const struct compare_opts *o, struct compare **out);
/*
 * Split TEXT, "REF_ID,ID", into P, borrowing from TEXT (modified: the ','
 * becomes '\0').  Returns 0, or -EINVAL (reported) unless there is exactly
 * one ',' with an id on each side.
 */
int compare_parse_pair(char *text, struct compare_pair *p);
/*
 * Split TEXT, "RUN=ID" (RUN a run letter: A, B, ...), into B, borrowing ID
 * from TEXT.  Returns 0, or -EINVAL (reported).
 */
int compare_parse_baseline(const char *text, struct compare_baseline *b);
/*
 * What makes C a failing comparison ('vmtax compare' exits 1), owned:
 * "2 of 12 cells changed significantly (beyond 5%): 'ID' run B +10.3%,
 * ..." and/or that the runs are not consistent with a re-run; NULL when
 * nothing changed.  Never fails.
 */
char *compare_verdict_new(const struct compare *c);
/* Whether ROW's change counts for the verdict beyond THRESHOLD. */
bool compare_row_changed(const struct compare_row *row, double threshold);
/*
 * Parse --threshold's TEXT, "PCT" or "PCT%" (a finite number >= 0), into
 * *FRACTION (5 -> 0.05).  0, or -EINVAL (reported).
 */
int compare_parse_threshold(const char *text, double *fraction);
void compare_free(struct compare *c);

#endif
