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
 * with a Fieller 95% interval and Welch's p.  Runs of different workloads,
 * metrics, units or directions are refused (-EINVAL, reported).
 *
 * KVM evidence (model.h struct report_kvm): where both cells of a row have
 * it, row->kvm holds the exits per sample of each and their relative
 * change, the share of what KVM mapped with 2M pages of each and their
 * difference (in fractions: -0.19 is 19 points fewer), and the
 * COMPARE_KVM_TOP exit reasons whose count per sample changed most (a
 * reason one side never saw counts 0 there: the tracepoint hist lists only
 * reasons that occurred).  c->has_kvm when some row has it; formats print
 * nothing of KVM otherwise.
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

struct compare_row {
	size_t ref_run, run;		      /* indexes into compare.runs */
	const struct report_cell *ref, *cell; /* NULL when absent */
	const char *ref_name, *name;	      /* run letter or axis value */
	struct stats_delta d;
	char *note; /* owned: why there is no delta, or NULL */
	struct compare_kvm kvm;
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
};

/* The run letters: "A", "B", ... (static storage; index < 26). */
const char *compare_run_letter(size_t i);
/*
 * The axes every run may have, "where|host-thp|..." (static storage); a
 * run's own axes are r->axes.
 */
const char *compare_axes(void);

int compare_new(struct report **runs, size_t nruns, const char *by,
		struct compare **out);
void compare_free(struct compare *c);

#endif
