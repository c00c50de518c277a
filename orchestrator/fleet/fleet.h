/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - the fleet: one config's matrix on other hosts, reached with
 * OpenSSH ([run] executor = fleet, [fleet] hosts, docs/fleet.md).  No daemon
 * and no port of vmtax's own: each host runs a vmtax of its own, which
 * changes that host's settings, keeps its journal and lock there and
 * restores them; this host starts it, shows its output and takes its run
 * directory back.
 *
 * Files:
 *	fleet-ssh.c	the transport: a destination's check, the ssh and scp
 *			command lines (one multiplexed connection per host
 *			under a 0700 directory of this run, BatchMode, a
 *			connect timeout, StrictHostKeyChecking=yes), running a
 *			command there with a timeout, streaming one
 *	fleet-cmd.c	the commands a host runs (its run, its resume, the
 *			size of its run directory) and their answers judged
 *	fleet-check.c	what a host must be before anything runs (its probe's
 *			answers judged: reachable, root, the same vmtax build,
 *			libvirt and an accelerator where the matrix needs them,
 *			not another entry's machine); pure, but the probing
 *	fleet-merge.c	what came back from each host into this run's state
 *			(pure)
 *	../exec/	the executor (exec-fleet.h): exec-fleet.c its state,
 *			check() and run_remote(); fleet-follow.c each host's
 *			run there, started (or taken up on --resume) and
 *			followed, prefixed, to its end; fleet-collect.c each
 *			host's run directory and results back here (its size
 *			asked first, watched while it comes and counted after:
 *			caps.h), and this run's record of them.  They drive
 *			the engine's struct run; the files here do not know it
 *			(docs/development.md "Layers").
 *
 * Trust: a destination is a word of [A-Za-z0-9._@-] (fleet_dest_check()),
 * given to ssh after "--", never to a shell on this host; remote commands
 * are built here from sh-quoted words.  What comes back is checked like a
 * lab's (results_remote_take() rules, fleet-merge.c).
 */
#ifndef VMTAX_FLEET_H
#define VMTAX_FLEET_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vocab.h"

#define FLEET_SUBDIR "hosts"	       /* RUN/hosts/NAME: each host's run */
#define FLEET_REMOTE_DIR "vmtax-fleet" /* on a host, under its login dir */
#define FLEET_CHECK_TIMEOUT_S 120.0    /* one host's probe */
#define FLEET_COPY_TIMEOUT_S 600.0     /* one copy, either way */
#define FLEET_PREFIX_SEP "| "	       /* "HOST| line" */

/* FLEET_EXEC, FLEET_HOSTS_MAX, fleet_modes[], fleet_dest_check(): vocab.h */

/* ---- fleet-ssh.c ---- */

/* One run's ssh: the directory of its control sockets (0700, made by
 * fleet_ssh_init(), removed by fleet_ssh_release()). */
struct fleet_ssh {
	char dir[64];
	double connect_timeout_s;
	/* [fleet] ssh_config, absolute ("ssh -F"); "": ssh's own */
	char config[PATH_MAX];
};

/* SSH_CONFIG (NULL or "": none) must exist: it is made absolute here. */
int fleet_ssh_init(struct fleet_ssh *s, double connect_timeout_s,
		   const char *ssh_config);
/* Close each DESTS[i]'s master connection ("ssh -O exit") and remove the
 * directory.  Safe on a struct never initialised (dir ""). */
void fleet_ssh_release(struct fleet_ssh *s, char *const *dests, size_t n);

/*
 * The command lines, NULL-terminated and owned (strv_free(v, count)):
 * "ssh [-F CONFIG] -o ControlMaster=auto -o ControlPath=DIR/%C -o ControlPersist=60
 * -o BatchMode=yes -o ConnectTimeout=N -o StrictHostKeyChecking=yes
 * -o ServerAliveInterval=15 -o ServerAliveCountMax=4 -T -- DEST CMD", and
 * "scp -r -q (the same -o) -- DEST:REMOTE LOCAL".  *N gets the count.
 * Pure.
 */
char **fleet_ssh_argv_new(const struct fleet_ssh *s, const char *dest,
			  const char *cmd, size_t *n);
char **fleet_scp_argv_new(const struct fleet_ssh *s, const char *dest,
			  const char *remote, const char *local, size_t *n);

/* A command running here (ssh, scp): its stdout and stderr in one pipe. */
struct fleet_proc {
	pid_t pid;
	int fd;	    /* the read end; -1 at its end */
	int status; /* once reaped: as fleet_proc_wait() gives it */
	char line[4096];
	size_t nline;
};

/*
 * Start ARGV (found on PATH) in a process group of its own, stdin from
 * IN_FD (-1: /dev/null), stdout and stderr into P->fd (non-blocking).
 * 0 or a negative errno, reported.
 */
int fleet_proc_start(char *const *argv, int in_fd, struct fleet_proc *p);
/* Kill P's process group with SIG. */
void fleet_proc_kill(struct fleet_proc *p, int sig);
/* Reap P: its exit status, 128 + the signal that killed it. */
int fleet_proc_wait(struct fleet_proc *p);
/* Whether P has exited (reaped then, without waiting). */
bool fleet_proc_exited(struct fleet_proc *p);
/*
 * Read what P has written; each whole line goes to LINE(ARG, line); at
 * the end the partial line too.  Returns 1 while P's output is open, 0
 * at its end.
 */
int fleet_proc_pump(struct fleet_proc *p,
		    void (*line)(void *arg, const char *s), void *arg);

/*
 * Run ARGV to its end with stdin from IN_FD (-1: none) and its output
 * (at most 1 MiB, the rest dropped) into *OUT (owned), killing it after
 * TIMEOUT_S; *STATUS gets its exit status (ssh: 255 when it could not
 * connect).  0 once it ended, -ETIMEDOUT when killed, or another negative
 * errno (reported) when it could not start.
 */
int fleet_run_capture(char *const *argv, int in_fd, double timeout_s,
		      char **out, int *status);
/*
 * fleet_run_capture() with no stdin and WATCH(ARG) asked before each pass
 * (about every 200 ms) while ARGV runs: a nonzero answer kills it and
 * gives -EFBIG (a copy past its cap, fleet_fetch()).
 */
int fleet_run_capture_watch(char *const *argv, double timeout_s,
			    int (*watch)(void *arg), void *arg, char **out,
			    int *status);
/*
 * The same for ARGVS[0..N) (N at most FLEET_HOSTS_MAX) all at once, no
 * stdin: each one's output, status and return value (0, -ETIMEDOUT, or
 * the error of its start) into OUTS[i] (owned), STATUSES[i] and RETS[i].
 * TIMEOUT_S bounds them all.
 */
void fleet_run_capture_all(char *const *const *argvs, size_t n,
			   double timeout_s, char **outs, int *statuses,
			   int *rets);

/* ---- fleet-cmd.c ---- */

/* Where a run goes on each host: FLEET_REMOTE_DIR/<the name of RUNDIR>,
 * of [A-Za-z0-9._-] only, under the login directory there.  Owned. */
char *fleet_remote_dir_new(const char *rundir);
/*
 * The command that runs the matrix on a host, in RDIR there (made by the
 * push of its config.ini and workloads/): VMTAX 'run config.ini --out run'
 * with SETS[0..NSETS) but the fleet's own (run.executor, fleet.*,
 * workload.dir, run.cells), then executor = local, workload.dir =
 * workloads and, when CELLS is not NULL, run.cells = CELLS (a split
 * fleet's share).  Detached from the connection: its output in run.log,
 * its pid in run.pid, its exit status in run.rc; run.log followed until it
 * ends, and its status the command's (97: no RDIR).  Owned.
 */
char *fleet_run_cmd_new(const char *rdir, const char *vmtax,
			const char *const *sets, size_t nsets,
			const char *cells);
/*
 * The command that takes up a host's run in RDIR again (--resume of a
 * fleet run): a run still going there (run.pid alive, no run.rc) is
 * followed to its end; a run that ended (run.rc) gives its status and runs
 * nothing; a run that had not begun (no run/results.json) begins again
 * (RUN_CMD, fleet_run_cmd_new()'s); else 'VMTAX run --resume run' there,
 * detached as above, its output added to run.log and followed (a run
 * there that was complete: status 0).  Owned.
 */
char *fleet_resume_cmd_new(const char *rdir, const char *vmtax,
			   const char *run_cmd);

/*
 * The command that says how large DIR (a host's run directory there) is:
 * two lines, "BYTES<TAB>DIR" (du -s -b: apparent sizes, what scp copies)
 * and "ENTRIES<TAB>DIR" (du -s --inodes), for fleet_usage_parse().  Owned.
 */
char *fleet_usage_cmd_new(const char *dir);
/* Its answer TEXT into *BYTES and *FILES: 0, or -EINVAL when TEXT is not
 * that (a du without --inodes, a host that said something else). */
int fleet_usage_parse(const char *text, long long *bytes, long long *files);
/*
 * Whether a host's run directory of BYTES in FILES (entries) may come
 * back: 0, or -EFBIG with why in WHY, WHAT first ("its run directory
 * there is", "its copy came to") and then the size and the cap it passes
 * (FLEET_COPY_BYTES_MAX, FLEET_COPY_FILES_MAX: caps.h).
 */
int fleet_copy_judge(long long bytes, long long files, const char *what,
		     char *why, size_t len);

/* ---- fleet-check.c ---- */

/*
 * The command each host answers before anything runs: its uid (a line
 * "uid=N"), then its vmtax's 'host probe --json'.  VMTAX is [fleet]
 * vmtax.  Owned.
 */
char *fleet_probe_cmd_new(const char *vmtax);

/* A host's answers: what fleet_probe_cmd_new()'s command printed. */
struct fleet_probe {
	long uid;    /* -1: not said */
	json_t *doc; /* the probe, or NULL */
};

/* Parse TEXT into P (P->doc a new reference).  Pure. */
void fleet_probe_parse(const char *text, struct fleet_probe *p);
void fleet_probe_release(struct fleet_probe *p);

/* What this host's vmtax wants of each host. */
struct fleet_want {
	const char *version;  /* VMTAX_VERSION */
	const char *build_id; /* build_id_read() */
	bool libvirt;	      /* the matrix has guest cells */
	bool kvm;	      /* [guest] accel = kvm: no TCG fallback */
	/* the largest guest's vCPUs and memory (bytes); 0: no guests */
	long vcpus;
	unsigned long long memory;
};

/*
 * Judge one host: P its answers, STATUS the exit status of the command
 * (ssh's 255: it could not connect, the host key, ...), TEXT its whole
 * output (ssh's message is in it).  0, or -EINVAL with the one reason in
 * WHY: unreachable or its host key unknown (ssh's message), not root, no
 * vmtax, another version or build, no libvirt, no KVM, fewer CPUs than
 * the largest guest's vCPUs or less memory (MemTotal) than its memory
 * (a probe that does not say them passes: the host's own run checks).
 * Pure.
 */
int fleet_host_judge(const struct fleet_probe *p, int status, const char *text,
		     const struct fleet_want *w, char *why, size_t len);
/*
 * The probe's host as results.json's run.host would say it (accel: the
 * probe's decision), for host_diff() (reports/host-diff.h).  New
 * reference, NULL without a probe.  Pure.
 */
json_t *fleet_probe_host_new(const json_t *probe);
/* The probe's machine id ("" when it has none).  Borrowed. */
const char *fleet_probe_machine_id(const json_t *probe);

/* ---- fleet-merge.c ---- */

/* One host of a fleet run, as it ended. */
struct fleet_host_result {
	const char *name;   /* its [fleet] hosts entry (the destination) */
	const json_t *doc;  /* its results.json (checked), or NULL */
	const json_t *host; /* its run.host from the pre-check, or NULL */
	int rc;		    /* the run there's exit status; -1: none */
	const char *why;    /* why it failed, or NULL */
};

/*
 * results.json "fleet": {"mode", "hosts": [{"name", "status" ("ok",
 * "failed"), "reason" (null when ok), "exit_status" (null: the run there
 * did not end), "results" ("hosts/NAME/results.json", null when none came
 * back), "host" (its run.host, what it is and its fingerprint: from its
 * results, else from its probe), "cells" {"ok", "failed", "skipped",
 * "pending"}}]}; mode split with unlike hosts (only [fleet] allow_unlike
 * lets one run) adds "unlike": fleet_unlike_new().  New reference.  Pure.
 */
json_t *fleet_label_new(const char *mode, const struct fleet_host_result *h,
			size_t n);
/*
 * The hosts of H[1..N) whose run.host differs from H[0]'s (reports/
 * host-diff.h), each compared as check() did (its probe's run.host, else
 * its results'): [{"host": NAME, "differs_from": H[0]'s name, "fields":
 * [FIELD, ...] (host_diff_fields[] order), "text": "cpu_model ('X' vs
 * 'Y'), ..."}]; NULL when they are alike.  New reference.  Pure.
 */
json_t *fleet_unlike_new(const struct fleet_host_result *h, size_t n);
/*
 * Cell I (id ID) across the hosts: "ok" when it is ok on every host; else
 * the status of the first host where it is not ("failed" for a host that
 * gave no results), its reason naming the host ("host 'b': ...": why the
 * host failed when it did, else the cell's own) in
 * *REASON (owned; NULL when ok).  *OBSERVED gets {"hosts": {NAME:
 * {"status", "reason", "samples"}}} (new reference).  Pure.
 */
const char *fleet_cell_merge(const struct fleet_host_result *h, size_t n,
			     size_t i, char **reason, json_t **observed);

/*
 * mode = split: the host of NHOSTS that runs cell CI (round robin over the
 * matrix's cells, in order).  Pure.
 */
size_t fleet_split_host(size_t ci, size_t nhosts);
/*
 * Host K's share of NCELLS cells as [run] cells' value, "K,K+N,...";
 * owned, "" when it has none.  Pure.
 */
char *fleet_split_cells_new(size_t k, size_t nhosts, size_t ncells);
/*
 * mode = split: this run's results document from its hosts' H[0..N) (each
 * ran its share, the other cells skipped there): the first document's
 * head, its run.status "complete" only when every host's run is; each of
 * the NCELLS cells from the host that ran it (fleet_split_host()), its
 * samples that host's alone, with "observed" "host" (its name) and "hosts"
 * and the status and reason of fleet_cell_merge() over that one host (a
 * host with no results: its cells failed with why).  NULL when no host's
 * results came back.  New reference.  Pure.
 */
json_t *fleet_split_doc_new(const struct fleet_host_result *h, size_t n,
			    size_t ncells);

/*
 * mode = each: what this run's results.json holds of its hosts, the host
 * its outermost axis (docs/fleet.md): HEAD's axes get the host just after
 * where (values: every host's name, in order: report_fleet_axes_new()),
 * its baseline the first host's; the cells (returned) are every host's
 * cells, host by host, each as fleet_split_doc_new()'s cell of that host
 * (its samples that host's alone, its status, "observed" "hosts" but not
 * "host"; a host with no results: its cell of OWN, this run's own cells,
 * failed with why), its id and axes with its host
 * (report_fleet_cell_set_host()) and "host": {"name", "fingerprint" (its
 * results' run.host's, else its probe's; null)}.  New reference.  Pure.
 */
json_t *fleet_each_cells_new(const struct fleet_host_result *h, size_t n,
			     json_t *head, const json_t *own);
/*
 * The undoing, to resume such a run (results_resume_load()): when DOC
 * has the host axis (report_fleet_has_axis()), its cells become the
 * matrix's again (the first host's, without their host and samples: the
 * hosts' results are taken again), its axes and baseline without the
 * host.  Pure.
 */
void fleet_each_cells_undo(json_t *doc);

#endif
