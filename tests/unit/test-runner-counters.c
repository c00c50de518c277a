// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/runner-counters.c: perf's event names, [run] events
 * (runner_events_parse(), a table of bad lists each with its own reason),
 * raw PMU events ("r003c": their configs, their bad forms), and a real run
 * counting them: a software event is counted, an event the PMU lacks (a
 * raw one here, with no PMU) is unsupported with its errno, never a 0 that
 * looks counted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto.h"
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
	    {" cpu-migrations\tminor-faults ,major-faults ",
	     {"cpu-migrations", "minor-faults", "major-faults"}},
	    {"  \t ", {NULL}},
	    /* the seven are counted anyway: they add nothing */
	    {"cycles,task-clock", {NULL}},
	    {"migrations", {"cpu-migrations"}},
	};
	static const struct {
		const char *list, *why;
	} bad[] = {
	    {"dtlb-misses", "unknown perf event 'dtlb-misses' (one of perf's "
			    "generic hardware, software or cache events, as "
			    "'perf list' names them, or a raw one: 'r' and "
			    "1-16 hex digits)"},
	    {"major-faults,Major-faults", "unknown perf event 'Major-faults'"},
	    {"major-faults major-faults",
	     "perf event 'major-faults' is listed twice"},
	    {"cs,context-switches",
	     "perf event 'context-switches' is listed twice"},
	    {"rubbish", "unknown perf event 'rubbish'"},
	    {"major-faults,,cycles", "an empty perf event (a comma with no "
				     "name on one side)"},
	    {",major-faults", "an empty perf event"},
	    {"major-faults,", "an empty perf event"},
	    {"r", "raw PMU event 'r' has no hex digits ('r' and 1-16 of "
		  "them, as perf takes it: r003c)"},
	    {"r00zz", "raw PMU event 'r00zz': 'z' is not a hex digit"},
	    {"r0-3c", "raw PMU event 'r0-3c': '-' is not a hex digit"},
	    {"r00000000000000001", "raw PMU event 'r00000000000000001' has "
				   "17 hex digits: at most 16 (a 64-bit "
				   "config)"},
	    {"r003c,r003c", "perf event 'r003c' is listed twice"},
	    {"r003c r3C", "raw PMU event 'r3C' is 'r003c' again (config "
			  "0x3c)"},
	    {"r1 r2 r3 r4 r5", "more than 4 raw PMU events: at most 4"},
	    {"r1 r2 r3 r4 cpu-clock cpu-migrations minor-faults major-faults "
	     "alignment-faults emulation-faults",
	     "10 perf events beyond the 7 counted always: at most 9"},
	    {"cpu/event=0x3c/", "unknown perf event 'cpu/event=0x3c/'"},
	    {"cpu-clock cpu-migrations minor-faults major-faults "
	     "alignment-faults emulation-faults branches branch-misses "
	     "bus-cycles ref-cycles",
	     "10 perf events beyond the 7 counted always: at most 9"},
	};
	struct runner_raw_events raw;
	char why[256];
	uint64_t set;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t want = 0;

		for (size_t j = 0; j < 3 && good[i].want[j]; j++)
			want |= BIT(good[i].want[j]);
		why[0] = '\0';
		if (runner_events_parse(good[i].list, &set, &raw, why,
					sizeof(why)))
			fail_msg("'%s': refused: %s", good[i].list, why);
		assert_int_equal(raw.n, 0);
		if (set != want)
			fail_msg("'%s': set %#llx, not %#llx", good[i].list,
				 (unsigned long long)set,
				 (unsigned long long)want);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(
		    runner_events_parse(bad[i].list, &set, &raw, why,
					sizeof(why)),
		    -EINVAL);
		if (strncmp(why, bad[i].why, strlen(bad[i].why)))
			fail_msg("'%s': '%s', not '%s'", bad[i].list, why,
				 bad[i].why);
	}
}

/* Raw PMU events as perf takes them: 'r' and 1-16 hex digits, named as
 * written, in the order listed, beside the generic ones. */
static void test_events_raw(void **state)
{
	static const struct {
		const char *name;
		uint64_t config;
	} good[] = {
	    {"r0", 0},
	    {"r003c", 0x3c},
	    {"r01A2", 0x1a2},
	    {"rffffffffffffffff", UINT64_MAX},
	    {"r0000000000000001", 1},
	    /* a raw event that reads as a word is still a raw event */
	    {"rbad", 0xbad},
	};
	struct runner_raw_events raw;
	char why[256];
	uint64_t set, config;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		why[0] = '\0';
		if (runner_raw_parse(good[i].name, &config, why, sizeof(why)))
			fail_msg("'%s': refused: %s", good[i].name, why);
		if (config != good[i].config)
			fail_msg("'%s': config %#llx, not %#llx", good[i].name,
				 (unsigned long long)config,
				 (unsigned long long)good[i].config);
	}
	assert_int_equal(runner_raw_parse("cycles", &config, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "'cycles' is not a raw PMU event ('r' and "
				 "1-16 hex digits, as perf takes it: r003c)");

	/* ref-cycles is perf's generic event, not a raw one */
	assert_int_equal(runner_events_parse("r003c, ref-cycles,r01a2 "
					     "major-faults r4",
					     &set, &raw, why, sizeof(why)),
			 0);
	assert_true(set == (BIT("ref-cycles") | BIT("major-faults")));
	assert_int_equal(raw.n, 3);
	assert_string_equal(raw.name[0], "r003c");
	assert_string_equal(raw.name[1], "r01a2");
	assert_string_equal(raw.name[2], "r4");
	assert_true(raw.config[0] == 0x3c && raw.config[1] == 0x1a2 &&
		    raw.config[2] == 4);
	/* four raw ones and five generic: nine, the most */
	assert_int_equal(runner_events_parse("r1 r2 r3 r4 cpu-clock "
					     "cpu-migrations minor-faults "
					     "major-faults alignment-faults",
					     &set, &raw, why, sizeof(why)),
			 0);
	assert_int_equal(raw.n, RUNNER_RAW_MAX);
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
	assert_int_equal(res.raw.n, 0);
	runner_result_release(&res);
}

/*
 * A raw PMU event on a real run: PERF_TYPE_RAW with its config, counted
 * where the PMU has it, else unsupported with the kernel's errno (this VM
 * has no PMU), never a 0 that looks counted; in the sample's JSON it is
 * named as written, a number or null, and read back by that name.
 */
static void test_events_raw_run(void **state)
{
	struct runner_spec spec = {
	    .cmd = "true",
	    .timeout_s = 10,
	    .counters = true,
	    .raw = {.n = 1, .config = {0x3c}, .name = {"r003c"}},
	};
	struct runner_result res, back;
	const struct runner_counter_value *c;
	json_t *j, *v;
	char err[256];

	(void)state;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	assert_int_equal(res.raw.n, 1);
	assert_string_equal(res.raw.name[0], "r003c");
	c = &res.raw_counters[0];
	if (c->supported) {
		assert_int_equal(c->open_errno, 0);
	} else {
		assert_true(c->open_errno > 0);
		assert_false(c->counted);
		print_message("[   INFO   ] r003c: unsupported (%s)\n",
			      strerror(c->open_errno));
	}
	j = proto_sample_to_json(&res, 0);
	v = json_object_get(json_object_get(j, "counters"), "r003c");
	assert_non_null(v);
	if (!c->supported || !c->counted)
		assert_true(json_is_null(v));
	else
		assert_true(json_is_integer(v));
	assert_int_equal(proto_sample_parse(j, &back, err, sizeof(err)), 0);
	assert_int_equal(back.raw.n, 1);
	assert_string_equal(back.raw.name[0], "r003c");
	assert_true(back.raw.config[0] == 0x3c);
	assert_int_equal(back.raw_counters[0].supported,
			 c->supported && c->counted);
	runner_result_release(&back);
	json_decref(j);
	runner_result_release(&res);

	/* without counters nothing is opened, raw ones included */
	spec.counters = false;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.raw.n, 0);
	runner_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_unique),
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_events_parse),
	    cmocka_unit_test(test_events_raw),
	    cmocka_unit_test(test_events_run),
	    cmocka_unit_test(test_events_raw_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
