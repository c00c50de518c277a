/* SPDX-License-Identifier: MIT */
/*
 * run-config.h - vmtax's run config (configs/NAME.ini): its key table,
 * --set, loading.  The generic INI engine under it is ini-schema.h.
 *
 * Every key is declared once, in run_keys[] in run-config.c, with its own
 * rule (check/finish, see ini-schema.h); 'vmtax run --help' prints them
 * (run-config-doc.c).  Reading a config (the file, --set, knobs and
 * parameters, the workload, run_config_to_json()) is run-config-load.c.
 * Loading checks everything that can be checked without touching the host:
 * bad input gives "file:line: message" and -EINVAL, and the caller exits 2.
 *
 *	[run]      name, repeat, target, max_repeat, boots, warmup, baseline,
 *	           timeout, boot_timeout, heartbeat, silence_timeout, retries,
 *	           max_failures,
 *	           quiet_wait, quiet_others, governor, profile, profile_hz,
 *	           events
 *	[guest]    image, vcpus, memory, kernel, initrd, cmdline (each one value
 *	           or a list: an axis), accel, uri, cpu_features, pin;
 *	           sysctl.A.B, mm.A.B: guest knobs (a list: an axis)
 *	[host]     KNOB = value(s): a registered host knob (thp.defrag,
 *	           kvm.nx_huge_pages, ...) or a generic one (sysctl.A.B,
 *	           mm.A.B); a list is an axis.  The knobs the matrix sets
 *	           itself (thp.enabled, paging, hugetlb.*) are refused here.
 *	[matrix]   where, host_thp, guest_thp, paging (or ept/npt), backing,
 *	           exclude
 *	[lab]      cpu, cpu_features, vcpus, memory: the lab host of
 *	           [run] executor = lab (lab.h); unused otherwise
 *	[fleet]    hosts, mode, vmtax, connect_timeout, ssh_config,
 *	           allow_unlike: the ssh hosts of
 *	           [run] executor = fleet (fleet.h); hosts make the executor
 *	           fleet unless it is set; unused otherwise
 *	[workload] name, dir; every other key (NAME) overrides a workload
 *	           parameter, with one value or a list (an axis)
 *
 * Lists and how they become axes and cell ids: docs/axes.md, matrix.h.
 * --set SECTION.KEY=VALUE takes the same values ("guest.vcpus=1,2",
 * "workload.JOBS=2,4", "host.thp.defrag=always,never",
 * "guest.sysctl.vm.swappiness=10,60") and replaces what the file says.
 *
 * Each axis key names, in its table entry, the cell field it fills (struct
 * axis_spec, matrix.h); its values are parsed once, at load.  Whether a key
 * was set is a bool field (paging_set ...), not a lookup by name.
 *
 * Ownership: run_config_load() fills a struct run_config that
 * run_config_release() frees (also after a failed load); matrices and cells
 * borrow from it.
 */
#ifndef VMTAX_RUN_CONFIG_H
#define VMTAX_RUN_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ini-schema.h"
#include "runner.h"
#include "util.h"
#include "workload-def.h"

/* The highest [guest] numa node number a config may name (the kernel's
 * MAX_NUMNODES is at most 1024). */
#define RUN_NUMA_NODE_MAX 1023

/* [run] governor's value that leaves the cpufreq governor alone */
#define RUN_GOVERNOR_KEEP "keep"

/* A [host] or [guest] knob: its values in config order. */
struct knob_setting {
	char *name;		/* "thp.defrag", "sysctl.vm.swappiness" */
	struct ini_list values; /* one, or a list (an axis) */
	int line;		/* -1: from --set */
};

struct run_config {
	/* [run] */
	char *name;
	long repeat;
	char *target_text; /* "2%", or "": none */
	double target;	   /* target_text as a fraction; 0: none */
	long max_repeat;   /* >= repeat; repeat when not set */
	long boots;	   /* guests a guest cell's samples spread over */
	bool boots_auto;   /* boots = 0 in the config: chosen by order */
	char *order;	   /* "interleaved" | "cells" */
	char *executor;	   /* where the matrix runs: cell_exec_places[] */
	long seed;	   /* 0: from the clock */
	long replicas;	   /* 1, or 2 for an A/A run (vmtax calibrate) */
	char *plan;	   /* "fixed" | "auto" */
	bool plan_auto;
	long max_boots;	   /* plan = auto's bound */
	long warmup;
	char *baseline;
	double timeout_s;
	double boot_timeout_s;
	double heartbeat_s;
	double silence_s;  /* a sample's agent silent this long: hung */
	long retries;
	long max_failures;
	double quiet_wait_s;
	long quiet_others;
	char *governor; /* RUN_GOVERNOR_KEEP, or the governor to set */
	bool profile; /* docs/profile.md */
	double profile_hz;
	char *events_text; /* [run] events as written */
	uint64_t events;   /* its counters (lib/runner.h), beyond the RC_NR */
	struct runner_raw_events raw_events; /* and its raw PMU events */
	/* a split fleet host's share of the matrix: cell indices (a hidden
	 * key the fleet sets, fleet.h); none: every cell */
	struct ini_list cells;
	/* [guest]: elements as written, checked as the key's type */
	struct ini_list image;	 /* tiny | debian */
	struct ini_list vcpus;	 /* integers */
	struct ini_list memory;	 /* sizes */
	struct ini_list kernel;	 /* paths, or auto */
	struct ini_list initrd;	 /* paths, or auto */
	struct ini_list cmdline; /* may be "" */
	char *cpu_features;	 /* "+pdpe1gb -la57", or "" */
	char *accel;
	char *uri;
	char *pin;		 /* none | auto | a CPU list (lib/cpuset.h) */
	char *numa;		 /* none | a NUMA node number, at most
				  * RUN_NUMA_NODE_MAX */
	/* [matrix] */
	struct ini_list where;
	struct ini_list host_thp;
	struct ini_list guest_thp;
	struct ini_list paging; /* ept/npt rewritten into hw/shadow */
	struct ini_list ept;
	struct ini_list npt;
	struct ini_list backing;
	struct ini_list exclude;
	/* [lab]: the lab host of [run] executor = lab (lab.h) */
	char *lab_cpu;
	char *lab_cpu_features;
	long lab_vcpus;
	uint64_t lab_memory;
	bool lab_restore;
	char *lab_image_from; /* image_from_names (image.h) */
	/* [fleet]: the hosts of [run] executor = fleet (fleet.h) */
	struct ini_list fleet_hosts; /* ssh destinations */
	char *fleet_mode;	     /* "each" | "split" */
	char *fleet_vmtax;	     /* the command on each host */
	double fleet_connect_timeout_s;
	char *fleet_ssh_config; /* "ssh -F": NULL, ssh's own */
	bool fleet_allow_unlike; /* mode split runs on unlike hosts, noted */
	/* "was set" (file or --set), for the rules and axes that ask */
	bool max_repeat_set;
	bool silence_set;  /* else 4 heartbeats + 30 s */
	bool executor_set; /* else [fleet] hosts make it "fleet" */
	bool profile_hz_set; /* else a TCG guest's profile_hz is lower */
	bool paging_set, ept_set, npt_set;
	bool backing_set; /* backing is in cell ids */
	bool paging_axis; /* paging, ept or npt: paging is in cell ids */
	const struct ini_key *paging_by; /* ept or npt when it gave paging */
	/* [workload] */
	char *workload_name;
	char *workload_dir;
	/* [host] KNOB and [guest] sysctl.X / mm.X, in config order */
	struct knob_setting *host_knobs;
	size_t nhost_knobs;
	struct knob_setting *guest_knobs;
	size_t nguest_knobs;

	/* provenance */
	char *path;
	char *text;
	struct ini_origin origin;
	/* parameter overrides from [workload], until the workload is loaded */
	struct wl_param *overrides;
	size_t noverrides;
	struct workload wl;
};

/* Load PATH and its workload; apply SETS ("section.key=value", --set). */
int run_config_load(const char *path, const char *const *sets, size_t nsets,
		    struct run_config *c);
void run_config_release(struct run_config *c);
/* A sample's time limit: the workload's own timeout, else [run] timeout. */
double run_config_sample_timeout(const struct run_config *c);
/* The keys for 'vmtax run --help': the table, then the knob and parameter
 * forms, and how lists make axes. */
void run_config_print_help(FILE *f);
/* The same keys as roff, for vmtax-config(5) (man/gen-man-config.c). */
void run_config_print_man(FILE *f);
/* The run config's key table (for the man page, completion and tests). */
const struct ini_schema *run_config_schema(void);
/* The resolved config for results.json: {section: {key: value}}; a list
 * given for an axis key is an array, one value is the value as before;
 * workload.params {NAME: value or [values]}, host {KNOB: ...}, and guest
 * knobs inside "guest". */
json_t *run_config_to_json(const struct run_config *c);

/* A key of the table named by the field it fills: RUN_CONFIG_KEY(vcpus). */
#define RUN_CONFIG_KEY(field) offsetof(struct run_config, field)
/* Report "path:line: msg" at the line of KEY (RUN_CONFIG_KEY()); "path:
 * msg" if it has none. */
void run_config_error(const struct run_config *c, size_t key, const char *fmt,
		      ...) VMTAX_PRINTF(3, 4);

/*
 * Whether NAME may be a [host] key: a registered host knob the matrix does
 * not set itself, or a generic knob (knob_name_valid()).  0, or -EINVAL with
 * the message (naming the matrix key to use, or a did-you-mean) in MSG.
 */
int run_config_host_knob_check(const char *name, char *msg, size_t len);
/*
 * With a remote [guest] uri (qemu+ssh://USER@HOST/system), what needs
 * HOST's own vmtax ([fleet]) is refused: bare-metal cells, a host_thp
 * axis, [host] knobs, paging/ept/npt, hugetlb backing; and what is not
 * built (pin, executor lab or fleet).  A debian image is copied there
 * (guest-remote.h).  0, or -EINVAL reported at the key's line.  Pure
 * (run-config-remote.c).
 */
int run_config_remote_check(const struct run_config *c);
/* run_config_guest_knob_name(): vocab.h */

#endif
