/* SPDX-License-Identifier: MIT */
/*
 * guest-remote.h - guests on a remote libvirt ([guest] uri =
 * qemu+ssh://USER@HOST[:PORT]/system, docs/fleet.md "Guests on a remote
 * libvirt"): what this host does over the user's ssh, beside libvirt's own
 * connection (vm.c, which spawns ssh itself).
 *
 * One multiplexed ssh connection (fleet-ssh.c's command lines: BatchMode,
 * StrictHostKeyChecking=yes, a connect timeout) to USER@HOST:
 *   - guest_remote_open() asks HOST what the run must know before anything
 *     changes: its THP mode (a config's one host_thp must be it), whether
 *     KVM is usable there (/dev/kvm and vmx or svm), its CPU vendor, its name, its online CPUs and
 *     available memory (a guest larger than those is refused, as
 *     run-preflight.h refuses one larger than this host);
 *   - guest_remote_stage() copies a guest's kernel and initrd, and a
 *     debian image's disk, into REMOTE_STAGE (GUEST_REMOTE_STAGE_DIR, or
 *     $VMTAX_REMOTE_STAGE_DIR for tests) as HASH-NAME, HASH the FNV-1a 64
 *     of its bytes: a file already there is reused, so a second run
 *     copies nothing;
 *   - each debian guest boots an overlay of that disk made there
 *     (guest_remote_overlay(): qemu-img on HOST) in
 *     REMOTE_STAGE/GUEST_REMOTE_OVERLAYS, named HERE-PID-TAG.qcow2 (HERE
 *     this host's name, PID this vmtax's), removed after the guest
 *     (guest_remote_remove()); those of a vmtax of this host that was
 *     killed are removed by the next guest_remote_stage().  A directory
 *     of its own: HOST's own vmtax sweeps REMOTE_STAGE/overlays by its
 *     own PIDs (guest-reach.h);
 *   - a guest's console log is written there by HOST's virtlogd
 *     (REMOTE_STAGE/console/NAME.log) and guest_remote_fetch() brings it
 *     into the run directory after the guest, removing it there.
 * Nothing on HOST is changed but files in REMOTE_STAGE.  What needs HOST
 * changed (its THP, knobs, kvm module, hugetlb pool, bare-metal cells)
 * is refused by run_config_remote_check() (run-config.h): that is
 * [fleet]'s.
 *
 * Ownership: guest_remote_open() returns a struct guest_remote that
 * guest_remote_free() frees (NULL: nothing), closing the connection.
 */
#ifndef VMTAX_GUEST_REMOTE_H
#define VMTAX_GUEST_REMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"
#include "guest-files.h"
#include "vm.h"

#define GUEST_REMOTE_STAGE_DIR "/var/lib/libvirt/images/vmtax"
#define GUEST_REMOTE_OVERLAYS "remote-overlays"
#define GUEST_REMOTE_CONNECT_TIMEOUT_S 10.0
#define GUEST_REMOTE_TIMEOUT_S 600.0 /* one copy or command */

struct guest_remote {
	struct vm_uri_dest d;
	char dest[VM_URI_MAX]; /* USER@HOST, or ssh://USER@HOST:PORT */
	char *stage;	       /* REMOTE_STAGE on HOST */
	struct fleet_ssh ssh;
	/* What HOST said (guest_remote_open()) */
	char hostname[128];
	char thp[32];	/* its THP mode ("always", ...), "" unknown */
	char vendor[32]; /* its CPU's vendor_id */
	bool kvm;	/* it has /dev/kvm and a CPU with vmx or svm, as
			 * host_accel_decide() asks here: a kvm_pvm /dev/kvm
			 * without them hangs stock guest kernels */
	long cpus;	/* its online CPUs; 0: not said */
	unsigned long long memavail; /* its MemAvailable, bytes; 0: not said */
	long copied;	/* files copied by guest_remote_stage() */
	long reused;	/* files found there already */
};

/*
 * Connect to URI's host over ssh and ask it (above).  CONFIG names the
 * config in messages.  0, or -EINVAL reported (unreachable, host key,
 * not the answers wanted).
 */
int guest_remote_open(const char *uri, const char *config,
		      struct guest_remote **out);
void guest_remote_free(struct guest_remote *g);
/*
 * Copy F's kernel, initrd and disk (a debian image's) to HOST (reused when
 * there), and point F at the copies; with a disk, F->overlay_dir is
 * REMOTE_STAGE/GUEST_REMOTE_OVERLAYS there.  0, or a negative errno
 * (reported).
 */
int guest_remote_stage(struct guest_remote *g, struct guest_files *f);
/*
 * A fresh overlay of F->disk (staged) on HOST for one guest, *PATH (owned,
 * set even on failure): F->overlay_dir/HERE-PID-TAG.qcow2.  0, or a
 * negative errno (reported).
 */
int guest_remote_overlay(struct guest_remote *g, const struct guest_files *f,
			 const char *tag, char **path);
/* Remove PATH on HOST (a warning when it cannot). */
void guest_remote_remove(struct guest_remote *g, const char *path);
/* Where HOST's virtlogd writes guest NAME's console.  Owned. */
char *guest_remote_console_new(const struct guest_remote *g,
			       const char *name);
/*
 * Bring REMOTE (a guest_remote_console_new() path) into LOCAL and remove
 * it there.  0, or a negative errno (reported as a warning).
 */
int guest_remote_fetch(struct guest_remote *g, const char *remote,
		       const char *local);

#endif
