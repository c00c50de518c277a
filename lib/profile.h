/* SPDX-License-Identifier: MIT */
/*
 * profile.h - a sampled profile of one workload run as folded stacks.
 *
 * A profile is what one profiled run produced (docs/profile.md): the event
 * that sampled ("cpu-clock" or "cycles"), how many samples were taken and
 * lost, what could not be symbolized and why ("missing"), and the stacks
 * folded the flame-graph way, one line per distinct stack:
 *
 *	randwalk;_start;main;walk;asm_exc_page_fault;clear_page_erms 42
 *
 * frames root first (the command name, then user frames outermost first,
 * then kernel frames), a single space, a positive count.  A frame that
 * could not be resolved is "[unknown]": it is counted, never dropped.
 * Frames never contain ';', '\n' or a trailing count (they are sanitized
 * when added: ';', blanks and control characters become '_', bytes past
 * ASCII '?').
 *
 * Pure code: no I/O.  The sampler (profile-sample.h) fills one in the
 * runner; the agent sends it in a run reply as JSON (profile_to_json); the
 * orchestrator writes profile_folded_new() to the run directory and the
 * reports read it back with profile_folded_parse().
 *
 * Ownership: struct profile owns its strings; profile_free(NULL) does
 * nothing.
 */
#ifndef VMTAX_PROFILE_H
#define VMTAX_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"

/* The largest folded text a profile keeps: PROFILE_FOLDED_MAX (caps.h). */
/* The stack line that stands for stacks dropped to stay under the cap. */
#define PROFILE_OTHER_STACKS "[other stacks]"
#define PROFILE_UNKNOWN "[unknown]"
/* At most this many frames per stack; deeper ones are cut at the root. */
#define PROFILE_MAX_DEPTH 128
#define PROFILE_MISSING_MAX 32

struct profile_stack {
	char *stack; /* "a;b;c" */
	uint64_t count;
};

struct profile {
	char *event;	  /* "cpu-clock", "cycles"; NULL: none sampled */
	double freq_hz;	  /* sampling frequency asked for */
	bool kernel;	  /* kernel frames were sampled */
	uint64_t samples; /* samples taken (== the sum of the counts) */
	uint64_t lost;	  /* samples the kernel reported lost */
	uint64_t unknown; /* samples with at least one [unknown] frame */
	char *missing[PROFILE_MISSING_MAX]; /* why symbols are missing */
	size_t nmissing;
	struct profile_stack *stacks; /* distinct stacks */
	size_t nstacks, cap;
	/* open-addressing index into stacks (-1 empty), hcap slots */
	long *index;
	size_t hcap;
};

struct profile *profile_new(void);
void profile_free(struct profile *p);

/*
 * Add COUNT samples of the stack FRAMES[0..N-1] (root first).  Frames are
 * sanitized (';', blanks and control characters become '_', bytes past
 * ASCII '?', an empty frame [unknown]).  Also counts the samples.
 */
void profile_add(struct profile *p, const char *const *frames, size_t n,
		 uint64_t count);
/* Add COUNT to the already folded STACK ("a;b;c"); no sanitizing. */
void profile_add_folded(struct profile *p, const char *stack, size_t len,
			uint64_t count);
/* Note why something is missing (deduplicated, at most MISSING_MAX). */
void profile_note_missing(struct profile *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The folded text, stacks by count descending then by name, each
 * "stack count\n".  When it would exceed MAX bytes the smallest stacks are
 * summed into one "[other stacks] N" line.  Owned by the caller.
 */
char *profile_folded_new(const struct profile *p, size_t max);

/*
 * Parse folded text (LEN bytes, need not be NUL-terminated) into P's
 * stacks, adding to what P holds.  Blank lines are skipped.  Returns 0, or
 * -EINVAL with "line N: why" in ERRBUF for a line without a count, a count
 * that is not a positive decimal integer, an empty stack or an empty frame,
 * a stack of more than PROFILE_STACK_FRAMES_MAX frames, or more than
 * PROFILE_STACKS_MAX distinct stacks in P (caps.h).
 * A bad line leaves P with the lines before it.
 */
int profile_folded_parse(struct profile *p, const char *text, size_t len,
			 char *errbuf, size_t errlen);

/*
 * JSON form (docs/profile.md): {"event", "freq_hz", "kernel", "samples",
 * "lost", "unknown", "missing": [...], "folded": "text"}.  The folded text
 * is capped at PROFILE_FOLDED_MAX.  from_json returns NULL with ERRBUF for
 * a malformed object.
 */
json_t *profile_to_json(const struct profile *p);
struct profile *profile_from_json(const json_t *j, char *errbuf, size_t errlen);

#endif
