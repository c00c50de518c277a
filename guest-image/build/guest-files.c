// SPDX-License-Identifier: MIT
#include "guest-files.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "guest-kernel.h"
#include "guest-pvh.h"
#include "layout.h"
#include "util.h"

int guest_bindir_find(char *buf, size_t len)
{
	char exe[PATH_MAX];
	int ret = layout_bin_find(buf, len, exe, sizeof(exe));

	if (ret == -ENOENT)
		return err("cannot find the workload binaries next to '%s' "
			   "(run 'make' first)",
			   exe);
	if (ret < 0)
		return err_code(ret, "cannot read /proc/self/exe");
	return 0;
}

/* BINDIR's sibling NAME: "X/bin" -> "X/NAME", else BINDIR/../NAME. */
static char *bin_sibling_new(const char *bindir, const char *name)
{
	size_t n = strlen(bindir);

	while (n > 1 && bindir[n - 1] == '/')
		n--;
	if (n >= 4 && !strncmp(bindir + n - 4, "/bin", 4))
		return xasprintf("%.*s/%s", (int)(n - 4), bindir, name);
	if (n == 3 && !strncmp(bindir, "bin", 3))
		return xstrdup(name);
	return xasprintf("%.*s/../%s", (int)n, bindir, name);
}

char *guest_images_dir_new(const char *bindir)
{
	if (layout_installed_bin(bindir))
		return xasprintf("%s/images", layout_dirs()->cachedir);
	return bin_sibling_new(bindir, "images");
}

char *guest_srcdir_new(const char *bindir)
{
	if (layout_installed_bin(bindir))
		return xasprintf("%s/src", layout_dirs()->cachedir);
	return bin_sibling_new(bindir, "src");
}

char *guest_image_cache_new(void)
{
	const char *env = getenv(ENV_IMAGE_CACHE);

	if (env && *env)
		return xstrdup(env);
	return xasprintf("%s/images", layout_dirs()->cachedir);
}

char *guest_tiny_path_new(const char *images_dir, const char *kver)
{
	return xasprintf("%s/tiny-%s.cpio.gz", images_dir, kver);
}

char *guest_disk_path_new(const char *images_dir, const char *kind,
			  const char *ext)
{
	return xasprintf("%s/%s.%s", images_dir, kind, ext);
}

char *guest_debian_path_new(const char *images_dir, const char *ext)
{
	return guest_disk_path_new(images_dir, GUEST_IMAGE_DEBIAN, ext);
}

void guest_files_release(struct guest_files *f)
{
	free(f->kernel);
	free(f->vmlinuz);
	free(f->initrd);
	free(f->disk);
	free(f->overlay_dir);
	f->kernel = f->vmlinuz = f->initrd = f->disk = f->overlay_dir = NULL;
}

/* Replace *PATH by its canonical name (links resolved). */
static int pin_path(char **path)
{
	char *real = realpath(*path, NULL);

	if (!real)
		return err_errno("cannot resolve '%s'", *path);
	free(*path);
	*path = real;
	return 0;
}

/* Whether guest file PATH (WHAT: "kernel", "initramfs") is missing: WHY
 * says so. */
static bool file_missing(const char *what, const char *path, char *why,
			 size_t len)
{
	if (access(path, R_OK) == 0)
		return false;
	snprintf(why, len, "guest %s '%s' is missing", what, path);
	return true;
}

/* A guest kernel or initramfs must be readable; HINT ends the message. */
static int guest_file_ok(const char *config_path, const char *what,
			 const char *path, const char *hint)
{
	char why[PATH_MAX + 64];

	if (!file_missing(what, path, why, sizeof(why)))
		return 0;
	fprintf(stderr, "%s: %s%s\n", config_path, why, hint);
	return -EINVAL;
}

void guest_overlays_sweep(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, *path;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end != '-' || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(path) == 0)
			note("removed '%s', left by a run that was killed",
			     path);
		free(path);
	}
	closedir(d);
}

/*
 * Whether the files of disk image KIND (GUEST_IMAGE_DEBIAN or
 * GUEST_IMAGE_LAB) in IMAGES are there, with KERNEL and INITRD ("auto":
 * the image's own), as guest_files_check() answers: 0,
 * GUEST_FILES_UNBUILT or -ENOENT, WHY saying what, FIX how to get them.
 * Changes nothing.
 */
static int disk_missing(const char *kind, const char *images,
			const char *kernel, const char *initrd, char *why,
			size_t wlen, char *fix, size_t flen)
{
	bool kauto = !strcmp(kernel, "auto"), iauto = !strcmp(initrd, "auto");
	char *disk = guest_disk_path_new(images, kind, "qcow2");
	char *k = kauto ? guest_disk_path_new(images, kind, "vmlinuz")
			: xstrdup(kernel);
	char *i = iauto ? guest_disk_path_new(images, kind, "initrd")
			: xstrdup(initrd);
	int ret = 0;

	if (access(disk, R_OK) < 0 || (kauto && access(k, R_OK) < 0) ||
	    (iauto && access(i, R_OK) < 0)) {
		snprintf(why, wlen,
			 "image = %s, but there is no built image ('%s')",
			 kind, disk);
		snprintf(fix, flen, "run 'vmtax image build --kind %s' first",
			 kind);
		ret = GUEST_FILES_UNBUILT;
	} else if (file_missing("kernel", k, why, wlen) ||
		   file_missing("initramfs", i, why, wlen)) {
		snprintf(fix, flen, "give [guest] %s a file that is there",
			 access(k, R_OK) < 0 ? "kernel" : "initrd");
		ret = -ENOENT;
	}
	free(disk);
	free(k);
	free(i);
	return ret;
}

int guest_files_check(const char *image, const char *kernel,
		      const char *initrd, const char *bindir, char *why,
		      size_t wlen, char *fix, size_t flen)
{
	char *images = guest_images_dir_new(bindir), *k = NULL, *tiny = NULL;
	int ret = -ENOENT;

	if (!strcmp(image, GUEST_IMAGE_DEBIAN) ||
	    !strcmp(image, GUEST_IMAGE_LAB)) {
		ret = disk_missing(image, images, kernel, initrd, why, wlen,
				   fix, flen);
		goto out;
	}
	if (strcmp(image, "tiny")) {
		snprintf(why, wlen, "unknown guest image '%s'", image);
		snprintf(fix, flen, "give [guest] image tiny, debian or lab");
		ret = -EINVAL;
		goto out;
	}
	if (!strcmp(kernel, "auto")) {
		char *cache = guest_kernel_cache_new(images);

		if (guest_kernel_find(cache, &k, NULL) < 0) {
			snprintf(why, wlen,
				 "no guest kernel: none in '%s/boot' or /boot",
				 cache);
			snprintf(fix, flen, "'make deps' unpacks Debian's "
					    "linux-image there");
		}
		free(cache);
		if (!k)
			goto out;
	} else if (file_missing("kernel", kernel, why, wlen)) {
		snprintf(fix, flen, "give [guest] kernel a file that is there");
		goto out;
	}
	if (strcmp(initrd, "auto")) {
		if (file_missing("initramfs", initrd, why, wlen))
			snprintf(fix, flen,
				 "give [guest] initrd a file that is there");
		else
			ret = 0;
		goto out;
	}
	tiny = guest_tiny_path_new(images,
				   guest_kernel_version(k ? k : kernel));
	ret = access(tiny, R_OK) == 0 ? 0 : GUEST_FILES_FIRST_USE;
out:
	free(tiny);
	free(k);
	free(images);
	return ret;
}

/* A disk image kind (GUEST_IMAGE_DEBIAN or GUEST_IMAGE_LAB). */
static int resolve_disk(const char *kind, const char *images,
			const char *kernel, const char *initrd,
			const char *config_path, struct guest_files *f)
{
	bool kauto = !strcmp(kernel, "auto"), iauto = !strcmp(initrd, "auto");
	char why[2 * PATH_MAX], fix[256];

	if (disk_missing(kind, images, kernel, initrd, why, sizeof(why), fix,
			 sizeof(fix))) {
		fprintf(stderr, "%s: %s; %s\n", config_path, why, fix);
		return -EINVAL;
	}
	f->disk = guest_disk_path_new(images, kind, "qcow2");
	f->kernel = kauto ? guest_disk_path_new(images, kind, "vmlinuz")
			  : xstrdup(kernel);
	f->initrd = iauto ? guest_disk_path_new(images, kind, "initrd")
			  : xstrdup(initrd);
	f->overlay_dir = xasprintf("%s/overlays", images);
	if (mkdir(f->overlay_dir, 0755) < 0 && errno != EEXIST)
		return err_errno("cannot create '%s'", f->overlay_dir);
	guest_overlays_sweep(f->overlay_dir);
	return pin_path(&f->disk);
}

/* The guest kernel of IMAGES' cache, else /boot, into *PATH (new). */
static int tiny_kernel_auto(const char *images, const char *config_path,
			    char **path)
{
	char *cache = guest_kernel_cache_new(images);
	int r = guest_kernel_find(cache, path, NULL);

	if (r < 0)
		fprintf(stderr,
			"%s: no guest kernel: none in '%s/boot' or "
			"/boot ('make deps' unpacks Debian's "
			"linux-image there)\n",
			config_path, cache);
	free(cache);
	return r < 0 ? -EINVAL : 0;
}

static int resolve_tiny(const char *images, const char *kernel,
			const char *initrd, const char *config_path,
			struct guest_files *f)
{
	if (!strcmp(kernel, "auto")) {
		if (tiny_kernel_auto(images, config_path, &f->kernel) < 0)
			return -EINVAL;
	} else {
		f->kernel = xstrdup(kernel);
	}
	if (guest_file_ok(config_path, "kernel", f->kernel, "") < 0)
		return -EINVAL;
	f->initrd =
	    strcmp(initrd, "auto")
		? xstrdup(initrd)
		: guest_tiny_path_new(images, guest_kernel_version(f->kernel));
	return guest_file_ok(config_path, "initramfs", f->initrd,
			     " (run 'vmtax image build --kind tiny' or "
			     "'make image-tiny')");
}

/*
 * F->vmlinuz is the kernel image; for KERNEL "auto" the guest boots its ELF
 * through PVH when it has one (guest-pvh.h), else the image itself.
 */
static int boot_pvh(const char *images, const char *kernel,
		    struct guest_files *f)
{
	char *elf = NULL;
	int ret = 0;

	f->vmlinuz = xstrdup(f->kernel);
	if (!strcmp(kernel, "auto"))
		ret = guest_pvh_for(images, f->vmlinuz, &elf);
	if (ret == 0 && elf) {
		free(f->kernel);
		f->kernel = elf;
	}
	return ret == -ENOTSUP ? 0 : ret;
}

int guest_files_resolve(const char *image, const char *kernel,
			const char *initrd, const char *bindir,
			const char *config_path, struct guest_files *f)
{
	char *images = guest_images_dir_new(bindir);
	int ret;

	memset(f, 0, sizeof(*f));
	if (!strcmp(image, GUEST_IMAGE_DEBIAN) ||
	    !strcmp(image, GUEST_IMAGE_LAB))
		ret =
		    resolve_disk(image, images, kernel, initrd, config_path, f);
	else if (!strcmp(image, "tiny"))
		ret = resolve_tiny(images, kernel, initrd, config_path, f);
	else {
		fprintf(stderr,
			"%s: unknown guest image '%s' (tiny, debian or lab)\n",
			config_path, image);
		ret = -EINVAL;
	}
	/* Pin the files: a new 'image build' meanwhile moves the links. */
	if (ret == 0)
		ret = pin_path(&f->kernel);
	if (ret == 0)
		ret = pin_path(&f->initrd);
	if (ret == 0)
		ret = boot_pvh(images, kernel, f);
	if (ret < 0)
		guest_files_release(f);
	free(images);
	return ret;
}

int guest_tiny_vmlinuz(const char *bindir, const char *config_path,
		       char **path)
{
	char *images = guest_images_dir_new(bindir);
	int ret;

	*path = NULL;
	ret = tiny_kernel_auto(images, config_path, path);

	if (ret == 0)
		ret = guest_file_ok(config_path, "kernel", *path, "");
	if (ret == 0)
		ret = pin_path(path);
	if (ret < 0) {
		free(*path);
		*path = NULL;
	}
	free(images);
	return ret;
}

/* qemu-img create -f qcow2 -F qcow2 -b BACKING PATH */
int guest_overlay_on(const char *backing, const char *path)
{
	const char *argv[] = {"qemu-img", "create", "-q",    "-f",
			      "qcow2",	  "-F",	    "qcow2", "-b",
			      backing,	  path,	    NULL};
	int status;
	pid_t pid;

	unlink(path);
	pid = fork();
	if (pid < 0)
		return err_errno("cannot fork qemu-img");
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return err_errno("cannot wait for qemu-img");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return err("qemu-img could not create '%s' on '%s'", path,
			   backing);
	return 0;
}

/* A big-endian N-byte number at P. */
static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

bool guest_overlay_usable(const char *path)
{
	unsigned char h[20];
	char name[PATH_MAX], *dir = NULL, *full;
	uint64_t off, len;
	bool ok = false;
	FILE *f;

	if (access(path, R_OK | W_OK) < 0 || !(f = fopen(path, "rb")))
		return false;
	if (fread(h, 1, sizeof(h), f) != sizeof(h) ||
	    memcmp(h, "QFI\xfb", 4))
		goto out;
	off = be(h + 8, 8);
	len = be(h + 16, 4);
	if (!off) {
		ok = true;
		goto out;
	}
	if (len >= sizeof(name) || fseek(f, (long)off, SEEK_SET) < 0 ||
	    fread(name, 1, len, f) != len)
		goto out;
	name[len] = '\0';
	dir = xstrdup(path);
	full = name[0] == '/' ? xstrdup(name)
			      : xasprintf("%s/%s", dirname(dir), name);
	ok = access(full, R_OK) == 0;
	free(full);
out:
	free(dir);
	fclose(f);
	return ok;
}

static int overlay_create_at(const struct guest_files *f, const char *path)
{
	return guest_overlay_on(f->disk, path);
}

int guest_overlay_create(const struct guest_files *f, const char *tag,
			 char **path)
{
	*path = xasprintf("%s/%d-%s.qcow2", f->overlay_dir, (int)getpid(), tag);
	return overlay_create_at(f, *path);
}

int guest_overlay_kept(const struct guest_files *f, const char *tag,
		       bool reuse, char **path)
{
	*path = xasprintf("%s/kept-%s.qcow2", f->overlay_dir, tag);
	if (reuse && access(*path, R_OK | W_OK) == 0)
		return 0;
	return overlay_create_at(f, *path);
}
