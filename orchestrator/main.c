/* SPDX-License-Identifier: MIT */
/* vmtax - measure what virtualization costs a workload. */
#include <stdio.h>
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

	fprintf(f, "usage: vmtax [--version] [--help] COMMAND [ARGS]\n\n"
		   "commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'vmtax COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--complete")) {
		if (argc > 2 && !strcmp(argv[2], "commands")) {
			for (i = 0; i < ARRAY_SIZE(commands); i++)
				printf("%s\n", commands[i].name);
			return 0;
		}
		return cmd_complete(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("vmtax %s\n", VMTAX_VERSION);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	err("'%s' is not a vmtax command; see 'vmtax --help'", argv[1]);
	return EXIT_USAGE;
}
