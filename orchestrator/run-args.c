/* SPDX-License-Identifier: MIT */
/* The command line of vmtax run and vmtax lab run (run-args.h). */
#include <stdlib.h>
#include <string.h>

#include "run-args.h"

int run_args_parse(const struct opt *opts, void (*usage)(FILE *f), int argc,
		   char **argv, struct run_args *a)
{
	int first;

	memset(a, 0, sizeof(*a));
	first = opts_parse(opts, usage, a, argc, argv);
	if (first >= 0 &&
	    (a->resume ? (first != argc || a->out || a->sets.n || a->dry)
		       : first != argc - 1 || (a->dry && a->out))) {
		usage(stderr);
		first = OPTS_BAD;
	}
	if (first < 0) {
		run_args_release(a);
		return first;
	}
	a->config = a->resume ? NULL : argv[first];
	return 0;
}

void run_args_release(struct run_args *a)
{
	free(a->sets.v);
	a->sets.v = NULL;
	a->sets.n = 0;
}
