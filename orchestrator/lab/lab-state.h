/* SPDX-License-Identifier: MIT */
/*
 * lab-state.h - what a lab host's saved state is for (docs/lab.md, "The
 * saved state"): its key, the parts that must match for a restore, and the
 * sidecar that records them beside the state file.  Pure: no I/O; the
 * files themselves are lab-restore.c's.
 *
 * A saved state is the RAM and devices of a lab that booted to ready
 * (agent hello, libvirtd answering).  It is restored only into the same
 * lab: the same image, kernel, initrd and command line, the same [lab]
 * cpu, cpu_features, vcpus and memory, under the same QEMU and libvirt.
 * Each is one part of struct lab_state_key (LAB_STATE_PARTS names them, in
 * order); the key's hash names the files (LAB_STATE_PREFIX + hash).  The
 * sidecar (json) holds the parts, the state file's size (a truncated file
 * is refused before libvirt reads it) and its frozen disk's file name.
 *
 * How to add a part: a slot in enum lab_state_part and its row in
 * lab_state_parts[] (lab-state.c); old sidecars then miss it and are
 * refused, with its name.
 */
#ifndef VMTAX_LAB_STATE_H
#define VMTAX_LAB_STATE_H

#include <jansson.h>
#include <stddef.h>

#define LAB_STATE_FORMAT 1
/* In the image cache's overlay directory: PREFIX-HASH.save, .json, and
 * the frozen disk LAB_READY_PREFIX-HASH-SECONDS.qcow2. */
#define LAB_STATE_PREFIX "lab-state"
#define LAB_READY_PREFIX "lab-ready"
/* The saved lab's domain name, + "-HASH": a restore keeps it (libvirt
 * refuses another), so restored labs are told apart by their owner PID
 * (vm_sweep_orphans()). */
#define LAB_SAVED_DOMAIN "vmtax-lab-saved"

enum lab_state_part {
	LAB_STATE_IMAGE,  /* the image file: name, size, mtime */
	LAB_STATE_KERNEL, /* kernel and initrd file names */
	LAB_STATE_INITRD,
	LAB_STATE_CMDLINE,
	LAB_STATE_CPU,
	LAB_STATE_FEATURES,
	LAB_STATE_VCPUS,
	LAB_STATE_MEMORY,
	LAB_STATE_QEMU,
	LAB_STATE_LIBVIRT,
	LAB_STATE_NPARTS
};

struct lab_state_key {
	const char *part[LAB_STATE_NPARTS]; /* borrowed */
};

/* Part I's sidecar name ("qemu") and its name in messages ("QEMU"). */
const char *lab_state_part_name(enum lab_state_part i);
const char *lab_state_part_what(enum lab_state_part i);

/* The key's hash, 16 hex digits, into BUF (17 bytes). */
void lab_state_key_hash(const struct lab_state_key *k, char *buf);

/*
 * The sidecar of a state of K: STATE_BYTES long, its frozen disk DISK (a
 * file name), saved at SAVED (ISO 8601), SAVE_S to write, the lab having
 * been ready READY_S after its start.  A new reference.
 */
json_t *lab_state_sidecar_new(const struct lab_state_key *k,
			      long long state_bytes, const char *disk,
			      const char *saved, double save_s, double ready_s);

/*
 * Whether the state described by SIDECAR, whose file is FILE_BYTES long
 * (-1: missing), may be restored into the lab of WANT: 0, or with the
 * reason in WHY ("it is for QEMU 7.2.0, this is 7.2.22"): -EBADMSG (not a
 * sidecar of this format), -ESTALE (a part differs, the first in
 * LAB_STATE_PARTS order), -ENOENT (no state file), -EMSGSIZE (the file's
 * size is not the recorded one: truncated or overwritten).
 */
int lab_state_check(const struct lab_state_key *want, const json_t *sidecar,
		    long long file_bytes, char *why, size_t len);

/* The sidecar's frozen disk (a file name: no '/'), or NULL. */
const char *lab_state_disk(const json_t *sidecar);

#endif
