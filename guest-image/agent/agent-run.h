/* SPDX-License-Identifier: MIT */
/*
 * agent-run.h - the agent's "run" request (docs/protocol.md): the command
 * through lib/runner.c (the same runner as bare-metal cells), with
 * heartbeats while it runs, counters, its output, and the profile run's
 * sampling.
 */
#ifndef VMTAX_AGENT_RUN_H
#define VMTAX_AGENT_RUN_H

#include <jansson.h>

#include "agent.h"

void agent_handle_run(struct agent *a, const json_t *req, struct outcome *o);

#endif
