/* SPDX-License-Identifier: MIT */
#include "sample-parse.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

bool sample_metric(const struct workload *w, const char *output,
		   double elapsed, double *value, char *why, size_t len)
{
	regmatch_t m[2];
	regex_t re;
	bool ok = false;

	if (!strcmp(w->metric, "elapsed")) {
		*value = elapsed;
		if (isfinite(elapsed) && elapsed >= 0)
			return true;
		snprintf(why, len,
			 "the elapsed time %g is not a finite number >= 0",
			 elapsed);
		return false;
	}
	if (regcomp(&re, w->metric_regex, REG_EXTENDED | REG_NEWLINE)) {
		snprintf(why, len, "metric_regex '%s' does not compile",
			 w->metric_regex);
		return false;
	}
	if (output && regexec(&re, output, 2, m, 0) == 0 && m[1].rm_so >= 0) {
		char *v = xstrndup(output + m[1].rm_so, m[1].rm_eo - m[1].rm_so);
		char *end;

		*value = strtod(v, &end);
		ok = end != v;
		/* A report takes an ok sample's metric as a finite number
		 * >= 0 (model-cell.c): anything else fails the sample. */
		if (ok && !(isfinite(*value) && *value >= 0)) {
			snprintf(why, len,
				 "the metric '%.32s' that metric_regex '%s' "
				 "found is not a finite number >= 0",
				 v, w->metric_regex);
			free(v);
			regfree(&re);
			return false;
		}
		free(v);
	}
	regfree(&re);
	if (!ok)
		snprintf(why, len, "metric_regex '%s' did not match the output",
			 w->metric_regex);
	return ok;
}

json_t *sample_series_new(const struct workload *w, const char *output)
{
	const char *p = output;
	json_t *xs, *ys;
	regmatch_t m[3];
	regex_t re;

	if (!*w->series_regex ||
	    regcomp(&re, w->series_regex, REG_EXTENDED | REG_NEWLINE))
		return NULL;
	xs = json_array();
	ys = json_array();
	/* P is always at the start of a line: one point per line at most. */
	while (p && *p && regexec(&re, p, 3, m, 0) == 0) {
		char *x, *y, *xe, *ye;
		double xv, yv;

		if (m[1].rm_so >= 0 && m[2].rm_so >= 0) {
			x = xstrndup(p + m[1].rm_so, m[1].rm_eo - m[1].rm_so);
			y = xstrndup(p + m[2].rm_so, m[2].rm_eo - m[2].rm_so);
			xv = strtod(x, &xe);
			yv = strtod(y, &ye);
			if (xe != x && !*xe && ye != y && !*ye) {
				json_array_append_new(xs, json_real(xv));
				json_array_append_new(ys, json_real(yv));
			}
			free(x);
			free(y);
		}
		p += m[0].rm_eo;
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	regfree(&re);
	return json_pack("{s:o, s:o}", "x", xs, "y", ys);
}
