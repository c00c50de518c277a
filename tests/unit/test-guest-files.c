/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the guest kernel rule (guest-image/build/guest-kernel.c) and the
 * guest file names and lookup (guest-image/build/guest-files.c), on scratch trees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest-files.h"
#include "guest-kernel.h"
#include "util.h"

static char *scratch_new(void)
{
	char tmpl[] = "/tmp/vmtax-test-guest-files.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void touch(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fclose(f);
	free(p);
}

/* Resolve with stderr captured; the message must contain WANT. */
static void resolve_fails(const char *image, const char *kernel,
			  const char *bindir, const char *want)
{
	char tmpl[] = "/tmp/vmtax-test-guest-files-err.XXXXXX";
	struct guest_files f;
	char *text = NULL;
	int fd = mkstemp(tmpl), saved = dup(2);

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	assert_int_equal(
	    guest_files_resolve(image, kernel, "auto", bindir, "x.ini", &f),
	    -EINVAL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	assert_null(f.kernel);
	assert_null(f.initrd);
	assert_null(f.disk);
	assert_null(f.overlay_dir);
	assert_int_equal(read_file(tmpl, 4096, &text, NULL), 0);
	if (!strstr(text, want))
		fail_msg("message '%s' lacks '%s'", text, want);
	free(text);
	unlink(tmpl);
}

static void test_newest_by_version(void **state)
{
	/* Each set's newest, by version order and not by byte order. */
	static const struct {
		const char *files[4];
		const char *newest;
	} cases[] = {
	    {{"6.1.0-9-amd64", "6.1.0-18-amd64"}, "6.1.0-18-amd64"},
	    {{"6.9.0-1-amd64", "6.10.0-1-amd64", "6.1.0-99-amd64"},
	     "6.10.0-1-amd64"},
	    {{"5.10.0-28-amd64"}, "5.10.0-28-amd64"},
	    {{"6.1.0-18-amd64", "6.1.0-18-rt-amd64"}, "6.1.0-18-rt-amd64"},
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *root = scratch_new(), *boot = xasprintf("%s/boot", root);
		char *path = NULL, *kver = NULL, *want;

		assert_int_equal(mkdir(boot, 0755), 0);
		for (k = 0; k < 4 && cases[i].files[k]; k++) {
			char *name = xasprintf("vmlinuz-%s", cases[i].files[k]);

			touch(boot, name);
			free(name);
		}
		/* Not kernels: must not be picked. */
		touch(boot, "config-9.9.9");
		touch(boot, "initrd.img-9.9.9");
		assert_int_equal(guest_kernel_newest(root, &path, &kver), 0);
		assert_string_equal(kver, cases[i].newest);
		want = xasprintf("%s/vmlinuz-%s", boot, cases[i].newest);
		assert_string_equal(path, want);
		free(want);
		free(path);
		free(kver);
		rm_rf(root);
		free(boot);
		free(root);
	}
}

static void test_no_kernel(void **state)
{
	char *root = scratch_new(), *boot = xasprintf("%s/boot", root);
	char *path = NULL;

	(void)state;
	/* No /boot at all, then a /boot without vmlinuz-*. */
	assert_int_equal(guest_kernel_newest(root, &path, NULL), -ENOENT);
	assert_null(path);
	assert_int_equal(mkdir(boot, 0755), 0);
	touch(boot, "System.map-6.1.0-18-amd64");
	assert_int_equal(guest_kernel_newest(root, &path, NULL), -ENOENT);
	assert_null(path);
	rm_rf(root);
	free(boot);
	free(root);
}

static void test_names(void **state)
{
	static const struct {
		const char *bindir, *images, *src;
	} dirs[] = {
	    {"/x/build/bin", "/x/build/images", "/x/build/src"},
	    {"/x/build/bin/", "/x/build/images", "/x/build/src"},
	    {"build/bin", "build/images", "build/src"},
	    {"bin", "images", "src"},
	    {"/opt/vmtax", "/opt/vmtax/../images", "/opt/vmtax/../src"},
	    {"/x/sbin", "/x/sbin/../images", "/x/sbin/../src"},
	};
	size_t i;
	char *p;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		p = guest_images_dir_new(dirs[i].bindir);
		assert_string_equal(p, dirs[i].images);
		free(p);
		p = guest_srcdir_new(dirs[i].bindir);
		assert_string_equal(p, dirs[i].src);
		free(p);
	}
	/* a bare-metal cell in the lab finds the sets where its guests do */
	p = guest_srcdir_new(GUEST_LAB_BINDIR);
	assert_string_equal(p, GUEST_SRCDIR);
	free(p);
	p = guest_tiny_path_new("/i", "6.1.0-18-amd64");
	assert_string_equal(p, "/i/tiny-6.1.0-18-amd64.cpio.gz");
	free(p);
	p = guest_debian_path_new("/i", "qcow2");
	assert_string_equal(p, "/i/debian.qcow2");
	free(p);
	assert_string_equal(
	    guest_kernel_version("/boot/vmlinuz-6.1.0-18-amd64"),
	    "6.1.0-18-amd64");
	assert_string_equal(guest_kernel_version("vmlinuz-6.1"), "6.1");
	assert_string_equal(guest_kernel_version("/k/bzImage"), "bzImage");
}

/* A tree: ROOT/bin, ROOT/images, ROOT/vmlinuz-6.1.0-18-amd64. */
static void test_resolve_tiny(void **state)
{
	char *root = scratch_new(), *bin = xasprintf("%s/bin", root);
	char *images = xasprintf("%s/images", root);
	char *kernel = xasprintf("%s/vmlinuz-6.1.0-18-amd64", root);
	char *built = xasprintf("%s/tiny-6.1.0-18-amd64-0123.cpio.gz", images);
	char *link = guest_tiny_path_new(images, "6.1.0-18-amd64");
	char real[PATH_MAX];
	struct guest_files f;

	(void)state;
	assert_int_equal(mkdir(bin, 0755), 0);
	assert_int_equal(mkdir(images, 0755), 0);
	touch(root, "vmlinuz-6.1.0-18-amd64");

	/* No image for that kernel yet: a config error, nothing kept. */
	resolve_fails("tiny", kernel, bin, "x.ini: guest initramfs '");
	resolve_fails("tiny", kernel, bin,
		      "/images/tiny-6.1.0-18-amd64.cpio.gz' is missing (run "
		      "'vmtax image build --kind tiny'");

	/* The build's link: the run boots what it points at. */
	touch(images, "tiny-6.1.0-18-amd64-0123.cpio.gz");
	assert_int_equal(symlink(built, link), 0);
	assert_int_equal(
	    guest_files_resolve("tiny", kernel, "auto", bin, "x.ini", &f), 0);
	assert_non_null(realpath(built, real));
	assert_string_equal(f.initrd, real);
	assert_non_null(realpath(kernel, real));
	assert_string_equal(f.kernel, real);
	assert_null(f.disk);
	assert_null(f.overlay_dir);
	guest_files_release(&f);
	assert_null(f.kernel);
	guest_files_release(&f); /* twice is harmless */

	/* Each bad input with its own reason. */
	resolve_fails("tiny", "/nonexistent", bin,
		      "x.ini: guest kernel '/nonexistent' is missing");
	resolve_fails(
	    "fedora", kernel, bin,
	    "x.ini: unknown guest image 'fedora' (tiny, debian or lab)");
	resolve_fails("debian", "auto", bin,
		      "x.ini: image = debian, but there is no built image");

	rm_rf(root);
	free(root);
	free(bin);
	free(images);
	free(kernel);
	free(built);
	free(link);
}

/*
 * guest_files_check(), the preflight's look (changing nothing): each case
 * with its own answer and, where missing, its own reason and remedy.
 */
static void test_check(void **state)
{
	char *root = scratch_new(), *bin = xasprintf("%s/bin", root);
	char *images = xasprintf("%s/images", root);
	char *kernel = xasprintf("%s/vmlinuz-6.1.0-18-amd64", root);
	char *missing = xasprintf("%s/none", root);
	const struct {
		const char *image, *kernel, *initrd;
		bool built; /* the tiny and debian images are there */
		int ret;
		const char *why, *fix;
	} cases[] = {
	    {"tiny", kernel, "auto", false, GUEST_FILES_FIRST_USE, "", ""},
	    {"tiny", kernel, "auto", true, 0, "", ""},
	    {"tiny", missing, "auto", true, -ENOENT, "guest kernel '",
	     "give [guest] kernel a file that is there"},
	    {"tiny", kernel, missing, true, -ENOENT, "guest initramfs '",
	     "give [guest] initrd a file that is there"},
	    {"debian", "auto", "auto", false, GUEST_FILES_UNBUILT,
	     "image = debian, but there is no built image ('",
	     "run 'vmtax image build --kind debian' first"},
	    {"lab", "auto", "auto", false, GUEST_FILES_UNBUILT,
	     "image = lab, but there is no built image ('",
	     "run 'vmtax image build --kind lab' first"},
	    {"debian", "auto", "auto", true, 0, "", ""},
	    {"debian", missing, "auto", true, -ENOENT, "guest kernel '",
	     "give [guest] kernel a file that is there"},
	    {"fedora", "auto", "auto", true, -EINVAL,
	     "unknown guest image 'fedora'", "tiny, debian or lab"},
	};
	static const char *const files[] = {
	    "tiny-6.1.0-18-amd64.cpio.gz", "debian.qcow2", "debian.vmlinuz",
	    "debian.initrd"};
	char why[512], fix[512], *overlays = xasprintf("%s/overlays", images);
	size_t i, f;

	(void)state;
	assert_int_equal(mkdir(bin, 0755), 0);
	assert_int_equal(mkdir(images, 0755), 0);
	touch(root, "vmlinuz-6.1.0-18-amd64");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (f = 0; f < ARRAY_SIZE(files); f++) {
			char *p = xasprintf("%s/%s", images, files[f]);

			if (cases[i].built)
				touch(images, files[f]);
			else
				unlink(p);
			free(p);
		}
		why[0] = fix[0] = '\0';
		assert_int_equal(guest_files_check(cases[i].image,
						   cases[i].kernel,
						   cases[i].initrd, bin, why,
						   sizeof(why), fix,
						   sizeof(fix)),
				 cases[i].ret);
		if (!strstr(why, cases[i].why) || !strstr(fix, cases[i].fix))
			fail_msg("case %zu: '%s: %s' lacks '%s: %s'", i, why,
				 fix, cases[i].why, cases[i].fix);
	}
	/* it made nothing (guest_files_resolve() makes the overlays dir) */
	assert_int_equal(access(overlays, F_OK), -1);
	free(overlays);
	rm_rf(root);
	free(root);
	free(bin);
	free(images);
	free(kernel);
	free(missing);
}

/*
 * The tiny kind's kernel image alone: ROOT/kernel/boot holds two kernels
 * and ROOT/images no initramfs; the newer is found, canonical.  With the
 * cache emptied it is the host's /boot or nothing, said once.
 */
static void test_tiny_vmlinuz(void **state)
{
	char *root = scratch_new(), *bin = xasprintf("%s/bin", root);
	char *images = xasprintf("%s/images", root);
	char *cache = xasprintf("%s/kernel", root);
	char *boot = xasprintf("%s/kernel/boot", root);
	char *newest = xasprintf("%s/vmlinuz-6.1.0-18-amd64", boot);
	char *path = NULL, real[PATH_MAX];
	int ret;

	(void)state;
	assert_int_equal(mkdir(bin, 0755), 0);
	assert_int_equal(mkdir(images, 0755), 0);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(boot, 0755), 0);
	touch(boot, "vmlinuz-6.1.0-9-amd64");
	touch(boot, "vmlinuz-6.1.0-18-amd64");
	assert_int_equal(guest_tiny_vmlinuz(bin, "x", &path), 0);
	assert_non_null(realpath(newest, real));
	assert_string_equal(path, real);
	free(path);

	rm_rf(boot);
	ret = guest_tiny_vmlinuz(bin, "x", &path);
	if (ret == 0)
		assert_true(!strncmp(path, "/boot/vmlinuz-", 14));
	else
		assert_true(ret == -EINVAL && !path);
	free(path);

	rm_rf(root);
	free(root);
	free(bin);
	free(images);
	free(cache);
	free(boot);
	free(newest);
}

/* A kept disk is usable only with its backing file (qemu-img makes them). */
static void test_overlay_usable(void **state)
{
	char *dir = scratch_new(), *base, *top, *rel, *cmd;

	(void)state;
	base = xasprintf("%s/base.qcow2", dir);
	top = xasprintf("%s/top.qcow2", dir);
	rel = xasprintf("%s/rel.qcow2", dir);
	cmd = xasprintf("qemu-img create -q -f qcow2 '%s' 1M", base);
	if (system(cmd) != 0) {
		free(cmd);
		rm_rf(dir);
		skip();
	}
	free(cmd);
	assert_true(guest_overlay_usable(base)); /* no backing file */
	assert_int_equal(guest_overlay_on(base, top), 0);
	assert_true(guest_overlay_usable(top));
	cmd = xasprintf("cd '%s' && qemu-img create -q -f qcow2 -F qcow2 "
			"-b base.qcow2 rel.qcow2",
			dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_true(guest_overlay_usable(rel)); /* beside it */
	unlink(base);
	assert_false(guest_overlay_usable(top));
	assert_false(guest_overlay_usable(rel));
	assert_false(guest_overlay_usable(base));
	touch(dir, "junk.qcow2");
	free(base);
	base = xasprintf("%s/junk.qcow2", dir);
	assert_false(guest_overlay_usable(base)); /* not a qcow2 */
	free(base);
	free(top);
	free(rel);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_newest_by_version),
	    cmocka_unit_test(test_no_kernel),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_resolve_tiny),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_tiny_vmlinuz),
	    cmocka_unit_test(test_overlay_usable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
