/* SPDX-License-Identifier: MIT */
/*
 * vm-life.h - the life of one guest with a vmtax agent, on top of vm.h:
 * boot (a spec with its console log) -> the agent's hello (within a
 * timeout) -> [a hang probe] -> a polite shutdown (the agent's 'shutdown',
 * then vm_stop() with a grace period; a guest that does not answer is
 * destroyed at once) -> freed.  The one place this sequence is written:
 * the guest executor (exec-guest.c) and the lab host (lab-session.c) both
 * use it.
 *
 * struct vm_life is embedded in its user and starts zeroed; it owns its
 * domain and agent client, and borrows the spec's console log path and the
 * transcript.  After vm_life_down() it is zeroed again and may boot again.
 * Callers talk to the agent through &l->a while l->client is set.
 */
#ifndef VMTAX_VM_LIFE_H
#define VMTAX_VM_LIFE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "agent-client.h"
#include "vm.h"

struct vm_life {
	struct vm *vm;		/* NULL: none up */
	struct agent_client a;
	bool client;		/* a is initialized */
	bool agent_dead;	/* set by the caller: send the agent nothing
				 * more (no shutdown, no probe) */
	double t_start;		/* mono_now() as vm_life_boot() began */
	double libvirt_s;	/* vm_start()'s share: XML to a running QEMU */
};

/*
 * Start SPEC (its console_log set) on CONN and open an agent client over
 * it, its transcript to LOG (may be NULL).  WATCH_S > 0: a call also
 * watches the console for a stuck kernel (agent_client_watch_console(),
 * silent for WATCH_S).  0, or vm_start()'s negative errno (reported).
 */
int vm_life_boot(struct vm_life *l, struct vm_conn *conn,
		 const struct vm_spec *spec, FILE *log, double watch_s);
/*
 * The same from a saved state (vm_restore(): SPEC's name, disk and console
 * log), its agent client over the restored domain's channel.
 */
int vm_life_restore(struct vm_life *l, struct vm_conn *conn,
		    const char *state, const struct vm_spec *spec, FILE *log);
/*
 * Wait up to TIMEOUT_S for the agent's hello: 0 with *HELLO (a new ref),
 * or the call's negative errno with WHY (-EPIPE: the guest ended).
 */
int vm_life_hello(struct vm_life *l, double timeout_s, json_t **hello,
		  char *why, size_t len);
/*
 * The hang probe: whether the agent answers a hello within TIMEOUT_S (a
 * guest that runs but does not has hung).  False without a client.
 */
bool vm_life_answers(struct vm_life *l, double timeout_s);
/*
 * Power the guest off and free it.  A guest that runs and whose agent
 * answers 'shutdown' (the agent powers off DELAY_S later: the channel is
 * closed first, see vm_close_channel()) gets GRACE_S to power off; any
 * other is destroyed at once.  *BYE (NULL: not wanted) gets the agent's
 * shutdown reply (a new ref) or NULL.  Nothing up: does nothing.
 */
void vm_life_down(struct vm_life *l, double delay_s, double grace_s,
		  json_t **bye);

#endif
