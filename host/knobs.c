/* SPDX-License-Identifier: MIT */
/* The knob registry and the path helpers the knobs share; see knob.h. */
#include "knob.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
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

/*
 * Generic names refused because a registered knob owns the setting: every
 * file a registered knob writes (found through host_knobs[]), and these,
 * which size a hugetlb pool without hugetlb.*'s check of what was allocated.
 */
static const char *const pool_files[] = {
    /* fnmatch(3) patterns, FNM_PATHNAME */
    "/proc/sys/vm/nr_hugepages",
    "/proc/sys/vm/nr_hugepages_mempolicy",
    "/sys/kernel/mm/hugepages/*/nr_hugepages",
    "/sys/kernel/mm/hugepages/*/nr_hugepages_mempolicy",
};

/* Why the generic knob NAME with file FILE is refused, or false. */
static bool owned(const char *name, const char *file, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < host_nknobs; i++)
		if (host_knobs[i]->file && !strcmp(host_knobs[i]->file, file)) {
			snprintf(why, len,
				 "'%s' is '%s', the file of the host knob "
				 "'%s': use '%s'",
				 name, file, host_knobs[i]->name,
				 host_knobs[i]->name);
			return true;
		}
	for (i = 0; i < ARRAY_SIZE(pool_files); i++)
		if (!fnmatch(pool_files[i], file, FNM_PATHNAME)) {
			snprintf(why, len,
				 "'%s' sizes a hugetlb pool: use 'hugetlb.2M' "
				 "or 'hugetlb.1G', which check what the kernel "
				 "allocated",
				 name);
			return true;
		}
	return false;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int host_knob_resolve(const char *name, struct host_knob *k, char *why,
		      size_t len)
{
	const struct host_knob_ops *ops = name ? host_knob_find(name) : NULL;
	const char *problem;
	char dummy[1];
	size_t i, n;

	if (!why) {
		why = dummy;
		len = sizeof(dummy);
	}
	memset(k, 0, sizeof(*k));
	if (ops) {
		k->ops = ops;
		snprintf(k->name, sizeof(k->name), "%s", ops->name);
		snprintf(k->file, sizeof(k->file), "%s",
			 ops->file ? ops->file : "");
		return 0;
	}
	if (name && has_prefix(name, KNOB_PREFIX_CPUFREQ))
		return host_governor_resolve(name, k, why, len);
	if (!name || !(has_prefix(name, KNOB_PREFIX_SYSCTL) ||
		       has_prefix(name, KNOB_PREFIX_MM))) {
		n = (size_t)snprintf(why, len,
				     "'%s' is not a host knob (they are ",
				     name ? name : "");
		for (i = 0; i < host_nknobs && n < len; i++)
			n += (size_t)snprintf(why + n, len - n, "%s, ",
					      host_knobs[i]->name);
		if (n < len)
			snprintf(why + n, len - n,
				 "and " KNOB_PREFIX_SYSCTL
				 "NAME or " KNOB_PREFIX_MM "NAME for any "
				 "file under " KNOB_DIR_SYSCTL
				 " or " KNOB_DIR_MM ")");
		return -EINVAL;
	}
	problem = knob_name_problem(name);
	if (problem) {
		snprintf(why, len, "'%s' %s", name, problem);
		return -EINVAL;
	}
	if (knob_path(name, k->file, sizeof(k->file)) < 0) {
		snprintf(why, len, "'%s' is too long", name);
		return -EINVAL;
	}
	if (owned(name, k->file, why, len))
		return -EINVAL;
	k->ops = &host_knob_generic;
	snprintf(k->name, sizeof(k->name), "%s", name);
	return 0;
}

bool host_knob_name_check(const char *name, char *why, size_t len)
{
	struct host_knob k;

	if (host_knob_resolve(name, &k, why, len) < 0)
		return false;
	if (k.ops == &host_knob_governor) {
		if (why)
			snprintf(why, len,
				 "'%s' is set by [run] governor, every cpufreq "
				 "policy at once",
				 name);
		return false;
	}
	return true;
}

bool host_knob_name_known(const char *name)
{
	return host_knob_name_check(name, NULL, 0);
}

bool host_knob_value_check(const char *knob, const char *value, char *why,
			   size_t len)
{
	const char *problem;
	struct host_knob k;

	if (host_knob_resolve(knob, &k, why, len) < 0)
		return false;
	if (k.ops != &host_knob_generic)
		return true;
	problem = host_generic_value_problem(value);
	if (problem && why)
		snprintf(why, len, "the value '%s' %s", value, problem);
	return !problem;
}

const char *host_knob_values(const char *knob)
{
	struct host_knob k;

	if (host_knob_resolve(knob, &k, NULL, 0) < 0)
		return NULL;
	return k.ops->values;
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
