/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the set-up of the debian image a lab carries
 * (orchestrator/lab/lab-carrier.c, lab_carrier_cmd_new()), run here on a
 * scratch tree that stands for the lab: a fake /sys/block, and as the
 * carried disk an ext4 file system in a file (mke2fs -d), mounted as the
 * lab mounts its /dev/vdb.  Needs root (mount), mke2fs and qemu-img;
 * skipped without them.  The lab itself runs it in
 * tests/slow/t0548-lab-debian.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab-session.h"
#include "util.h"

/* The scratch tree: D/sys/vd{a,b}, D/dev/vdb (ext4), D/images. */
struct tree {
	char *d, *sys, *dev, *images;
};

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	st = system(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A file of N bytes of C. */
static void fill(const char *path, size_t n, char c)
{
	char *buf = malloc(n);
	FILE *f = fopen(path, "w");

	assert_non_null(buf);
	assert_non_null(f);
	memset(buf, c, n);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
	free(buf);
}

/*
 * The carried disk: /boot with two kernels, 6.1.0-9 (100 and 200 bytes,
 * the one this host booted) and 6.1.0-8 (50 and 200 bytes); vda without a
 * serial, vdb the carrier, read-only.
 */
static int setup(void **state)
{
	char tmpl[] = "/tmp/vmtax-test-lab-carrier.XXXXXX";
	struct tree *t = calloc(1, sizeof(*t));
	char *root, *p;

	if (geteuid() != 0 || sh("command -v mke2fs qemu-img mount "
				 ">/dev/null") != 0) {
		free(t);
		*state = NULL;
		return 0;
	}
	assert_non_null(mkdtemp(tmpl));
	t->d = xstrdup(tmpl);
	t->sys = xasprintf("%s/sys", t->d);
	t->dev = xasprintf("%s/dev", t->d);
	t->images = xasprintf("%s/images", t->d);
	root = xasprintf("%s/root", t->d);
	assert_int_equal(sh("mkdir -p '%s/vda' '%s/vdb' '%s' '%s/boot'",
			    t->sys, t->sys, t->dev, root),
			 0);
	p = xasprintf("%s/vda/ro", t->sys);
	put(p, "0\n");
	free(p);
	p = xasprintf("%s/vdb/ro", t->sys);
	put(p, "1\n");
	free(p);
	p = xasprintf("%s/vdb/serial", t->sys);
	put(p, VM_CARRIER_SERIAL);
	free(p);
	p = xasprintf("%s/boot/vmlinuz-6.1.0-9-amd64", root);
	fill(p, 100, 'K');
	free(p);
	p = xasprintf("%s/boot/initrd.img-6.1.0-9-amd64", root);
	fill(p, 200, 'I');
	free(p);
	p = xasprintf("%s/boot/vmlinuz-6.1.0-8-amd64", root);
	fill(p, 50, 'k');
	free(p);
	p = xasprintf("%s/boot/initrd.img-6.1.0-8-amd64", root);
	fill(p, 200, 'i');
	free(p);
	assert_int_equal(sh("mke2fs -q -F -t ext4 -d '%s' '%s/vdb' 8M >/dev/null", root,
			    t->dev),
			 0);
	free(root);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	if (!t)
		return 0;
	sh("rm -rf '%s'", t->d);
	free(t->d);
	free(t->sys);
	free(t->dev);
	free(t->images);
	free(t);
	return 0;
}

static struct lab_carrier_want want(const struct tree *t)
{
	struct lab_carrier_want w = {
		.sys_block = t->sys,
		.dev_dir = t->dev,
		.images = t->images,
		.qcow2 = "debian-0123456789abcdef.qcow2",
		.vmlinuz = "debian-0123456789abcdef.vmlinuz",
		.initrd = "debian-0123456789abcdef.initrd",
		.vmlinuz_bytes = 100,
		.initrd_bytes = 200,
	};

	return w;
}

/* Run W's command: its exit status, and its output into OUT. */
static int run(const struct tree *t, const struct lab_carrier_want *w,
	       char *out, size_t len)
{
	char *cmd = lab_carrier_cmd_new(w);
	char *path = xasprintf("%s/cmd.sh", t->d);
	size_t n;
	FILE *p;
	int st;

	put(path, cmd);
	free(cmd);
	cmd = xasprintf("sh '%s' 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	free(cmd);
	free(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_sets_up(void **state)
{
	struct tree *t = *state;
	struct lab_carrier_want w;
	char out[4096], link[256], *p;
	struct stat st;
	ssize_t n;

	if (!t)
		skip();
	w = want(t);
	assert_int_equal(run(t, &w, out, sizeof(out)), 0);
	/* The kernel of this host's sizes, not the other one. */
	assert_non_null(strstr(out, "kernel=6.1.0-9-amd64\n"));
	p = xasprintf("disk=%s/vdb\n", t->dev);
	assert_non_null(strstr(out, p));
	free(p);
	p = xasprintf("%s/debian-0123456789abcdef.vmlinuz", t->images);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 100);
	free(p);
	p = xasprintf("%s/debian-0123456789abcdef.initrd", t->images);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 200);
	free(p);
	/* The qcow2 on the raw device, and the links the inner vmtax reads. */
	assert_int_equal(
	    sh("qemu-img info --output=json '%s/debian-0123456789abcdef.qcow2' "
	       "| grep -q '\"backing-filename\": \"%s/vdb\"' && "
	       "qemu-img info --output=json "
	       "'%s/debian-0123456789abcdef.qcow2' | grep -q "
	       "'\"backing-filename-format\": \"raw\"'",
	       t->images, t->dev, t->images),
	    0);
	p = xasprintf("%s/debian.qcow2", t->images);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "debian-0123456789abcdef.qcow2");
	free(p);
	p = xasprintf("%s/debian.vmlinuz", t->images);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "debian-0123456789abcdef.vmlinuz");
	free(p);
	p = xasprintf("%s/debian.initrd", t->images);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "debian-0123456789abcdef.initrd");
	free(p);
	/* A lab booted again on its kept disk: nothing copied again. */
	assert_int_equal(run(t, &w, out, sizeof(out)), 0);
	assert_null(strstr(out, "kernel="));
	assert_non_null(strstr(out, "disk="));
	/* Nothing left mounted. */
	assert_int_not_equal(sh("grep -q '%s' /proc/mounts", t->dev), 0);
}

/* What the carried disk lacks: exit status 3, each with its own line. */
static void test_refuses(void **state)
{
	struct tree *t = *state;
	struct lab_carrier_want w;
	char out[4096], *p, *want_msg;

	if (!t)
		skip();
	/* No kernel of this host's size: nothing made, nothing mounted. */
	w = want(t);
	w.images = p = xasprintf("%s/images-2", t->d);
	w.vmlinuz_bytes = 99;
	assert_int_equal(run(t, &w, out, sizeof(out)), 3);
	want_msg = xasprintf("no /boot/vmlinuz-* of 99 bytes with its "
			     "initrd.img of 200 bytes in the carried image "
			     "(%s/vdb)",
			     t->dev);
	assert_non_null(strstr(out, want_msg));
	free(want_msg);
	assert_int_not_equal(sh("ls '%s'/debian* 2>/dev/null | grep -q .", p),
			     0);
	assert_int_not_equal(sh("grep -q '%s' /proc/mounts", t->dev), 0);
	free(p);
	/* The carrier writable. */
	p = xasprintf("%s/vdb/ro", t->sys);
	put(p, "0\n");
	w = want(t);
	assert_int_equal(run(t, &w, out, sizeof(out)), 3);
	want_msg = xasprintf("%s/vdb, the carried image, is not read-only",
			     t->dev);
	assert_non_null(strstr(out, want_msg));
	free(want_msg);
	put(p, "1\n");
	free(p);
	/* No disk with the carrier's serial. */
	p = xasprintf("%s/vdb/serial", t->sys);
	put(p, "something-else");
	assert_int_equal(run(t, &w, out, sizeof(out)), 3);
	want_msg = xasprintf("no disk with serial " VM_CARRIER_SERIAL " in %s",
			     t->sys);
	assert_non_null(strstr(out, want_msg));
	free(want_msg);
	put(p, VM_CARRIER_SERIAL);
	free(p);
}

/* Names with spaces or quotes reach the script as words. */
static void test_quoted(void **state)
{
	struct lab_carrier_want w = {
		.sys_block = "/s", .dev_dir = "/d", .images = "/i x",
		.qcow2 = "a'b.qcow2", .vmlinuz = "v", .initrd = "r",
		.vmlinuz_bytes = 1, .initrd_bytes = 2,
	};
	char *cmd = lab_carrier_cmd_new(&w);

	(void)state;
	assert_non_null(strstr(cmd, "d='/i x'\n"));
	assert_non_null(strstr(cmd, "q='a'\\''b.qcow2'\n"));
	assert_non_null(strstr(cmd, "serial='" VM_CARRIER_SERIAL "'\n"));
	assert_non_null(strstr(cmd, "ks='1'\nis='2'\n"));
	assert_non_null(strstr(cmd, "lq='debian.qcow2'\n"));
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoted),
		cmocka_unit_test(test_sets_up),
		cmocka_unit_test(test_refuses),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
