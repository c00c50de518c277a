/* SPDX-License-Identifier: MIT */
/*
 * agent-observe.h - what the guest sees now, for the agent's "observe"
 * and "hello" (docs/protocol.md): its command line, CPUs online, memory,
 * direct map, and which userland tools it has (lib/guest-obs.h).
 */
#ifndef VMTAX_AGENT_OBSERVE_H
#define VMTAX_AGENT_OBSERVE_H

#include <jansson.h>

/* The observation object of lib/guest-obs.h (new reference). */
json_t *agent_observe_new(void);

#endif
