/* SPDX-License-Identifier: MIT */
/* test-kmsg.c - lib/kmsg.c: which kernel log records say a CPU is stuck. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "kmsg.h"
#include "util.h"

struct row {
	const char *rec; /* as one read() of /dev/kmsg returns it */
	const char *want; /* the message kept, or NULL: not stuck */
};

/*
 * The soft lockup is the record a TCG guest logged when an exec looped in
 * the page-fault handler (docs/profile.md); the others are the formats of
 * Debian 12's 6.1 kernel (kernel/watchdog*.c, kernel/rcu/tree_stall.h).
 */
static const struct row rows[] = {
	{"4,612,69238326,-;watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]\n",
	 "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]"},
	{"0,900,1000,-;watchdog: Watchdog detected hard LOCKUP on cpu 1\n",
	 "watchdog: Watchdog detected hard LOCKUP on cpu 1"},
	{"3,901,1000,-;rcu: INFO: rcu_preempt self-detected stall on CPU\n",
	 "rcu: INFO: rcu_preempt self-detected stall on CPU"},
	{"3,902,1000,-;rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
	 " SUBSYSTEM=cpu\n",
	 "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"},
	/* written by root to /dev/kmsg (facility user): it counts too */
	{"12,903,1000,-;watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [fake:1]\n",
	 "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [fake:1]"},
	/* not stuck */
	{"6,10,2000,-;vmtax-agent: #3 run: ok exit 0 in 1.015 s\n", NULL},
	{"6,11,2000,-;NMI watchdog: Perf NMI watchdog permanently disabled\n", NULL},
	{"4,12,2000,c;soft lockup\n", NULL},
	/* the mark only in a dictionary line, not in the message */
	{"6,13,2000,-;hello\n SUBSYSTEM=BUG: soft lockup - CPU#0\n", NULL},
	/* no ';': not a record */
	{"watchdog: BUG: soft lockup - CPU#1 stuck for 22s!", NULL},
	{"", NULL},
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char out[256] = "";
		bool got = kmsg_stuck_record(rows[i].rec, strlen(rows[i].rec),
					     out, sizeof(out));

		if (got != (rows[i].want != NULL))
			fail_msg("row %zu '%s': stuck %d, want %d", i,
				 rows[i].rec, got, rows[i].want != NULL);
		if (rows[i].want && strcmp(out, rows[i].want))
			fail_msg("row %zu: kept '%s', want '%s'", i, out,
				 rows[i].want);
	}
}

static void test_truncated(void **state)
{
	char out[16];
	const char *rec =
	    "4,1,1,-;watchdog: BUG: soft lockup - CPU#1 stuck for 22s!\n";

	(void)state;
	assert_true(kmsg_stuck_record(rec, strlen(rec), out, sizeof(out)));
	assert_string_equal(out, "watchdog: BUG: ");
	/* a record cut before its mark ends is not one */
	assert_false(kmsg_stuck_record(rec, 30, out, sizeof(out)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
