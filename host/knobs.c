/* SPDX-License-Identifier: MIT */
/* The knob registry and the path helpers the knobs share; see knob.h. */
#include "knob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const struct host_knob_ops *const host_knobs[] = {
    &host_knob_thp_enabled, &host_knob_thp_defrag, &host_knob_paging,
    &host_knob_hugetlb_2m,  &host_knob_hugetlb_1g, &host_knob_kvm_nx_huge_pages,
};
const size_t host_nknobs = ARRAY_SIZE(host_knobs);

const char *host_knob_name(size_t i)
{
	return i < host_nknobs ? host_knobs[i]->name : NULL;
}

const struct host_knob_ops *host_knob_find(const char *name)
{
	size_t i;

	for (i = 0; i < host_nknobs; i++)
		if (!strcmp(host_knobs[i]->name, name))
			return host_knobs[i];
	return NULL;
}

const char *host_knob_values(const char *knob)
{
	const struct host_knob_ops *k = host_knob_find(knob);

	return k ? k->values : NULL;
}

char *host_path_new(const struct host_ctx *ctx, const char *rel)
{
	return xasprintf("%s%s", ctx->root, rel);
}

int host_read_sys(struct host_ctx *ctx, const char *rel, char *buf, size_t len)
{
	char *path = host_path_new(ctx, rel);
	int ret = read_line(path, buf, len);

	if (ret < 0)
		err_code(ret, "cannot read '%s'", rel);
	free(path);
	return ret;
}

int host_write_sys(struct host_ctx *ctx, const char *rel, const char *value)
{
	char *path = host_path_new(ctx, rel);
	int ret = write_str(path, value);

	if (ret < 0)
		err_code(ret, "cannot write '%s' to '%s'", value, rel);
	free(path);
	return ret;
}

int host_read(struct host_ctx *ctx, const char *rel, char *buf, size_t len)
{
	char *path = host_path_new(ctx, rel);
	int ret = read_line(path, buf, len);

	free(path);
	return ret;
}
