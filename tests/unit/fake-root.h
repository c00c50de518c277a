/* SPDX-License-Identifier: MIT */
/*
 * fake-root.h - files of a fake host tree (a /sys or /proc under a scratch
 * ROOT, host_opts.root or VMTAX_HOST_ROOT) for the unit tests of host/.
 * Include after <cmocka.h>.
 */
#ifndef VMTAX_TEST_FAKE_ROOT_H
#define VMTAX_TEST_FAKE_ROOT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ROOT/REL (REL starts with '/') holds CONTENT, its directories made; the
 * test fails if it cannot be written. */
static inline void fake_root_put(const char *root, const char *rel,
				 const char *content)
{
	char *path = xasprintf("%s%s", root, rel);
	char *slash = strrchr(path, '/');
	FILE *f;

	*slash = '\0';
	assert_int_equal(mkdir_parents(path, 0755), 0);
	*slash = '/';
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(content, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	free(path);
}

#endif
