/* SPDX-License-Identifier: MIT */
/*
 * rounds-group.h - which cells of order = interleaved are up together
 * (docs/sampling.md, "Interleaved rounds"): the groups run-rounds.c runs
 * one after the other, and the run's estimate (run-estimate.h) counts.
 *
 * Guests whose host settings differ cannot be up together: paging needs
 * kvm_amd/kvm_intel reloaded with no guest running, a hugetlb-backed guest
 * owns its pool, and a guest booted under host THP never would have its
 * memory collapsed by khugepaged (and new faults served huge) while the
 * host runs at always or madvise for another cell.  So guest cells are
 * grouped by (paging, host THP, [host] knobs, backing), hugetlb-backed ones
 * alone, groups split where their guests' memory would not fit in a budget
 * (ROUNDS_MEM_SHARE of MemAvailable).  A bare-metal cell joins every group
 * whose guests tolerate its settings (same [host] knobs; THP anything but
 * a guest-at-never group's switch to a THP mode); bare-metal cells no
 * group takes form a group of their own, the last.
 *
 * Pure: the caller says which cells are guests and which still wait, and
 * the memory budget (0: no split).  A group's cells are its guest cells
 * first, then its bare-metal cells.  Ownership: rounds_groups_make() gives
 * an array that rounds_groups_free() frees, with its cells and why.
 */
#ifndef VMTAX_ROUNDS_GROUP_H
#define VMTAX_ROUNDS_GROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "matrix.h"

/* A guest group's guests may take this share of MemAvailable. */
#define ROUNDS_MEM_SHARE 0.7
/*
 * [run] plan = auto's sizing pass: PLAN_SIZING_ROUNDS rounds over
 * PLAN_SIZING_BOOTS boots of every group, before the plan.
 */
#define PLAN_SIZING_BOOTS 2
#define PLAN_SIZING_ROUNDS 4

struct rgroup {
	int *cells; /* guest cells first, then bare-metal cells */
	size_t nguests, ncells;
	char *why;  /* what the group shares, said in the log */
};

/*
 * The groups of CELLS[0..N) whose WAITING[ci] is true (GUEST[ci]: a guest
 * cell), guest groups split within BUDGET bytes of guest memory (0: none),
 * into *OUT; returns their count.
 */
size_t rounds_groups_make(const struct cell *cells, int n, const bool *guest,
			  const bool *waiting, unsigned long long budget,
			  struct rgroup **out);
void rounds_groups_free(struct rgroup *gs, size_t ng);
/* How many of the groups GS[0..NG) cell CI is in. */
long rounds_groups_in(const struct rgroup *gs, size_t ng, int ci);

#endif
