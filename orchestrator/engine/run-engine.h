/* SPDX-License-Identifier: MIT */
/*
 * run-engine.h - the run engine: drives every cell of a matrix through a
 * cell executor, with one retry loop, and keeps the run's state in typed
 * structures from which results.json is written (results-file.h).
 *
 * Life of a cell (run_cell() in run-engine.c):
 *	1. a cell that ended in an earlier run (resume) is never repeated;
 *	2. the host is set for it (paging, host knobs, host THP, hugetlb pool),
 *	   each change journalled and read back by host/; a cell the host
 *	   cannot honour is skipped with the reason;
 *	3. its executor starts (bare metal: a work directory and the setup;
 *	   guest: boot, hello, guest THP and knobs, setup), warm-up runs;
 *	4. the samples, each through exec->sample() inside the one retry loop:
 *	   a failed sample is tried again up to [run] retries times; an
 *	   executor that is lost (-EPIPE, -ETIMEDOUT: a dead or hung guest) is
 *	   replaced by exec->restart() when the executor has one;
 *	4b. with [run] profile = on, one more run under sampling through
 *	   exec->profile() (cell_profile(), docs/profile.md): after the
 *	   samples, so it cannot change them, and never recorded as one;
 *	5. exec->stop() (clean, what the host saw, tear down), then the cell's
 *	   status: ok only with at least one ok sample.
 *
 * Rounds (docs/sampling.md): round 0 takes every cell through 1-5 with its
 * 'repeat' samples.  Without a [run] target each cell is concluded at once
 * (stop_reason "repeat"), as always.  With one, run_sampling_plan() looks
 * at the cells after each round (sampling-plan.h) and plans more samples
 * for those whose slowdown interval is still too wide, and for the
 * baseline; the next round takes each such cell through 2-5 again for
 * them (a guest cell boots a fresh guest), until every cell has settled.
 * With [run] boots > 1 a guest cell's guest is replaced (stop, start)
 * every ceil(repeat / boots) samples, and each sample records its boot.
 *
 * Executors are const struct cell_exec_ops, listed in one registry by
 * enum where (cell-exec.h, which says how to add one).  The engine asks an
 * executor's capability flags and calls its ops; it never asks which one
 * it holds.
 *
 * Executors own what they need for the whole run: their check() before
 * it, begin() and end() around it, describe() of where they ran, each
 * with its state in its slot of the run (run_execs_check() and the rest
 * below; cell-exec.h).
 *
 * Files: run-engine.c (a cell's life, run_engine()), run-host.c (step 2),
 * run-sample.c (step 3's warm-ups, step 4's retry loop), run-state.c
 * (statuses, progress, saving, the executors' per-run ops, the services
 * for executors), run-accel.c (this host's accelerator, for a local
 * executor's check()), run-rounds.c, run-sampling.c, run-remote.c,
 * cell-profile.c.
 *
 * Ownership: struct run owns everything it points to; run_release() frees it.
 */
#ifndef VMTAX_RUN_ENGINE_H
#define VMTAX_RUN_ENGINE_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "cell-exec.h"
#include "guest-files.h"
#include "image.h"
#include "matrix.h"
#include "run-config.h"
#include "runner.h"
#include "sampling-plan.h"

struct host_cpu;
struct host_ctx;
struct vm_conn;

/* The most executors one run's cells use (local: one per enum where). */
#define RUN_EXECS_MAX 4

/* The state of one cell: what results.json says of it. */
struct cell_state {
	enum cell_status status;
	char *reason;		/* NULL: none */
	json_t *env;		/* what the cell asked for */
	json_t *observed;	/* what the host and guest showed */
	json_t *samples;	/* the recorded samples, in index order */
	long nsamples;		/* == json_array_size(samples) */
	long nok;		/* ok samples among them */
	long nfailed;		/* failed samples among them */
	long planned;		/* samples it should have when the round ends */
	enum stop_reason stop;	/* why it stopped sampling; STOP_NONE: not yet */
	long boots;		/* guests booted for it so far, across rounds and
				 * replacements: a sample's "boot" is boots - 1 */
	double halfwidth;	/* of its slowdown interval at the last plan */
	json_t *plan;		/* [run] plan = auto: what it chose and why
				 * (results.json cell "plan"), or NULL */
};

/* Free STATES[0..N) and what each holds (NULL: nothing). */
void cell_states_free(struct cell_state *states, int n);

/* The guest files of one (image, kernel, initrd) the cells ask for. */
struct run_guest_files {
	const char *image, *kernel, *initrd; /* borrowed from the config */
	struct guest_files f;
	/* the image is stale, booted as it is (cmd-run.c): said in
	 * results.json's run.notes; owned, or NULL */
	char *image_note;
};

struct run {
	struct run_config cfg;
	struct matrix matrix;
	struct cell *cells;	/* matrix.cells */
	int ncells;		/* matrix.ncells */
	struct cell_state *states;
	json_t *head;		/* results.json without its cells */
	/* when set, results.json's cells in place of the states' (a fleet
	 * run of mode each: every host's cells, fleet_each_cells_new()) */
	json_t *record_cells;
	char *rundir;
	char *results_path;
	char *journal_path;	/* samples.jsonl */
	struct host_ctx *host;
	struct vm_conn *conn;
	/* the executors R's cells use, each with its per-run state, its
	 * own (run_execs_check() lists them; their check() or begin() sets
	 * state, their end() frees it: run_exec_state()) */
	struct run_exec {
		const struct cell_exec_ops *ex;
		void *state;
	} execs[RUN_EXECS_MAX];
	size_t nexecs;
	const char *accel;
	char accel_why[256];
	struct run_guest_files *gfs; /* one per distinct (image, kernel, initrd) */
	size_t ngfs;
	char bindir[PATH_MAX];
	char vendor_paging[8];	/* "ept" or "npt"; "" no known vendor */
	bool need_guest;
	long failures;
	double t0;
	long samples_done;
	long samples_total;
	bool stopped;		/* stop requested or max_failures reached */
	bool save_failed;	/* the run directory cannot be written: stop */
	bool resume;		/* continuing an interrupted run */
	bool userland_noted;	/* the guest's userland was named */
	const char *const *sets; /* --set overrides, kept for --resume */
	size_t nsets;
	volatile sig_atomic_t *stop_signals; /* the one signal flag */
	/* order = interleaved (run-rounds.c): the shuffle's seed and what
	 * the schedule was (results.json "schedule"; NULL for order = cells) */
	unsigned long long seed;
	json_t *schedule;
	long next_round;	/* the next round's number, across groups */
	/* the run's estimate and where the cells were when it began
	 * (run-timing.c), for the ETA; NULL: none */
	struct run_est *est;
	/* --dry-run with executor = lab: what building the lab image would
	 * take (its check, exec-lab.c) */
	enum image_would lab_image_would;
};

/* One cell while it runs: what an executor gets. */
struct cell_run {
	int ci;
	const struct cell *cell;
	struct cell_state *st;
	char slug[256];		/* the id as a file name */
	long in_boot;		/* samples taken in the current guest */
	long round;		/* interleaved: the round of the sample being
				 * taken (recorded as its "round"); -1: none */
	void *priv;		/* the executor's own */
	int own_pid;		/* the executor's process (QEMU), or 0: its
				 * runnable threads are not "other" tasks */
};

/*
 * The profiled run of a cell (orchestrator/engine/cell-profile.c): writes
 * RUNDIR/profiles/SLUG.folded and the cell's observed.profile; a profile
 * that fails says why there and fails nothing else.
 */
void cell_profile(struct run *r, const struct cell_exec_ops *ex,
		  struct cell_run *cr);

/*
 * Run every cell; the run ends early on a stop request or max_failures.
 * When the run's executor is remote (EXEC_REMOTE: [run] executor = lab),
 * run_remote() instead.
 */
void run_engine(struct run *r);
/*
 * Every cell on a remote executor's host (run-remote.c): its run_remote()
 * runs them there, and what that host recorded becomes R's state
 * (results_remote_take()), labelled with where it ran, and is saved.  A
 * run cut off there is "interrupted": R->stopped.
 */
void run_remote(struct run *r);
/*
 * order = interleaved (run-rounds.c, docs/sampling.md): the guests of a
 * group of cells that share host settings stay up together, and each round
 * takes one sample of every cell of the group and of the bare-metal cells
 * its guests tolerate, in a shuffled order; guests are replaced between
 * boot epochs ([run] boots).  Called by run_engine().
 */
void run_rounds(struct run *r, bool *profiled);
/* After the passes of run_rounds(): conclude every cell (interrupted ones
 * stay pending). */
void run_rounds_conclude(struct run *r);
/* The guest memory a group of interleaved rounds may hold: a share of
 * MemAvailable (rounds-group.h), 0 when unknown. */
unsigned long long run_rounds_budget(void);
void run_release(struct run *r);

/*
 * Adaptive sampling (run-sampling.c).  Plan the next round: each pending
 * cell's stop reason, half-width and planned samples; returns the samples
 * planned in all (0: every cell has settled).
 */
long run_sampling_plan(struct run *r);
/* Samples per guest of cell CI: 0 for "no limit" (boots = 1, bare metal). */
long run_per_boot(const struct run *r, int ci);
/*
 * [run] plan = auto, after the sizing pass: for the guest cells CELLS[0..N)
 * of one group, each cell's Kalibera-Jones components of log(metric) by
 * boot, its costs (c1: a sample's elapsed time; c2: boot to hello plus the
 * warm-up runs), the samples per boot and boots each would take, recorded
 * in its st->plan; the group takes the most of either (*R1, *BOOTS).
 */
void run_plan_group(struct run *r, const int *cells, size_t n, long *r1,
		    long *boots);
/*
 * Cell CI's Kalibera-Jones variance components of log(metric), within a
 * boot and between boots (results.json cell "variance"), for a guest cell
 * with more than one boot; NULL otherwise.  New ref.
 */
json_t *run_cell_variance_new(const struct run *r, int ci);
/* Whether cell CI's interval is over boot means rather than samples. */
bool run_unit_is_boot(const struct run *r, int ci);

/* ---- the engine's own parts (run-state.c, run-host.c, run-sample.c,
 * run-engine.c), shared by run-rounds.c ---- */

/* The executor of cell CI, and whether it has every flag in FLAGS. */
const struct cell_exec_ops *run_exec_of(const struct run *r, int ci);
bool run_exec_has(const struct run *r, int ci, unsigned flags);
/* Whether R's [guest] uri is another host's libvirt (qemu+ssh): a fact of
 * the config, which picks the guest cells' executor. */
bool run_libvirt_remote(const struct run *r);
/*
 * The per-run ops of the executors R's cells use (cell-exec.h), each
 * executor once, in the order of its first cell (run-state.c):
 * run_execs_check() lists them and calls each check() (0, or -EINVAL
 * with the reason reported); run_execs_begin() each begin() once the host
 * is taken (0 or -EINVAL); run_exec_describe() what cell CI's executor
 * says of where it ran into its observed INTO, or with CI < 0 what every
 * executor says into results.json's run INTO; run_execs_end() each end(),
 * last first (run_release() calls it).
 */
int run_execs_check(struct run *r, bool dry);
int run_execs_begin(struct run *r);
void run_exec_describe(const struct run *r, int ci, json_t *into);
void run_execs_end(struct run *r);
/* Write results.json; one that cannot be written stops the run. */
void run_save(struct run *r);
/* A cell id as a file name ('/' and '=' as '_'). */
void run_slug(const char *id, char *out, size_t len);
/* Host settings of cell CI (paging, knobs, THP, its hugetlb pool: the
 * pool's knob into POOL and its size before into ORIG); -1 with the cell
 * failed or skipped. */
int run_host_prepare(struct run *r, int ci, char *pool, size_t plen,
		     char *orig, size_t olen);
/* The paging guest cell C asks for: "tcg", "shadow", or the CPU's ("ept",
 * "npt"; "hw" on a CPU of no known vendor, under TCG); R's accel must be
 * known. */
const char *run_cell_paging(const struct run *r, const struct cell *c);
/* THP and [host] knobs only, before each interleaved sample. */
int run_host_apply(struct run *r, int ci);
/*
 * Why the host of CTX (its tree ROOT) cannot give cell C what it asks,
 * into WHY, or false when it can (run-host.c): a [host] knob it sets; the
 * paging of a guest (hw, shadow: KVM, whose guests here run under ACCEL
 * for ACCEL_WHY, and its vendor module reloadable); the hugetlb pool and
 * hugetlbfs mount of a guest's backing.  A cell any of these refuses is
 * skipped with the reason (step 2 above); the preflight (run-preflight.h)
 * asks the same before the run.  Changes nothing, reports nothing.
 */
bool run_cell_knobs_unsupported(struct host_ctx *ctx, const struct cell *c,
				char *why, size_t len);
bool run_cell_paging_unsupported(struct host_ctx *ctx, const struct cell *c,
				 const char *accel, const char *accel_why,
				 char *why, size_t len);
bool run_cell_hugetlb_unsupported(struct host_ctx *ctx, const char *root,
				  const struct cell *c, char *why, size_t len);
/* Start the cell's executor, replacing a guest that dies first. */
int run_cell_start(struct run *r, const struct cell_exec_ops *ex,
		   struct cell_run *cr);
/*
 * The cell's [run] warmup runs, unmeasured, each through ONE (warm-up run
 * IDX, with ARG: it runs the workload once and saves its output as phase
 * "warmup", run_save_output()), with "warm-up run" as progress, until a
 * stop is asked.  0, or ONE's first negative errno (WHY says why, from
 * ONE): the warm-ups after it do not run.  ONE returns 0 for a run whose
 * failure is not the cell's (bare metal goes on without its output).
 */
typedef int (*run_warmup_fn)(struct run *r, struct cell_run *cr, long idx,
			     void *arg, char *why, size_t len);
int run_warmup(struct run *r, struct cell_run *cr, run_warmup_fn one,
	       void *arg, char *why, size_t len);
/* Sample IDX with the one retry loop: 0, or -1 with the cell failed. */
int run_sample_one(struct run *r, const struct cell_exec_ops *ex,
		   struct cell_run *cr, long idx);
/* Conclude a cell and say why it stopped sampling. */
void run_cell_finish(struct run *r, struct cell_state *st,
		     enum stop_reason why);

/* ---- for executors (run-state.c) ---- */

/* EX's per-run state in R (its own: set by its check() or begin(), freed
 * by its end()), or NULL when it has none or none of R's cells runs on
 * EX; run_exec_state_set() sets it (EX must be one of R's). */
void *run_exec_state(const struct run *r, const struct cell_exec_ops *ex);
void run_exec_state_set(struct run *r, const struct cell_exec_ops *ex,
			void *state);
/*
 * A check() of an executor whose cells run on this host (run-accel.c):
 * the accelerator its guests get (R's accel, accel_why: KVM where usable,
 * TCG where [guest] accel = tcg; run_preflight() refused accel = kvm
 * where KVM is unusable) and its CPU's paging name, once per run.  0, or
 * -ENODEV reported.
 */
int run_accel_here(struct run *r);
/*
 * R's vendor_paging: the paging name ("ept", "npt") of CPU's vendor
 * (cpu-vendor.h), the CPU of WHERE, whose guests the cells are; "" for a
 * CPU of no known vendor, which is refused (-ENODEV, reported) when its
 * guests run under KVM: their paging would have no name.  (Under TCG a hw
 * cell is skipped, and says "hw".)
 */
int run_vendor_paging_set(struct run *r, const struct host_cpu *cpu,
			  const char *where);

/* Mark the cell failed (or skipped) with REASON. */
void cell_fail(struct cell_state *st, const char *reason);
void cell_set_status(struct cell_state *st, enum cell_status s,
		     const char *reason);
/*
 * The run's estimate (run-estimate.h, docs/estimate.md) from this host's
 * figures (timings.h), in run-timing.c: run_estimate_print() says it on F
 * (--dry-run); run_estimate_begin() says it in the run's first lines and
 * keeps it for the ETA; run_eta() is the seconds left (< 0: no estimate);
 * run_timings_record() puts what the run measured into the figures, from
 * its results.json, when it ends.
 */
void run_estimate_print(const struct run *r, FILE *f);
void run_estimate_begin(struct run *r);
double run_eta(const struct run *r);
void run_timings_record(const struct run *r);
void run_estimate_free(struct run_est *e);
/* "[3/11] CELL: WHAT (elapsed, ETA)" on stderr. */
void run_progress(struct run *r, int ci, const char *what);
/* Whether to stop now (a signal, max_failures or an unwritable run dir). */
bool run_should_stop(struct run *r);
/* Seconds one sample may take. */
double run_sample_timeout(const struct run *r);
/* Save a phase's output as RUNDIR/logs/SLUG.PHASE-IDX.out. */
void run_save_output(struct run *r, const char *slug, const char *phase,
		     long idx, const char *out);
/* Print the last lines of a guest console log. */
void console_tail(const char *path);
/* The resolved entry for C's (image, kernel, initrd), or NULL. */
struct run_guest_files *run_guest_files_find(const struct run *r,
					     const struct cell *c);
/* The guest files cell C boots (resolved before the run: never NULL). */
const struct guest_files *run_guest_files(const struct run *r,
					  const struct cell *c);

#endif
