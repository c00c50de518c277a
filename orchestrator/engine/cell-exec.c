/* SPDX-License-Identifier: MIT */
/* cell-exec.c - the registry of cell executors (cell-exec.h). */
#include "cell-exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const struct cell_exec_row cell_exec_rows[] = {
	{ CELL_EXEC_LOCAL, WHERE_BARE, false, LIBVIRT_ANY, &cell_exec_bare },
	{ CELL_EXEC_LOCAL, WHERE_GUEST, false, LIBVIRT_HERE,
	  &cell_exec_guest },
	{ CELL_EXEC_LOCAL, WHERE_GUEST, false, LIBVIRT_REMOTE,
	  &cell_exec_guest_remote },
	{ CELL_EXEC_LAB, 0, true, LIBVIRT_ANY, &cell_exec_lab },
	{ FLEET_EXEC, 0, true, LIBVIRT_ANY, &cell_exec_fleet },
};
const size_t cell_exec_rows_count = ARRAY_SIZE(cell_exec_rows);

const struct cell_exec_ops *cell_exec_for(const char *place, enum where w,
					  bool remote)
{
	size_t i;

	for (i = 0; i < cell_exec_rows_count; i++) {
		const struct cell_exec_row *row = &cell_exec_rows[i];

		if (!strcmp(row->place, place) &&
		    (row->where_any || row->where == w) &&
		    (row->libvirt == LIBVIRT_ANY ||
		     row->libvirt == (remote ? LIBVIRT_REMOTE : LIBVIRT_HERE)))
			return row->ops;
	}
	abort(); /* the config and the matrix hold only the pairs listed */
}

bool cell_exec_has(const struct cell_exec_ops *ex, unsigned flags)
{
	return (ex->flags & flags) == flags;
}

bool cell_exec_consistent(const struct cell_exec_ops *ex, char *why, size_t len)
{
	bool remote = cell_exec_has(ex, EXEC_REMOTE);
	bool rlv = cell_exec_has(ex, EXEC_REMOTE_LIBVIRT);
	const char *bad = NULL;

	if (!ex->name)
		bad = "it has no name";
	else if (ex->flags &
		 ~(EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS |
		   EXEC_HAS_KVM_STATS | EXEC_CAN_PROFILE | EXEC_REMOTE |
		   EXEC_REMOTE_LIBVIRT))
		bad = "an unknown flag";
	else if (rlv && (remote || !cell_exec_has(ex, EXEC_NEEDS_GUEST) ||
			 (ex->flags &
			  (EXEC_CHANGES_HOST_KNOBS | EXEC_HAS_KVM_STATS))))
		bad = "EXEC_REMOTE_LIBVIRT needs EXEC_NEEDS_GUEST, and not "
		      "EXEC_REMOTE, this host's knobs or KVM stats";
	else if (remote &&
		 (ex->flags & (EXEC_CHANGES_HOST_KNOBS | EXEC_HAS_KVM_STATS)))
		bad = "EXEC_REMOTE with this host's knobs or KVM stats";
	else if (remote && (!ex->check || !ex->run_remote || ex->start ||
			    ex->sample || ex->restart || ex->profile ||
			    ex->stop))
		bad = "EXEC_REMOTE needs check() and run_remote(), and no "
		      "per-cell ops (its host's own executors run the cells)";
	else if (!remote &&
		 (!ex->start || !ex->sample || !ex->stop || ex->run_remote))
		bad = "a local executor needs start(), sample() and stop(), "
		      "and no run_remote()";
	else if (!remote && cell_exec_has(ex, EXEC_CAN_PROFILE) != !!ex->profile)
		bad = "EXEC_CAN_PROFILE and profile() disagree";
	else if (!remote && cell_exec_has(ex, EXEC_NEEDS_GUEST) && !ex->restart)
		bad = "EXEC_NEEDS_GUEST without restart(): a lost guest "
		      "cannot be replaced";
	else if (cell_exec_has(ex, EXEC_HAS_KVM_STATS) &&
		 !cell_exec_has(ex, EXEC_NEEDS_GUEST))
		bad = "EXEC_HAS_KVM_STATS without EXEC_NEEDS_GUEST";
	else if (!remote && !rlv &&
		 !cell_exec_has(ex, EXEC_CHANGES_HOST_KNOBS))
		bad = "a local executor whose cells this host's settings "
		      "would not reach";
	if (bad)
		snprintf(why, len, "%s: %s", ex->name ? ex->name : "?", bad);
	return !bad;
}
