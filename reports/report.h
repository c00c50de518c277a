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
 * Load the N results.json PATHS and render their comparison in FORMAT to
 * OUT: run A against each later run, cell by cell, or with BY (an axis name,
 * N == 1) one axis of one run against its reference value.  Returns 0,
 * -EINVAL for bad input or incomparable runs (reported), or a negative errno.
 */
int report_compare_write(const char *const *paths, size_t n, const char *by,
			 const char *format, FILE *out);

#endif
