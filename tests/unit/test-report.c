/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the report model (reports/model.c): labels, the matrix,
 * counter states, derived counters and the direction of the slowdown.  Each
 * test writes a small results.json to a temporary file and loads it.
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

#include "format.h"
#include "model.h"

static const char head[] =
    "{\"schema\": \"vmtax-results/1\",\n"
    " \"run\": {\"name\": \"t\", \"status\": \"complete\",\n"
    "   \"host\": {\"cpu_model\": \"%s\", \"accel\": \"kvm\"}},\n"
    " \"workload\": {\"name\": \"w\", \"metric\": \"%s\", \"unit\": "
    "\"%s\", \"better\": \"%s\"},\n"
    " \"baseline\": \"bare-metal/host-thp=always\",\n"
    " \"cells\": [\n";

/* A cell with three ok samples of METRIC +- 1%, COUNTERS verbatim. */
static void cell(FILE *f, const char *id, const char *where, const char *h,
		 const char *g, const char *paging, double metric,
		 const char *counters, bool last)
{
	int i;

	fprintf(f,
		"{\"id\": \"%s\", \"status\": \"ok\", \"reason\": null, "
		"\"observed\": {},\n \"env\": {\"where\": \"%s\", "
		"\"host_thp\": \"%s\", \"guest_thp\": %s%s%s, \"paging\": "
		"%s%s%s},\n \"samples\": [",
		id, where, h, g ? "\"" : "", g ? g : "null", g ? "\"" : "",
		paging ? "\"" : "", paging ? paging : "null",
		paging ? "\"" : "");
	for (i = 0; i < 3; i++)
		fprintf(f,
			"%s{\"index\": %d, \"status\": \"ok\", \"elapsed_s\": "
			"%g, \"user_s\": 1, \"sys_s\": 0.1, \"metric\": %g, "
			"\"counters\": {%s}}",
			i ? ", " : "", i, metric * (0.99 + 0.01 * i),
			metric * (0.99 + 0.01 * i), counters);
	fprintf(f, "]}%s\n", last ? "" : ",");
}

static struct report *load(const char *cpu, const char *metric,
			   const char *better, bool amd_shadow)
{
	char path[] = "/tmp/vmtax-test-report.XXXXXX";
	struct report *r = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fprintf(f, head, cpu, metric, !strcmp(metric, "elapsed") ? "s" : "MB/s",
		better);
	cell(f, "bare-metal/host-thp=always", "bare-metal", "always", NULL,
	     NULL, 10,
	     "\"cycles\": 1000, \"instructions\": 500, \"dTLB-loads\": 200, "
	     "\"dTLB-load-misses\": 2",
	     false);
	cell(f, "bare-metal/host-thp=never", "bare-metal", "never", NULL, NULL,
	     11, "\"cycles\": null, \"instructions\": 500", false);
	cell(f, "guest/paging=ept/host-thp=always/guest-thp=never", "guest",
	     "always", "never", "ept", 12, "", false);
	cell(f, "guest/paging=shadow/host-thp=always/guest-thp=never", "guest",
	     "always", "never", amd_shadow ? "shadow" : "tcg", 20, "", true);
	fprintf(f, "]}\n");
	fclose(f);
	assert_int_equal(report_load(path, &r), 0);
	unlink(path);
	return r;
}

static void test_labels(void **state)
{
	struct report *r = load("AMD EPYC 7302", "elapsed", "lower", true);

	(void)state;
	assert_string_equal(r->cells[0].label, "THP always host");
	assert_string_equal(r->cells[0].column, "bare metal");
	assert_string_equal(r->cells[2].label,
			    "THP never guest, EPT on + THP always host");
	/* Shadow paging on AMD is "NPT off". */
	assert_string_equal(r->cells[3].label,
			    "THP never guest, NPT off + THP always host");
	report_free(r);

	r = load("Intel(R) Xeon(R)", "elapsed", "lower", true);
	assert_string_equal(r->cells[3].column, "EPT off");
	report_free(r);

	r = load("Intel(R) Xeon(R)", "elapsed", "lower", false);
	assert_string_equal(r->cells[3].column, "TCG");
	report_free(r);
}

static void test_matrix(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);
	const struct report_matrix *m = &r->matrix;

	(void)state;
	/* Rows: (never guest, always host), (-, never host); columns:
	 * bare metal, EPT on, EPT off. */
	assert_int_equal(m->ncols, 3);
	assert_int_equal(m->nrows, 2);
	assert_string_equal(m->cols[0], "bare metal");
	assert_int_equal(m->nrow_axes, 2);
	assert_string_equal(r->axes[m->row_axes[0]].name, "guest-thp");
	assert_string_equal(m->row_val[0 * 2 + 0], "never");
	assert_string_equal(m->row_val[1 * 2 + 1], "never");
	assert_string_equal(m->row_val[1 * 2 + 0], "");
	assert_int_equal(m->slot[0 * 3 + 0], 0);
	assert_int_equal(m->slot[0 * 3 + 1], 2);
	assert_int_equal(m->slot[0 * 3 + 2], 3);
	assert_int_equal(m->slot[1 * 3 + 0], 1);
	assert_int_equal(m->slot[1 * 3 + 1], -1);
	report_free(r);
}

static void test_counters(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);
	const struct report_cell *b = &r->cells[0], *n = &r->cells[1];

	(void)state;
	/* IPC = 500/1000, dTLB miss rate = 2/200 */
	assert_true(b->ipc.valid);
	assert_true(fabs(b->ipc.value - 0.5) < 1e-12);
	assert_true(b->dtlb_miss_rate.valid);
	assert_true(fabs(b->dtlb_miss_rate.value - 0.01) < 1e-12);
	assert_int_equal(b->counters[RC_TASK_CLOCK].state, CS_NOT_COUNTED);
	/* null cycles: not supported, and no IPC rather than 0 */
	assert_int_equal(n->counters[RC_CYCLES].state, CS_NOT_SUPPORTED);
	assert_int_equal(n->counters[RC_INSTRUCTIONS].state, CS_OK);
	assert_false(n->ipc.valid);
	assert_false(n->dtlb_miss_rate.valid);
	report_free(r);
}

static void test_direction(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);
	char buf[FMT_BUF];

	(void)state;
	/* Lower is better: 11/10 - 1 = +10% (the samples are 0.99x, 1x,
	 * 1.01x of the nominal value on both sides, so the means are
	 * exactly nominal). */
	assert_true(r->cells[0].is_baseline);
	assert_false(r->cells[0].vs_base.valid);
	assert_true(fabs(r->cells[1].vs_base.delta - 0.1) < 1e-12);
	assert_string_equal(fmt_matrix_entry(buf, sizeof(buf), r, 1),
			    "10.00%*");
	assert_string_equal(fmt_matrix_entry(buf, sizeof(buf), r, 0),
			    "baseline");
	/* geomean of 1.1, 1.2, 2.0 = 2.64^(1/3) */
	assert_true(fabs(r->geomean_slowdown - (cbrt(2.64) - 1)) < 1e-12);
	report_free(r);

	/* Higher is better: 10/11 - 1 = -9.09% (faster). */
	r = load("Intel", "regex", "higher", true);
	assert_true(fabs(r->cells[1].vs_base.delta - (10.0 / 11 - 1)) < 1e-12);
	assert_true(r->cells[1].vs_base.lo < r->cells[1].vs_base.delta);
	assert_true(r->cells[1].vs_base.hi > r->cells[1].vs_base.delta);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_labels),
	    cmocka_unit_test(test_matrix),
	    cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_direction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
