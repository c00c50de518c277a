/* SPDX-License-Identifier: MIT */
/* gfs.c - make an ext4 qcow2 from a rootfs tarball through libguestfs. */
#include <errno.h>
#include <guestfs.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gfs.h"
#include "guest-kernel.h"
#include "util.h"

#define GFS_MEMSIZE_MIB 1024

void gfs_env_for_accel(const char *accel, const char *why)
{
	if (strcmp(accel, "tcg"))
		return;
	/* Without KVM the default (libvirt) backend hangs; see the docs. */
	if (!getenv(ENV_LIBGUESTFS_BACKEND))
		setenv(ENV_LIBGUESTFS_BACKEND, "direct", 1);
	if (!getenv(ENV_LIBGUESTFS_BACKEND_SETTINGS))
		setenv(ENV_LIBGUESTFS_BACKEND_SETTINGS, "force_tcg", 1);
	note("image: %s: libguestfs with LIBGUESTFS_BACKEND=%s "
	     "LIBGUESTFS_BACKEND_SETTINGS=%s",
	     why, getenv(ENV_LIBGUESTFS_BACKEND),
	     getenv(ENV_LIBGUESTFS_BACKEND_SETTINGS));
}

void gfs_env_for_kernel(const char *kernel, const char *moddir,
			const char *kver)
{
	if (!getenv(ENV_SUPERMIN_KERNEL)) {
		setenv(ENV_SUPERMIN_KERNEL, kernel, 1);
		if (moddir && !getenv(ENV_SUPERMIN_MODULES))
			setenv(ENV_SUPERMIN_MODULES, moddir, 1);
		if (kver && !getenv(ENV_SUPERMIN_KERNEL_VERSION))
			setenv(ENV_SUPERMIN_KERNEL_VERSION, kver, 1);
	}
	note("image: libguestfs's appliance boots SUPERMIN_KERNEL=%s "
	     "(SUPERMIN_MODULES=%s)",
	     getenv(ENV_SUPERMIN_KERNEL),
	     getenv(ENV_SUPERMIN_MODULES) ?: "the host's /lib/modules");
}

/* Report the last libguestfs error of step WHAT once; returns -EIO. */
static int gfs_fail(guestfs_h *g, const char *what)
{
	const char *msg = g ? guestfs_last_error(g) : NULL;

	err("guestfs: %s: %s", what, msg ? msg : "failed");
	return -EIO;
}

static int mkparent(guestfs_h *g, const char *remote)
{
	char *dir = xstrdup(remote);
	char *slash = strrchr(dir, '/');
	int ret = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		if (guestfs_mkdir_p(g, dir) < 0)
			ret = gfs_fail(g, dir);
	}
	free(dir);
	return ret;
}

/*
 * The image's newest kernel (guest_kernel_pick(), the rule vmtax boots by)
 * and its initramfs into *KERNEL and *INITRD; -ENOENT after reporting when
 * either is missing.
 */
static int image_kernel(guestfs_h *g, char **kernel, char **initrd)
{
	char **list = guestfs_glob_expand(g, "/boot/" GUEST_KERNEL_PREFIX "*");
	const char *best;
	size_t i, n = 0;
	int ret = -ENOENT;

	while (list && list[n])
		n++;
	best = list ? guest_kernel_pick(list, n) : NULL;
	if (best) {
		*kernel = xstrdup(best);
		*initrd = xasprintf("/boot/" GUEST_INITRD_PREFIX "%s",
				    guest_kernel_version(best));
		if (guestfs_is_file(g, *initrd) > 0)
			ret = 0;
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	if (ret < 0)
		err("guestfs: no /boot/" GUEST_KERNEL_PREFIX "* with its "
		    "/boot/" GUEST_INITRD_PREFIX "* in the image (is "
		    "linux-image-amd64 in the package list?)");
	return ret;
}

/* A handle on a new, empty qcow2 disk S->qcow2, appliance launched. */
static int gfs_launch_new(const struct gfs_disk_spec *s, guestfs_h **out)
{
	guestfs_h *g = guestfs_create();
	double t;

	*out = g;
	if (!g)
		return err_errno("guestfs: cannot create a libguestfs handle");
	/* Errors are reported once by gfs_fail(), with the step. */
	guestfs_set_error_handler(g, NULL, NULL);
	if (guestfs_set_memsize(g, GFS_MEMSIZE_MIB) < 0 ||
	    guestfs_set_smp(g, 2) < 0)
		return gfs_fail(g, "appliance settings");
	note("image: guestfs: create qcow2 '%s' (%llu MiB, sparse)", s->qcow2,
	     (unsigned long long)(s->size >> 20));
	if (guestfs_disk_create(g, s->qcow2, "qcow2", (int64_t)s->size, -1) < 0)
		return gfs_fail(g, "disk-create");
	if (guestfs_add_drive_opts(g, s->qcow2, GUESTFS_ADD_DRIVE_OPTS_FORMAT,
				   "qcow2", -1) < 0)
		return gfs_fail(g, "add-drive");
	note("image: guestfs: launch the appliance (backend %s)...",
	     getenv(ENV_LIBGUESTFS_BACKEND) ?: "default");
	t = mono_now();
	if (guestfs_launch(g) < 0)
		return gfs_fail(g, "launch");
	note("image: guestfs: appliance up in %.0f s", mono_now() - t);
	return 0;
}

/* One ext4 file system on the whole disk, mounted, the tarball in it. */
static int gfs_fill_rootfs(guestfs_h *g, const struct gfs_disk_spec *s)
{
	double t;
	int ret = 0;

	if (guestfs_mkfs(g, "ext4", "/dev/sda") < 0)
		return gfs_fail(g, "mkfs ext4 /dev/sda");
	if (guestfs_mount(g, "/dev/sda", "/") < 0)
		return gfs_fail(g, "mount /dev/sda");
	note("image: guestfs: tar-in the root file system (minutes under "
	     "TCG)...");
	t = mono_now();
	if (guestfs_tar_in(g, s->rootfs_tar, "/") < 0) {
		char *step = xasprintf("tar-in '%s'", s->rootfs_tar);

		ret = gfs_fail(g, step);
		free(step);
		return ret;
	}
	note("image: guestfs: tar-in done in %.0f s", mono_now() - t);
	return 0;
}

static int gfs_add_file(guestfs_h *g, const struct gfs_file *f)
{
	char *step = xasprintf("upload '%s' to '%s'", f->local, f->remote);
	int ret = mkparent(g, f->remote);

	if (ret == 0 && (guestfs_upload(g, f->local, f->remote) < 0 ||
			 guestfs_chmod(g, f->mode, f->remote) < 0))
		ret = gfs_fail(g, step);
	free(step);
	return ret;
}

static int gfs_add_text(guestfs_h *g, const struct gfs_text *x)
{
	char *step = xasprintf("write '%s'", x->remote);
	int ret = mkparent(g, x->remote);

	if (ret == 0 &&
	    (guestfs_write(g, x->remote, x->text, strlen(x->text)) < 0 ||
	     guestfs_chmod(g, x->mode, x->remote) < 0))
		ret = gfs_fail(g, step);
	free(step);
	return ret;
}

static int gfs_add_link(guestfs_h *g, const struct gfs_link *l)
{
	char *step = xasprintf("symlink '%s' -> '%s'", l->remote, l->target);
	int ret = mkparent(g, l->remote);

	if (ret == 0 && guestfs_ln_sf(g, l->target, l->remote) < 0)
		ret = gfs_fail(g, step);
	free(step);
	return ret;
}

/* S's files, texts and links, in that order. */
static int gfs_add_all(guestfs_h *g, const struct gfs_disk_spec *s)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < s->nfiles && ret == 0; i++)
		ret = gfs_add_file(g, &s->files[i]);
	for (i = 0; i < s->ntexts && ret == 0; i++)
		ret = gfs_add_text(g, &s->texts[i]);
	for (i = 0; i < s->nlinks && ret == 0; i++)
		ret = gfs_add_link(g, &s->links[i]);
	return ret;
}

/* The newest kernel and its initrd out to S->kernel_out, S->initrd_out. */
static int gfs_extract_boot(guestfs_h *g, const struct gfs_disk_spec *s)
{
	char *kernel = NULL, *initrd = NULL;
	int ret;

	ret = image_kernel(g, &kernel, &initrd);
	if (ret < 0)
		goto out;
	note("image: guestfs: extract '%s' and '%s'", kernel, initrd);
	if (guestfs_download(g, kernel, s->kernel_out) < 0)
		ret = gfs_fail(g, "download kernel");
	else if (guestfs_download(g, initrd, s->initrd_out) < 0)
		ret = gfs_fail(g, "download initrd");
out:
	free(kernel);
	free(initrd);
	return ret;
}

int gfs_probe(const char *qcow2, uint64_t size)
{
	struct gfs_disk_spec s = { .qcow2 = qcow2, .size = size };
	guestfs_h *g = NULL;
	double t0 = mono_now();
	int ret;

	ret = gfs_launch_new(&s, &g);
	if (ret < 0)
		goto out;
	if (guestfs_mkfs(g, "ext4", "/dev/sda") < 0) {
		ret = gfs_fail(g, "mkfs ext4");
		goto out;
	}
	if (guestfs_mount(g, "/dev/sda", "/") < 0 ||
	    guestfs_umount_all(g) < 0) {
		ret = gfs_fail(g, "mount");
		goto out;
	}
	if (guestfs_shutdown(g) < 0) {
		ret = gfs_fail(g, "shutdown");
		goto out;
	}
	note("image: guestfs: appliance launched, ext4 made and mounted, "
	     "shut down: %.1f s",
	     mono_now() - t0);
out:
	if (g)
		guestfs_close(g);
	return ret;
}

int gfs_make_disk(const struct gfs_disk_spec *s)
{
	guestfs_h *g = NULL;
	double t0 = mono_now();
	int ret;

	ret = gfs_launch_new(s, &g);
	if (ret == 0)
		ret = gfs_fill_rootfs(g, s);
	if (ret == 0)
		ret = gfs_add_all(g, s);
	if (ret == 0)
		ret = gfs_extract_boot(g, s);
	if (ret < 0)
		goto out;
	if (guestfs_umount_all(g) < 0) {
		ret = gfs_fail(g, "umount");
		goto out;
	}
	if (guestfs_shutdown(g) < 0) {
		ret = gfs_fail(g, "shutdown (flushing the disk)");
		goto out;
	}
	note("image: guestfs: disk done in %.0f s", mono_now() - t0);
out:
	if (g)
		guestfs_close(g);
	return ret;
}
