/* SPDX-License-Identifier: MIT */
/*
 * model.h - the report model: a results.json loaded, validated and run
 * through the statistics once, then handed read-only to a formatter.
 *
 * Ownership: struct report owns everything below it.  Strings are borrowed
 * from the parsed JSON document (r->doc), which lives as long as the report,
 * or are owned char * fields noted as such.  report_free(NULL) is a no-op.
 *
 * Validation (report_load): unknown schema, corrupt JSON, a run with no
 * measured cell ("empty run"), a baseline that is missing or not a cell id,
 * and a run whose cells all failed are errors reported with the file path;
 * report_load() returns -EINVAL for them.
 *
 * Labels: every human label (cell heading, matrix row/column, paging words)
 * is computed here once and shared by all formats.
 */
#ifndef VMTAX_MODEL_H
#define VMTAX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The counters (enum runner_counter, RC_NR, runner_counter_name()). */
#include "runner.h"
#include "stats.h"

enum counter_state {
	CS_OK,		  /* a value in every ok sample */
	CS_NOT_SUPPORTED, /* null in some ok sample */
	CS_NOT_COUNTED,	  /* absent from some ok sample */
};

struct report_sample {
	long index;
	const char *status, *reason;
	long exit_status;
	double elapsed, user, sys, metric; /* NaN when null/absent */
	double counter[RC_NR];
	enum counter_state cstate[RC_NR];
};

struct report_counter_stats {
	enum counter_state state;
	double mean, rel_sd; /* rel_sd = stddev/mean (NaN for n < 2) */
};

/* A derived ratio (IPC, dTLB miss rate): valid only when both inputs are. */
struct report_ratio {
	bool valid;
	double value;
};

/*
 * A series-valued metric (samples' "series": x and y arrays): for each x of
 * the first ok sample that has a series, the mean y over the ok samples
 * whose series has that x.  npoints == 0 when no ok sample has a series.
 */
struct report_series {
	size_t npoints;
	double *x, *y; /* owned, npoints each */
};

struct report_cell {
	const char *id;
	const char *where, *host_thp, *guest_thp, *paging, *backing;
	const char *status, *reason;
	const char *obs_host_thp, *obs_guest_thp, *guest_kernel;
	bool is_baseline;
	bool bare_metal;
	bool mismatch; /* observed THP settings contradict requested ones */
	char *label;   /* owned: "THP never guest, TCG + THP always host" */
	char *column;  /* owned: matrix column, "bare metal", "TCG", ... */
	char *mismatch_text; /* owned, or NULL */

	struct report_sample *samples;
	size_t nsamples, nok;

	/* Statistics over the ok samples. */
	struct stats_summary metric, elapsed, user, sys;
	struct report_counter_stats counters[RC_NR];
	struct report_ratio ipc, dtlb_miss_rate;
	struct stats_delta vs_base; /* valid when it could be computed */
	struct report_series series;
};

/* The compact matrix: rows guest-THP x host-THP, columns where/paging. */
struct report_matrix {
	size_t nrows, ncols;
	const char **row_host_thp;  /* borrowed, nrows */
	const char **row_guest_thp; /* borrowed, nrows ("" for none) */
	const char **cols;	    /* borrowed cell->column, ncols */
	/*
	 * Cell index per slot, -1 if empty: slot[row * ncols + col].  Rows
	 * are host-major; a bare-metal cell fills every row of its host THP.
	 */
	long *slot;
};

struct report {
	char *path; /* owned */
	json_t *doc;
	const char *run_name, *run_status, *started, *finished, *config_path,
	    *config_text;
	const char *hostname, *kernel, *cpu_model, *accel, *accel_reason;
	long cpus;
	double mem_bytes;
	const char *v_vmtax, *v_libvirt, *v_qemu;
	const char *wl_name, *wl_description, *wl_metric, *wl_unit, *wl_better;
	json_t *wl_params; /* borrowed object */
	bool higher_better;
	bool metric_is_elapsed;
	bool amd; /* shadow paging reads "NPT off" rather than "EPT off" */
	const char *baseline_id;
	long baseline; /* cell index */

	struct report_cell *cells;
	size_t ncells;
	bool has_series; /* some cell has a series */

	/* Geometric mean of (1 + slowdown) over non-baseline cells. */
	double geomean_slowdown; /* minus 1, NaN when ngeo == 0 */
	size_t ngeo;

	struct report_matrix matrix;
};

/* Load and validate PATH (results.json) and compute all statistics. */
int report_load(const char *path, struct report **out);
void report_free(struct report *r);

/*
 * RUNDIR or results.json -> the results.json path (owned).  A directory gets
 * "/results.json" appended.
 */
char *report_results_path_new(const char *arg);

/* Index of the cell with ID, or -1. */
long report_find_cell(const struct report *r, const char *id);

/* "always" -> "THP always"; paging word as in the seed ("EPT on", "TCG"). */
const char *report_paging_word(const struct report *r, const char *paging);

#endif
