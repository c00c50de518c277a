/* SPDX-License-Identifier: MIT */
/*
 * results-file.h - a run directory's record of the run: results.json and
 * samples.jsonl (docs/results-format.md).
 *
 * results.json is written from the run's typed state (struct run: its head
 * and one struct cell_state per cell), atomically, after every sample and
 * every cell; it is never read back to decide what runs next.  Each sample
 * is first appended to samples.jsonl and fsynced, so a measured sample is on
 * disk whatever happens next.  A run directory that cannot be written (a
 * full disk) makes these return a negative errno; the engine then stops at
 * once, resumable.
 *
 * Resume reads an earlier results.json once, at start, into the typed state
 * (results_resume_apply()), taking back any sample that reached
 * samples.jsonl but not results.json.
 */
#ifndef VMTAX_RESULTS_FILE_H
#define VMTAX_RESULTS_FILE_H

#include <jansson.h>
#include <stdbool.h>

#include "run-engine.h"

/*
 * The run directory: OUT, or runs/NAME-TIMESTAMP; created with its logs/
 * (and any missing parents, each by mkdirat, beneath.h's dir_open_path():
 * a symbolic link on the way is followed only when the user running
 * vmtax, or root, owns it) and resolved into *DIR (owned), an absolute
 * path: libvirt opens console logs from another working directory.  One
 * that holds a run already (results.json) is refused unless RESUME, the
 * message pointing at 'CMD --resume DIR'.  An existing directory (or its
 * logs/) owned by someone else or writable by group or others is refused,
 * the fix named (docs/security.md); so is a logs/ that is a symlink.
 * 0 or a negative errno, reported.
 */
int results_dir_make(const char *out, const char *name, bool resume,
		     const char *cmd, char **dir);

/*
 * DIR/REL (a run directory's results.json) as a document into
 * *DOC, only if this vmtax wrote it: DIR and REL owned by the effective
 * user and not writable by group or others (stat_ours(), beneath.h), REL
 * opened beneath DIR with no symlink followed, and loaded within its
 * memory budget (results-doc.h).  Anything else is refused (-EPERM) with
 * the fix named; WHAT prefixes a read or parse error ("cannot resume").
 * 0 or a negative errno, reported.
 */
int results_doc_load_ours(const char *dir, const char *rel, const char *what,
			  json_t **doc);

/* The head of results.json (schema, run, workload, baseline), no cells. */
json_t *results_head_new(const struct run *r);
/* A cell's env: what it asks for. */
json_t *results_cell_env_new(const struct run *r, const struct cell *c);
/* Fresh state for every cell of R (status pending, no samples). */
void results_states_init(struct run *r);
/* R's cells as results.json holds them, from its states.  New reference. */
json_t *results_cells_new(const struct run *r);
/* Write results.json from R's head and states (R->record_cells in place
 * of the states' when set).  0 or a negative errno. */
int results_save(struct run *r);
/* Append {"cell": ID, "sample": SJ} to samples.jsonl and fsync it. */
int results_journal_sample(struct run *r, const char *cell_id, json_t *sj);
/* Mark the run finished: its end time and status (complete, interrupted). */
void results_finish(struct run *r);

/* Load DIR/results.json to resume it, and the --set list it ran with. */
int results_resume_load(const char *dir, json_t **doc, const char ***sets,
			size_t *nsets);
/* Refuse a changed config (unless FORCE) or a different matrix. */
int results_resume_check(struct run *r, json_t *old, bool force);
/* Take OLD into R's head and states (with samples.jsonl's late samples). */
int results_resume_apply(struct run *r, json_t *old);

/*
 * What a remote executor's host recorded (DOC, its results.json, which this
 * host does not trust) into R: refused unless it is a results document of
 * R's cells, in order; else R's head becomes DOC's (what ran there, and on
 * what) but for what this host keeps of its run (config path, text and
 * values, --set list, start and resumes: what --resume takes), with LABEL (may be
 * NULL) under KEY (the executor's name: what this host knows of where the
 * cells ran), and R's states DOC's cells.  R->stopped says whether the run
 * there did not complete; R->failures counts its failed samples.  0 or a
 * negative errno, reported.
 */
int results_remote_take(struct run *r, const json_t *doc, const char *key,
			json_t *label);

/*
 * What results_remote_take() checks first: DOC is a results document of
 * R's cells, in order.  WHAT names DOC in the error.  0 or -EINVAL,
 * reported.
 */
int results_remote_check(const struct run *r, const json_t *doc,
			 const char *what);

/* A document saved mid-run whose run no longer runs: "interrupted". */
void results_doc_cut_off(json_t *doc);

#endif
