/* SPDX-License-Identifier: MIT */
/*
 * profile-diff.h - where a cell's extra time went, against the baseline.
 *
 * From two profiles (folded stacks, lib/profile.h) the differ computes, for
 * every symbol, its share of samples in each: "self" (the stacks whose leaf
 * it is) and "total" (the stacks it appears in at all, once per stack, so
 * with its children).  A cell that is S slower than the baseline (S = 0.248
 * for +24.8%) spends share_cell * (1 + S) of the baseline's time in a
 * symbol where the baseline spends share_base, so the symbol's
 * contribution to the slowdown, in baseline time, is
 *
 *	delta = share_cell * (1 + S) - share_base
 *
 * and the self deltas of all symbols add up to S: "+24.8%" reads "+9% in
 * clear_page_erms, +6% in handle_mm_fault, ...".  Without a slowdown (NaN:
 * no statistics) S is taken as 0 and scaled is false: the deltas are then
 * plain differences of shares.
 *
 * Pure code: no I/O; unit tested on recorded folded stacks.
 * Ownership: struct profile_diff owns its entries and their names.
 */
#ifndef VMTAX_PROFILE_DIFF_H
#define VMTAX_PROFILE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

struct profile_diff_entry {
	char *name;
	double self_base, self_cell;	/* shares, 0..1 */
	double total_base, total_cell;	/* shares, 0..1 */
	double self_delta, total_delta; /* contributions, see above */
};

struct profile_diff {
	double slowdown; /* S as used (0 when !scaled) */
	bool scaled;
	/* every symbol of either profile, by |self_delta| descending, then
	 * name */
	struct profile_diff_entry *v;
	size_t n;
	/* the same entries' indexes by |total_delta| descending */
	size_t *by_total;
};

/*
 * Compare CELL against BASE, scaled by SLOWDOWN (a fraction; NaN: none).
 * Returns 0, -EINVAL when either profile has no samples, or -E2BIG when
 * the two hold more than PROFILE_DIFF_SYMBOLS_MAX distinct symbols
 * (caps.h; nothing is kept).
 */
int profile_diff_build(const struct profile *base, const struct profile *cell,
		       double slowdown, struct profile_diff *out);
void profile_diff_release(struct profile_diff *d);

/*
 * The share of samples whose stack holds one of NAMES (NULL-terminated) as
 * a frame: the test's "page-fault handling share".
 */
double profile_share_of(const struct profile *p, const char *const *names);

#endif
