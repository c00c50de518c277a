/* SPDX-License-Identifier: MIT */
/*
 * vmtax lab run CONFIG: 'vmtax run CONFIG --set run.executor=lab', the
 * config's matrix run inside a lab host (exec-lab.c, lab.h, docs/lab.md).
 * A config that says [run] executor = lab runs there with 'vmtax run'
 * alone; this command is kept as a name for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax lab run CONFIG [--out DIR] [--set SECTION.KEY=VALUE]...\n"
		"       vmtax lab run --resume DIR [--dry-run]\n"
		"       vmtax lab run CONFIG --dry-run [--set SECTION.KEY=VALUE]...\n"
		"       vmtax lab up CONFIG --dir DIR --ssh-port PORT --authorized-key FILE\n"
		"\n"
		"Runs CONFIG's matrix inside a lab host: 'vmtax run CONFIG --set\n"
		"run.executor=lab' (a config with [run] executor = lab needs only\n"
		"'vmtax run').  The lab host is a TCG guest of this host whose\n"
		"emulated CPU offers AMD-V with nested paging (svm, npt), so that\n"
		"KVM runs inside it for real: npt = on, off reloads kvm_amd there,\n"
		"its guests are KVM guests, and what KVM saw is recorded.  The lab\n"
		"boots the lab image (built on first use: 'vmtax image build --kind\n"
		"lab', minutes); its size and CPU are the config's [lab] keys.  The\n"
		"run's output shows here as it goes, and its results, reports and\n"
		"logs come back into DIR, labelled as measured on\n"
		"emulated hardware.  This host's settings are never changed.  Ctrl-C stops\n"
		"the run inside (it keeps its samples); '--resume DIR' goes on\n"
		"after an interruption or a crash.  Options: 'vmtax run --help'.\n"
		"\n"
		"[lab] keys (see 'vmtax run --help'): cpu, cpu_features, vcpus,\n"
		"memory.  Refused before anything boots: ept (the lab is AMD), 1G\n"
		"backing without pdpe1gb, guests larger than the lab, a lab larger\n"
		"than this host.\n");
}

/* 'lab run ARGS' as 'run ARGS --set run.executor=lab' (not with --resume:
 * the run directory says where it runs). */
static int lab_run(int argc, char **argv)
{
	char **av = xcalloc((size_t)argc + 3, sizeof(*av));
	bool resume = false, help = false;
	int i, n = 0, ret;

	for (i = 1; i < argc; i++) {
		resume |= !strcmp(argv[i], "--resume") ||
			  !strcmp(argv[i], "-r") ||
			  !strncmp(argv[i], "--resume=", 9);
		help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	}
	if (help) {
		free(av);
		usage(stdout);
		return 0;
	}
	av[n++] = "run";
	if (!resume) {
		av[n++] = "--set";
		av[n++] = "run.executor=lab";
	}
	for (i = 1; i < argc; i++)
		av[n++] = argv[i];
	ret = cmd_run(n, av);
	free(av);
	return ret;
}

int cmd_lab(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return lab_run(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "up"))
		return cmd_lab_up(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return EXIT_USAGE;
}
