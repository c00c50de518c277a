/* SPDX-License-Identifier: MIT */
/* The subcommands' option parser and --help rows (cmd-opts.h). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "util.h"

/* getopt_long's value of row I: its short name, or one no char has. */
static int row_val(const struct opt *o, size_t i)
{
	return o->short_name ? (unsigned char)o->short_name : 256 + (int)i;
}

static bool row_takes_arg(const struct opt *o)
{
	return o->kind == OPT_STRING || o->kind == OPT_STRINGS ||
	       (o->kind == OPT_CALLBACK && o->argh);
}

/* OPTS as getopt_long wants them, -h/--help last; free both.  HEAD: stop
 * at the first operand. */
static void getopt_tables(const struct opt *opts, bool head,
			  struct option **lp, char **sp)
{
	size_t n = 0, i, k = 0;
	struct option *l;
	char *s;

	while (opts[n].kind != OPT_END)
		n++;
	l = xcalloc(n + 2, sizeof(*l));
	s = xcalloc(2 * n + 3, 1);
	if (head)
		s[k++] = '+';
	for (i = 0; i < n; i++) {
		l[i].name = opts[i].long_name;
		l[i].has_arg = row_takes_arg(&opts[i]) ? required_argument
						       : no_argument;
		l[i].val = row_val(&opts[i], i);
		if (opts[i].short_name) {
			s[k++] = opts[i].short_name;
			if (row_takes_arg(&opts[i]))
				s[k++] = ':';
		}
	}
	l[n].name = "help";
	l[n].val = 'h';
	s[k] = 'h';
	*lp = l;
	*sp = s;
}

/* Row VAL's argument ARG into ARGS: 0, or < 0 when a callback refused it. */
static int row_take(const struct opt *opts, int val, void *args, char *arg)
{
	const struct opt *o = opts;
	size_t i;
	char *at;

	for (i = 0; opts[i].kind != OPT_END; i++)
		if (row_val(&opts[i], i) == val)
			break;
	o = &opts[i];
	at = (char *)args + o->offset;
	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)at = true;
		return 0;
	case OPT_STRING:
		*(const char **)at = arg;
		return 0;
	case OPT_STRINGS: {
		struct opt_strings *l = (struct opt_strings *)at;

		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = arg;
		return 0;
	}
	case OPT_CALLBACK:
		return o->cb(args, arg);
	case OPT_END:
		break;
	}
	return -EINVAL;
}

static int parse(const struct opt *opts, bool head, void (*usage)(FILE *f),
		 void *args, int argc, char **argv)
{
	struct option *l;
	char *s;
	int c, ret = 0;

	getopt_tables(opts, head, &l, &s);
	optind = 0; /* a full reset: calibrate parses, then run does */
	while (ret == 0 && (c = getopt_long(argc, argv, s, l, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			ret = OPTS_HELP;
		} else if (c == '?' || c == ':') {
			usage(stderr);
			ret = OPTS_BAD;
		} else if (row_take(opts, c, args, optarg) < 0) {
			ret = OPTS_BAD;
		}
	}
	free(l);
	free(s);
	return ret < 0 ? ret : optind;
}

int opts_parse(const struct opt *opts, void (*usage)(FILE *f), void *args,
	       int argc, char **argv)
{
	return parse(opts, false, usage, args, argc, argv);
}

int opts_parse_head(const struct opt *opts, void (*usage)(FILE *f),
		    void *args, int argc, char **argv)
{
	return parse(opts, true, usage, args, argc, argv);
}

int opts_status(int parsed)
{
	return parsed == OPTS_HELP ? 0 : EXIT_USAGE;
}

int opts_usage_error(void (*usage)(FILE *f))
{
	usage(stderr);
	return EXIT_USAGE;
}

/* HELP from column COLUMN, its later lines indented alike. */
static void help_text(FILE *f, const char *help, const char *arg, int column)
{
	const char *p;

	for (p = help; *p; p++) {
		if (arg && p[0] == '%' && p[1] == 's') {
			fputs(arg, f);
			p++;
		} else {
			fputc(*p, f);
			if (*p == '\n')
				fprintf(f, "%*s", column, "");
		}
	}
	fputc('\n', f);
}

static void help_row(FILE *f, char short_name, const char *long_name,
		     const char *argh, const char *help, const char *arg,
		     int indent, int column)
{
	int n;

	if (short_name)
		n = fprintf(f, "%*s-%c, --%s", indent, "", short_name,
			    long_name);
	else
		n = fprintf(f, "%*s--%s", indent, "", long_name);
	if (argh)
		n += fprintf(f, " %s", argh);
	if (n > column - 2)
		fprintf(f, "\n%*s", column, "");
	else
		fprintf(f, "%*s", column - n, "");
	help_text(f, help, arg, column);
}

void opts_help(FILE *f, const struct opt *opts, int indent, int column)
{
	const struct opt *o;

	for (o = opts; o->kind != OPT_END; o++)
		help_row(f, o->short_name, o->long_name, o->argh, o->help,
			 o->help_arg ? o->help_arg() : NULL, indent, column);
	help_row(f, 'h', "help", NULL, "this text", NULL, indent, column);
}
