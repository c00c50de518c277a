/* SPDX-License-Identifier: MIT */
/* Unit tests for generic knob names and values (lib/knob-path.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "knob-path.h"
#include "util.h"

static void test_paths(void **state)
{
	static const struct {
		const char *name, *path;
	} good[] = {
		{ "sysctl.vm.swappiness", "/proc/sys/vm/swappiness" },
		{ "sysctl.kernel.numa_balancing",
		  "/proc/sys/kernel/numa_balancing" },
		{ "mm.transparent_hugepage.defrag",
		  "/sys/kernel/mm/transparent_hugepage/defrag" },
		{ "mm.transparent_hugepage.khugepaged.defrag",
		  "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag" },
		{ "mm.ksm.run", "/sys/kernel/mm/ksm/run" },
		{ "mm.hugepages.hugepages-2048kB.nr_hugepages",
		  "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages" },
	};
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		assert_true(knob_name_valid(good[i].name));
		assert_int_equal(knob_path(good[i].name, path, sizeof(path)), 0);
		assert_string_equal(path, good[i].path);
	}
}

static void test_bad_names(void **state)
{
	/* Each is refused for its own reason. */
	static const char *const bad[] = {
		"",			   /* empty */
		"vm.swappiness",	   /* no tree prefix */
		"sysctl.",		   /* nothing after the prefix */
		"mm.",			   /* likewise */
		"sysctl..vm",		   /* empty component */
		"sysctl.vm.",		   /* trailing dot */
		"mm.ksm/run",		   /* a slash */
		"sysctl.vm.swap piness",   /* a blank */
		"sysctl.vm.*",		   /* a pattern */
		"proc.sys.vm.swappiness",  /* another tree */
		"mm....",		   /* dots only */
	};
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_false(knob_name_valid(bad[i]));
		assert_int_equal(knob_path(bad[i], path, sizeof(path)), -EINVAL);
	}
	assert_false(knob_name_valid(NULL));
}

static void test_long_name(void **state)
{
	char name[KNOB_NAME_MAX + 8], path[16];

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memcpy(name, "sysctl.", 7);
	assert_false(knob_name_valid(name));
	assert_int_equal(knob_path("sysctl.vm.swappiness", path, sizeof(path)),
			 -ENAMETOOLONG);
}

static void test_values(void **state)
{
	static const struct {
		const char *raw, *value;
	} good[] = {
		{ "always [madvise] never\n", "madvise" },
		{ "[always] defer defer+madvise madvise never", "always" },
		{ "60\n", "60" },
		{ "  1  \n", "1" },
		{ "0\nsecond line [x]\n", "0" },
		{ "[ never ]", "never" },
	};
	char out[KNOB_VALUE_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(knob_value_parse(good[i].raw, out, sizeof(out)),
				 0);
		assert_string_equal(out, good[i].value);
	}
	assert_int_equal(knob_value_parse("", out, sizeof(out)), -EINVAL);
	assert_int_equal(knob_value_parse("  \n", out, sizeof(out)), -EINVAL);
	assert_int_equal(knob_value_parse("always [madvise", out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(knob_value_parse("[]", out, sizeof(out)), -EINVAL);
	assert_int_equal(knob_value_parse("123456", out, 4), -ENAMETOOLONG);
}

static void test_value_same(void **state)
{
	static const struct {
		const char *wanted, *got;
		bool same;
	} rows[] = {
		{ "10", "10", true },
		{ "never", "never", true },
		{ "4096 87380 6291456", "4096\t87380\t6291456", true },
		{ " 1  2 ", "1 2", true },
		{ "1 2", "1\t \t2", true },
		{ "10", "60", false },
		{ "10", "100", false },
		{ "100", "10", false },
		{ "1 2", "12", false },
		{ "12", "1 2", false },
		{ "", "0", false },
		{ "", "", true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		if (knob_value_same(rows[i].wanted, rows[i].got) !=
		    rows[i].same)
			fail_msg("'%s' vs '%s': wanted %s", rows[i].wanted,
				 rows[i].got, rows[i].same ? "same" : "differ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_value_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
