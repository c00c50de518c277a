/* SPDX-License-Identifier: MIT */
/*
 * guest-files.h - the files a guest boots: where 'vmtax image build' puts
 * them and how 'vmtax run' finds them.  The names below are defined here
 * once; image.c builds them and guest_files_resolve() looks them up.
 *
 * Layout.  The images live beside the bin directory of the agent and the
 * workloads, which lives beside vmtax (guest_bindir_find()): BINDIR
 * .../build/bin -> IMAGES .../build/images (guest_images_dir_new()).  An
 * installed vmtax is the one other case (layout.h): BINDIR LIBEXECDIR ->
 * IMAGES /var/cache/vmtax/images.
 * In IMAGES:
 *   tiny-KVER.cpio.gz      the tiny image for kernel KVER: a link that
 *                          'vmtax image build --kind tiny' points at its
 *                          newest build, tiny-KVER-HASH.cpio.gz
 *   debian.qcow2, debian.vmlinuz, debian.initrd
 *                          links to the newest debian-HASH.* build
 *   lab.qcow2, lab.vmlinuz, lab.initrd
 *                          links to the newest lab-HASH.* build (the debian
 *                          image plus libvirt, QEMU and vmtax: a KVM host
 *                          when its CPU offers svm; see image.h), which is
 *                          in the shared image cache (guest_image_cache_new())
 *   overlays/PID-TAG.qcow2 one copy-on-write overlay per booted debian guest
 *                          (QEMU writes there, never to the image); those of
 *                          runs that died are removed by the next resolve
 *   overlays/kept-TAG.qcow2 a lab host's disk, kept until its run is done
 *                          (guest_overlay_kept())
 *
 * Resolving.  image "tiny": kernel "auto" is guest_kernel_newest() (see
 * guest-kernel.h), initrd "auto" is IMAGES/tiny-KVER.cpio.gz for that
 * kernel's version.  image "debian": the disk is IMAGES/debian.qcow2, kernel
 * and initrd "auto" are its debian.vmlinuz and debian.initrd.  Any other
 * kernel or initrd value is a path used as it is.  Every file found is
 * pinned (links resolved), so an image rebuilt during a run does not change
 * what the run boots.  Resolving may be done once per distinct (image,
 * kernel, initrd), each into its own struct guest_files.  "lab" resolves
 * as "debian" does, to IMAGES/lab.*.  A kernel found for "auto" is booted
 * through its PVH entry, as IMAGES/pvh-HASH.vmlinux (guest-pvh.h): .kernel
 * is what QEMU boots, .vmlinuz the kernel image it comes from.
 *
 * Inside the lab image vmtax lives at GUEST_LAB_VMTAX (put there by 'vmtax
 * lab run', not by the image build), its agent and workloads in
 * GUEST_LAB_BINDIR, the source sets in GUEST_SRCDIR, and the tiny image of
 * the lab's own kernel at guest_tiny_path_new(GUEST_LAB_IMAGES, KVER): the
 * same layout as a build tree, so vmtax inside finds them as it does here.
 * The debian image has the agent's and workloads' GUEST_LAB_BINDIR and
 * GUEST_SRCDIR too.
 *
 * Errors are reported once, as "CONFIG_PATH: message" (config errors), and
 * -EINVAL is returned; other failures are reported with the path and return
 * a negative errno.
 *
 * Ownership: struct guest_files owns its strings; guest_files_release()
 * frees them (and may be called on a zeroed or released struct).
 */
#ifndef VMTAX_GUEST_FILES_H
#define VMTAX_GUEST_FILES_H

#include <stdbool.h>
#include <stddef.h>

struct guest_files {
	char *kernel; /* what QEMU boots (-kernel), canonical path */
	char *vmlinuz; /* the kernel image it is, or comes from (guest-pvh.h) */
	char *initrd; /* the initramfs, canonical path */
	char *disk;   /* debian, lab: the read-only base qcow2; tiny: NULL */
	char *overlay_dir; /* debian, lab: where overlays go; tiny: NULL */
};

/*
 * The bin directory of the running vmtax (the agent and the workloads):
 * the installed LIBEXECDIR when vmtax is installed (layout.h), else
 * EXE_DIR/bin or EXE_DIR/../bin, canonical, into BUF.  Returns 0 or a
 * negative errno (reported).
 */
int guest_bindir_find(char *buf, size_t len);

/* BINDIR -> the images directory: the installed LIBEXECDIR ->
 * CACHEDIR/images; "X/bin" -> "X/images", else BINDIR/../images. */
char *guest_images_dir_new(const char *bindir);

/*
 * BINDIR -> the source sets that build workloads compile (ccbuild.tar of
 * configs/workloads/ccbuild.ini, made by 'make': workloads/ccbuild-srcset.sh):
 * the installed LIBEXECDIR -> CACHEDIR/src (made there by the installed
 * DATADIR/ccbuild-srcset.sh: the package ships the script and its manifest,
 * not the sources); "X/bin" -> "X/src", else BINDIR/../src.  Workload
 * commands find it in $WL_ENV_SRCDIR (workload-def.h); the disk images carry
 * its files at GUEST_SRCDIR, which is guest_srcdir_new(GUEST_LAB_BINDIR), so
 * a bare-metal cell inside the lab finds them where its guests do.
 */
char *guest_srcdir_new(const char *bindir);

/* The tiny image for kernel KVER: IMAGES/tiny-KVER.cpio.gz. */
char *guest_tiny_path_new(const char *images_dir, const char *kver);

/* The disk image kinds' names: their links and 'image = ' values. */
#define GUEST_IMAGE_DEBIAN "debian"
#define GUEST_IMAGE_LAB "lab"

/* Where vmtax, its bin directory and its images are inside the lab image. */
#define GUEST_LAB_VMTAX "/opt/vmtax/vmtax"
#define GUEST_LAB_BINDIR "/opt/vmtax/bin"
#define GUEST_LAB_IMAGES "/opt/vmtax/images"
/* Where the debian and lab images carry the source sets (guest_srcdir_new()). */
#define GUEST_SRCDIR "/opt/vmtax/src"
/*
 * A guest cell's scratch working directory (workload-def.h 'scratch'):
 * tmpfs, /tmp in every image (the tiny /init and the disk images' fstab
 * mount it); disk, /var/tmp on the debian and lab images' ext4 root (the
 * tiny image has none).
 */
#define GUEST_SCRATCH_TMPFS "/tmp"
#define GUEST_SCRATCH_DISK "/var/tmp"

/*
 * The image cache every checkout shares: where the lab image's own files
 * are built and kept (lab-HASH.qcow2, .vmlinuz, .initrd, .recipe, and the
 * rootfs-RHASH/ tree debootstrap made for it), and where IMAGES/lab.*
 * point.  $VMTAX_IMAGE_CACHE (env.h) when set (tests, the bench's builds from
 * scratch), else CACHEDIR/images (layout.h; /var/cache/vmtax/images, the
 * installed vmtax's own images directory): mode 0755 from / down, so QEMU
 * (user libvirt-qemu, guest-reach.h) opens the image where it is, whatever
 * the mode of the checkout.  The lab's recipe names contents, never paths
 * (image.h), so a second clone with the same agent, workloads, scripts and
 * kernel finds its image built.  Owned by the caller.
 */
char *guest_image_cache_new(void);

/*
 * A disk image kind's links: IMAGES/KIND.EXT (KIND GUEST_IMAGE_DEBIAN or
 * GUEST_IMAGE_LAB; EXT qcow2, vmlinuz, initrd).
 */
char *guest_disk_path_new(const char *images_dir, const char *kind,
			  const char *ext);

/* The debian image's links: IMAGES/debian.EXT (EXT qcow2, vmlinuz, initrd). */
char *guest_debian_path_new(const char *images_dir, const char *ext);

/*
 * Find the files for IMAGE ("tiny", "debian" or "lab") with KERNEL and INITRD
 * ("auto" or a path), the images beside BINDIR; CONFIG_PATH names the
 * config in messages.  Fills *F (zeroed first) and returns 0; on error *F
 * holds nothing.  For debian, creates the overlay directory and removes the
 * overlays of dead runs from it.
 */
int guest_files_resolve(const char *image, const char *kernel,
			const char *initrd, const char *bindir,
			const char *config_path, struct guest_files *f);
void guest_files_release(struct guest_files *f);
/*
 * Whether the files IMAGE, KERNEL and INITRD name are there, as
 * guest_files_resolve() looks them up, changing nothing (for a run's
 * preflight): 0 when they are; GUEST_FILES_FIRST_USE for a tiny image of
 * initrd "auto" not built yet ('vmtax run' builds it on first use: its
 * kernel is there); GUEST_FILES_UNBUILT for a debian or lab image not
 * built, and -ENOENT for any other file missing, each with what is
 * missing in WHY ("image = debian, but there is no built image
 * ('IMAGES/debian.qcow2')") and how to get it in FIX ("run 'vmtax image
 * build --kind debian' first"); -EINVAL, with both, for an image of no
 * known kind.  Reports nothing.
 */
#define GUEST_FILES_FIRST_USE 1
#define GUEST_FILES_UNBUILT 2
int guest_files_check(const char *image, const char *kernel,
		      const char *initrd, const char *bindir, char *why,
		      size_t wlen, char *fix, size_t flen);
/*
 * The kernel image a tiny guest boots with kernel = auto (the .vmlinuz
 * guest_files_resolve() finds), canonical, into *PATH (new): it needs no
 * initramfs, so a script may ask for it before any image is built.  As
 * guest_files_resolve(); *PATH is NULL on error.
 */
int guest_tiny_vmlinuz(const char *bindir, const char *config_path,
		       char **path);
/* Remove the overlays ("PID-TAG.qcow2") in DIR left by runs that were
 * killed (their PID is gone). */
void guest_overlays_sweep(const char *dir);

/*
 * Create a fresh overlay of F->disk for one guest: F->overlay_dir/PID-TAG.qcow2
 * (TAG a file-name-safe cell slug), replacing any old one, with qemu-img.
 * *PATH is set (owned) even on failure, so the caller can unlink it.
 * Returns 0 or a negative errno (reported).
 */
int guest_overlay_create(const struct guest_files *f, const char *tag,
			 char **path);

/*
 * An overlay that outlives this process (the lab host's disk, kept for
 * 'vmtax lab run --resume'): F->overlay_dir/kept-TAG.qcow2, never swept.
 * With REUSE an existing one is used as it is; otherwise it is made anew.
 * *PATH is set (owned) even on failure.  Returns 0 or a negative errno
 * (reported).
 */
int guest_overlay_kept(const struct guest_files *f, const char *tag,
		       bool reuse, char **path);
/*
 * A new overlay PATH on BACKING (a qcow2), replacing any old one: the
 * lab's frozen "ready" disk on the image, and a restored lab's kept disk
 * on that (lab-state.h).  Returns 0 or a negative errno (reported).
 */
int guest_overlay_on(const char *backing, const char *path);
/*
 * Whether the qcow2 PATH can be opened with its backing file: PATH is
 * readable and writable, and its backing file (read from its header; a
 * relative name is beside PATH) is there or it has none.  A kept lab disk
 * made by a restore sits on a frozen disk that a later save may remove.
 */
bool guest_overlay_usable(const char *path);

#endif
