/* SPDX-License-Identifier: MIT */
/*
 * lab-session.h - the lab host of one run with [run] executor = lab
 * (exec-lab.c, docs/lab.md): the lab booted from its kept disk, this vmtax,
 * the config and its workload put into it, the run inside started
 * detached, followed, and its run directory brought back.  Only these
 * functions talk to the lab's agent; exec-lab.c holds the executor (its
 * checks, the restart loop, what comes back).
 *
 * Each returns 0 or a negative errno, reported with context (lab_follow()
 * sets *RC to the run's exit status).  A lab that dies or hangs makes one
 * of them fail; lab_answers() tells the two apart from a failure of the
 * step itself.
 */
#ifndef VMTAX_LAB_SESSION_H
#define VMTAX_LAB_SESSION_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "agent-client.h"
#include "guest-files.h"
#include "matrix.h"
#include "run-config.h"
#include "vm-life.h"
#include "vm.h"

/*
 * Boots of a lab that died or hung, at most, in one invocation: the full
 * lab table runs 30 to 60 minutes, and TCG's nested SVM hung a lab about
 * once in 20 minutes of running here (docs/lab.md).
 */
#define LAB_RESTARTS 5
#define LAB_PROBE_S 120.0	  /* a failed lab's time to answer 'hello' */
#define LAB_BOOT_TIMEOUT_S 900.0  /* domain start to agent hello */
#define LAB_READY_TIMEOUT_S 300.0 /* hello to libvirtd answering */
/* The lab's kernel command line (a part of its saved state's key). */
#define LAB_CMDLINE VM_CMDLINE_BASE " root=/dev/vda rw"

struct lab {
	const struct run_config *cfg; /* the run's */
	const struct matrix *m;
	char *config_path; /* absolute: the path in the lab too */
	const char **sets; /* the run's --set list, and the lab's own */
	size_t nsets;
	char *tcg_hz;	   /* the lab's own profile_hz --set, or NULL */
	bool resume;
	const char *dir; /* the run directory, absolute */
	char bindir[PATH_MAX];
	struct guest_files gf;
	/* The debian image its guests boot (lab-carrier.c); zeroed: none. */
	struct guest_files carrier;
	char *overlay;
	bool overlay_reused;
	struct vm_conn *conn;
	struct vm_life life; /* the lab host: its domain and agent */
	FILE *alog;
	json_t *hello;
	double boot_to_hello_s, boot_to_ready_s;
	double ready_s;	  /* lab_boot() to ready, all of it; < 0: not ready */
	bool restored;	  /* from its saved state (lab-restore.c) */
	bool state_saved; /* this boot saved a new one first */
	int boots; /* lab boots so far: a lab that dies is booted again */
	volatile sig_atomic_t *stop_signals; /* SIGINT/TERM/HUP so far */
	/* the run's output: how much is shown, and its unfinished line */
	long long log_off;
	char partial[1024];
	size_t npartial;
};

/* The lab image, built if this vmtax has none up to date. */
int lab_image(struct lab *l);
/* Boot the lab (its kept disk on a resume) and wait for libvirtd inside. */
int lab_boot(struct lab *l);
/*
 * This vmtax, the config, its workload and the run script into the lab;
 * *INNER_RESUME says whether the run inside goes on from earlier results.
 */
int lab_push(struct lab *l, bool *inner_resume);
/* This vmtax into the lab at GUEST_LAB_VMTAX (the image has none). */
int lab_put_vmtax(struct lab *l);
/* Start 'vmtax run' inside, detached (LAB_SCRIPT). */
int lab_start_run(struct lab *l, bool inner_resume);
/* Follow the run inside until it ends; *RC gets its exit status. */
int lab_follow(struct lab *l, int *rc);
/* Bring the lab's run directory back into l->dir. */
int lab_sync(struct lab *l, bool quiet);
/* Whether the lab's agent answers within LAB_PROBE_S (else: it hung). */
bool lab_answers(struct lab *l);
/* Shut the lab down (destroy it if its agent does not answer). */
void lab_down(struct lab *l);

/* ---- shared by lab-session.c and lab-restore.c ---- */

/* Run CMD in the lab (sh -c) within TIMEOUT_S: its exit status, or a
 * negative errno (reported with WHAT); *OUT (may be NULL): its output. */
int lab_sh(struct lab *l, const char *what, const char *cmd,
	   double timeout_s, char **out);
/* After the lab's hello: wait for libvirtd inside (CONSOLE: its log). */
int lab_wait_libvirtd(struct lab *l, const char *console);
/* The lab's domain: NAME, its disk DISK, its console log CONSOLE. */
void lab_spec_fill(const struct lab *l, struct vm_spec *spec,
		   const char *name, const char *disk, const char *console);
/* The file name tag of this run directory's kept disk (owned). */
char *lab_disk_tag_new(const struct lab *l);
/*
 * lab-restore.c (docs/lab.md, "The saved state"): make the lab ready from
 * its saved state (the domain LAB_SAVED_DOMAIN-HASH, the name it was saved
 * with) with console log CONSOLE, its disk l->overlay a new kept overlay
 * on the state's frozen disk; without a usable state (each reason said, a
 * bad one discarded), boot it afresh, save a state and restore that.  0:
 * ready (l->restored); else the lab is down and the caller boots it as
 * without a saved state.
 */
int lab_boot_restored(struct lab *l, const char *console);

/*
 * ---- lab-carrier.c: the debian image a lab carries for its guests
 * (docs/lab.md, "Debian inner guests") ----
 *
 * When a guest cell boots image = debian (lab_carries()), the lab gets
 * this host's pinned debian-HASH.qcow2 as a second disk, read-only
 * (vm_spec.carrier: vdb, serial VM_CARRIER_SERIAL).  Inside, once the lab
 * is ready, GUEST_LAB_IMAGES gets what the inner vmtax resolves for
 * image = debian: debian-HASH.qcow2, a small qcow2 whose backing file is
 * the raw device (each inner guest's overlay goes on it), and the
 * image's kernel and initrd, copied from the carried disk's /boot (the
 * files of the same sizes as this host's debian-HASH.vmlinuz and .initrd),
 * under this host's names, with the debian.* links.  A lab with a carrier
 * boots; it is never restored from a saved state (which is a lab without
 * one).
 */

/*
 * The debian image for M's guests, found as 'vmtax run' finds it
 * (guest_files_resolve(), pinned; no PVH file made here) into F; F zeroed
 * and 0 when no guest cell boots it.  A missing image is a config error
 * (-EINVAL, reported as CONFIG_PATH: ...).
 */
int lab_carrier_find(const struct matrix *m, const char *bindir,
		     const char *config_path, struct guest_files *f);
/* l->carrier made reachable by QEMU (guest_files_reach_for()). */
int lab_carrier_reach(struct lab *l);
/* Inside the ready lab: GUEST_LAB_IMAGES as above (nothing without a
 * carrier).  0, or a negative errno (reported with the lab's words). */
int lab_carrier_setup(struct lab *l);

/* What the set-up inside looks for and makes (file names, no '/'). */
struct lab_carrier_want {
	const char *sys_block; /* "/sys/block" */
	const char *dev_dir;   /* "/dev" */
	const char *images;    /* GUEST_LAB_IMAGES */
	const char *qcow2;     /* "debian-HASH.qcow2": made on the device */
	const char *vmlinuz, *initrd; /* copied from its /boot, these names */
	long long vmlinuz_bytes, initrd_bytes; /* their sizes here */
};
/*
 * The shell command (sh -c, as root) that does it for W: exit status 0
 * with "kernel=KVER" (when copied) and "disk=DEV" lines; 3 with one line
 * for what the carried disk lacks; another status from the failed step
 * (mount, cp, qemu-img) with its message.  Owned.  Pure.
 */
char *lab_carrier_cmd_new(const struct lab_carrier_want *w);

#endif
