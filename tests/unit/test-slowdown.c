/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for reports/slowdown.c: which interval a cell's slowdown gets
 * (paired rounds, bridged, Fieller), the rounds a pairing leaves out for a
 * metric of 0, and that the report model prints what slowdown_of() gives
 * the run engine's stop rule (one rule for both).
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

#include "model.h"
#include "sample-unit.h"
#include "slowdown.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAXS 8

/* A cell of N samples: metric (NaN: not ok), round and boot (-1: none). */
struct fix {
	size_t n;
	double metric[MAXS];
	long round[MAXS], boot[MAXS];
};

static void view_of(const struct fix *f, struct slowdown_cell *v)
{
	double x[MAXS];
	size_t i, k = 0;

	slowdown_cell_init(v, f->n);
	for (i = 0; i < f->n; i++) {
		v->metric[i] = f->metric[i];
		v->round[i] = f->round[i];
		v->boot[i] = f->boot[i];
		if (!isnan(f->metric[i]))
			x[k++] = f->metric[i];
	}
	sample_units_summarize(false, x, NULL, k, &v->units);
}

#define NB {-1, -1, -1, -1, -1, -1, -1, -1}

/*
 * Each row: the baseline (cell 0), a cell M (1) and the cell studied (2);
 * the interval it gets, the rounds shared and left out, and whether the
 * interval is bounded.
 */
static void test_which_interval(void **state)
{
	static const struct {
		const char *what;
		struct fix base, m, cell;
		enum report_interval iv;
		size_t shared, zero, nrounds;
		bool bounded;
		const char *why;
	} rows[] = {
	    {"rounds shared with the baseline: paired",
	     {4, {10, 11, 10.5, 10.2}, {0, 1, 2, 3}, NB},
	     {0},
	     {4, {12, 13.1, 12.4, 12.3}, {0, 1, 2, 3}, NB},
	     REPORT_IV_PAIRED, 4, 0, 4, true, NULL},
	    {"a metric of 0 in a round: left out, and counted",
	     {4, {10, 11, 10.5, 10.2}, {0, 1, 2, 3}, NB},
	     {0},
	     {5, {12, 0, 12.4, 12.3, 12.2}, {0, 1, 2, 3, 4}, NB},
	     REPORT_IV_PAIRED, 4, 1, 3, true, NULL},
	    {"the baseline's 0 counts too",
	     {4, {10, 0, 10.5, 10.2}, {0, 1, 2, 3}, NB},
	     {0},
	     {4, {12, 13.1, 12.4, 12.3}, {0, 1, 2, 3}, NB},
	     REPORT_IV_PAIRED, 4, 1, 3, true, NULL},
	    {"a failed sample is no shared round",
	     {4, {10, 11, 10.5, 10.2}, {0, 1, 2, 3}, NB},
	     {0},
	     {4, {12, NAN, 12.4, 12.3}, {0, 1, 2, 3}, NB},
	     REPORT_IV_PAIRED, 3, 0, 3, true, NULL},
	    {"one boot holds every round: one unit, not judged",
	     {4, {10, 11, 10.5, 10.2}, {0, 1, 2, 3}, NB},
	     {0},
	     {4, {12, 13.1, 12.4, 12.3}, {0, 1, 2, 3}, {0, 0, 0, 0}},
	     REPORT_IV_PAIRED, 4, 0, 4, false, STATS_WHY_ONE_UNIT},
	    {"no round with the baseline, rounds with M that has: bridged",
	     {3, {10, 11, 10.5}, {0, 1, 2}, NB},
	     {6, {20, 21, 20.4, 20.2, 22, 21}, {0, 1, 2, 5, 6, 7}, NB},
	     {3, {30, 31.5, 30.2}, {5, 6, 7}, NB},
	     REPORT_IV_BRIDGE, 6, 0, 6, true, NULL},
	    {"no rounds at all (cells order): Fieller",
	     {3, {10, 11, 10.5}, {-1, -1, -1}, NB},
	     {0},
	     {3, {12, 13, 12.5}, {-1, -1, -1}, NB},
	     REPORT_IV_FIELLER, 0, 0, 0, true, NULL},
	    {"every shared round has a 0: Fieller over the units",
	     {3, {10, 11, 10.5}, {0, 1, 2}, NB},
	     {0},
	     {3, {0, 0, 0}, {0, 1, 2}, NB},
	     REPORT_IV_FIELLER, 0, 0, 0, false, STATS_WHY_ZERO_CELL},
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_LEN(rows); i++) {
		struct slowdown_cell v[3];
		const struct slowdown_cell *vp[3] = {&v[0], &v[1], &v[2]};
		struct slowdown s;

		view_of(&rows[i].base, &v[0]);
		view_of(&rows[i].m, &v[1]);
		view_of(&rows[i].cell, &v[2]);
		slowdown_of(vp, 3, 0, 2, false, false, 0, &s);
		if (s.iv != rows[i].iv || s.rounds_shared != rows[i].shared ||
		    s.rounds_zero != rows[i].zero ||
		    (s.iv != REPORT_IV_FIELLER &&
		     s.paired.nrounds != rows[i].nrounds) ||
		    s.d.bounded != rows[i].bounded ||
		    (rows[i].why && (!s.d.why || strcmp(s.d.why, rows[i].why))))
			fail_msg("%s: %s, %zu shared, %zu left out, %zu paired, "
				 "bounded %d (%s)",
				 rows[i].what, slowdown_interval_name(s.iv),
				 s.rounds_shared, s.rounds_zero,
				 s.paired.nrounds, s.d.bounded,
				 s.d.why ? s.d.why : "no why");
		if (s.iv == REPORT_IV_BRIDGE && s.bridge_via != 1)
			fail_msg("%s: bridged via %ld", rows[i].what,
				 s.bridge_via);
		for (k = 0; k < 3; k++)
			slowdown_cell_release(&v[k]);
	}
}

/*
 * The report model's slowdown of each cell of a recorded interleaved run
 * is slowdown_of() on the cells' views: what the stop rule judges is what
 * the report prints.
 */
static void test_report_is_the_rule(void **state)
{
	struct report *r = NULL;
	const struct slowdown_cell **vp;
	size_t i;

	(void)state;
	assert_int_equal(report_load(FIXTURES "/results-interleaved.json", &r),
			 0);
	vp = calloc(r->ncells, sizeof(*vp));
	assert_non_null(vp);
	for (i = 0; i < r->ncells; i++)
		vp[i] = &r->cells[i].view;
	for (i = 0; i < r->ncells; i++) {
		struct slowdown s;

		if ((long)i == r->baseline)
			continue;
		slowdown_of(vp, r->ncells, (size_t)r->baseline, i,
			    r->higher_better, false, 0, &s);
		assert_int_equal(s.iv, r->cells[i].iv);
		assert_int_equal(s.d.valid, r->cells[i].vs_base.valid);
		assert_true(s.d.delta == r->cells[i].vs_base.delta);
		assert_true(s.d.lo == r->cells[i].vs_base.lo);
		assert_true(s.d.hi == r->cells[i].vs_base.hi);
	}
	free(vp);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_interval),
		cmocka_unit_test(test_report_is_the_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
