/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/beneath.c's rules on links and file types: the walk of
 * a path the user names (dir_open_path(), path_open_file()), where a
 * symbolic link is followed only when the user running it or root owns
 * it; openat_file(), which opens only a regular file, never blocking; and
 * stat_ours_file(), which refuses a hard link.  Each bad case is a row with
 * its own reason.  All in a scratch directory; rows that need chown -h to
 * another user run as root only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "util.h"

#define NOBODY 65534

static char top[64];

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/vmtax-test-beneath.XXXXXX");
	if (!mkdtemp(top) || chdir(top) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (chdir("/") < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* A symlink NAME -> TARGET, owned by UID (-1: ours). */
static void link_make(const char *target, const char *name, int uid)
{
	assert_int_equal(symlink(target, name), 0);
	if (uid >= 0)
		assert_int_equal(lchown(name, (uid_t)uid, (gid_t)-1), 0);
}

/* Whether PATH is a directory (not following a link at its end). */
static bool is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A walk that is refused: each row its reason, nothing made. */
static void test_walk_refused(void **state)
{
	static const struct {
		const char *what, *path;
		int err;
		const char *why;
		bool root; /* needs chown -h */
	} rows[] = {
		{ "another user's link, the path", "theirs", -ELOOP,
		  "it is a symbolic link owned by uid 65534, not by root: not "
		  "followed",
		  true },
		{ "another user's link on the way", "theirs/a/b", -ELOOP,
		  "'theirs' is a symbolic link owned by uid 65534, not by root",
		  true },
		{ "another user's link behind ours", "ours2/x", -ELOOP,
		  "'theirs' is a symbolic link owned by uid 65534", true },
		{ "a loop of our own links", "loop1/x", -ELOOP,
		  "is one symbolic link too many", false },
		{ "a file on the way", "file/x", -ENOTDIR,
		  "'file': Not a directory", false },
		{ "an empty path", "", -ENOENT, "an empty path", false },
	};
	char why[PATH_MAX + 192];
	size_t i;
	int fd;

	(void)state;
	assert_int_equal(mkdir("target", 0755), 0);
	assert_int_equal(close(creat("file", 0644)), 0);
	link_make("loop2", "loop1", -1);
	link_make("loop1", "loop2", -1);
	if (geteuid() == 0) {
		link_make("target", "theirs", NOBODY);
		link_make("theirs", "ours2", -1);
	}
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (rows[i].root && geteuid() != 0)
			continue;
		fd = dir_open_path(rows[i].path, true, 0755, why, sizeof(why));
		if (fd != rows[i].err || !strstr(why, rows[i].why))
			fail_msg("%s: %d: %s", rows[i].what, fd, why);
	}
	assert_false(is_dir("target/a"));
	assert_false(is_dir("target/x"));
}

/* Our own links are followed, relative and absolute; missing parts made. */
static void test_walk_followed(void **state)
{
	char abs[PATH_MAX], why[PATH_MAX + 192], *got;
	int fd;

	(void)state;
	assert_int_equal(mkdir("target", 0755), 0);
	link_make("target", "rel", -1);
	snprintf(abs, sizeof(abs), "%s/target", top);
	link_make(abs, "abs", -1);
	link_make("../target/.", "target/up", -1); /* .. inside a target */

	fd = dir_open_path("rel/a/b", true, 0755, why, sizeof(why));
	assert_true(fd >= 0);
	got = fd_path_new(fd);
	snprintf(abs, sizeof(abs), "%s/target/a/b", top);
	assert_string_equal(got, abs);
	free(got);
	close(fd);
	assert_true(is_dir("target/a/b"));

	fd = dir_open_path("abs/up/c", true, 0755, why, sizeof(why));
	if (fd < 0)
		fail_msg("abs/up/c: %s", why);
	close(fd);
	assert_true(is_dir("target/c"));

	/* without MAKE a missing part is an error naming it */
	fd = dir_open_path("rel/nope/d", false, 0, why, sizeof(why));
	assert_int_equal(fd, -ENOENT);
	assert_string_equal(why, "'target/nope': No such file or directory");
	assert_false(is_dir("target/nope"));
}

/* openat_file(): a regular file only, a FIFO not waited on. */
static void test_open_file(void **state)
{
	static const struct {
		const char *rel;
		int err;
		const char *why;
	} rows[] = {
		{ "fifo", -EBADFD,
		  "not a regular file (a FIFO, a device or a socket)" },
		{ "dir", -EISDIR, "a directory, not a file" },
		{ "link", -ELOOP, "a symbolic link (not followed)" },
		{ "dir/link", -ELOOP, "a symbolic link (not followed)" },
		{ "dirlink/file", -ELOOP, "a symbolic link (not followed)" },
		{ "../x", -EXDEV, "not a path inside the directory" },
		{ "nope", -ENOENT, "No such file or directory" },
	};
	char *text = NULL, why[256];
	size_t i, len;
	int dfd, fd;

	(void)state;
	assert_int_equal(mkfifo("fifo", 0644), 0);
	assert_int_equal(mkdir("dir", 0755), 0);
	assert_int_equal(close(creat("dir/file", 0644)), 0);
	link_make("dir/file", "link", -1);
	link_make("file", "dir/link", -1);
	link_make("dir", "dirlink", -1);
	dfd = open(".", O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		fd = openat_file(dfd, rows[i].rel);
		if (fd != rows[i].err ||
		    strcmp(beneath_strerror(fd), rows[i].why))
			fail_msg("%s: %d: %s", rows[i].rel, fd,
				 beneath_strerror(fd));
	}
	fd = openat_file(dfd, "dir/file");
	assert_true(fd >= 0);
	close(fd);
	close(dfd);
	/* read_path_file(): the FIFO's why; our own link read */
	assert_int_equal(
	    read_path_file("fifo", 64, &text, &len, why, sizeof(why)),
	    -EBADFD);
	assert_string_equal(why,
			    "not a regular file (a FIFO, a device or a socket)");
	assert_int_equal(
	    read_path_file("link", 64, &text, &len, why, sizeof(why)), 0);
	assert_int_equal(len, 0);
	free(text);
}

/* stat_ours_file(): one name, a regular file, ours. */
static void test_stat_ours_file(void **state)
{
	struct stat st;
	char why[128];

	(void)state;
	assert_int_equal(close(creat("one", 0600)), 0);
	assert_int_equal(stat("one", &st), 0);
	assert_true(stat_ours_file(&st, why, sizeof(why)));
	assert_int_equal(link("one", "two"), 0);
	assert_int_equal(stat("one", &st), 0);
	assert_false(stat_ours_file(&st, why, sizeof(why)));
	assert_non_null(strstr(why, "a hard link (2 names)"));
	assert_int_equal(mkfifo("fifo", 0600), 0);
	assert_int_equal(stat("fifo", &st), 0);
	assert_false(stat_ours_file(&st, why, sizeof(why)));
	assert_string_equal(why, "not a regular file");
	assert_int_equal(chmod("two", 0666), 0);
	assert_int_equal(unlink("one"), 0);
	assert_int_equal(stat("two", &st), 0);
	assert_false(stat_ours_file(&st, why, sizeof(why)));
	assert_string_equal(why, "writable by others (mode 0666)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_walk_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_walk_followed, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_open_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_ours_file, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
