/* SPDX-License-Identifier: MIT */
/*
 * image-disk-kinds.h - what the disk image kinds (debian, lab) are made of
 * besides their root file system: each kind's packages, texts and links,
 * and the texts and links every kind has.  The build (image-disk.c) puts
 * them in and its recipe names each of them, from these tables alone.
 * Internal to guest-image/build.
 */
#ifndef VMTAX_IMAGE_DISK_KINDS_H
#define VMTAX_IMAGE_DISK_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "gfs.h"
#include "host-packages.h"

/*
 * What each disk image kind adds to the common Debian recipe.  The kind's
 * name names its files (KIND-HASH.*) and links (guest-files.h).
 */
struct disk_kind {
	const char *name;
	const char *const *apt; /* apt-get install'ed after debootstrap */
	size_t napt;
	/* built from the host's packages when it has these (else as above) */
	const struct hostpkg_root *host;
	size_t nhost;
	const struct gfs_link *host_links; /* added to a host-packages tree */
	size_t nhost_links;
	const struct gfs_text *texts;
	size_t ntexts;
	bool vmtax; /* vmtax and the tiny image of the image's kernel inside */
	/* built and kept in the image cache every checkout shares
	 * (guest_image_cache_new()) */
	bool shared;
};

/* Indexed by enum image_kind (image.h): IMAGE_DEBIAN, IMAGE_LAB. */
extern const struct disk_kind disk_kinds[];

/* Every kind's texts: the agent's unit, fstab, hostname, hosts. */
#define DISK_COMMON_TEXTS 4
extern const struct gfs_text disk_common_texts[DISK_COMMON_TEXTS];
/* Every kind's links; the last (vmtax on PATH) for kinds with vmtax only. */
#define DISK_COMMON_LINKS 3
extern const struct gfs_link disk_common_links[DISK_COMMON_LINKS];

#endif
