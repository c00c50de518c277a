/* SPDX-License-Identifier: MIT */
/* The command line of vmtax run and vmtax lab run (run-args.h). */
#include <stdlib.h>
#include <string.h>

#include "run-args.h"
#include "util.h"

/* --host DEST... as the last --set: fleet.hosts=DEST,... */
static void hosts_to_set(struct run_args *a)
{
	size_t i, len = strlen("fleet.hosts=") + 1;

	for (i = 0; i < a->hosts.n; i++)
		len += strlen(a->hosts.v[i]) + 1;
	a->hosts_set = xmalloc(len);
	strcpy(a->hosts_set, "fleet.hosts=");
	for (i = 0; i < a->hosts.n; i++) {
		if (i)
			strcat(a->hosts_set, ",");
		strcat(a->hosts_set, a->hosts.v[i]);
	}
	a->sets.v = xrealloc(a->sets.v, (a->sets.n + 1) * sizeof(*a->sets.v));
	a->sets.v[a->sets.n++] = a->hosts_set;
}

int run_args_parse(const struct opt *opts, void (*usage)(FILE *f), int argc,
		   char **argv, struct run_args *a)
{
	int first;

	memset(a, 0, sizeof(*a));
	first = opts_parse(opts, usage, a, argc, argv);
	if (first >= 0 &&
	    (a->resume ? (first != argc || a->out || a->sets.n ||
			  a->hosts.n)
		       : first != argc - 1)) {
		usage(stderr);
		first = OPTS_BAD;
	}
	if (first < 0) {
		run_args_release(a);
		return first;
	}
	a->config = a->resume ? NULL : argv[first];
	if (a->hosts.n)
		hosts_to_set(a);
	return 0;
}

void run_args_release(struct run_args *a)
{
	free(a->sets.v);
	a->sets.v = NULL;
	a->sets.n = 0;
	free(a->hosts.v);
	a->hosts.v = NULL;
	a->hosts.n = 0;
	free(a->hosts_set);
	a->hosts_set = NULL;
}
