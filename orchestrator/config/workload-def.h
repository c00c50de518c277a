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
 *	              estimate, estimate_tcg, scratch
 *	[param.NAME]  default, description, type, min, max, choices
 *	              (NAME: [A-Z][A-Z0-9_]*; its keys are param_keys[] in
 *	              workload-def.c, each with its own rule)
 *
 * A parameter reaches the workload's commands as the environment variable
 * NAME.  A run config may override it, with one value or a list (then it is
 * an axis of the matrix, see docs/axes.md): wl_param.values holds them.
 *
 * Types.  A parameter may declare what its values are: type = int, number,
 * size ("512M"), enum (one of choices = a, b, c) or string (any text, the
 * default, so an undeclared parameter takes any value); an int, number or
 * size may have min and max (inclusive, written as the type).  Its default
 * is checked when the file is read, every override where it is written
 * (the run config's line, or --set), each as a config key of that type is
 * (ini_value_check()): "FILE:LINE: ..." and exit status 2.  The value
 * reaches the commands as written.
 *
 * Every command gets two more, set by the cell's executor:
 * WL_ENV_WORKDIR, its scratch working directory, and WL_ENV_SRCDIR, where
 * the source sets that build workloads compile are (guest-files.h
 * guest_srcdir_new(): build/src on bare metal, GUEST_SRCDIR in a guest).
 * The scratch directory is of the kind the workload's 'scratch' declares,
 * the same on both sides: WL_SCRATCH_TMPFS (bare metal: a directory on
 * /dev/shm; a guest: GUEST_SCRATCH_TMPFS) or WL_SCRATCH_DISK (bare metal:
 * one in the run directory; the debian and lab images: GUEST_SCRATCH_DISK;
 * the tiny image has no disk, and preflight refuses it).
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
/* The kinds of scratch directory ('scratch' in [workload]) */
#define WL_SCRATCH_TMPFS "tmpfs"
#define WL_SCRATCH_DISK "disk"

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
	/* What its values are (Types above): .type, .min, .max, .choices
	 * as of a config key; INI_STR (any text) when not declared. */
	struct ini_key key;
	char **choices;	  /* owned, NULL-terminated: key.choices */
	char *min, *max;  /* as written; NULL: not declared */
	/* the lines of its default, type, min or max (the last), choices;
	 * 0: not given */
	int default_line, type_line, bound_line, choices_line;
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
	char *scratch; /* WL_SCRATCH_TMPFS or WL_SCRATCH_DISK */
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
 * The packages every workload file of DIR (*.ini) asks for ('packages =',
 * split on blanks and commas): what the debian and lab images carry, for
 * their build and their check alike (image.h image_opts.packages).  Into
 * LIST (MAX at most, each owned: the caller frees them), their number into
 * *N.  No DIR: none.  0 or -errno, reported.
 */
#define WORKLOAD_PACKAGES_MAX 256
int workload_packages_all(const char *dir, char **list, size_t max,
			  size_t *n);
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
/*
 * Whether VALUE is a value of P's type: 0, or -EINVAL with the whole
 * reason in WHY ("'abc' is not an integer (ROUNDS: int from 1 to
 * 1000000, FILE:LINE)").
 */
int wl_param_check(const struct wl_param *p, const char *path,
		   const char *value, char *why, size_t len);
/* P's type as the user reads it: "int from 1 to 1000000", "one of a, b",
 * "string". */
void wl_param_type_str(const struct wl_param *p, char *buf, size_t len);
/* Replace P's values with L (taken: *L is emptied). */
void wl_param_set(struct wl_param *p, struct ini_list *l);
void wl_params_free(struct wl_param *p, size_t n);

#endif
