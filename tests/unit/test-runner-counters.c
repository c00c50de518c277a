// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/runner-counters.c: perf's event names, [run] events
 * (runner_events_parse(), a table of bad lists each with its own reason),
 * and a real run counting them: a software event is counted, an event the
 * PMU lacks is unsupported with its errno, never a 0 that looks counted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner.h"
#include "util.h"

#define BIT(name) RUNNER_COUNTER_BIT(runner_counter_lookup(name))

static void test_names_unique(void **state)
{
	(void)state;
	for (int i = 0; i < RUNNER_COUNTER_MAX; i++) {
		const char *n = runner_counter_name(i);

		assert_non_null(n);
		/* each name finds itself: none is there twice */
		assert_int_equal(runner_counter_lookup(n), i);
	}
	/* perf's aliases */
	assert_int_equal(runner_counter_lookup("cs"), RC_CONTEXT_SWITCHES);
	assert_int_equal(runner_counter_lookup("faults"), RC_PAGE_FAULTS);
	assert_int_equal(runner_counter_lookup("cpu-cycles"), RC_CYCLES);
	assert_int_equal(runner_counter_lookup("branch-instructions"),
			 runner_counter_lookup("branches"));
	assert_int_equal(runner_counter_lookup("dTLB-load-miss"), -1);
	assert_int_equal(runner_counter_lookup(""), -1);
}

static void test_kinds(void **state)
{
	static const struct {
		const char *name;
		enum runner_counter_kind kind;
	} cases[] = {
	    {"task-clock", RCK_CLOCK},	      {"cpu-clock", RCK_CLOCK},
	    {"page-faults", RCK_SOFTWARE},    {"major-faults", RCK_SOFTWARE},
	    {"cpu-migrations", RCK_SOFTWARE}, {"cycles", RCK_HARDWARE},
	    {"ref-cycles", RCK_HARDWARE},     {"dTLB-loads", RCK_CACHE},
	    {"dTLB-store-misses", RCK_CACHE}, {"LLC-load-misses", RCK_CACHE},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int k = runner_counter_lookup(cases[i].name);

		assert_true(k >= 0);
		if (runner_counter_kind(k) != cases[i].kind)
			fail_msg("%s: kind %d, not %d", cases[i].name,
				 runner_counter_kind(k), cases[i].kind);
	}
}

static void test_events_parse(void **state)
{
	static const struct {
		const char *list;
		const char *want[3]; /* the set, by name */
	} good[] = {
	    {"", {NULL}},
	    {"major-faults", {"major-faults"}},
	    {"major-faults, dTLB-store-misses",
	     {"major-faults", "dTLB-store-misses"}},
	    {" cpu-migrations\tminor-faults ,, ",
	     {"cpu-migrations", "minor-faults"}},
	    /* the seven are counted anyway: they add nothing */
	    {"cycles,task-clock", {NULL}},
	    {"migrations", {"cpu-migrations"}},
	};
	static const struct {
		const char *list, *why;
	} bad[] = {
	    {"dtlb-misses", "unknown perf event 'dtlb-misses' (one of perf's "
			    "generic hardware, software or cache events, as "
			    "'perf list' names them)"},
	    {"major-faults,Major-faults", "unknown perf event 'Major-faults'"},
	    {"major-faults major-faults",
	     "perf event 'major-faults' is listed twice"},
	    {"cs,context-switches",
	     "perf event 'context-switches' is listed twice"},
	    {"r01a2", "unknown perf event 'r01a2'"},
	    {"cpu/event=0x3c/", "unknown perf event 'cpu/event=0x3c/'"},
	    {"cpu-clock cpu-migrations minor-faults major-faults "
	     "alignment-faults emulation-faults branches branch-misses "
	     "bus-cycles ref-cycles",
	     "10 perf events beyond the 7 counted always: at most 9"},
	};
	char why[256];
	uint64_t set;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t want = 0;

		for (size_t j = 0; j < 3 && good[i].want[j]; j++)
			want |= BIT(good[i].want[j]);
		why[0] = '\0';
		if (runner_events_parse(good[i].list, &set, why, sizeof(why)))
			fail_msg("'%s': refused: %s", good[i].list, why);
		if (set != want)
			fail_msg("'%s': set %#llx, not %#llx", good[i].list,
				 (unsigned long long)set,
				 (unsigned long long)want);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(
		    runner_events_parse(bad[i].list, &set, why, sizeof(why)),
		    -EINVAL);
		if (strncmp(why, bad[i].why, strlen(bad[i].why)))
			fail_msg("'%s': '%s', not '%s'", bad[i].list, why,
				 bad[i].why);
	}
}

/*
 * A run with events: the software ones counted; a hardware cache one
 * either counted or unsupported with the kernel's errno (this VM has no
 * PMU: ENOENT or EOPNOTSUPP), never supported with nothing behind it.
 */
static void test_events_run(void **state)
{
	struct runner_spec spec = {
	    .cmd = "head -c 1000000 /dev/zero | wc -c >/dev/null",
	    .timeout_s = 10,
	    .counters = true,
	    .events = BIT("major-faults") | BIT("cpu-migrations") |
		      BIT("minor-faults") | BIT("dTLB-store-misses"),
	};
	struct runner_result res;
	int k;

	(void)state;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	assert_true(res.counter_set == (RUNNER_COUNTERS_DEFAULT | spec.events));
	assert_true(
	    res.counters[runner_counter_lookup("major-faults")].supported);
	assert_true(
	    res.counters[runner_counter_lookup("major-faults")].counted);
	assert_true(
	    res.counters[runner_counter_lookup("cpu-migrations")].counted);
	/* a pipe of two processes touches fresh pages */
	assert_true(res.counters[runner_counter_lookup("minor-faults")].value >
		    0);
	k = runner_counter_lookup("dTLB-store-misses");
	if (res.counters[k].supported) {
		assert_int_equal(res.counters[k].open_errno, 0);
	} else {
		assert_true(res.counters[k].open_errno > 0);
		print_message(
		    "[   INFO   ] dTLB-store-misses: unsupported (%s)\n",
		    strerror(res.counters[k].open_errno));
	}
	/* what was not asked for is not opened */
	k = runner_counter_lookup("LLC-loads");
	assert_false(res.counters[k].supported);
	assert_int_equal(res.counters[k].open_errno, 0);
	runner_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_unique),
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_events_parse),
	    cmocka_unit_test(test_events_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
