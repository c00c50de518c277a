/* SPDX-License-Identifier: MIT */
/*
 * env.h - the environment variables vmtax reads: one table, for the code
 * and for the man pages.
 *
 * The code reads each through its constant here, getenv(ENV_X), never a
 * name in quotes.  The table (env.c) gives each the man pages that list it
 * in their ENVIRONMENT section, and its text there (roff, with the
 * Makefile's @CACHEDIR@-style words): man/gen-man-env prints a page's
 * entries where its man/NAME.N.in says @ENVIRONMENT@; vmtax(1) lists every
 * one.  tests/unit/test-env.c fails when a getenv() in the source names a
 * variable the table lacks, or in quotes, and when a page the table names
 * has no @ENVIRONMENT@.  PATH (for commands vmtax runs) is the one name
 * read without being listed: it is the system's, not vmtax's.
 *
 * How to add one: a #define ENV_X "NAME" below, a row in env.c's table,
 * getenv(ENV_X) where it is read.
 */
#ifndef VMTAX_ENV_H
#define VMTAX_ENV_H

#include <stddef.h>

/* vmtax's own (tests and scratch builds set them) */
#define ENV_TIMINGS_DIR "VMTAX_TIMINGS_DIR"
#define ENV_IMAGE_CACHE "VMTAX_IMAGE_CACHE"
#define ENV_STAGE_DIR "VMTAX_STAGE_DIR"
#define ENV_REMOTE_STAGE_DIR "VMTAX_REMOTE_STAGE_DIR"
#define ENV_HOST_ROOT "VMTAX_HOST_ROOT"
/* other programs' that vmtax reads, or sets unless given */
#define ENV_BUSYBOX "BUSYBOX"
#define ENV_LIBGUESTFS_BACKEND "LIBGUESTFS_BACKEND"
#define ENV_LIBGUESTFS_BACKEND_SETTINGS "LIBGUESTFS_BACKEND_SETTINGS"
#define ENV_SUPERMIN_KERNEL "SUPERMIN_KERNEL"
#define ENV_SUPERMIN_MODULES "SUPERMIN_MODULES"
#define ENV_SUPERMIN_KERNEL_VERSION "SUPERMIN_KERNEL_VERSION"
#define ENV_TMPDIR "TMPDIR"

struct env_var {
	const char *name;	/* the value of its ENV_ constant */
	const char *constant;	/* "ENV_X", for tests/unit/test-env.c */
	const char *pages;	/* the man pages that list it, as
				 * "vmtax-run vmtax-image" (vmtax(1): all) */
	const char *roff;	/* what it does, roff (.TP's paragraph) */
};

/* The table, in the order the man pages list it; *N: its length. */
const struct env_var *env_vars(size_t *n);

#endif
