/* SPDX-License-Identifier: MIT */
/*
 * agent-knobs.h - the guest knobs the agent reads and writes (agent.c):
 * the generic knobs of lib/knob-path.h, THP among them.  Each returns NULL,
 * or the error code of the reply ("bad-knob", "io-error",
 * "readback-mismatch") with its message in MSG.
 */
#ifndef VMTAX_AGENT_KNOBS_H
#define VMTAX_AGENT_KNOBS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The current value of generic knob NAME into OUT. */
const char *agent_knob_get(const char *name, char *out, size_t len,
			   char *msg, size_t msglen);
/* Write VALUE to generic knob NAME and read it back into GOT. */
const char *agent_knob_set(const char *name, const char *value, char *got,
			   size_t glen, char *msg, size_t msglen);
/* The THP mode of KNOB ("enabled" or "defrag"): a JSON string, or null. */
json_t *agent_thp_current(const char *knob);

#endif
