/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the closure of installed packages (host-packages.h) from a
 * made-up dpkg-query output: alternatives, virtual packages, Essential
 * packages, a libs_only root, several architectures, and a missing root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "host-packages.h"

/* Package Version Arch Status Essential Deps Provides */
static const char status[] =
    "app\t1\tamd64\tii \tno\t, liba (>= 1), mta | other, foo:any\t\n"
    "liba\t2\tamd64\tii \tno\t, libc6\t\n"
    "libc6\t3\tamd64\tii \tno\t, \t\n"
    "libc6\t3\ti386\tii \tno\t, \t\n"
    "mta\t1\tall\tun \tno\t, \t\n"
    "postfix\t4\tamd64\tii \tno\t, \tmta, mail-transport-agent (= 1)\n"
    "foo\t5\tall\tii \tno\tbar, \t\n"
    "bar\t6\tamd64\tii \tno\t, \t\n"
    "coreutils\t9\tamd64\tii \tyes\t, \t\n"
    "big\t1\tamd64\tii \tno\t, libz, grub, perl | libz\t\n"
    "libz\t1\tamd64\tii \tno\t, \t\n"
    "grub\t1\tamd64\tii \tno\t, \t\n"
    "perl\t1\tamd64\tii \tno\t, \t\n"
    "unused\t1\tamd64\tii \tno\t, \t\n";

static bool in(struct hostpkg_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->p[i].name, name))
			return s->p[i].in;
	fail_msg("no package '%s'", name);
	return false;
}

static void test_closure(void **state)
{
	static const struct hostpkg_root roots[] = {{"app", false},
						    {"big", true}};
	struct hostpkg_set s;
	const char *missing = NULL;
	size_t i;

	(void)state;
	assert_int_equal(hostpkg_parse(status, "amd64", &s), 0);
	assert_int_equal(s.n, 13); /* libc6's two architectures are one */
	for (i = 0; i < s.n; i++)
		if (!strcmp(s.p[i].name, "libc6"))
			assert_string_equal(s.p[i].arch, "amd64");
	assert_int_equal(hostpkg_mark(&s, roots, 2, &missing), 0);
	assert_true(in(&s, "app"));
	assert_true(in(&s, "liba"));
	assert_true(in(&s, "libc6"));
	assert_true(in(&s, "postfix")); /* mta is not installed: its provider */
	assert_true(in(&s, "foo"));	/* foo:any */
	assert_true(in(&s, "bar"));	/* Pre-Depends */
	assert_true(in(&s, "coreutils")); /* Essential */
	assert_true(in(&s, "big"));
	assert_true(in(&s, "libz")); /* libs_only: lib* followed */
	assert_false(in(&s, "grub"));
	assert_false(in(&s, "perl"));
	assert_false(in(&s, "unused"));
	assert_false(in(&s, "mta"));
	assert_int_equal(hostpkg_count(&s), 9);
	hostpkg_release(&s);
}

static void test_missing_root(void **state)
{
	static const struct hostpkg_root roots[] = {{"app", false},
						    {"mta", false}};
	struct hostpkg_set s;
	const char *missing = NULL;

	(void)state;
	assert_int_equal(hostpkg_parse(status, "amd64", &s), 0);
	assert_int_equal(hostpkg_mark(&s, roots, 2, &missing), -ENOENT);
	assert_string_equal(missing, "mta"); /* known, not installed */
	hostpkg_release(&s);
}

/*
 * dpkg's status filtered to the closure: a package in it (its architecture),
 * not one outside it, not its other architecture, not one whose Status is
 * not installed, each stanza whole and ended by a blank line.
 */
static void test_status(void **state)
{
	static const struct hostpkg_root roots[] = {{"app", false}};
	static const char dpkg[] =
	    "Package: app\nStatus: install ok installed\nArchitecture: amd64\n"
	    "Version: 1\nDescription: the app\n more of it\n\n"
	    "Package: unused\nStatus: install ok installed\n"
	    "Architecture: amd64\n\n"
	    "Package: libc6\nStatus: install ok installed\n"
	    "Architecture: i386\n\n"
	    "Package: libc6\nStatus: install ok installed\n"
	    "Architecture: amd64\nVersion: 3\n\n\n"
	    "Package: mta\nStatus: deinstall ok config-files\n"
	    "Architecture: all\n\n"
	    "Package: liba\nStatus: install ok installed\n"
	    "Architecture: amd64"; /* the last, with no newline */
	struct hostpkg_set s;
	const char *missing = NULL;
	char *out;

	(void)state;
	assert_int_equal(hostpkg_parse(status, "amd64", &s), 0);
	assert_int_equal(hostpkg_mark(&s, roots, 1, &missing), 0);
	out = hostpkg_status_new(&s, dpkg);
	assert_string_equal(
	    out,
	    "Package: app\nStatus: install ok installed\nArchitecture: amd64\n"
	    "Version: 1\nDescription: the app\n more of it\n\n"
	    "Package: libc6\nStatus: install ok installed\n"
	    "Architecture: amd64\nVersion: 3\n\n"
	    "Package: liba\nStatus: install ok installed\n"
	    "Architecture: amd64\n\n");
	free(out);
	out = hostpkg_status_new(&s, "");
	assert_string_equal(out, "");
	free(out);
	hostpkg_release(&s);
}

static void test_bad_line(void **state)
{
	struct hostpkg_set s;

	(void)state;
	assert_int_equal(hostpkg_parse("app\t1\n", "amd64", &s), -EINVAL);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_closure),
	    cmocka_unit_test(test_missing_root),
	    cmocka_unit_test(test_status),
	    cmocka_unit_test(test_bad_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
