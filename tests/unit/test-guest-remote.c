/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for a remote libvirt's ssh side (orchestrator/fleet/guest-remote.c)
 * with tests/tools/fake-ssh-here.sh first on PATH: "fakebox" is this
 * machine, so the probe, the copies by content hash (and their reuse),
 * a debian disk's overlays (qemu-img there) and the console's way back run
 * for real, with no guest.  Run from the top
 * of the tree (make check-unit).
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

#include "guest-remote.h"
#include "util.h"

static char dir[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char fake[PATH_MAX], *p, *path;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/vmtax-test-guest-remote.XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_non_null(realpath("tests/tools/fake-ssh-here.sh", fake));
	p = xasprintf("%s/bin", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/bin/ssh", dir);
	assert_int_equal(symlink(fake, p), 0);
	free(p);
	p = xasprintf("%s/bin/scp", dir);
	assert_int_equal(symlink(fake, p), 0);
	free(p);
	path = xasprintf("%s/bin:%s", dir, getenv("PATH"));
	setenv("PATH", path, 1);
	free(path);
	p = xasprintf("%s/stage", dir);
	setenv("VMTAX_REMOTE_STAGE_DIR", p, 1);
	free(p);
	p = xasprintf("%s/ssh.log", dir);
	setenv("FAKE_SSH_LOG", p, 1);
	free(p);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

/* The probe, two copies by content hash, their reuse, a console back. */
static void test_stage_and_fetch(void **state)
{
	struct guest_remote *g = NULL;
	struct guest_files f = { 0 };
	char *k = xasprintf("%s/vmlinuz-x", dir), *i = xasprintf("%s/tiny-x", dir);
	char *con, *local = xasprintf("%s/console.log", dir), *text = NULL;
	const char *stage = getenv("VMTAX_REMOTE_STAGE_DIR");

	(void)state;
	put(k, "kernel bytes");
	put(i, "initrd bytes");
	assert_int_equal(guest_remote_open("qemu+ssh://root@fakebox/system",
					   "x.ini", &g), 0);
	assert_string_equal(g->dest, "root@fakebox");
	assert_true(*g->thp);
	assert_true(*g->hostname);
	/* the fake host is this one: its CPUs and available memory */
	assert_int_equal(g->cpus, sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(g->memavail > (64ULL << 20));
	f.kernel = xstrdup(k);
	f.initrd = xstrdup(i);
	assert_int_equal(guest_remote_stage(g, &f), 0);
	assert_int_equal(g->copied, 2);
	assert_int_equal(strncmp(f.kernel, stage, strlen(stage)), 0);
	assert_non_null(strstr(f.kernel, "-vmlinuz-x"));
	assert_int_equal(strlen(strrchr(f.kernel, '/') + 1),
			 16 + strlen("-vmlinuz-x"));
	assert_int_equal(read_file(f.kernel, 1 << 20, &text, NULL), 0);
	assert_string_equal(text, "kernel bytes");
	free(text);
	text = NULL;
	guest_files_release(&f);
	/* the same bytes again: reused, nothing copied */
	f.kernel = xstrdup(k);
	f.initrd = xstrdup(i);
	assert_int_equal(guest_remote_stage(g, &f), 0);
	assert_int_equal(g->copied, 2);
	assert_int_equal(g->reused, 2);
	guest_files_release(&f);
	/* a console there comes back and is removed there */
	con = guest_remote_console_new(g, "vmtax-x-1-2");
	put(con, "Linux version 6.1\n");
	assert_int_equal(guest_remote_fetch(g, con, local), 0);
	assert_int_equal(read_file(local, 1 << 20, &text, NULL), 0);
	assert_string_equal(text, "Linux version 6.1\n");
	assert_int_equal(access(con, F_OK), -1);
	free(text);
	free(con);
	guest_remote_free(g);
	free(k);
	free(i);
	free(local);
}

/*
 * A debian image's disk is copied there too (read in blocks, by hash), its
 * overlays made there with qemu-img, one a guest, and removed; an overlay
 * of this host's vmtax that was killed goes at the next stage, others'
 * stay.
 */
static void test_disk_and_overlays(void **state)
{
	struct guest_remote *g = NULL;
	struct guest_files f = { 0 };
	char *k = xasprintf("%s/vmlinuz-d", dir), *i = xasprintf("%s/initrd-d", dir);
	char *d = xasprintf("%s/debian-0123.qcow2", dir), *cmd, *ov = NULL;
	char *dead = NULL, *other = NULL, host[256] = "", *p;
	const char *stage = getenv("VMTAX_REMOTE_STAGE_DIR");
	size_t o = 0;

	(void)state;
	cmd = xasprintf("qemu-img create -q -f qcow2 '%s' 16M", d);
	if (system(cmd) != 0) {
		free(cmd);
		free(k);
		free(i);
		free(d);
		skip();
	}
	free(cmd);
	put(k, "kernel d");
	put(i, "initrd d");
	assert_int_equal(guest_remote_open("qemu+ssh://root@fakebox/system",
					   "x.ini", &g), 0);
	f.kernel = xstrdup(k);
	f.initrd = xstrdup(i);
	f.disk = xstrdup(d);
	f.overlay_dir = xstrdup("/here/overlays");
	assert_int_equal(guest_remote_stage(g, &f), 0);
	assert_int_equal(g->copied, 3);
	assert_int_equal(strncmp(f.disk, stage, strlen(stage)), 0);
	assert_non_null(strstr(f.disk, "-debian-0123.qcow2"));
	/* Named by the hash of its bytes, read in blocks as in one piece. */
	{
		char *bytes = NULL, *want;
		size_t n = 0;

		assert_int_equal(read_file(d, 1 << 24, &bytes, &n), 0);
		assert_true(n > (1 << 16));
		want = xasprintf("%016llx-debian-0123.qcow2",
				 (unsigned long long)hash_fnv1a(bytes, n));
		assert_string_equal(strrchr(f.disk, '/') + 1, want);
		free(want);
		free(bytes);
	}
	p = xasprintf("%s/" GUEST_REMOTE_OVERLAYS, stage);
	assert_string_equal(f.overlay_dir, p);
	free(p);
	/* A guest's overlay: there, on the staged disk, named for this host
	 * and this vmtax. */
	gethostname(host, sizeof(host) - 1);
	for (p = host; *p; p++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789.", *p))
			host[o++] = *p;
	host[o] = '\0';
	assert_int_equal(guest_remote_overlay(g, &f, "guest-x", &ov), 0);
	p = xasprintf("%s/%s-%d-guest-x.qcow2", f.overlay_dir, host,
		      (int)getpid());
	assert_string_equal(ov, p);
	free(p);
	cmd = xasprintf("qemu-img info --output=json '%s' | grep -q "
			"'\"backing-filename\": \"%s\"'",
			ov, f.disk);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	guest_remote_remove(g, ov);
	assert_int_equal(access(ov, F_OK), -1);
	free(ov);
	/* A killed vmtax's overlay (no such PID here), and another host's. */
	dead = xasprintf("%s/%s-999999999-guest-y.qcow2", f.overlay_dir, host);
	other = xasprintf("%s/otherhost-999999999-guest-y.qcow2",
			  f.overlay_dir);
	put(dead, "x");
	put(other, "x");
	guest_files_release(&f);
	f.kernel = xstrdup(k);
	f.initrd = xstrdup(i);
	f.disk = xstrdup(d);
	assert_int_equal(guest_remote_stage(g, &f), 0);
	assert_int_equal(g->copied, 3); /* all three reused */
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(other, F_OK), 0);
	guest_files_release(&f);
	guest_remote_free(g);
	free(dead);
	free(other);
	free(k);
	free(i);
	free(d);
}

/* An unknown host is refused; a local URI is not remote. */
static void test_refused(void **state)
{
	struct guest_remote *g = NULL;

	(void)state;
	assert_int_equal(guest_remote_open("qemu+ssh://root@otherbox/system",
					   "x.ini", &g), -EINVAL);
	assert_null(g);
	assert_int_equal(guest_remote_open("qemu:///system", "x.ini", &g),
			 -EINVAL);
	assert_null(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_and_fetch),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_disk_and_overlays),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
