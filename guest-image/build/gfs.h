/* SPDX-License-Identifier: MIT */
/*
 * gfs.h - the only code that talks to libguestfs.
 *
 * gfs_make_disk() creates a qcow2 disk with one ext4 file system on the
 * whole disk (the guest sees it as /dev/vda), unpacks a root file system
 * tarball into it, adds files, texts and symlinks, and downloads the newest
 * /boot/vmlinuz-* and /boot/initrd.img-* for direct kernel boot.  Everything
 * it takes is a plain struct: callers never see a guestfs_h.
 *
 * The appliance backend comes from the environment (LIBGUESTFS_BACKEND,
 * LIBGUESTFS_BACKEND_SETTINGS); gfs_env_for_accel() sets the TCG settings
 * when KVM is unusable, unless the user set them already.
 *
 * Errors: returns 0 or a negative errno; a failure is reported once, naming
 * the step ("guestfs: tar-in '/x.tar': ...").  Each step prints progress.
 * The output files are written in place: the caller builds under temporary
 * names and renames on success.
 */
#ifndef VMTAX_GFS_H
#define VMTAX_GFS_H

#include <stddef.h>
#include <stdint.h>

struct gfs_file {
	const char *local;  /* a host file */
	const char *remote; /* absolute path in the image; parents are made */
	int mode;
};

struct gfs_text {
	const char *remote;
	const char *text;
	int mode;
};

struct gfs_link {
	const char *target;
	const char *remote; /* the symlink made (ln -sf) */
};

struct gfs_disk_spec {
	const char *qcow2;	/* created (overwritten) */
	uint64_t size;		/* bytes, e.g. 8 GiB; sparse */
	const char *rootfs_tar; /* unpacked at / */
	const struct gfs_file *files;
	size_t nfiles;
	const struct gfs_text *texts;
	size_t ntexts;
	const struct gfs_link *links;
	size_t nlinks;
	const char *kernel_out; /* newest /boot/vmlinuz-* goes here */
	const char *initrd_out; /* its /boot/initrd.img-* goes here */
};

/*
 * If ACCEL is "tcg", set LIBGUESTFS_BACKEND=direct and
 * LIBGUESTFS_BACKEND_SETTINGS=force_tcg where not set; note what was chosen
 * and WHY (host_accel_decide()'s reason).
 */
void gfs_env_for_accel(const char *accel, const char *why);

/*
 * The appliance boots KERNEL (a vmlinuz) with the modules of MODDIR
 * (lib/modules/KVER): supermin's SUPERMIN_KERNEL, SUPERMIN_MODULES and
 * SUPERMIN_KERNEL_VERSION, where the user did not set them.  Without them
 * supermin looks in the host's /boot, which 'make deps' leaves as it was
 * (the guest kernel goes to vmtax's cache, build/kernel): "failed to find
 * a suitable kernel" on a fresh machine.  Notes what was chosen.
 */
void gfs_env_for_kernel(const char *kernel, const char *moddir,
			const char *kver);

int gfs_make_disk(const struct gfs_disk_spec *s);

/*
 * The appliance launched as gfs_make_disk() launches it, on a new sparse
 * QCOW2 of SIZE bytes, an ext4 file system made on it and mounted, then
 * shut down: the check that this host can build a disk image (seconds
 * once supermin's appliance is cached).
 */
int gfs_probe(const char *qcow2, uint64_t size);

#endif
