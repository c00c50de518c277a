// SPDX-License-Identifier: MIT
/*
 * Unit tests for host/observe.c: hugetlbfs mounts, QEMU's AnonHugePages and
 * hugetlb pages in use, read from crafted /proc and /sys files in a temp dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "host.h"
#include "util.h"

#include "fake-root.h"

static char root[64];

/* ROOT/REL holds CONTENT */
static void put(const char *rel, const char *content)
{
	fake_root_put(root, rel, content);
}

static void rm(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/vmtax-test-observe.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

#define ROOTFS "/dev/sda1 / ext4 rw,relatime 0 0\n"
#define M2 2048UL
#define G1 1048576UL

static void test_hugetlbfs_mounted(void **state)
{
	static const struct {
		const char *mounts;
		const char *meminfo; /* NULL: no /proc/meminfo */
		unsigned long kib;
		int want;
	} rows[] = {
	    /* the kernel's own spelling */
	    {ROOTFS "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,"
		    "pagesize=2M 0 0\n",
	     NULL, M2, 1},
	    {ROOTFS "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,"
		    "pagesize=2M 0 0\n",
	     NULL, G1, 0},
	    {ROOTFS "none /mnt/h1g hugetlbfs rw,relatime,pagesize=1024M 0 0\n",
	     NULL, G1, 1},
	    {ROOTFS "none /mnt/h1g hugetlbfs rw,pagesize=1G 0 0\n", NULL, G1,
	     1},
	    {ROOTFS "none /mnt/h1g hugetlbfs rw,pagesize=1G 0 0\n", NULL, M2,
	     0},
	    /* other spellings of the size */
	    {"none /mnt/h hugetlbfs rw,pagesize=2048K 0 0\n", NULL, M2, 1},
	    {"none /mnt/h hugetlbfs rw,pagesize=2097152 0 0\n", NULL, M2, 1},
	    /* no pagesize=: the default size, from /proc/meminfo */
	    {"none /mnt/h hugetlbfs rw,relatime 0 0\n", NULL, M2, 1},
	    {"none /mnt/h hugetlbfs rw,relatime 0 0\n",
	     "MemTotal: 100 kB\nHugepagesize:    1048576 kB\n", G1, 1},
	    {"none /mnt/h hugetlbfs rw,relatime 0 0\n",
	     "MemTotal: 100 kB\nHugepagesize:    1048576 kB\n", M2, 0},
	    {"none /mnt/h hugetlbfs rw,relatime 0 0\n",
	     "Hugepagesize:       2048 kB\n", M2, 1},
	    /* not hugetlbfs, whatever the names and options say */
	    {"hugetlbfs /mnt/hugetlbfs tmpfs rw,pagesize=2M 0 0\n", NULL, M2,
	     0},
	    {ROOTFS, NULL, M2, 0},
	    {"", NULL, M2, 0},
	    /* both pools mounted */
	    {"a /a hugetlbfs rw,pagesize=2M 0 0\n"
	     "b /b hugetlbfs rw,pagesize=1G 0 0\n",
	     NULL, G1, 1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		int got;

		put("/proc/mounts", rows[i].mounts);
		if (rows[i].meminfo)
			put("/proc/meminfo", rows[i].meminfo);
		else
			rm("/proc/meminfo");
		got = host_hugetlbfs_mounted(root, rows[i].kib);
		if (got != rows[i].want)
			fail_msg("row %zu (%lu kB): got %d, want %d", i,
				 rows[i].kib, got, rows[i].want);
	}
	rm("/proc/mounts");
	assert_int_equal(host_hugetlbfs_mounted(root, M2), -ENOENT);
}

static void test_anon_huge_kb(void **state)
{
	long kb = -1;

	(void)state;
	put("/proc/4242/smaps_rollup",
	    "55d0c0000000-7ffd12345000 ---p 00000000 00:00 0   [rollup]\n"
	    "Rss:             8401232 kB\n"
	    "XAnonHugePages:       99 kB\n"
	    "AnonHugePages:    407552 kB\n"
	    "ShmemPmdMapped:        0 kB\n");
	assert_int_equal(host_anon_huge_kb(root, 4242, &kb), 0);
	assert_int_equal(kb, 407552);

	/* zero is a real value */
	put("/proc/7/smaps_rollup", "Rss: 10 kB\nAnonHugePages:      0 kB\n");
	assert_int_equal(host_anon_huge_kb(root, 7, &kb), 0);
	assert_int_equal(kb, 0);

	/* unknown is never 0 */
	kb = -1;
	put("/proc/8/smaps_rollup", "Rss: 10 kB\n");
	assert_int_equal(host_anon_huge_kb(root, 8, &kb), -ENOENT);
	put("/proc/9/smaps_rollup", "AnonHugePages: lots\n");
	assert_int_equal(host_anon_huge_kb(root, 9, &kb), -EINVAL);
	assert_int_equal(host_anon_huge_kb(root, 10, &kb), -ENOENT);
	assert_int_equal(host_anon_huge_kb(root, 0, &kb), -ESRCH);
	assert_int_equal(host_anon_huge_kb(root, -1, &kb), -ESRCH);
	assert_int_equal(kb, -1);
}

#define POOL2M "/sys/kernel/mm/hugepages/hugepages-2048kB/"
#define POOL1G "/sys/kernel/mm/hugepages/hugepages-1048576kB/"

static void test_hugetlb_in_use(void **state)
{
	long pages = -1;

	(void)state;
	put(POOL2M "nr_hugepages", "512\n");
	put(POOL2M "free_hugepages", "500\n");
	assert_int_equal(host_hugetlb_in_use(root, M2, &pages), 0);
	assert_int_equal(pages, 12);

	put(POOL1G "nr_hugepages", "0\n");
	put(POOL1G "free_hugepages", "0\n");
	assert_int_equal(host_hugetlb_in_use(root, G1, &pages), 0);
	assert_int_equal(pages, 0);

	/* unknown is never 0 */
	pages = -1;
	rm(POOL1G "free_hugepages");
	assert_int_equal(host_hugetlb_in_use(root, G1, &pages), -ENOENT);
	assert_int_equal(host_hugetlb_in_use(root, 64, &pages), -ENOENT);
	put(POOL2M "free_hugepages", "600\n");
	assert_int_equal(host_hugetlb_in_use(root, M2, &pages), -EINVAL);
	put(POOL2M "free_hugepages", "5x\n");
	assert_int_equal(host_hugetlb_in_use(root, M2, &pages), -EINVAL);
	put(POOL2M "free_hugepages", "\n");
	assert_int_equal(host_hugetlb_in_use(root, M2, &pages), -EINVAL);
	assert_int_equal(pages, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_hugetlbfs_mounted, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_anon_huge_kb, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hugetlb_in_use, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
