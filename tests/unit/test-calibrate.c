/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the A/A check (reports/calibrate.c) and for the paired
 * slowdowns of interleaved runs (reports/paired.c): a recorded A/A run
 * (tests/fixtures/results-aa.json: configs/calib-small.ini under
 * 'vmtax calibrate' on the development host) is split into its two
 * replicas, each loads as an ordinary run, and the verdict counts what it
 * should; the binomial allowance; a run that is not A/A is refused; the
 * recorded interleaved run (results-interleaved.json) pairs the cells that
 * share rounds with the baseline and bridges the others.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "calibrate.h"
#include "model.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

/* DOC written to a temporary file and loaded. */
static struct report *load_doc(json_t *doc)
{
	char path[] = "/tmp/vmtax-test-calibrate.XXXXXX";
	struct report *r = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	assert_int_equal(report_load(path, &r), 0);
	unlink(path);
	return r;
}

static void test_split_and_judge(void **state)
{
	json_error_t e;
	json_t *doc = json_load_file(FIXTURES "/results-aa.json", 0, &e);
	json_t *a, *b;
	struct report *aa = NULL, *ra, *rb;
	struct calib c;
	char why[256];
	size_t i;

	(void)state;
	assert_non_null(doc);
	a = calibrate_split(doc, "a", why, sizeof(why));
	b = calibrate_split(doc, "b", why, sizeof(why));
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(json_array_size(json_object_get(a, "cells")), 2);
	assert_string_equal(json_string_value(json_object_get(a, "baseline")),
			    "bare-metal/host-thp=always");
	for (i = 0; i < json_array_size(json_object_get(a, "axes")); i++)
		assert_string_not_equal(
			json_string_value(json_object_get(
				json_array_get(json_object_get(a, "axes"), i),
				"name")),
			"replica");
	ra = load_doc(a);
	rb = load_doc(b);
	assert_int_equal(report_load(FIXTURES "/results-aa.json", &aa), 0);
	assert_int_equal(calibrate_judge(aa, ra, rb, &c), 0);
	assert_int_equal(c.nrows, 2);
	assert_true(c.rows[0].baseline);
	assert_false(c.rows[1].baseline);
	/* Both cells share every round with their twin. */
	assert_true(c.rows[0].ab.d.valid);
	assert_true(c.rows[1].ab.d.valid);
	assert_int_equal(c.rows[0].ab.nrounds, 4);
	assert_int_equal(c.rows[1].ab.unit, STATS_UNIT_BOOT);
	assert_int_equal(c.nratio, 2);
	assert_int_equal(c.allowed_misses, 1);
	assert_true(c.nratio_hold <= c.nratio);
	assert_int_equal(c.consistent,
			 c.nratio - c.nratio_hold <= c.allowed_misses);
	/* The printed verdict and the JSON say the same. */
	json_t *j = calibrate_json(&c);
	assert_int_equal(json_is_true(json_object_get(j, "consistent")),
			 c.consistent);
	json_decref(j);
	calibrate_release(&c);
	report_free(aa);
	report_free(ra);
	report_free(rb);
	json_decref(a);
	json_decref(b);
	json_decref(doc);
}

/*
 * No cell with a bounded A/B interval (one round each: one unit): the
 * verdict is "cannot judge", said so, "consistent" null in the JSON, and
 * exit 0, as vmtax compare has it (it said "no verdict" and exited 1).
 */
static void test_cannot_judge(void **state)
{
	json_error_t e;
	json_t *doc = json_load_file(FIXTURES "/results-aa.json", 0, &e);
	json_t *a, *b, *cell, *j;
	struct report *aa, *ra, *rb;
	struct calib c;
	char why[256], *text = NULL;
	size_t i, len = 0;
	FILE *f;

	(void)state;
	assert_non_null(doc);
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		json_t *s = json_object_get(cell, "samples");

		while (json_array_size(s) > 1)
			json_array_remove(s, json_array_size(s) - 1);
	}
	a = calibrate_split(doc, "a", why, sizeof(why));
	b = calibrate_split(doc, "b", why, sizeof(why));
	assert_non_null(a);
	assert_non_null(b);
	aa = load_doc(doc);
	ra = load_doc(a);
	rb = load_doc(b);
	assert_int_equal(calibrate_judge(aa, ra, rb, &c), 0);
	assert_int_equal(c.nratio, 0);
	assert_false(c.judged);
	assert_int_equal(calibrate_exit_status(&c), 0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	calibrate_print(&c, f);
	fclose(f);
	assert_non_null(strstr(text, "verdict: cannot judge whether consistent "
				     "with a re-run: no cell has a bounded "
				     "A/B interval\n"));
	assert_null(strstr(text, "NOT consistent"));
	j = calibrate_json(&c);
	assert_true(json_is_null(json_object_get(j, "consistent")));
	json_decref(j);
	/* Judged and not consistent: 1; judged and consistent: 0. */
	c.judged = true;
	c.consistent = false;
	assert_int_equal(calibrate_exit_status(&c), 1);
	c.consistent = true;
	assert_int_equal(calibrate_exit_status(&c), 0);
	free(text);
	calibrate_release(&c);
	report_free(aa);
	report_free(ra);
	report_free(rb);
	json_decref(a);
	json_decref(b);
	json_decref(doc);
}

static void test_not_aa(void **state)
{
	json_error_t e;
	json_t *doc = json_load_file(FIXTURES "/results-demo.json", 0, &e);
	char why[256] = "";

	(void)state;
	assert_non_null(doc);
	assert_null(calibrate_split(doc, "a", why, sizeof(why)));
	assert_non_null(strstr(why, "not an A/A run"));
	json_decref(doc);
}

static void test_allowance(void **state)
{
	/* The 95th percentile of binomial(n, 0.05), by hand. */
	static const struct {
		size_t n, k;
	} t[] = {{0, 0}, {1, 0}, {2, 1}, {6, 1}, {20, 3}, {100, 9}};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(calibrate_allowed_misses(t[i].n), t[i].k);
}

static void test_paired_and_bridged(void **state)
{
	struct report *r = NULL;
	long k;

	(void)state;
	assert_int_equal(report_load(FIXTURES "/results-interleaved.json", &r),
			 0);
	k = report_find_cell(r, "guest/host-thp=always/guest-thp=never");
	assert_true(k >= 0);
	assert_int_equal(r->cells[k].iv, REPORT_IV_PAIRED);
	assert_int_equal(r->cells[k].paired.unit, STATS_UNIT_BOOT);
	assert_int_equal(r->cells[k].paired.nunits, 2);
	assert_false(isnan(r->cells[k].hboot_lo));
	k = report_find_cell(r, "guest/host-thp=never/guest-thp=never");
	assert_true(k >= 0);
	assert_int_equal(r->cells[k].iv, REPORT_IV_BRIDGE);
	assert_int_equal(r->cells[k].bridge_via,
			 report_find_cell(r, "bare-metal/host-thp=never"));
	k = report_find_cell(r, "bare-metal/host-thp=never");
	assert_int_equal(r->cells[k].iv, REPORT_IV_PAIRED);
	assert_int_equal(r->cells[k].paired.unit, STATS_UNIT_ROUND);
	assert_int_equal(r->cells[k].paired.nrounds, 2);
	assert_string_equal(report_interval_name(&r->cells[k]),
			    "paired rounds");
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_and_judge),
		cmocka_unit_test(test_cannot_judge),
		cmocka_unit_test(test_not_aa),
		cmocka_unit_test(test_allowance),
		cmocka_unit_test(test_paired_and_bridged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
