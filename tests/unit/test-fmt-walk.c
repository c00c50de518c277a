/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the view of a report's tables (reports/fmt-walk.c): a
 * table's cells and their flags, and the tables walked from
 * tests/fixtures/results-vcpus.json (twelve guest cells and a bare-metal
 * one over three vCPU counts, one cell failed), the same strings every
 * format writes (tests/golden/vcpus.*).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt-walk.h"
#include "format.h"
#include "model.h"

#define VCPUS "tests/fixtures/results-vcpus.json"
#define FAILED "guest/host-thp=never/guest-thp=never/vcpus=4"

static void test_table(void **state)
{
	struct fmt_table *t = fmt_table_new(2);
	const struct fmt_cell *c;

	(void)state;
	fmt_table_col(t, 0, "name", false);
	fmt_table_col(t, 1, NULL, true);
	assert_int_equal(t->ncols, 2);
	assert_int_equal(t->nrows, 0);
	assert_string_equal(t->head[0], "name");
	assert_null(t->head[1]);
	assert_false(t->right[0]);
	assert_true(t->right[1]);
	assert_int_equal(fmt_table_row(t, "id/a"), 0);
	assert_int_equal(fmt_table_row(t, NULL), 1);
	assert_string_equal(t->row_id[0], "id/a");
	assert_null(t->row_id[1]);
	/* a new row's cells are "", without note or flags */
	c = fmt_table_cell(t, 1, 1);
	assert_string_equal(c->text, "");
	assert_null(c->note);
	assert_int_equal(c->flags, 0);
	fmt_table_set(t, 0, 1, FMT_CELL_RAW, "%.2f%%", 12.5);
	fmt_table_set(t, 0, 1, FMT_CELL_RAW | FMT_CELL_NA, "%s",
		      "<not supported>");
	fmt_table_note(t, 0, 1, "why");
	c = fmt_table_cell(t, 0, 1);
	assert_string_equal(c->text, "<not supported>");
	assert_string_equal(c->note, "why");
	assert_int_equal(c->flags, FMT_CELL_RAW | FMT_CELL_NA);
	fmt_table_note(t, 0, 1, NULL);
	assert_null(fmt_table_cell(t, 0, 1)->note);
	fmt_table_free(t);
	fmt_table_free(NULL);
}

static int setup(void **state)
{
	struct report *r = NULL;

	if (report_load(VCPUS, &r) < 0)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	report_free(*state);
	return 0;
}

/* The matrix: row axes left, columns right, a blank under a cell shown. */
static void test_matrix(void **state)
{
	const struct report *r = *state;
	struct fmt_table *t = fmt_walk_matrix_new(r);
	static const char *const heads[] = {"guest THP", "host THP", "vcpus",
					    "bare metal", "EPT on"};
	size_t i;

	assert_int_equal(t->ncols, 5);
	assert_int_equal(t->nrows, 12);
	for (i = 0; i < 5; i++) {
		assert_string_equal(t->head[i], heads[i]);
		assert_int_equal(t->right[i], i >= 3);
	}
	assert_string_equal(fmt_table_cell(t, 0, 3)->text, "baseline");
	assert_string_equal(fmt_table_cell(t, 0, 4)->text,
			    "273.04%* [267.61, 278.62]");
	assert_string_equal(fmt_table_cell(t, 1, 3)->text, "");
	assert_string_equal(fmt_table_cell(t, 6, 3)->text,
			    "2.29%* [0.46, 4.17]");
	assert_string_equal(fmt_table_cell(t, 11, 0)->text, "never");
	assert_string_equal(fmt_table_cell(t, 11, 2)->text, "4");
	assert_string_equal(fmt_table_cell(t, 11, 4)->text, "failed");
	fmt_table_free(t);
}

static void test_scaling(void **state)
{
	const struct report *r = *state;
	struct fmt_table *t;

	assert_int_equal(r->nscaling, 1);
	t = fmt_walk_scaling_new(r, &r->scaling[0]);
	assert_int_equal(t->ncols, 4);
	assert_int_equal(t->nrows, 4);
	assert_string_equal(t->head[0], "line");
	assert_string_equal(t->head[3], "vcpus=4");
	assert_string_equal(fmt_table_cell(t, 3, 0)->text,
			    "host-thp=never, guest-thp=never");
	assert_string_equal(fmt_table_cell(t, 0, 1)->text,
			    "+273.04% [+267.61%, +278.62%]*");
	assert_string_equal(fmt_table_cell(t, 3, 3)->text, "failed");
	fmt_table_free(t);
}

/* A row per cell with its id; the failed one spans with its reason. */
static void test_cells(void **state)
{
	const struct report *r = *state;
	struct fmt_table *t = fmt_walk_cells_new(r);
	const struct fmt_cell *c;
	size_t i, failed = r->ncells;

	assert_int_equal(t->ncols, 12);
	assert_int_equal(t->nrows, r->ncells);
	assert_string_equal(t->head[2], "elapsed (s)");
	assert_string_equal(t->head[3], "±");
	assert_null(t->head[11]);
	for (i = 0; i < t->nrows; i++) {
		assert_string_equal(t->row_id[i], r->cells[i].id);
		if (!strcmp(t->row_id[i], FAILED))
			failed = i;
	}
	assert_true(failed < r->ncells);
	c = fmt_table_cell(t, failed, 2);
	assert_string_equal(c->text, "failed");
	assert_int_equal(c->flags, FMT_CELL_SKIP);
	assert_string_equal(c->note, fmt_reason(&r->cells[failed]));
	assert_string_equal(fmt_table_cell(t, failed, 3)->text, "");
	/* the baseline, and a cell against it: numbers of vmtax's own */
	assert_string_equal(fmt_table_cell(t, r->baseline, 8)->text,
			    "baseline");
	for (i = 0; i < t->nrows; i++)
		if (!strcmp(t->row_id[i],
			    "guest/host-thp=always/guest-thp=always/vcpus=1"))
			break;
	assert_true(i < t->nrows);
	c = fmt_table_cell(t, i, 10);
	assert_string_equal(c->text, "<0.0001");
	assert_int_equal(c->flags, FMT_CELL_RAW);
	assert_string_equal(fmt_table_cell(t, i, 8)->text, "+273.04%");
	assert_string_equal(fmt_table_cell(t, i, 11)->text, "*");
	assert_int_equal(fmt_table_cell(t, i, 0)->flags, 0);
	fmt_table_free(t);
}

/* Counters: spread in the text, perf's figure as note, NA never 0. */
static void test_counters(void **state)
{
	const struct report *r = *state;
	struct fmt_table *t = fmt_walk_counters_new(r);
	const struct fmt_cell *c;
	size_t k, ok = 0;

	for (k = 0; k < r->ncells; k++)
		ok += r->cells[k].nok > 0;
	assert_int_equal(t->nrows, ok);
	assert_int_equal(t->ncols, r->ncounters + 3);
	assert_string_equal(t->head[1], "task-clock");
	assert_string_equal(t->head[r->ncounters + 1], "IPC");
	c = fmt_table_cell(t, 0, 1);
	assert_non_null(strstr(c->text, " msec (±"));
	assert_non_null(c->note);
	assert_non_null(strstr(c->note, "CPUs utilized"));
	assert_int_equal(c->flags, 0);
	/* a guest's cycles: a counter the guest's PMU lacks */
	for (k = 0; k < r->ncounters; k++)
		if (!strcmp(t->head[k + 1], "cycles"))
			break;
	assert_true(k < r->ncounters);
	c = fmt_table_cell(t, t->nrows - 1, k + 1);
	assert_string_equal(c->text, "<not supported>");
	assert_int_equal(c->flags, FMT_CELL_NA);
	c = fmt_table_cell(t, t->nrows - 1, r->ncounters + 1);
	assert_string_equal(c->text, "<not supported>");
	assert_int_equal(c->flags, FMT_CELL_NA | FMT_CELL_RAW);
	fmt_table_free(t);
}

/* No cell of this run has sampling to show: no table. */
static void test_sampling_none(void **state)
{
	assert_null(fmt_walk_sampling_new(*state));
}

/* Exits by reason: the FMT_KVM_TOP first. */
static void test_kvm(void **state)
{
	struct report_kvm_reason reasons[FMT_KVM_TOP + 2];
	struct report_kvm k = {.reasons = reasons,
			       .nreasons = FMT_KVM_TOP + 2,
			       .nreason_samples = 3};
	struct fmt_table *t;
	size_t i;

	(void)state;
	memset(reasons, 0, sizeof(reasons));
	for (i = 0; i < FMT_KVM_TOP + 2; i++) {
		reasons[i].reason = i ? "HLT" : "npf";
		reasons[i].per_sample = 100.0 / (i + 1);
		reasons[i].share = 0.5 / (i + 1);
	}
	t = fmt_walk_kvm_new(&k);
	assert_int_equal(t->ncols, 3);
	assert_int_equal(t->nrows, FMT_KVM_TOP);
	assert_string_equal(t->head[0], "exit reason");
	assert_string_equal(fmt_table_cell(t, 0, 0)->text, "npf");
	assert_string_equal(fmt_table_cell(t, 0, 1)->text, "100.0");
	assert_string_equal(fmt_table_cell(t, 0, 2)->text, "50.00%");
	assert_int_equal(fmt_table_cell(t, 0, 0)->flags, 0);
	assert_int_equal(fmt_table_cell(t, 0, 1)->flags, FMT_CELL_RAW);
	fmt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test_setup_teardown(test_matrix, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scaling, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cells, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_counters, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sampling_none, setup,
					    teardown),
	    cmocka_unit_test(test_kvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
