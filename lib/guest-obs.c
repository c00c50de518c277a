/* SPDX-License-Identifier: MIT */
#include "guest-obs.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const guest_directmap_key[GUEST_DM_N] = {"4k", "2M", "1G"};
const char *const guest_directmap_meminfo[GUEST_DM_N] = {
    "DirectMap4k", "DirectMap2M", "DirectMap1G"};
const char *const guest_tool_name[GUEST_TOOL_N] = {"sh", "ls", "dd"};

void guest_obs_init(struct guest_obs *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->cpus_online = -1;
	o->mem_total_kb = -1;
	for (i = 0; i < GUEST_DM_N; i++)
		o->directmap_kb[i] = -1;
}

int meminfo_kb(const char *meminfo, const char *key, long long *kb)
{
	size_t kl = strlen(key);
	const char *p = meminfo;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ':') {
			const char *q = p + kl + 1;
			char *end;
			long long v;

			while (*q == ' ' || *q == '\t')
				q++;
			if (!isdigit((unsigned char)*q))
				return -EINVAL;
			errno = 0;
			v = strtoll(q, &end, 10);
			if (errno)
				return -EINVAL;
			while (*end == ' ' || *end == '\t')
				end++;
			if (strncmp(end, "kB", 2))
				return -EINVAL;
			end += 2;
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end && *end != '\n')
				return -EINVAL;
			*kb = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

/* No kernel numbers CPUs this high; the bound keeps the sum from overflowing.
 */
#define CPU_NUMBER_MAX (1LL << 24)

/* A decimal CPU number at *P, advancing *P; -1 if there is none. */
static long long cpu_number(const char **p)
{
	long long v = 0;

	if (!isdigit((unsigned char)**p))
		return -1;
	while (isdigit((unsigned char)**p)) {
		if (v > CPU_NUMBER_MAX)
			return -1;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

long long cpulist_count(const char *list)
{
	const char *p = list;
	long long n = 0;

	if (*p == '\n' || !*p)
		return *p && p[1] ? -EINVAL : 0;
	for (;;) {
		long long a = cpu_number(&p), b;

		if (a < 0)
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			b = cpu_number(&p);
			if (b < a)
				return -EINVAL;
		}
		n += b - a + 1;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? -EINVAL : n;
	}
}

enum guest_tool guest_tool_kind(const char *resolved, const void *data,
				size_t len)
{
	const char *base;

	if (!resolved)
		return GUEST_TOOL_MISSING;
	base = strrchr(resolved, '/');
	base = base ? base + 1 : resolved;
	if (!strncmp(base, "busybox", 7))
		return GUEST_TOOL_BUSYBOX;
	if (data && memmem(data, len, "BusyBox v", 9))
		return GUEST_TOOL_BUSYBOX;
	if (data && memmem(data, len, "GNU coreutils", 13))
		return GUEST_TOOL_GNU;
	return GUEST_TOOL_OTHER;
}

const char *guest_tool_str(enum guest_tool t)
{
	switch (t) {
	case GUEST_TOOL_BUSYBOX:
		return "busybox";
	case GUEST_TOOL_GNU:
		return "gnu";
	case GUEST_TOOL_OTHER:
		return "other";
	case GUEST_TOOL_MISSING:
		break;
	}
	return NULL;
}

const char *guest_userland(const enum guest_tool tools[GUEST_TOOL_N])
{
	enum guest_tool ls = tools[GUEST_TOOL_LS], dd = tools[GUEST_TOOL_DD];

	if (ls == GUEST_TOOL_MISSING && dd == GUEST_TOOL_MISSING)
		return NULL;
	if (ls == dd && (ls == GUEST_TOOL_BUSYBOX || ls == GUEST_TOOL_GNU))
		return guest_tool_str(ls);
	return "other";
}

/* An integer, or null for -1. */
static json_t *int_or_null(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *guest_obs_to_json(const struct guest_obs *o)
{
	json_t *j = json_object(), *dm = json_object(), *tools = json_object();
	size_t i;

	for (i = 0; i < GUEST_DM_N; i++)
		json_object_set_new(dm, guest_directmap_key[i],
				    int_or_null(o->directmap_kb[i]));
	for (i = 0; i < GUEST_TOOL_N; i++)
		json_object_set_new(tools, guest_tool_name[i],
				    str_or_null(guest_tool_str(o->tools[i])));
	json_object_set_new(j, "cmdline", str_or_null(o->cmdline));
	json_object_set_new(j, "cpus_online", int_or_null(o->cpus_online));
	json_object_set_new(j, "mem_total_kb", int_or_null(o->mem_total_kb));
	json_object_set_new(j, "directmap_kb", dm);
	json_object_set_new(j, "userland",
			    str_or_null(guest_userland(o->tools)));
	json_object_set_new(j, "userland_tools", tools);
	return j;
}

static bool nonneg_int_or_null(const json_t *v)
{
	return json_is_null(v) ||
	       (json_is_integer(v) && json_integer_value(v) >= 0);
}

static bool string_or_null(const json_t *v)
{
	return json_is_null(v) || json_is_string(v);
}

/*
 * KEYS of OBJ (the member IN of the observation, or NULL for its top) are
 * each an integer >= 0 or null (INTS), else a string or null.
 */
static int check_keys(const json_t *obj, const char *in,
		      const char *const *keys, size_t n, bool ints, char *why,
		      size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const json_t *v = json_object_get(obj, keys[i]);

		if (v && (ints ? nonneg_int_or_null(v) : string_or_null(v)))
			continue;
		snprintf(why, len, "'%s%s%s' is not %s", in ? in : "",
			 in ? "." : "", keys[i],
			 ints ? "an integer >= 0 or null" : "a string or null");
		return -EPROTO;
	}
	return 0;
}

/* OBJ's member NAME: an object. */
static const json_t *member_object(const json_t *obj, const char *name,
				   char *why, size_t len)
{
	const json_t *m = json_object_get(obj, name);

	if (!json_is_object(m)) {
		snprintf(why, len, "'%s' is not an object", name);
		return NULL;
	}
	return m;
}

int guest_obs_check(const json_t *obj, char *why, size_t len)
{
	static const char *const ints[] = {"cpus_online", "mem_total_kb"};
	static const char *const strs[] = {"cmdline", "userland"};
	const json_t *dm, *tools;
	int ret;

	if (!json_is_object(obj)) {
		snprintf(why, len, "the observation is not an object");
		return -EPROTO;
	}
	ret = check_keys(obj, NULL, ints, sizeof(ints) / sizeof(ints[0]), true,
			 why, len);
	if (ret == 0)
		ret =
		    check_keys(obj, NULL, strs, sizeof(strs) / sizeof(strs[0]),
			       false, why, len);
	if (ret < 0)
		return ret;
	dm = member_object(obj, "directmap_kb", why, len);
	if (!dm)
		return -EPROTO;
	ret = check_keys(dm, "directmap_kb", guest_directmap_key, GUEST_DM_N,
			 true, why, len);
	if (ret < 0)
		return ret;
	tools = member_object(obj, "userland_tools", why, len);
	if (!tools)
		return -EPROTO;
	return check_keys(tools, "userland_tools", guest_tool_name,
			  GUEST_TOOL_N, false, why, len);
}
