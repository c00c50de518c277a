/* SPDX-License-Identifier: MIT */
/*
 * image-build.h - what the builds of each kind (image.c: tiny,
 * image-disk.c: debian and lab) share: the links to the newest build, the
 * paths printed, the binaries of BINDIR.  Internal to image/.
 */
#ifndef VMTAX_IMAGE_BUILD_H
#define VMTAX_IMAGE_BUILD_H

#include <dirent.h>

#include "image.h"

/* LINK -> TARGET (absolute), replaced atomically.  0 or -errno, reported. */
int image_relink(const char *target, const char *link);
/* PATH, absolute, on stdout (the result paths, for scripts). */
void image_print_abs(const char *path);
/* TEXT into PATH, atomically. */
int image_write_text(const char *path, const char *text);
/* Regular executable files of BINDIR, sorted, into *ENTS; their number or
 * -errno, reported.  image_free_ents() frees them. */
int image_list_binaries(const char *bindir, struct dirent ***ents);
void image_free_ents(struct dirent **ents, int n);
/* The agents a tiny image carries (mkinitramfs-tiny.sh) are in BINDIR;
 * else -errno, reported with WHAT. */
int image_need_agents(const char *what, const char *bindir);

/* Build (or find up to date) the disk image of O (debian, lab) in DIR. */
int image_build_disk(const struct image_opts *o, const char *dir,
		     const char *bindir);

#endif
