/* SPDX-License-Identifier: MIT */
/*
 * vmtax image build: build (or find cached) a guest image; see image.h.
 * vmtax image path: the files 'vmtax run' boots; see guest-files.h.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "guest-files.h"
#include "workload-def.h"
#include "image.h"
#include "layout.h"
#include "output.h"
#include "util.h"


static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: vmtax image build [--kind tiny|debian|lab] [-o PATH] "
	    "[--mirror URL]\n"
	    "                         [--from auto|packages|debootstrap] "
	    "[--check]\n"
	    "                         [--recipe]\n"
	    "       vmtax image path [--kind tiny|debian|lab] "
	    "[kernel|vmlinuz|initrd|disk]\n"
	    "       vmtax image appliance\n\n"
	    "Builds a guest image from its recipe, or finds it up to date in\n"
	    "build/images/ (images are named by the hash of their recipe).\n"
	    "Run it from the top of the vmtax tree, after 'make tools'; an\n"
	    "installed vmtax uses %s/images from anywhere.\n\n"
	    "  --kind tiny    the initramfs of "
	    "guest-image/build/mkinitramfs-tiny.sh\n"
	    "                 for the newest guest kernel (build/kernel, else\n"
	    "                 /boot: guest-kernel.h) (default):\n"
	    "                 build/images/tiny-KVER-HASH.cpio.gz\n"
	    "  --kind debian  debootstrap + libguestfs: an ext4 qcow2 with "
	    "the\n"
	    "                 agent as a systemd unit, and its kernel and "
	    "initrd\n"
	    "                 for direct boot: build/images/debian-HASH.*\n"
	    "  --kind lab     libvirt, QEMU and vmtax with the tiny image of "
	    "its\n"
	    "                 kernel: a KVM host when its CPU offers svm and "
	    "npt:\n"
	    "                 lab-HASH.* in the shared cache (--from), "
	    "from this\n"
	    "                 host's installed packages when it has them\n"
	    "                 (seconds), else debian plus them; linked from\n"
	    "                 build/images/lab.*\n"
	    "  --from SOURCE  lab: where its root file system comes from: "
	    "auto\n"
	    "                 (this host's packages where it has them, else\n"
	    "                 debootstrap; the default), packages (fail when "
	    "the\n"
	    "                 host lacks one), debootstrap (minutes); the "
	    "lab\n"
	    "                 image is kept in %s/images,\n"
	    "                 shared by every checkout (VMTAX_IMAGE_CACHE "
	    "overrides)\n"
	    "  -o PATH        the stable symlink to the result (default\n"
	    "                 build/images/tiny-KVER.cpio.gz, debian.qcow2 or "
	    "lab.qcow2, the\n"
	    "                 names 'vmtax run' looks for; for\n"
	    "                 debian and lab also "
	    "PATH-without-.qcow2.{vmlinuz,initrd})\n"
	    "  --mirror URL   debian: the Debian mirror (default: the "
	    "image's,\n"
	    "                 else the host's apt sources for its suite)\n"
	    "  --suite NAME   debian: the suite (default: the image's, else "
	    "the\n"
	    "                 host's codename)\n"
	    "  -n, --check    check the inputs and say whether the image is\n"
	    "                 up to date, stale (naming the inputs that\n"
	    "                 changed since it was built) or missing, and\n"
	    "                 whether it would be built; build nothing (the\n"
	    "                 test 'vmtax run' makes: docs/guest-image.md)\n"
	    "  --recipe       --check, and the recipe of the inputs now (the\n"
	    "                 text whose hash names the image) on stdout\n\n"
	    "The debian and lab images carry the 'packages =' of "
	    "every\n"
	    "configs/workloads/*.ini (installed: %s).  Without KVM, libguestfs is run with\n"
	    "LIBGUESTFS_BACKEND=direct LIBGUESTFS_BACKEND_SETTINGS=force_tcg\n"
	    "unless they are set; its appliance boots the guest kernel\n"
	    "(build/kernel, else /boot) through SUPERMIN_KERNEL and\n"
	    "SUPERMIN_MODULES unless they are set.\n\n"
	    "'image appliance' launches that appliance on a scratch disk\n"
	    "(under TMPDIR, else /var/tmp), makes and mounts an ext4 and\n"
	    "shuts it down: whether the debian and lab images can be\n"
	    "built here (seconds); exit 1 with the reason if not.\n\n"
	    "'image path' prints the files 'vmtax run' boots for the kind\n"
	    "with kernel = auto and initrd = auto (the same lookup): with\n"
	    "WHAT only that path, else 'kernel PATH', 'vmlinuz PATH',\n"
	    "'initrd PATH' (and 'disk PATH') lines; exit 1 with the reason\n"
	    "when one is missing.  'kernel' is what QEMU boots: the kernel's\n"
	    "ELF through its PVH entry (pvh-HASH.vmlinux) when it has one,\n"
	    "else the kernel image, 'vmlinuz' (docs/guest-image.md).  The\n"
	    "tiny kind's 'vmlinuz' alone needs no initramfs: it names the\n"
	    "guest kernel before any image is built.\n"
	    "See docs/guest-image.md.\n",
	    layout_dirs()->cachedir, layout_dirs()->cachedir,
	    layout_workloads_dir(layout_dirs()->libexecdir));
}

/*
 * The options of image build and image path.  Their --help is written out
 * in usage() (it describes --kind value by value), so the rows carry none.
 */
struct image_args {
	struct image_opts o;
	const char *kind; /* as given (image path) */
};

static int take_kind(void *args, char *arg)
{
	struct image_args *a = args;

	if (image_kind_parse(arg, &a->o.kind) < 0)
		return err("unknown image kind '%s' (tiny, debian or lab)", arg);
	a->kind = arg;
	return 0;
}

static int take_check(void *args, char *arg)
{
	struct image_args *a = args;

	(void)arg;
	a->o.check = true;
	a->o.quiet = true;
	return 0;
}

static int take_recipe(void *args, char *arg)
{
	struct image_args *a = args;

	a->o.recipe = true;
	return take_check(args, arg);
}

static int take_from(void *args, char *arg)
{
	struct image_args *a = args;

	if (image_from_parse(arg, &a->o.from) < 0)
		return err("unknown image source '%s' (auto, packages or "
			   "debootstrap)",
			   arg);
	return 0;
}

static const struct opt path_opts[] = {
	{ 'k', "kind", OPT_CALLBACK, 0, take_kind, "KIND", NULL, NULL },
	OPT_ROW_END,
};

static const struct opt build_opts[] = {
	{ 'k', "kind", OPT_CALLBACK, 0, take_kind, "KIND", NULL, NULL },
	{ 'o', "output", OPT_STRING, offsetof(struct image_args, o.link), NULL,
	  "PATH", NULL, NULL },
	{ 'm', "mirror", OPT_STRING, offsetof(struct image_args, o.mirror),
	  NULL, "URL", NULL, NULL },
	{ 's', "suite", OPT_STRING, offsetof(struct image_args, o.suite), NULL,
	  "NAME", NULL, NULL },
	{ 'n', "check", OPT_CALLBACK, 0, take_check, NULL, NULL, NULL },
	{ 0, "from", OPT_CALLBACK, 0, take_from, "SOURCE", NULL, NULL },
	{ 0, "recipe", OPT_CALLBACK, 0, take_recipe, NULL, NULL, NULL },
	OPT_ROW_END,
};

/* vmtax image path [--kind K] [WHAT] */
static int image_path(int argc, char **argv)
{
	struct image_args a = { .kind = "tiny" };
	struct guest_files f = {0};
	const char *what = NULL;
	char bindir[PATH_MAX];
	int first, ret;

	first = opts_parse(path_opts, usage, &a, argc, argv);
	if (first < 0)
		return opts_status(first);
	if (first < argc)
		what = argv[first++];
	if (first != argc) {
		err("unexpected argument '%s'", argv[first]);
		return EXIT_USAGE;
	}
	if (what && strcmp(what, "kernel") && strcmp(what, "vmlinuz") &&
	    strcmp(what, "initrd") && strcmp(what, "disk")) {
		err("unknown file '%s' (kernel, vmlinuz, initrd or disk)",
		    what);
		return EXIT_USAGE;
	}
	ret = 1;
	if (guest_bindir_find(bindir, sizeof(bindir)) < 0)
		goto out;
	/* The kernel image alone: found before any image is built. */
	if (what && !strcmp(what, "vmlinuz") && !strcmp(a.kind, "tiny")) {
		if (guest_tiny_vmlinuz(bindir, "vmtax image path",
				       &f.vmlinuz) < 0)
			goto out;
		printf("%s\n", f.vmlinuz);
		ret = 0;
		goto out;
	}
	if (guest_files_resolve(a.kind, "auto", "auto", bindir,
				"vmtax image path", &f) < 0)
		goto out;
	if (what && !strcmp(what, "disk") && !f.disk) {
		err("image %s has no disk", a.kind);
		goto out;
	}
	if (!what) {
		printf("kernel %s\nvmlinuz %s\ninitrd %s\n", f.kernel,
		       f.vmlinuz, f.initrd);
		if (f.disk)
			printf("disk %s\n", f.disk);
	} else {
		printf("%s\n", !strcmp(what, "kernel")	  ? f.kernel
			       : !strcmp(what, "vmlinuz") ? f.vmlinuz
			       : !strcmp(what, "initrd")  ? f.initrd
							  : f.disk);
	}
	ret = 0;
out:
	guest_files_release(&f);
	return ret;
}

/*
 * vmtax image appliance: libguestfs's appliance launched as the debian and
 * lab builds launch it (image_appliance_check()), on a scratch disk.
 */
static int image_appliance(int argc, char **argv)
{
	char bindir[PATH_MAX];

	if (argc == 2 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 1) {
		err("unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (guest_bindir_find(bindir, sizeof(bindir)) < 0)
		return 1;
	return image_appliance_check(bindir) < 0 ? 1 : 0;
}

int cmd_image(int argc, char **argv)
{
	struct image_args a = { .o.kind = IMAGE_TINY };
	char *packages[WORKLOAD_PACKAGES_MAX], bindir[PATH_MAX];
	size_t npackages = 0, i;
	int first, ret = EXIT_USAGE;

	if (argc >= 2 && !strcmp(argv[1], "path"))
		return image_path(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "appliance"))
		return image_appliance(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "build")) {
		if (argc >= 2 &&
		    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			usage(stdout);
			return 0;
		}
		return opts_usage_error(usage);
	}
	first = opts_parse(build_opts, usage, &a, argc - 1, argv + 1);
	if (first < 0)
		return opts_status(first);
	if (first != argc - 1) {
		err("unexpected argument '%s'", argv[1 + first]);
		return EXIT_USAGE;
	}
	/* -o is a link vmtax (re)makes: refused before minutes of building */
	if (a.o.link && output_check_link(a.o.link) < 0)
		return EXIT_USAGE;
	/* The bin directory beside vmtax: where 'vmtax run' looks. */
	if (guest_bindir_find(bindir, sizeof(bindir)) < 0) {
		ret = 1;
		goto out;
	}
	a.o.bindir = bindir;
	if (a.o.kind != IMAGE_TINY) {
		if (workload_packages_all(layout_workloads_dir(bindir),
					  packages, WORKLOAD_PACKAGES_MAX,
					  &npackages) < 0)
			goto out;
		a.o.packages = (const char *const *)packages;
		a.o.npackages = npackages;
	}
	ret = image_build(&a.o) < 0 ? 1 : 0;
out:
	for (i = 0; i < npackages; i++)
		free(packages[i]);
	return ret;
}
