/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: lists (quotes), any setting as an axis (docs/axes.md): cell
 * ids, the nesting order, numeric axes, exclude and baseline on new axes,
 * duplicate ids, --set lists, the JSON of axes and of the echoed config,
 * and the ids of the configs in configs/ (pinned).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-dir.h"

#include "matrix.h"
#include "run-config.h"
#include "util.h"

static char tmpdir[] = "/tmp/vmtax-test-matrix.XXXXXX";

static void put(const char *name, const char *text)
{
	config_dir_put(tmpdir, name, text);
}

static int setup(void **state)
{
	(void)state;
	return config_dir_make(tmpdir, "jobs",
			       "[workload]\nrun = make -j$JOBS\n"
			       "[param.JOBS]\ndefault = 1\n"
			       "[param.TARGET]\ndefault = all\n");
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(tmpdir);
}

/*
 * Load TEXT (plus "[workload]\nname = jobs" unless it has a [workload])
 * with SETS; stderr goes to ERRBUF.  Returns run_config_load()'s result.
 */
static int load_sets(const char *text, const char *const *sets, size_t nsets,
		     struct run_config *c, char *errbuf, size_t errlen)
{
	char *p = xasprintf("%s/run.ini", tmpdir);
	char *e = xasprintf("%s/stderr", tmpdir);
	char *full = strstr(text, "[workload]")
			 ? xstrdup(text)
			 : xasprintf("%s[workload]\nname = jobs\n", text);
	int fd, saved, ret;
	ssize_t n;

	put("run.ini", full);
	fflush(stderr);
	saved = dup(2);
	fd = open(e, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	ret = run_config_load(p, sets, nsets, c);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, errbuf, errlen - 1, 0);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	free(full);
	free(e);
	free(p);
	return ret;
}

static int load(const char *text, struct run_config *c)
{
	char errbuf[4096];
	int ret = load_sets(text, NULL, 0, c, errbuf, sizeof(errbuf));

	if (ret < 0)
		print_error("load failed: %s", errbuf);
	return ret;
}

/* Expand with stderr in ERRBUF. */
static int expand(const struct run_config *c, struct matrix *m, char *errbuf,
		  size_t errlen)
{
	char *e = xasprintf("%s/stderr", tmpdir);
	int fd, saved, ret;
	ssize_t n;

	fflush(stderr);
	saved = dup(2);
	fd = open(e, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	ret = matrix_expand(c, m);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, errbuf, errlen - 1, 0);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	free(e);
	return ret;
}

/* Load and expand TEXT; check the ids are exactly IDS (NULL-terminated). */
static void expect_ids(const char *text, const char *const *ids)
{
	struct run_config c;
	struct matrix m;
	char errbuf[4096];
	size_t i;

	assert_int_equal(load(text, &c), 0);
	if (expand(&c, &m, errbuf, sizeof(errbuf)) < 0)
		fail_msg("expand failed: %s", errbuf);
	for (i = 0; ids[i] && i < m.ncells; i++)
		assert_string_equal(m.cells[i].id, ids[i]);
	assert_null(ids[i]);
	assert_int_equal(m.ncells, i);
	matrix_release(&m);
	run_config_release(&c);
}

static void test_list_parse(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		const char *v[4];
	} good[] = {
	    {"a, \"\", \"b,c\"", 3, {"a", "", "b,c"}},
	    {" a , b,c ", 3, {"a", "b", "c"}},
	    {"\"\"", 1, {""}},
	    {"\"x\" , y", 2, {"x", "y"}},
	    {"foo=\"a b\"", 1, {"foo=\"a b\""}},
	    {"\"mem=4G,nokaslr\", nogbpages",
	     2,
	     {"mem=4G,nokaslr", "nogbpages"}},
	    {"  ", 0, {NULL}},
	};
	static const struct {
		const char *in, *why;
	} bad[] = {
	    {"a,,b", "empty element in list 'a,,b'"},
	    {"a,", "empty element in list 'a,'"},
	    {",a", "empty element in list ',a'"},
	    {"\"abc", "unterminated quote in '\"abc'"},
	    {"a, \"b", "unterminated quote"},
	    {"\"a\"b", "text after the closing quote of \"a\""},
	};
	struct ini_list l;
	char why[256];
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(
		    ini_list_parse(good[i].in, &l, why, sizeof(why)), 0);
		assert_int_equal(l.n, good[i].n);
		for (j = 0; j < l.n; j++)
			assert_string_equal(l.v[j], good[i].v[j]);
		ini_list_free(&l);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(
		    ini_list_parse(bad[i].in, &l, why, sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].why))
			fail_msg("'%s': got '%s', wanted '%s'", bad[i].in, why,
				 bad[i].why);
	}
}

/* Whether S holds a control character but '\n' (a raw ESC, BEL...). */
static bool ctrl_in(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f) {
			print_error("a control character 0x%02x in the "
				    "message\n",
				    (unsigned char)*s);
			return true;
		}
	return false;
}

/* Each bad input and its own message (file:line: where it has a line). */
static void test_bad_lists(void **state)
{
	static const struct {
		const char *text, *set, *msg;
	} bad[] = {
	    {"[guest]\nvcpus = 1, 0\n", NULL,
	     "run.ini:2: bad value for 'vcpus': 0 is out of range [1, 512]"},
	    {"[guest]\nvcpus = 1, x\n", NULL,
	     "run.ini:2: bad value for 'vcpus': 'x' is not an integer"},
	    {"[guest]\nmemory = 2G, 100M\n", NULL,
	     "run.ini:2: bad value for 'memory': 100M is out of range"},
	    {"[guest]\nmemory = 2G, lots\n", NULL,
	     "run.ini:2: bad value for 'memory': 'lots' is not a size"},
	    {"[guest]\nimage = tiny, fedora\n", NULL,
	     "run.ini:2: bad value for 'image': 'fedora' is not one of: tiny, "
	     "debian"},
	    {"[guest]\nvcpus = 2, 2\n", NULL,
	     "run.ini:2: bad value for 'vcpus': '2' is listed twice"},
	    {"[guest]\ncmdline = a,,b\n", NULL,
	     "run.ini:2: bad value for 'cmdline': empty element in list "
	     "'a,,b'"},
	    {"[guest]\ncmdline = \"a\n", NULL,
	     "run.ini:2: bad value for 'cmdline': unterminated quote"},
	    {"[guest]\nkernel = /k, \"\"\n", NULL,
	     "run.ini:2: an empty file name"},
	    {"[guest]\nvcpu = 2\n", NULL,
	     "run.ini:2: unknown key 'vcpu' in [guest] (did you mean "
	     "'vcpus'?)"},
	    {"[guest]\nsysctl.vm..x = 1\n", NULL,
	     "run.ini:2: 'sysctl.vm..x' is not a guest knob name"},
	    {"[guest]\nsysctl.vm.swappiness =\n", NULL,
	     "run.ini:2: bad value for 'sysctl.vm.swappiness': empty value"},
	    {"[guest]\nmm.ksm.run = 1, \"\"\n", NULL,
	     "run.ini:2: bad value for 'mm.ksm.run': a knob value may not be "
	     "empty"},
	    {"[host]\nthp.defarg = always\n", NULL,
	     "run.ini:2: unknown host knob 'thp.defarg' in [host] (did you "
	     "mean 'thp.defrag'?)"},
	    {"[host]\nfoo = 1\n", NULL,
	     "run.ini:2: unknown host knob 'foo' in [host]"},
	    {"[host]\nthp.enabled = always\n", NULL,
	     "run.ini:2: host knob 'thp.enabled' is set by [matrix] host_thp"},
	    {"[host]\npaging = hw\n", NULL,
	     "run.ini:2: host knob 'paging' is set by [matrix] paging"},
	    {"[host]\nthp.defrag = always\nthp.defrag = never\n", NULL,
	     "run.ini:3: 'thp.defrag' is set twice in [host] (first on line "
	     "2)"},
	    {"[host]\nsysctl.vm.swappiness = 10, 10\n", NULL,
	     "run.ini:2: bad value for 'sysctl.vm.swappiness': '10' is listed "
	     "twice"},
	    {"[workload]\nname = jobs\nJOBS = 1,,2\n", NULL,
	     "run.ini:3: bad value for 'JOBS': empty element"},
	    {"[workload]\nname = jobs\nJOBS = \"2\n", NULL,
	     "run.ini:3: bad value for 'JOBS': unterminated quote"},
	    {"[workload]\nname = jobs\nJOBS = 2\nJOBS = 4\n", NULL,
	     "run.ini:4: 'JOBS' is set twice in [workload] (first on line 3)"},
	    {"[workload]\nname = jobs\nJOSB = 2\n", NULL,
	     "run.ini:3: workload 'jobs' has no parameter 'JOSB'"},
	    {"", "guest.vcpus=1,0",
	     "--set 'guest.vcpus=1,0': bad value for 'guest.vcpus': 0 is out "
	     "of range"},
	    {"", "host.thp.defarg=always",
	     "--set 'host.thp.defarg=always': unknown host knob 'thp.defarg' "
	     "in [host] (did you mean 'thp.defrag'?)"},
	    {"", "workload.JOBS=2,2",
	     "--set 'workload.JOBS=2,2': bad value for 'JOBS': '2' is listed "
	     "twice"},
	    {"", "guest.sysctl.vm.x=",
	     "--set 'guest.sysctl.vm.x=': bad value for 'sysctl.vm.x': empty "
	     "value"},
	    {"", "guest.vcpu=2",
	     "--set 'guest.vcpu=2': unknown key 'guest.vcpu' (did you mean "
	     "'vcpus'?)"},
	    {"[run]\nname = a b\n", NULL, "run.ini:2: bad run name 'a b'"},
	    {"[matrix]\nept = on\npaging = hw\n", NULL,
	     "run.ini:2: give the paging axis once"},
	    {"[matrix]\nept = on\nnpt = off\n", NULL,
	     "run.ini:3: give either 'ept' or 'npt', not both"},
	    /* a name with terminal escapes: shown scrubbed ('?') */
	    {"", "host.sysctl.vm.\033]0;x\007=1",
	     "--set 'host.sysctl.vm.?]0;x?=1': unknown host knob "
	     "'sysctl.vm.?]0;x?' in [host]"},
	    {"", "ru\033[2Jn.name=x",
	     "--set 'ru?[2Jn.name=x': unknown key 'ru?[2Jn.name'"},
	    {"[workload]\nname = jobs\nJ\033OBS = 2\n", NULL,
	     "run.ini:3: unknown key 'J?OBS' in [workload]"},
	};
	struct run_config c;
	char errbuf[4096];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *sets[1] = {bad[i].set};
		int ret = load_sets(bad[i].text, sets, bad[i].set ? 1 : 0, &c,
				    errbuf, sizeof(errbuf));

		if (ret != -EINVAL)
			fail_msg("row %zu was not refused: %s", i, bad[i].text);
		if (!strstr(errbuf, bad[i].msg))
			fail_msg("row %zu: got '%s', wanted '%s'", i, errbuf,
				 bad[i].msg);
		assert_false(ctrl_in(errbuf));
		run_config_release(&c);
	}
}

static void test_ids(void **state)
{
	static const char *const vcpus[] = {
	    "bare-metal/host-thp=always",
	    "guest/host-thp=always/guest-thp=always/vcpus=1",
	    "guest/host-thp=always/guest-thp=always/vcpus=2",
	    "guest/host-thp=always/guest-thp=always/vcpus=4",
	    NULL,
	};
	static const char *const cmdline[] = {
	    "guest/host-thp=always/guest-thp=never/cmdline=",
	    "guest/host-thp=always/guest-thp=never/cmdline=nogbpages",
	    "guest/host-thp=always/guest-thp=never/cmdline=mem=4G,nokaslr",
	    NULL,
	};
	static const char *const jobs[] = {
	    "bare-metal/host-thp=always/JOBS=2",
	    "bare-metal/host-thp=always/JOBS=4",
	    "guest/host-thp=always/guest-thp=always/JOBS=2",
	    "guest/host-thp=always/guest-thp=always/JOBS=4",
	    NULL,
	};
	static const char *const host[] = {
	    "bare-metal/host.thp.defrag=always/host-thp=never",
	    "bare-metal/host.thp.defrag=never/host-thp=never",
	    NULL,
	};
	static const char *const guest_knob[] = {
	    "guest/host-thp=always/guest-thp=always/"
	    "guest.sysctl.vm.swappiness=10",
	    "guest/host-thp=always/guest-thp=always/"
	    "guest.sysctl.vm.swappiness=60",
	    NULL,
	};
	static const char *const files[] = {
	    "guest/host-thp=always/guest-thp=always/kernel=vmlinuz-6.1/"
	    "TARGET=kernel_",
	    "guest/host-thp=always/guest-thp=always/kernel=vmlinuz-6.1/"
	    "TARGET=mm_",
	    "guest/host-thp=always/guest-thp=always/kernel=vmlinuz-6.9/"
	    "TARGET=kernel_",
	    "guest/host-thp=always/guest-thp=always/kernel=vmlinuz-6.9/"
	    "TARGET=mm_",
	    NULL,
	};
	static const char *const single[] = {
	    /* one value is a setting, not an axis: ids as before */
	    "guest/host-thp=always/guest-thp=always",
	    NULL,
	};

	(void)state;
	expect_ids("[guest]\nvcpus = 1,2,4\n[matrix]\nhost_thp = always\n"
		   "guest_thp = always\n",
		   vcpus);
	expect_ids("[guest]\ncmdline = \"\", nogbpages, \"mem=4G,nokaslr\"\n"
		   "[matrix]\nwhere = guest\nhost_thp = always\n"
		   "guest_thp = never\n",
		   cmdline);
	expect_ids("[matrix]\nhost_thp = always\nguest_thp = always\n"
		   "[workload]\nname = jobs\nJOBS = 2, 4\n",
		   jobs);
	expect_ids("[host]\nthp.defrag = always, never\n[matrix]\n"
		   "where = bare-metal\nhost_thp = never\n",
		   host);
	expect_ids("[guest]\nsysctl.vm.swappiness = 10, 60\n[matrix]\n"
		   "where = guest\nhost_thp = always\nguest_thp = always\n",
		   guest_knob);
	expect_ids("[guest]\nkernel = /boot/vmlinuz-6.1, /opt/k/vmlinuz-6.9\n"
		   "[matrix]\nwhere = guest\nhost_thp = always\n"
		   "guest_thp = always\n"
		   "[workload]\nname = jobs\nTARGET = kernel/, mm/\n",
		   files);
	expect_ids("[guest]\nvcpus = 4\nsysctl.vm.swappiness = 10\n"
		   "[host]\nthp.defrag = never\n"
		   "[matrix]\nwhere = guest\nhost_thp = always\n"
		   "guest_thp = always\n[workload]\nname = jobs\nJOBS = 8\n",
		   single);
}

/* Every kind of axis at once: the order of docs/axes.md, and the values. */
static void test_nesting_order(void **state)
{
	static const char *const names[] = {
	    "where",
	    "paging",
	    "host.thp.defrag",
	    "host.sysctl.vm.x",
	    "host-thp",
	    "guest-thp",
	    "backing",
	    "image",
	    "kernel",
	    "initrd",
	    "vcpus",
	    "memory",
	    "cmdline",
	    "guest.sysctl.vm.swappiness",
	    "JOBS",
	    "TARGET",
	};
	struct run_config c;
	struct matrix m;
	char errbuf[4096];
	const struct cell *x;
	size_t i;

	(void)state;
	assert_int_equal(
	    load("[guest]\nvcpus = 1, 2\nsysctl.vm.swappiness = 10, 60\n"
		 "[host]\nthp.defrag = always, never\nsysctl.vm.x = 3\n"
		 "[matrix]\npaging = hw, shadow\nhost_thp = always\n"
		 "guest_thp = never\nbacking = thp\n"
		 "[workload]\nname = jobs\nJOBS = 2, 4\n",
		 &c),
	    0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(m.naxes, ARRAY_SIZE(names));
	for (i = 0; i < m.naxes; i++)
		assert_string_equal(m.axes[i].name, names[i]);
	/* bare: defrag 2 x JOBS 2; guest: paging 2 x defrag 2 x vcpus 2 x
	 * swappiness 2 x JOBS 2 */
	assert_int_equal(m.ncells, 4 + 32);
	assert_string_equal(
	    m.cells[0].id,
	    "bare-metal/host.thp.defrag=always/host-thp=always/JOBS=2");
	assert_string_equal(
	    m.cells[1].id,
	    "bare-metal/host.thp.defrag=always/host-thp=always/JOBS=4");
	assert_string_equal(
	    m.cells[2].id,
	    "bare-metal/host.thp.defrag=never/host-thp=always/JOBS=2");
	assert_string_equal(
	    m.cells[4].id,
	    "guest/paging=hw/host.thp.defrag=always/host-thp=always/"
	    "guest-thp=never/backing=thp/vcpus=1/"
	    "guest.sysctl.vm.swappiness=10/JOBS=2");
	assert_string_equal(
	    m.cells[5].id,
	    "guest/paging=hw/host.thp.defrag=always/host-thp=always/"
	    "guest-thp=never/backing=thp/vcpus=1/"
	    "guest.sysctl.vm.swappiness=10/JOBS=4");
	assert_string_equal(
	    m.cells[6].id,
	    "guest/paging=hw/host.thp.defrag=always/host-thp=always/"
	    "guest-thp=never/backing=thp/vcpus=1/"
	    "guest.sysctl.vm.swappiness=60/JOBS=2");
	assert_string_equal(
	    m.cells[8].id,
	    "guest/paging=hw/host.thp.defrag=always/host-thp=always/"
	    "guest-thp=never/backing=thp/vcpus=2/"
	    "guest.sysctl.vm.swappiness=10/JOBS=2");
	assert_string_equal(
	    m.cells[12].id,
	    "guest/paging=hw/host.thp.defrag=never/host-thp=always/"
	    "guest-thp=never/backing=thp/vcpus=1/"
	    "guest.sysctl.vm.swappiness=10/JOBS=2");
	assert_string_equal(
	    m.cells[20].id,
	    "guest/paging=shadow/host.thp.defrag=always/host-thp=always/"
	    "guest-thp=never/backing=thp/vcpus=1/"
	    "guest.sysctl.vm.swappiness=10/JOBS=2");
	/* a bare-metal cell: guest values absent, every parameter and host
	 * knob present */
	x = &m.cells[3];
	assert_int_equal(x->where, WHERE_BARE);
	assert_null(x->guest_thp);
	assert_int_equal(x->paging, PAGING_NONE);
	assert_int_equal(x->backing, BACKING_NONE);
	assert_null(x->kernel);
	assert_int_equal(x->vcpus, 0);
	assert_int_equal(x->nguest_knobs, 0);
	assert_int_equal(x->nparams, 2);
	assert_string_equal(x->params[0].name, "JOBS");
	assert_string_equal(x->params[0].value, "4");
	assert_string_equal(x->params[1].name, "TARGET");
	assert_string_equal(x->params[1].value, "all");
	assert_int_equal(x->nhost_knobs, 2);
	assert_string_equal(x->host_knobs[0].value, "never");
	assert_string_equal(x->host_knobs[1].name, "sysctl.vm.x");
	assert_string_equal(x->host_knobs[1].value, "3");
	assert_null(x->axis_values[1]); /* paging */
	assert_string_equal(x->axis_values[0], "bare-metal");
	/* the last guest cell */
	x = &m.cells[35];
	assert_int_equal(x->where, WHERE_GUEST);
	assert_int_equal(x->paging, PAGING_SHADOW);
	assert_int_equal(x->backing, BACKING_THP);
	assert_string_equal(x->host_thp, "always");
	assert_string_equal(x->guest_thp, "never");
	assert_int_equal(x->vcpus, 2);
	assert_true(x->memory == 2ULL << 30);
	assert_string_equal(x->image, "tiny");
	assert_string_equal(x->kernel, "auto");
	assert_string_equal(x->cmdline, "");
	assert_int_equal(x->nguest_knobs, 1);
	assert_string_equal(x->guest_knobs[0].value, "60");
	assert_string_equal(x->params[0].value, "4");
	assert_string_equal(x->host_knobs[0].value, "never");
	assert_string_equal(x->axis_values[10], "2"); /* vcpus */
	{
		char **env = cell_env_new(x);

		assert_string_equal(env[0], "JOBS=4");
		assert_string_equal(env[1], "TARGET=all");
		assert_null(env[2]);
		free_strv(env);
	}
	matrix_release(&m);
	run_config_release(&c);
}

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(j);
	return s;
}

static void test_numeric_and_json(void **state)
{
	struct run_config c;
	struct matrix m;
	char errbuf[4096], *s;
	size_t i;

	(void)state;
	assert_int_equal(load("[guest]\nvcpus = 1, 2, 4\n[matrix]\n"
			      "host_thp = always, never\n"
			      "guest_thp = always, never\n",
			      &c),
			 0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
	/* docs/axes.md, byte for byte */
	s = dump(matrix_axes_json(&m));
	assert_string_equal(
	    s,
	    "[{\"name\":\"where\",\"key\":\"matrix.where\",\"values\":[\"bare-"
	    "metal\",\"guest\"],\"numeric\":false,\"applies\":\"all\"},"
	    "{\"name\":\"host-thp\",\"key\":\"matrix.host_thp\",\"values\":["
	    "\"always\",\"never\"],\"numeric\":false,\"applies\":\"all\"},"
	    "{\"name\":\"guest-thp\",\"key\":\"matrix.guest_thp\",\"values\":["
	    "\"always\",\"never\"],\"numeric\":false,\"applies\":\"guest\"},"
	    "{\"name\":\"vcpus\",\"key\":\"guest.vcpus\",\"values\":[\"1\","
	    "\"2\",\"4\"],\"numeric\":true,\"numbers\":[1,2,4],\"applies\":"
	    "\"guest\"}]");
	free(s);
	for (i = 0; i < m.ncells; i++)
		if (!strcmp(m.cells[i].id,
			    "guest/host-thp=always/guest-thp=always/vcpus=2"))
			break;
	assert_true(i < m.ncells);
	s = dump(matrix_cell_axes_json(&m, i));
	assert_string_equal(s, "{\"where\":\"guest\",\"host-thp\":\"always\","
			       "\"guest-thp\":\"always\",\"vcpus\":\"2\"}");
	free(s);
	s = dump(matrix_cell_axes_json(&m, 0));
	assert_string_equal(
	    s, "{\"where\":\"bare-metal\",\"host-thp\":\"always\"}");
	free(s);
	matrix_release(&m);
	run_config_release(&c);

	/* sizes count as numbers (in bytes); mixed or words do not */
	assert_int_equal(
	    load("[guest]\nmemory = 2G, 512M\n"
		 "cmdline = a, \"\"\n[host]\nkvm.nx_huge_pages = Y, N\n"
		 "[matrix]\nwhere = guest\n"
		 "[workload]\nname = jobs\nJOBS = 2, x\n"
		 "TARGET = 1.5, -3\n",
		 &c),
	    0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
	for (i = 0; i < m.naxes; i++) {
		const struct axis *a = &m.axes[i];

		if (!strcmp(a->name, "memory")) {
			assert_true(a->numeric && a->in_id);
			assert_true(a->numbers[0] == 2.0 * (1 << 30));
			assert_true(a->numbers[1] == 512.0 * (1 << 20));
		} else if (!strcmp(a->name, "TARGET")) {
			assert_true(a->numeric);
			assert_true(a->numbers[0] == 1.5 &&
				    a->numbers[1] == -3);
		} else if (!strcmp(a->name, "vcpus")) {
			/* one value: a setting, numeric but not in ids */
			assert_false(a->in_id);
		} else if (!strcmp(a->name, "cmdline") ||
			   !strcmp(a->name, "JOBS") ||
			   !strcmp(a->name, "host.kvm.nx_huge_pages") ||
			   !strcmp(a->name, "host-thp")) {
			assert_false(a->numeric);
			assert_true(a->in_id);
		}
	}
	s = dump(matrix_axes_json(&m));
	assert_non_null(strstr(s,
			       "{\"name\":\"memory\",\"key\":\"guest.memory\","
			       "\"values\":[\"2G\",\"512M\"],\"numeric\":true,"
			       "\"numbers\":[2147483648,536870912],"
			       "\"applies\":\"guest\"}"));
	assert_non_null(strstr(s, "{\"name\":\"host.kvm.nx_huge_pages\","
				  "\"key\":\"host.kvm.nx_huge_pages\","
				  "\"values\":[\"Y\",\"N\"],\"numeric\":false,"
				  "\"applies\":\"all\"}"));
	assert_null(strstr(s, "\"vcpus\""));
	free(s);
	matrix_release(&m);
	run_config_release(&c);
}

static void test_exclude_baseline(void **state)
{
	static const char *const ids[] = {
	    "guest/host-thp=always/guest-thp=always/vcpus=1/JOBS=2",
	    "guest/host-thp=always/guest-thp=always/vcpus=2/JOBS=2",
	    "guest/host-thp=always/guest-thp=always/vcpus=2/JOBS=4",
	    NULL,
	};
	struct run_config c;
	struct matrix m;
	char errbuf[4096];

	(void)state;
	expect_ids("[guest]\nvcpus = 1, 2, 4\n[matrix]\nwhere = guest\n"
		   "host_thp = always\nguest_thp = always\n"
		   "exclude = */vcpus=4/*, */vcpus=1/JOBS=4\n"
		   "[workload]\nname = jobs\nJOBS = 2, 4\n",
		   ids);
	assert_int_equal(
	    load("[run]\nbaseline = "
		 "guest/host-thp=always/guest-thp=always/vcpus=2/JOBS=4\n"
		 "[guest]\nvcpus = 1, 2\n[matrix]\nwhere = guest\n"
		 "host_thp = always\nguest_thp = always\n"
		 "[workload]\nname = jobs\nJOBS = 2, 4\n",
		 &c),
	    0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(m.baseline, 3);
	matrix_release(&m);
	run_config_release(&c);
	/* empty: the first cell */
	assert_int_equal(load("[run]\nbaseline =\n[guest]\nvcpus = 1, 2\n", &c),
			 0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(m.baseline, 0);
	matrix_release(&m);
	run_config_release(&c);
	/* an excluded baseline is not a cell */
	assert_int_equal(load("[run]\nbaseline = "
			      "guest/host-thp=always/guest-thp=always/vcpus=2\n"
			      "[guest]\nvcpus = 1, 2\n[matrix]\nwhere = guest\n"
			      "host_thp = always\nguest_thp = always\n"
			      "exclude = */vcpus=2\n",
			      &c),
			 0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), -EINVAL);
	assert_non_null(strstr(errbuf,
			       "run.ini:2: baseline 'guest/host-thp=always/"
			       "guest-thp=always/vcpus=2' is not a cell"));
	assert_non_null(strstr(
	    errbuf, "    guest/host-thp=always/guest-thp=always/vcpus=1\n"));
	assert_int_equal(m.ncells, 0);
	run_config_release(&c);
	/* excluding everything */
	assert_int_equal(
	    load("[guest]\nvcpus = 1, 2\n[matrix]\nexclude = *\n", &c), 0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), -EINVAL);
	assert_non_null(strstr(errbuf, "run.ini:4: the matrix has no cells"));
	run_config_release(&c);
}

static void test_duplicate_ids(void **state)
{
	static const struct {
		const char *text, *id;
	} dup[] = {
	    {"[guest]\nkernel = /a/vmlinuz, /b/vmlinuz\n[matrix]\n"
	     "where = guest\nhost_thp = never\nguest_thp = never\n",
	     "guest/host-thp=never/guest-thp=never/kernel=vmlinuz"},
	    {"[matrix]\nwhere = bare-metal\nhost_thp = never\n"
	     "[workload]\nname = jobs\nTARGET = a/b, a_b\n",
	     "bare-metal/host-thp=never/TARGET=a_b"},
	};
	struct run_config c;
	struct matrix m;
	char errbuf[4096], *want;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(dup); i++) {
		assert_int_equal(load(dup[i].text, &c), 0);
		assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)),
				 -EINVAL);
		want =
		    xasprintf("run.ini: two cells have the id '%s'", dup[i].id);
		if (!strstr(errbuf, want))
			fail_msg("row %zu: got '%s', wanted '%s'", i, errbuf,
				 want);
		free(want);
		run_config_release(&c);
	}
	/* too many cells */
	assert_int_equal(load("[guest]\nvcpus = 1,2,3,4,5,6,7,8,9,10\n"
			      "memory = 1G,2G,3G,4G,5G,6G,7G,8G,9G,10G\n"
			      "cmdline = a,b,c,d,e,f,g,h,i,j\n"
			      "initrd = a,b,c,d,e,f,g,h,i,j\n",
			      &c),
			 0);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), -EINVAL);
	assert_non_null(strstr(errbuf, "the matrix has more than 10000 cells"));
	run_config_release(&c);
}

static void test_set_lists(void **state)
{
	static const char *const sets[] = {
	    "guest.vcpus=1, 2",
	    "workload.JOBS=2,4",
	    "host.thp.defrag=always,never",
	    "guest.sysctl.vm.swappiness=10,60",
	    "guest.cmdline=\"a,b\"",
	};
	struct run_config c;
	struct matrix m;
	char errbuf[4096], *s;

	(void)state;
	assert_int_equal(
	    load_sets("[host]\nthp.defrag = madvise\n"
		      "[guest]\nsysctl.vm.swappiness = 1\n"
		      "[matrix]\nwhere = guest\nhost_thp = always\n"
		      "guest_thp = always\n",
		      sets, ARRAY_SIZE(sets), &c, errbuf, sizeof(errbuf)),
	    0);
	assert_int_equal(c.vcpus.n, 2);
	assert_int_equal(c.cmdline.n, 1);
	assert_string_equal(c.cmdline.v[0], "a,b");
	assert_int_equal(c.nhost_knobs, 1);
	assert_int_equal(c.host_knobs[0].values.n, 2);
	assert_int_equal(c.host_knobs[0].line, -1);
	assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(m.ncells, 16);
	assert_string_equal(m.cells[15].id,
			    "guest/host.thp.defrag=never/host-thp=always/"
			    "guest-thp=always/vcpus=2/"
			    "guest.sysctl.vm.swappiness=60/JOBS=4");
	assert_string_equal(m.cells[15].cmdline, "a,b");
	matrix_release(&m);
	/* run_config_to_json echoes lists; one value stays as before */
	s = dump(run_config_to_json(&c));
	assert_non_null(strstr(s, "\"vcpus\":[1,2]"));
	assert_non_null(strstr(s, "\"memory\":2147483648"));
	assert_non_null(strstr(s, "\"cmdline\":\"a,b\""));
	assert_non_null(strstr(s, "\"sysctl.vm.swappiness\":[\"10\",\"60\"]"));
	assert_non_null(
	    strstr(s, "\"host\":{\"thp.defrag\":[\"always\",\"never\"]}"));
	assert_non_null(strstr(
	    s, "\"params\":{\"JOBS\":[\"2\",\"4\"],\"TARGET\":\"all\"}"));
	assert_non_null(strstr(s, "\"host_thp\":[\"always\"]"));
	free(s);
	run_config_release(&c);
}

/* The configs in configs/ expand to the ids they always had. */
static void test_pinned_configs(void **state)
{
	static const char *const demo[] = {
	    "bare-metal/host-thp=always",
	    "bare-metal/host-thp=never",
	    "guest/host-thp=always/guest-thp=always",
	    "guest/host-thp=always/guest-thp=never",
	    "guest/host-thp=never/guest-thp=always",
	    "guest/host-thp=never/guest-thp=never",
	    NULL,
	};
	static const char *const small[] = {
	    "bare-metal/host-thp=always",
	    "bare-metal/host-thp=never",
	    "guest/paging=tcg/host-thp=always/guest-thp=always",
	    "guest/paging=tcg/host-thp=always/guest-thp=never",
	    "guest/paging=tcg/host-thp=never/guest-thp=never",
	    "guest/paging=hw/host-thp=always/guest-thp=always",
	    "guest/paging=hw/host-thp=always/guest-thp=never",
	    "guest/paging=hw/host-thp=never/guest-thp=never",
	    "guest/paging=shadow/host-thp=always/guest-thp=always",
	    "guest/paging=shadow/host-thp=always/guest-thp=never",
	    "guest/paging=shadow/host-thp=never/guest-thp=never",
	    NULL,
	};
	static const char *const ept[] = {
	    "bare-metal/host-thp=always",
	    "bare-metal/host-thp=never",
	    "guest/paging=hw/host-thp=always/guest-thp=always",
	    "guest/paging=hw/host-thp=always/guest-thp=never",
	    "guest/paging=hw/host-thp=never/guest-thp=never",
	    "guest/paging=shadow/host-thp=always/guest-thp=always",
	    "guest/paging=shadow/host-thp=always/guest-thp=never",
	    "guest/paging=shadow/host-thp=never/guest-thp=never",
	    NULL,
	};
	/* seed 002: one guest cell per direct-map setting */
	static const char *const directmap[] = {
	    "guest/host-thp=always/guest-thp=never/cmdline=",
	    "guest/host-thp=always/guest-thp=never/cmdline=nogbpages",
	    "guest/host-thp=always/guest-thp=never/cmdline=nogbpages "
	    "clearcpuid=pse",
	    NULL,
	};
	static const struct {
		const char *path;
		const char *const *ids;
		const char *baseline;
	} pins[] = {
	    {"configs/demo.ini", demo, "bare-metal/host-thp=always"},
	    {"configs/kbuild-small.ini", small, "bare-metal/host-thp=always"},
	    {"configs/kbuild-ept-thp.ini", ept, "bare-metal/host-thp=always"},
	    {"configs/directmap.ini", directmap,
	     "guest/host-thp=always/guest-thp=never/cmdline="},
	    {"configs/directmap-sparse.ini", directmap,
	     "guest/host-thp=always/guest-thp=never/cmdline="},
	};
	struct run_config c;
	struct matrix m;
	char errbuf[4096];
	size_t i, k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(pins); k++) {
		/* relative to the top of the tree, where make check-unit runs
		 */
		const char *path = pins[k].path;

		assert_int_equal(run_config_load(path, NULL, 0, &c), 0);
		assert_int_equal(expand(&c, &m, errbuf, sizeof(errbuf)), 0);
		for (i = 0; pins[k].ids[i] && i < m.ncells; i++)
			assert_string_equal(m.cells[i].id, pins[k].ids[i]);
		assert_null(pins[k].ids[i]);
		assert_int_equal(m.ncells, i);
		assert_string_equal(m.cells[m.baseline].id, pins[k].baseline);
		matrix_release(&m);
		run_config_release(&c);
	}
}

static void test_enums(void **state)
{
	enum paging p;
	enum backing b;
	enum where w;

	(void)state;
	assert_int_equal(paging_parse("shadow", &p), 0);
	assert_int_equal(p, PAGING_SHADOW);
	assert_int_equal(paging_parse("ept", &p), -EINVAL);
	assert_null(paging_name(PAGING_NONE));
	assert_string_equal(paging_name(PAGING_TCG), "tcg");
	assert_int_equal(backing_parse("hugetlb-1G", &b), 0);
	assert_int_equal(b, BACKING_HUGETLB_1G);
	assert_int_equal(backing_parse("hugetlb-3M", &b), -EINVAL);
	assert_null(backing_name(BACKING_NONE));
	assert_int_equal(where_parse("guest", &w), 0);
	assert_int_equal(w, WHERE_GUEST);
	assert_string_equal(where_name(WHERE_BARE), "bare-metal");
	assert_int_equal(where_parse("lab", &w), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_parse),
	    cmocka_unit_test(test_bad_lists),
	    cmocka_unit_test(test_ids),
	    cmocka_unit_test(test_nesting_order),
	    cmocka_unit_test(test_numeric_and_json),
	    cmocka_unit_test(test_exclude_baseline),
	    cmocka_unit_test(test_duplicate_ids),
	    cmocka_unit_test(test_set_lists),
	    cmocka_unit_test(test_pinned_configs),
	    cmocka_unit_test(test_enums),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
