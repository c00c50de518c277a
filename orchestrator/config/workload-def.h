/* SPDX-License-Identifier: MIT */
/*
 * workload-def.h - a workload definition (configs/workloads/NAME.ini) and its
 * parameters.
 *
 * Every key is declared once, in workload_keys[] in workload-def.c, with its
 * own rule (the regexes compile with their groups, package names are Debian
 * names, metric = regex needs metric_regex, run is given):
 *	[workload]    description, setup, run, clean, metric, metric_regex,
 *	              series_regex, unit, better, packages, timeout,
 *	              estimate, estimate_tcg
 *	[param.NAME]  default, description  (NAME: [A-Z][A-Z0-9_]*)
 *
 * A parameter reaches the workload's commands as the environment variable
 * NAME.  A run config may override it, with one value or a list (then it is
 * an axis of the matrix, see docs/axes.md): wl_param.values holds them.
 *
 * Every command gets two more, set by the cell's executor:
 * WL_ENV_WORKDIR, its scratch working directory, and WL_ENV_SRCDIR, where
 * the source sets that build workloads compile are (guest-files.h
 * guest_srcdir_new(): build/src on bare metal, GUEST_SRCDIR in a guest).
 *
 * Ownership: workload_load() fills a struct workload that workload_release()
 * frees.
 */
#ifndef VMTAX_WORKLOAD_DEF_H
#define VMTAX_WORKLOAD_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ini-schema.h"
#include "vocab.h"

#define WL_ENV_WORKDIR "VMTAX_WORKDIR"
#define WL_ENV_SRCDIR "VMTAX_SRCDIR"

struct wl_param {
	char *name;
	/* The default, then the run config's override: one value, or a list
	 * (an axis).  Elements as written, unquoted. */
	struct ini_list values;
	/* values.v[0]: the value when the parameter is not an axis (borrowed)
	 */
	const char *value;
	char *description;
	int line;	   /* line in the workload file */
	int override_line; /* line in the run config; -1 from --set */
};

struct workload {
	char *name;
	char *path;
	char *description;
	char *setup;
	char *run;
	char *clean;
	char *metric; /* "elapsed" or "regex" */
	char *metric_regex;
	char *series_regex; /* "" or an ERE whose groups 1, 2 are x, y */
	char *unit;
	char *better; /* "lower" or "higher" */
	char *packages;
	double timeout_s; /* 0: use the run's */
	/* seconds a sample takes on bare metal, as measured where the file
	 * was written, a sum of terms over the parameters ("" : not said):
	 * the run's estimate until this host has its own figure
	 * (est_declared_eval(), run-estimate.h) */
	char *estimate;
	/* how many times slower a sample runs under TCG (a TCG guest, the
	 * lab): 0, not said (run-estimate.h assumes) */
	double estimate_tcg;
	struct wl_param *params;
	size_t nparams;
	struct ini_origin origin;
};

/* The workload file's key table, and its keys as roff for vmtax-config(5). */
const struct ini_schema *workload_def_schema(void);
void workload_print_man(FILE *f);

/* Load one workload file (used by run_config_load and 'vmtax workloads'). */
int workload_load(const char *path, struct workload *w);
void workload_release(struct workload *w);
/*
 * Parameters reach commands as environment variables; this returns
 * "NAME=value" strings for each parameter's first value (NULL-ended, caller
 * frees with free_strv).  A cell's own values are in struct cell.params.
 */
char **workload_env_new(const struct workload *w);
void free_strv(char **v);

/* wl_param_name_valid(): vocab.h */
struct wl_param *wl_param_find(struct wl_param *p, size_t n, const char *name);
/* Append a parameter NAME with no values to *P (*N entries). */
struct wl_param *wl_param_add(struct wl_param **p, size_t *n, const char *name);
/* Replace P's values with L (taken: *L is emptied). */
void wl_param_set(struct wl_param *p, struct ini_list *l);
void wl_params_free(struct wl_param *p, size_t n);

#endif
