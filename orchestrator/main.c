/* SPDX-License-Identifier: MIT */
/* vmtax - measure what virtualization costs a workload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: vmtax [-V|--version] [-h|--help] COMMAND [ARGS]\n"
		   "       vmtax help COMMAND\n\n"
		   "commands:\n");
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
	const struct cmd *c;
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--complete")) {
		if (argc > 2 && !strcmp(argv[2], "commands")) {
			for (i = 0; i < ARRAY_SIZE(commands); i++)
				printf("%s\n", commands[i].name);
			return 0;
		}
		return cmd_complete(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("vmtax %s\n", VMTAX_VERSION);
		return 0;
	}
	if (!(c = find_cmd(argv[1])))
		return EXIT_USAGE;
	return c->fn(argc - 1, argv + 1);
}
