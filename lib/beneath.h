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
 * A path the user names (--out, 'vmtax report DIR') is walked by
 * dir_open_path() and path_open_file() one component at a time with
 * O_NOFOLLOW: a symbolic link on the way is followed only when
 * link_followable(), the rule of fs.protected_symlinks (a link is followed
 * only when the user who follows it owns it; root's own are the host's),
 * applied at every component and not only in sticky directories.  So a
 * link another user made cannot send a run's files (as root) or a read
 * anywhere else.  A run directory reached so, or made by this vmtax,
 * holds no link that is followed.
 *
 * Reading a file someone else may have made (openat_file(), the read_
 * helpers) opens it with O_PATH first and only a regular file for reading
 * (O_NONBLOCK): a FIFO never blocks, a device is never opened, a symbolic
 * link is refused (-ELOOP), a directory -EISDIR, anything else -EBADFD;
 * beneath_strerror() says which in words.
 *
 * The _beneath variants taking ROOT, a directory path, open it first:
 * the writers with O_NOFOLLOW at its last component (callers hold paths,
 * not descriptors, and ROOT was checked (stat_ours()) when the run began),
 * the readers by dir_open_path().
 *
 * stat_ours() is the one rule for "written by this vmtax": owned by the
 * effective user (root, for a run) and not writable by group or others;
 * stat_ours_file() adds "a regular file of one name" (the lock, the
 * journal: a hard link's other name could be any file).
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

/* Symbolic links a walk follows at most, as the kernel's MAXSYMLINKS. */
#define BENEATH_LINKS_MAX 40

/*
 * Whether a walk follows the symbolic link ST (from lstat): owned by the
 * effective user or by root.  WHY (may be NULL) gets why not: "owned by
 * uid 65534, not by root".
 */
bool link_followable(const struct stat *st, char *why, size_t len);
/*
 * The directory PATH (absolute, or from the working directory), walked
 * as above; MAKE makes each missing component with mkdirat (MODE), PATH
 * too.  A descriptor, or a negative errno with WHY (may be NULL) naming
 * the component and the reason: "'/tmp/out' is a symbolic link owned by
 * uid 65534, not by root: not followed (...)".
 */
int dir_open_path(const char *path, bool make, mode_t mode, char *why,
		  size_t len);
/* The file PATH, walked as above, opened for reading as openat_file(). */
int path_open_file(const char *path, char *why, size_t len);
/* FD's absolute path (from /proc/self/fd), owned; NULL if none. */
char *fd_path_new(int fd);

/*
 * REL beneath DIRFD opened for reading (O_RDONLY | O_NONBLOCK): only a
 * regular file, and no symbolic link at any component (above).
 */
int openat_file(int dirfd, const char *rel);
/* ERR (negative) of the functions here in words: "a symbolic link (not
 * followed)", "not a regular file (...)", else strerror(). */
const char *beneath_strerror(int err);

/*
 * mkdir REL beneath DIRFD (its parent must exist): 0 when made, or when a
 * real directory (not a symlink) is there already; -ENOTDIR otherwise.
 */
int mkdirat_beneath(int dirfd, const char *rel, mode_t mode);

/*
 * Read the whole of REL beneath DIRFD (at most MAX bytes, -EFBIG beyond),
 * opened by openat_file().
 */
int read_at_beneath(int dirfd, const char *rel, size_t max, char **out,
		    size_t *len);
/* The same beneath ROOT, opened by dir_open_path(). */
int read_file_beneath(const char *root, const char *rel, size_t max,
		      char **out, size_t *len);
/* The same of PATH, opened by path_open_file(); WHY (may be NULL) gets
 * why not, as that says it, or strerror(). */
int read_path_file(const char *path, size_t max, char **out, size_t *len,
		   char *why, size_t whylen);
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
/* stat_ours(), and a regular file of one name (st_nlink 1): "a hard link
 * (2 names): ...", "not a regular file". */
bool stat_ours_file(const struct stat *st, char *why, size_t len);

#endif
