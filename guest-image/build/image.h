/* SPDX-License-Identifier: MIT */
/*
 * image.h - guest images built from a recipe, cached by the recipe's hash.
 *
 * What it is for.  'vmtax image build' makes the disks and initramfs images
 * the guests boot.  Every image is described by a recipe: the text of every
 * input that decides its bytes (kind, suite, mirror, package list, the script
 * or unit text, and the content hash of every binary copied in).  The recipe's
 * hash names the artifacts, so a second build with nothing changed finds them
 * and returns at once ("up to date"), and a changed input makes a new image
 * beside the old ones.
 *
 * Kinds.
 *   tiny    guest-image/build/mkinitramfs-tiny.sh KVER (the newest guest kernel,
 *           guest-kernel.h), with the agent and the workloads of BINDIR:
 *           DIR/tiny-KVER-HASH.cpio.gz
 *   debian  debootstrap (cached separately in DIR/rootfs-RHASH/, keyed by
 *           suite, mirror, variant and packages only, so a new agent does
 *           not mean a new debootstrap), then gfs.h (libguestfs) makes an
 *           ext4 qcow2 from it with the agent as a systemd unit:
 *           DIR/debian-HASH.qcow2, DIR/debian-HASH.vmlinuz, .initrd
 *   lab     where this host has them installed, built from its own
 *           packages (image-hostdisk.h: libvirt, QEMU, systemd, vmtax's
 *           run-time libraries, the kernel of the kernel cache; mke2fs -d,
 *           no VM); else debian plus libvirt, QEMU and vmtax's run-time
 *           libraries (apt-get install in the debootstrap'ed tree, cached
 *           with it); either way
 *           /etc/modules-load.d/vmtax-lab.conf (kvm_amd), the agent and
 *           workloads in GUEST_LAB_BINDIR, and the tiny image of the
 *           image's own kernel (built from the tree's modules) in
 *           GUEST_LAB_IMAGES (guest-files.h): CACHE/lab-HASH.qcow2,
 *           .vmlinuz, .initrd, where CACHE is the image cache every
 *           checkout shares (guest_image_cache_new()), linked from DIR.
 *           Its recipe adds the hashes of the tiny script and busybox, and
 *           names contents only, never paths ("/opt/vmtax/bin/stream
 *           fnv1a64:HASH"), so another checkout of the same sources has
 *           the same key; a build of it by another checkout is waited for
 *           (flock CACHE/lab-HASH.lock).  o->from chooses the root file
 *           system (enum image_from).  vmtax itself is not in it:
 *           'vmtax lab run' puts its own binary at GUEST_LAB_VMTAX each
 *           time (so a new vmtax needs no new image).  Booted with a CPU that offers svm and npt, it
 *           is a KVM host: systemd starts libvirtd and virtlogd (their own
 *           units), udev gives /dev/kvm group kvm and mode 0660.
 * Each kind also writes DIR/KIND-HASH.recipe, the recipe text, last: its
 * presence is what "built" means.  A stable symlink points at the newest
 * build: opts.link, by default the name 'vmtax run' looks up (guest-files.h):
 * DIR/tiny-KVER.cpio.gz, or DIR/debian.qcow2 with DIR/debian.vmlinuz and
 * DIR/debian.initrd (with opts.link, debian's kernel and initrd links are
 * the link without ".qcow2" plus ".vmlinuz" and ".initrd").
 *
 * Every recipe names the tree's files by content and name, never by path,
 * and a link names a build in its own directory by file name alone: a
 * checkout moved or copied finds its images current.
 *
 * The hash is 64-bit FNV-1a: a cache key, not a security boundary.
 *
 * image_build() prints the absolute paths of the artifacts on stdout, one a
 * line (tiny: the cpio; debian: qcow2, kernel, initrd).
 *
 * Errors: image_build() returns 0 or a negative errno; every failure is
 * reported once and names the step that failed ("image: debootstrap: ...").
 * Progress of the long steps goes to stderr through note().
 */
#ifndef VMTAX_IMAGE_H
#define VMTAX_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

enum image_kind {
	IMAGE_TINY,
	IMAGE_DEBIAN,
	IMAGE_LAB,
};

/*
 * Where the lab image's root file system comes from: auto (this host's
 * packages where it has them all and a guest kernel, else debootstrap),
 * packages (this host's, or fail saying what it lacks), debootstrap
 * (always; minutes, and the network).  'image build --from', [lab]
 * image_from.  The names are image_from_names[], in this order.
 */
enum image_from {
	IMAGE_FROM_AUTO,
	IMAGE_FROM_PACKAGES,
	IMAGE_FROM_DEBOOTSTRAP,
};

/* "auto", "packages", "debootstrap", NULL-terminated (a config key's
 * choices). */
extern const char *const image_from_names[];

/* What building an image would take, as its check says (image_opts
 * .would): nothing (up to date), seconds (the tiny image, a disk from
 * this host's packages), minutes (a disk through debootstrap). */
enum image_would {
	IMAGE_WOULD_NOTHING,
	IMAGE_WOULD_SECONDS,
	IMAGE_WOULD_MINUTES,
};

struct image_opts {
	enum image_kind kind;
	enum image_from from; /* lab (debian: auto or debootstrap only) */
	const char *dir;    /* NULL: the images dir of BINDIR (build/images) */
	const char *bindir; /* NULL: build/bin (agent and workloads) */
	const char *script; /* NULL: guest-image/build/mkinitramfs-tiny.sh */
	const char *link;   /* NULL: DIR/tiny-KVER.cpio.gz, DIR/KIND.qcow2 */
	const char *kver;   /* tiny: NULL = newest /boot/vmlinuz-* */
	const char *mirror; /* debian: NULL = from the host's apt sources */
	const char *suite;  /* debian: NULL = VERSION_CODENAME of os-release */
	const char *const *packages; /* debian: extra packages (workloads) */
	size_t npackages;
	bool quiet; /* no paths on stdout (vmtax lab run builds its image) */
	/* Check the inputs and say (note()) whether the image is up to date
	 * or would be built, and how long that takes; build nothing. */
	bool check;
	/* with check, when not NULL: what building it would take */
	enum image_would *would;
	/* with check: the recipe of the inputs now (the text whose hash
	 * names the image) on stdout ('image build --recipe') */
	bool recipe;
};

/*
 * What a build needs of the host, and what its files take, for 'vmtax
 * run's preflight (run-preflight.h) to name before a run.  The Debian
 * packages (blank separated) each kind's build runs: tiny the busybox and
 * cpio of guest-image/build/mkinitramfs-tiny.sh; debian debootstrap, libguestfs's
 * appliance builder (supermin) and qemu-img.
 */
#define IMAGE_TINY_HOST_PACKAGES "busybox-static cpio"
#define IMAGE_DEBIAN_HOST_PACKAGES "debootstrap supermin qemu-utils"
/*
 * Disk space in the images directory: a debian build at its peak (the
 * debootstrap tree, 1.2 GiB here on 2026-12-05, its tar, and the qcow2,
 * 1.3 GiB), a tiny build (its cpio, 4 MiB, and its kernel's PVH ELF,
 * 63 MiB), and what a booted disk guest's overlay may take (its writes
 * outside /tmp, which is a tmpfs in the guest: a few MiB in the lab).
 */
#define IMAGE_DEBIAN_BUILD_BYTES (4ULL << 30)
#define IMAGE_TINY_BUILD_BYTES (128ULL << 20)
#define IMAGE_OVERLAY_BYTES (512ULL << 20)

/* "tiny" -> IMAGE_TINY ("debian", "lab"); -EINVAL for an unknown kind (reports
 * nothing). */
int image_kind_parse(const char *s, enum image_kind *out);

/* "packages" -> IMAGE_FROM_PACKAGES (image_from_names); -EINVAL for
 * another (reports nothing). */
int image_from_parse(const char *s, enum image_from *out);

/* Build (or find up to date) the image of O.  See above. */
int image_build(const struct image_opts *o);

/*
 * Whether the image 'vmtax run' boots for O (its kind; its kver, bindir,
 * dir, script, link, and for the disk kinds its mirror, suite and
 * packages, as image_build() takes them) is the build of its inputs as
 * they are now: the recipe's key (its content hashes, computed without
 * building anything), not the file's presence, decides.  One test, for
 * 'image build --check' (and the build, which relinks or builds what is
 * not current) and for 'vmtax run' and its dry run.  A run builds a tiny
 * image that is missing or stale (seconds, as on first use); it boots a
 * stale debian or lab image as it is, saying so on stderr and in
 * results.json's run.notes (a build takes minutes), and refuses a missing
 * one.  0 or -errno, reported (no kernel, no agent, no suite);
 * image_status_release() frees *ST.
 */
enum image_state {
	IMAGE_CURRENT, /* LINK is the build of the inputs now */
	IMAGE_MISSING, /* no LINK: never built */
	IMAGE_STALE,   /* LINK is a build of other inputs (WHAT changed) */
};

struct image_status {
	enum image_state state;
	/* the name a run boots: IMAGES/tiny-KVER.cpio.gz, IMAGES/debian.qcow2 */
	char *link;
	/* the build of the inputs now: tiny-KVER-KEY.cpio.gz, debian-KEY.qcow2 */
	char *want;
	char *was;  /* stale: what LINK points at (NULL: nothing) */
	/* stale: the inputs that differ from WAS's recipe (recipe_diff():
	 * "binary stream, ...", "/opt/vmtax/bin/stream", "packages ...";
	 * "NAME (gone)" for one no longer there) */
	char what[512];
};

int image_status(const struct image_opts *o, struct image_status *st);
/* "current", "missing", "stale" */
const char *image_state_name(enum image_state s);
void image_status_release(struct image_status *st);

/*
 * libguestfs's appliance, set up as every debootstrap'ed disk build sets it
 * up (the backend for this host's accelerator, the guest kernel of
 * guest_kernel_find() for supermin, never a /boot the cache stands in for),
 * launched on a scratch disk under TMPDIR (else /var/tmp) with an ext4 made
 * and mounted, then shut down: whether this host can build the debian and
 * lab images, in seconds.  BINDIR: where vmtax's binaries are
 * (guest_bindir_find()), whose images directory has the kernel cache.  0 or -errno, reported.
 */
int image_appliance_check(const char *bindir);

#endif
