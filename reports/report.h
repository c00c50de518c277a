/* SPDX-License-Identifier: MIT */
/*
 * report.h - render a run's results.json (docs/results-format.md).
 *
 * The result model is built once (load + statistics), then rendered by one of
 * the formatters in the format registry.  Statistics code never knows which
 * format it feeds.
 *
 * (Entry point used by 'vmtax run' to print the table at the end of a run;
 * the reports module may add more API below.)
 */
#ifndef VMTAX_REPORT_H
#define VMTAX_REPORT_H

#include <stdio.h>

/*
 * Load RESULTS_PATH, compute statistics, render FORMAT ("text", "md",
 * "csv", "json", "html") to OUT.  Returns 0, -EINVAL for bad input (reported
 * with context), or another negative errno.
 */
int report_write(const char *results_path, const char *format, FILE *out);

#endif
