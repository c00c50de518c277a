/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the INI reader (orchestrator/config/ini-schema.c) is not quadratic
 * in what a file holds.  A config of 100,000 sections, one of 40,000
 * [host] knobs and a workload of 30,000 parameters are parsed while every
 * strcmp() of the parse is counted (this binary is linked with
 * -Wl,--wrap=strcmp: the Makefile says so), and each may cost at most
 * PER_LINE comparisons a line.  A list searched for each new name costs
 * n^2/2 (5e9 for 100,000 sections); the trees of ini-schema.c cost about
 * 2 log2 n a name.  No clock: the count is the measure, and a parse over
 * its budget stops at once (the test fails rather than runs for minutes).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-dir.h"

#include "run-config.h"
#include "util.h"
#include "workload-def.h"

/*
 * Comparisons a line may cost.  A [host] key costs about 150 (the schema's
 * sections and keys are searched for it, ~60 each, then the knob rules and
 * the tree); a section header about 35 (its tree).
 */
#define PER_LINE 400

static char tmpdir[] = "/tmp/vmtax-test-ini-linear.XXXXXX";
static unsigned long long compares, budget;

int __real_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b);

int __wrap_strcmp(const char *a, const char *b)
{
	if (budget && ++compares > budget)
		fail_msg("more than %llu string comparisons: quadratic?",
			 budget);
	return __real_strcmp(a, b);
}

static int setup(void **state)
{
	(void)state;
	return config_dir_make(tmpdir, "walk",
			       "[workload]\nrun = true\nmetric = elapsed\n");
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(tmpdir);
}

/* DIR/NAME: HEAD, then LINE(i) for i < N, then TAIL; its line count. */
static size_t write_big(const char *name, const char *head, const char *line,
			int n, const char *tail)
{
	char *p = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(p, "w");
	size_t lines = 0;
	const char *c;
	int i;

	assert_non_null(f);
	fputs(head, f);
	for (i = 0; i < n; i++)
		fprintf(f, line, i);
	fputs(tail, f);
	assert_int_equal(fclose(f), 0);
	for (c = head; *c; c++)
		lines += *c == '\n';
	for (c = tail; *c; c++)
		lines += *c == '\n';
	free(p);
	return lines + (size_t)n;
}

/* Parse through F while counting; stderr into ERRBUF.  F's result. */
static int counted(int (*f)(const char *path, void *obj), const char *name,
		   void *obj, size_t lines, char *errbuf, size_t len)
{
	char *p = xasprintf("%s/%s", tmpdir, name);
	char *e = xasprintf("%s/stderr", tmpdir);
	int fd, saved, ret;
	ssize_t n;

	fflush(stderr);
	saved = dup(2);
	fd = open(e, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	compares = 0;
	budget = PER_LINE * (unsigned long long)lines;
	ret = f(p, obj);
	budget = 0;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, errbuf, len - 1, 0);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	print_message("%zu lines: %llu comparisons\n", lines, compares);
	free(e);
	free(p);
	return ret;
}

static int run_load(const char *path, void *obj)
{
	return run_config_load(path, NULL, 0, obj);
}

static int wl_load(const char *path, void *obj)
{
	return workload_load(path, obj);
}

/* One error, the last line's, and nothing else. */
static void only_error(const char *errbuf, const char *want)
{
	const char *at = strstr(errbuf, want);

	if (!at)
		fail_msg("got '%.300s', wanted '%s'", errbuf, want);
	assert_ptr_equal(strchr(errbuf, '\n'), strchr(at, '\n'));
}

static void test_sections(void **state)
{
	char errbuf[4096], *want;
	struct run_config c;
	size_t lines;

	(void)state;
	lines = write_big("sections.ini", "[workload]\nname = walk\n",
			  "[s%d]\n", 100000, "[s5]\n");
	assert_int_equal(counted(run_load, "sections.ini", &c, lines, errbuf,
				 sizeof(errbuf)),
			 -EINVAL);
	want = xasprintf("%s/sections.ini:%zu: section [s5] appears twice "
			 "(first on line 8)",
			 tmpdir, lines);
	only_error(errbuf, want);
	free(want);
	run_config_release(&c);
}

static void test_host_keys(void **state)
{
	char errbuf[4096], *want;
	struct run_config c;
	size_t lines;

	(void)state;
	lines = write_big("keys.ini", "[workload]\nname = walk\n[host]\n",
			  "sysctl.vm.k%d = 1\n", 40000, "sysctl.vm.k7 = 2\n");
	assert_int_equal(
	    counted(run_load, "keys.ini", &c, lines, errbuf, sizeof(errbuf)),
	    -EINVAL);
	want = xasprintf("%s/keys.ini:%zu: 'sysctl.vm.k7' is set twice in "
			 "[host] (first on line 11)",
			 tmpdir, lines);
	only_error(errbuf, want);
	free(want);
	run_config_release(&c);
}

static void test_workload_params(void **state)
{
	char errbuf[4096];
	struct workload w;
	size_t lines;

	(void)state;
	lines = write_big("params.ini", "[workload]\nrun = true\n",
			  "[param.P%d]\ndefault = 1\n", 30000, "") +
		30000; /* two lines a parameter */
	assert_int_equal(
	    counted(wl_load, "params.ini", &w, lines, errbuf, sizeof(errbuf)),
	    0);
	assert_string_equal(errbuf, "");
	assert_int_equal(w.nparams, 30000);
	assert_string_equal(w.params[29999].name, "P29999");
	assert_int_equal(w.params[29999].line, 4 + 2 * 29999);
	workload_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sections),
	    cmocka_unit_test(test_host_keys),
	    cmocka_unit_test(test_workload_params),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
