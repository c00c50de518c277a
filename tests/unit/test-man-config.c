/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: vmtax-config(5) is printed from the key tables
 * (run_config_print_man, workload_print_man): every key of every table appears
 * in its section, with its type; roff escaping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "host.h"
#include "run-config.h"
#include "util.h"
#include "workload-def.h"

/* PRINT's output (owned). */
static char *render(void (*print)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print(f);
	fclose(f);
	return buf;
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ini_man_text(f, s);
	fclose(f);
	return buf;
}

/*
 * Whether PAGE lists NAME (".TP\n.B NAME\n") inside ".SS HEADING" (before the
 * next .SS or .SH).
 */
static bool listed(const char *page, const char *heading, const char *name)
{
	char *ss = xasprintf(".SS %s\n", heading), *ename = escaped(name);
	char *entry = xasprintf(".TP\n.B %s\n", ename);
	const char *sec = strstr(page, ss), *end, *hit;
	bool ok = false;

	if (sec) {
		const char *nss = strstr(sec + 1, "\n.SS "),
			   *nsh = strstr(sec + 1, "\n.SH ");

		end = !nss ? nsh : !nsh ? nss : nss < nsh ? nss : nsh;
		hit = strstr(sec, entry);
		ok = hit && (!end || hit < end);
	}
	free(ss);
	free(ename);
	free(entry);
	return ok;
}

static void test_every_run_key(void **state)
{
	const struct ini_schema *s = run_config_schema();
	char *page = render(run_config_print_man), *h;
	const char *k;
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < s->nkeys; i++) {
		h = xasprintf("[%s]", s->keys[i].section);
		/* a hidden key (set by vmtax itself) is not on the page */
		if (listed(page, h, s->keys[i].name) == s->keys[i].hidden)
			fail_msg("[%s] %s is %sin vmtax-config(5)",
				 s->keys[i].section, s->keys[i].name,
				 s->keys[i].hidden ? "" : "not ");
		free(h);
		n++;
	}
	assert_true(n >= 20);
	for (i = 0; (k = host_knob_name(i)); i++) {
		char why[256];

		if (run_config_host_knob_check(k, why, sizeof(why)) == 0 &&
		    !listed(page, "[host]", k))
			fail_msg("host knob %s is not in vmtax-config(5)", k);
	}
	assert_true(listed(page, "[guest] knobs", "sysctl.A.B"));
	assert_true(listed(page, "[workload] parameters", "NAME"));
	/* a key's type, default and choices come with it */
	assert_non_null(strstr(page, ".B repeat\n\\fIinteger\\fR: "));
	assert_non_null(strstr(page, "One of: auto, kvm, tcg.\n"));
	assert_non_null(strstr(page, "Default: \\fBqemu:///system\\fR.\n"));
	/* a key in the wrong section is not found there */
	assert_false(listed(page, "[run]", "vcpus"));
	free(page);
}

static void test_every_workload_key(void **state)
{
	const struct ini_schema *s = workload_def_schema();
	char *page = render(workload_print_man), *h;
	size_t i;

	(void)state;
	assert_true(s->nkeys >= 10);
	for (i = 0; i < s->nkeys; i++) {
		h = xasprintf("[%s]", s->keys[i].section);
		if (!listed(page, h, s->keys[i].name))
			fail_msg("workload key %s is not in vmtax-config(5)",
				 s->keys[i].name);
		free(h);
	}
	assert_true(listed(page, "[param.NAME]", "default"));
	assert_true(listed(page, "[param.NAME]", "description"));
	assert_true(listed(page, "[param.NAME]", "type"));
	assert_true(listed(page, "[param.NAME]", "min"));
	assert_true(listed(page, "[param.NAME]", "max"));
	assert_true(listed(page, "[param.NAME]", "choices"));
	free(page);
}

static void test_escaping(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"plain", "plain"},
	    {"bare-metal", "bare\\-metal"},
	    {".starts with a dot", "\\&.starts with a dot"},
	    {"'quote first", "\\&'quote first"},
	    {"it's mid-line", "it's mid\\-line"},
	    {"back\\slash", "back\\eslash"},
	    {"a\n.b", "a\n\\&.b"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = escaped(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_run_key),
	    cmocka_unit_test(test_every_workload_key),
	    cmocka_unit_test(test_escaping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
