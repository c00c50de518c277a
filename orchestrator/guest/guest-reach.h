/* SPDX-License-Identifier: MIT */
/*
 * guest-reach.h - make the files QEMU opens reachable by the user QEMU
 * runs as, from any checkout.
 *
 * Under qemu:///system QEMU runs as the "user" of /etc/libvirt/qemu.conf
 * (libvirt-qemu on Debian).  libvirt's DAC driver chowns the kernel, the
 * initrd and the disk themselves, never their directories: a checkout in a
 * 0700 home (root's on Debian) leaves QEMU unable to open build/images/...
 *
 * guest_files_reach() checks each file of a struct guest_files (kernel,
 * initrd, disk) and the overlay directory, as that user: a child takes its
 * uid, gid and groups (setresuid) and calls access(DIR, X_OK) on every
 * directory from / down to the file's (the files themselves are
 * chowned by libvirt).  A file that cannot be reached is hard-linked (or, across
 * filesystems, copied) into GUEST_STAGE_DIR under its own name (the image
 * names carry their recipe hash), and the guest boots that path; the
 * overlays then go to GUEST_STAGE_DIR/overlays.  This follows libvirt's
 * convention of /var/lib/libvirt/images (mode 0711) for images.  What is
 * still unreachable after that is refused before anything boots:
 *	"QEMU (user 'libvirt-qemu') cannot reach
 *'/root/x/build/images/tiny-...':
 *	 '/root' is mode 0700, owner root; move the checkout out of it or
 *	 chmod o+x '/root'"
 * Nothing is checked when vmtax is not root (it cannot take another user;
 * a qemu:///session QEMU runs as the caller anyway) or when the user does
 * not exist.
 *
 * 'vmtax run' stages in $VMTAX_STAGE_DIR when set (tests), else in
 * GUEST_STAGE_DIR.  The pure part, qemu_conf_user(), is unit tested.
 */
#ifndef VMTAX_GUEST_REACH_H
#define VMTAX_GUEST_REACH_H

#include <stddef.h>

#include "guest-files.h"

#define GUEST_STAGE_DIR "/var/lib/libvirt/images/vmtax"
#define QEMU_CONF "/etc/libvirt/qemu.conf"
#define QEMU_USER_DEFAULT "libvirt-qemu"

/*
 * The user = "NAME" setting of a qemu.conf TEXT into BUF, or
 * QEMU_USER_DEFAULT when it has none (comments skipped).  "+64055" (a
 * uid) is copied as it is.
 */
void qemu_conf_user(const char *text, char *buf, size_t len);

/*
 * Make F's files reachable by QEMU (see above), staging them in STAGE_DIR
 * (GUEST_STAGE_DIR; tests give their own).  Paths in F are replaced by the
 * staged ones.  0, or a negative errno (reported, with the fix).
 */
int guest_files_reach(struct guest_files *f, const char *stage_dir);

/*
 * guest_files_reach() for guests of connection URI: only qemu:///system
 * runs QEMU as another user; staged in $VMTAX_STAGE_DIR when set, else
 * GUEST_STAGE_DIR.  Every guest's files (tiny, debian, the lab) go through
 * here.
 */
int guest_files_reach_for(struct guest_files *f, const char *uri);

#endif
