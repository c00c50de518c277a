/* SPDX-License-Identifier: MIT */
/*
 * exec-fleet.h - the fleet executor's state and its parts (exec-fleet.c,
 * fleet-follow.c, fleet-collect.c): it drives a run (struct run, the
 * engine's) on its [fleet] hosts through fleet.h's transport, checks and
 * merge, which know nothing of the engine.
 */
#ifndef VMTAX_EXEC_FLEET_H
#define VMTAX_EXEC_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"

struct run;

/* One host of a fleet run, as the executor drives it. */
struct fleet_host {
	const char *name; /* its [fleet] hosts entry */
	struct fleet_proc proc;
	bool started, running;
	json_t *probe_host; /* run.host as its probe says it, or NULL */
	json_t *doc;	    /* its results, checked, or NULL */
	int rc;		    /* its run's exit status; -1: none */
	char why[512];	    /* why it failed; "" none */
	char last[256];	    /* its last line of output */
};

/* The executor's state for one check() or run_remote() (exec-fleet.c). */
struct fleet {
	struct run *r;
	struct fleet_ssh ssh;
	struct fleet_host *h;
	size_t n;
	char *rplain; /* FLEET_REMOTE_DIR/RUN: safe characters only */
	char *rdir;   /* the same, sh-quoted */
	bool stopping;
};

/* exec-fleet.c: F for R's [fleet] hosts, its ssh begun (0, or a negative
 * errno); fleet_close() releases it, also after a failed open. */
int fleet_open(struct fleet *f, struct run *r);
void fleet_close(struct fleet *f);
/* CMD on host K with stdin from IN_FD (-1: none): its output, status. */
int fleet_on_host(struct fleet *f, size_t k, const char *cmd, int in_fd,
		  double timeout_s, char **out, int *status);
/* Whether F's [fleet] mode is split. */
bool fleet_is_split(const struct fleet *f);

/* fleet-follow.c: the config and its workload into host K's run
 * directory (0, or a negative errno with why in its why). */
int fleet_push(struct fleet *f, size_t k);
/* The command that runs the matrix (mode split: host K's share) there.
 * Owned. */
char *fleet_host_cmd_new(const struct fleet *f, size_t k);
/* CMD started on host K over ssh, followed by fleet_follow(). */
int fleet_start(struct fleet *f, size_t k, const char *cmd);
/* Every host's output, prefixed, until every run there has ended (the
 * first stop signal stops them all). */
void fleet_follow(struct fleet *f);
/*
 * --resume, host K: taken as it is when its run ended ok
 * (fleet_resume_done()); else its run there taken up
 * (fleet_resume_cmd_new(): followed if it still runs, its status if it
 * ended, begun again if it had not begun, else 'vmtax run --resume'
 * there).
 */
void fleet_take_up(struct fleet *f, size_t k);

/* fleet-collect.c: host K's run directory back into RUN/hosts/NAME (what
 * an earlier run brought back there goes first: scp -r would copy into
 * it), and its results. */
void fleet_fetch(struct fleet *f, size_t k);
/*
 * This run's record: each cell's outcome on every host (mode split: on the
 * host that ran it), into R's states; the hosts, as the label (new
 * reference).
 */
json_t *fleet_record_new(struct fleet *f);
/* Mode split: this run's document, each cell from the host that ran it
 * (NULL when none came back: fleet_record_new() then says why of each
 * cell).  New reference. */
json_t *fleet_split_record_new(const struct fleet *f);
/*
 * --resume: whether host K's run ended ok with its results here, as this
 * run's "fleet" label says: they are taken as they are, and nothing runs
 * there.
 */
bool fleet_resume_done(struct fleet *f, size_t k);

#endif
