/* SPDX-License-Identifier: MIT */
/*
 * image-hostdisk.h - a disk image from this host's installed packages, with
 * no download and no VM: the lab image where the host has its packages
 * (image-disk.c chooses; debootstrap plus gfs.h remain the fallback).
 *
 * hostdisk_plan() decides: the closure of ROOTS among the host's installed
 * packages (host-packages.h), and the guest kernel of vmtax's kernel cache
 * (guest-kernel.h: IMAGES/../kernel, else /boot) and its modules.  It
 * returns 1 when the image can be built so, 0 when not (the reason noted:
 * "image: lab: host lacks PKG: debootstrap instead"), or a negative errno;
 * with REQUIRED (image build --from packages) "not" is -ENOENT, reported.
 * The workloads' "packages =" are not added: 'image build' passes them
 * and a lab run does not, and the image must be the same either way (the
 * debootstrap image has them through its own package list); a workload
 * that needs more than the lab's packages (kbuild) is for debootstrap;
 * the lab's roots carry build-essential for ccbuild (image-disk.c).
 *
 * hostdisk_recipe() adds what decides the tree's bytes: the roots, every
 * package of the closure with its version, the paths skipped, the kernel version and the hash of its image, the hashes
 * of the initramfs script and of this host's passwd and group, and LINKS.
 *
 * hostdisk_make() stages the closure's files in STAGE, adds the kernel
 * (/boot/vmlinuz-KVER and /lib/modules/KVER, hard linked or copied, then
 * depmod), the system users and groups of this host's /etc/passwd and
 * /etc/group (id below 1000, and nobody: the files' owners are the host's
 * numbers), locked shadow entries (no password, no host hash), an empty
 * /etc/machine-id (systemd makes one at boot), dpkg's status of the closure
 * (hostpkg_status_new(): dpkg-query there knows what the image has),
 * ld.so.cache (ldconfig -r),
 * then D's files, texts and links (gfs.h's structs, the same the libguestfs
 * build puts in) and LINKS.  mke2fs -d writes the tree into a sparse raw
 * ext4 file system of D->size (no partition table: the guest's root is
 * /dev/vda), qemu-img converts it to D->qcow2, the kernel is copied to
 * D->kernel_out and mkinitramfs-root.sh makes D->initrd_out.  The tree and
 * the raw file are removed, on failure too.  Each step says its time.
 *
 * Errors: 0 or a negative errno, reported once naming the step.
 */
#ifndef VMTAX_IMAGE_HOSTDISK_H
#define VMTAX_IMAGE_HOSTDISK_H

#include <stdbool.h>

#include "gfs.h"
#include "host-packages.h"
#include "image-recipe.h"

struct hostdisk {
	struct hostpkg_set pkgs; /* the closure, marked */
	char *kernel, *kver, *moddir;
	const char *script; /* mkinitramfs-root.sh */
};

int hostdisk_plan(struct hostdisk *h, const char *what,
		  const struct hostpkg_root *roots, size_t n,
		  const char *images, const char *bindir, bool required);
int hostdisk_recipe(const struct hostdisk *h, const struct hostpkg_root *roots,
		    size_t n, const struct gfs_link *links, size_t nlinks,
		    struct recipe *r);
int hostdisk_make(const struct hostdisk *h, const struct gfs_disk_spec *d,
		  const struct gfs_link *links, size_t nlinks,
		  const char *stage);
void hostdisk_release(struct hostdisk *h);

#endif
