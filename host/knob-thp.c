/* SPDX-License-Identifier: MIT */
/*
 * thp.enabled and thp.defrag: /sys/kernel/mm/transparent_hugepage/{enabled,
 * defrag}.  The file lists the modes with the selected one in brackets
 * ("always [madvise] never"); the value is the bracketed word, and only the
 * words the file lists are accepted.
 */
#include "knob.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* true if VALUE is one of the words of LINE, brackets ignored. */
static bool thp_lists(const char *line, const char *value)
{
	size_t n = strlen(value);
	const char *p = line;

	while (*p) {
		size_t w;

		p += strspn(p, " []");
		w = strcspn(p, " []");
		if (w && w == n && !strncmp(p, value, n))
			return true;
		p += w;
	}
	return false;
}

static int thp_read(const struct host_knob *k, struct host_ctx *ctx, char *buf,
		    size_t len)
{
	char line[256];
	int ret;

	ret = host_read_sys(ctx, k->file, line, sizeof(line));
	if (ret < 0)
		return ret;
	if (thp_parse_selected(line, buf, len) < 0)
		return err("no bracketed mode in '%s' ('%s')", k->file, line);
	return 0;
}

static bool thp_supported(const struct host_knob *k, struct host_ctx *ctx,
			  const char *value, char *why, size_t len)
{
	char line[256];
	int ret;

	ret = host_read(ctx, k->file, line, sizeof(line));
	if (ret < 0) {
		snprintf(why, len, "cannot read '%s': %s", k->file,
			 strerror(-ret));
		return false;
	}
	if (value && !thp_lists(line, value)) {
		snprintf(why, len, "'%s' is not one of the modes of '%s' (%s)",
			 value, k->file, line);
		return false;
	}
	return true;
}

static int thp_apply(const struct host_knob *k, struct host_ctx *ctx,
		     const char *value)
{
	char got[HOST_VALUE_MAX];
	int ret;

	ret = host_write_sys(ctx, k->file, value);
	if (ret < 0)
		return ret;
	ret = thp_read(k, ctx, got, sizeof(got));
	if (ret < 0)
		return ret;
	if (strcmp(got, value))
		return err_code(-EIO, "'%s' reads back '%s', expected '%s'",
				k->file, got, value);
	return 0;
}

const struct host_knob_ops host_knob_thp_enabled = {
    .name = "thp.enabled",
    .values = "always, madvise, never",
    .file = "/sys/kernel/mm/transparent_hugepage/enabled",
    .read = thp_read,
    .supported = thp_supported,
    .apply = thp_apply,
};

const struct host_knob_ops host_knob_thp_defrag = {
    .name = "thp.defrag",
    .values = "always, defer, defer+madvise, madvise, never",
    .file = "/sys/kernel/mm/transparent_hugepage/defrag",
    .read = thp_read,
    .supported = thp_supported,
    .apply = thp_apply,
};
