/* SPDX-License-Identifier: MIT */
/*
 * host-packages.h - a root file system from this host's installed Debian
 * packages, as supermin --prepare/--build makes one, without a download and
 * without a VM (image-hostdisk.c puts the lab image on it).
 *
 * The closure.  hostpkg_load() reads dpkg's status once (dpkg-query -W),
 * hostpkg_mark() follows Pre-Depends and Depends from the roots (it may be
 * called again with more) through the installed
 * packages only: an alternative ("a | b") is its first installed package,
 * else the first installed package that Provides it (by name).  Every
 * Essential package of the host is a root too (debootstrap's minbase holds
 * them).  A root marked libs_only brings its own files and only the
 * dependencies named lib*: vmtax links libguestfs for 'image build', so
 * the loader needs libguestfs0 and its libraries, not the appliance
 * (supermin, grub, perl...) it Depends on.  A root not installed here is
 * -ENOENT, not reported, with its name in *missing: the caller falls back to
 * debootstrap.
 *
 * The recipe.  hostpkg_recipe() adds one "host-package NAME VERSION ARCH"
 * line a package, sorted by name: a changed package makes a new image.
 *
 * The status.  hostpkg_status_new() filters dpkg's status to the closure.
 *
 * The files.  hostpkg_stage() puts every file of dpkg's lists of the
 * closure (/var/lib/dpkg/info/PKG[:ARCH].list) into DIR, as the host has it
 * (owner, mode, the host's conffiles as they are): regular files hard
 * linked when DIR is on the same file system (else copied), symlinks
 * copied, directories made, the host's merged-/usr links (/bin -> usr/bin)
 * first.  Documentation, manual pages and translations are left out
 * (HOSTPKG_SKIP).  Files listed but absent here (dpkg path-exclude) are
 * skipped.  dpkg's diversions are not followed: a listed path is staged
 * as the host has it.  A staged tree shares inodes with the host: whoever adds to it
 * must replace files (rename), never write into one.
 *
 * Errors: 0 or a negative errno, reported once with context, but for the
 * missing root above.
 */
#ifndef VMTAX_HOST_PACKAGES_H
#define VMTAX_HOST_PACKAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "image-recipe.h"

/* Path prefixes of package files left out of a staged tree. */
#define HOSTPKG_SKIP                                                           \
	"/usr/share/doc/", "/usr/share/man/", "/usr/share/info/",              \
	    "/usr/share/locale/", "/usr/share/lintian/"

struct hostpkg_root {
	const char *name;
	bool libs_only; /* its dependencies named lib* only */
};

struct hostpkg {
	char *name, *version, *arch;
	char *depends; /* Pre-Depends and Depends, comma-separated */
	char *provides;
	bool essential, installed, in; /* in: in the closure */
};

struct hostpkg_set {
	struct hostpkg *p; /* sorted by name */
	size_t n;
};

/*
 * The packages of dpkg-query TEXT (the lines of HOSTPKG_QUERY_FORMAT) into
 * S, sorted by name; the native or "all" one where a name has several
 * architectures.  Pure: no I/O.  0 or -EINVAL, reported.
 */
#define HOSTPKG_QUERY_FORMAT                                                   \
	"${Package}\\t${Version}\\t${Architecture}\\t${db:Status-Abbrev}\\t"   \
	"${Essential}\\t${Pre-Depends}, ${Depends}\\t${Provides}\\n"
int hostpkg_parse(const char *text, const char *native, struct hostpkg_set *s);
/*
 * Mark the closure of ROOTS (and the Essential packages) in S.  Pure.  0, or
 * -ENOENT with a root's name (borrowed from ROOTS) in *MISSING.
 */
int hostpkg_mark(struct hostpkg_set *s, const struct hostpkg_root *roots,
		 size_t n, const char **missing);
/* hostpkg_parse() of this host's dpkg-query -W, into S. */
int hostpkg_load(struct hostpkg_set *s);
/* The number of packages in the closure. */
size_t hostpkg_count(const struct hostpkg_set *s);
void hostpkg_recipe(const struct hostpkg_set *s, struct recipe *r);
int hostpkg_stage(const struct hostpkg_set *s, const char *dir);
/*
 * dpkg's status for the closure: the stanzas of STATUS (the text of
 * /var/lib/dpkg/status) of S's marked packages ("Package:" and
 * "Architecture:" as S has them, "Status: install ok installed"), in
 * STATUS's order, each ended by a blank line.  Staged as the image's
 * /var/lib/dpkg/status, so dpkg-query there answers for what it has (vmtax
 * run's check of a workload's packages, for bare-metal cells in the lab).
 * Pure; owned by the caller.
 */
char *hostpkg_status_new(const struct hostpkg_set *s, const char *status);
void hostpkg_release(struct hostpkg_set *s);

#endif
