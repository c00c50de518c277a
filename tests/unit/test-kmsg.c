/* SPDX-License-Identifier: MIT */
/*
 * test-kmsg.c - lib/kmsg.c: which kernel log records say a CPU is stuck, and
 * which console log lines report trouble (a guest console replayed through
 * the host's detector).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

struct line_row {
	const char *line; /* one console log line, without its newline */
	enum kmsg_trouble want;
	const char *msg; /* the message kept (the stamp dropped) */
};

static const struct line_row line_rows[] = {
	{"[   48.305135] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]",
	 KMSG_STUCK, "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]"},
	{"[ 1234.000001] rcu: INFO: rcu_preempt self-detected stall on CPU\r",
	 KMSG_STUCK, "rcu: INFO: rcu_preempt self-detected stall on CPU"},
	{"[    7.000000] watchdog: Watchdog detected hard LOCKUP on cpu 0",
	 KMSG_STUCK, "watchdog: Watchdog detected hard LOCKUP on cpu 0"},
	{"[    5.100000] BUG: kernel NULL pointer dereference, address: 0000000000000008",
	 KMSG_OOPS, "BUG: kernel NULL pointer dereference, address: 0000000000000008"},
	{"[    5.100100] Oops: 0000 [#1] PREEMPT SMP NOPTI", KMSG_OOPS,
	 "Oops: 0000 [#1] PREEMPT SMP NOPTI"},
	{"[    5.2] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI",
	 KMSG_OOPS,
	 "general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI"},
	{"[    9.9] Kernel panic - not syncing: sysrq triggered crash", KMSG_OOPS,
	 "Kernel panic - not syncing: sysrq triggered crash"},
	/* a user task's fault, the init's words, a stamp without a message */
	{"[   10.517711] traps: sh[121] general protection fault ip:4a5b21 sp:7ffd9c2a8e40 error:0 in busybox[401000+d4000]",
	 KMSG_FINE, NULL},
	{"vmtax-init: start, kernel 6.1.0-57-amd64, 2.01 s since boot", KMSG_FINE,
	 NULL},
	/* user space quoting a kernel message: no stamp, not the kernel's */
	{"vmtax-agent: #3 run 'echo 'watchdog: BUG: soft lockup - CPU#0 st' starting",
	 KMSG_FINE, NULL},
	{"watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]", KMSG_FINE,
	 NULL},
	{"[bad] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]",
	 KMSG_FINE, NULL},
	{"[   48.305917] Modules linked in: virtio_console virtio_pci", KMSG_FINE,
	 NULL},
	{"[   48.3", KMSG_FINE, NULL},
	{"", KMSG_FINE, NULL},
};

static void test_console_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(line_rows); i++) {
		char out[256] = "";
		enum kmsg_trouble got = kmsg_console_line(
		    line_rows[i].line, strlen(line_rows[i].line), out,
		    sizeof(out));

		if (got != line_rows[i].want)
			fail_msg("line %zu '%s': trouble %d, want %d", i,
				 line_rows[i].line, got, line_rows[i].want);
		if (line_rows[i].msg && strcmp(out, line_rows[i].msg))
			fail_msg("line %zu: kept '%s', want '%s'", i, out,
				 line_rows[i].msg);
	}
}

#define LOCKUP "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]"
#define FIXTURE "tests/fixtures/console/soft-lockup.log"

static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * The console of a TCG guest that locked up (tests/slow/lockup-loop.sh,
 * docs/tcg-lockup.md: an exec looping in the page-fault handler), replayed
 * whole: the lockup is found, with the kernel's words, past the agent's
 * and the boot's 357 lines before it, and nothing after it.
 */
static void test_console_replay(void **state)
{
	char out[256] = "";
	long long off = 0;
	int ret;

	(void)state;
	ret = kmsg_console_poll(FIXTURE, &off, out, sizeof(out));
	assert_int_equal(ret, KMSG_STUCK);
	assert_string_equal(
	    out, "watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [sh:116]");
	assert_true(off > 0);
	assert_int_equal(kmsg_console_poll(FIXTURE, &off, out, sizeof(out)),
			 KMSG_FINE);
}

/* A log as libvirt writes it: a line counts once it is whole. */
static void test_console_growing(void **state)
{
	char path[] = "/tmp/test-kmsg.XXXXXX", out[256] = "";
	long long off = 0, before;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	/* no log yet: nothing, no error */
	assert_int_equal(kmsg_console_poll(path, &off, out, sizeof(out)),
			 KMSG_FINE);
	assert_int_equal(off, 0);
	append(path, "[    1.0] Run /init as init process\nvmtax-init: start\n");
	assert_int_equal(kmsg_console_poll(path, &off, out, sizeof(out)),
			 KMSG_FINE);
	assert_int_equal(off, (long long)strlen("[    1.0] Run /init as init "
						 "process\nvmtax-init: start\n"));
	before = off;
	append(path, "[   48.305135] watchdog: BUG: soft lockup - CPU#1 st");
	assert_int_equal(kmsg_console_poll(path, &off, out, sizeof(out)),
			 KMSG_FINE);
	assert_int_equal(off, before);
	append(path, "uck for 22s! [sh:132]\r\n");
	assert_int_equal(kmsg_console_poll(path, &off, out, sizeof(out)),
			 KMSG_STUCK);
	assert_string_equal(out, LOCKUP);
	assert_int_equal(kmsg_console_poll(path, &off, out, sizeof(out)),
			 KMSG_FINE);
	unlink(path);
	/* a directory cannot be read as a log */
	off = 0;
	assert_true(kmsg_console_poll("/", &off, out, sizeof(out)) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_console_lines),
	    cmocka_unit_test(test_console_replay),
	    cmocka_unit_test(test_console_growing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
