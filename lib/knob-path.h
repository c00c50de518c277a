/* SPDX-License-Identifier: MIT */
/*
 * knob-path.h - the generic kernel knobs a config may sweep, on the host
 * (host/) and in the guest (the agent): their names, their files, and how a
 * value is read back.  One definition for both sides.
 *
 * A generic knob is named like sysctl(8) names its keys, with a prefix that
 * says which tree it lives in; nothing outside these two trees is reachable:
 *	sysctl.A.B.C	/proc/sys/A/B/C		(sysctl.vm.swappiness)
 *	mm.A.B		/sys/kernel/mm/A/B	(mm.transparent_hugepage.defrag)
 * Each component is [A-Za-z0-9_-]+ (so no "..", no '/'), at least one
 * component follows the prefix, and the whole name is shorter than
 * KNOB_NAME_MAX.
 *
 * A value is what the file says on its first line, trimmed; where the kernel
 * brackets the selected word ("always [madvise] never"), the bracketed word.
 *
 * Pure code: no I/O.  Linked into the static guest agent, so libc only.
 */
#ifndef VMTAX_KNOB_PATH_H
#define VMTAX_KNOB_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define KNOB_NAME_MAX 128
#define KNOB_VALUE_MAX 64

#define KNOB_PREFIX_SYSCTL "sysctl."
#define KNOB_PREFIX_MM "mm."
#define KNOB_DIR_SYSCTL "/proc/sys"
#define KNOB_DIR_MM "/sys/kernel/mm"
/* The host knobs [run] governor sets, cpufreq.policyN.governor, one per
 * cpufreq policy (host/knob-governor.c); no [host] key. */
#define KNOB_PREFIX_CPUFREQ "cpufreq."
/* The host knob the paging axis sets (host/knob-paging.c; vocab.h). */
#define KNOB_PAGING "paging"

/* Whether NAME is a well-formed generic knob name (see above). */
bool knob_name_valid(const char *name);
/*
 * Why NAME is not well-formed, as a static phrase to follow the quoted name
 * ("has an empty part between dots"), or NULL when knob_name_valid(NAME).
 */
const char *knob_name_problem(const char *name);
/*
 * The absolute file of generic knob NAME into PATH ("/proc/sys/vm/swappiness").
 * Returns 0, or -EINVAL for a name knob_name_valid() refuses, -ENAMETOOLONG.
 */
int knob_path(const char *name, char *path, size_t len);
/*
 * The value a knob file's content RAW stands for into OUT: the bracketed word
 * when there is one, else the first line trimmed.  0, -EINVAL (empty, or a
 * '[' without ']'), -ENAMETOOLONG when OUT is too small.
 */
int knob_value_parse(const char *raw, char *out, size_t len);
/*
 * Whether a value read back (already through knob_value_parse()) is the
 * value WANTED that was written: equal once each run of blanks is taken as
 * one space and leading and trailing blanks are dropped ("4096 87380" reads
 * back as "4096\t87380").
 */
bool knob_value_same(const char *wanted, const char *got);

#endif
