/* SPDX-License-Identifier: MIT */
/*
 * cell-exec.h - cell executors: the places a cell of the matrix runs, each
 * a const struct cell_exec_ops in its own file, listed in one registry
 * (cell-exec.c) by enum where.
 *
 * The run engine (run-engine.c, run-rounds.c, run-sampling.c,
 * cell-profile.c) never asks which executor it holds: it calls the ops and
 * asks the capability flags below (cell_exec_has()).  What an executor can
 * do is said once, in its flags; tests/unit/test-cell-exec.c checks that
 * every entry's flags agree with each other and with its ops.
 *
 * How to add one (the lab host, cells run inside a lab, is the next:
 * docs/lab.md): write exec-NAME.c with its static ops and its flags,
 * declare it below, give it an enum where value (matrix.h) and list it in
 * cell_execs[] (cell-exec.c); the unit test then checks its flags.
 */
#ifndef VMTAX_CELL_EXEC_H
#define VMTAX_CELL_EXEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "matrix.h"
#include "runner.h"

struct run;
struct cell_run;

/* What an executor can do, or needs: the engine asks these, never its name. */
enum cell_exec_flag {
	/* Its cells run in a guest of their own (booted per cell, replaced
	 * when lost or every [run] boots share of samples): the guest axes
	 * (paging, backing, guest THP, ...) apply, and interleaved rounds
	 * keep its guests up in groups (run-rounds.c).  Needs restart(). */
	EXEC_NEEDS_GUEST = 1u << 0,
	/* Its cells are measured under this host's settings, which the
	 * engine sets for each cell and reads back: host THP and [host]
	 * knobs, and for a guest the paging mode and its hugetlb pool. */
	EXEC_CHANGES_HOST_KNOBS = 1u << 1,
	/* Its samples say what KVM saw of the guest ("kvm", or null with
	 * "kvm_why"): a guest of this host's KVM.  Needs EXEC_NEEDS_GUEST. */
	EXEC_HAS_KVM_STATS = 1u << 2,
	/* It has profile() (docs/profile.md). */
	EXEC_CAN_PROFILE = 1u << 3,
	/* Its cells run on another host: this host's settings, KVM and
	 * processes are not theirs (no EXEC_CHANGES_HOST_KNOBS, no
	 * EXEC_HAS_KVM_STATS).  None yet: the lab executor will be. */
	EXEC_REMOTE = 1u << 4,
};

/*
 * An executor.  start() and restart() return 0, or -1 with the cell failed
 * (cell_fail()) and the reason reported.  sample() runs measured sample IDX
 * and gives the sample's JSON (*SJ, owned by the caller) and the same as a
 * struct (RES, released by the caller), or a negative errno with WHY:
 * -EPIPE or -ETIMEDOUT when the executor is lost (restart() may replace
 * it), anything else when the cell cannot go on.  restart() may be NULL
 * (nothing to replace).  profile() (NULL unless EXEC_CAN_PROFILE) runs the
 * workload once more under sampling and gives RES with res->profile set,
 * or a negative errno with WHY.  stop() never fails.
 */
struct cell_exec_ops {
	const char *name;
	unsigned flags; /* enum cell_exec_flag */
	int (*start)(struct run *r, struct cell_run *cr);
	int (*sample)(struct run *r, struct cell_run *cr, long idx, json_t **sj,
		      struct runner_result *res, char *why, size_t len);
	int (*restart)(struct run *r, struct cell_run *cr, const char *reason);
	int (*profile)(struct run *r, struct cell_run *cr,
		       struct runner_result *res, char *why, size_t len);
	void (*stop)(struct run *r, struct cell_run *cr);
};

extern const struct cell_exec_ops cell_exec_bare;  /* exec-bare.c */
extern const struct cell_exec_ops cell_exec_guest; /* exec-guest.c */

/* The registry, by enum where (a NULL slot: a place not written yet). */
extern const struct cell_exec_ops *const cell_execs[];
extern const size_t cell_execs_count;

/* The executor of cells that run at W (never NULL for a valid W). */
const struct cell_exec_ops *cell_exec_for(enum where w);
/* Whether EX has every flag in FLAGS. */
bool cell_exec_has(const struct cell_exec_ops *ex, unsigned flags);
/*
 * Whether EX's flags and ops agree (the rules at enum cell_exec_flag);
 * false with the first rule broken in WHY.  Pure: for the unit test.
 */
bool cell_exec_consistent(const struct cell_exec_ops *ex, char *why,
			  size_t len);

#endif
