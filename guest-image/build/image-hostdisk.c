/* SPDX-License-Identifier: MIT */
/*
 * image-hostdisk.c - a disk image from this host's packages
 * (image-hostdisk.h).
 */
#include "image-hostdisk.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest-kernel.h"
#include "image-step.h"
#include "layout.h"
#include "util.h"

#define FILE_MAX (1u << 30)
/*
 * Debian's system ids: below 1000 (dynamic), and 60000-64999 (the static
 * ones of Debian packages: libvirt-qemu is 64055, and nobody); 1000-59999
 * are people's.
 */
#define SYSTEM_ID_MAX 1000
#define SYSTEM_STATIC_MIN 60000
#define ALTERNATIVES "/etc/alternatives"
#define ALTERNATIVES_DB "/var/lib/dpkg/alternatives"
#define DPKG_STATUS "/var/lib/dpkg/status"
/* mke2fs -E: no zeros written (the file is sparse, zeros already) */
#define MKE2FS_OPTS "root_owner=0:0,lazy_itable_init=1,lazy_journal_init=1"

/* The directories a root file system needs that no package lists. */
static const char *const tree_dirs[] = {
    "/dev", "/proc", "/sys", "/run", "/tmp", "/root", "/var/tmp", "/var/log",
};

/*
 * What maintainer scripts copy into /etc from their packages' own files
 * (each FROM is a file of the tree): libc-bin's postinst writes
 * /etc/nsswitch.conf (without it glibc asks DNS first for host names).
 */
static const struct gfs_link tree_copies[] = {
    {"/usr/share/libc-bin/nsswitch.conf", "/etc/nsswitch.conf"},
};

/* PATH's parents in the tree S (PATH is absolute in the image). */
static int tree_parents(const char *stage, const char *path)
{
	char *dir = xasprintf("%s%s", stage, path);
	char *slash = strrchr(dir, '/');
	int ret = 0;

	*slash = '\0';
	if (mkdir_parents(dir, 0755) < 0)
		ret = err_errno("image: host disk: cannot make '%s'", dir);
	free(dir);
	return ret;
}

/*
 * DATA as the tree's file REMOTE, MODE, owned by root; replaced by rename,
 * never written into (a staged file may be a host file's hard link).
 */
static int tree_write(const char *stage, const char *remote, const char *data,
		      size_t len, int mode)
{
	char *to = xasprintf("%s%s", stage, remote);
	int ret = tree_parents(stage, remote);

	if (ret == 0 && write_file_atomic(to, data, len) < 0)
		ret = err_errno("image: host disk: cannot write '%s'", to);
	if (ret == 0 && (chmod(to, (mode_t)mode) < 0 || chown(to, 0, 0) < 0))
		ret = err_errno("image: host disk: cannot set the mode of '%s'",
				to);
	free(to);
	return ret;
}

static int tree_copy(const char *stage, const char *local, const char *remote,
		     int mode)
{
	char *data = NULL;
	size_t len = 0;
	int ret = read_file(local, FILE_MAX, &data, &len);

	if (ret < 0)
		ret =
		    err_code(ret, "image: host disk: cannot read '%s'", local);
	else
		ret = tree_write(stage, remote, data, len, mode);
	free(data);
	return ret;
}

static int tree_link(const char *stage, const struct gfs_link *l)
{
	char *to = xasprintf("%s%s", stage, l->remote);
	int ret = tree_parents(stage, l->remote);

	if (ret == 0 && (unlink(to) < 0 && errno != ENOENT))
		ret = err_errno("image: host disk: cannot remove '%s'", to);
	if (ret == 0 && symlink(l->target, to) < 0)
		ret = err_errno("image: host disk: cannot link '%s'", to);
	free(to);
	return ret;
}

/* The disk spec's files, texts and links into the tree, in that order. */
static int tree_add_all(const char *stage, const struct gfs_disk_spec *d)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < d->nfiles && ret == 0; i++)
		ret = tree_copy(stage, d->files[i].local, d->files[i].remote,
				d->files[i].mode);
	for (i = 0; i < d->ntexts && ret == 0; i++)
		ret = tree_write(stage, d->texts[i].remote, d->texts[i].text,
				 strlen(d->texts[i].text), d->texts[i].mode);
	for (i = 0; i < d->nlinks && ret == 0; i++)
		ret = tree_link(stage, &d->links[i]);
	return ret;
}

/*
 * The system entries (see SYSTEM_ID_MAX) of the host's
 * FILE (passwd or group: the id is field 3) into *OUT; with SHADOW, the
 * locked shadow line of each into *SHADOW (NULL: none).
 */
static int system_entries(const char *file, char **out, char **shadow,
			  bool passwd)
{
	char *text = NULL, *line, *rest;
	char *o = xstrdup(""), *s = xstrdup("");
	int ret = read_file(file, FILE_MAX, &text, NULL);

	if (ret < 0) {
		free(o);
		free(s);
		return err_code(ret, "image: host disk: cannot read '%s'",
				file);
	}
	rest = text;
	while ((line = strsep(&rest, "\n"))) {
		char name[64], *next;
		unsigned long id;
		const char *p = line;
		int field;

		for (field = 0; field < 2 && p; field++)
			p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL;
		if (!p || sscanf(line, "%63[^:]", name) != 1)
			continue;
		id = strtoul(p, NULL, 10);
		if (id >= SYSTEM_ID_MAX && id < SYSTEM_STATIC_MIN)
			continue;
		next = xasprintf("%s%s\n", o, line);
		free(o);
		o = next;
		next = passwd
			   ? xasprintf("%s%s:*:19000:0:99999:7:::\n", s, name)
			   : xasprintf("%s%s:*::\n", s, name);
		free(s);
		s = next;
	}
	free(text);
	*out = o;
	if (shadow)
		*shadow = s;
	else
		free(s);
	return 0;
}

/* passwd, group, shadow, gshadow and machine-id of the image. */
static int tree_users(const char *stage)
{
	char *pw = NULL, *sh = NULL, *gr = NULL, *gs = NULL;
	int ret;

	ret = system_entries("/etc/passwd", &pw, &sh, true);
	if (ret == 0)
		ret = system_entries("/etc/group", &gr, &gs, false);
	if (ret == 0)
		ret = tree_write(stage, "/etc/passwd", pw, strlen(pw), 0644);
	if (ret == 0)
		ret = tree_write(stage, "/etc/group", gr, strlen(gr), 0644);
	if (ret == 0)
		ret = tree_write(stage, "/etc/shadow", sh, strlen(sh), 0600);
	if (ret == 0)
		ret = tree_write(stage, "/etc/gshadow", gs, strlen(gs), 0600);
	if (ret == 0)
		ret = tree_write(stage, "/etc/machine-id", "", 0, 0444);
	free(pw);
	free(sh);
	free(gr);
	free(gs);
	return ret;
}

/*
 * "NAME TARGET" of each of this host's /etc/alternatives links, sorted,
 * into *OUT (update-alternatives makes them in postinsts: awk, iptables,
 * which...).  0 or -errno, reported.
 */
static int alternatives(char **out)
{
	struct dirent **ents = NULL;
	char *text = xstrdup(""), target[PATH_MAX];
	int n = scandir(ALTERNATIVES, &ents, NULL, alphasort), i;

	if (n < 0) {
		free(text);
		return err_errno("image: host disk: cannot read '%s'",
				 ALTERNATIVES);
	}
	for (i = 0; i < n; i++) {
		char *path = xasprintf(ALTERNATIVES "/%s", ents[i]->d_name);
		ssize_t len = readlink(path, target, sizeof(target) - 1);

		if (len > 0 && ents[i]->d_name[0] != '.') {
			char *next =
			    xasprintf("%s%s %.*s\n", text, ents[i]->d_name,
				      (int)len, target);

			free(text);
			text = next;
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	*out = text;
	return 0;
}

/*
 * Alternative NAME (its link LINK, e.g. /usr/bin/awk) into the tree STAGE
 * as the host has it, where the tree has its target: LINK ->
 * /etc/alternatives/NAME -> the target.
 */
static int tree_alternative(const char *stage, const char *name,
			    const char *link)
{
	char *alt = xasprintf(ALTERNATIVES "/%s", name), *there = NULL;
	char target[PATH_MAX];
	ssize_t n = readlink(alt, target, sizeof(target) - 1);
	int ret = 0;

	if (n <= 0 || *link != '/')
		goto out;
	target[n] = '\0';
	there = xasprintf("%s%s", stage, target);
	if (access(there, F_OK) == 0) {
		struct gfs_link a = {target, alt}, l = {alt, link};

		ret = tree_link(stage, &a);
		if (ret == 0)
			ret = tree_link(stage, &l);
	}
out:
	free(alt);
	free(there);
	return ret;
}

/*
 * The host's alternatives whose targets the tree STAGE has, from
 * update-alternatives' records (ALTERNATIVES_DB/NAME: the mode, the link,
 * then each slave's name and link, to an empty line).
 */
static int tree_alternatives(const char *stage)
{
	struct dirent **ents = NULL;
	int n = scandir(ALTERNATIVES_DB, &ents, NULL, alphasort), i, ret = 0;

	if (n < 0)
		return 0; /* no alternatives on this host */
	for (i = 0; i < n; i++) {
		char *db = xasprintf(ALTERNATIVES_DB "/%s", ents[i]->d_name);
		char *text = NULL, *rest, *line[2];

		if (ret == 0 && ents[i]->d_name[0] != '.' &&
		    read_file(db, FILE_MAX, &text, NULL) == 0) {
			rest = text;
			strsep(&rest, "\n"); /* the mode */
			line[1] = strsep(&rest, "\n");
			if (line[1])
				ret = tree_alternative(stage, ents[i]->d_name,
						       line[1]);
			while (ret == 0 && (line[0] = strsep(&rest, "\n")) &&
			       *line[0] && (line[1] = strsep(&rest, "\n")))
				ret = tree_alternative(stage, line[0], line[1]);
		}
		free(text);
		free(db);
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/* dpkg's status of the closure (hostpkg_status_new()) into the tree. */
static int tree_dpkg_status(const struct hostdisk *h, const char *stage)
{
	char *text = NULL, *out;
	int ret = read_file(DPKG_STATUS, FILE_MAX, &text, NULL);

	if (ret < 0)
		return err_code(ret, "image: host disk: cannot read '%s'",
				DPKG_STATUS);
	out = hostpkg_status_new(&h->pkgs, text);
	ret = tree_write(stage, DPKG_STATUS, out, strlen(out), 0644);
	free(out);
	free(text);
	return ret;
}

/* The kernel and its modules into the tree STAGE, then depmod. */
static int tree_kernel(const struct hostdisk *s, const char *stage)
{
	char *boot = xasprintf("/boot/" GUEST_KERNEL_PREFIX "%s", s->kver);
	char *mods = xasprintf("%s/usr/lib/modules", stage);
	char *dst = xasprintf("%s/%s", mods, s->kver);
	int ret;

	ret = tree_copy(stage, s->kernel, boot, 0644);
	if (ret == 0 && mkdir_parents(mods, 0755) < 0)
		ret = err_errno("image: host disk: cannot make '%s'", mods);
	if (ret < 0)
		goto out;
	{
		char *const al[] = {"cp", "-al", (char *)s->moddir, dst, NULL};
		char *const a[] = {"cp", "-a", (char *)s->moddir, dst, NULL};

		/* hard links where the cache is on the tree's file system */
		if (image_step_run("cp -al", al, "/dev/null") < 0) {
			image_remove_tree(dst);
			ret = image_step_run("cp -a", a, NULL);
		}
	}
	if (ret == 0) {
		char *const argv[] = {"depmod", "-b", (char *)stage,
				      (char *)s->kver, NULL};

		ret = image_step_run("depmod", argv, NULL);
	}
out:
	free(boot);
	free(mods);
	free(dst);
	return ret;
}

/* The whole tree: packages, kernel, directories, users, vmtax's files. */
static int make_tree(const struct hostdisk *h, const struct gfs_disk_spec *d,
		     const struct gfs_link *links, size_t nlinks,
		     const char *stage)
{
	double t = mono_now();
	size_t i;
	int ret;

	ret = image_remove_tree(stage);
	if (ret == 0)
		ret = hostpkg_stage(&h->pkgs, stage);
	if (ret < 0)
		return ret;
	note("image: host disk: the files of %zu packages staged in %.1f s",
	     hostpkg_count(&h->pkgs), mono_now() - t);
	ret = tree_kernel(h, stage);
	for (i = 0; i < ARRAY_SIZE(tree_dirs) && ret == 0; i++) {
		char *dir = xasprintf("%s%s", stage, tree_dirs[i]);

		if (mkdir_parents(dir, 0755) < 0)
			ret = err_errno("image: host disk: cannot make '%s'",
					dir);
		free(dir);
	}
	if (ret == 0)
		ret = tree_users(stage);
	if (ret == 0)
		ret = tree_alternatives(stage);
	if (ret == 0)
		ret = tree_dpkg_status(h, stage);
	for (i = 0; i < ARRAY_SIZE(tree_copies) && ret == 0; i++) {
		char *from = xasprintf("%s%s", stage, tree_copies[i].target);

		ret = tree_copy(stage, from, tree_copies[i].remote, 0644);
		free(from);
	}
	if (ret == 0)
		ret = tree_add_all(stage, d);
	for (i = 0; i < nlinks && ret == 0; i++)
		ret = tree_link(stage, &links[i]);
	if (ret == 0) {
		char *const argv[] = {"ldconfig", "-X", "-r", (char *)stage,
				      NULL};

		ret = image_step_run("ldconfig", argv, NULL);
	}
	if (ret == 0)
		note("image: host disk: tree done in %.1f s", mono_now() - t);
	return ret;
}

/* The tree STAGE into a raw ext4 file system RAW, then into the qcow2. */
static int make_disk(const struct gfs_disk_spec *d, const char *stage,
		     const char *raw)
{
	char *size = xasprintf("%lluk", (unsigned long long)(d->size >> 10));
	double t = mono_now();
	int ret;

	unlink(raw);
	{
		char *const argv[] = {"mke2fs",	   "-q",   "-F",
				      "-t",	   "ext4", "-E",
				      MKE2FS_OPTS, "-d",   (char *)stage,
				      (char *)raw, size,   NULL};

		ret = image_step_run("mke2fs -d", argv, NULL);
	}
	if (ret == 0)
		note("image: host disk: mke2fs -d in %.1f s", mono_now() - t);
	t = mono_now();
	if (ret == 0) {
		char *const argv[] = {
		    "qemu-img",	 "convert",	   "-f", "raw", "-O", "qcow2",
		    (char *)raw, (char *)d->qcow2, NULL};

		ret = image_step_run("qemu-img convert", argv, NULL);
	}
	if (ret == 0)
		note("image: host disk: qemu-img convert in %.1f s",
		     mono_now() - t);
	free(size);
	return ret;
}

/* The kernel out, and the initramfs that mounts the root and runs init. */
static int make_boot(const struct hostdisk *h, const struct gfs_disk_spec *d,
		     const char *stage)
{
	char *data = NULL;
	size_t len = 0;
	int ret = read_file(h->kernel, FILE_MAX, &data, &len);

	if (ret < 0)
		return err_code(ret, "image: host disk: cannot read '%s'",
				h->kernel);
	if (write_file_atomic(d->kernel_out, data, len) < 0)
		ret = err_errno("image: host disk: cannot write '%s'",
				d->kernel_out);
	free(data);
	if (ret == 0) {
		char *const argv[] = {
		    "sh",	   (char *)h->script,	  (char *)h->kver,
		    (char *)stage, (char *)d->initrd_out, NULL};

		ret = image_step_run("mkinitramfs-root.sh", argv, NULL);
	}
	return ret;
}

int hostdisk_make(const struct hostdisk *h, const struct gfs_disk_spec *d,
		  const struct gfs_link *links, size_t nlinks,
		  const char *stage)
{
	char *raw = xasprintf("%s.raw", d->qcow2);
	double t0 = mono_now();
	int ret;

	ret = make_tree(h, d, links, nlinks, stage);
	if (ret == 0)
		ret = make_disk(d, stage, raw);
	if (ret == 0)
		ret = make_boot(h, d, stage);
	unlink(raw);
	image_remove_tree(stage);
	if (ret == 0)
		note("image: host disk: done in %.1f s", mono_now() - t0);
	free(raw);
	return ret;
}

/* The guest kernel and its modules into H; 0, or -ENOENT (not reported). */
static int plan_kernel(struct hostdisk *h, const char *images)
{
	char *cache = guest_kernel_cache_new(images);
	int ret = guest_kernel_find(cache, &h->kernel, &h->kver);

	if (ret == 0) {
		h->moddir = guest_kernel_moddir_new(cache, h->kver);
		if (!h->moddir)
			h->moddir = xasprintf("/lib/modules/%s", h->kver);
		if (access(h->moddir, R_OK) < 0)
			ret = -ENOENT;
	}
	free(cache);
	return ret;
}

int hostdisk_plan(struct hostdisk *h, const char *what,
		  const struct hostpkg_root *roots, size_t n,
		  const char *images, const char *bindir, bool required)
{
	const char *missing = NULL;
	char why[512];
	int ret;

	ret = hostpkg_load(&h->pkgs);
	if (ret < 0)
		return ret;
	ret = hostpkg_mark(&h->pkgs, roots, n, &missing);
	if (ret == -ENOENT)
		snprintf(why, sizeof(why), "host lacks %s", missing);
	else if (plan_kernel(h, images) < 0)
		snprintf(why, sizeof(why),
			 "no guest kernel with its modules in '%s/../kernel' "
			 "or /boot ('make deps')",
			 images);
	else
		why[0] = '\0';
	if (why[0] && required)
		return err_code(-ENOENT,
				"image: %s: --from packages, but this %s", what,
				why);
	if (why[0]) {
		note("image: %s: %s: debootstrap instead", what, why);
		return 0;
	}
	h->script = layout_root_script(bindir);
	return 1;
}

int hostdisk_recipe(const struct hostdisk *h, const struct hostpkg_root *roots,
		    size_t n, const struct gfs_link *links, size_t nlinks,
		    struct recipe *r)
{
	static const char *const skip[] = {HOSTPKG_SKIP};
	char *alt = NULL;
	size_t i;
	int ret;

	recipe_add(r, "root host-packages\nroots");
	for (i = 0; i < n; i++)
		recipe_add(r, " %s%s", roots[i].name,
			   roots[i].libs_only ? ":libs" : "");
	recipe_add(r, "\nskip");
	for (i = 0; i < ARRAY_SIZE(skip); i++)
		recipe_add(r, " %s", skip[i]);
	recipe_add(r, "\n");
	hostpkg_recipe(&h->pkgs, r);
	for (i = 0; i < nlinks; i++)
		recipe_add(r, "link %s -> %s\n", links[i].remote,
			   links[i].target);
	for (i = 0; i < ARRAY_SIZE(tree_copies); i++)
		recipe_add(r, "copy %s -> %s\n", tree_copies[i].target,
			   tree_copies[i].remote);
	recipe_add(r, "dirs");
	for (i = 0; i < ARRAY_SIZE(tree_dirs); i++)
		recipe_add(r, " %s", tree_dirs[i]);
	recipe_add(r,
		   "\nusers below %d and from %d, shadow locked\nmke2fs %s\n",
		   SYSTEM_ID_MAX, SYSTEM_STATIC_MIN, MKE2FS_OPTS);
	/* its stanzas follow from the packages and versions above */
	recipe_add(r, "dpkg status: the packages' stanzas of " DPKG_STATUS
		      "\n");
	ret = alternatives(&alt);
	if (ret < 0)
		return ret;
	/* all of them: which the tree has follows from the packages */
	recipe_add(r,
		   "alternatives: links and targets (" ALTERNATIVES_DB "), "
		   "fnv1a64:%016" PRIx64 "\n",
		   hash_fnv1a(alt, strlen(alt)));
	free(alt);
	recipe_add(r, "kernel %s\n", h->kver);
	/* contents, not paths: the image is shared by checkouts (image.h) */
	ret = recipe_add_content(r, "kernel image", h->kernel);
	if (ret == 0)
		ret = recipe_add_script(r, "root initrd script", h->script);
	if (ret == 0)
		ret = recipe_add_file(r, "users", "/etc/passwd");
	if (ret == 0)
		ret = recipe_add_file(r, "groups", "/etc/group");
	return ret;
}

void hostdisk_release(struct hostdisk *h)
{
	hostpkg_release(&h->pkgs);
	free(h->kernel);
	free(h->kver);
	free(h->moddir);
	h->kernel = h->kver = h->moddir = NULL;
}
