/* SPDX-License-Identifier: MIT */
/*
 * config-dir.h - a scratch directory for the unit tests of the config layer
 * (test-run-config, test-matrix, test-results-remote): config files, and a
 * workloads/ folder beside them (a config's default [workload] dir).
 * Include after <cmocka.h>.
 */
#ifndef VMTAX_TEST_CONFIG_DIR_H
#define VMTAX_TEST_CONFIG_DIR_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util.h"

/* DIR/NAME holds TEXT (the test fails if it cannot be written). */
static inline void config_dir_put(const char *dir, const char *name,
				  const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/*
 * Make DIR (a mkdtemp() template, rewritten in place) with
 * workloads/WORKLOAD.ini holding TEXT.  0, or -1 when DIR cannot be made.
 */
static inline int config_dir_make(char *dir, const char *workload,
				  const char *text)
{
	char *sub, *rel;

	if (!mkdtemp(dir))
		return -1;
	sub = xasprintf("%s/workloads", dir);
	mkdir(sub, 0755);
	free(sub);
	rel = xasprintf("workloads/%s.ini", workload);
	config_dir_put(dir, rel, text);
	free(rel);
	return 0;
}

/* Remove DIR and everything in it: 0 or -1. */
static inline int config_dir_remove(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int ret = system(cmd);

	free(cmd);
	return ret ? -1 : 0;
}

#endif
