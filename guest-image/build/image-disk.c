/* SPDX-License-Identifier: MIT */
/*
 * image-disk.c - the builds of the disk image kinds (debian, lab): their
 * recipes, computed without building (image_disk_status()), and the disk
 * assembled with gfs.h; the kinds' texts and packages are
 * image-disk-kinds.c, the root file system image-rootfs.c, libguestfs's
 * appliance image-appliance.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "gfs.h"
#include "guest-files.h"
#include "guest-kernel.h"
#include "guest-pvh.h"
#include "host-packages.h"
#include "host.h"
#include "image.h"
#include "image-build.h"
#include "image-disk-kinds.h"
#include "image-hostdisk.h"
#include "image-recipe.h"
#include "image-rootfs.h"
#include "image-step.h"
#include "layout.h"
#include "proto.h"
#include "util.h"

#define DISK_SIZE (8ULL << 30)

/* LINK without a trailing ".qcow2": where the kernel and initrd links go. */
static char *link_base_new(const char *link)
{
	size_t n = strlen(link);

	if (n > 6 && !strcmp(link + n - 6, ".qcow2"))
		n -= 6;
	return xstrndup(link, n);
}

/* The tiny image of kernel KVER, from the modules in MODDIR, into OUT. */
static int build_tiny_for(const char *moddir, const char *kver,
			  const char *bindir, const char *out)
{
	char *env = xasprintf("MODDIR=%s", moddir);
	char *const argv[] = {"env",
			      env,
			      "sh",
			      (char *)layout_tiny_script(bindir),
			      (char *)kver,
			      (char *)out,
			      (char *)bindir,
			      NULL};
	int ret;

	note("image: lab: the tiny image of the lab's kernel %s...", kver);
	ret = image_step_run("tiny: mkinitramfs-tiny.sh", argv, NULL);
	free(env);
	return ret;
}

#define DISK_MAX_FILES 64

/*
 * One disk image build: its inputs (suite, mirror, packages), its two
 * recipes (the root file system's, inside the image's), the files put into
 * it, and the paths it writes.  disk_build_release() frees it all.
 */
struct disk_build {
	const struct image_opts *o;
	const struct disk_kind *k;
	/* DIR: the image's files (the shared cache for k->shared); IMAGES:
	 * the images directory of BINDIR (the links, the kernel cache) */
	const char *dir, *images, *bindir;
	char *cache;
	int lock; /* flock of the build, -1 */
	char suite[64], mirror[512], rkey[17], key[17];
	char *packages, *apt, *rootfs;
	struct recipe rr, r;
	struct dirent **ents;
	int nents;
	struct gfs_file files[DISK_MAX_FILES];
	char *paths[DISK_MAX_FILES], *remotes[DISK_MAX_FILES];
	size_t nfiles;
	char *tiny, *tiny_remote, *kver;
	char *pvh, *pvh_remote; /* the PVH kernel for vmtax inside, or NULL */
	char *base, *rec, *qcow2, *kernel, *initrd, *tar;
	char *tq, *tk, *ti; /* the new image under temporary names */
	char *link, *lk, *li;
	bool host; /* from the host's packages (hd), not debootstrap */
	bool status_only; /* image_disk_status(): no notes of the build's */
	struct hostdisk hd;
	char *stage; /* hd's tree */
};

/* KEY's value in the recipe of the image B's link names now, into BUF. */
static bool disk_kept(const struct disk_build *b, const char *key, char *buf,
		      size_t len)
{
	char *link = b->o->link
			 ? xstrdup(b->o->link)
			 : guest_disk_path_new(b->images, b->k->name, "qcow2");
	bool found = image_link_recipe_value(link, ".qcow2", key, buf, len);

	free(link);
	return found;
}

/*
 * The suite, mirror and debootstrap packages, checked.  The suite and the
 * mirror are choices of a build ('--suite', '--mirror'), not inputs that
 * go stale: given none, a build or its check keeps those of the image it
 * would replace, else takes the host's.
 */
static int disk_source(struct disk_build *b)
{
	const struct image_opts *o = b->o;
	int ret;

	if (o->suite)
		snprintf(b->suite, sizeof(b->suite), "%s", o->suite);
	else if (!disk_kept(b, "suite", b->suite, sizeof(b->suite)) &&
		 (ret = image_host_suite(b->suite, sizeof(b->suite))) < 0)
		return ret;
	if (!is_safe_name(b->suite))
		return err("image: debian: bad suite '%s'", b->suite);
	if (o->mirror)
		snprintf(b->mirror, sizeof(b->mirror), "%s", o->mirror);
	else if (!disk_kept(b, "mirror", b->mirror, sizeof(b->mirror)))
		image_host_mirror(b->suite, b->mirror, sizeof(b->mirror));
	if (strncmp(b->mirror, "http://", 7) &&
	    strncmp(b->mirror, "https://", 8) &&
	    strncmp(b->mirror, "file:/", 6))
		return err("image: debian: mirror '%s' is not an http(s):// or "
			   "file:/ URL",
			   b->mirror);
	return image_package_list(o, &b->packages);
}

/* The root file system: only what debootstrap sees; its key names it. */
static void disk_rootfs_recipe(struct disk_build *b)
{
	const struct disk_kind *k = b->k;
	size_t i;

	recipe_add(&b->rr, "debootstrap %s\nsuite %s\nmirror %s\npackages %s\n",
		   DEBOOTSTRAP_VARIANT, b->suite, b->mirror, b->packages);
	for (i = 0; i < k->napt; i++) {
		char *prev = b->apt;

		b->apt = xasprintf("%s%s%s", prev ? prev : "", prev ? " " : "",
				   k->apt[i]);
		free(prev);
	}
	if (b->apt)
		recipe_add(&b->rr, "apt-get install %s\n", b->apt);
	recipe_key(&b->rr, b->rkey, sizeof(b->rkey));
	b->rootfs = xasprintf("%s/rootfs-%s", b->dir, b->rkey);
}

/* File PATH's line in B's recipe: by its contents alone (image-recipe.h),
 * so that a moved or copied checkout's image stays current. */
static int disk_recipe_file(struct disk_build *b, const char *what,
			    const char *path)
{
	return recipe_add_content(&b->r, what, path);
}

/*
 * The binaries of BINDIR (but the agent's test build) into the file list and
 * the recipe: the agent to /usr/local/sbin, the rest to /opt/vmtax/bin.
 */
static int disk_add_binaries(struct disk_build *b)
{
	const char *agent = "/usr/local/sbin/vmtax-agent";
	size_t i;
	int ret = 0;

	b->nents = image_list_binaries(b->bindir, &b->ents);
	if (b->nents < 0) {
		ret = b->nents;
		b->nents = 0;
		return ret;
	}
	for (i = 0; i < (size_t)b->nents; i++) {
		const char *name = b->ents[i]->d_name;
		size_t f = b->nfiles;

		if (!strcmp(name, "vmtax-agent-test"))
			continue;
		/* room for the tiny image and the PVH kernel (disk_tiny()) */
		if (f + 3 >= DISK_MAX_FILES)
			return err("image: %s: more than %d binaries in '%s'",
				   b->k->name, DISK_MAX_FILES - 3, b->bindir);
		b->paths[f] = xasprintf("%s/%s", b->bindir, name);
		b->remotes[f] = !strcmp(name, "vmtax-agent")
				    ? xstrdup(agent)
				    : xasprintf("/opt/vmtax/bin/%s", name);
		b->files[f].local = b->paths[f];
		b->files[f].remote = b->remotes[f];
		b->files[f].mode = 0755;
		ret = disk_recipe_file(b, b->remotes[f], b->paths[f]);
		b->nfiles++;
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < b->nfiles; i++)
		if (!strcmp(b->remotes[i], agent))
			return 0;
	return err("image: %s: no '%s/vmtax-agent' (run 'make')", b->k->name,
		   b->bindir);
}

/*
 * The static busybox (layout.h layout_busybox()) at LAYOUT_BUSYBOX: the
 * workload commands' shell, the one the tiny guest and bare-metal cells run
 * them with.
 */
static int disk_add_busybox(struct disk_build *b)
{
	size_t f = b->nfiles;

	/* room for the tiny image and the PVH kernel (disk_tiny()) */
	if (f + 3 >= DISK_MAX_FILES)
		return err("image: %s: more than %d files to put in",
			   b->k->name, DISK_MAX_FILES - 3);
	b->paths[f] = xstrdup(layout_busybox());
	b->remotes[f] = xstrdup(LAYOUT_BUSYBOX);
	b->files[f].local = b->paths[f];
	b->files[f].remote = b->remotes[f];
	b->files[f].mode = 0755;
	b->nfiles++;
	return disk_recipe_file(b, b->remotes[f], b->paths[f]);
}

/*
 * The source sets of BINDIR (guest-files.h guest_srcdir_new(): the *.tar
 * files 'make' made there) into the file list and the recipe, at
 * GUEST_SRCDIR; none is said, not an error (a host without linux-source
 * builds images all the same, and ccbuild's setup names what is missing).
 */
static int disk_add_srcsets(struct disk_build *b)
{
	char *dir = guest_srcdir_new(b->bindir);
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort), i, ret = 0;

	if (n < 0) {
		if (!b->status_only)
			note("image: %s: no source sets in '%s' (ccbuild's: "
			     "'make' makes them where linux-source is "
			     "installed)",
			     b->k->name, dir);
		n = 0;
	}
	for (i = 0; i < n && ret == 0; i++) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name), f = b->nfiles;
		struct stat st;
		char *path;

		if (len < 5 || strcmp(name + len - 4, ".tar"))
			continue;
		path = xasprintf("%s/%s", dir, name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		/* room for the tiny image and the PVH kernel (disk_tiny()) */
		if (f + 3 >= DISK_MAX_FILES) {
			free(path);
			ret = err("image: %s: more than %d files to put in",
				  b->k->name, DISK_MAX_FILES - 3);
			break;
		}
		b->paths[f] = path;
		b->remotes[f] = xasprintf(GUEST_SRCDIR "/%s", name);
		b->files[f].local = b->paths[f];
		b->files[f].remote = b->remotes[f];
		b->files[f].mode = 0644;
		b->nfiles++;
		ret = disk_recipe_file(b, b->remotes[f], b->paths[f]);
	}
	image_free_ents(ents, n);
	free(dir);
	return ret;
}

/* The image: the root file system plus everything put into it. */
static int disk_recipe(struct disk_build *b)
{
	const struct disk_kind *k = b->k;
	size_t i;
	int ret;

	recipe_add(&b->r, "kind %s\nsize %llu\n%s", k->name,
		   (unsigned long long)DISK_SIZE, b->rr.text);
	for (i = 0; i < DISK_COMMON_TEXTS; i++)
		recipe_add(&b->r, "text %s\n%s", disk_common_texts[i].remote,
			   disk_common_texts[i].text);
	for (i = 0; i < k->ntexts; i++)
		recipe_add(&b->r, "text %s\n%s", k->texts[i].remote,
			   k->texts[i].text);
	for (i = 0; i < DISK_COMMON_LINKS - (size_t)!k->vmtax; i++)
		recipe_add(&b->r, "link %s -> %s\n",
			   disk_common_links[i].remote,
			   disk_common_links[i].target);
	ret = disk_add_binaries(b);
	if (ret == 0)
		ret = disk_add_busybox(b);
	if (ret == 0)
		ret = disk_add_srcsets(b);
	if (ret < 0)
		return ret;
	if (k->vmtax) {
		/* The tiny image inside carries the agent's test build too:
		 * said now, not after the root file system's minutes. */
		ret = image_need_agents(k->name, b->bindir);
		if (ret < 0)
			return ret;
		/*
		 * The inputs of the tiny image of the image's kernel (the
		 * kernel is the root file system's).  vmtax itself is not in
		 * the image: 'vmtax lab run' puts its own binary at
		 * GUEST_LAB_VMTAX each time, so a changed vmtax needs no new
		 * image.
		 */
		recipe_add(&b->r, "tiny kernel booted through PVH\n");
		ret = recipe_add_script(&b->r, "tiny script",
					layout_tiny_script(b->bindir));
		if (ret == 0)
			ret = disk_recipe_file(b, "tiny busybox",
					       layout_busybox());
		if (ret < 0)
			return ret;
	}
	recipe_key(&b->r, b->key, sizeof(b->key));
	return 0;
}

/* The image's files (named by its key) and the links to them. */
static void disk_name_paths(struct disk_build *b)
{
	char *lbase;

	b->base = xasprintf("%s/%s-%s", b->dir, b->k->name, b->key);
	b->rec = xasprintf("%s.recipe", b->base);
	b->qcow2 = xasprintf("%s.qcow2", b->base);
	b->kernel = xasprintf("%s.vmlinuz", b->base);
	b->initrd = xasprintf("%s.initrd", b->base);
	b->link = b->o->link
		      ? xstrdup(b->o->link)
		      : guest_disk_path_new(b->images, b->k->name, "qcow2");
	lbase = link_base_new(b->link);
	b->lk = xasprintf("%s.vmlinuz", lbase);
	b->li = xasprintf("%s.initrd", lbase);
	free(lbase);
}

/*
 * For kinds with vmtax: the tiny image of kernel KVER into the files, and
 * the PVH ELF of its image VMLINUZ (guest-pvh.h) beside it, so that vmtax
 * inside boots its guests through PVH without unpacking it there (under
 * TCG: seconds, and on a disk a restored lab throws away).
 */
static int disk_tiny(struct disk_build *b, const char *moddir,
		     const char *kver, const char *vmlinuz)
{
	struct gfs_file *f;
	int ret;

	if (!b->k->vmtax)
		return 0;
	b->tiny = xasprintf("%s.tiny.cpio.gz", b->base);
	ret = build_tiny_for(moddir, kver, b->bindir, b->tiny);
	if (ret < 0)
		return ret;
	b->tiny_remote = guest_tiny_path_new(GUEST_LAB_IMAGES, kver);
	f = &b->files[b->nfiles++];
	f->local = b->tiny;
	f->remote = b->tiny_remote;
	f->mode = 0644;
	ret = guest_pvh_for(b->dir, vmlinuz, &b->pvh);
	if (ret == -ENOTSUP)
		return 0;
	if (ret < 0)
		return ret;
	b->pvh_remote = xasprintf(GUEST_LAB_IMAGES "/%s", path_base(b->pvh));
	f = &b->files[b->nfiles++];
	f->local = b->pvh;
	f->remote = b->pvh_remote;
	f->mode = 0644;
	return 0;
}

/* The root file system, reused or debootstrap'ed, and its tiny image. */
static int disk_rootfs(struct disk_build *b)
{
	char *moddir, *vmlinuz = NULL;
	int ret;

	if (image_exists(b->rootfs)) {
		note("image: debootstrap: reusing '%s'", b->rootfs);
	} else {
		ret = image_debootstrap(b->rootfs, b->suite, b->mirror,
					b->packages, b->apt);
		if (ret < 0)
			return ret;
	}
	if (!b->k->vmtax)
		return 0;
	if (guest_kernel_newest(b->rootfs, &vmlinuz, &b->kver) < 0)
		return err("image: lab: no kernel in '%s/boot'", b->rootfs);
	moddir = xasprintf("%s/lib/modules/%s", b->rootfs, b->kver);
	ret = disk_tiny(b, moddir, b->kver, vmlinuz);
	free(moddir);
	free(vmlinuz);
	return ret;
}

/*
 * Whether B is built from the host's packages (its kind has host roots and
 * the host has them, and a guest kernel); if so, the tree's recipe.
 */
static int disk_choose(struct disk_build *b)
{
	const struct disk_kind *k = b->k;
	int ret;

	if (b->o->from == IMAGE_FROM_PACKAGES && !k->host)
		return err("image: %s: --from packages is for the lab image",
			   k->name);
	if (!k->host || b->o->from == IMAGE_FROM_DEBOOTSTRAP)
		return 0;
	ret = hostdisk_plan(&b->hd, k->name, k->host, k->nhost, b->images,
			    b->bindir, b->o->from == IMAGE_FROM_PACKAGES);
	if (ret <= 0)
		return ret;
	b->host = true;
	ret = hostdisk_recipe(&b->hd, k->host, k->nhost, k->host_links,
			      k->nhost_links, &b->rr);
	recipe_key(&b->rr, b->rkey, sizeof(b->rkey));
	return ret;
}

/* The root file system into one tarball, for guestfs's tar-in. */
static int disk_tar(struct disk_build *b)
{
	double t;
	int ret;

	b->tar = xasprintf("%s.rootfs.tar", b->base);
	note("image: tar the root file system into '%s'...", b->tar);
	t = mono_now();
	{
		char *const argv[] = {"tar",	  "--numeric-owner",
				      "--xattrs", "--one-file-system",
				      "-C",	  b->rootfs,
				      "-cf",	  b->tar,
				      ".",	  NULL};

		ret = image_step_run("tar", argv, NULL);
		if (ret < 0)
			return ret;
	}
	note("image: tar done in %.0f s", mono_now() - t);
	return 0;
}

#define DISK_MAX_TEXTS (DISK_COMMON_TEXTS + 4)

/*
 * B's files, texts (into TEXTS, DISK_MAX_TEXTS of them) and links, and the
 * new image's temporary names, into SPEC.
 */
static int disk_spec(struct disk_build *b, struct gfs_disk_spec *spec,
		     struct gfs_text *texts)
{
	const struct disk_kind *k = b->k;

	if (k->ntexts > DISK_MAX_TEXTS - DISK_COMMON_TEXTS)
		return err("image: %s: too many texts", k->name);
	memcpy(texts, disk_common_texts, sizeof(disk_common_texts));
	memcpy(texts + DISK_COMMON_TEXTS, k->texts,
	       k->ntexts * sizeof(*texts));
	b->tq = xasprintf("%s.tmp", b->qcow2);
	b->tk = xasprintf("%s.tmp", b->kernel);
	b->ti = xasprintf("%s.tmp", b->initrd);
	*spec = (struct gfs_disk_spec){
	    .qcow2 = b->tq,
	    .size = DISK_SIZE,
	    .rootfs_tar = b->tar,
	    .files = b->files,
	    .nfiles = b->nfiles,
	    .texts = texts,
	    .ntexts = DISK_COMMON_TEXTS + k->ntexts,
	    .links = disk_common_links,
	    .nlinks = DISK_COMMON_LINKS - !k->vmtax,
	    .kernel_out = b->tk,
	    .initrd_out = b->ti,
	};
	return 0;
}

/* The new image's files renamed from their temporary names. */
static int disk_rename(const struct disk_build *b)
{
	if (rename(b->tq, b->qcow2) < 0 || rename(b->tk, b->kernel) < 0 ||
	    rename(b->ti, b->initrd) < 0)
		return err_errno("image: %s: cannot rename the new image "
				 "into '%s.*'",
				 b->k->name, b->base);
	return 0;
}

/* The disk, kernel and initrd through libguestfs, from the tarball. */
static int disk_assemble(struct disk_build *b)
{
	struct gfs_text texts[DISK_MAX_TEXTS];
	struct gfs_disk_spec spec;
	int ret;

	ret = disk_spec(b, &spec, texts);
	if (ret < 0)
		return ret;
	ret = image_appliance_env(b->images);
	if (ret < 0)
		return ret;
	ret = gfs_make_disk(&spec);
	if (ret < 0)
		return ret;
	return disk_rename(b);
}

/* The disk, kernel and initrd from the host's packages (image-hostdisk.h). */
static int disk_host_build(struct disk_build *b)
{
	const struct disk_kind *k = b->k;
	struct gfs_text texts[DISK_MAX_TEXTS];
	struct gfs_disk_spec spec;
	int ret;

	ret = disk_tiny(b, b->hd.moddir, b->hd.kver, b->hd.kernel);
	if (ret == 0)
		ret = disk_spec(b, &spec, texts);
	if (ret < 0)
		return ret;
	b->stage = xasprintf("%s.tree", b->base);
	note("image: %s: from this host's packages (no download, no VM)",
	     k->name);
	ret = hostdisk_make(&b->hd, &spec, k->host_links, k->nhost_links,
			    b->stage);
	if (ret < 0)
		return ret;
	return disk_rename(b);
}

/* The links to the image's three files; their paths to stdout. */
static int disk_link(const struct disk_build *b)
{
	int ret = image_relink(b->qcow2, b->link);

	if (ret == 0)
		ret = image_relink(b->kernel, b->lk);
	if (ret == 0)
		ret = image_relink(b->initrd, b->li);
	if (ret < 0)
		return ret;
	if (!b->o->quiet) {
		image_print_abs(b->qcow2);
		image_print_abs(b->kernel);
		image_print_abs(b->initrd);
	}
	return 0;
}

static bool disk_built(const struct disk_build *b)
{
	return image_exists(b->rec) && image_exists(b->qcow2) &&
	       image_exists(b->kernel) && image_exists(b->initrd);
}

/*
 * B's directory made (the shared cache: 0755 from / down whatever the
 * umask, for QEMU) and B's build locked there: another checkout building
 * the same image meanwhile is waited for, and then its image is found
 * built.  0 to build, 1 when built meanwhile, or -errno (reported).
 */
static int disk_lock(struct disk_build *b)
{
	mode_t mask = umask(022);
	char *path = xasprintf("%s.lock", b->base);
	int ret = mkdir_parents(b->dir, 0755);

	umask(mask);
	if (ret < 0) {
		ret = err_code(ret,
			       "image: %s: cannot create '%s' (%s names "
			       "another)",
			       b->k->name, b->dir, ENV_IMAGE_CACHE);
		goto out;
	}
	b->lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->lock < 0) {
		ret =
		    err_errno("image: %s: cannot open '%s'", b->k->name, path);
		goto out;
	}
	if (flock(b->lock, LOCK_EX | LOCK_NB) < 0) {
		note("image: %s: waiting for another build of '%s'...",
		     b->k->name, b->qcow2);
		if (flock(b->lock, LOCK_EX) < 0) {
			ret = err_errno("image: %s: cannot lock '%s'",
					b->k->name, path);
			goto out;
		}
	}
	ret = disk_built(b) ? 1 : 0;
out:
	free(path);
	return ret;
}

static void unlink_if(const char *path)
{
	if (path)
		unlink(path);
}

/* B's temporary files gone (the new image's too if FAILED), B freed. */
static void disk_build_release(struct disk_build *b, bool failed)
{
	size_t i;

	unlink_if(b->tar);
	unlink_if(b->tiny);
	if (failed) {
		unlink_if(b->tq);
		unlink_if(b->tk);
		unlink_if(b->ti);
	}
	for (i = 0; i < b->nfiles; i++) {
		free(b->paths[i]);
		free(b->remotes[i]);
	}
	free(b->apt);
	hostdisk_release(&b->hd);
	free(b->stage);
	free(b->tiny);
	free(b->tiny_remote);
	free(b->pvh);
	free(b->pvh_remote);
	free(b->kver);
	image_free_ents(b->ents, b->nents);
	recipe_release(&b->rr);
	recipe_release(&b->r);
	free(b->packages);
	free(b->rootfs);
	free(b->base);
	free(b->rec);
	free(b->qcow2);
	free(b->kernel);
	free(b->initrd);
	free(b->tar);
	free(b->tq);
	free(b->tk);
	free(b->ti);
	free(b->link);
	free(b->lk);
	free(b->li);
	free(b->cache);
	if (b->lock >= 0)
		close(b->lock);
}

/* B set up for O's kind, in DIR (the images of BINDIR); nothing planned. */
static void disk_build_init(struct disk_build *b, const struct image_opts *o,
			    const char *dir, const char *bindir)
{
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->k = &disk_kinds[o->kind];
	b->images = dir;
	b->bindir = bindir;
	b->lock = -1;
	b->cache = b->k->shared ? guest_image_cache_new() : NULL;
	b->dir = b->cache ? b->cache : dir;
	recipe_init(&b->rr);
	recipe_init(&b->r);
}

/*
 * B's plan: its inputs, its recipes and the names of its files, all
 * computed from what is there now, nothing built (the build, its check and
 * image_disk_status() share it).
 */
static int disk_plan(struct disk_build *b)
{
	int ret = disk_source(b);

	if (ret == 0)
		ret = disk_choose(b);
	if (ret < 0)
		return ret;
	if (!b->host)
		disk_rootfs_recipe(b);
	ret = disk_recipe(b);
	if (ret < 0)
		return ret;
	disk_name_paths(b);
	return 0;
}

/* ST of plan B: does its link name the build B would make? */
static void disk_plan_status(const struct disk_build *b,
			     struct image_status *st)
{
	image_status_of(st, b->link, b->qcow2, b->rec, b->r.text, ".qcow2");
}

int image_disk_status(const struct image_opts *o, const char *dir,
		      const char *bindir, struct image_status *st)
{
	struct disk_build b;
	int ret;

	disk_build_init(&b, o, dir, bindir);
	b.status_only = true;
	ret = disk_plan(&b);
	if (ret == 0)
		disk_plan_status(&b, st);
	disk_build_release(&b, false);
	return ret;
}

int image_build_disk(const struct image_opts *o, const char *dir,
		     const char *bindir)
{
	const struct disk_kind *k = &disk_kinds[o->kind];
	struct image_status st = {0};
	struct disk_build b;
	double t0 = mono_now();
	int ret;

	disk_build_init(&b, o, dir, bindir);
	ret = disk_plan(&b);
	if (ret < 0)
		goto out;
	disk_plan_status(&b, &st);
	if (st.state == IMAGE_STALE)
		note("image: %s: '%s' is stale: built from other inputs than "
		     "now (changed: %s)",
		     k->name, st.link, st.what);
	else if (st.state == IMAGE_MISSING && o->check)
		note("image: %s: '%s' is missing: never built", k->name,
		     st.link);
	if (o->check && o->recipe)
		fputs(b.r.text, stdout);
	if (!o->check && !disk_built(&b) && (ret = disk_lock(&b)) < 0)
		goto out;
	if (disk_built(&b)) {
		if (o->would)
			*o->would = IMAGE_WOULD_NOTHING;
		note("image: %s: up to date: '%s' (recipe %s, %s)", k->name,
		     b.qcow2, b.key,
		     b.host ? "from this host's packages" : "from debootstrap");
		if (!o->check)
			ret = disk_link(&b);
		goto out;
	}
	if (o->check) {
		if (o->would)
			*o->would = b.host ? IMAGE_WOULD_SECONDS
					   : IMAGE_WOULD_MINUTES;
		note("image: %s: would be built: recipe %s, root file system "
		     "%s (%s)",
		     k->name, b.key, b.rkey,
		     b.host			? "the host's packages: seconds"
		     : image_exists(b.rootfs) ? "debootstrap, cached"
					      : "debootstrap: minutes");
		goto out;
	}
	note("image: %s %s, recipe %s, root file system %s", k->name,
	     b.host ? "host packages" : b.suite, b.key, b.rkey);
	if (b.host) {
		ret = disk_host_build(&b);
	} else {
		ret = disk_rootfs(&b);
		if (ret == 0)
			ret = disk_tar(&b);
		if (ret == 0)
			ret = disk_assemble(&b);
	}
	if (ret == 0)
		ret = image_write_text(b.rec, b.r.text);
	if (ret < 0)
		goto out;
	note("image: %s: built '%s' in %.0f s", k->name, b.qcow2,
	     mono_now() - t0);
	ret = disk_link(&b);
out:
	image_status_release(&st);
	disk_build_release(&b, ret < 0);
	return ret;
}
