/* SPDX-License-Identifier: MIT */
/*
 * stop-signals.h - the one signal flag: how SIGINT, SIGTERM and SIGHUP stop
 * a run ('vmtax run', 'vmtax lab run').
 *
 * The first signal only counts (the flag): the command sees it and stops in
 * good order (the run engine restores the host and keeps its samples, the
 * lab stops the run inside).  The second ends the process at once: it
 * restores the host given to stop_signals_host(), if any, from the handler
 * (host_restore_async()), writes the command's message and exits 128 + sig.
 */
#ifndef VMTAX_STOP_SIGNALS_H
#define VMTAX_STOP_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

struct host_ctx;

/* The flag: how many stop signals have arrived (0 before any). */
volatile sig_atomic_t *stop_signals_flag(void);

/*
 * Take the three signals.  SECOND_MSG (a string literal, a whole line) is
 * what the second signal says; with RESTART, a signal does not break a
 * system call in the middle (SA_RESTART: a call to the lab's agent).
 */
void stop_signals_take(const char *second_msg, bool restart);

/* The host the second signal restores, or NULL for none (once restored). */
void stop_signals_host(struct host_ctx *host);

#endif
