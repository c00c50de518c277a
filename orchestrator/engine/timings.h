/* SPDX-License-Identifier: MIT */
/*
 * timings.h - this host's own figures for the run estimate
 * (run-estimate.h, docs/estimate.md), kept from the last run of each
 * kind: the file TIMINGS_FILE in vmtax's cache directory (layout.h:
 * CACHEDIR, /var/cache/vmtax; $VMTAX_TIMINGS_DIR instead when set), one
 * JSON object:
 *
 *   {"schema": "vmtax-timings/1",
 *    "boot":   {"IMAGE/PLACE": FIG},	   guest boot to hello
 *    "sample": {"WORKLOAD/PARAMS/PLACE": FIG}, a sample's elapsed time
 *    "rest":   {"WORKLOAD/PARAMS": FIG},  per start: setup and the rest
 *    "lab":    {"restored": FIG, "booted": FIG}}  a lab's start to ready
 *   FIG: {"s": seconds, "n": how many it is the mean of,
 *         "date": "YYYY-MM-DD"[, "params": "NAME=VALUE ..."]}
 *
 * PLACE is an enum est_place name ("guest-tcg"), PARAMS the hash of the
 * cell's workload parameters (timings_params_key()); a rest's are the
 * run's first cell's (a test's run of a workload with small parameters
 * is not the demo's).  Each run replaces
 * the figures it measured (timings_update(), from its results.json): the
 * last run of a kind is the figure; a section keeps TIMINGS_KEYS_MAX, the
 * oldest dropped.  The file is cache: losing it loses
 * nothing but the estimate's precision.
 *
 * The file is read only when it is a regular file (no symbolic link)
 * owned by root and writable by no one else, in a directory that is not a
 * symbolic link; it is written atomically (temp, fsync, rename), mode
 * 0644, by root.  timings_update() and timings_find() are pure (JSON in,
 * JSON out); timings_load() and timings_save() are the I/O.
 */
#ifndef VMTAX_TIMINGS_H
#define VMTAX_TIMINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "run-estimate.h"

#define TIMINGS_SCHEMA "vmtax-timings/1"
#define TIMINGS_FILE "timings.json"
#define TIMINGS_BYTES_MAX (4 << 20)
/* Figures a section keeps, the oldest dropped first (about 300 KiB). */
#define TIMINGS_KEYS_MAX 1000

/*
 * The key of a cell's workload parameters NAMES[i]=VALUES[i], i < N: 16
 * hex digits of FNV-1a over "NAME=VALUE\n" in name order, into BUF (17).
 */
void timings_params_key(const char *const *names, const char *const *values,
			size_t n, char *buf);
/* The figure T holds at SECTION, KEY into *F (EST_MEASURED); false when
 * there is none. */
bool timings_find(const json_t *t, const char *section, const char *key,
		  struct est_figure *f);
/*
 * Put what the run of results.json DOC measured into T, dated DATE
 * ("YYYY-MM-DD"): every guest cell's boot to hello, every cell's mean ok
 * sample, and, when WHOLE (the run went from its start to its end in
 * WALL seconds, not resumed) and its lab (if any) never had to be booted
 * again, its rest per start; a lab run's lab start.
 * Nothing from a run whose cells ran on another host (a remote libvirt, a
 * fleet): its figures are not this host's.  Returns the figures written.
 */
int timings_update(json_t *t, const json_t *doc, double wall, bool whole,
		   const char *date);

/* The directory of the file: $VMTAX_TIMINGS_DIR, else CACHEDIR (owned). */
char *timings_dir_new(void);
/*
 * Read DIR/TIMINGS_FILE into *OUT: an empty object when there is none.
 * 0, or a negative errno with the reason in WHY (a symbolic link, a file
 * not root's, not JSON); *OUT is then an empty object too.
 */
int timings_load(const char *dir, json_t **out, char *why, size_t len);
/* Write T to DIR/TIMINGS_FILE atomically (DIR made when missing); 0 or a
 * negative errno, reported. */
int timings_save(const char *dir, json_t *t);

#endif
