/* SPDX-License-Identifier: MIT */
/*
 * knob.h - the host knob registry, for the files of host/ only.
 *
 * A knob is a `const struct host_knob_ops`.  Two kinds:
 *   - registered: its own file (knob-NAME.c), listed once in host_knobs[] in
 *     knobs.c, found by its exact name (thp.enabled, paging, ...);
 *   - generic: every name knob_name_valid() of lib/knob-path.h accepts
 *     (sysctl.A.B -> /proc/sys/A/B, mm.A.B -> /sys/kernel/mm/A/B) shares
 *     host_knob_generic (knob-generic.c), minus the names whose file a
 *     registered knob owns (refused, pointing to that knob; see
 *     host_knob_resolve()).
 * host_knob_resolve() turns a name into a struct host_knob: the ops plus the
 * name and file of that instance, so one ops can serve many knobs.  The
 * context code (ctx.c) does the journalling, the lock and the undo; a knob
 * only knows how to read, check and apply its setting.
 *
 * How to add one (most settings need nothing: a sysctl or a file under
 * /sys/kernel/mm is already a generic knob; register one only when it needs
 * more than write-and-read-back, e.g. a module reload or a count to verify):
 *   1. write host/knob-NAME.c with a const struct host_knob_ops;
 *   2. declare it below and add it to host_knobs[] in knobs.c; if its file
 *      is reachable by a generic name, that name is refused automatically
 *      (same file) -- add a pattern to owned() in knobs.c when other
 *      files set the same thing (as vm.nr_hugepages does for hugetlb.*);
 *   3. document it in host.h and docs/host-control.md, and test it against a
 *      fake tree in tests/unit/test-host.c.
 *
 * Contract of the operations (K is the resolved knob; CTX gives root, module
 * ops and VM lister):
 *   read	current value into BUF; reports its error (with the path).
 *   supported	whether VALUE (NULL: the knob at all) can be applied here; WHY
 *		gets the reason otherwise.  Reports nothing, changes nothing.
 *   apply	set VALUE, then read back; -EIO with a message naming the
 *		expected and the read-back values when they differ.  Reports.
 *   file	(in the ops for a registered knob, in K->file for every knob)
 *		the file (under root) that takes the value read() gives as
 *		is, so host_restore_async() can write the original with
 *		open/write/close.  NULL / "" when that is not possible (paging).
 * All values are knob-level strings; the journal records what read() said.
 */
#ifndef VMTAX_HOST_KNOB_H
#define VMTAX_HOST_KNOB_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "host.h"
#include "knob-path.h"

#define HOST_VALUE_MAX KNOB_VALUE_MAX
#define HOST_FILE_MAX 256
/* The cpufreq policies host_governor_set() sets at most, one record each */
#define HOST_GOVERNOR_POLICIES_MAX 1024
#define HOST_MAX_RECORDS (32 + HOST_GOVERNOR_POLICIES_MAX)
/* cpufreq.policyN.governor (KNOB_PREFIX_CPUFREQ, knob-path.h): DIR/policyN/
 * scaling_governor */
#define HOST_CPUFREQ_DIR "/sys/devices/system/cpu/cpufreq"

struct host_knob;

struct host_knob_ops {
	const char *name;   /* NULL for host_knob_generic */
	const char *values; /* for --help and error messages */
	const char *file;   /* see "file" above; NULL if none */
	int (*read)(const struct host_knob *k, struct host_ctx *ctx, char *buf,
		    size_t len);
	bool (*supported)(const struct host_knob *k, struct host_ctx *ctx,
			  const char *value, char *why, size_t len);
	int (*apply)(const struct host_knob *k, struct host_ctx *ctx,
		     const char *value);
};

/* A knob resolved from its name: a value, copied freely, no allocation. */
struct host_knob {
	const struct host_knob_ops *ops;
	char name[KNOB_NAME_MAX];
	char file[HOST_FILE_MAX]; /* e.g. "/proc/sys/vm/swappiness"; "" if none
				   */
};

/*
 * One journalled change.  Fixed-size so host_restore_async() needs no
 * allocation and never sees a half-built record: nrecords is bumped only
 * after the record is complete.
 */
struct host_record {
	struct host_knob knob;
	char original[HOST_VALUE_MAX];
	char path[PATH_MAX]; /* ROOT/file, or "" when the knob has no file */
};

struct host_ctx {
	char *root;
	char *state_dir;
	char *lock_path;
	char *link_path; /* STATE/journal: an older vmtax's link, refused */
	char *journal;	 /* STATE/host-journal */
	const struct host_module_ops *modules;
	void *modules_arg;
	host_list_vms_fn list_vms;
	void *list_vms_arg;
	double vm_drain_s;
	bool readonly;
	int lock_fd;
	int journal_fd;
	struct host_record records[HOST_MAX_RECORDS];
	volatile sig_atomic_t nrecords;
};

extern const struct host_knob_ops *const host_knobs[];
extern const size_t host_nknobs;
/* The registered knob called NAME, or NULL (generic names are not found). */
const struct host_knob_ops *host_knob_find(const char *name);
/*
 * Resolve NAME (registered or generic) into K.  0, or -EINVAL with the
 * reason in WHY (NULL allowed): not a knob name, a malformed generic name,
 * or a generic name for the file of a registered knob.  Touches nothing.
 */
int host_knob_resolve(const char *name, struct host_knob *k, char *why,
		      size_t len);

extern const struct host_knob_ops host_knob_thp_enabled;
extern const struct host_knob_ops host_knob_thp_defrag;
extern const struct host_knob_ops host_knob_paging;
extern const struct host_knob_ops host_knob_hugetlb_2m;
extern const struct host_knob_ops host_knob_hugetlb_1g;
extern const struct host_knob_ops host_knob_kvm_nx_huge_pages;
extern const struct host_knob_ops host_knob_generic;
/* cpufreq.policyN.governor, one knob per policy (not in host_knobs[]: its
 * names are resolved by host_governor_resolve(), [host] refuses them) */
extern const struct host_knob_ops host_knob_governor;
/* Resolve "cpufreq.policyN.governor" into K; -EINVAL with WHY if not. */
int host_governor_resolve(const char *name, struct host_knob *k, char *why,
			  size_t len);
/* Why VALUE cannot be a generic knob's value ("is empty"), or NULL. */
const char *host_generic_value_problem(const char *value);

/* ROOT/REL as a new string (REL starts with '/'). */
char *host_path_new(const struct host_ctx *ctx, const char *rel);
/* read_line() of ROOT/REL, reporting "cannot read '/REL'" on failure. */
int host_read_sys(struct host_ctx *ctx, const char *rel, char *buf, size_t len);
/* write_str() VALUE to ROOT/REL, reporting on failure. */
int host_write_sys(struct host_ctx *ctx, const char *rel, const char *value);

#endif
