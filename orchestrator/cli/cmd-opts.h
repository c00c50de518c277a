/* SPDX-License-Identifier: MIT */
/*
 * cmd-opts.h - the subcommands' options: one table per command, one parser.
 *
 * A command declares its options once, in a static const table of struct
 * opt that ends with OPT_END; each row names the option (short and long),
 * what it takes, where it goes (a field of the command's own args struct,
 * by offsetof, or a callback) and its --help text.  opts_parse() parses
 * argv with it (getopt_long underneath, so its messages are getopt's), and
 * answers -h/--help and bad usage the same way for every command: --help
 * prints the command's usage to stdout (exit 0), anything else it cannot
 * take prints it to stderr (exit EXIT_USAGE, cmds.h).  opts_help() prints
 * the table's rows for that usage, -h/--help last; no table lists it.
 *
 * How to add an option: add a row to the command's table and, unless it is
 * a callback, the field it fills to the command's args struct.
 */
#ifndef VMTAX_CMD_OPTS_H
#define VMTAX_CMD_OPTS_H

#include <stddef.h>
#include <stdio.h>

enum opt_kind {
	OPT_END = 0,	/* ends a table */
	OPT_FLAG,	/* bool, set to true */
	OPT_STRING,	/* const char *, the argument (the last one given) */
	OPT_STRINGS,	/* struct opt_strings, every argument in order */
	OPT_CALLBACK,	/* cb(args, argument); takes one iff argh is set */
};

/* OPT_STRINGS: the arguments of a repeatable option (v is owned, free it). */
struct opt_strings {
	const char **v;
	size_t n;
};

struct opt {
	char short_name;	/* 0: long only */
	const char *long_name;
	enum opt_kind kind;
	size_t offset;		/* of the target in the args struct */
	/* OPT_CALLBACK: < 0 ends the parse with EXIT_USAGE (cb said why) */
	int (*cb)(void *args, char *arg); /* arg: argv's own, writable */
	const char *argh;	/* the argument's name in --help; NULL: none */
	const char *help;	/* lines after the first are indented alike */
	/* When set, the "%s" in help is its value (a registry's names). */
	const char *(*help_arg)(void);
};

#define OPT_ROW_END { 0, NULL, OPT_END, 0, NULL, NULL, NULL, NULL }

/* What opts_parse() returns when the command must end at once. */
#define OPTS_HELP (-1)	/* --help was printed: exit 0 */
#define OPTS_BAD (-2)	/* bad usage, said on stderr: exit EXIT_USAGE */

/*
 * Parse argv[1..] (argv[0] is the command's name) into ARGS with OPTS,
 * options and operands in any order.  Returns the index in argv of the
 * first operand (argv is permuted so that they come last), or OPTS_HELP or
 * OPTS_BAD, having printed USAGE where it goes.
 */
int opts_parse(const struct opt *opts, void (*usage)(FILE *f), void *args,
	       int argc, char **argv);

/*
 * opts_parse() for options before a command word: it stops at the first
 * operand (getopt's '+'), which is argv[return value] (main.c's global
 * options, before COMMAND).
 */
int opts_parse_head(const struct opt *opts, void (*usage)(FILE *f),
		    void *args, int argc, char **argv);

/* The exit status for what opts_parse() returned when it is < 0. */
int opts_status(int parsed);

/* Usage to stderr, the status of a bad call: for operand checks. */
int opts_usage_error(void (*usage)(FILE *f));

/*
 * The table's rows as --help shows them: INDENT spaces, "-o, --out DIR",
 * the help text from column COLUMN on (a row too long for that gets its
 * help on the next line), then "-h, --help  this text".
 */
void opts_help(FILE *f, const struct opt *opts, int indent, int column);

#endif
