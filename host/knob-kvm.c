/* SPDX-License-Identifier: MIT */
/*
 * kvm.nx_huge_pages: /sys/module/kvm/parameters/nx_huge_pages, the iTLB
 * multihit mitigation that splits executable huge pages in the guest's
 * EPT/NPT.  It reads "Y", "N" or "never"; it takes those and also "auto"
 * (Y where the cpu has the bug), "force" (Y) and "off" (N).
 */
#include "knob.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* What VALUE must read back as; "" for "Y or N" (auto). */
static const char *nx_expect(const char *value)
{
	static const struct {
		const char *in, *out;
	} map[] = {
	    {"Y", "Y"},	  {"y", "Y"},	      {"1", "Y"}, {"force", "Y"},
	    {"N", "N"},	  {"n", "N"},	      {"0", "N"}, {"off", "N"},
	    {"auto", ""}, {"never", "never"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].in, value))
			return map[i].out;
	return NULL;
}

static int nx_read(const struct host_knob *k, struct host_ctx *ctx, char *buf,
		   size_t len)
{
	return host_read_sys(ctx, k->file, buf, len);
}

static bool nx_supported(const struct host_knob *k, struct host_ctx *ctx,
			 const char *value, char *why, size_t len)
{
	char cur[HOST_VALUE_MAX];
	int ret;

	if (value && !nx_expect(value)) {
		snprintf(why, len, "'%s' is not one of %s", value,
			 k->ops->values);
		return false;
	}
	ret = host_read(ctx, k->file, cur, sizeof(cur));
	if (ret < 0) {
		snprintf(why, len, "cannot read '%s': %s%s", k->file,
			 strerror(-ret),
			 ret == -ENOENT ? " (is the kvm module loaded?)" : "");
		return false;
	}
	if (!strcmp(cur, "never") && value && strcmp(value, "never")) {
		snprintf(why, len,
			 "nx_huge_pages is 'never' (disabled at boot "
			 "with kvm.nx_huge_pages=never) and cannot be "
			 "turned back on");
		return false;
	}
	return true;
}

static int nx_apply(const struct host_knob *k, struct host_ctx *ctx,
		    const char *value)
{
	const char *want = nx_expect(value);
	char got[HOST_VALUE_MAX];
	int ret;

	if (!want)
		return err("'%s' is not a value of '%s' (%s)", value, k->name,
			   k->ops->values);
	ret = host_write_sys(ctx, k->file, value);
	if (ret < 0)
		return ret;
	ret = nx_read(k, ctx, got, sizeof(got));
	if (ret < 0)
		return ret;
	if (*want ? strcmp(got, want) : strcmp(got, "Y") && strcmp(got, "N"))
		return err_code(-EIO, "'%s' reads back '%s', expected '%s'",
				k->file, got, *want ? want : "Y or N");
	return 0;
}

const struct host_knob_ops host_knob_kvm_nx_huge_pages = {
    .name = "kvm.nx_huge_pages",
    .values = "Y, N, auto, force, off, never",
    .file = "/sys/module/kvm/parameters/nx_huge_pages",
    .read = nx_read,
    .supported = nx_supported,
    .apply = nx_apply,
};
