/* SPDX-License-Identifier: MIT */
/*
 * vmtax --complete WHAT [ARG]: words for the shell completion
 * (completion/vmtax.bash), one a line, from the same tables and files vmtax
 * uses, so the completion follows vmtax.  Hidden: not in 'vmtax --help'.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "format.h"
#include "host.h"
#include "layout.h"
#include "model.h"
#include "run-config.h"
#include "runner.h"
#include "util.h"

/* The workload and config directories of this vmtax (installed or tree). */
static const char *workloads_dir(void)
{
	char bin[PATH_MAX], exe[PATH_MAX];

	if (layout_bin_find(bin, sizeof(bin), exe, sizeof(exe)) < 0)
		return "configs/workloads";
	return layout_workloads_dir(bin);
}

static int ini_only(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

/* DIR's NAME.ini files: NAME (or DIR/NAME.ini with PATHS). */
static void list_inis(const char *dir, bool paths)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, ini_only, alphasort), i;

	for (i = 0; i < n; i++) {
		if (paths)
			printf("%s/%s\n", dir, ents[i]->d_name);
		else
			printf("%.*s\n", (int)strlen(ents[i]->d_name) - 4,
			       ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

/* --set keys: the table's, the [host] knobs, CONFIG's workload parameters. */
static void keys(const char *config_path)
{
	const struct ini_schema *s = run_config_schema();
	struct run_config c;
	const char *k;
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		if (!s->keys[i].hidden)
			printf("%s.%s\n", s->keys[i].section,
			       s->keys[i].name);
	for (i = 0; (k = host_knob_name(i)); i++) {
		char why[256];

		if (run_config_host_knob_check(k, why, sizeof(why)) == 0)
			printf("host.%s\n", k);
	}
	if (!config_path || run_config_load(config_path, NULL, 0, &c) < 0)
		return;
	for (i = 0; i < c.wl.nparams; i++)
		printf("workload.%s\n", c.wl.params[i].name);
	run_config_release(&c);
}

/* The values SECTION.KEY takes, when the table or the knob lists them. */
static void values(const char *key)
{
	const struct ini_schema *s = run_config_schema();
	const char *dot = strchr(key, '.'), *v;
	const char *const *ch;
	size_t i;

	if (!dot)
		return;
	if (!strcmp(key, "workload.name")) {
		list_inis(workloads_dir(), false);
		return;
	}
	if (!strcmp(key, "run.events")) {
		/* the perf events it may add (lib/runner.h) */
		for (int k = RC_NR; k < RUNNER_COUNTER_MAX; k++)
			printf("%s\n", runner_counter_name(k));
		return;
	}
	if (!strncmp(key, "host.", 5)) {
		char *copy, *save = NULL, *t;

		v = host_knob_values(key + 5);
		copy = xstrdup(v ? v : "");
		for (t = strtok_r(copy, ", ", &save); t;
		     t = strtok_r(NULL, ", ", &save))
			printf("%s\n", t);
		free(copy);
		return;
	}
	for (i = 0; i < s->nkeys; i++) {
		const struct ini_key *k = &s->keys[i];

		if (strlen(k->section) != (size_t)(dot - key) ||
		    strncmp(k->section, key, dot - key) ||
		    strcmp(k->name, dot + 1))
			continue;
		for (ch = k->choices; ch && *ch; ch++)
			printf("%s\n", *ch);
		if (k->type == INI_BOOL)
			printf("yes\nno\n");
	}
}

/* A run's axis names, for --by, --rows and --cols. */
static int axes(const char *run)
{
	struct report *r = NULL;
	char *names;

	if (report_load(run, &r) < 0)
		return 1;
	names = report_axis_names_new(r, "\n");
	printf("%s\n", names);
	free(names);
	report_free(r);
	return 0;
}

int cmd_complete(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "",
		   *arg = argc > 2 ? argv[2] : NULL;

	if (!strcmp(what, "keys"))
		keys(arg);
	else if (!strcmp(what, "values") && arg)
		values(arg);
	else if (!strcmp(what, "workloads"))
		list_inis(workloads_dir(), false);
	else if (!strcmp(what, "configs")) {
		char *dir = xstrdup(workloads_dir()),
		     *slash = strrchr(dir, '/');

		if (slash) {
			*slash = '\0';
			list_inis(dir, true);
		}
		free(dir);
	} else if (!strcmp(what, "axes") && arg)
		return axes(arg);
	else if (!strcmp(what, "formats"))
		for (size_t i = 0; i < report_nformats; i++)
			printf("%s\n", report_formats[i]->name);
	else {
		err("usage: vmtax --complete keys [CONFIG] | values "
		    "SECTION.KEY "
		    "| workloads | configs | axes RUNDIR | formats | commands");
		return EXIT_USAGE;
	}
	return 0;
}
