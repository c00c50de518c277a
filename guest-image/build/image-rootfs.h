/* SPDX-License-Identifier: MIT */
/*
 * image-rootfs.h - the root file system of the Debian images (image-disk.c):
 * this host's suite and mirror, the package list, and debootstrap (with
 * apt-get for what debootstrap's resolver cannot install).
 */
#ifndef VMTAX_IMAGE_ROOTFS_H
#define VMTAX_IMAGE_ROOTFS_H

#include <stddef.h>

#include "image.h"

#define DEBOOTSTRAP_VARIANT "minbase"

/* VERSION_CODENAME of /etc/os-release into BUF.  0 or -errno, reported. */
int image_host_suite(char *buf, size_t len);
/* This host's apt mirror for SUITE into BUF (deb.debian.org if none). */
void image_host_mirror(const char *suite, char *buf, size_t len);
/*
 * The image's packages and O's, sorted, unique, joined with commas
 * (debootstrap's form), into *OUT (owned).  0 or -EINVAL, reported.
 */
int image_package_list(const struct image_opts *o, char **out);
/*
 * debootstrap SUITE from MIRROR with PACKAGES into ROOTFS, then apt-get
 * install APT (space-separated; may be empty) in it.  A finished tree is
 * renamed into place, so its existence means it is complete.  0 or a
 * negative errno, reported.
 */
int image_debootstrap(const char *rootfs, const char *suite,
		      const char *mirror, const char *packages, const char *apt);

#endif
