/* SPDX-License-Identifier: MIT */
/*
 * run-quiet.h - the quiet-host check before each sample ([run] quiet_wait,
 * quiet_others; the evidence and the rule: host/quiet.h).
 *
 * run_quiet_wait() reads the evidence; while the host is busy and less than
 * quiet_wait seconds have passed it waits (re-reading every second), then
 * returns the evidence as the sample's "host_quiet" object (owned):
 *	quiet          true, false (busy), or null (unknown)
 *	why            the judgement in words
 *	procs_running, own_running, others_running
 *	loadavg        [1, 5, 15] or null
 *	governor       string or null, with governor_why when null
 *	boost          true / false or null, with boost_why when null
 *	waited_s       seconds spent waiting for quiet
 * A sample taken busy (the wait ran out, or quiet_wait = 0) carries
 * quiet: false; every report format flags it.
 */
#ifndef VMTAX_RUN_QUIET_H
#define VMTAX_RUN_QUIET_H

#include <jansson.h>

struct run;
struct cell_run;

json_t *run_quiet_wait(struct run *r, const struct cell_run *cr);

#endif
