/* SPDX-License-Identifier: MIT */
/*
 * image.c - recipes, the image cache, and the builds of each kind (tiny,
 * debian, lab); the root file system is image-rootfs.c, running a step
 * image-step.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gfs.h"
#include "guest-files.h"
#include "guest-kernel.h"
#include "host.h"
#include "image.h"
#include "image-rootfs.h"
#include "image-step.h"
#include "layout.h"
#include "proto.h"
#include "util.h"

#define DEFAULT_BINDIR "build/bin"
#define DISK_SIZE (8ULL << 30)
#define MAX_BINARY (256u << 20)


/*
 * The agent starts before sysinit.target, once udev runs (it loads
 * virtio_console); the agent itself waits for its port and systemd restarts
 * it if the port never came.  Nothing here needs the network or a login.
 */
static const char agent_unit[] =
    "[Unit]\n"
    "Description=vmtax guest agent (virtio-serial " PROTO_PORT_NAME ")\n"
    "DefaultDependencies=no\n"
    "After=systemd-udevd.service systemd-modules-load.service "
    /* systemd-escape --path /dev/virtio-ports/PORT: only the '-' needs it */
    "dev-virtio\\x2dports-" PROTO_PORT_NAME ".device\n"
    "Before=sysinit.target shutdown.target\n"
    "Conflicts=shutdown.target\n"
    "\n"
    "[Service]\n"
    "Type=simple\n"
    "Environment=PATH=/opt/vmtax/bin:/usr/local/sbin:/usr/local/bin:"
    "/usr/sbin:/usr/bin:/sbin:/bin HOME=/root\n"
    "ExecStart=/usr/local/sbin/vmtax-agent\n"
    "Restart=always\n"
    "RestartSec=1\n"
    "StandardOutput=journal+console\n"
    "StandardError=journal+console\n"
    "\n"
    "[Install]\n"
    "WantedBy=sysinit.target\n";

/*
 * The lab host: libvirt and QEMU with their daemons started by their own
 * systemd units (libvirt-daemon-system enables them; systemd mounts
 * hugetlbfs on /dev/hugepages in sysinit, before they start), and the
 * run-time libraries of vmtax.  vmtax links libguestfs (image/gfs.c),
 * so libguestfs0 is here for the loader only.  These are installed with
 * apt-get in the debootstrap'ed tree: debootstrap's own resolver fails on
 * libvirt-daemon-system's dbus/logind alternatives.
 */
static const char *const lab_packages[] = {
    "libvirt-daemon-system",
    "libvirt-daemon-driver-qemu",
    "libvirt-clients",
    "qemu-system-x86",
    "qemu-utils",
    "kmod",
    "libvirt0",
    "libjansson4",
    "libinih1",
    "libkmod2",
    "libxml2",
    "libguestfs0",
};

/* kvm_amd at boot (udev would load it too, from the CPU's svm flag). */
static const char lab_modules[] = "# written by vmtax image build\n"
				  "kvm_amd\n";

/*
 * What each disk image kind adds to the common Debian recipe.  The kind's
 * name names its files (KIND-HASH.*) and links (guest-files.h).
 */
struct disk_kind {
	const char *name;
	const char *const *apt; /* apt-get install'ed after debootstrap */
	size_t napt;
	const struct gfs_text *texts;
	size_t ntexts;
	bool vmtax; /* vmtax and the tiny image of the image's kernel inside */
};

static const struct gfs_text lab_texts[] = {
    {"/etc/modules-load.d/vmtax-lab.conf", lab_modules, 0644},
};

static const struct disk_kind disk_kinds[] = {
    [IMAGE_DEBIAN] = {.name = GUEST_IMAGE_DEBIAN},
    [IMAGE_LAB] =
	{
	    .name = GUEST_IMAGE_LAB,
	    .apt = lab_packages,
	    .napt = ARRAY_SIZE(lab_packages),
	    .texts = lab_texts,
	    .ntexts = ARRAY_SIZE(lab_texts),
	    .vmtax = true,
	},
};

static const char guest_fstab[] =
    "# written by vmtax image build\n"
    "/dev/vda / ext4 rw,relatime,errors=remount-ro 0 1\n"
    "tmpfs /tmp tmpfs rw,nosuid,nodev,mode=1777,size=80% 0 0\n";

static const char guest_hostname[] = "vmtax-guest\n";
static const char guest_hosts[] = "127.0.0.1 localhost\n"
				  "127.0.1.1 vmtax-guest\n";

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

static uint64_t fnv1a64(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

/* The hash of a file's contents as 16 hex digits into HEX (>= 17). */
static int hash_file(const char *path, char *hex, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	int ret;

	ret = read_file(path, MAX_BINARY, &buf, &n);
	if (ret < 0)
		return err_code(ret, "image: recipe: cannot read '%s'", path);
	snprintf(hex, len, "%016" PRIx64, fnv1a64(FNV_INIT, buf, n));
	free(buf);
	return 0;
}

/* A recipe: the text of every input, one "key value" line each. */
struct recipe {
	char *text;
	size_t len;
	FILE *f;
};

static void recipe_init(struct recipe *r)
{
	r->text = NULL;
	r->len = 0;
	r->f = open_memstream(&r->text, &r->len);
	if (!r->f)
		abort();
}

static void recipe_add(struct recipe *r, const char *fmt, ...)
    VMTAX_PRINTF(2, 3);
static void recipe_add(struct recipe *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(r->f, fmt, ap);
	va_end(ap);
}

static int recipe_add_file(struct recipe *r, const char *what, const char *path)
{
	char hex[17];
	int ret = hash_file(path, hex, sizeof(hex));

	if (ret < 0)
		return ret;
	recipe_add(r, "%s %s fnv1a64:%s\n", what, path, hex);
	return 0;
}

/* Finish R: its text stays in r->text; the key goes to KEY (>= 17). */
static void recipe_key(struct recipe *r, char *key, size_t len)
{
	fflush(r->f);
	snprintf(key, len, "%016" PRIx64, fnv1a64(FNV_INIT, r->text, r->len));
}

static void recipe_release(struct recipe *r)
{
	if (r->f)
		fclose(r->f);
	free(r->text);
	r->f = NULL;
	r->text = NULL;
}


/* LINK -> TARGET (absolute), replaced atomically. */
static int relink(const char *target, const char *link)
{
	char abs[PATH_MAX];
	char *tmp = NULL;
	int ret = -1;

	if (!realpath(target, abs)) {
		ret = err_errno("image: link: cannot resolve '%s'", target);
		goto out;
	}
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
static void print_abs(const char *path)
{
	char abs[PATH_MAX];

	printf("%s\n", realpath(path, abs) ? abs : path);
}

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* Regular executable files of BINDIR, sorted; -errno on a read error. */
static int list_binaries(const char *bindir, struct dirent ***ents)
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

static void free_ents(struct dirent **ents, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/* The agents a tiny image carries (mkinitramfs-tiny.sh), in BINDIR. */
static int need_agents(const char *what, const char *bindir)
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
	ret = recipe_add_file(r, "script", script);
	if (ret < 0)
		return ret;
	/* The script copies busybox in (BUSYBOX overrides the path). */
	ret =
	    recipe_add_file(r, "busybox", getenv("BUSYBOX") ?: "/bin/busybox");
	if (ret < 0)
		return ret;
	n = list_binaries(bindir, &ents);
	if (n < 0)
		return n;
	for (i = 0; i < n && ret == 0; i++) {
		char *bin = xasprintf("%s/%s", bindir, ents[i]->d_name);

		ret = recipe_add_file(r, "binary", bin);
		free(bin);
	}
	free_ents(ents, n);
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
	return write_text(rec, r->text);
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
		ret = need_agents("tiny", bindir);
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
	ret = relink(out, link);
	if (ret < 0)
		goto out;
	if (!o->quiet)
		print_abs(out);
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

/* LINK without a trailing ".qcow2": where the kernel and initrd links go. */
static char *link_base_new(const char *link)
{
	size_t n = strlen(link);

	if (n > 6 && !strcmp(link + n - 6, ".qcow2"))
		n -= 6;
	return xstrndup(link, n);
}

/*
 * The tiny image of the kernel in ROOTFS, from ROOTFS's modules, into OUT;
 * its kernel version into *KVER.
 */
static int build_tiny_for_rootfs(const char *rootfs, const char *bindir,
				 const char *out, char **kver)
{
	char *moddir = NULL;
	int ret;

	if (guest_kernel_newest(rootfs, NULL, kver) < 0)
		return err("image: lab: no kernel in '%s/boot'", rootfs);
	moddir = xasprintf("MODDIR=%s/lib/modules/%s", rootfs, *kver);
	{
		char *const argv[] = {"env",	      moddir, "sh",
				      (char *)layout_tiny_script(bindir), *kver,  (char *)out,
				      (char *)bindir, NULL};

		note("image: lab: the tiny image of the lab's kernel %s...",
		     *kver);
		ret = image_step_run("tiny: mkinitramfs-tiny.sh", argv, NULL);
	}
	free(moddir);
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
	const char *dir, *bindir;
	char suite[64], mirror[512], rkey[17], key[17];
	char *packages, *apt, *rootfs;
	struct recipe rr, r;
	struct dirent **ents;
	int nents;
	struct gfs_file files[DISK_MAX_FILES];
	char *paths[DISK_MAX_FILES], *remotes[DISK_MAX_FILES];
	size_t nfiles;
	char *tiny, *tiny_remote, *kver;
	char *base, *rec, *qcow2, *kernel, *initrd, *tar;
	char *tq, *tk, *ti; /* the new image under temporary names */
	char *link, *lk, *li;
};

/* The suite, mirror and debootstrap packages, checked. */
static int disk_source(struct disk_build *b)
{
	const struct image_opts *o = b->o;
	int ret;

	if (o->suite)
		snprintf(b->suite, sizeof(b->suite), "%s", o->suite);
	else if ((ret = image_host_suite(b->suite, sizeof(b->suite))) < 0)
		return ret;
	if (!is_safe_name(b->suite))
		return err("image: debian: bad suite '%s'", b->suite);
	if (o->mirror)
		snprintf(b->mirror, sizeof(b->mirror), "%s", o->mirror);
	else
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

/*
 * The binaries of BINDIR (but the agent's test build) into the file list and
 * the recipe: the agent to /usr/local/sbin, the rest to /opt/vmtax/bin.
 */
static int disk_add_binaries(struct disk_build *b)
{
	const char *agent = "/usr/local/sbin/vmtax-agent";
	size_t i;
	int ret = 0;

	b->nents = list_binaries(b->bindir, &b->ents);
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
		if (f + 2 >= DISK_MAX_FILES)
			return err("image: %s: more than %d binaries in '%s'",
				   b->k->name, DISK_MAX_FILES - 2, b->bindir);
		b->paths[f] = xasprintf("%s/%s", b->bindir, name);
		b->remotes[f] = !strcmp(name, "vmtax-agent")
				    ? xstrdup(agent)
				    : xasprintf("/opt/vmtax/bin/%s", name);
		b->files[f].local = b->paths[f];
		b->files[f].remote = b->remotes[f];
		b->files[f].mode = 0755;
		ret = recipe_add_file(&b->r, b->remotes[f], b->paths[f]);
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

/* The image: the root file system plus everything put into it. */
static int disk_recipe(struct disk_build *b)
{
	const struct disk_kind *k = b->k;
	size_t i;
	int ret;

	recipe_add(&b->r, "kind %s\nsize %llu\n%s", k->name,
		   (unsigned long long)DISK_SIZE, b->rr.text);
	recipe_add(&b->r, "unit vmtax-agent.service\n%s", agent_unit);
	recipe_add(&b->r, "fstab\n%shostname %s", guest_fstab, guest_hostname);
	for (i = 0; i < k->ntexts; i++)
		recipe_add(&b->r, "text %s\n%s", k->texts[i].remote,
			   k->texts[i].text);
	ret = disk_add_binaries(b);
	if (ret < 0)
		return ret;
	if (k->vmtax) {
		/* The tiny image inside carries the agent's test build too:
		 * said now, not after the root file system's minutes. */
		ret = need_agents(k->name, b->bindir);
		if (ret < 0)
			return ret;
		/*
		 * The inputs of the tiny image of the image's kernel (the
		 * kernel is the root file system's).  vmtax itself is not in
		 * the image: 'vmtax lab run' puts its own binary at
		 * GUEST_LAB_VMTAX each time, so a changed vmtax needs no new
		 * image.
		 */
		ret = recipe_add_file(&b->r, "tiny script",
				      layout_tiny_script(b->bindir));
		if (ret == 0)
			ret = recipe_add_file(&b->r, "tiny busybox",
					      getenv("BUSYBOX")
						  ?: "/bin/busybox");
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
	b->link = b->o->link ? xstrdup(b->o->link)
			     : guest_disk_path_new(b->dir, b->k->name, "qcow2");
	lbase = link_base_new(b->link);
	b->lk = xasprintf("%s.vmlinuz", lbase);
	b->li = xasprintf("%s.initrd", lbase);
	free(lbase);
}

/*
 * The root file system, reused or debootstrap'ed, and for the kinds with
 * vmtax the tiny image of its kernel, added to the files.
 */
static int disk_rootfs(struct disk_build *b)
{
	struct gfs_file *f;
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
	b->tiny = xasprintf("%s.tiny.cpio.gz", b->base);
	ret = build_tiny_for_rootfs(b->rootfs, b->bindir, b->tiny, &b->kver);
	if (ret < 0)
		return ret;
	b->tiny_remote = guest_tiny_path_new(GUEST_LAB_IMAGES, b->kver);
	f = &b->files[b->nfiles++];
	f->local = b->tiny;
	f->remote = b->tiny_remote;
	f->mode = 0644;
	return 0;
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

/* The disk, kernel and initrd under temporary names, then renamed. */
static int disk_assemble(struct disk_build *b)
{
	static const struct gfs_text common[] = {
	    {"/etc/systemd/system/vmtax-agent.service", agent_unit, 0644},
	    {"/etc/fstab", guest_fstab, 0644},
	    {"/etc/hostname", guest_hostname, 0644},
	    {"/etc/hosts", guest_hosts, 0644},
	};
	static const struct gfs_link links[] = {
	    {"/etc/systemd/system/vmtax-agent.service",
	     "/etc/systemd/system/sysinit.target.wants/"
	     "vmtax-agent.service"},
	    /* No prompts on the console at first boot. */
	    {"/dev/null", "/etc/systemd/system/systemd-firstboot.service"},
	    /* vmtax on PATH, once 'vmtax lab run' has put it there:
	     * kinds with vmtax only (the last link) */
	    {GUEST_LAB_VMTAX, "/usr/local/bin/vmtax"},
	};
	const struct disk_kind *k = b->k;
	struct gfs_text texts[ARRAY_SIZE(common) + 4];
	struct gfs_disk_spec spec = {
	    .size = DISK_SIZE,
	    .rootfs_tar = b->tar,
	    .files = b->files,
	    .nfiles = b->nfiles,
	    .texts = texts,
	    .links = links,
	    .nlinks = ARRAY_SIZE(links) - !k->vmtax,
	};
	char why[256];
	const char *accel;
	int ret;

	if (k->ntexts > ARRAY_SIZE(texts) - ARRAY_SIZE(common))
		return err("image: %s: too many texts", k->name);
	memcpy(texts, common, sizeof(common));
	memcpy(texts + ARRAY_SIZE(common), k->texts,
	       k->ntexts * sizeof(*texts));
	spec.ntexts = ARRAY_SIZE(common) + k->ntexts;

	b->tq = xasprintf("%s.tmp", b->qcow2);
	b->tk = xasprintf("%s.tmp", b->kernel);
	b->ti = xasprintf("%s.tmp", b->initrd);
	spec.qcow2 = b->tq;
	spec.kernel_out = b->tk;
	spec.initrd_out = b->ti;
	accel = host_accel_decide("", why, sizeof(why));
	gfs_env_for_accel(accel, why);
	ret = gfs_make_disk(&spec);
	if (ret < 0)
		return ret;
	if (rename(b->tq, b->qcow2) < 0 || rename(b->tk, b->kernel) < 0 ||
	    rename(b->ti, b->initrd) < 0)
		return err_errno("image: %s: cannot rename the new image "
				 "into '%s.*'",
				 k->name, b->base);
	return 0;
}

/* The links to the image's three files; their paths to stdout. */
static int disk_link(const struct disk_build *b)
{
	int ret = relink(b->qcow2, b->link);

	if (ret == 0)
		ret = relink(b->kernel, b->lk);
	if (ret == 0)
		ret = relink(b->initrd, b->li);
	if (ret < 0)
		return ret;
	if (!b->o->quiet) {
		print_abs(b->qcow2);
		print_abs(b->kernel);
		print_abs(b->initrd);
	}
	return 0;
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
	free(b->tiny);
	free(b->tiny_remote);
	free(b->kver);
	free_ents(b->ents, b->nents);
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
}

static int build_disk(const struct image_opts *o, const struct disk_kind *k,
		      const char *dir, const char *bindir)
{
	struct disk_build b = {.o = o, .k = k, .dir = dir, .bindir = bindir};
	double t0 = mono_now();
	int ret;

	recipe_init(&b.rr);
	recipe_init(&b.r);
	ret = disk_source(&b);
	if (ret < 0)
		goto out;
	disk_rootfs_recipe(&b);
	ret = disk_recipe(&b);
	if (ret < 0)
		goto out;
	disk_name_paths(&b);

	if (image_exists(b.rec) && image_exists(b.qcow2) &&
	    image_exists(b.kernel) && image_exists(b.initrd)) {
		note("image: %s: up to date: '%s' (recipe %s)", k->name,
		     b.qcow2, b.key);
		if (!o->check)
			ret = disk_link(&b);
		goto out;
	}
	if (o->check) {
		note("image: %s: would be built: recipe %s, root file system "
		     "%s (%s)",
		     k->name, b.key, b.rkey,
		     image_exists(b.rootfs) ? "cached"
					    : "debootstrap: minutes");
		goto out;
	}
	note("image: %s %s, recipe %s, root file system %s", k->name, b.suite,
	     b.key, b.rkey);
	ret = disk_rootfs(&b);
	if (ret == 0)
		ret = disk_tar(&b);
	if (ret == 0)
		ret = disk_assemble(&b);
	if (ret == 0)
		ret = write_text(b.rec, b.r.text);
	if (ret < 0)
		goto out;
	note("image: %s: built '%s' in %.0f s", k->name, b.qcow2,
	     mono_now() - t0);
	ret = disk_link(&b);
out:
	disk_build_release(&b, ret < 0);
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
	if (o->kind == IMAGE_TINY)
		ret = build_tiny(o, dir, bindir);
	else
		ret = build_disk(o, &disk_kinds[o->kind], dir, bindir);
out:
	free(dir);
	return ret;
}
