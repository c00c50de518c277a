/* SPDX-License-Identifier: MIT */
/*
 * guest-kernel.h - the rule that picks the guest kernel.
 *
 * Guests boot the host's kernel directly (tiny image, and kernel = auto):
 * the newest ROOT/boot/vmlinuz-KVER, "newest" by version order
 * (strverscmp(3), as sort -V: 6.1.0-18 is newer than 6.1.0-9).  This is the
 * one place that rule lives: 'vmtax run', 'vmtax image build' and the
 * scripts (through 'vmtax image path') all ask here.
 *
 * Ownership: *path and *kver are owned by the caller (free()).
 */
#ifndef VMTAX_GUEST_KERNEL_H
#define VMTAX_GUEST_KERNEL_H

/*
 * The newest ROOT/boot/vmlinuz-* (ROOT NULL or "" is "/").  *PATH gets its
 * path ("/boot/vmlinuz-KVER"), *KVER its version ("KVER"); either may be
 * NULL.  Returns 0, or -ENOENT when there is none; that is not reported, the
 * caller says it in its own context.
 */
int guest_kernel_newest(const char *root, char **path, char **kver);

/*
 * The version of a kernel image path: "/boot/vmlinuz-KVER" -> "KVER"; a
 * file not named vmlinuz-* gives its base name.  Borrowed from PATH.
 */
const char *guest_kernel_version(const char *path);

#endif
