/* SPDX-License-Identifier: MIT */
/* vmtax workloads [DIR]: list the workload definitions and parameters. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "layout.h"
#include "workload-def.h"
#include "util.h"

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int ini_only(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

/* No options but --help (its text written out: the table is empty). */
static const struct opt workloads_opts[] = {
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: vmtax workloads [DIR]\n\n"
		   "Lists the workloads in DIR (default configs/workloads, or\n"
		   "PREFIX/share/vmtax/configs/workloads when installed):\n"
		   "name, description, metric and parameters with defaults.\n"
		   "A workload is one INI file; see docs/adding-a-workload.md.\n");
}

int cmd_workloads(int argc, char **argv)
{
	char bin[PATH_MAX], exe[PATH_MAX];
	const char *dir = "configs/workloads";
	struct dirent **ents = NULL;
	int first, n, i, ret = 0;
	size_t p;

	first = opts_parse(workloads_opts, usage, NULL, argc, argv);
	if (first < 0)
		return opts_status(first);
	if (argc - first > 1)
		return opts_usage_error(usage);
	if (argc - first == 1)
		dir = argv[first];
	else if (layout_bin_find(bin, sizeof(bin), exe, sizeof(exe)) == 0)
		dir = layout_workloads_dir(bin);
	n = scandir(dir, &ents, ini_only, by_name);
	if (n < 0) {
		err_errno("cannot read '%s'", dir);
		return EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, ents[i]->d_name);
		struct workload w;

		if (workload_load(path, &w) < 0) {
			ret = EXIT_USAGE;
		} else {
			printf("%-14s %s\n", w.name, w.description);
			printf("%-14s metric: %s (%s, %s is better)\n", "", w.metric,
			       w.unit, w.better);
			for (p = 0; p < w.nparams; p++) {
				char type[256] = "";

				/* a declared type, as its values are checked */
				if (w.params[p].key.type != INI_STR)
					wl_param_type_str(&w.params[p], type,
							  sizeof(type));
				printf("%-14s %s=%s  %s%s%s%s\n", "",
				       w.params[p].name, w.params[p].value,
				       *type ? "(" : "", type, *type ? ") " : "",
				       w.params[p].description ?: "");
			}
			workload_release(&w);
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	return ret;
}
