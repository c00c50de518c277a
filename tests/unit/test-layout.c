/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the installed layout as one more case of the bin-directory
 * lookup (layout.h), against a fake PREFIX in a scratch directory.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "guest-files.h"
#include "layout.h"
#include "util.h"

static void run(const char *fmt, const char *dir)
{
	char *cmd = xasprintf(fmt, dir, dir, dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* The workloads' shell: $BUSYBOX when set and not empty. */
static void test_busybox(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("BUSYBOX"), 0);
	assert_string_equal(layout_busybox(), LAYOUT_BUSYBOX);
	assert_int_equal(setenv("BUSYBOX", "", 1), 0);
	assert_string_equal(layout_busybox(), "/bin/busybox");
	assert_int_equal(setenv("BUSYBOX", "/opt/bb/busybox", 1), 0);
	assert_string_equal(layout_busybox(), "/opt/bb/busybox");
	assert_int_equal(unsetenv("BUSYBOX"), 0);
}

static void test_installed_find(void **state)
{
	char tmpl[] = "/tmp/vmtax-test-layout.XXXXXX";
	char buf[PATH_MAX], *root = mkdtemp(tmpl), *bin, *libexec, *other;
	struct layout_dirs d = {0};

	(void)state;
	assert_non_null(root);
	bin = xasprintf("%s/usr/bin", root);
	libexec = xasprintf("%s/usr/libexec/vmtax", root);
	other = xasprintf("%s/usr/bin/../libexec/../bin", root);
	d.bindir = bin;
	d.libexecdir = libexec;
	run("mkdir -p '%s/usr/bin' '%s/usr/libexec/vmtax' '%s/elsewhere'",
	    root);

	/* no agent yet: not an installation */
	assert_int_equal(layout_installed_find(&d, bin, buf, sizeof(buf)),
			 -ENOENT);
	run("touch '%s/usr/libexec/vmtax/vmtax-agent'", root);
	/* the agent must be executable */
	assert_int_equal(layout_installed_find(&d, bin, buf, sizeof(buf)),
			 -ENOENT);
	run("chmod 755 '%s/usr/libexec/vmtax/vmtax-agent'", root);
	assert_int_equal(layout_installed_find(&d, bin, buf, sizeof(buf)), 0);
	assert_string_equal(buf, libexec);
	/* the same directory by another spelling */
	assert_int_equal(layout_installed_find(&d, other, buf, sizeof(buf)), 0);
	/* a vmtax elsewhere (a build tree) is not the installed one */
	free(other);
	other = xasprintf("%s/elsewhere", root);
	assert_int_equal(layout_installed_find(&d, other, buf, sizeof(buf)),
			 -ENOENT);
	run("rm -rf '%s'", root);
	free(bin);
	free(libexec);
	free(other);
}

static void test_installed_paths(void **state)
{
	const struct layout_dirs *d = layout_dirs();
	char *images, *want;

	(void)state;
	/* the configured directories are absolute, FHS places for data */
	assert_true(d->bindir[0] == '/' && d->libexecdir[0] == '/' &&
		    d->datadir[0] == '/');
	assert_true(layout_installed_bin(d->libexecdir));
	assert_false(layout_installed_bin("/x/build/bin"));

	/* installed: images in the cache, data in DATADIR */
	images = guest_images_dir_new(d->libexecdir);
	want = xasprintf("%s/images", d->cachedir);
	assert_string_equal(images, want);
	free(images);
	free(want);
	want = xasprintf("%s/configs/workloads", d->datadir);
	assert_string_equal(layout_workloads_dir(d->libexecdir), want);
	free(want);
	want = xasprintf("%s/mkinitramfs-tiny.sh", d->datadir);
	assert_string_equal(layout_tiny_script(d->libexecdir), want);
	free(want);
	want = xasprintf("%s/mkinitramfs-root.sh", d->datadir);
	assert_string_equal(layout_root_script(d->libexecdir), want);
	free(want);
	want = xasprintf("%s/src", d->cachedir);
	images = guest_srcdir_new(d->libexecdir);
	assert_string_equal(images, want);
	free(images);
	free(want);

	/* a build tree: as it always was */
	images = guest_images_dir_new("/x/build/bin");
	assert_string_equal(images, "/x/build/images");
	free(images);
	assert_string_equal(layout_workloads_dir("/x/build/bin"),
			    "configs/workloads");
	assert_string_equal(layout_tiny_script("/x/build/bin"),
			    "guest-image/build/mkinitramfs-tiny.sh");
	assert_string_equal(layout_root_script("/x/build/bin"),
			    "guest-image/build/mkinitramfs-root.sh");
}

/* A build tree that holds its files: found from any working directory. */
static void test_tree_paths(void **state)
{
	char top[] = "/tmp/vmtax-test-layout.XXXXXX", *p, *want;

	(void)state;
	assert_non_null(mkdtemp(top));
	p = xasprintf("%s/build/bin", top);
	assert_int_equal(mkdir_parents(p, 0755), 0);
	free(p);
	p = xasprintf("%s/configs/workloads", top);
	assert_int_equal(mkdir_parents(p, 0755), 0);
	free(p);
	p = xasprintf("%s/guest-image/build", top);
	assert_int_equal(mkdir_parents(p, 0755), 0);
	free(p);
	p = xasprintf("%s/guest-image/build/mkinitramfs-tiny.sh", top);
	assert_int_equal(write_file_atomic(p, "#!/bin/sh\n", 10), 0);
	free(p);

	p = xasprintf("%s/build/bin", top);
	want = xasprintf("%s/configs/workloads", top);
	assert_string_equal(layout_workloads_dir(p), want);
	free(want);
	want = xasprintf("%s/guest-image/build/mkinitramfs-tiny.sh", top);
	assert_string_equal(layout_tiny_script(p), want);
	free(want);
	free(p);

	p = xasprintf("rm -rf %s", top);
	assert_int_equal(system(p), 0);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_busybox),
	    cmocka_unit_test(test_installed_find),
	    cmocka_unit_test(test_installed_paths),
	    cmocka_unit_test(test_tree_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
