/* SPDX-License-Identifier: MIT */
/*
 * agent.h - the agent's own state, shared by its files (agent.c: the port,
 * the protocol loop and the small requests; agent-run.c: "run"): not an
 * interface of anything outside the agent.
 */
#ifndef VMTAX_AGENT_H
#define VMTAX_AGENT_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

#include "proto.h"

struct agent {
	int fd;
	char port[PATH_MAX];
	struct proto_decoder dec;
	char rbuf[64 * 1024];
	bool shutdown; /* power off after this reply */
	double shutdown_delay_s; /* ... after this long */
	bool panic;    /* crash the kernel after this reply */
	bool hosted;   /* on a host (--fd): never power off or crash */
	double started_s; /* /proc/uptime when main() began; -1 unknown */
};

/* What one request produced: a reply and a line for the console. */
struct outcome {
	json_t *reply;
	char log[200];
};

/* Encode and send MSG (stolen).  Blocks until the host is connected. */
int agent_send_msg(struct agent *a, json_t *msg);

#endif
