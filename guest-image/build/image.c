/* SPDX-License-Identifier: MIT */
/*
 * image.c - the image cache and the build of the tiny kind; the disk kinds
 * (debian, lab) are image-disk.c, recipes image-recipe.c, the root file
 * system image-rootfs.c, running a step image-step.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "guest-files.h"
#include "guest-kernel.h"
#include "image.h"
#include "image-build.h"
#include "image-recipe.h"
#include "image-step.h"
#include "layout.h"
#include "output.h"
#include "util.h"

#define DEFAULT_BINDIR "build/bin"

int image_kind_parse(const char *s, enum image_kind *out)
{
	if (!strcmp(s, "tiny"))
		*out = IMAGE_TINY;
	else if (!strcmp(s, GUEST_IMAGE_DEBIAN))
		*out = IMAGE_DEBIAN;
	else if (!strcmp(s, GUEST_IMAGE_LAB))
		*out = IMAGE_LAB;
	else
		return -EINVAL;
	return 0;
}

const char *const image_from_names[] = {
    [IMAGE_FROM_AUTO] = "auto",
    [IMAGE_FROM_PACKAGES] = "packages",
    [IMAGE_FROM_DEBOOTSTRAP] = "debootstrap",
    NULL,
};

int image_from_parse(const char *s, enum image_from *out)
{
	size_t i;

	for (i = 0; image_from_names[i]; i++)
		if (!strcmp(s, image_from_names[i])) {
			*out = (enum image_from)i;
			return 0;
		}
	return -EINVAL;
}

/* LINK -> TARGET (absolute), replaced atomically. */
int image_relink(const char *target, const char *link)
{
	char abs[PATH_MAX];
	char *tmp = NULL;
	int ret = -1;

	if (!realpath(target, abs)) {
		ret = err_errno("image: link: cannot resolve '%s'", target);
		goto out;
	}
	/* never renamed over a device, a file or a directory */
	ret = output_check_link(link);
	if (ret < 0)
		goto out;
	ret = -1;
	tmp = xasprintf("%s.tmp.%ld", link, (long)getpid());
	unlink(tmp);
	if (symlink(abs, tmp) < 0) {
		ret = err_errno("image: link: cannot create '%s'", tmp);
		goto out;
	}
	if (rename(tmp, link) < 0) {
		ret = err_errno("image: link: cannot rename '%s' to '%s'", tmp,
				link);
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

/* The result paths go to stdout, absolute, for scripts. */
void image_print_abs(const char *path)
{
	char abs[PATH_MAX];

	printf("%s\n", realpath(path, abs) ? abs : path);
}

int image_write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* Regular executable files of BINDIR, sorted; -errno on a read error. */
int image_list_binaries(const char *bindir, struct dirent ***ents)
{
	int n = scandir(bindir, ents, NULL, alphasort);
	int i, k = 0;

	if (n < 0)
		return err_errno("image: cannot read '%s' (run 'make tools')",
				 bindir);
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", bindir, (*ents)[i]->d_name);
		struct stat st;

		if ((*ents)[i]->d_name[0] != '.' && stat(p, &st) == 0 &&
		    S_ISREG(st.st_mode) && (st.st_mode & 0111))
			(*ents)[k++] = (*ents)[i];
		else
			free((*ents)[i]);
		free(p);
	}
	return k;
}

void image_free_ents(struct dirent **ents, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/* The agents a tiny image carries (mkinitramfs-tiny.sh), in BINDIR. */
int image_need_agents(const char *what, const char *bindir)
{
	static const char *const agents[] = {"vmtax-agent", "vmtax-agent-test"};
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(agents) && ret == 0; i++) {
		char *path = xasprintf("%s/%s", bindir, agents[i]);

		if (access(path, X_OK) < 0)
			ret = err("image: %s: no '%s' (run 'make')", what,
				  path);
		free(path);
	}
	return ret;
}

/* The kernel version of the tiny image: asked for, else the cache's. */
static int tiny_kver(const struct image_opts *o, const char *cache, char **kver)
{
	if (o->kver)
		*kver = xstrdup(o->kver);
	else if (guest_kernel_find(cache, NULL, kver) < 0)
		return err("image: tiny: no guest kernel in '%s/boot' or /boot "
			   "('make deps' unpacks Debian's linux-image there)",
			   cache);
	if (!is_safe_name(*kver))
		return err("image: tiny: bad kernel version '%s'", *kver);
	return 0;
}

/* The tiny image's recipe: kernel, modules, script, busybox, binaries. */
static int tiny_recipe(struct recipe *r, const char *kver, const char *moddir,
		       const char *script, const char *bindir)
{
	struct dirent **ents = NULL;
	int n, i, ret;

	recipe_add(r, "kind tiny\nkver %s\n", kver);
	if (moddir)
		recipe_add(r, "moddir %s\n", moddir);
	ret = recipe_add_script(r, "script", script, false);
	if (ret < 0)
		return ret;
	/* The script copies busybox in (BUSYBOX overrides the path). */
	ret = recipe_add_file(r, "busybox", layout_busybox());
	if (ret < 0)
		return ret;
	n = image_list_binaries(bindir, &ents);
	if (n < 0)
		return n;
	for (i = 0; i < n && ret == 0; i++) {
		char *bin = xasprintf("%s/%s", bindir, ents[i]->d_name);

		ret = recipe_add_file(r, "binary", bin);
		free(bin);
	}
	image_free_ents(ents, n);
	return ret;
}

/* mkinitramfs-tiny.sh into OUT, then the recipe R beside it at REC. */
static int tiny_make(const char *script, const char *kver, const char *moddir,
		     const char *bindir, const char *out, const char *rec,
		     const struct recipe *r, const char *key)
{
	char *env = xasprintf("MODDIR=%s", moddir ? moddir : "");
	char *const argv[] = {"env",	      env,	    "sh",
			      (char *)script, (char *)kver, (char *)out,
			      (char *)bindir, NULL};
	int ret;

	note("image: tiny: %s %s (recipe %s)...", script, kver, key);
	ret = image_step_run("tiny: mkinitramfs-tiny.sh",
			     moddir ? argv : argv + 2, NULL);
	free(env);
	if (ret < 0)
		return ret;
	return image_write_text(rec, r->text);
}

static int build_tiny(const struct image_opts *o, const char *dir,
		      const char *bindir)
{
	const char *script = o->script ? o->script : layout_tiny_script(bindir);
	struct recipe r;
	char key[17];
	char *kver = NULL, *out = NULL, *rec = NULL, *link = NULL;
	char *images = guest_images_dir_new(bindir), *moddir = NULL;
	char *cache = guest_kernel_cache_new(images);
	double t0 = mono_now();
	int ret;

	recipe_init(&r);
	ret = tiny_kver(o, cache, &kver);
	if (ret == 0)
		ret = image_need_agents("tiny", bindir);
	if (ret < 0)
		goto out;
	/* a kernel of the cache: its modules are in the cache too */
	moddir = guest_kernel_moddir_new(cache, kver);
	ret = tiny_recipe(&r, kver, moddir, script, bindir);
	if (ret < 0)
		goto out;
	recipe_key(&r, key, sizeof(key));
	out = xasprintf("%s/tiny-%s-%s.cpio.gz", dir, kver, key);
	rec = xasprintf("%s/tiny-%s-%s.recipe", dir, kver, key);
	link = o->link ? xstrdup(o->link) : guest_tiny_path_new(dir, kver);
	if (o->check) {
		if (o->would)
			*o->would = image_exists(rec) && image_exists(out)
					? IMAGE_WOULD_NOTHING
					: IMAGE_WOULD_SECONDS;
		note("image: tiny: %s: '%s'",
		     image_exists(rec) && image_exists(out) ? "up to date"
							    : "would be built",
		     out);
		goto out;
	}
	if (image_exists(rec) && image_exists(out)) {
		note("image: tiny: up to date: '%s'", out);
	} else {
		ret =
		    tiny_make(script, kver, moddir, bindir, out, rec, &r, key);
		if (ret < 0)
			goto out;
		note("image: tiny: built '%s' in %.1f s", out, mono_now() - t0);
	}
	ret = image_relink(out, link);
	if (ret < 0)
		goto out;
	if (!o->quiet)
		image_print_abs(out);
out:
	recipe_release(&r);
	free(images);
	free(cache);
	free(moddir);
	free(kver);
	free(out);
	free(rec);
	free(link);
	return ret;
}

int image_build(const struct image_opts *o)
{
	const char *bindir = o->bindir ? o->bindir : DEFAULT_BINDIR;
	char *dir = o->dir ? xstrdup(o->dir) : guest_images_dir_new(bindir);
	int ret;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		/* build/ itself may be missing in a fresh tree */
		char *parent = xstrdup(dir), *slash = strrchr(parent, '/');

		if (slash) {
			*slash = '\0';
			mkdir(parent, 0755);
		}
		free(parent);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			ret = err_errno("image: cannot create '%s'", dir);
			goto out;
		}
	}
	if (o->kind == IMAGE_TINY && o->from != IMAGE_FROM_AUTO)
		ret = err("image: tiny: --from %s is for the lab image",
			  image_from_names[o->from]);
	else if (o->kind == IMAGE_TINY)
		ret = build_tiny(o, dir, bindir);
	else
		ret = image_build_disk(o, dir, bindir);
out:
	free(dir);
	return ret;
}
