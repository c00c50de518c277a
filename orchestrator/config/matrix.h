/* SPDX-License-Identifier: MIT */
/*
 * matrix.h - the axes of a run config and the cells they expand into.
 * docs/axes.md is the contract; this is its one implementation.
 *
 * An axis is a setting the config gives more than one value (and the classic
 * ones, which are axes whatever their count: where, host-thp, guest-thp,
 * paging when [matrix] paging/ept/npt is set, backing when set).  The cells
 * are their cross product, nested outermost first in this order, which is
 * also the order of the NAME=VALUE parts of a cell id:
 *	where (bare-metal cells first), paging, [host] knobs (config order),
 *	host-thp, guest-thp, backing, [guest] image, kernel, initrd, vcpus,
 *	memory, cmdline, [guest] knobs (config order), workload parameters
 *	(the workload file's order)
 * An axis a where value does not apply to (guest-only axes on bare metal)
 * is not iterated there.  Ids: "WHERE/NAME=VALUE/...", a kernel or initrd
 * value as its base name, '/' in any other value written '_'.  [matrix]
 * exclude patterns (fnmatch) drop cells by id; two cells with one id, a
 * baseline that names no cell, and a matrix of no cells (or more than
 * MATRIX_MAX_CELLS) are config errors, reported "file:line: ...".
 *
 * struct matrix holds every axis (also single-valued settings, in_id false)
 * in id order, and the cells.  Strings in cells are borrowed from the
 * struct run_config, which must outlive the matrix; axis names, keys, values
 * and ids are owned by the matrix (matrix_release()).
 *
 * Pure code: no I/O but the error messages.
 */
#ifndef VMTAX_MATRIX_H
#define VMTAX_MATRIX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run-config.h"
#include "vocab.h"

#define MATRIX_MAX_CELLS 10000
#define MATRIX_REPLICA_AXIS AXIS_NAME_REPLICA /* vocab.h */

/* ---- axes ---- */

enum axis_kind {
	AXIS_WHERE,	 /* [matrix] where */
	AXIS_CLASSIC,	 /* paging, host-thp, guest-thp, backing */
	AXIS_HOST_KNOB,	 /* [host] KNOB */
	AXIS_GUEST_KEY,	 /* [guest] image, kernel, initrd, vcpus, memory,
			  * cmdline */
	AXIS_GUEST_KNOB, /* [guest] sysctl.X, mm.X */
	AXIS_PARAM,	 /* a workload parameter */
	AXIS_REPLICA,	 /* [run] replicas = 2: "a", "b" (an A/A run) */
};

enum axis_applies { APPLIES_ALL, APPLIES_GUEST };

/* The nesting (id) order above, outermost first: an axis's slot. */
enum axis_slot {
	SLOT_WHERE = 1,
	SLOT_PAGING,
	SLOT_HOST_KNOBS, /* [host] KNOB, config order */
	SLOT_HOST_THP,
	SLOT_GUEST_THP,
	SLOT_BACKING,
	SLOT_IMAGE,
	SLOT_KERNEL,
	SLOT_INITRD,
	SLOT_VCPUS,
	SLOT_MEMORY,
	SLOT_CMDLINE,
	SLOT_GUEST_KNOBS, /* [guest] sysctl.X, mm.X, config order */
	SLOT_PARAMS,	  /* workload parameters */
	SLOT_REPLICA,
	SLOT_END,
};

/* How each value of a key's axis goes into its cell field. */
enum cell_as {
	CELL_SET_BY_MATRIX, /* where: the expansion sets it */
	CELL_TEXT,	    /* const char *: the value as written (borrowed) */
	CELL_LONG,	    /* long: an INI_INT value */
	CELL_U64,	    /* uint64_t: an INI_SIZE value */
	CELL_ENUM,	    /* an enum whose 0 is none (PAGING_NONE ...): an
			     * INI_ENUM value with choices = NAMES + 1 */
};

/*
 * A run config key that is an axis, declared beside the key in the one key
 * table (run-config.c, struct ini_key .ext): the cell field it fills and
 * how.  Its id key is "SECTION.NAME"; its values are the key's, parsed once
 * at load (struct ini_list .val).
 */
struct axis_spec {
	enum axis_slot slot;
	const char *name; /* in ids; NULL: the key's name */
	enum axis_kind kind;
	enum axis_applies applies;
	size_t cell; /* offsetof(struct cell, FIELD) */
	enum cell_as as;
	bool base_name; /* a path: ids show its base name */
	/* INI_FLAG(offsetof a bool of struct run_config) that puts the axis
	 * in ids; 0: a list always is, an axis key when it has more than one
	 * value */
	size_t in_id;
};

struct axis {
	char *name; /* in ids: "paging", "host.thp.defrag", "vcpus",
		     * "guest.sysctl.vm.swappiness", "JOBS" */
	char *key;  /* config key: "matrix.paging", "host.thp.defrag",
		     * "guest.vcpus", "workload.JOBS" */
	enum axis_kind kind;
	char **values; /* as in ids (kernel base names, '/' as '_') */
	size_t nvalues;
	bool numeric;	 /* every value is a number (sizes count) */
	double *numbers; /* when numeric: the values; sizes in bytes */
	enum axis_applies applies;
	bool in_id; /* part of cell ids (and of results.json "axes") */
};

/* ---- cells ---- */

/* A knob or parameter and this cell's value (borrowed from the config). */
struct cell_kv {
	const char *name;
	const char *value;
};

struct cell {
	char *id;
	enum where where;
	const char *host_thp;
	const char *guest_thp; /* NULL on bare metal */
	enum paging paging;    /* PAGING_NONE on bare metal */
	enum backing backing;  /* BACKING_NONE on bare metal */
	/* [guest] values of this cell; NULL/0 on bare metal */
	const char *image;   /* "tiny", "debian" */
	const char *kernel;  /* a path, or "auto" */
	const char *initrd;  /* a path, or "auto" */
	const char *cmdline; /* may be "" */
	long vcpus;
	uint64_t memory; /* bytes */
	/* every workload parameter, in the workload file's order */
	struct cell_kv *params;
	size_t nparams;
	/* every [host] knob, config order */
	struct cell_kv *host_knobs;
	size_t nhost_knobs;
	/* every [guest] knob, config order; none on bare metal */
	struct cell_kv *guest_knobs;
	size_t nguest_knobs;
	/* one per matrix axis (m->naxes): this cell's value as in ids, NULL
	 * where the axis does not apply (borrowed from the axis) */
	const char **axis_values;
};

struct matrix {
	struct axis *axes; /* id order, where first */
	size_t naxes;
	struct cell *cells; /* after exclude */
	size_t ncells;
	size_t baseline; /* index into cells */
};

/*
 * Expand C into M (see above).  0, or -EINVAL after reporting; M is then
 * empty (matrix_release() is still safe).
 */
int matrix_expand(const struct run_config *c, struct matrix *m);
void matrix_release(struct matrix *m);
/* Whether cell CI runs here: [run] cells lists it, or lists none (a split
 * fleet host's share, fleet.h; an index past the matrix is an error of
 * matrix_expand()). */
bool matrix_cell_listed(const struct run_config *c, size_t ci);
/* The reason of a cell it does not list (skipped). */
#define MATRIX_CELL_UNLISTED                                                   \
	"another host's share of a split fleet ([run] cells)"
/* Whether ID is cell BASE's replica REP ("BASE/replica=REP"). */
bool matrix_is_replica_of(const char *id, const char *base, const char *rep);

/*
 * results.json per docs/axes.md: the top-level "axes" array (the axes in
 * ids, where first) and cell CI's "axes" object {name: value}.  New refs.
 */
json_t *matrix_axes_json(const struct matrix *m);
json_t *matrix_cell_axes_json(const struct matrix *m, size_t ci);
/* {name: value} of N knobs or parameters (a cell's env "params",
 * "host_knobs", "guest_knobs"). */
json_t *cell_kv_json(const struct cell_kv *kv, size_t n);
/* "NAME=value" for each of the cell's parameters (NULL-ended; free_strv). */
char **cell_env_new(const struct cell *c);

#endif
