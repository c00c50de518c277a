/* SPDX-License-Identifier: MIT */
/*
 * thp.h - transparent huge pages as the kernel shows them, one definition
 * for the host (host/knob-thp.c, host/identity.c, 'vmtax host probe', the
 * config's host_thp/guest_thp) and the guest (the agent's set-thp): the
 * files, the modes, and how a file's line is read.
 *
 * A THP file lists its modes with the selected one in brackets:
 * "always [madvise] never".  The value is the bracketed word; only the words
 * the file lists can be written.  The bracket itself is parsed once, by
 * knob_value_parse() of knob-path.h (every such kernel file, THP or not).
 *
 * Pure code: no I/O.  Linked into the static guest agent, so libc only.
 */
#ifndef VMTAX_THP_H
#define VMTAX_THP_H

#include <stdbool.h>
#include <stddef.h>

#include "knob-path.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define THP_ENABLED_FILE THP_DIR "/enabled"
#define THP_DEFRAG_FILE THP_DIR "/defrag"
/* The generic knob (knob-path.h) of THP_DIR/F is THP_KNOB_PREFIX F. */
#define THP_KNOB_PREFIX KNOB_PREFIX_MM "transparent_hugepage."

#define THP_MODE_ALWAYS "always"
#define THP_MODE_DEFER "defer"
#define THP_MODE_DEFER_MADVISE "defer+madvise"
#define THP_MODE_MADVISE "madvise"
#define THP_MODE_NEVER "never"
/* The modes of THP_ENABLED_FILE and THP_DEFRAG_FILE, for --help. */
#define THP_ENABLED_MODES THP_MODE_ALWAYS ", " THP_MODE_MADVISE ", " THP_MODE_NEVER
#define THP_DEFRAG_MODES                                                       \
	THP_MODE_ALWAYS ", " THP_MODE_DEFER ", " THP_MODE_DEFER_MADVISE        \
			", " THP_MODE_MADVISE ", " THP_MODE_NEVER
/* THP_ENABLED_MODES as a NULL-terminated list (a config key's choices). */
extern const char *const thp_enabled_modes[];

/*
 * The selected mode of a THP file's LINE into OUT: "always [madvise] never"
 * -> "madvise".  Returns 0, or -EINVAL when LINE brackets no word or OUT is
 * too small.
 */
int thp_parse_selected(const char *line, char *out, size_t len);

#endif
