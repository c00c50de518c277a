/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the subcommands' option parser (orchestrator/cli/cmd-opts.c)
 * and the command line run and lab run share (orchestrator/cli/run-args.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-opts.h"
#include "run-args.h"
#include "util.h"

struct t_args {
	const char *out;
	struct opt_strings sets;
	bool dry;
	int ncb;
	char last_cb[32];
};

static int t_cb(void *args, char *arg)
{
	struct t_args *a = args;

	if (!strcmp(arg, "bad"))
		return -EINVAL;
	a->ncb++;
	snprintf(a->last_cb, sizeof(a->last_cb), "%s", arg);
	return 0;
}

static const char *t_names(void)
{
	return "a, b";
}

static const struct opt t_opts[] = {
	{ 'o', "out", OPT_STRING, offsetof(struct t_args, out), NULL, "DIR",
	  "where", NULL },
	{ 's', "set", OPT_STRINGS, offsetof(struct t_args, sets), NULL,
	  "S.K=V", "a key\nand its value", NULL },
	{ 'n', "dry-run", OPT_FLAG, offsetof(struct t_args, dry), NULL, NULL,
	  "%s (default a)", t_names },
	{ 0, "pair", OPT_CALLBACK, 0, t_cb, "A,B", "a pair", NULL },
	{ 0, "a-very-long-option", OPT_STRING, offsetof(struct t_args, out),
	  NULL, "LONGARGUMENT", "too long for the column", NULL },
	OPT_ROW_END,
};

static int usages_out, usages_err;

static void t_usage(FILE *f)
{
	if (f == stdout)
		usages_out++;
	else
		usages_err++;
}

/* The words of LINE as an argv (argv[0] "cmd"), owned. */
static char **split_line(const char *line, int *argcp)
{
	char *copy = xstrdup(line), *w, *save = NULL;
	char **argv = xcalloc(16, sizeof(*argv));
	int argc = 0;

	argv[argc++] = xstrdup("cmd");
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = xstrdup(w);
	free(copy);
	usages_out = usages_err = 0;
	*argcp = argc;
	return argv;
}

/* Parse the words of LINE into A; ARGV is left for the caller. */
static int parse_line(const char *line, struct t_args *a, char ***argvp,
		      int *argcp)
{
	*argvp = split_line(line, argcp);
	memset(a, 0, sizeof(*a));
	return opts_parse(t_opts, t_usage, a, *argcp, *argvp);
}

static void free_argv(char **argv, int argc)
{
	int i;

	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

static void test_parse(void **state)
{
	/* Each row: a command line, what opts_parse() returns, the operands. */
	static const struct {
		const char *line;
		int ret;
		int noperands, out, err;
	} rows[] = {
		{ "", 1, 0, 0, 0 },
		{ "x", 1, 1, 0, 0 },
		{ "-o d x", 3, 1, 0, 0 },
		{ "x --out=d -s a=1 --set b=2", 6, 1, 0, 0 },
		{ "--dry-run x y", 2, 2, 0, 0 },
		{ "x --pair p,q", 3, 1, 0, 0 },
		{ "--help", OPTS_HELP, 0, 1, 0 },
		{ "x -h", OPTS_HELP, 0, 1, 0 },
		{ "--nosuch", OPTS_BAD, 0, 0, 1 },
		{ "--out", OPTS_BAD, 0, 0, 1 },
		{ "-q", OPTS_BAD, 0, 0, 1 },
		{ "--pair bad", OPTS_BAD, 0, 0, 0 }, /* the callback said why */
		{ "--dry-run=yes", OPTS_BAD, 0, 0, 1 },
	};
	struct t_args a;
	char **argv;
	size_t i;
	int argc, ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		ret = parse_line(rows[i].line, &a, &argv, &argc);
		print_message("'%s' -> %d\n", rows[i].line, ret);
		assert_int_equal(ret, rows[i].ret);
		if (ret >= 0)
			assert_int_equal(argc - ret, rows[i].noperands);
		assert_int_equal(usages_out, rows[i].out);
		assert_int_equal(usages_err, rows[i].err);
		free(a.sets.v);
		free_argv(argv, argc);
	}
	assert_int_equal(opts_status(OPTS_HELP), 0);
	assert_int_equal(opts_status(OPTS_BAD), 2);
}

static void test_targets(void **state)
{
	struct t_args a;
	char **argv;
	int argc, ret;

	(void)state;
	ret = parse_line("x -s a=1 --out d --set b=2 -n --pair p,q -o e", &a,
			 &argv, &argc);
	assert_int_equal(ret, argc - 1);
	assert_string_equal(argv[ret], "x");
	assert_string_equal(a.out, "e"); /* the last one given */
	assert_int_equal(a.sets.n, 2);
	assert_string_equal(a.sets.v[0], "a=1");
	assert_string_equal(a.sets.v[1], "b=2");
	assert_true(a.dry);
	assert_int_equal(a.ncb, 1);
	assert_string_equal(a.last_cb, "p,q");
	free(a.sets.v);
	free_argv(argv, argc);
}

static void test_help(void **state)
{
	static const char want[] =
	    "  -o, --out DIR    where\n"
	    "  -s, --set S.K=V  a key\n"
	    "                   and its value\n"
	    "  -n, --dry-run    a, b (default a)\n"
	    "  --pair A,B       a pair\n"
	    "  --a-very-long-option LONGARGUMENT\n"
	    "                   too long for the column\n"
	    "  -h, --help       this text\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	opts_help(f, t_opts, 2, 19);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static const struct opt r_opts[] = {
	{ 'o', "out", OPT_STRING, offsetof(struct run_args, out), NULL, "DIR",
	  "", NULL },
	{ 's', "set", OPT_STRINGS, offsetof(struct run_args, sets), NULL,
	  "S.K=V", "", NULL },
	{ 'r', "resume", OPT_STRING, offsetof(struct run_args, resume), NULL,
	  "DIR", "", NULL },
	{ 'f', "force", OPT_FLAG, offsetof(struct run_args, force), NULL, NULL,
	  "", NULL },
	{ 'n', "dry-run", OPT_FLAG, offsetof(struct run_args, dry), NULL, NULL,
	  "", NULL },
	OPT_ROW_END,
};

static void test_run_args(void **state)
{
	/* Each row: a run command line and whether it is taken. */
	static const struct {
		const char *line;
		int ret;
	} rows[] = {
		{ "c.ini", 0 },
		{ "c.ini -o d -s a=1", 0 },
		{ "c.ini -n -s a=1", 0 },
		{ "--resume d", 0 },
		{ "--resume d --force", 0 },
		{ "", OPTS_BAD },
		{ "a.ini b.ini", OPTS_BAD },
		/* a command line that runs checks with -n added (issue 37) */
		{ "c.ini -n -o d", 0 },
		{ "--resume d -n", 0 },
		{ "--resume d c.ini", OPTS_BAD },
		{ "--resume d -o e", OPTS_BAD },
		{ "--resume d -s a=1", OPTS_BAD },
		{ "-h", OPTS_HELP },
	};
	struct run_args a;
	char **argv;
	size_t i;
	int argc, ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		argv = split_line(rows[i].line, &argc);
		ret = run_args_parse(r_opts, t_usage, argc, argv, &a);
		print_message("'%s' -> %d\n", rows[i].line, ret);
		assert_int_equal(ret, rows[i].ret);
		if (ret == 0) {
			assert_true(!a.resume == !!a.config);
			run_args_release(&a);
		}
		free_argv(argv, argc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_run_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
