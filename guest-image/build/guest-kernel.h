/* SPDX-License-Identifier: MIT */
/*
 * guest-kernel.h - the rule that picks the guest kernel.
 *
 * Guests boot a kernel directly (tiny image, and kernel = auto): the
 * newest vmlinuz-KVER of vmtax's kernel cache, else (a host with Debian
 * kernels of its own, an installed vmtax) the newest /boot/vmlinuz-KVER;
 * "newest" by version order (strverscmp(3), as sort -V: 6.1.0-18 is newer
 * than 6.1.0-9).  This is the one place that rule lives: 'vmtax run',
 * 'vmtax image build' and the scripts (through 'vmtax image path') all ask
 * here.
 *
 * The cache is IMAGES/../kernel (build/kernel in a build tree,
 * /var/cache/vmtax/kernel installed): a root holding boot/vmlinuz-KVER and
 * lib/modules/KVER, as 'dpkg-deb -x' unpacks Debian's linux-image-KVER
 * there ('make deps', .ci/deps.sh).  Nothing is installed into the host's
 * /boot: a host that boots its own kernel keeps booting it.
 *
 * Ownership: *path and *kver are owned by the caller (free()).
 */
#ifndef VMTAX_GUEST_KERNEL_H
#define VMTAX_GUEST_KERNEL_H

#include <stddef.h>

/* A kernel image is boot/vmlinuz-KVER, its initramfs boot/initrd.img-KVER. */
#define GUEST_KERNEL_PREFIX "vmlinuz-"
#define GUEST_INITRD_PREFIX "initrd.img-"

/*
 * The newest of the N kernel image paths PATHS, by the version of each
 * (guest_kernel_version()), or NULL when N is 0.  Borrowed from PATHS.
 * Every search for a guest kernel picks through it (here, and gfs.c in an
 * image through libguestfs).
 */
const char *guest_kernel_pick(char *const *paths, size_t n);

/*
 * The newest ROOT/boot/vmlinuz-* (ROOT NULL or "" is "/").  *PATH gets its
 * path ("/boot/vmlinuz-KVER"), *KVER its version ("KVER"); either may be
 * NULL.  Returns 0, or -ENOENT when there is none; that is not reported, the
 * caller says it in its own context.
 */
int guest_kernel_newest(const char *root, char **path, char **kver);

/* The kernel cache of images directory IMAGES (IMAGES/../kernel), new. */
char *guest_kernel_cache_new(const char *images);
/*
 * The guest kernel: the newest in CACHE (may be NULL), else the newest
 * /boot/vmlinuz-*.  As guest_kernel_newest().
 */
int guest_kernel_find(const char *cache, char **path, char **kver);
/*
 * Where the modules of kernel KVER are: CACHE/lib/modules/KVER when the
 * cache holds that kernel, else NULL (the host's /lib/modules/KVER).  New.
 */
char *guest_kernel_moddir_new(const char *cache, const char *kver);

/*
 * The version of a kernel image path: "/boot/vmlinuz-KVER" -> "KVER"; a
 * file not named vmlinuz-* gives its base name.  Borrowed from PATH.
 */
const char *guest_kernel_version(const char *path);

#endif
