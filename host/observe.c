/* SPDX-License-Identifier: MIT */
/* Read-only host observations for a cell's "observed"; see host.h. */
#include "host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Files here are small; this bounds a broken or hostile one. */
#define OBSERVE_FILE_MAX (1 << 20)

/*
 * The number at the start of S into *N (leading blanks skipped); END gets
 * what follows.  false when there is no number or it overflows.
 */
static bool parse_ulong(const char *s, unsigned long *n, const char **end)
{
	char *e;

	s += strspn(s, " \t");
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*n = strtoul(s, &e, 10);
	if (errno)
		return false;
	if (end)
		*end = e;
	return true;
}

/* "2M", "1G", "1024M", "2048K", "2097152" (bytes) in kB, or 0. */
static unsigned long pagesize_kib(const char *s, size_t n)
{
	unsigned long v;
	const char *e;
	char buf[32];

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!parse_ulong(buf, &v, &e))
		return 0;
	if (!strcmp(e, "K") || !strcmp(e, "k"))
		return v;
	if (!strcmp(e, "M") || !strcmp(e, "m"))
		return v * 1024;
	if (!strcmp(e, "G") || !strcmp(e, "g"))
		return v * 1024 * 1024;
	if (!*e)
		return v / 1024;
	return 0;
}

/* The "KEY:   N kB" value of TEXT (a meminfo-style file), or -ENOENT. */
static int kb_field(const char *text, const char *key, long *kb)
{
	size_t n = strlen(key);
	const char *line;
	unsigned long v;

	for (line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, key, n) || line[n] != ':')
			continue;
		if (!parse_ulong(line + n + 1, &v, NULL))
			return -EINVAL;
		*kb = (long)v;
		return 0;
	}
	return -ENOENT;
}

int host_meminfo_kb(const char *root, const char *key, long *kb)
{
	char *path = xasprintf("%s/proc/meminfo", root ? root : ""), *text = NULL;
	int ret = read_file(path, OBSERVE_FILE_MAX, &text, NULL);

	if (ret == 0)
		ret = kb_field(text, key, kb);
	free(path);
	free(text);
	return ret;
}

/* The default huge page size (Hugepagesize of /proc/meminfo), or 2048. */
static unsigned long default_hugepage_kib(const char *root)
{
	long kb = 2048;

	if (host_meminfo_kb(root, "Hugepagesize", &kb) < 0 || kb <= 0)
		kb = 2048;
	return (unsigned long)kb;
}

int host_hugetlbfs_mounted(const char *root, unsigned long kib)
{
	char *path = xasprintf("%s/proc/mounts", root ? root : "");
	char *text = NULL, *line, *save = NULL;
	int ret;

	ret = read_file(path, OBSERVE_FILE_MAX, &text, NULL);
	if (ret < 0)
		goto out;
	ret = 0;
	for (line = strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *field[4], *fsave = NULL, *opt;
		unsigned long size = 0;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(field); i++)
			field[i] = strtok_r(i ? NULL : line, " ", &fsave);
		if (!field[3] || strcmp(field[2], "hugetlbfs"))
			continue;
		for (opt = field[3]; *opt;) {
			size_t n = strcspn(opt, ",");

			if (!strncmp(opt, "pagesize=", 9))
				size = pagesize_kib(opt + 9, n - 9);
			opt += n + (opt[n] == ',');
		}
		if (!size)
			size = default_hugepage_kib(root ? root : "");
		if (size == kib)
			ret = 1;
	}
out:
	free(path);
	free(text);
	return ret;
}

int host_anon_huge_kb(const char *root, int pid, long *kb)
{
	char *path, *text = NULL;
	int ret;

	if (pid <= 0)
		return -ESRCH;
	path = xasprintf("%s/proc/%d/smaps_rollup", root ? root : "", pid);
	ret = read_file(path, OBSERVE_FILE_MAX, &text, NULL);
	if (ret == 0)
		ret = kb_field(text, "AnonHugePages", kb);
	free(path);
	free(text);
	return ret;
}

/* The count in ROOT/sys/kernel/mm/hugepages/hugepages-KIBkB/FILE. */
static int pool_count(const char *root, unsigned long kib, const char *file,
		      unsigned long *n)
{
	char *path = xasprintf("%s/sys/kernel/mm/hugepages/hugepages-%lukB/%s",
			       root, kib, file);
	char buf[32];
	const char *end;
	int ret;

	ret = read_line(path, buf, sizeof(buf));
	if (ret == 0 && (!parse_ulong(buf, n, &end) || *end))
		ret = -EINVAL;
	free(path);
	return ret;
}

int host_hugetlb_in_use(const char *root, unsigned long kib, long *pages)
{
	unsigned long total, free_pages;
	int ret;

	if (!root)
		root = "";
	ret = pool_count(root, kib, "nr_hugepages", &total);
	if (ret == 0)
		ret = pool_count(root, kib, "free_hugepages", &free_pages);
	if (ret < 0)
		return ret;
	/* Free pages are part of the pool: more free than total is a lie. */
	if (free_pages > total)
		return -EINVAL;
	*pages = (long)(total - free_pages);
	return 0;
}
