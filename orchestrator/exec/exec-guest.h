/* SPDX-License-Identifier: MIT */
/*
 * exec-guest.h - the guest executors' parts: exec-guest.c (a guest per
 * cell, cell_exec_guest and cell_exec_guest_remote, cell-exec.h),
 * exec-guest-observe.c (what the host and the guest show of it, into the
 * cell's observed) and exec-guest-remote.c (the per-run ops of the guests
 * on a remote libvirt: its connection opened and asked by check(), the
 * guest files staged there by begin(), its host and THP in results.json by
 * describe(), all freed by end()).
 */
#ifndef VMTAX_EXEC_GUEST_H
#define VMTAX_EXEC_GUEST_H

#include <jansson.h>
#include <stdbool.h>

struct cell;
struct guest_remote;
struct run;
struct vm;

/* ---- exec-guest-observe.c ---- */

/*
 * What the host saw of the guest's memory: QEMU's AnonHugePages (THP
 * backing) and the hugetlb pages in use (the cell's pool, or both pools for
 * THP backing); null where unknown.
 */
void guest_observe_qemu(struct vm *vm, const struct cell *c, json_t *obs);

/*
 * What the guest saw for the axes it asked for, from a hello or observe
 * reply RES, into OBS with SUFFIX on each name ("" at boot, "_end" after
 * the samples): its kernel command line, MemTotal, direct map, userland.
 */
void guest_observed(json_t *obs, json_t *res, const char *suffix);

/*
 * Once a run: which userland the guest's tools come from, beside this
 * host's (a workload's output can differ: busybox dd prints no throughput).
 */
void guest_note_userland(struct run *r, json_t *hello);

/*
 * Where the boot-to-hello time HELLO_S went (docs/results-format.md,
 * observed.boot_breakdown): libvirt's start (domain XML to a running QEMU
 * with the agent channel open), then by the guest's clock from its hello
 * (RES: uptime_s, agent_started_s): QEMU and firmware up to the guest's
 * clock starting, the kernel and /init (module loading included) up to the
 * agent's start, and the agent's start to its hello.  The guest-clock
 * parts are null from an agent that does not report them.
 */
json_t *guest_boot_breakdown(json_t *res, double libvirt_s, double hello_s);

/* ---- exec-guest-remote.c ---- */

/* R's remote libvirt (borrowed; guest-remote.h), or NULL when R's guests
 * are this host's. */
struct guest_remote *exec_guest_remote(const struct run *r);

/* cell_exec_guest_remote's per-run ops (cell-exec.h). */
int exec_guest_remote_check(struct run *r, bool dry);
int exec_guest_remote_begin(struct run *r);
void exec_guest_remote_describe(const struct run *r, int ci, json_t *into);
void exec_guest_remote_end(struct run *r);

#endif
