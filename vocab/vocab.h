/* SPDX-License-Identifier: MIT */
/*
 * vocab.h - the words a run's results are written in, each defined once:
 * the axes (name, config key, results.json env key, values, heading,
 * kind), a cell's status, why it stopped sampling, where the matrix runs
 * (the executors' places) and the names and checks of what a config may
 * say that the reports read back (workload parameters, guest knobs, fleet
 * hosts).  The orchestrator writes results with these words and the reports
 * read them with the same ones; neither spells one of them again.
 *
 * Layer (docs/development.md "Layers"): vocab/ is below reports/ and
 * orchestrator/, above lib/, host/ and guest-image/; it includes lib/ only.
 * Pure code: no I/O.
 *
 * How to add a first-class axis (docs/axes.md "A new axis"): a row in
 * vocab_axes[] (vocab.c) with its AXIS_NAME_ macro when code outside the
 * table names it, then where it takes effect: its key and AXIS(...) in the
 * key table (run-config.c), its slot (matrix.h) and the cell field it
 * fills.
 */
#ifndef VMTAX_VOCAB_H
#define VMTAX_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

/* ---- axes: their names in ids, results.json "axes" and the reports ---- */

#define AXIS_NAME_WHERE "where"
#define AXIS_NAME_PAGING "paging"
#define AXIS_NAME_HOST_THP "host-thp"
#define AXIS_NAME_GUEST_THP "guest-thp"
#define AXIS_NAME_BACKING "backing"
/* The axis of an A/A run's copies ([run] replicas; vmtax calibrate). */
#define AXIS_NAME_REPLICA "replica"
/* The THP axes' other spelling: their [matrix] keys, their results.json
 * env and observed keys, and the names 'vmtax compare --by' took before
 * axes were named. */
#define AXIS_ENV_HOST_THP "host_thp"
#define AXIS_ENV_GUEST_THP "guest_thp"
/* The other classic axes' env keys are their names. */
#define AXIS_ENV_WHERE AXIS_NAME_WHERE
#define AXIS_ENV_PAGING AXIS_NAME_PAGING
#define AXIS_ENV_BACKING AXIS_NAME_BACKING

/* The fixed axes, in vocab_axes[] order (the classic ones first, in the
 * order a report derives them from env: docs/axes.md). */
enum vocab_axis_id {
	VAX_WHERE,
	VAX_PAGING,
	VAX_HOST_THP,
	VAX_GUEST_THP,
	VAX_BACKING,
	VAX_IMAGE,
	VAX_KERNEL,
	VAX_INITRD,
	VAX_VCPUS,
	VAX_MEMORY,
	VAX_CMDLINE,
	VAX_REPLICA,
	VAX_NR
};
/* The classic axes: VAX_WHERE .. VAX_BACKING. */
#define VAX_CLASSIC_NR (VAX_BACKING + 1)

struct vocab_axis {
	const char *name;    /* in ids, results.json "axes", the reports */
	const char *key;     /* the config key: "matrix.host_thp" */
	const char *env;     /* results.json cell env key; NULL: none */
	const char *heading; /* the reports' column heading */
	/* NULL-terminated values (the config key's choices); NULL: any the
	 * config gives */
	const char *const *values;
	bool classic;	 /* derived from env where results.json has no "axes" */
	bool guest_only; /* no value on bare metal */
	bool in_ids;	 /* classic: always in ids (else only when set) */
	bool column;	 /* the reports' matrix puts it in columns by default */
};

extern const struct vocab_axis vocab_axes[VAX_NR];
/* The row of NAME, or NULL. */
const struct vocab_axis *vocab_axis_find(const char *name);
/* NAME's heading in reports ("host THP"); NAME when it has none. */
const char *vocab_axis_heading(const char *name);

/* ---- the classic axes' values: one table each, NAME_name()/NAME_parse() */

enum where { WHERE_BARE, WHERE_GUEST };
/* "bare-metal", "guest"; NULL-terminated (the [matrix] where choices) */
extern const char *const where_names[];
const char *where_name(enum where w);
/* 0 and *OUT, or -EINVAL for a name not in the table */
int where_parse(const char *s, enum where *out);

/* PAGING_NONE: bare metal (no paging value). */
enum paging { PAGING_NONE, PAGING_AUTO, PAGING_HW, PAGING_SHADOW, PAGING_TCG };
/* [PAGING_NONE] is NULL; paging_names + 1 is the NULL-terminated list of
 * the [matrix] paging choices "auto", "hw", "shadow", "tcg". */
extern const char *const paging_names[];
const char *paging_name(enum paging p); /* NULL for PAGING_NONE */
int paging_parse(const char *s, enum paging *out);

/* BACKING_NONE: bare metal. */
enum backing {
	BACKING_NONE,
	BACKING_THP,
	BACKING_HUGETLB_2M,
	BACKING_HUGETLB_1G
};
/* [BACKING_NONE] is NULL; backing_names + 1: "thp", "hugetlb-2M",
 * "hugetlb-1G", NULL-terminated. */
extern const char *const backing_names[];
const char *backing_name(enum backing b); /* NULL for BACKING_NONE */
int backing_parse(const char *s, enum backing *out);

/* ---- a cell's status and why it stopped sampling (results.json) ---- */

enum cell_status { CELL_PENDING, CELL_OK, CELL_FAILED, CELL_SKIPPED };
const char *cell_status_name(enum cell_status s);
/* 0, or -EINVAL for a word that is not a status. */
int cell_status_parse(const char *s, enum cell_status *out);

/* Why a cell stopped sampling (results.json cell "stop_reason"). */
enum stop_reason {
	STOP_NONE,	  /* still sampling: null in results.json */
	STOP_REPEAT,	  /* "repeat": a fixed number of samples */
	STOP_TARGET,	  /* "target": the interval met the target */
	STOP_MAX_REPEAT,  /* "max_repeat": the cap, target not met */
	STOP_NO_BASELINE, /* "no_baseline": nothing to compare against */
	STOP_FAILED,	  /* "failed": the cell failed */
	STOP_SKIPPED,	  /* "skipped": the host cannot run it */
	STOP_INTERRUPTED, /* "interrupted": the run stopped first */
	STOP_PLAN,	  /* "plan": [run] plan = auto's boots and samples */
	STOP_NR
};
const char *stop_reason_name(enum stop_reason r);
/* 0, or -EINVAL for a word that is not a stop reason. */
int stop_reason_parse(const char *s, enum stop_reason *out);

/* ---- where the matrix runs: [run] executor's values ---- */

#define CELL_EXEC_LOCAL "local" /* cell_exec_places[0]: this host */
#define CELL_EXEC_LAB "lab"	/* the lab's guest (docs/lab.md) */
#define FLEET_EXEC "fleet"	/* [fleet] hosts over ssh (docs/fleet.md) */
/* The three, NULL-terminated (the [run] executor choices). */
extern const char *const cell_exec_places[];

/* [fleet] mode: "each" (every host runs the whole matrix) or "split"
 * (like hosts share its cells: each runs its share, [run] cells). */
extern const char *const fleet_modes[];
enum fleet_mode { FLEET_EACH, FLEET_SPLIT };
#define FLEET_HOSTS_MAX 32
#define FLEET_DEST_MAX 255

/*
 * Whether DEST may be a [fleet] host: an ssh destination, "user@host" or
 * an alias of the user's ssh config, of [A-Za-z0-9._@-] only, at most
 * FLEET_DEST_MAX characters, not starting with '-', at most one '@' with
 * something on each side.  0, or -EINVAL with the reason (naming the
 * character) in WHY.  Pure.
 */
int fleet_dest_check(const char *dest, char *why, size_t len);
/* The host part of DEST (after its '@'): two entries with one host are
 * refused.  Borrowed from DEST. */
const char *fleet_dest_host(const char *dest);

/* ---- names a config may give that results carry ---- */

/* A workload parameter's name: [A-Z][A-Z0-9_]*, at most 64 characters. */
bool wl_param_name_valid(const char *s);
/* Whether NAME may be a [guest] knob: sysctl.X or mm.X (knob-path.h). */
bool run_config_guest_knob_name(const char *name);

#endif
