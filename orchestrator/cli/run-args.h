/* SPDX-License-Identifier: MIT */
/*
 * run-args.h - the command line 'vmtax run' and 'vmtax lab run' share:
 *	CMD CONFIG [--out DIR] [--set S.K=V]... [--host DEST]... [--force]
 *	CMD CONFIG --dry-run [--out DIR] [--set S.K=V]... [--host DEST]...
 *	CMD --resume DIR [--force] [--dry-run]
 * Each command has its own option table (cmd-opts.h) over struct run_args
 * (its help differs; lab has no --force); run_args_parse() parses it and
 * refuses the combinations neither takes.
 */
#ifndef VMTAX_RUN_ARGS_H
#define VMTAX_RUN_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd-opts.h"

struct run_args {
	const char *out;	/* --out DIR, or NULL */
	const char *resume;	/* --resume DIR, or NULL */
	const char *config;	/* the CONFIG operand; NULL with --resume */
	struct opt_strings sets; /* --set, in order (v is owned); --host
				  * adds one, "fleet.hosts=DEST,..." */
	struct opt_strings hosts; /* --host, in order (v is owned) */
	char *hosts_set;	  /* that --set (owned), or NULL */
	bool force;		/* --force */
	bool dry;		/* --dry-run */
};

/*
 * Parse argv into A with OPTS (rows over struct run_args): 0 to go on, or
 * what opts_parse() returns to stop (OPTS_HELP, OPTS_BAD), usage printed.
 * With --resume there is no CONFIG, --out, --set or --host.  --dry-run
 * goes with any of them: the run as it would start (a command line that
 * runs, with --dry-run added, is one that checks; the docs' examples are
 * checked so, tests/t0192-doc-examples.sh).  --host DEST... becomes the last --set,
 * "fleet.hosts=DEST,..." (the config checks each).  On a stop A holds nothing to free.
 */
int run_args_parse(const struct opt *opts, void (*usage)(FILE *f), int argc,
		   char **argv, struct run_args *a);

void run_args_release(struct run_args *a);

#endif
