/* SPDX-License-Identifier: MIT */
/*
 * sample-parse.h - what a workload's output says: its metric and its series
 * (the workload's metric, metric_regex and series_regex keys).  Pure code.
 */
#ifndef VMTAX_SAMPLE_PARSE_H
#define VMTAX_SAMPLE_PARSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "workload-def.h"

/*
 * The metric of one sample of W: ELAPSED for metric = elapsed, else the
 * first group of metric_regex in OUTPUT.  False, with WHY, when it cannot
 * be had or is not a finite number >= 0 ("nan", "inf", "-3": the sample
 * is then failed, with WHY, rather than an ok sample a report refuses).
 */
bool sample_metric(const struct workload *w, const char *output,
		   double elapsed, double *value, char *why, size_t len);
/*
 * The series of one sample: {"x": [...], "y": [...]} from every line of
 * OUTPUT that series_regex matches (groups 1 and 2), or NULL when W has no
 * series_regex.  A line whose groups are not numbers is left out.
 */
json_t *sample_series_new(const struct workload *w, const char *output);

#endif
