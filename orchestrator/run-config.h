/* SPDX-License-Identifier: MIT */
/*
 * config.h - a run config (configs/NAME.ini) and a workload definition
 * (configs/workloads/NAME.ini), and the matrix of cells they expand into.
 *
 * Every key is declared once, in the tables in config.c (run_keys[],
 * workload_keys[]); 'vmtax run --help' prints them.  Loading checks
 * everything that can be checked without touching the host: bad input gives
 * "file:line: message" and -EINVAL, and the caller exits 2.
 *
 * Run config:
 *	[run]      name, repeat, baseline, timeout, boot_timeout, heartbeat, ...
 *	[guest]    image, vcpus, memory, accel, kernel, initrd, uri, cmdline
 *	[matrix]   where, host_thp, guest_thp, paging (or ept/npt), backing,
 *	           exclude
 *	[workload] name, dir; every other key overrides a workload parameter
 *
 * Workload file:
 *	[workload]    description, setup, run, clean, metric, metric_regex,
 *	              series_regex, unit, better, packages, timeout
 *	[param.NAME]  default, description  (NAME: [A-Z][A-Z0-9_]*)
 *
 * Ownership: config_load() fills a struct config that config_release()
 * frees; cells from matrix_expand() point into it.
 */
#ifndef VMTAX_CONFIG_H
#define VMTAX_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ini-schema.h"

struct wl_param {
	char *name;
	char *value;		/* default, then the override */
	char *description;
	int line;		/* line in the workload file */
	int override_line;	/* line in the run config; -1 from --set */
};

struct workload {
	char *name;
	char *path;
	char *description;
	char *setup;
	char *run;
	char *clean;
	char *metric;		/* "elapsed" or "regex" */
	char *metric_regex;
	char *series_regex;	/* "" or an ERE whose groups 1, 2 are x, y */
	char *unit;
	char *better;		/* "lower" or "higher" */
	char *packages;
	double timeout_s;	/* 0: use the run's */
	struct wl_param *params;
	size_t nparams;
	struct cfg_origin origin;
};

struct config {
	/* [run] */
	char *name;
	long repeat;
	long warmup;
	char *baseline;
	double timeout_s;
	double boot_timeout_s;
	double heartbeat_s;
	long retries;
	long max_failures;
	/* [guest] */
	char *image;
	long vcpus;
	uint64_t memory;
	char *accel;
	char *kernel;
	char *initrd;
	char *uri;
	char *cmdline;
	/* [matrix] */
	struct cfg_list where;
	struct cfg_list host_thp;
	struct cfg_list guest_thp;
	struct cfg_list paging;
	struct cfg_list ept;
	struct cfg_list npt;
	struct cfg_list backing;
	struct cfg_list exclude;
	/* [workload] */
	char *workload_name;
	char *workload_dir;

	/* provenance */
	char *path;
	char *text;
	struct cfg_origin origin;
	/* parameter overrides from [workload], until the workload is loaded */
	struct wl_param *overrides;
	size_t noverrides;
	struct workload wl;
};

/* Load PATH and its workload; apply SETS ("section.key=value", --set). */
int config_load(const char *path, const char *const *sets, size_t nsets,
		struct config *c);
void config_release(struct config *c);
void config_print_help(FILE *f);
json_t *config_to_json(const struct config *c);

/* Load one workload file (used by config_load and 'vmtax workloads'). */
int workload_load(const char *path, struct workload *w);
void workload_release(struct workload *w);
/* Expand $NAME in the workload's commands?  No: parameters reach commands
 * as environment variables; this returns "NAME=value" strings (NULL-ended,
 * caller frees with free_strv). */
char **workload_env_new(const struct workload *w);
void free_strv(char **v);

/* ---- the matrix ---- */

enum where { WHERE_BARE, WHERE_GUEST };

struct cell {
	char id[256];
	enum where where;
	const char *host_thp;
	const char *guest_thp;	/* NULL on bare metal */
	const char *paging;	/* "auto", "hw", "shadow", "tcg"; NULL bare */
	const char *backing;	/* "thp", "hugetlb-2M", "hugetlb-1G"; NULL bare */
};

/*
 * Expand the matrix: bare-metal cells (one per host THP mode) first, then
 * guest cells ordered by paging, then host THP, then guest THP, then backing
 * (so a paging reload happens once per paging mode).  Cells matching an
 * [matrix] exclude pattern (fnmatch on the id) are left out.  Checks that the
 * baseline names a cell.  Returns the count or -EINVAL (reported).
 */
int matrix_expand(const struct config *c, struct cell **cells);

#endif
