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
 * Axes (docs/axes.md): the run's top-level "axes" and each cell's "axes"
 * are read into r->axes and cell->axv.  A results file without "axes"
 * (written before axes existed) gets them derived from env: where,
 * paging and backing when their NAME= appears in some cell id, host-thp,
 * guest-thp (r->axes_derived is then true), so old files read as before.
 * Load errors: an axis named twice, an unknown axis name, a value listed
 * twice, a cell value not among its axis's values, a cell missing an axis
 * that applies to it or naming one the run does not have.
 *
 * Labels: every human label (cell heading, matrix row/column, paging words)
 * is computed here once and shared by all formats.  Axes beyond where,
 * paging, host-thp, guest-thp and backing are appended to the cell label
 * (", vcpus 2").
 *
 * KVM evidence (reports/kvm.c, struct report_kvm in each cell): a guest
 * cell's samples' "kvm" objects, summed and averaged over its ok samples;
 * r->has_kvm when some cell has any, and formats print nothing of KVM for
 * a run without (so reports of older runs stay as they were).  A kvm that
 * is neither an object nor null, or an exits_by_reason entry without a
 * reason or a count, is a load error.
 */
#ifndef VMTAX_MODEL_H
#define VMTAX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The CPU vendors (enum virt_vendor), of host/: no I/O. */
#include "cpu-vendor.h"
/* The counters (enum runner_counter, RC_NR, runner_counter_name()). */
#include "profile-diff.h"
#include "runner.h"
/* enum report_interval, struct slowdown_cell: which interval a cell's
 * slowdown gets */
#include "slowdown.h"
#include "vocab.h"
#include "stats-paired.h"
#include "stats-robust.h"
#include "stats.h"

/*
 * The counters a report shows, in slots: slot k < RC_NR is counter k
 * (enum runner_counter: RC_INSTRUCTIONS is a slot too), then the others
 * the run's samples have ([run] events), in the order first seen; a raw
 * PMU event's ("r003c") id is REPORT_COUNTER_RAW and its name is kept in
 * struct report (report_counter_name()).
 */
#define REPORT_COUNTERS_MAX (RC_NR + RUNNER_EVENTS_MAX)
#define REPORT_COUNTER_RAW (-1)

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
	/* by slot (struct report's counter_id[]): absent is not counted */
	double counter[REPORT_COUNTERS_MAX];
	enum counter_state cstate[REPORT_COUNTERS_MAX];
	/* taken on a busy host ("host_quiet": {"quiet": false}), with why */
	bool busy;
	const char *busy_why;
	long boot;    /* the guest it ran in (0 first), -1 when not recorded */
	long round;   /* its interleaved round, -1 when not recorded */
	bool outlier; /* an ok sample flagged by stats_outliers() */
};

struct report_counter_stats {
	enum counter_state state;
	double mean, rel_sd; /* rel_sd = stddev/mean (NaN for n < 2) */
	/*
	 * What perf stat derives (NaN where it cannot): per_sec, the count
	 * per second of the cell's task-clock (perf's "/sec", and cycles'
	 * GHz); cpus, for a clock (task-clock, cpu-clock), its mean over the
	 * mean elapsed time ("CPUs utilized").
	 */
	double per_sec, cpus;
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

/* One axis of the matrix: docs/axes.md, "axes" in results.json. */
struct report_axis {
	const char *name;    /* "where", "host-thp", "vcpus", "host.thp.defrag" */
	const char *key;     /* "matrix.host_thp", "guest.vcpus"; NULL derived */
	const char **values; /* owned array of borrowed strings, nvalues */
	size_t nvalues;
	bool numeric;	 /* every value a number (sizes in bytes) */
	double *numbers; /* owned, nvalues, when numeric; else NULL */
	bool guest_only; /* "applies": "guest" */
};

/*
 * What KVM saw of a guest cell (docs/results-format.md, sample key "kvm";
 * loaded by reports/kvm.c).  Evidence comes from the cell's ok samples
 * whose "kvm" is an object; present is false when there is none, and why
 * then says so (a sample's kvm_why, or why the file has none).  Never
 * zeros for missing evidence: a mean nobody recorded is NaN.
 */
struct report_kvm_reason {
	const char
	    *reason; /* borrowed: "npf", "PF excp", "EXTERNAL_INTERRUPT" */
	long code;
	double total;	   /* summed over the samples with exits_by_reason */
	double per_sample; /* total / nreason_samples */
	double share;	   /* total / the sum of all reasons' totals */
};
struct report_kvm_counter {
	const char *name; /* borrowed: "exits", "pf_fixed", ... */
	double mean;	  /* mean per sample over the samples that have it */
};
struct report_kvm {
	bool present;
	const char *why;    /* borrowed or static; when !present, else NULL */
	size_t nsamples;    /* ok samples with a kvm object */
	const char *vendor; /* "svm", "vmx", or NULL */
	double exits_per_sample; /* mean delta.exits (debugfs); NaN if none */
	double
	    exits_total_mean; /* mean exits_total (tracepoint); NaN if none */
	/* delta counters, in the first sample's key order (owned array) */
	struct report_kvm_counter *delta;
	size_t ndelta;
	/* exits by reason, most first, ties by name (owned array) */
	struct report_kvm_reason *reasons;
	size_t nreasons, nreason_samples;
	const char *reasons_why; /* when nreason_samples == 0 */
	/* mappings at the end of the last ok sample with evidence */
	double pages_4k, pages_2m, pages_1g; /* NaN when absent */
	/* share of guest memory mapped by 2M and 1G pages: NaN if none */
	double share_2m, share_1g;
};

/*
 * A cell's profile (docs/profile.md; reports/profile-report.c): its
 * observed.profile and the folded stacks it names, and the differential
 * profile against the baseline's.  present is false when the cell has
 * none (profile = off, or the profile run failed: why says so); a folded
 * file that cannot be read or parsed is not a load error: why says what.
 */
struct report_profile {
	bool present;
	const char *why;    /* borrowed or owned_why; when !present */
	char *owned_why;    /* owned */
	const char *event;  /* borrowed: "cpu-clock", "cycles" */
	const char *folded; /* borrowed: "profiles/SLUG.folded" */
	json_t *missing;    /* borrowed array of strings */
	double overhead;    /* profiled run vs samples; NaN if unknown */
	struct profile *p;  /* owned */
	bool has_diff;	    /* diff is against the baseline's profile */
	const char *diff_why; /* static; when present && !has_diff */
	struct profile_diff diff;
};

struct report_cell {
	const char *id;
	/*
	 * The cell's value of each axis, r->naxes of them (owned array of
	 * borrowed strings); NULL where the axis does not apply to the cell.
	 */
	const char **axv;
	const char *where, *host_thp, *guest_thp, *paging, *backing;
	const char *status, *reason;
	const char *obs_host_thp, *obs_guest_thp, *guest_kernel;
	/* a split fleet run's cell: the host that ran it (observed.host,
	 * docs/fleet.md; its label ends ", ran on HOST"), or NULL */
	const char *ran_on;
	bool is_baseline;
	bool bare_metal;
	bool mismatch; /* observed THP settings contradict requested ones */
	char *label;   /* owned: "THP never guest, TCG + THP always host" */
	char *column;  /* owned: matrix column, "bare metal", "TCG", ... */
	char *mismatch_text; /* owned, or NULL */
	/*
	 * Samples taken on a busy host (docs/results-format.md, host_quiet):
	 * nbusy of them, and busy_text (owned; NULL when none) saying so
	 * with the first one's reason.  Every format prints busy_text.
	 */
	size_t nbusy;
	char *busy_text;

	struct report_sample *samples;
	size_t nsamples, nok;

	/* Statistics over the ok samples. */
	struct stats_summary metric, elapsed, user, sys;
	struct report_counter_stats counters[REPORT_COUNTERS_MAX]; /* by slot */
	struct report_ratio ipc, dtlb_miss_rate;
	struct stats_delta vs_base; /* valid when it could be computed */
	/*
	 * How vs_base was estimated (reports/paired.c, docs/sampling.md):
	 * REPORT_IV_FIELLER (the means of samples or boot means, measured
	 * apart), REPORT_IV_PAIRED (log ratios of the rounds it shares with
	 * the baseline, boots as the units where it has several) or
	 * REPORT_IV_BRIDGE (through the cell bridge_via, with which it shares
	 * rounds, as the baseline does).  paired holds the estimate for the
	 * last two; hboot_lo/hi the hierarchical bootstrap's interval of the
	 * same delta (NaN where none), printed beside it.
	 */
	enum report_interval iv;
	struct stats_paired paired;
	long bridge_via;
	double hboot_lo, hboot_hi;
	/* paired or bridged: the rounds it shares (a bridge: both pairings)
	 * and, of them, those left out of the pairing for a metric of 0
	 * (docs/sampling.md, "A mean of 0"); 0 for Fieller */
	size_t rounds_shared, rounds_zero;
	/* the cell as slowdown.h sees it (reports/sampling.c) */
	struct slowdown_cell view;
	/* Kalibera-Jones variance components of the metric (boots, samples
	 * within a boot); nboots 0 when no sample records a boot. */
	struct stats_kj kj;
	/*
	 * Sampling (reports/sampling.c, docs/sampling.md): why the cell
	 * stopped ("target", "max_repeat", "repeat", ...; NULL in files
	 * without), whether its interval's units are boot means
	 * ("sample_unit": "boot") and their summary (vs_base is computed
	 * from it), its outliers and trend over the ok samples in order, and
	 * the metric's variance within and between boots (ngroups 0 when no
	 * sample records a boot).
	 */
	const char *stop_reason;
	bool unit_boot;
	struct stats_summary units;
	size_t noutliers;
	struct stats_trend trend;
	struct stats_groups boots;
	struct report_series series;
	struct report_kvm kvm;
	struct report_profile prof;
};

/*
 * The compact matrix.  Rows are the combinations of the row axes (default
 * guest-thp, host-thp) and of every other axis with more than one value
 * that is not a column axis (folded into the row label, after the row
 * axes); columns are the combinations of the column axes, or by default
 * the cell's column label (where, paging and backing: "bare metal", "EPT
 * on", "TCG, hugetlb-2M").  Rows nest in axis order (the order of the
 * ids), so host-thp is outside guest-thp.  A cell that lacks an axis (a
 * bare-metal cell has no guest-thp) fills every row or column of that
 * axis; a row or column whose value of an axis is none ("") exists only
 * where no cell has a value there.
 */
struct report_matrix {
	size_t nrow_axes;
	size_t *row_axes; /* owned: indexes into r->axes, display order */
	bool default_cols; /* columns are cell->column */
	size_t ncol_axes;
	size_t *col_axes; /* owned: indexes into r->axes (!default_cols) */
	size_t nrows, ncols;
	/* Borrowed values, "" for none: row_val[row * nrow_axes + k]. */
	const char **row_val;
	char **cols; /* owned heading per column, ncols */
	/* Cell index per slot, -1 if empty: slot[row * ncols + col]. */
	long *slot;
};

/*
 * The geometric mean of (1 + slowdown), minus 1, of the cells of one
 * column label (cell->column: "bare metal", "EPT on", ...) that have a
 * slowdown, the baseline not among them: bare metal and each paging mode
 * apart, each cell once whatever rows it fills in the matrix.
 */
struct report_colgeo {
	const char *column; /* borrowed: the cells' column label */
	double geomean;	    /* minus 1; NaN when n == 0 */
	size_t n;	    /* the cells averaged */
	size_t ncells;	    /* the cells of the label, baseline included */
};

/* A row header of the matrix: "guest THP", "host THP", else the name. */
const char *report_axis_heading(const struct report_axis *a);

/*
 * A numeric axis with more than one value: the slowdown of each cell that
 * has the axis, against the axis's value, one line per combination of the
 * other axes' values (those with more than one value).
 */
struct report_scaling_point {
	double x;	   /* the axis's number */
	const char *value; /* the axis's value as written */
	long cell;	   /* index into r->cells */
};
struct report_scaling_line {
	char *label; /* owned: "host-thp=always, guest-thp=never", or "all" */
	struct report_scaling_point *points; /* owned, by x ascending */
	size_t npoints;
};
struct report_scaling {
	size_t axis; /* index into r->axes */
	struct report_scaling_line *lines;
	size_t nlines;
};

struct report {
	char *path; /* owned */
	/* The counters shown: slot k is runner counter counter_id[k] */
	size_t ncounters;
	int counter_id[REPORT_COUNTERS_MAX];
	/* a raw PMU event's name as written, where counter_id[k] is
	 * REPORT_COUNTER_RAW */
	char counter_raw[REPORT_COUNTERS_MAX][RUNNER_RAW_NAME_MAX];
	json_t *doc;
	bool fleet_view; /* its hosts as an axis (report_load(), _doc()) */
	const char *run_name, *run_status, *started, *finished, *config_path,
	    *config_text;
	const char *hostname, *kernel, *cpu_model, *accel, *accel_reason;
	/* results' "lab" (vmtax lab run: the cells ran inside a lab host on
	 * emulated hardware), borrowed; NULL for any other run */
	json_t *lab;
	/* results' run.remote_libvirt (guest cells on a remote libvirt, a
	 * qemu+ssh [guest] uri), borrowed; NULL for any other run */
	json_t *remote_libvirt;
	/* results' fleet.unlike (a split fleet run on unlike hosts, [fleet]
	 * allow_unlike: docs/fleet.md), borrowed; NULL for any other run */
	json_t *fleet_unlike;
	/*
	 * What the host was (run.host.virtualized, host/identity.h), computed
	 * once for every format.  host_word names the host's own cells'
	 * column: "bare metal" on a physical host, and in a file that does
	 * not record it (older runs) or a lab run (whose lab line says
	 * emulated); "host (a PVM guest)" (or "host (a virtual machine)")
	 * on a virtual one, "host (physical or virtual: unknown)" when the
	 * run could not tell.  host_note (NULL unless virtual or unknown)
	 * says why and what that means for host knobs.  host_recorded: the
	 * file records it (csv then has a "host" row).  All owned.
	 */
	char *host_word, *host_note;
	bool host_recorded;
	/*
	 * A metric that measures nothing: every ok sample of every cell has
	 * the same value while the cells' mean elapsed times differ by more
	 * than REPORT_CONSTANT_ELAPSED (a constant count captured as the
	 * metric).  Owned; NULL otherwise.  Every format prints it.
	 */
	char *metric_warning;
	long cpus;	  /* -1: not known (a reference transcribed from a seed) */
	double mem_bytes; /* NAN: not known */
	const char *v_vmtax, *v_libvirt, *v_qemu;
	const char *wl_name, *wl_description, *wl_metric, *wl_unit, *wl_better;
	json_t *wl_params; /* borrowed object */
	bool higher_better;
	bool metric_is_elapsed;
	/* run.host's CPU vendor (cpu_vendor, else a word of cpu_model):
	 * shadow paging reads its label ("NPT off", "EPT off") */
	enum virt_vendor vendor;
	const char *baseline_id;
	long baseline; /* cell index */
	/* the file's baseline when report_set_baseline() changed it, or NULL */
	const char *file_baseline_id;

	struct report_cell *cells;
	size_t ncells;
	bool has_series; /* some cell has a series */
	bool has_kvm;	 /* some cell has KVM evidence (cell->kvm.present) */
	bool has_profile; /* some cell has observed.profile */
	/* what its profiles and comparisons hold (PROFILE_REPORT_MEM_MAX),
	 * and whether a profile did not fit (no later one is read) */
	size_t prof_mem;
	bool prof_full;

	/* Geometric mean of (1 + slowdown) over non-baseline cells. */
	double geomean_slowdown; /* minus 1, NaN when ngeo == 0 */
	/* The same per column label (bare metal, each paging word), owned,
	 * in the order the labels first appear among the cells. */
	struct report_colgeo *colgeo;
	size_t ncolgeo;
	/* results' "schedule" (interleaved rounds), borrowed; NULL for a run
	 * in cells order or older files */
	json_t *schedule;
	unsigned long long seed; /* the bootstrap's: the schedule's, or 1 */
	size_t ngeo;

	struct report_axis *axes; /* owned, naxes, in id order, where first */
	size_t naxes;
	bool axes_derived; /* the file has no "axes": derived from env */

	struct report_matrix matrix;
	struct report_scaling *scaling; /* owned, one per numeric axis */
	size_t nscaling;
	struct report_contrast *contrasts; /* owned: THP contrasts */
	size_t ncontrasts;
	/* static, or NULL: why a contrast may not show on an emulated host
	 * (a lab or TCG run with a contrast that is not never slower) */
	const char *contrast_note;
};

/*
 * A THP contrast (reports/thp-contrast.c, docs/reading-reports.md): two
 * cells that differ in one THP axis only (host-thp or guest-thp), never
 * against always.  d is never's delta against always (paired over the
 * rounds they share, else Fieller); the verdict says whether never is a
 * resolved slowdown, a resolved speed-up, or neither; text (owned) is the
 * line every format prints, with the page faults, KVM exits and 2M
 * mappings beside any verdict but the first.
 */
enum report_contrast_verdict { RCV_SLOWER, RCV_INVERTED, RCV_HIDDEN };
struct report_contrast {
	const char *axis;   /* static: "host-thp", "guest-thp" */
	long never, always; /* cell indexes */
	char *context;	    /* owned: the other axes' values */
	struct stats_delta d;
	const char *method; /* static: "paired rounds", "Fieller" */
	size_t units;
	enum report_contrast_verdict verdict;
	char *text; /* owned */
};
const char *report_contrast_verdict_name(enum report_contrast_verdict v);
void report_build_contrasts(struct report *r);
void report_contrasts_free(struct report *r);

/* The elapsed spread (slowest / fastest - 1) that makes metric_warning. */
#define REPORT_CONSTANT_ELAPSED 0.01

/* Load and validate PATH (results.json) and compute all statistics; the
 * axis REPORT_FLEET_AXIS is known in a fleet run that records it
 * (report_fleet_has_axis()).  PATH and its profiles are read as beneath.h
 * reads a run directory (read_path_file(), read_file_beneath()): a link
 * someone else made is not followed, nothing but a regular file is read
 * (-EINVAL, reported). */
int report_load(const char *path, struct report **out);
/*
 * The same of DOC (a reference taken), PATH naming it in messages; with
 * FLEET_VIEW, the axis REPORT_FLEET_AXIS is known (a fleet run's hosts as
 * one matrix, report_fleet_doc_new()).
 */
int report_load_doc(const char *path, json_t *doc, bool fleet_view,
		    struct report **out);
void report_free(struct report *r);

/*
 * RUNDIR or results.json -> the results.json path (owned).  A directory gets
 * "/results.json" appended: one dir_open_path() opens, so following only
 * links the user or root owns (beneath.h); report_load() says why not.
 */
char *report_results_path_new(const char *arg);

/*
 * Rebuild the matrix with ROWS and COLS, comma-separated axis names (NULL
 * for the defaults: rows guest-thp,host-thp, columns where/paging/backing).
 * An unknown axis, one named twice or in both is -EINVAL, reported with
 * the run's axes.  report_load() builds the default matrix.
 */
int report_set_matrix(struct report *r, const char *rows, const char *cols);

/* perf's name of the counter in slot K ("dTLB-loads", "r003c"). */
const char *report_counter_name(const struct report *r, size_t k);

/* Index of the axis NAME in r->axes, or -1. */
long report_find_axis(const struct report *r, const char *name);
/*
 * Same, also taking the names 'vmtax compare --by' knew before axes were
 * named (host_thp, guest_thp).
 */
long report_lookup_axis(const struct report *r, const char *name);
/* The run's axis names joined by SEP (owned). */
char *report_axis_names_new(const struct report *r, const char *sep);

/* The index of cell C's value of AXIS among the axis's values, or -1. */
long report_axis_value_index(const struct report *r, size_t axis,
			     const struct report_cell *c);

/*
 * Inside the model only (model.c, axes.c, matrix.c): read the top-level
 * axes (before the cells), one cell's axes, derive them for a file
 * without, build the scaling lines, free.
 */
int report_load_axes(struct report *r, json_t *cells);
int report_cell_axes(struct report *r, struct report_cell *c, json_t *jc);
void report_derive_axes(struct report *r);
void report_build_scaling(struct report *r);
void report_axes_free(struct report *r);
void report_matrix_release(struct report_matrix *m);
void report_scaling_free(struct report *r);
/* cells[I] of results.json (JC) into r->cells[I] (model-cell.c).  0 or
 * -EINVAL, reported. */
int report_load_cell(struct report *r, json_t *jc, size_t i);
/* Cell C's KVM evidence from its samples (JSON array SAMPLES). */
int report_cell_kvm(const struct report *r, struct report_cell *c,
		    json_t *samples);
void report_kvm_release(struct report_kvm *k);
/*
 * Each cell's slowdown against the baseline (reports/paired.c): paired
 * over shared rounds, else through a bridge cell, else Fieller over the
 * units; the bootstrap beside it.  Sets vs_base, iv, paired, hboot_*.
 */
void report_cell_slowdown(const struct report *r, struct report_cell *c);
/*
 * A against B over the rounds they share (log(A/B), the units the coarser
 * side's boots: stats_paired_units()):
 * false when they share none.  LO/HI (may be NULL) get the hierarchical
 * bootstrap's interval of the delta.
 */
bool report_pair(const struct report *r, const struct report_cell *a,
		 const struct report_cell *b, struct stats_paired *p,
		 double *lo, double *hi);
/* "Fieller", "paired rounds", "paired via CELL": what formats print. */
const char *report_interval_name(const struct report_cell *c);
/* Cell C's units, outliers, trend and boot variance (reports/sampling.c). */
void report_cell_sampling(struct report_cell *c);
/* Cell C's profile from its observed object OBS (never fails). */
void report_cell_profile(struct report *r, struct report_cell *c,
			 json_t *obs);
/* Each profiled cell's differential profile against the baseline. */
void report_profiles_diff(struct report *r);
void report_profile_release(struct report_profile *p);
/* The top N entries of the differential profiles that formats show. */
#define REPORT_PROFILE_TOP 10

/* KVM evidence K's mean per sample of delta counter NAME, or NaN. */
double report_kvm_delta(const struct report_kvm *k, const char *name);

/* Index of the cell with ID, or -1. */
long report_find_cell(const struct report *r, const char *id);
/* The run's cell ids joined by SEP (owned). */
char *report_cell_ids_new(const struct report *r, const char *sep);
/*
 * Take cell ID as the baseline: the cells' slowdowns (vs_base,
 * is_baseline) and their geometric mean are computed again, by the same
 * code, against it; r->file_baseline_id keeps the file's.  For
 * comparisons ('vmtax compare --effect --baseline'): the matrix, scaling
 * lines and profile diffs are not rebuilt.  An ID that is not a cell is
 * -EINVAL, reported with the run's cell ids.
 */
int report_set_baseline(struct report *r, const char *id);

/* "always" -> "THP always"; paging word as in the seed ("EPT on", "TCG"). */
const char *report_paging_word(const struct report *r, const char *paging);

#endif
