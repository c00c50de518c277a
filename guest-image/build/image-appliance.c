/* SPDX-License-Identifier: MIT */
/*
 * image-appliance.c - libguestfs's appliance set up as every disk image
 * build (image-disk.c) runs it, and its check (image_appliance_check()).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "env.h"
#include "gfs.h"
#include "guest-kernel.h"
#include "guest-files.h"
#include "host.h"
#include "image.h"
#include "image-build.h"
#include "util.h"

/*
 * What supermin needs that it names badly when it is missing: the host's
 * /lib/modules, which it lstat()s when it copies the kernel's modules under
 * it, and MODDIR's modules.dep (depmod's).
 */
static int appliance_ready(const char *moddir)
{
	char *dep = moddir ? xasprintf("%s/modules.dep", moddir) : NULL;
	int ret = 0;

	if (access("/lib/modules", F_OK) < 0)
		ret = err_code(-ENOENT,
			       "image: this host has no /lib/modules, which "
			       "supermin (libguestfs's appliance) needs, even "
			       "empty, to copy the guest kernel's modules: "
			       "'make deps' makes one ('mkdir /lib/modules')");
	else if (dep && access(dep, R_OK) < 0)
		ret = err_code(-ENOENT,
			       "image: no '%s', which libguestfs's appliance "
			       "reads: 'make deps' runs depmod there ('depmod "
			       "-b CACHE KVER')",
			       dep);
	free(dep);
	return ret;
}

/*
 * libguestfs's appliance as every disk build runs it: the backend for this
 * host's accelerator, and the guest kernel (guest_kernel_find(): vmtax's
 * cache of IMAGES, else /boot) for supermin to boot.
 */
int image_appliance_env(const char *images)
{
	char why[256], *cache = guest_kernel_cache_new(images);
	char *kernel = NULL, *kver = NULL, *moddir = NULL;
	int ret;

	gfs_env_for_accel(host_accel_decide("", why, sizeof(why)), why);
	ret = guest_kernel_find(cache, &kernel, &kver);
	if (ret < 0) {
		ret = err_code(ret,
			       "image: no kernel for libguestfs's appliance "
			       "in '%s/boot' or /boot: 'make deps' unpacks "
			       "Debian's there",
			       cache);
		goto out;
	}
	moddir = guest_kernel_moddir_new(cache, kver);
	ret = appliance_ready(moddir);
	if (ret < 0)
		goto out;
	gfs_env_for_kernel(kernel, moddir, kver);
out:
	free(cache);
	free(kernel);
	free(kver);
	free(moddir);
	return ret;
}

int image_appliance_check(const char *bindir)
{
	const char *tmp = getenv(ENV_TMPDIR);
	char *images = guest_images_dir_new(bindir);
	char *dir = xasprintf("%s/vmtax-appliance.XXXXXX",
			      tmp && *tmp ? tmp : "/var/tmp");
	char *disk = NULL;
	int ret;

	if (!mkdtemp(dir)) {
		ret = err_errno("image: cannot create '%s'", dir);
		goto out;
	}
	disk = xasprintf("%s/probe.qcow2", dir);
	ret = image_appliance_env(images);
	if (ret == 0)
		ret = gfs_probe(disk, 64ULL << 20);
	unlink(disk);
	rmdir(dir);
out:
	free(disk);
	free(dir);
	free(images);
	return ret;
}
