/* SPDX-License-Identifier: MIT */
/*
 * lab-sync.h - the lab's run directory brought back into this host's run
 * directory (lab-session.c, docs/lab.md, docs/security.md).
 *
 * Everything in the lab is untrusted: a root process inside it can list
 * any name and claim any size.  So its files land in DIR/LAB_SUBDIR, a
 * directory of their own that can never name DIR/results.json (this run's
 * record and resume state, written by this host only), DIR/logs, the host
 * journal (which is not in DIR at all) or anything outside: every name is
 * checked by lab_name_check(), each component of a path, and every file
 * is written beneath LAB_SUBDIR's descriptor with no symlink followed
 * (beneath.h).  A refused file is named in the log with its reason and the
 * others come back; the caps of caps.h bound what one file and one sync
 * may bring, and what DIR/LAB_SUBDIR holds in all: it is the lab's run
 * directory as of the last sync, a file the lab no longer lists removed.
 *
 * The lab lists its files as "SIZE NAME\0" records (GNU find -printf
 * '%s %P\0'), so a name may hold any byte but NUL; the bytes come through
 * struct lab_sync_src (the lab's agent in lab-session.c, a directory of
 * this host in the tests).
 */
#ifndef VMTAX_LAB_SYNC_H
#define VMTAX_LAB_SYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "caps.h" /* LAB_*_MAX: what the lab may bring back */

/* DIR/lab: the lab's run directory, and nothing else. */
#define LAB_SUBDIR "lab"
/* The characters of a name (and no leading '.'). */
#define LAB_NAME_CHARS                                                        \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"     \
	"._,:+=@-"

/*
 * Whether NAME (N bytes, one component) may name a lab file: 0, or -EINVAL
 * with why not in WHY ("an empty name", "'..' leaves the directory",
 * "starts with '.' (a hidden file)", "longer than 128 bytes (300)", "a
 * control character (0x0a)", "a character outside [A-Za-z0-9._,:+=@-]
 * (0x2a)", "'lab.json' is this host's own").  Pure: the one
 * rule for the lab's names.
 */
int lab_name_check(const char *name, size_t n, char *why, size_t len);
/*
 * REL (N bytes: names separated by '/'), each name by lab_name_check(),
 * at most LAB_DEPTH_MAX of them, no leading '/': 0, or -EINVAL with the
 * reason in WHY.  Pure.
 */
int lab_path_check(const char *rel, size_t n, char *why, size_t len);

/* Where the lab's bytes come from. */
struct lab_sync_src {
	/*
	 * At most MAX bytes of REL (relative to the lab's run directory) from
	 * OFF into *BUF (new; *N bytes, N <= MAX) and the file's size now into
	 * *SIZE.  0, or a negative errno with WHY.
	 */
	int (*read)(void *arg, const char *rel, long long off, size_t max,
		    char **buf, size_t *n, long long *size, char *why,
		    size_t len);
	void *arg;
};

struct lab_sync_stats {
	int files;	 /* brought back */
	int same;	 /* skipped: the same size here already */
	int refused;	 /* named in the log with the reason */
	int removed;	 /* here, but no longer the lab's: removed */
	long long bytes; /* brought back */
	long long held;	 /* in DIR/LAB_SUBDIR after the sync */
};

/*
 * Bring back every file of LIST (LEN bytes of "SIZE NAME\0" records) into
 * DIR/LAB_SUBDIR (made if missing): each whose size differs here, and
 * results.json always, at most LAB_SYNC_BYTES_MAX in all.  Then remove
 * every file there that did not come back or stay (the lab no longer
 * lists it, or it was refused), so that DIR/LAB_SUBDIR holds at most
 * TOTAL_MAX bytes (LAB_TOTAL_BYTES_MAX; a test gives less): results.json
 * first, then the files already here (in the listing's order), then the
 * others.  Refused files are warned about ("lab: refusing the lab's file
 * 'NAME': REASON", the name with its control characters escaped) and
 * counted; the others come back.  Returns 0, or a negative errno when
 * DIR/LAB_SUBDIR cannot be used or the source fails (reported; nothing
 * is removed then).
 */
int lab_sync_files(const char *dir, const char *list, size_t len,
		   const struct lab_sync_src *src, long long total_max,
		   struct lab_sync_stats *st);
/*
 * REL from SRC into *BUF (new; *N bytes), at most LAB_FILE_BYTES_MAX and
 * ROOM bytes (ROOM_NAME names that cap in WHY): 0, 1 when over a cap (WHY
 * says which), or a negative errno with WHY (-EREMOTEIO: the lab said it
 * has no such file).  Reports nothing.
 */
int lab_fetch(const struct lab_sync_src *src, const char *rel, long long room,
	      const char *room_name, char **buf, size_t *n, char *why,
	      size_t len);

#endif
