/* SPDX-License-Identifier: MIT */
/*
 * report.h - render a run's results.json (docs/results-format.md).
 *
 * The result model is built once (load + statistics), then rendered by one of
 * the formatters in the format registry.  Statistics code never knows which
 * format it feeds.  The model is in model.h, the statistics in stats.h, the
 * formatters and their registry in format.h, comparisons in compare.h.
 *
 * (Entry point used by 'vmtax run' to print the table at the end of a run;
 * the reports module may add more API below.)
 */
#ifndef VMTAX_REPORT_H
#define VMTAX_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The schema of results.json (docs/results-format.md): 'vmtax run' writes it
 * and checks it when resuming, report_load() accepts only it.
 */
#define RESULTS_SCHEMA "vmtax-results/1"

/*
 * Load RESULTS_PATH, compute statistics, render FORMAT ("text", "md",
 * "csv", "json", "html") to OUT.  Returns 0, -EINVAL for bad input (reported
 * with context), or another negative errno.
 */
int report_write(const char *results_path, const char *format, FILE *out);

/*
 * The reports of a finished run: RUNDIR/report.{txt,md,csv,html} from
 * RESULTS_PATH, then the text report on stdout.  A results file that cannot
 * be rendered (every cell failed) leaves no report files and a warning.
 */
void report_write_rundir(const char *rundir, const char *results_path);

struct compare_opts;
/*
 * Load the N results.json PATHS and render their comparison in FORMAT to
 * OUT: run A against each later run, cell by cell, or as O says
 * (compare.h: one axis of one run, each run's effects, pairs of cells).
 * Returns 0, -EINVAL for bad input or incomparable runs (reported), or a
 * negative errno.
 */
int report_compare_write(const char *const *paths, size_t n,
			 const struct compare_opts *o, const char *format,
			 FILE *out, char **verdict);
/*
 * (report_compare_write()'s VERDICT, when not NULL: compare.h
 * compare_verdict_new() of the comparison rendered, owned, NULL when it
 * found no change; NULL on error.)
 *
 * What failed in the run at RESULTS_PATH ('vmtax report' exits 1 then):
 * its cells of status "failed", and for a fleet run the hosts that failed
 * or had cells fail, as one text into *WHY (owned: "2 of 6 cells failed:
 * 'ID' (REASON), ..."); *WHY NULL when nothing failed.  0, or a negative
 * errno (reported: the file cannot be read).
 */
int report_failures_new(const char *results_path, char **why);

/*
 * report_write() with the matrix laid out by ROWS and COLS (comma-separated
 * axis names, NULL for the default; model.h report_set_matrix).  An
 * unknown axis is -EINVAL, reported with the run's axes.
 */
int report_write_view(const char *results_path, const char *format,
		      const char *rows, const char *cols, FILE *out);

/*
 * A fleet run's results (results.json "fleet", docs/fleet.md): *FLEET
 * says whether RESULTS_PATH is one, and *PATHS (owned, *N of them, free
 * with strv_free()) are its hosts' results that came back, beside it
 * (only "hosts/NAME/results.json" is taken).  0, or -EINVAL (reported)
 * for a host's results elsewhere.  report_write_view() renders a fleet
 * run as its hosts side by side, as report_compare_write() does runs.
 */
int report_fleet_paths(const char *results_path, char ***paths, size_t *n,
		       bool *fleet);
/* A fleet run's hosts as an axis name: 'report --rows host', 'compare
 * --by host' put them side by side. */
#define REPORT_FLEET_AXIS "host"
#define REPORT_FLEET_AXIS_KEY "fleet.hosts" /* its axes[] "key" */
/*
 * The host as an axis (reports/fleet-view.c; docs/fleet.md): what a fleet
 * run of mode each records in its results.json (the host just after
 * where, every host's cells, host by host), and the same matrix made from
 * the hosts' results of a run recorded before it did.  All pure.
 *
 * report_fleet_id_new(): cell ID of host NAME, "/host=NAME" after its
 * where word ("bare-metal/host=a/host-thp=never"), as the ids of
 * docs/axes.md are made.  New reference.
 * report_fleet_cell_set_host(): CELL's id so, and its axes' host = NAME.
 * report_fleet_axes_new(): AXES (results.json "axes") with the host axis
 * (NAMES[0..N), key fleet.hosts, not numeric, applying to all) just
 * after where; a host axis already there is replaced.  New reference.
 * report_fleet_has_axis(): whether DOC is a fleet run of mode each whose
 * axes have the host.
 */
json_t *report_fleet_id_new(const char *id, const char *name);
void report_fleet_cell_set_host(json_t *cell, const char *name);
json_t *report_fleet_axes_new(const json_t *axes, const char *const *names,
			      size_t n);
bool report_fleet_has_axis(const json_t *doc);
/*
 * A fleet run's hosts as one results document, for a run whose
 * results.json has not the host axis: DOCS[0..N) the hosts' results (each
 * a run of the same matrix), NAMES their hosts.  DOCS[0]'s head; its axes
 * with the host (report_fleet_axes_new()); every host's cells, each with
 * its host (report_fleet_cell_set_host()), its samples that host's alone;
 * the baseline DOCS[0]'s, of the first host.  For 'report RUN --rows host
 * --cols AXIS'.  New reference, NULL when the first document has no axes
 * (an old run).
 */
json_t *report_fleet_doc_new(const json_t *const *docs,
			     const char *const *names, size_t n);

#endif
