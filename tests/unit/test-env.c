/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the environment variables vmtax reads are the table's
 * (lib/env.h).  Every getenv() and setenv() in the source names its
 * variable through the table's constant, and every page the table names
 * prints its ENVIRONMENT section from it (@ENVIRONMENT@ in man/PAGE.N.in,
 * which build/gen-man-env fills).  Run from the top of the tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "env.h"
#include "util.h"

/* The source folders, each with its folders (orchestrator/cli, ...). */
static const char *const src_dirs[] = {
	"lib", "host", "orchestrator", "guest-image", "reports",
};

/* The system's, read for the commands vmtax runs (env.h). */
static const char *const not_ours[] = { "PATH" };

static const struct env_var *row_of_constant(const char *c, size_t n)
{
	const struct env_var *v;
	size_t nv, i;

	v = env_vars(&nv);
	for (i = 0; i < nv; i++)
		if (strlen(v[i].constant) == n && !strncmp(v[i].constant, c, n))
			return &v[i];
	return NULL;
}

/*
 * What is wrong with the call whose argument starts at ARG (after
 * "getenv(" or "setenv("), or NULL: a name in quotes (but PATH), or an
 * identifier that is not a constant of the table.
 */
static char *call_problem(const char *arg)
{
	size_t n, i;

	while (*arg == ' ')
		arg++;
	if (*arg == '"') {
		n = strcspn(arg + 1, "\"");
		for (i = 0; i < ARRAY_SIZE(not_ours); i++)
			if (strlen(not_ours[i]) == n &&
			    !strncmp(arg + 1, not_ours[i], n))
				return NULL;
		return xasprintf("%.*s): a name in quotes: add it to "
				 "lib/env.h's table and read it through its "
				 "constant",
				 (int)n + 2, arg);
	}
	for (n = 0; isalnum((unsigned char)arg[n]) || arg[n] == '_'; n++)
		;
	/* "setenv()" in a comment names the function, not a variable */
	if ((n == 0 && *arg == ')') || row_of_constant(arg, n))
		return NULL;
	return xasprintf("%.*s): '%.*s' is not a constant of lib/env.h's "
			 "table",
			 (int)n, arg, (int)n, arg);
}

/* Check every getenv( and setenv( of PATH; the problems, counted. */
static int check_file(const char *path)
{
	static const char *const calls[] = { "getenv(", "setenv(" };
	char *text = NULL, *why;
	const char *p, *q;
	int bad = 0, line;
	size_t i;

	assert_int_equal(read_file(path, 4 << 20, &text, NULL), 0);
	for (i = 0; i < ARRAY_SIZE(calls); i++) {
		for (p = text; (p = strstr(p, calls[i])); p += strlen(calls[i])) {
			/* secure_getenv( counts; unsetenv( and my_getenv( not */
			if (p > text && (isalnum((unsigned char)p[-1]) ||
					 (p[-1] == '_' &&
					  (p - text < 7 ||
					   strncmp(p - 7, "secure_", 7)))))
				continue;
			why = call_problem(p + strlen(calls[i]));
			if (!why)
				continue;
			for (line = 1, q = text; q < p; q++)
				line += *q == '\n';
			print_error("%s:%d: %s%s\n", path, line, calls[i], why);
			free(why);
			bad++;
		}
	}
	free(text);
	return bad;
}

static int check_dir(const char *dir, int *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int bad = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *path;

		if (e->d_type == DT_DIR && e->d_name[0] != '.') {
			path = xasprintf("%s/%s", dir, e->d_name);
			bad += check_dir(path, files);
			free(path);
			continue;
		}
		if (n < 3 || e->d_name[n - 2] != '.' ||
		    (e->d_name[n - 1] != 'c' && e->d_name[n - 1] != 'h'))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		/* the table itself, and the comment that shows its use */
		if (strcmp(path, "lib/env.h") && strcmp(path, "lib/env.c")) {
			bad += check_file(path);
			(*files)++;
		}
		free(path);
	}
	closedir(d);
	return bad;
}

static void test_every_getenv_is_the_table(void **state)
{
	int bad = 0, files = 0;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(src_dirs); i++)
		bad += check_dir(src_dirs[i], &files);
	assert_true(files > 100); /* the tree was found */
	assert_int_equal(bad, 0);
}

/* The scan finds what it is for: a name in quotes, an unknown constant. */
static void test_the_scan_finds_them(void **state)
{
	char *why;

	(void)state;
	why = call_problem("\"VMTAX_NEW_THING\")");
	assert_non_null(why);
	assert_non_null(strstr(why, "\"VMTAX_NEW_THING\"): a name in quotes"));
	free(why);
	why = call_problem("ENV_NO_SUCH)");
	assert_non_null(why);
	assert_non_null(strstr(why, "'ENV_NO_SUCH' is not a constant"));
	free(why);
	assert_null(call_problem("ENV_TIMINGS_DIR)"));
	assert_null(call_problem("\"PATH\")"));
	assert_null(call_problem(")")); /* "setenv()" in a comment */
}

/* man/PAGE.N.in for PAGE (N = 1, 5 or 8), read; NULL when there is none. */
static char *man_in(const char *page, size_t n)
{
	static const char sections[] = "158";
	char *path, *text = NULL;
	size_t i;

	for (i = 0; i < sizeof(sections) - 1; i++) {
		path = xasprintf("man/%.*s.%c.in", (int)n, page, sections[i]);
		if (read_file(path, 1 << 20, &text, NULL) == 0) {
			free(path);
			return text;
		}
		free(path);
	}
	return NULL;
}

static void test_every_page_prints_the_table(void **state)
{
	const struct env_var *v;
	size_t nv, i, n;
	const char *p;
	char *text;
	int hits;

	(void)state;
	v = env_vars(&nv);
	assert_true(nv >= 4);
	text = man_in("vmtax", 5);
	assert_non_null(text);
	assert_non_null(strstr(text, "\n@ENVIRONMENT@\n"));
	free(text);
	for (i = 0; i < nv; i++) {
		assert_true(strlen(v[i].name) > 0);
		assert_true(!strncmp(v[i].constant, "ENV_", 4));
		assert_true(strlen(v[i].roff) > 0);
		hits = 0;
		for (p = v[i].pages; *p; p += n) {
			p += strspn(p, " ");
			n = strcspn(p, " ");
			if (!n)
				break;
			text = man_in(p, n);
			if (!text)
				print_error("%s: no man page '%.*s'\n",
					    v[i].name, (int)n, p);
			assert_non_null(text);
			if (!strstr(text, "\n@ENVIRONMENT@\n"))
				print_error("man page '%.*s' lists %s but has "
					    "no @ENVIRONMENT@\n",
					    (int)n, p, v[i].name);
			assert_non_null(strstr(text, "\n@ENVIRONMENT@\n"));
			free(text);
			hits++;
		}
		assert_true(hits > 0); /* each is on a command's page too */
	}
}

/* No page writes an ENVIRONMENT section by hand: the table prints it. */
static void test_no_page_by_hand(void **state)
{
	DIR *d = opendir("man");
	struct dirent *e;
	char *path, *text;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 4 || strcmp(e->d_name + n - 3, ".in"))
			continue;
		path = xasprintf("man/%s", e->d_name);
		assert_int_equal(read_file(path, 1 << 20, &text, NULL), 0);
		if (strstr(text, ".SH ENVIRONMENT"))
			print_error("%s: an ENVIRONMENT section by hand\n",
				    path);
		assert_null(strstr(text, ".SH ENVIRONMENT"));
		free(text);
		free(path);
	}
	closedir(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_getenv_is_the_table),
		cmocka_unit_test(test_the_scan_finds_them),
		cmocka_unit_test(test_every_page_prints_the_table),
		cmocka_unit_test(test_no_page_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
