/* SPDX-License-Identifier: MIT */
/*
 * image-build.h - what the builds of each kind (image.c: tiny,
 * image-disk.c: debian and lab) share: the links to the newest build, the
 * paths printed, the binaries of BINDIR.  Internal to image/.
 */
#ifndef VMTAX_IMAGE_BUILD_H
#define VMTAX_IMAGE_BUILD_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "image.h"

/* LINK -> TARGET, replaced atomically: TARGET's name alone when LINK is in
 * its directory (a moved or copied tree keeps its links), else absolute.
 * 0 or -errno, reported. */
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

/*
 * libguestfs's appliance as every disk build runs it (image-appliance.c):
 * the backend for this host's accelerator, and the guest kernel
 * (guest_kernel_find(): vmtax's cache of IMAGES, else /boot) for supermin
 * to boot.  0 or -errno, reported.
 */
int image_appliance_env(const char *images);

/* Build (or find up to date) the disk image of O (debian, lab) in DIR. */
int image_build_disk(const struct image_opts *o, const char *dir,
		     const char *bindir);

/*
 * ST (image.h) of the image whose stable name is LINK, when the build of
 * the inputs now is WANT (its recipe REC, of text TEXT): current when LINK
 * names WANT and REC is there, missing when there is no LINK, else stale,
 * what changed from the recipe beside LINK's target (its name with EXT,
 * ".cpio.gz" or ".qcow2", replaced by ".recipe").
 */
void image_status_of(struct image_status *st, const char *link,
		     const char *want, const char *rec, const char *text,
		     const char *ext);
/*
 * KEY's value ("mirror URL": the line's text after KEY and a blank) in the
 * recipe beside the build LINK names (its file name with EXT replaced by
 * ".recipe"), into BUF (LEN bytes); whether there is one.
 */
bool image_link_recipe_value(const char *link, const char *ext,
			     const char *key, char *buf, size_t len);
/* image_status() of a disk kind (debian, lab); DIR: the images of BINDIR. */
int image_disk_status(const struct image_opts *o, const char *dir,
		      const char *bindir, struct image_status *st);

#endif
