/* SPDX-License-Identifier: MIT */
/*
 * image.c - the image cache, the build of the tiny kind and every kind's
 * status (image_status()); the disk kinds (debian, lab) are image-disk.c,
 * recipes image-recipe.c, the root file system image-rootfs.c, running a
 * step image-step.c.
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

/* Whether LINK is in directory DIR (absolute, resolved), DLEN bytes. */
static bool link_in(const char *link, const char *dir, size_t dlen)
{
	const char *slash = strrchr(link, '/');
	char *ldir = !slash	     ? xstrdup(".")
		     : slash == link ? xstrdup("/")
				     : xstrndup(link, (size_t)(slash - link));
	char abs[PATH_MAX];
	bool in = realpath(ldir, abs) && strlen(abs) == dlen &&
		  !strncmp(abs, dir, dlen);

	free(ldir);
	return in;
}

/* LINK -> TARGET, replaced atomically: by its name alone when both are in
 * one directory (a moved or copied checkout's links stay its own), else
 * absolute. */
int image_relink(const char *target, const char *link)
{
	char abs[PATH_MAX];
	const char *to = abs, *base;
	char *tmp = NULL;
	int ret = -1;

	if (!realpath(target, abs)) {
		ret = err_errno("image: link: cannot resolve '%s'", target);
		goto out;
	}
	base = strrchr(abs, '/');
	if (base && link_in(link, abs, (size_t)(base - abs)))
		to = base + 1;
	/* never renamed over a device, a file or a directory */
	ret = output_check_link(link);
	if (ret < 0)
		goto out;
	ret = -1;
	tmp = xasprintf("%s.tmp.%ld", link, (long)getpid());
	unlink(tmp);
	if (symlink(to, tmp) < 0) {
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

/*
 * The tiny image's recipe: kernel, modules, script, busybox, binaries, by
 * their contents and names only (image-recipe.h), so that a checkout moved
 * or copied finds its image current.
 */
static int tiny_recipe(struct recipe *r, const char *kver, const char *moddir,
		       const char *script, const char *bindir)
{
	struct dirent **ents = NULL;
	int n, i, ret;

	recipe_add(r, "kind tiny\nkver %s\n", kver);
	/* the cache's modules of KVER, else the host's /lib/modules/KVER */
	recipe_add(r, "modules %s\n", moddir ? "kernel cache" : "host");
	ret = recipe_add_script(r, "script", script);
	if (ret < 0)
		return ret;
	/* The script copies busybox in (BUSYBOX overrides the path). */
	ret = recipe_add_content(r, "busybox", layout_busybox());
	if (ret < 0)
		return ret;
	n = image_list_binaries(bindir, &ents);
	if (n < 0)
		return n;
	for (i = 0; i < n && ret == 0; i++) {
		char *bin = xasprintf("%s/%s", bindir, ents[i]->d_name);
		char *what = xasprintf("binary %s", ents[i]->d_name);

		ret = recipe_add_content(r, what, bin);
		free(bin);
		free(what);
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

/* The tiny image of O's inputs as they are now, in DIR: what a build makes
 * and where, decided once for the build, its check and image_status(). */
struct tiny_plan {
	struct recipe r;
	char key[17];
	const char *script;
	char *kver, *moddir;
	char *out;  /* DIR/tiny-KVER-KEY.cpio.gz */
	char *rec;  /* DIR/tiny-KVER-KEY.recipe */
	char *link; /* o->link, else DIR/tiny-KVER.cpio.gz */
};

static void tiny_plan_release(struct tiny_plan *p)
{
	recipe_release(&p->r);
	free(p->kver);
	free(p->moddir);
	free(p->out);
	free(p->rec);
	free(p->link);
}

static int tiny_plan_make(const struct image_opts *o, const char *dir,
			  const char *bindir, struct tiny_plan *p)
{
	char *images = guest_images_dir_new(bindir);
	char *cache = guest_kernel_cache_new(images);
	int ret;

	memset(p, 0, sizeof(*p));
	recipe_init(&p->r);
	p->script = o->script ? o->script : layout_tiny_script(bindir);
	ret = tiny_kver(o, cache, &p->kver);
	if (ret == 0)
		ret = image_need_agents("tiny", bindir);
	if (ret < 0)
		goto out;
	/* a kernel of the cache: its modules are in the cache too */
	p->moddir = guest_kernel_moddir_new(cache, p->kver);
	ret = tiny_recipe(&p->r, p->kver, p->moddir, p->script, bindir);
	if (ret < 0)
		goto out;
	recipe_key(&p->r, p->key, sizeof(p->key));
	p->out = xasprintf("%s/tiny-%s-%s.cpio.gz", dir, p->kver, p->key);
	p->rec = xasprintf("%s/tiny-%s-%s.recipe", dir, p->kver, p->key);
	p->link =
	    o->link ? xstrdup(o->link) : guest_tiny_path_new(dir, p->kver);
out:
	free(images);
	free(cache);
	return ret;
}

/* The recipe beside AT, a build's file whose name ends in EXT; owned. */
static char *recipe_beside_new(const char *at, const char *ext)
{
	size_t n = strlen(at), x = strlen(ext);

	if (n <= x || strcmp(at + n - x, ext))
		return NULL;
	return xasprintf("%.*s.recipe", (int)(n - x), at);
}

bool image_link_recipe_value(const char *link, const char *ext, const char *key,
			     char *buf, size_t len)
{
	char at[PATH_MAX], *rec, *text = NULL;
	const char *p, *e;
	size_t k = strlen(key);
	bool found = false;

	rec = realpath(link, at) ? recipe_beside_new(at, ext) : NULL;
	if (!rec || read_file(rec, 1 << 20, &text, NULL) < 0)
		goto out;
	for (p = text; *p && !found; p = *e ? e + 1 : e) {
		e = strchrnul(p, '\n');
		found = !strncmp(p, key, k) && p[k] == ' ';
		if (found)
			snprintf(buf, len, "%.*s", (int)(e - p - k - 1),
				 p + k + 1);
	}
out:
	free(rec);
	free(text);
	return found;
}

void image_status_of(struct image_status *st, const char *link,
		     const char *want, const char *rec, const char *text,
		     const char *ext)
{
	char at[PATH_MAX], wabs[PATH_MAX], *oldrec, *old = NULL;
	struct stat lst;

	memset(st, 0, sizeof(*st));
	st->link = xstrdup(link);
	st->want = xstrdup(want);
	if (lstat(link, &lst) < 0) {
		st->state = IMAGE_MISSING;
		return;
	}
	if (realpath(link, at) && realpath(want, wabs) && !strcmp(at, wabs) &&
	    image_exists(rec)) {
		st->state = IMAGE_CURRENT;
		return;
	}
	st->state = IMAGE_STALE;
	if (!realpath(link, at)) {
		snprintf(st->what, sizeof(st->what), "it is a link to nothing");
		return;
	}
	st->was = xstrdup(at);
	oldrec = recipe_beside_new(at, ext);
	if (!oldrec || read_file(oldrec, 1 << 20, &old, NULL) < 0)
		snprintf(st->what, sizeof(st->what),
			 "its recipe ('%.400s') is missing",
			 oldrec ? oldrec : at);
	else
		recipe_diff(old, text, st->what, sizeof(st->what));
	free(oldrec);
	free(old);
}

/* ST of plan P: is P's link the build P would make? */
static void tiny_plan_status(const struct tiny_plan *p, struct image_status *st)
{
	image_status_of(st, p->link, p->out, p->rec, p->r.text, ".cpio.gz");
}

int image_status(const struct image_opts *o, struct image_status *st)
{
	const char *bindir = o->bindir ? o->bindir : DEFAULT_BINDIR;
	char *dir = o->dir ? xstrdup(o->dir) : guest_images_dir_new(bindir);
	struct tiny_plan p;
	int ret;

	memset(st, 0, sizeof(*st));
	if (o->kind != IMAGE_TINY) {
		ret = image_disk_status(o, dir, bindir, st);
		goto out;
	}
	ret = tiny_plan_make(o, dir, bindir, &p);
	if (ret == 0)
		tiny_plan_status(&p, st);
	tiny_plan_release(&p);
out:
	free(dir);
	return ret;
}

const char *image_state_name(enum image_state s)
{
	static const char *const names[] = {
	    [IMAGE_CURRENT] = "current",
	    [IMAGE_MISSING] = "missing",
	    [IMAGE_STALE] = "stale",
	};

	return names[s];
}

void image_status_release(struct image_status *st)
{
	free(st->link);
	free(st->want);
	free(st->was);
	memset(st, 0, sizeof(*st));
}

static int build_tiny(const struct image_opts *o, const char *dir,
		      const char *bindir)
{
	struct tiny_plan p;
	struct image_status st = {0};
	double t0 = mono_now();
	bool built;
	int ret;

	ret = tiny_plan_make(o, dir, bindir, &p);
	if (ret < 0)
		goto out;
	tiny_plan_status(&p, &st);
	built = image_exists(p.rec) && image_exists(p.out);
	if (st.state == IMAGE_STALE)
		note("image: tiny: '%s' is stale: built from other inputs than "
		     "now (changed: %s)",
		     st.link, st.what);
	else if (st.state == IMAGE_MISSING && o->check)
		note("image: tiny: '%s' is missing: never built", st.link);
	if (o->check && o->recipe)
		fputs(p.r.text, stdout);
	if (o->check) {
		if (o->would)
			*o->would = st.state == IMAGE_CURRENT || built
					? IMAGE_WOULD_NOTHING
					: IMAGE_WOULD_SECONDS;
		note("image: tiny: %s: '%s'",
		     st.state == IMAGE_CURRENT ? "up to date"
		     : built		       ? "built, would be linked"
					       : "would be built",
		     p.out);
		goto out;
	}
	if (built) {
		note("image: tiny: up to date: '%s'", p.out);
	} else {
		ret = tiny_make(p.script, p.kver, p.moddir, bindir, p.out,
				p.rec, &p.r, p.key);
		if (ret < 0)
			goto out;
		note("image: tiny: built '%s' in %.1f s", p.out,
		     mono_now() - t0);
	}
	ret = image_relink(p.out, p.link);
	if (ret < 0)
		goto out;
	if (!o->quiet)
		image_print_abs(p.out);
out:
	image_status_release(&st);
	tiny_plan_release(&p);
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
