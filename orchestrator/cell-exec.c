/* SPDX-License-Identifier: MIT */
/* cell-exec.c - the registry of cell executors (cell-exec.h). */
#include "cell-exec.h"

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

const struct cell_exec_ops *const cell_execs[] = {
	[WHERE_BARE] = &cell_exec_bare,
	[WHERE_GUEST] = &cell_exec_guest,
	/* Next: cells run inside a lab host (EXEC_NEEDS_GUEST |
	 * EXEC_REMOTE | EXEC_CAN_PROFILE), a later issue: see cell-exec.h,
	 * "How to add one". */
};
const size_t cell_execs_count = ARRAY_SIZE(cell_execs);

const struct cell_exec_ops *cell_exec_for(enum where w)
{
	if ((size_t)w >= cell_execs_count || !cell_execs[w])
		abort(); /* the matrix holds only the places listed */
	return cell_execs[w];
}

bool cell_exec_has(const struct cell_exec_ops *ex, unsigned flags)
{
	return (ex->flags & flags) == flags;
}

bool cell_exec_consistent(const struct cell_exec_ops *ex, char *why, size_t len)
{
	const char *bad = NULL;

	if (!ex->name || !ex->start || !ex->sample || !ex->stop)
		bad = "it lacks a name, start(), sample() or stop()";
	else if (cell_exec_has(ex, EXEC_CAN_PROFILE) != !!ex->profile)
		bad = "EXEC_CAN_PROFILE and profile() disagree";
	else if (cell_exec_has(ex, EXEC_NEEDS_GUEST) && !ex->restart)
		bad = "EXEC_NEEDS_GUEST without restart(): a lost guest "
		      "cannot be replaced";
	else if (cell_exec_has(ex, EXEC_HAS_KVM_STATS) &&
		 !cell_exec_has(ex, EXEC_NEEDS_GUEST))
		bad = "EXEC_HAS_KVM_STATS without EXEC_NEEDS_GUEST";
	else if (cell_exec_has(ex, EXEC_REMOTE) &&
		 (ex->flags & (EXEC_CHANGES_HOST_KNOBS | EXEC_HAS_KVM_STATS)))
		bad = "EXEC_REMOTE with this host's knobs or KVM stats";
	else if (!cell_exec_has(ex, EXEC_REMOTE) &&
		 !cell_exec_has(ex, EXEC_CHANGES_HOST_KNOBS))
		bad = "a local executor whose cells this host's settings "
		      "would not reach";
	else if (ex->flags &
		 ~(EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS |
		   EXEC_HAS_KVM_STATS | EXEC_CAN_PROFILE | EXEC_REMOTE))
		bad = "an unknown flag";
	if (bad)
		snprintf(why, len, "%s: %s", ex->name ? ex->name : "?", bad);
	return !bad;
}
