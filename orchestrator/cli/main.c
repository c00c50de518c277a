/* SPDX-License-Identifier: MIT */
/* vmtax - measure what virtualization costs a workload. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "util.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd commands[] = {
	{ "run", cmd_run, "run a config's matrix of cells and record results" },
	{ "calibrate", cmd_calibrate, "an A/A run: is the config's result consistent with a re-run" },
	{ "report", cmd_report, "render a run's results (text, md, csv, json, html)" },
	{ "compare", cmd_compare, "compare runs cell by cell, or pivot one axis" },
	{ "host", cmd_host, "probe the host, or restore host state by hand" },
	{ "workloads", cmd_workloads, "list the available workloads" },
	{ "image", cmd_image, "build a guest image (tiny initramfs or debian qcow2)" },
	{ "lab", cmd_lab, "run a config inside a lab host (emulated AMD-V, real KVM)" },
};

/* The options before COMMAND, for every command. */
struct global_args {
	bool quiet, verbose, version;
};

static const struct opt global_opts[] = {
	{ 'q', "quiet", OPT_FLAG, offsetof(struct global_args, quiet), NULL,
	  NULL, "print errors only: no progress, no warnings", NULL },
	{ 'v', "verbose", OPT_FLAG, offsetof(struct global_args, verbose), NULL,
	  NULL, "print the details too: which files, domains, figures", NULL },
	{ 'V', "version", OPT_FLAG, offsetof(struct global_args, version), NULL,
	  NULL, "print vmtax's version", NULL },
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: vmtax [-q|--quiet] [-v|--verbose] [-V|--version] "
		   "[-h|--help] COMMAND [ARGS]\n"
		   "       vmtax help COMMAND\n\n"
		   "options:\n");
	opts_help(f, global_opts, 3, 18);
	fprintf(f, "\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'vmtax help COMMAND' (or 'vmtax COMMAND --help') "
		   "describes a command.\n");
}

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	err("'%s' is not a vmtax command; see 'vmtax --help'", name);
	return NULL;
}

/* 'vmtax help CMD [SUB]...' is 'vmtax CMD [SUB]... --help': the same text. */
static int help(int argc, char **argv)
{
	const struct cmd *c;
	char **av;
	int ret;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (!(c = find_cmd(argv[1])))
		return EXIT_USAGE;
	av = xcalloc((size_t)argc + 1, sizeof(*av));
	memcpy(av, argv + 1, (size_t)(argc - 1) * sizeof(*av));
	av[argc - 1] = "--help";
	ret = c->fn(argc, av);
	free(av);
	return ret;
}

int main(int argc, char **argv)
{
	struct global_args a = { 0 };
	const struct cmd *c;
	int first;
	size_t i;

	if (argc >= 2 && !strcmp(argv[1], "--complete")) {
		if (argc > 2 && !strcmp(argv[2], "commands")) {
			for (i = 0; i < ARRAY_SIZE(commands); i++)
				printf("%s\n", commands[i].name);
			return 0;
		}
		return cmd_complete(argc - 1, argv + 1);
	}
	/* argv[0] stands for the command name opts_parse() skips */
	first = opts_parse_head(global_opts, usage, &a, argc, argv);
	if (first < 0)
		return opts_status(first);
	if (a.version) {
		printf("vmtax %s\n", VMTAX_VERSION);
		return 0;
	}
	if (a.quiet && a.verbose) {
		err("--quiet and --verbose contradict each other");
		return EXIT_USAGE;
	}
	verbosity_set(a.quiet ? VERBOSITY_QUIET
		      : a.verbose ? VERBOSITY_VERBOSE : VERBOSITY_NORMAL);
	if (first >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[first], "help"))
		return help(argc - first, argv + first);
	if (!(c = find_cmd(argv[first])))
		return EXIT_USAGE;
	return c->fn(argc - first, argv + first);
}
