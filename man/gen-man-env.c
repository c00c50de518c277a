// SPDX-License-Identifier: MIT
/*
 * gen-man-env PAGE: print PAGE's ENVIRONMENT section as roff on stdout (none
 * when no variable names PAGE), from the table the code reads them through
 * (lib/env.h); vmtax(1) lists every variable.  The Makefile puts it where
 * man/PAGE.N.in says @ENVIRONMENT@, then fills @CACHEDIR@ and the like.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "env.h"

/* Whether the space-separated list PAGES holds PAGE. */
static bool lists(const char *pages, const char *page)
{
	size_t n = strlen(page);
	const char *p;

	for (p = pages; (p = strstr(p, page)); p += n)
		if ((p == pages || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const struct env_var *v;
	bool all, head = false;
	size_t n, i;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-man-env PAGE\n");
		return 2;
	}
	all = !strcmp(argv[1], "vmtax");
	v = env_vars(&n);
	for (i = 0; i < n; i++) {
		if (!all && !lists(v[i].pages, argv[1]))
			continue;
		if (!head) {
			printf(".SH ENVIRONMENT\n");
			head = true;
		}
		printf(".TP\n.B %s\n%s\n", v[i].name, v[i].roff);
	}
	return 0;
}
