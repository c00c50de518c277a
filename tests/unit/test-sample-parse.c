/* SPDX-License-Identifier: MIT */
/*
 * orchestrator/engine/sample-parse.c: a sample's metric from its output.  A
 * metric that is no finite number >= 0 fails the sample with its reason
 * (issue 35), so that a results file never holds an ok sample a report
 * would have to refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sample-parse.h"

static void test_metric_table(void **state)
{
	static const struct {
		const char *output;
		bool ok;
		double value;
		const char *why; /* a part of the reason */
	} rows[] = {
	    {"score: 12.5\n", true, 12.5, NULL},
	    {"score: 0\n", true, 0, NULL},
	    {"score: nan\n", false, 0, "the metric 'nan' that metric_regex"},
	    {"score: NaN\n", false, 0, "the metric 'NaN' that metric_regex"},
	    {"score: inf\n", false, 0, "'inf' that metric_regex"},
	    {"score: -3\n", false, 0, "the metric '-3' that"},
	    {"score: 1e999\n", false, 0, "'1e999' that metric_regex"},
	    {"score: abc\n", false, 0, "did not match the output"},
	    {"nothing\n", false, 0, "did not match the output"},
	};
	struct workload w;
	size_t i;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.metric = (char *)"regex";
	w.metric_regex = (char *)"score: ([^[:space:]]+)";
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char why[512] = "";
		double v = -1;
		bool ok = sample_metric(&w, rows[i].output, 1.0, &v, why,
					sizeof(why));

		if (ok != rows[i].ok)
			fail_msg("'%s': %s, want %s (%s)", rows[i].output,
				 ok ? "ok" : "failed",
				 rows[i].ok ? "ok" : "failed", why);
		if (ok && v != rows[i].value)
			fail_msg("'%s': %g, want %g", rows[i].output, v,
				 rows[i].value);
		if (!ok && !strstr(why, rows[i].why))
			fail_msg("'%s': why '%s', want '%s' in it",
				 rows[i].output, why, rows[i].why);
	}
}

static void test_metric_elapsed(void **state)
{
	struct workload w;
	char why[512] = "";
	double v;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.metric = (char *)"elapsed";
	assert_true(sample_metric(&w, "", 2.5, &v, why, sizeof(why)));
	assert_true(v == 2.5);
	assert_false(sample_metric(&w, "", -0.5, &v, why, sizeof(why)));
	assert_non_null(strstr(why, "elapsed time -0.5 is not a finite"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_metric_table),
	    cmocka_unit_test(test_metric_elapsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
