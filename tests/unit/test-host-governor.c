// SPDX-License-Identifier: MIT
/*
 * Unit tests for the cpufreq governor of host/ (knob-governor.c,
 * host_governor_check() and host_governor_set() of host.h) against a fake
 * sysfs tree in a temp dir: every policy set and journalled as its own
 * knob, put back by host_restore(), by the next context after a crash and
 * by the signal handler's host_restore_async(); a governor a policy does
 * not offer refused; a host without cpufreq left alone and said so; more
 * policies than the old 32 records.  Nothing on the real host is touched.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "env.h"
#include "host.h"
#include "util.h"

#include "fake-root.h"

#define CPUFREQ "/sys/devices/system/cpu/cpufreq"

static char root[64];
static char state[128];
static char journal[PATH_MAX];

/* ROOT/REL holds CONTENT */
static void put(const char *rel, const char *content)
{
	fake_root_put(root, rel, content);
}

/* The first line of ROOT/REL, "" when it cannot be read. */
static const char *get(const char *rel)
{
	static char buf[512];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (read_line(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return buf;
}

static const char *gov(int n)
{
	char rel[128];

	snprintf(rel, sizeof(rel), CPUFREQ "/policy%d/scaling_governor", n);
	return get(rel);
}

/* Policy N reading CUR, offering AVAIL. */
static void policy(int n, const char *cur, const char *avail)
{
	char rel[128], line[256];

	snprintf(rel, sizeof(rel), CPUFREQ "/policy%d/scaling_governor", n);
	snprintf(line, sizeof(line), "%s\n", cur);
	put(rel, line);
	snprintf(rel, sizeof(rel),
		 CPUFREQ "/policy%d/scaling_available_governors", n);
	snprintf(line, sizeof(line), "%s\n", avail);
	put(rel, line);
}

static bool journal_exists(void)
{
	struct stat st;

	return stat(journal, &st) == 0;
}

static const char *journal_text(void)
{
	static char buf[4096];
	FILE *f = fopen(journal, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static struct host_opts opts(void)
{
	struct host_opts o = {.root = root, .state_dir = state};

	return o;
}

#define ALL "conservative ondemand userspace powersave performance schedutil"

/* Three policies, not numbered 0..2 (one per cluster), numbers > 9. */
static int setup(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/vmtax-test-governor.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(state, sizeof(state), "%s/state", root);
	snprintf(journal, sizeof(journal), "%s/host-journal", state);
	policy(0, "schedutil", ALL);
	policy(4, "powersave", ALL);
	policy(10, "ondemand", ALL);
	put(CPUFREQ "/boost", "1\n"); /* not a policy */
	return 0;
}

static int teardown(void **st)
{
	char cmd[PATH_MAX + 16];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	root[0] = '\0';
	return system(cmd) == 0 ? 0 : -1;
}

static void test_set_journal_restore(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512] = "";

	(void)st;
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_check(ctx, "performance", why, sizeof(why)), 1);
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 1);
	assert_string_equal(gov(0), "performance");
	assert_string_equal(gov(4), "performance");
	assert_string_equal(gov(10), "performance");
	/* one line per policy, in number order, before each change */
	assert_string_equal(journal_text(),
			    "cpufreq.policy0.governor\tschedutil\n"
			    "cpufreq.policy4.governor\tpowersave\n"
			    "cpufreq.policy10.governor\tondemand\n");
	/* again: nothing changes, nothing more is journalled */
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 1);
	assert_string_equal(journal_text(),
			    "cpufreq.policy0.governor\tschedutil\n"
			    "cpufreq.policy4.governor\tpowersave\n"
			    "cpufreq.policy10.governor\tondemand\n");
	assert_int_equal(host_restore(ctx), 0);
	assert_string_equal(gov(0), "schedutil");
	assert_string_equal(gov(4), "powersave");
	assert_string_equal(gov(10), "ondemand");
	assert_false(journal_exists());
	host_ctx_free(ctx);
}

static void test_already_set_not_journalled(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512];

	(void)st;
	policy(4, "performance", ALL);
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 1);
	assert_string_equal(journal_text(),
			    "cpufreq.policy0.governor\tschedutil\n"
			    "cpufreq.policy10.governor\tondemand\n");
	host_ctx_free(ctx); /* restores */
	assert_string_equal(gov(0), "schedutil");
	assert_string_equal(gov(4), "performance");
	assert_string_equal(gov(10), "ondemand");
	assert_false(journal_exists());
}

static void test_crash_then_restore(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512];
	pid_t pid;
	int status;

	(void)st;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (host_ctx_new(&o, &ctx) < 0 ||
		    host_governor_set(ctx, "performance", why, sizeof(why)) !=
			1)
			_exit(1);
		_exit(0); /* "crash": no restore, the lock dies with us */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(gov(0), "performance");
	assert_string_equal(gov(10), "performance");
	assert_true(journal_exists());
	/* what 'vmtax host restore' does */
	assert_int_equal(host_restore_stale(&o), 3);
	assert_string_equal(gov(0), "schedutil");
	assert_string_equal(gov(4), "powersave");
	assert_string_equal(gov(10), "ondemand");
	assert_false(journal_exists());
}

static void test_restore_async(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512];

	(void)st;
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 1);
	assert_int_equal(host_restore_async(ctx), 0);
	assert_string_equal(gov(0), "schedutil");
	assert_string_equal(gov(4), "powersave");
	assert_string_equal(gov(10), "ondemand");
	assert_false(journal_exists());
	host_ctx_free(ctx);
	assert_string_equal(gov(4), "powersave");
}

static void test_not_offered(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512] = "";

	(void)st;
	policy(4, "powersave", "powersave schedutil");
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_check(ctx, "performance", why, sizeof(why)),
	    -EOPNOTSUPP);
	assert_string_equal(why, "cpufreq policy4 does not offer the governor "
				 "'performance' (its "
				 "scaling_available_governors: powersave "
				 "schedutil)");
	/* a word inside another is not offered */
	assert_int_equal(host_governor_check(ctx, "save", why, sizeof(why)),
			 -EOPNOTSUPP);
	/* the set stops at policy4; policy0 set before it is put back */
	assert_true(host_governor_set(ctx, "performance", why, sizeof(why)) <
		    0);
	assert_string_equal(gov(0), "performance");
	assert_string_equal(gov(4), "powersave");
	assert_string_equal(gov(10), "ondemand");
	host_ctx_free(ctx);
	assert_string_equal(gov(0), "schedutil");
	assert_false(journal_exists());
	/* what policy4 offers is fine */
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_check(ctx, "powersave", why, sizeof(why)), 1);
	host_ctx_free(ctx);
}

static void test_no_cpufreq(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512] = "", cmd[PATH_MAX + 32];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s%s'", root, CPUFREQ);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_check(ctx, "performance", why, sizeof(why)), 0);
	assert_string_equal(why, "no cpufreq: '" CPUFREQ "' is not there (no "
				 "cpufreq driver, as in most virtual "
				 "machines): the governor is not set");
	why[0] = '\0';
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no cpufreq"));
	assert_non_null(strstr(why, "the governor is not set"));
	assert_false(journal_exists());
	/* the directory without a policy */
	put(CPUFREQ "/boost", "1\n");
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "has no policy"));
	assert_false(journal_exists());
	host_ctx_free(ctx);
}

/* More policies than the 32 records the journal held before. */
static void test_many_policies(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512];
	int i;

	(void)st;
	for (i = 0; i < 200; i++)
		policy(i, i % 2 ? "powersave" : "schedutil", ALL);
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 1);
	for (i = 0; i < 200; i++)
		assert_string_equal(gov(i), "performance");
	assert_int_equal(host_restore(ctx), 0);
	for (i = 0; i < 200; i++)
		assert_string_equal(gov(i), i % 2 ? "powersave" : "schedutil");
	host_ctx_free(ctx);
}

static void test_names(void **st)
{
	static const char *const bad[] = {
	    "cpufreq.policy01.governor", "cpufreq.policy.governor",
	    "cpufreq.policy0.min_freq",	 "cpufreq.cpu0.governor",
	    "cpufreq.policy0",		 "cpufreq.policy-1.governor",
	};
	char why[512];
	size_t i;

	(void)st;
	/* a governor knob is journalled by name, but is no [host] key */
	assert_false(host_knob_name_known("cpufreq.policy0.governor"));
	assert_false(
	    host_knob_name_check("cpufreq.policy3.governor", why, sizeof(why)));
	assert_string_equal(why, "'cpufreq.policy3.governor' is set by [run] "
				 "governor, every cpufreq policy at once");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(host_knob_name_check(bad[i], why, sizeof(why)));
		assert_non_null(strstr(why, "is not a cpufreq knob"));
	}
}

/* host_opts.root NULL: VMTAX_HOST_ROOT's tree (the shell tests'). */
static void test_env_root(void **st)
{
	struct host_opts o = opts();
	struct host_ctx *ctx;
	char why[512];

	(void)st;
	o.root = NULL;
	assert_int_equal(setenv(ENV_HOST_ROOT, root, 1), 0);
	assert_int_equal(host_ctx_new(&o, &ctx), 0);
	unsetenv(ENV_HOST_ROOT);
	assert_int_equal(
	    host_governor_set(ctx, "performance", why, sizeof(why)), 1);
	assert_string_equal(gov(4), "performance");
	host_ctx_free(ctx);
	assert_string_equal(gov(4), "powersave");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_set_journal_restore, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_already_set_not_journalled,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash_then_restore, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_restore_async, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_not_offered, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_cpufreq, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_many_policies, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_root, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
