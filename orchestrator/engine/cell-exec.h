/* SPDX-License-Identifier: MIT */
/*
 * cell-exec.h - cell executors: the places a cell of the matrix runs, each
 * a const struct cell_exec_ops in its own file, listed in one registry
 * (cell-exec.c) by [run] executor and enum where.
 *
 * The run engine (run-engine.c, run-host.c, run-sample.c, run-state.c,
 * run-rounds.c, run-sampling.c, run-remote.c, cell-profile.c) never asks
 * which executor it holds: it calls the ops and asks the capability flags
 * below (cell_exec_has()).  What an executor can
 * do is said once, in its flags; tests/unit/test-cell-exec.c checks that
 * every entry's flags agree with each other and with its ops.
 *
 * Where the matrix runs is [run] executor (cell_exec_places[]): "local"
 * (this host: bare-metal cells on it, guest cells in guests of its KVM or
 * TCG, one executor per enum where) or a remote place, whose one executor
 * runs every cell of the matrix on a host of its own (EXEC_REMOTE): "lab",
 * a lab host inside this one (exec-lab.c, docs/lab.md), or "fleet", other
 * hosts over ssh, each running the whole matrix (exec-fleet.c,
 * docs/fleet.md).
 *
 * How to add one: write
 * exec-NAME.c with its static ops and its flags, declare it below, and
 * give it its rows in cell_exec_rows[] (cell-exec.c): a remote place's
 * name goes in cell_exec_places[] too, which makes it a value of [run]
 * executor.  What it must check before the run is its check(); what it
 * holds for the whole run (a connection, staged files) its begin() and
 * end() keep in its slot (run_exec_state()); what results.json says of
 * where it ran its describe().  The unit test then checks its flags
 * against its ops.
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
	/* Its cells run on another host, which runs them all with a vmtax of
	 * its own: this host's settings, KVM and processes are not theirs
	 * (no EXEC_CHANGES_HOST_KNOBS, no EXEC_HAS_KVM_STATS).  It has
	 * check() and run_remote(), and no per-cell ops: the other host's
	 * engine calls those of its own executors. */
	EXEC_REMOTE = 1u << 4,
	/* Its guests run under another host's libvirt ([guest] uri =
	 * qemu+ssh://USER@HOST/system), driven from here cell by cell: that
	 * host's settings, KVM and QEMU processes are not this host's (no
	 * EXEC_CHANGES_HOST_KNOBS, no EXEC_HAS_KVM_STATS).  Needs
	 * EXEC_NEEDS_GUEST; the per-cell ops of a local executor. */
	EXEC_REMOTE_LIBVIRT = 1u << 5,
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
 * or a negative errno with WHY.  stop() never fails.  A local executor
 * calls run_warmup() (run-engine.h) from its start() for its warm-up runs.
 *
 * Per run, every executor may have these (NULL: nothing to do), each
 * called once per run for each executor its cells use (run_execs_*(),
 * run-state.c), never for one it does not; the executor's per-run state
 * hangs off R in its own slot, run_exec_state(R, EX):
 * - check(), before anything changes or boots (a local one's after
 *   run_preflight()): what its host cannot run of the matrix is refused
 *   (reported as config errors), what it needs is found (for cells on
 *   this host or a remote libvirt: R's accel, accel_why and
 *   vendor_paging); with DRY, also whether it is ready (an image to
 *   build), said on stdout.  0 or a negative errno.  Needed by a remote
 *   executor.
 * - begin(), once this host is taken and before results.json is first
 *   written (not with --dry-run): the per-run state its cells need (a
 *   remote libvirt's staged files).  0 or a negative errno, reported.
 * - describe(): what it says of where its cells ran, into results.json:
 *   with CI < 0 into the run object INTO (once, for the run's head), else
 *   into cell CI's observed INTO (when the cell's host settings are made,
 *   before its start()).
 * - end(): frees its per-run state (its slot; from run_release(), also
 *   after a failed check()).  Never fails.
 *
 * A remote executor (EXEC_REMOTE) has these instead of the per-cell ops:
 * - check() (above);
 * - run_remote(): every cell of R on its host, R's run directory and
 *   signals its own (a stop request stops the run there, which keeps its
 *   samples; R->resume resumes it).  It gives what that host's run
 *   recorded, its results.json (*DOC, untrusted: the engine takes it
 *   through results_remote_take(), which checks it against R's matrix),
 *   and what this host knows of where it ran (*LABEL, results.json's
 *   executor label), each NULL when there is none, and the status the run
 *   there exited with (*RC; -1: it did not end).  An executor whose cells
 *   ran on several hosts (the fleet) gives no *DOC: it keeps each host's
 *   document apart and sets R's states itself.  0 once the run there
 *   ended, or a negative errno (reported) when it was cut off: *DOC is
 *   then what came back before.
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
	int (*check)(struct run *r, bool dry);
	int (*begin)(struct run *r);
	void (*describe)(const struct run *r, int ci, json_t *into);
	void (*end)(struct run *r);
	int (*run_remote)(struct run *r, json_t **doc, json_t **label,
			  int *rc);
};

extern const struct cell_exec_ops cell_exec_bare;  /* exec-bare.c */
extern const struct cell_exec_ops cell_exec_guest; /* exec-guest.c */
/* exec-guest.c, its per-run ops in exec-guest-remote.c: the same guests
 * on a remote libvirt */
extern const struct cell_exec_ops cell_exec_guest_remote;
extern const struct cell_exec_ops cell_exec_lab;   /* exec-lab.c */
extern const struct cell_exec_ops cell_exec_fleet; /* exec-fleet.c */

/* One row of the registry: the executor of the cells at WHERE (or every
 * cell, where_any) when [run] executor is PLACE and the guests' libvirt is
 * this host's (LIBVIRT_HERE), another's (LIBVIRT_REMOTE: a remote [guest]
 * uri) or either (LIBVIRT_ANY). */
enum cell_exec_libvirt { LIBVIRT_ANY, LIBVIRT_HERE, LIBVIRT_REMOTE };
struct cell_exec_row {
	const char *place;
	enum where where;
	bool where_any;
	enum cell_exec_libvirt libvirt;
	const struct cell_exec_ops *ops;
};

/* The registry, and [run] executor's values (NULL-terminated). */
extern const struct cell_exec_row cell_exec_rows[];
extern const size_t cell_exec_rows_count;
/* cell_exec_places[], CELL_EXEC_LOCAL ...: vocab.h */

/* The executor of cells at W when the matrix runs at PLACE, its guests on
 * a remote libvirt when REMOTE (never NULL for a valid triple: the config
 * accepts no other). */
const struct cell_exec_ops *cell_exec_for(const char *place, enum where w,
					  bool remote);
/* Whether EX has every flag in FLAGS. */
bool cell_exec_has(const struct cell_exec_ops *ex, unsigned flags);
/*
 * Whether EX's flags and ops agree (the rules at enum cell_exec_flag);
 * false with the first rule broken in WHY.  Pure: for the unit test.
 */
bool cell_exec_consistent(const struct cell_exec_ops *ex, char *why,
			  size_t len);

#endif
