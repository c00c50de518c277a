/* SPDX-License-Identifier: MIT */
/*
 * hugetlb.2M and hugetlb.1G: the persistent hugetlb pools,
 * /sys/kernel/mm/hugepages/hugepages-{2048,1048576}kB/nr_hugepages.  The
 * value is a page count.  The kernel allocates what it can and says nothing,
 * so the count read back is what counts: fewer pages than asked (memory too
 * fragmented) or more (pages in use cannot be freed) is an error.
 */
#include "knob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

static bool parse_count(const char *s, unsigned long *n)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	*n = strtoul(s, &end, 10);
	return !errno && !*end;
}

static int hugetlb_read(const struct host_knob *k, struct host_ctx *ctx,
			char *buf, size_t len)
{
	unsigned long n;
	int ret;

	ret = host_read_sys(ctx, k->file, buf, len);
	if (ret < 0)
		return ret;
	if (!parse_count(buf, &n))
		return err("'%s' holds '%s', not a page count", k->file, buf);
	return 0;
}

static bool hugetlb_supported(const struct host_knob *k, struct host_ctx *ctx,
			      const char *value, char *why, size_t len)
{
	bool gig = k->ops == &host_knob_hugetlb_1g;
	char *path = host_path_new(ctx, k->file);
	struct host_cpu cpu;
	unsigned long n;
	bool ok = false;
	struct stat st;

	if (value && !parse_count(value, &n)) {
		snprintf(why, len, "'%s' is not a page count", value);
		goto out;
	}
	if (stat(path, &st)) {
		snprintf(why, len, "no '%s': %s%s", k->file, strerror(errno),
			 gig ? " (1G pages need the pdpe1gb cpu flag and "
			       "kernel support)"
			     : "");
		goto out;
	}
	/* A non-zero 1G pool on a cpu without pdpe1gb cannot work. */
	if (gig && value && n > 0 && !host_cpu_read(ctx->root, &cpu) &&
	    !host_cpu_has(&cpu, "pdpe1gb")) {
		snprintf(why, len, "the cpu has no pdpe1gb flag");
		goto out;
	}
	ok = true;
out:
	free(path);
	return ok;
}

static int hugetlb_apply(const struct host_knob *k, struct host_ctx *ctx,
			 const char *value)
{
	char got[HOST_VALUE_MAX];
	unsigned long want, have;
	int ret;

	if (!parse_count(value, &want))
		return err("'%s' is not a page count for '%s'", value, k->name);
	/* A short allocation may fail the write with ENOMEM or succeed. */
	ret = host_write_sys(ctx, k->file, value);
	if (ret < 0 && ret != -ENOMEM)
		return ret;
	ret = hugetlb_read(k, ctx, got, sizeof(got));
	if (ret < 0)
		return ret;
	parse_count(got, &have);
	if (have < want)
		return err_code(
		    -EIO,
		    "'%s' reads back %lu, expected %lu: only %lu of "
		    "%lu %s pages could be allocated",
		    k->file, have, want, have, want,
		    k->ops == &host_knob_hugetlb_1g ? "1G" : "2M");
	if (have > want)
		return err_code(
		    -EIO,
		    "'%s' reads back %lu, expected %lu: pages in use "
		    "could not be freed",
		    k->file, have, want);
	return 0;
}

const struct host_knob_ops host_knob_hugetlb_2m = {
    .name = "hugetlb.2M",
    .values = "a count of 2M pages",
    .file = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
    .read = hugetlb_read,
    .supported = hugetlb_supported,
    .apply = hugetlb_apply,
};

const struct host_knob_ops host_knob_hugetlb_1g = {
    .name = "hugetlb.1G",
    .values = "a count of 1G pages",
    .file = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages",
    .read = hugetlb_read,
    .supported = hugetlb_supported,
    .apply = hugetlb_apply,
};
