/* SPDX-License-Identifier: MIT */
/*
 * beneath.h - files inside a directory that someone else may have touched
 * (a run directory; docs/security.md): opened relative to the directory's
 * descriptor, following no symbolic link at any component, and never
 * leaving it.
 *
 * openat_beneath() uses openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
 * where the kernel has it (5.6 on), else walks REL one component at a time
 * with openat(O_NOFOLLOW) (O_DIRECTORY for the directories on the way).
 * Either way a symlink anywhere in REL fails with -ELOOP (or -ENOTDIR for
 * one where a directory was expected), and so does "..", a leading '/' or
 * an empty component: -EXDEV.
 *
 * The _path variants take ROOT, a directory path, and open it first with
 * O_NOFOLLOW at its last component: callers hold paths, not descriptors,
 * and ROOT was checked (stat_ours()) when the run began.
 *
 * stat_ours() is the one rule for "written by this vmtax": owned by the
 * effective user (root, for a run) and not writable by group or others.
 *
 * All return 0 (or a descriptor) or a negative errno and report nothing,
 * except the write_ and fopen_ helpers, which report with the path.
 */
#ifndef VMTAX_BENEATH_H
#define VMTAX_BENEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* REL beneath DIRFD as open(2) FLAGS and MODE (O_CLOEXEC added). */
int openat_beneath(int dirfd, const char *rel, int flags, mode_t mode);
/* The same beneath the directory ROOT. */
int open_beneath(const char *root, const char *rel, int flags, mode_t mode);
/* ROOT itself: O_DIRECTORY | O_NOFOLLOW at its last component. */
int dir_open_nofollow(const char *root);

/*
 * mkdir REL beneath DIRFD (its parent must exist): 0 when made, or when a
 * real directory (not a symlink) is there already; -ENOTDIR otherwise.
 */
int mkdirat_beneath(int dirfd, const char *rel, mode_t mode);

/* Read the whole of REL beneath ROOT (at most MAX bytes, -EFBIG beyond). */
int read_file_beneath(const char *root, const char *rel, size_t max,
		      char **out, size_t *len);
/*
 * Write REL beneath DIRFD atomically: REL.tmp (mode MODE), fsync, rename,
 * fsync the directory.  Reports its own errors, naming ROOT/REL (ROOT is
 * only for the message).
 */
int write_at_atomic(int dirfd, const char *root, const char *rel,
		    const void *data, size_t len, mode_t mode);
/* The same beneath the directory ROOT, mode 0644. */
int write_file_beneath(const char *root, const char *rel, const void *data,
		       size_t len);
/* Create (or truncate, or with APPEND add to) REL beneath ROOT for
 * writing, 0644; reports. */
FILE *fopen_beneath(const char *root, const char *rel, bool append);

/*
 * What the directory ROOT holds, walked with no link followed: the
 * apparent bytes of its regular files added to *BYTES and its entries
 * (files, directories, links, anything) to *ENTRIES (both zeroed first).
 * -ELOOP for a directory more than MAX_DEPTH levels down (what is above
 * it counted), -ENOENT and the like for ROOT itself.
 */
int tree_usage(const char *root, int max_depth, long long *bytes,
	       long long *entries);

/*
 * Whether ST (from fstat or lstat) was written by this vmtax: owned by the
 * effective user and not writable by group or others.  WHY (may be NULL)
 * gets the reason it was not: "owned by uid 1000, not by root" or
 * "writable by others (mode 0666)".
 */
bool stat_ours(const struct stat *st, char *why, size_t len);

#endif
