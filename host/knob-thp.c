/* SPDX-License-Identifier: MIT */
/*
 * thp.enabled and thp.defrag: /sys/kernel/mm/transparent_hugepage/{enabled,
 * defrag}.  The file lists the modes with the selected one in brackets
 * ("always [madvise] never"); the value is the bracketed word, and only the
 * words the file lists are accepted (lib/thp.h: the files, modes, parser).
 */
#include "knob.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "thp.h"
#include "util.h"

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
	if (value && !sysfs_list_has(line, value)) {
		snprintf(why, len, "'%s' is not one of the modes of '%s' (%s)",
			 value, k->file, line);
		return false;
	}
	return true;
}

const struct host_knob_ops host_knob_thp_enabled = {
    .name = "thp.enabled",
    .values = THP_ENABLED_MODES,
    .file = THP_ENABLED_FILE,
    .read = thp_read,
    .supported = thp_supported,
    .apply = host_knob_write_checked,
};

const struct host_knob_ops host_knob_thp_defrag = {
    .name = "thp.defrag",
    .values = THP_DEFRAG_MODES,
    .file = THP_DEFRAG_FILE,
    .read = thp_read,
    .supported = thp_supported,
    .apply = host_knob_write_checked,
};
