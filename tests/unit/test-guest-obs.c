/* SPDX-License-Identifier: MIT */
/* Unit tests for what a guest saw of itself (lib/guest-obs.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "guest-obs.h"
#include "util.h"

/* A TCG guest's /proc/meminfo (abridged): no DirectMap1G line. */
static const char meminfo_tcg[] = "MemTotal:        1004640 kB\n"
				  "MemFree:          950000 kB\n"
				  "HugePages_Total:       0\n"
				  "Hugepagesize:       2048 kB\n"
				  "DirectMap4k:       12160 kB\n"
				  "DirectMap2M:     1036288 kB\n";

static void test_meminfo(void **state)
{
	static const struct {
		const char *text, *key;
		int ret;
		long long kb;
	} rows[] = {
	    {meminfo_tcg, "MemTotal", 0, 1004640},
	    {meminfo_tcg, "DirectMap4k", 0, 12160},
	    {meminfo_tcg, "DirectMap2M", 0, 1036288},
	    /* absent, never 0 */
	    {meminfo_tcg, "DirectMap1G", -ENOENT, -1},
	    /* a key that is a prefix of another line's key */
	    {meminfo_tcg, "Mem", -ENOENT, -1},
	    {meminfo_tcg, "MemFre", -ENOENT, -1},
	    /* not in kB */
	    {meminfo_tcg, "HugePages_Total", -EINVAL, -1},
	    {"DirectMap1G:  25165824 kB", "DirectMap1G", 0, 25165824},
	    {"DirectMap1G: 0 kB\n", "DirectMap1G", 0, 0},
	    {"MemTotal: lots kB\n", "MemTotal", -EINVAL, -1},
	    {"MemTotal: 12 MB\n", "MemTotal", -EINVAL, -1},
	    {"MemTotal: 12 kB junk\n", "MemTotal", -EINVAL, -1},
	    {"MemTotal: 99999999999999999999999 kB\n", "MemTotal", -EINVAL, -1},
	    {"", "MemTotal", -ENOENT, -1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		long long kb = -1;

		assert_int_equal(meminfo_kb(rows[i].text, rows[i].key, &kb),
				 rows[i].ret);
		assert_int_equal(kb, rows[i].kb);
	}
}

static void test_cpulist(void **state)
{
	static const struct {
		const char *list;
		long long n;
	} rows[] = {
	    {"0", 1},
	    {"0\n", 1},
	    {"0-3", 4},
	    {"0-3\n", 4},
	    {"0-3,5", 5},
	    {"0,2,4-7,9\n", 7},
	    {"1-1", 1},
	    {"", 0},
	    {"\n", 0},
	    /* each refused for its own reason */
	    {"3-0", -EINVAL},		/* reversed range */
	    {"0-", -EINVAL},		/* open range */
	    {"-3", -EINVAL},		/* no start */
	    {"0,", -EINVAL},		/* trailing comma */
	    {",0", -EINVAL},		/* leading comma */
	    {"0 1", -EINVAL},		/* blank */
	    {"0-3\nx", -EINVAL},	/* a second line */
	    {"a", -EINVAL},		/* not a number */
	    {"0-99999999999", -EINVAL}, /* beyond any CPU number */
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		long long n = cpulist_count(rows[i].list);

		if (n != rows[i].n)
			fail_msg("'%s': %lld, wanted %lld", rows[i].list, n,
				 rows[i].n);
	}
}

static void test_tools(void **state)
{
	static const char gnu[] = "\x7f"
				  "ELF...ls (GNU coreutils) 9.1...";
	static const char bb[] = "\x7f"
				 "ELF...BusyBox v1.35.0 (Debian)...";
	static const char dash[] = "\x7f"
				   "ELF...dash...";
	enum guest_tool t[GUEST_TOOL_N];

	(void)state;
	assert_int_equal(guest_tool_kind(NULL, NULL, 0), GUEST_TOOL_MISSING);
	/* a busybox binary by its name, even unread */
	assert_int_equal(guest_tool_kind("/bin/busybox", NULL, 0),
			 GUEST_TOOL_BUSYBOX);
	/* or by its banner under another name */
	assert_int_equal(guest_tool_kind("/usr/bin/ls", bb, sizeof(bb) - 1),
			 GUEST_TOOL_BUSYBOX);
	assert_int_equal(guest_tool_kind("/usr/bin/ls", gnu, sizeof(gnu) - 1),
			 GUEST_TOOL_GNU);
	assert_int_equal(
	    guest_tool_kind("/usr/bin/dash", dash, sizeof(dash) - 1),
	    GUEST_TOOL_OTHER);
	/* the banner must lie within LEN */
	assert_int_equal(guest_tool_kind("/usr/bin/ls", gnu, 8),
			 GUEST_TOOL_OTHER);

	assert_null(guest_tool_str(GUEST_TOOL_MISSING));
	assert_string_equal(guest_tool_str(GUEST_TOOL_GNU), "gnu");

	/* the tiny image */
	t[GUEST_TOOL_SH] = t[GUEST_TOOL_LS] = t[GUEST_TOOL_DD] =
	    GUEST_TOOL_BUSYBOX;
	assert_string_equal(guest_userland(t), "busybox");
	/* debian: dash, coreutils */
	t[GUEST_TOOL_SH] = GUEST_TOOL_OTHER;
	t[GUEST_TOOL_LS] = t[GUEST_TOOL_DD] = GUEST_TOOL_GNU;
	assert_string_equal(guest_userland(t), "gnu");
	/* mixed */
	t[GUEST_TOOL_DD] = GUEST_TOOL_BUSYBOX;
	assert_string_equal(guest_userland(t), "other");
	/* one found, one missing */
	t[GUEST_TOOL_DD] = GUEST_TOOL_MISSING;
	assert_string_equal(guest_userland(t), "other");
	/* neither */
	t[GUEST_TOOL_LS] = GUEST_TOOL_MISSING;
	assert_null(guest_userland(t));
}

static void test_json(void **state)
{
	struct guest_obs o;
	json_t *j;
	char why[128] = "";

	(void)state;
	guest_obs_init(&o);
	j = guest_obs_to_json(&o);
	/* all unknown: nulls, never 0 */
	assert_true(json_is_null(json_object_get(j, "cmdline")));
	assert_true(json_is_null(json_object_get(j, "cpus_online")));
	assert_true(json_is_null(json_object_get(j, "mem_total_kb")));
	assert_true(json_is_null(
	    json_object_get(json_object_get(j, "directmap_kb"), "4k")));
	assert_true(json_is_null(json_object_get(j, "userland")));
	assert_true(json_is_null(
	    json_object_get(json_object_get(j, "userland_tools"), "sh")));
	assert_int_equal(guest_obs_check(j, why, sizeof(why)), 0);
	json_decref(j);

	o.cmdline = "console=ttyS0 nokaslr";
	o.cpus_online = 2;
	o.mem_total_kb = 1004640;
	o.directmap_kb[GUEST_DM_4K] = 12160;
	o.directmap_kb[GUEST_DM_2M] = 1036288;
	o.tools[GUEST_TOOL_SH] = GUEST_TOOL_BUSYBOX;
	o.tools[GUEST_TOOL_LS] = GUEST_TOOL_BUSYBOX;
	o.tools[GUEST_TOOL_DD] = GUEST_TOOL_BUSYBOX;
	j = guest_obs_to_json(&o);
	{
		char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

		assert_string_equal(
		    s, "{\"cmdline\":\"console=ttyS0 nokaslr\","
		       "\"cpus_online\":2,\"directmap_kb\":{\"1G\":null,"
		       "\"2M\":1036288,\"4k\":12160},\"mem_total_kb\":1004640,"
		       "\"userland\":\"busybox\",\"userland_tools\":{\"dd\":"
		       "\"busybox\",\"ls\":\"busybox\",\"sh\":\"busybox\"}}");
		free(s);
	}
	assert_int_equal(guest_obs_check(j, why, sizeof(why)), 0);
	json_decref(j);
}

static void test_check_bad(void **state)
{
	static const char good[] =
	    "{\"cmdline\":\"x\",\"cpus_online\":2,\"mem_total_kb\":1,"
	    "\"directmap_kb\":{\"4k\":1,\"2M\":2,\"1G\":null},"
	    "\"userland\":\"gnu\",\"userland_tools\":{\"sh\":\"other\","
	    "\"ls\":\"gnu\",\"dd\":\"gnu\"}}";
	/* Each row breaks one field of GOOD and names it. */
	static const struct {
		const char *key, *sub; /* sub: a member of key's object */
		const char *json;      /* the bad value */
		const char *why;
	} rows[] = {
	    {"cpus_online", NULL, "-1", "'cpus_online' is not an integer"},
	    {"cpus_online", NULL, "\"2\"", "'cpus_online' is not an integer"},
	    {"mem_total_kb", NULL, "1.5", "'mem_total_kb' is not an integer"},
	    {"cmdline", NULL, "3", "'cmdline' is not a string"},
	    {"userland", NULL, "[]", "'userland' is not a string"},
	    {"directmap_kb", NULL, "[]", "'directmap_kb' is not an object"},
	    {"directmap_kb", "2M", "-5", "'directmap_kb.2M' is not an integer"},
	    {"directmap_kb", "1G", "true",
	     "'directmap_kb.1G' is not an integer"},
	    {"userland_tools", NULL, "null",
	     "'userland_tools' is not an object"},
	    {"userland_tools", "dd", "1",
	     "'userland_tools.dd' is not a string"},
	};
	json_t *base = json_loads(good, 0, NULL);
	char why[128];
	size_t i;

	(void)state;
	assert_non_null(base);
	assert_int_equal(guest_obs_check(base, why, sizeof(why)), 0);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		json_t *j = json_deep_copy(base);
		json_t *v = json_loads(rows[i].json, JSON_DECODE_ANY, NULL);

		assert_non_null(v);
		if (rows[i].sub)
			json_object_set_new(json_object_get(j, rows[i].key),
					    rows[i].sub, v);
		else
			json_object_set_new(j, rows[i].key, v);
		why[0] = '\0';
		assert_int_equal(guest_obs_check(j, why, sizeof(why)), -EPROTO);
		if (!strstr(why, rows[i].why))
			fail_msg("row %zu: '%s', wanted '%s'", i, why,
				 rows[i].why);
		json_decref(j);
	}
	/* a missing member is as bad as a wrong one */
	{
		json_t *j = json_deep_copy(base);

		json_object_del(json_object_get(j, "directmap_kb"), "4k");
		assert_int_equal(guest_obs_check(j, why, sizeof(why)), -EPROTO);
		assert_non_null(strstr(why, "'directmap_kb.4k'"));
		json_decref(j);
	}
	json_decref(base);
	base = json_array();
	assert_int_equal(guest_obs_check(base, why, sizeof(why)), -EPROTO);
	json_decref(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_meminfo),   cmocka_unit_test(test_cpulist),
	    cmocka_unit_test(test_tools),     cmocka_unit_test(test_json),
	    cmocka_unit_test(test_check_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
