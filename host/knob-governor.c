/* SPDX-License-Identifier: MIT */
/*
 * cpufreq.policyN.governor: the scaling_governor of one cpufreq policy,
 * /sys/devices/system/cpu/cpufreq/policyN/scaling_governor.  One knob per
 * policy, so the journal's one file per knob holds; host_governor_set()
 * of host.h sets every policy, each journalled as it is changed.  A value
 * the policy does not list in its scaling_available_governors is refused.
 */
#include "knob.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define POLICY_PREFIX "policy"

static int gov_read(const struct host_knob *k, struct host_ctx *ctx, char *buf,
		    size_t len)
{
	return host_read_sys(ctx, k->file, buf, len);
}

/* The file next to K's scaling_governor called NAME, into OUT. */
static void sibling(const struct host_knob *k, const char *name, char *out,
		    size_t len)
{
	const char *slash = strrchr(k->file, '/');
	int n = slash ? (int)(slash - k->file) : 0;

	snprintf(out, len, "%.*s/%s", n, k->file, name);
}

static bool gov_supported(const struct host_knob *k, struct host_ctx *ctx,
			  const char *value, char *why, size_t len)
{
	char cur[HOST_VALUE_MAX], avail[512], file[HOST_FILE_MAX];
	int ret;

	ret = host_read(ctx, k->file, cur, sizeof(cur));
	if (ret < 0) {
		snprintf(why, len, "cannot read '%s': %s", k->file,
			 strerror(-ret));
		return false;
	}
	if (!value)
		return true;
	sibling(k, "scaling_available_governors", file, sizeof(file));
	ret = host_read(ctx, file, avail, sizeof(avail));
	if (ret < 0) {
		snprintf(why, len, "cannot read '%s': %s", file,
			 strerror(-ret));
		return false;
	}
	if (!sysfs_list_has(avail, value)) {
		const char *policy = k->name + strlen(KNOB_PREFIX_CPUFREQ);

		snprintf(why, len,
			 "cpufreq %.*s does not offer the governor '%s' (its "
			 "scaling_available_governors: %s)",
			 (int)strcspn(policy, "."), policy, value, avail);
		return false;
	}
	return true;
}

const struct host_knob_ops host_knob_governor = {
    .name = "cpufreq.policyN.governor",
    .values = "a governor the policy lists in scaling_available_governors",
    .file = NULL, /* one per policy: K->file */
    .read = gov_read,
    .supported = gov_supported,
    .apply = host_knob_write_checked,
};

/* The N of "policyN" (digits only, no leading zero but "0"), or -1. */
static long policy_number(const char *s, const char **end)
{
	const char *p = s;
	long n = 0;

	if (strncmp(p, POLICY_PREFIX, strlen(POLICY_PREFIX)))
		return -1;
	p += strlen(POLICY_PREFIX);
	if (!isdigit((unsigned char)*p) ||
	    (p[0] == '0' && isdigit((unsigned char)p[1])))
		return -1;
	while (isdigit((unsigned char)*p) && n < 1000000)
		n = n * 10 + (*p++ - '0');
	if (isdigit((unsigned char)*p))
		return -1;
	*end = p;
	return n;
}

int host_governor_resolve(const char *name, struct host_knob *k, char *why,
			  size_t len)
{
	const char *end = NULL;
	long n = -1;

	if (!strncmp(name, KNOB_PREFIX_CPUFREQ, strlen(KNOB_PREFIX_CPUFREQ)))
		n = policy_number(name + strlen(KNOB_PREFIX_CPUFREQ), &end);
	if (n < 0 || strcmp(end, ".governor")) {
		snprintf(why, len,
			 "'%s' is not a cpufreq knob (they are "
			 "cpufreq.policyN.governor)",
			 name);
		return -EINVAL;
	}
	memset(k, 0, sizeof(*k));
	k->ops = &host_knob_governor;
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->file, sizeof(k->file),
		 HOST_CPUFREQ_DIR "/" POLICY_PREFIX "%ld/scaling_governor", n);
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * The cpufreq policies of CTX's root, in number order, into *OUT (owned;
 * NULL when none): their count, 0 when there is no cpufreq (WHY says so),
 * -E2BIG past HOST_GOVERNOR_POLICIES_MAX (WHY too).  Reports nothing.
 */
static int policies_list(struct host_ctx *ctx, long **out, char *why,
			 size_t len)
{
	char *dir = host_path_new(ctx, HOST_CPUFREQ_DIR);
	struct dirent *de;
	const char *end;
	long *v = NULL, n;
	int count = 0, ret;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d) {
		snprintf(why, len,
			 "no cpufreq: '%s' %s (no cpufreq driver, as in most "
			 "virtual machines): the governor is not set",
			 HOST_CPUFREQ_DIR,
			 errno == ENOENT ? "is not there" : strerror(errno));
		ret = 0;
		goto out;
	}
	while ((de = readdir(d))) {
		n = policy_number(de->d_name, &end);
		if (n < 0 || *end)
			continue;
		if (count == HOST_GOVERNOR_POLICIES_MAX) {
			snprintf(why, len,
				 "more than %d cpufreq policies in '%s': "
				 "vmtax journals at most that many",
				 HOST_GOVERNOR_POLICIES_MAX, HOST_CPUFREQ_DIR);
			ret = -E2BIG;
			goto out;
		}
		if (!v)
			v = xcalloc(HOST_GOVERNOR_POLICIES_MAX, sizeof(*v));
		v[count++] = n;
	}
	if (!count)
		snprintf(why, len,
			 "no cpufreq: '%s' has no policy (no cpufreq "
			 "driver): the governor is not set",
			 HOST_CPUFREQ_DIR);
	else
		qsort(v, count, sizeof(*v), cmp_long);
	*out = v;
	v = NULL;
	ret = count;
out:
	if (d)
		closedir(d);
	free(v);
	free(dir);
	return ret;
}

/* The knob of policy N. */
static void policy_knob(long n, struct host_knob *k)
{
	char name[KNOB_NAME_MAX], why[128];

	snprintf(name, sizeof(name),
		 KNOB_PREFIX_CPUFREQ POLICY_PREFIX "%ld.governor", n);
	host_governor_resolve(name, k, why, sizeof(why));
}

int host_governor_check(struct host_ctx *ctx, const char *governor, char *why,
			size_t len)
{
	struct host_knob k;
	long *v = NULL;
	int n, i, ret;

	n = policies_list(ctx, &v, why, len);
	if (n <= 0) {
		ret = n < 0 ? -EOPNOTSUPP : 0;
		goto out;
	}
	ret = 1;
	for (i = 0; i < n && ret == 1; i++) {
		policy_knob(v[i], &k);
		if (!k.ops->supported(&k, ctx, governor, why, len))
			ret = -EOPNOTSUPP;
	}
out:
	free(v);
	return ret;
}

int host_governor_set(struct host_ctx *ctx, const char *governor, char *why,
		      size_t len)
{
	struct host_knob k;
	long *v = NULL;
	int n, i, r, ret;

	n = policies_list(ctx, &v, why, len);
	if (n <= 0) {
		ret = n < 0 ? err_code(n, "%s", why) : 0;
		goto out;
	}
	ret = 1;
	for (i = 0; i < n && ret == 1; i++) {
		policy_knob(v[i], &k);
		r = host_set(ctx, k.name, governor);
		if (r < 0)
			ret = r;
	}
out:
	free(v);
	return ret;
}
