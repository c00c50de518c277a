/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the report's counters (reports/model.c, model-cell.c,
 * fmt-common.c): the slots of a run's [run] events beside the seven, a
 * hardware event as a host with a PMU records it (counted) and as one
 * without does (null: not supported, never 0), and perf stat's figures:
 * task-clock in msec and CPUs utilized, rates per second of task-clock,
 * cycles in GHz.  The document is written here, its numbers chosen so the
 * figures are exact.  Raw PMU events ("r003c") get slots of their own,
 * named as written, null as not supported, never 0.
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
#include "report.h"

/*
 * Two bare-metal cells of two samples, 2 s elapsed and 1.5e9 ns of
 * task-clock each (0.75 CPUs): "pmu" on a host whose PMU counts
 * dTLB-store-misses, "nopmu" on one where it is null; both count
 * major-faults (3 per 1.5 s of task-clock: 2 /sec).  A counter name no
 * runner has ("bogus") is left out.
 */
static const char doc[] =
    "{\"schema\": \"vmtax-results/1\",\n"
    " \"run\": {\"name\": \"ev\", \"status\": \"complete\"},\n"
    " \"workload\": {\"name\": \"w\", \"metric\": \"elapsed\", \"unit\": "
    "\"s\", \"better\": \"lower\"},\n"
    " \"baseline\": \"bare-metal/host-thp=always\",\n"
    " \"cells\": [\n"
    "{\"id\": \"bare-metal/host-thp=always\", \"status\": \"ok\", "
    "\"reason\": null, \"observed\": {}, \"env\": {\"where\": "
    "\"bare-metal\", \"host_thp\": \"always\"}, \"samples\": ["
    "%s, %s]},\n"
    "{\"id\": \"bare-metal/host-thp=never\", \"status\": \"ok\", "
    "\"reason\": null, \"observed\": {}, \"env\": {\"where\": "
    "\"bare-metal\", \"host_thp\": \"never\"}, \"samples\": ["
    "%s, %s]}]}\n";

static const char sample[] =
    "{\"index\": %d, \"status\": \"ok\", \"elapsed_s\": 2, \"user_s\": 1, "
    "\"sys_s\": 0.5, \"metric\": 2, \"counters\": {\"task-clock\": "
    "1500000000, \"page-faults\": 3000, \"context-switches\": 0, "
    "\"cycles\": %s, \"instructions\": null, \"dTLB-loads\": null, "
    "\"dTLB-load-misses\": null, \"major-faults\": 3, "
    "\"dTLB-store-misses\": %s, \"bogus\": 7}}";

static struct report *load(void)
{
	char path[] = "/tmp/vmtax-test-report-counters.XXXXXX";
	char s[4][512];
	struct report *r = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	snprintf(s[0], sizeof(s[0]), sample, 0, "3000000000", "1000");
	snprintf(s[1], sizeof(s[1]), sample, 1, "3000000000", "3000");
	snprintf(s[2], sizeof(s[2]), sample, 0, "null", "null");
	snprintf(s[3], sizeof(s[3]), sample, 1, "null", "null");
	fprintf(f, doc, s[0], s[1], s[2], s[3]);
	fclose(f);
	assert_int_equal(report_load(path, &r), 0);
	unlink(path);
	return r;
}

static void test_slots(void **state)
{
	struct report *r = load();

	(void)state;
	/* the seven, then the events in the order the samples have them */
	assert_int_equal(r->ncounters, RC_NR + 2);
	for (int k = 0; k < RC_NR; k++)
		assert_int_equal(r->counter_id[k], k);
	assert_string_equal(fmt_counter_name(r, RC_NR), "major-faults");
	assert_string_equal(fmt_counter_name(r, RC_NR + 1),
			    "dTLB-store-misses");
	/* the PMU's host counted it; the other's null is not supported */
	assert_int_equal(r->cells[0].counters[RC_NR + 1].state, CS_OK);
	assert_true(r->cells[0].counters[RC_NR + 1].mean == 2000);
	assert_int_equal(r->cells[1].counters[RC_NR + 1].state,
			 CS_NOT_SUPPORTED);
	assert_true(isnan(r->cells[1].counters[RC_NR + 1].mean));
	assert_int_equal(r->cells[1].counters[RC_NR].state, CS_OK);
	report_free(r);
}

static void test_perf_figures(void **state)
{
	static const struct {
		int cell;
		size_t slot;
		const char *value, *note;
	} cases[] = {
	    {0, RC_TASK_CLOCK, "1500.00 msec", "0.750 CPUs utilized"},
	    {0, RC_PAGE_FAULTS, "3000", "2.000 K/sec"},
	    {0, RC_CONTEXT_SWITCHES, "0", "0.000 /sec"},
	    {0, RC_CYCLES, "3000000000", "2.000 GHz"},
	    {0, RC_INSTRUCTIONS, "<not supported>", ""},
	    {0, RC_NR, "3", "2.000 /sec"},
	    {0, RC_NR + 1, "2000", ""},
	    {1, RC_CYCLES, "<not supported>", ""},
	    {1, RC_NR + 1, "<not supported>", ""},
	};
	struct report *r = load();
	char v[FMT_BUF], n[FMT_BUF];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct report_cell *c = &r->cells[cases[i].cell];

		fmt_counter_value(v, sizeof(v), r, c, cases[i].slot);
		fmt_counter_note(n, sizeof(n), r, c, cases[i].slot);
		if (strcmp(v, cases[i].value) || strcmp(n, cases[i].note))
			fail_msg("cell %d slot %zu: '%s' '%s', not '%s' '%s'",
				 cases[i].cell, cases[i].slot, v, n,
				 cases[i].value, cases[i].note);
	}
	report_free(r);
}

/* The text report: a line per counter, the events' too, never a 0 for
 * what the PMU lacks; csv keeps the raw ns and says why it is empty. */
static void test_formats(void **state)
{
	struct report *r = load();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(report_format_text.render(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "            1500.00 msec task-clock"
				    "               #    0.750 CPUs utilized"));
	assert_non_null(strstr(buf, "                  3      major-faults"
				    "             #    2.000 /sec"));
	assert_non_null(
	    strstr(buf, "    <not supported>      dTLB-store-misses\n"));
	assert_null(strstr(buf, "bogus"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_format_csv.render(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, ",dTLB-load-misses,major-faults,"
				    "dTLB-store-misses,why_empty\n"));
	assert_non_null(strstr(buf, ",1.5e+09,3000,0,3e+09,,,,3,2000,"));
	assert_non_null(strstr(buf, " dTLB-store-misses:not_supported"));
	free(buf);
	report_free(r);
}

/* Raw PMU events: "r003c" counted on one host, null on the other; "r01A2"
 * counted on both; "rubbish" is no raw event and is left out. */
static const char sample_raw[] =
    "{\"index\": %d, \"status\": \"ok\", \"elapsed_s\": 2, \"user_s\": 1, "
    "\"sys_s\": 0.5, \"metric\": 2, \"counters\": {\"task-clock\": "
    "1500000000, \"page-faults\": 3000, \"context-switches\": 0, "
    "\"cycles\": null, \"instructions\": null, \"dTLB-loads\": null, "
    "\"dTLB-load-misses\": null, \"r003c\": %s, \"rubbish\": 1, "
    "\"r01A2\": 5}}";

static void test_raw(void **state)
{
	char path[] = "/tmp/vmtax-test-report-counters.XXXXXX";
	char s[4][512];
	struct report *r = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(f);
	snprintf(s[0], sizeof(s[0]), sample_raw, 0, "40");
	snprintf(s[1], sizeof(s[1]), sample_raw, 1, "60");
	snprintf(s[2], sizeof(s[2]), sample_raw, 0, "null");
	snprintf(s[3], sizeof(s[3]), sample_raw, 1, "null");
	fprintf(f, doc, s[0], s[1], s[2], s[3]);
	fclose(f);
	assert_int_equal(report_load(path, &r), 0);
	unlink(path);

	assert_int_equal(r->ncounters, RC_NR + 2);
	assert_int_equal(r->counter_id[RC_NR], REPORT_COUNTER_RAW);
	assert_string_equal(fmt_counter_name(r, RC_NR), "r003c");
	assert_string_equal(fmt_counter_name(r, RC_NR + 1), "r01A2");
	assert_string_equal(fmt_counter_name(r, RC_TASK_CLOCK), "task-clock");
	assert_int_equal(r->cells[0].counters[RC_NR].state, CS_OK);
	assert_true(r->cells[0].counters[RC_NR].mean == 50);
	assert_int_equal(r->cells[1].counters[RC_NR].state, CS_NOT_SUPPORTED);
	assert_int_equal(r->cells[1].counters[RC_NR + 1].state, CS_OK);

	f = open_memstream(&buf, &len);
	assert_int_equal(report_format_text.render(r, f), 0);
	fclose(f);
	/* as perf stat shows them: a count, no note, its spread */
	assert_non_null(strstr(buf, "                 50      r003c      "));
	assert_non_null(strstr(buf, "( +-  28.28% )\n"));
	assert_non_null(strstr(buf, "    <not supported>      r003c\n"));
	assert_null(strstr(buf, "rubbish"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_format_csv.render(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, ",dTLB-load-misses,r003c,r01A2,"
				    "why_empty\n"));
	assert_non_null(strstr(buf, " r003c:not_supported"));
	free(buf);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slots),
	    cmocka_unit_test(test_perf_figures),
	    cmocka_unit_test(test_formats),
	    cmocka_unit_test(test_raw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
