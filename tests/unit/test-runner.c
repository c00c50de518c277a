// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/runner.c: real processes, kept small (a few tenths of a
 * second in all besides the randwalk runs).  Tests that need build/bin/randwalk
 * skip when it is missing; VMTAX_BIN overrides where it is looked for.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile.h"
#include "runner.h"
#include "util.h"

static int run(const char *cmd, double timeout_s, struct runner_result *res)
{
	struct runner_spec spec = {
		.cmd = cmd,
		.timeout_s = timeout_s,
		.counters = true,
	};

	return runner_run(&spec, res);
}

struct exit_case {
	const char *cmd;
	enum runner_status status;
	int exit_status;
};

static void test_exit_status(void **state)
{
	static const struct exit_case cases[] = {
		{ "true", RUNNER_OK, 0 },
		{ "exit 3", RUNNER_FAILED, 3 },
		{ "false", RUNNER_FAILED, 1 },
		{ "kill -KILL $$", RUNNER_FAILED, 128 + SIGKILL },
		{ "/nonexistent/command", RUNNER_FAILED, 127 },
		{ "exit 0; echo not reached", RUNNER_OK, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct runner_result res;

		assert_int_equal(run(cases[i].cmd, 10, &res), 0);
		if (res.status != cases[i].status ||
		    res.exit_status != cases[i].exit_status)
			fail_msg("'%s': status %s exit %d, want %s exit %d",
				 cases[i].cmd, runner_status_name(res.status),
				 res.exit_status,
				 runner_status_name(cases[i].status),
				 cases[i].exit_status);
		/* within its timeout (10 s): no duration asserted */
		assert_true(res.elapsed_s > 0 && res.elapsed_s < 10);
		runner_result_release(&res);
	}
}

static bool pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	bool alive;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	alive = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	/* A zombie waiting for its new parent to reap it is dead enough. */
	p = strrchr(buf, ')');
	if (alive && p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		alive = false;
	return alive;
}

static void test_timeout_kills_group(void **state)
{
	char dir[] = "/tmp/vmtax-test-runner-XXXXXX", *path, *text = NULL;
	struct runner_spec spec = { 0 };
	struct runner_result res;
	pid_t grandchild;

	(void)state;
	assert_non_null(mkdtemp(dir));
	spec.cmd = "sleep 10 & echo $! > bg.pid; sleep 10";
	spec.cwd = dir;
	spec.timeout_s = 0.3;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_TIMEOUT);
	assert_int_equal(res.exit_status, 128 + SIGKILL);
	/* killed at its timeout, not after the 10 s sleeps */
	assert_true(res.elapsed_s >= 0.3 && res.elapsed_s < 10);
	runner_result_release(&res);

	path = xasprintf("%s/bg.pid", dir);
	assert_int_equal(read_file(path, 64, &text, NULL), 0);
	grandchild = atoi(text);
	assert_true(grandchild > 1);
	for (int i = 0; i < 1000 && pid_alive(grandchild); i++)
		usleep(10000);
	assert_false(pid_alive(grandchild));
	unlink(path);
	rmdir(dir);
	free(path);
	free(text);
}

static void test_leftovers_killed_after_exit(void **state)
{
	char dir[] = "/tmp/vmtax-test-runner-XXXXXX", *path, *text = NULL;
	struct runner_spec spec = { 0 };
	struct runner_result res;
	pid_t bg;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* The background sleep keeps the output pipe open, too. */
	spec.cmd = "sleep 10 & echo $! > bg.pid; echo done";
	spec.cwd = dir;
	spec.timeout_s = 5;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	/* not waiting for the background sleep 10 */
	assert_true(res.elapsed_s < 10);
	assert_string_equal(res.output, "done\n");
	runner_result_release(&res);

	path = xasprintf("%s/bg.pid", dir);
	assert_int_equal(read_file(path, 64, &text, NULL), 0);
	bg = atoi(text);
	for (int i = 0; i < 1000 && pid_alive(bg); i++)
		usleep(10000);
	assert_false(pid_alive(bg));
	unlink(path);
	rmdir(dir);
	free(path);
	free(text);
}

static void test_env(void **state)
{
	const char *const env[] = {
		"VMTAX_TEST_A=hello there",
		"VMTAX_TEST_B=1",
		"VMTAX_TEST_B=2", /* the last one wins */
		"HOME=/vmtax-home",
		NULL,
	};
	struct runner_spec spec = {
		.cmd = "printf '%s|%s|%s|%s' \"$VMTAX_TEST_A\" \"$VMTAX_TEST_B\" "
		       "\"$HOME\" \"${PATH:+path}\"",
		.env = env,
		.timeout_s = 5,
	};
	struct runner_result res;

	(void)state;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	/* PATH is inherited: env goes on top of the current environment. */
	assert_string_equal(res.output, "hello there|2|/vmtax-home|path");
	runner_result_release(&res);
}

static void test_bad_env(void **state)
{
	const char *const env[] = { "NOEQUALS", NULL };
	struct runner_spec spec = { .cmd = "true", .env = env };
	struct runner_result res;

	(void)state;
	assert_int_equal(runner_run(&spec, &res), -EINVAL);
	assert_null(res.output);
}

static void test_cwd(void **state)
{
	char dir[] = "/tmp/vmtax-test-runner-XXXXXX", want[PATH_MAX + 2];
	char *real;
	struct runner_spec spec = { .cmd = "pwd -P", .timeout_s = 5 };
	struct runner_result res;

	(void)state;
	assert_non_null(mkdtemp(dir));
	real = realpath(dir, NULL);
	assert_non_null(real);
	snprintf(want, sizeof(want), "%s\n", real);
	spec.cwd = dir;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	assert_string_equal(res.output, want);
	runner_result_release(&res);

	rmdir(dir);
	/* A missing directory means the phase could not start. */
	assert_int_equal(runner_run(&spec, &res), -ENOENT);
	free(real);
}

/*
 * spec->shell runs the command, as "sh" (a busybox runs its ash); NULL is
 * /bin/sh.  The shell is a copy of this test's own /bin/sh under another
 * name, so the test needs no busybox: $0 says what it was called.
 */
static void test_shell(void **state)
{
	char dir[] = "/tmp/vmtax-test-runner-XXXXXX", *sh, *cp, *want;
	struct runner_spec spec = { .cmd = "echo $0; readlink /proc/$$/exe",
				    .timeout_s = 5 };
	struct runner_result res;
	char *real;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sh = xasprintf("%s/other-sh", dir);
	cp = xasprintf("cp /bin/sh %s", sh);
	assert_int_equal(system(cp), 0);
	real = realpath(sh, NULL);
	assert_non_null(real);
	want = xasprintf("sh\n%s\n", real);
	spec.shell = sh;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	assert_string_equal(res.output, want);
	runner_result_release(&res);

	/* A shell that is not there means the phase could not start. */
	unlink(sh);
	assert_int_equal(runner_run(&spec, &res), -ENOENT);
	rmdir(dir);
	free(real);
	free(want);
	free(cp);
	free(sh);
}

struct output_case {
	const char *cmd;
	size_t len;
	bool truncated;
	const char *suffix;
};

static void test_output(void **state)
{
	static const struct output_case cases[] = {
		{ "echo out; echo err >&2", 8, false, "out\nerr\n" },
		{ "true", 0, false, "" },
		{ "head -c 65536 /dev/zero | tr '\\0' a", RUNNER_OUTPUT_MAX,
		  false, "aaa" },
		{ "head -c 300000 /dev/zero | tr '\\0' a; printf END",
		  RUNNER_OUTPUT_MAX, true, "aaaEND" },
		{ "printf START; head -c 65533 /dev/zero | tr '\\0' b",
		  RUNNER_OUTPUT_MAX, true, "bbb" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct output_case *c = &cases[i];
		size_t slen = strlen(c->suffix);
		struct runner_result res;

		assert_int_equal(run(c->cmd, 10, &res), 0);
		assert_int_equal(res.status, RUNNER_OK);
		if (res.output_len != c->len ||
		    res.output_truncated != c->truncated)
			fail_msg("'%s': len %zu truncated %d, want %zu %d",
				 c->cmd, res.output_len, res.output_truncated,
				 c->len, c->truncated);
		assert_int_equal(strlen(res.output), res.output_len);
		assert_memory_equal(res.output + res.output_len - slen,
				    c->suffix, slen);
		runner_result_release(&res);
	}
}

static const char *randwalk_path(void)
{
	static const char *const dirs[] = { "build/bin", "../build/bin",
					    "../../build/bin" };
	static char path[PATH_MAX];
	const char *env = getenv("VMTAX_BIN");

	if (env) {
		snprintf(path, sizeof(path), "%s/randwalk", env);
		return access(path, X_OK) ? NULL : path;
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/randwalk", dirs[i]);
		if (!access(path, X_OK))
			return path;
	}
	return NULL;
}

static void test_counters(void **state)
{
	const char *rw = randwalk_path();
	struct runner_result res;
	char *cmd;

	(void)state;
	if (rw)
		cmd = xasprintf("%s --size-mib 16 --reads 10000", rw);
	else
		cmd = xstrdup("head -c 4000000 /dev/zero | sort >/dev/null");
	assert_int_equal(run(cmd, 10, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	for (int i = 0; i < RC_NR; i++) {
		const struct runner_counter_value *v = &res.counters[i];

		if (!v->supported && v->open_errno == 0)
			fail_msg("'%s' unsupported without an errno",
				 runner_counter_name(i));
		if (v->supported && v->open_errno != 0)
			fail_msg("'%s' supported with errno %d",
				 runner_counter_name(i), v->open_errno);
		if (!v->supported)
			print_message("[   INFO   ] %s: unsupported (%s)\n",
				      runner_counter_name(i),
				      strerror(v->open_errno));
	}
	assert_true(res.counters[RC_TASK_CLOCK].supported);
	assert_true(res.counters[RC_TASK_CLOCK].counted);
	assert_true(res.counters[RC_TASK_CLOCK].value > 0);
	assert_true(res.counters[RC_PAGE_FAULTS].supported);
	assert_true(res.counters[RC_PAGE_FAULTS].counted);
	/* 16 MiB touched: at least 8 huge pages or 4096 small ones. */
	assert_true(res.counters[RC_PAGE_FAULTS].value >= 8);
	/* task-clock covers the tree's CPU time, as rusage does. */
	assert_true(res.counters[RC_TASK_CLOCK].value / 1e9 <=
		    res.elapsed_s * 2 + 0.01);
	assert_true(res.minor_faults > 0);
	assert_true(res.max_rss_kb > 0);
	runner_result_release(&res);
	free(cmd);
}

static void test_counters_off(void **state)
{
	struct runner_spec spec = { .cmd = "true" };
	struct runner_result res;

	(void)state;
	assert_int_equal(runner_run(&spec, &res), 0);
	for (int i = 0; i < RC_NR; i++) {
		assert_false(res.counters[i].supported);
		assert_false(res.counters[i].counted);
	}
	runner_result_release(&res);
}

static void test_probe(void **state)
{
	int open_errno[RC_NR];

	(void)state;
	runner_probe_counters(open_errno);
	assert_int_equal(open_errno[RC_TASK_CLOCK], 0);
	assert_int_equal(open_errno[RC_PAGE_FAULTS], 0);
	for (int i = 0; i < RC_NR; i++)
		assert_true(open_errno[i] >= 0);
}

static void test_names(void **state)
{
	static const char *const names[RC_NR] = {
		"task-clock", "page-faults", "context-switches", "cycles",
		"instructions", "dTLB-loads", "dTLB-load-misses",
	};

	(void)state;
	for (int i = 0; i < RC_NR; i++) {
		assert_string_equal(runner_counter_name(i), names[i]);
		assert_int_equal(runner_counter_lookup(names[i]), i);
	}
	assert_int_equal(runner_counter_lookup("bogus"), -1);
	assert_string_equal(runner_counter_name(RC_NR), "cpu-clock");
	assert_null(runner_counter_name(RUNNER_COUNTER_MAX));
	assert_null(runner_counter_name(-1));
	assert_string_equal(runner_status_name(RUNNER_OK), "ok");
	assert_string_equal(runner_status_name(RUNNER_FAILED), "failed");
	assert_string_equal(runner_status_name(RUNNER_TIMEOUT), "timeout");
	assert_string_equal(runner_status_name(RUNNER_KILLED), "killed");
}

struct ticker {
	int calls;
	int kill_after;	/* 0: never */
	double last;
};

static int tick(void *arg, double elapsed_s)
{
	struct ticker *t = arg;

	t->calls++;
	assert_true(elapsed_s >= t->last);
	t->last = elapsed_s;
	return t->kill_after && t->calls >= t->kill_after;
}

static void test_tick(void **state)
{
	struct ticker t = { 0 };
	struct runner_spec spec = {
		.cmd = "sleep 0.45",
		.timeout_s = 300,
		.tick = tick,
		.tick_arg = &t,
		.tick_s = 0.1,
	};
	struct runner_result res;

	(void)state;
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_OK);
	/* a tick each 0.1 s of the child's life: at least the first, and
	 * no more than its elapsed time allows (not a time bound: on a busy
	 * host 'sleep 0.45' lives longer, and the ticks with it) */
	assert_true(t.calls >= 1);
	assert_true(t.calls <= (int)(res.elapsed_s / 0.1) + 2);
	runner_result_release(&res);

	memset(&t, 0, sizeof(t));
	t.kill_after = 2;
	spec.cmd = "sleep 10";
	assert_int_equal(runner_run(&spec, &res), 0);
	assert_int_equal(res.status, RUNNER_KILLED);
	assert_int_equal(res.exit_status, 128 + SIGKILL);
	assert_int_equal(t.calls, 2);
	/* killed by the tick, not after the child's 10 s */
	assert_true(res.elapsed_s < 10.0);
	runner_result_release(&res);
}

static void test_minor_faults_grow(void **state)
{
	const char *rw = randwalk_path();
	struct runner_result small, big;
	char *cmd;

	(void)state;
	if (!rw) {
		print_message("[   SKIP   ] build/bin/randwalk not built\n");
		skip();
	}
	cmd = xasprintf("%s --size-mib 8 --reads 1000", rw);
	assert_int_equal(run(cmd, 10, &small), 0);
	free(cmd);
	cmd = xasprintf("%s --size-mib 128 --reads 1000", rw);
	assert_int_equal(run(cmd, 10, &big), 0);
	free(cmd);
	assert_int_equal(small.status, RUNNER_OK);
	assert_int_equal(big.status, RUNNER_OK);
	/*
	 * 120 MiB more is 60 more faults with 2 MiB pages (THP always) and
	 * 30720 with 4 KiB pages; either way clearly more.
	 */
	assert_true(big.minor_faults >= small.minor_faults + 50);
	assert_true(big.counters[RC_PAGE_FAULTS].value >=
		    small.counters[RC_PAGE_FAULTS].value + 50);
	assert_true(big.max_rss_kb > small.max_rss_kb + 100 * 1024);
	runner_result_release(&small);
	runner_result_release(&big);
}

/*
 * A profiled run writes more records than the rings hold (19997 Hz for
 * about two seconds, some 70 bytes a sample, 512 KiB a CPU): the runner
 * must wake when a ring is half full and drain it, or samples are lost:
 * fewer samples than the rate says (the kernel reports what it could not
 * store only once there is room again, so "lost" alone would not tell).
 */
static void test_profile_drains(void **state)
{
	const char *rw = randwalk_path();
	struct runner_spec spec = {
	    /* a bound against a hang, not a duration: beside two busy
	     * CPUs at nice 10 this took over 60 s (2026-12-06) */
	    .timeout_s = 900, .profile = true, .profile_hz = 19997};
	struct runner_result res;
	char *cmd;

	(void)state;
	if (!rw) {
		print_message("[   SKIP   ] build/bin/randwalk not built\n");
		skip();
	}
	cmd = xasprintf("%s --size-mib 64 --reads 4000000", rw);
	spec.cmd = cmd;
	assert_int_equal(runner_run(&spec, &res), 0);
	free(cmd);
	assert_int_equal(res.status, RUNNER_OK);
	assert_non_null(res.profile);
	if (!res.profile->event) {
		print_message("[   SKIP   ] cannot sample: %s\n",
			      res.profile->nmissing ? res.profile->missing[0]
						    : "?");
		runner_result_release(&res);
		skip();
	}
	print_message("# %.2f s elapsed, %.2f s on a CPU, %llu samples, "
		      "%llu lost\n",
		      res.elapsed_s, res.user_s + res.sys_s,
		      (unsigned long long)res.profile->samples,
		      (unsigned long long)res.profile->lost);
	assert_int_equal(res.profile->lost, 0);
	/*
	 * At least half the rate over the time it spent on a CPU (the kernel
	 * may throttle a busy host): cpu-clock counts only while it runs, so
	 * against elapsed time a host busy with other work (CI's parallel
	 * builds on 2 cores: 6,268/s over 8.29 s) would fail it.
	 */
	assert_true(res.profile->samples >
		    (res.user_s + res.sys_s) * 19997 / 2);
	runner_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_leftovers_killed_after_exit),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_bad_env),
		cmocka_unit_test(test_cwd),
		cmocka_unit_test(test_shell),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_counters_off),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_tick),
		cmocka_unit_test(test_minor_faults_grow),
		cmocka_unit_test(test_profile_drains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
