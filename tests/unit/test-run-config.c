/* SPDX-License-Identifier: MIT */
/* Unit tests: run config and workload tables, bad inputs, domain XML. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
#include "vm.h"

static char tmpdir[] = "/tmp/vmtax-test-run-config.XXXXXX";

static void put(const char *name, const char *text)
{
	config_dir_put(tmpdir, name, text);
}

static const char *const workload_ini =
	"[workload]\n"
	"description = test walk\n"
	"run = randwalk --size-mib $SIZE_MIB\n"
	"[param.SIZE_MIB]\n"
	"default = 64\n"
	"type = int\n"
	"min = 1\n";

static int setup(void **state)
{
	(void)state;
	return config_dir_make(tmpdir, "walk", workload_ini);
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(tmpdir);
}

/* Load TEXT as a config; return run_config_load()'s result. */
static int load(const char *text, struct run_config *c)
{
	char *p = xasprintf("%s/run.ini", tmpdir);
	int ret;

	put("run.ini", text);
	ret = run_config_load(p, NULL, 0, c);
	free(p);
	return ret;
}

static void test_good_config(void **state)
{
	struct run_config c;
	struct matrix m;
	struct cell *cells;

	(void)state;
	assert_int_equal(load("[run]\nname = t1\nrepeat = 5\n"
			      "[guest]\nmemory = 1536M\nvcpus = 4\n"
			      "[workload]\nname = walk\nSIZE_MIB = 128\n",
			      &c),
			 0);
	assert_string_equal(c.name, "t1");
	assert_int_equal(c.repeat, 5);
	/* No target: a fixed repeat, capped at itself; interleaved rounds
	 * (the default order) with boots auto: two boots, a fixed plan. */
	assert_true(c.target == 0);
	assert_int_equal(c.max_repeat, 5);
	assert_string_equal(c.order, "interleaved");
	assert_true(c.boots_auto);
	assert_int_equal(c.boots, 2);
	assert_false(c.plan_auto);
	assert_int_equal(c.replicas, 1);
	assert_int_equal(c.vcpus.n, 1);
	assert_string_equal(c.vcpus.v[0], "4");
	assert_string_equal(c.memory.v[0], "1536M");
	assert_string_equal(c.wl.params[0].value, "128");
	assert_string_equal(c.wl.run, "randwalk --size-mib $SIZE_MIB");
	assert_string_equal(c.wl.scratch, WL_SCRATCH_TMPFS); /* the default */
	assert_string_equal(c.numa, "none");
	/* defaults: 2 bare-metal + 2x2 guest cells, no paging/backing in ids */
	assert_int_equal(matrix_expand(&c, &m), 0);
	cells = m.cells;
	assert_int_equal(m.ncells, 6);
	assert_string_equal(cells[0].id, "bare-metal/host-thp=always");
	assert_string_equal(cells[1].id, "bare-metal/host-thp=never");
	assert_string_equal(cells[2].id, "guest/host-thp=always/guest-thp=always");
	assert_string_equal(cells[5].id, "guest/host-thp=never/guest-thp=never");
	assert_int_equal(cells[5].paging, PAGING_AUTO);
	assert_int_equal(cells[5].vcpus, 4);
	assert_true(cells[5].memory == 1536ULL << 20);
	assert_int_equal(cells[0].paging, PAGING_NONE);
	assert_int_equal(cells[0].vcpus, 0);
	matrix_release(&m);
	run_config_release(&c);

	/* order = cells keeps one boot; replicas = 2 doubles every cell,
	 * the baseline being replica a of the one named. */
	assert_int_equal(load("[run]\norder = cells\n[workload]\nname = walk\n",
			      &c),
			 0);
	assert_int_equal(c.boots, 1);
	run_config_release(&c);
	assert_int_equal(load("[run]\nreplicas = 2\nbaseline = bare-metal/"
			      "host-thp=never\n[workload]\nname = walk\n",
			      &c),
			 0);
	assert_int_equal(matrix_expand(&c, &m), 0);
	assert_int_equal(m.ncells, 12);
	assert_string_equal(m.cells[m.baseline].id,
			    "bare-metal/host-thp=never/replica=a");
	assert_string_equal(m.cells[m.baseline + 1].id,
			    "bare-metal/host-thp=never/replica=b");
	matrix_release(&m);
	run_config_release(&c);
}

static void test_sampling_keys(void **state)
{
	struct run_config c;

	(void)state;
	assert_int_equal(load("[run]\nrepeat = 3\ntarget = 2.5 %\n"
			      "max_repeat = 20\nboots = 3\n"
			      "[workload]\nname = walk\n",
			      &c),
			 0);
	assert_true(fabs(c.target - 0.025) < 1e-15);
	assert_int_equal(c.max_repeat, 20);
	assert_int_equal(c.boots, 3);
	run_config_release(&c);
	/* A hung sample's agent: silent 4 heartbeats + 30 s unless set. */
	assert_int_equal(load("[run]\nheartbeat = 2\n[workload]\nname = walk\n",
			      &c),
			 0);
	assert_false(c.silence_set);
	assert_true(c.silence_s == 38);
	run_config_release(&c);
	assert_int_equal(load("[run]\nheartbeat = 1\nsilence_timeout = 6\n"
			      "[workload]\nname = walk\n",
			      &c),
			 0);
	assert_true(c.silence_set && c.silence_s == 6);
	run_config_release(&c);
}

static void test_set_override(void **state)
{
	const char *sets[] = { "run.repeat=7", "workload.SIZE_MIB=32" };
	char *p = xasprintf("%s/run.ini", tmpdir);
	struct run_config c;

	(void)state;
	put("run.ini", "[workload]\nname = walk\n");
	assert_int_equal(run_config_load(p, sets, 2, &c), 0);
	assert_int_equal(c.repeat, 7);
	assert_string_equal(c.wl.params[0].value, "32");
	run_config_release(&c);
	put("run.ini", "[workload]\nname = walk\n");
	sets[0] = "run.repat=7";
	assert_int_equal(run_config_load(p, sets, 1, &c), -EINVAL);
	run_config_release(&c);
	free(p);
}

static void test_paging_axis(void **state)
{
	struct run_config c;
	struct matrix m;

	(void)state;
	/* ept = on, off is the Intel spelling of paging = hw, shadow; cells
	 * are ordered by paging first so each mode needs one reload. */
	assert_int_equal(load("[matrix]\nwhere = guest\nept = on, off\n"
			      "host_thp = always, never\nguest_thp = never\n"
			      "exclude = */host-thp=never/*\n"
			      "[workload]\nname = walk\n",
			      &c),
			 0);
	assert_int_equal(matrix_expand(&c, &m), 0);
	assert_int_equal(m.ncells, 2);
	assert_string_equal(m.cells[0].id,
			    "guest/paging=hw/host-thp=always/guest-thp=never");
	assert_string_equal(m.cells[1].id,
			    "guest/paging=shadow/host-thp=always/guest-thp=never");
	assert_int_equal(m.cells[1].paging, PAGING_SHADOW);
	/* the flags say which keys were set; ept gave the axis its key */
	assert_true(c.ept_set && c.paging_axis);
	assert_false(c.paging_set || c.npt_set || c.backing_set);
	assert_string_equal(m.axes[1].key, "matrix.ept");
	matrix_release(&m);
	run_config_release(&c);
}

/* An axis key's values are parsed once, at load, into typed values that
 * the cells take as they are (no second parse in matrix.c). */
static void test_typed_axes(void **state)
{
	const char *sets[] = {"run.profile_hz=100",
			      "matrix.backing=hugetlb-1G,thp"};
	char *p = xasprintf("%s/run.ini", tmpdir);
	struct run_config c;
	struct matrix m;

	(void)state;
	put("run.ini", "[guest]\nvcpus = 1, 0x4\nmemory = 1G, 1536M\n"
		       "[matrix]\nwhere = guest, bare-metal\n"
		       "paging = tcg\nhost_thp = never\nguest_thp = never\n"
		       "[workload]\nname = walk\n");
	assert_int_equal(run_config_load(p, sets, 2, &c), 0);
	assert_true(c.profile_hz_set && c.backing_set && c.paging_axis);
	assert_false(c.max_repeat_set);
	assert_int_equal(c.vcpus.val[1].n, 4);
	assert_true(c.memory.val[1].sz == 1536ULL << 20);
	assert_int_equal(c.where.val[0].n, WHERE_GUEST);
	assert_int_equal(matrix_expand(&c, &m), 0);
	assert_int_equal(m.ncells, 9);
	assert_string_equal(m.cells[0].id, "bare-metal/host-thp=never");
	assert_int_equal(m.cells[0].where, WHERE_BARE);
	assert_string_equal(m.cells[8].id,
			    "guest/paging=tcg/host-thp=never/guest-thp=never/"
			    "backing=thp/vcpus=0x4/memory=1536M");
	assert_int_equal(m.cells[8].vcpus, 4);
	assert_true(m.cells[8].memory == 1536ULL << 20);
	assert_int_equal(m.cells[8].paging, PAGING_TCG);
	assert_int_equal(m.cells[8].backing, BACKING_THP);
	assert_int_equal(m.cells[1].backing, BACKING_HUGETLB_1G);
	assert_string_equal(m.cells[8].host_thp, "never");
	assert_string_equal(m.cells[8].image, "tiny");
	matrix_release(&m);
	run_config_release(&c);
	free(p);
}

/* Load TEXT with stderr in ERRBUF; then expand when it loaded. */
static int load_expand(const char *text, struct run_config *c, char *errbuf,
		       size_t errlen)
{
	char *e = xasprintf("%s/stderr", tmpdir);
	struct matrix m;
	int fd, saved, ret;
	ssize_t n;

	fflush(stderr);
	saved = dup(2);
	fd = open(e, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	ret = load(text, c);
	if (ret == 0) {
		/* some errors only show when the matrix is built */
		ret = matrix_expand(c, &m);
		if (ret >= 0)
			matrix_release(&m);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, errbuf, errlen - 1, 0);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	free(e);
	return ret;
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

struct bad {
	const char *text;
	const char *why; /* the message, after "DIR/" */
};

static void test_bad_configs(void **state)
{
	static const struct bad bad[] = {
		{ "[run]\nrepat = 3\n[workload]\nname = walk\n",
		  "run.ini:2: unknown key 'repat' in [run] (did you mean 'repeat'?)" },
		{ "[run]\nrepeat = 0\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'repeat': 0 is out of range [1, 1000]" },
		{ "[run]\nrepeat = three\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'repeat': 'three' is not an integer" },
		{ "[guest]\nvcpus = 9999\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'vcpus': 9999 is out of range [1, 512]" },
		{ "[guest]\nmemory = 100M\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'memory': 100M is out of range [512 MiB," },
		{ "[guest]\nmemory = lots\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'memory': 'lots' is not a size" },
		{ "[guest]\naccel = xen\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'accel': 'xen' is not one of: auto, kvm, tcg" },
		{ "[guest]\nnuma = first\n[workload]\nname = walk\n",
		  "run.ini:2: numa: 'first' is not 'none' or a NUMA node number (0..1023)" },
		{ "[guest]\nnuma = -1\n[workload]\nname = walk\n",
		  "run.ini:2: numa: '-1' is not 'none' or a NUMA node number" },
		{ "[guest]\nnuma = 1024\n[workload]\nname = walk\n",
		  "run.ini:2: numa: '1024' is not 'none' or a NUMA node number" },
		{ "[guest]\nnuma = 0,1\n[workload]\nname = walk\n",
		  "run.ini:2: numa: '0,1' is not 'none' or a NUMA node number" },
		{ "[matrix]\nhost_thp =\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'host_thp': empty value" },
		{ "[matrix]\nhost_thp = always,,never\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'host_thp': empty element in list 'always,,never'" },
		{ "[matrix]\nhost_thp = always, always\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'host_thp': 'always' is listed twice" },
		{ "[matrix]\nhost_thp = sometimes\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'host_thp': 'sometimes' is not one of: always, madvise, never" },
		{ "[run]\nname = a\n[run]\nrepeat = 2\n[workload]\nname = walk\n",
		  "run.ini:3: section [run] appears twice" },
		{ "[runn]\nname = a\n[workload]\nname = walk\n",
		  "run.ini:2: unknown section [runn] (did you mean 'run'?)" },
		{ "[workload]\nname = nosuch\n",
		  "run.ini:2: unknown workload 'nosuch'" },
		{ "[workload]\nname = walk\nNOPE = 1\n",
		  "run.ini:3: workload 'walk' has no parameter 'NOPE'" },
		{ "[workload]\nname = ../walk\n",
		  "run.ini:2: bad workload name '../walk'" },
		{ "[run]\nname = a b\n[workload]\nname = walk\n",
		  "run.ini:2: bad run name 'a b' (use letters, digits, '.', '_', '-')" },
		{ "[run]\nname = <x>\n[workload]\nname = walk\n",
		  "run.ini:2: bad run name '<x>'" },
		{ "[run]\nbaseline = nope\n[workload]\nname = walk\n",
		  "run.ini:2: baseline 'nope' is not a cell of this matrix" },
		{ "[matrix]\nept = on\npaging = hw\n[workload]\nname = walk\n",
		  "run.ini:2: give the paging axis once: 'paging', 'ept' or 'npt'" },
		{ "[run]\ntarget = 2\n[workload]\nname = walk\n",
		  "run.ini:2: bad target '2' (want a percentage above 0 and below 100, e.g. 2%)" },
		{ "[run]\ntarget = 100%\n[workload]\nname = walk\n",
		  "run.ini:2: bad target '100%'" },
		{ "[run]\ntarget = 2%%\n[workload]\nname = walk\n",
		  "run.ini:2: bad target '2%%'" },
		{ "[run]\nrepeat = 5\nmax_repeat = 4\n[workload]\nname = walk\n",
		  "run.ini:3: max_repeat = 4 is below repeat = 5" },
		{ "[run]\nsilence_timeout = 9\n[workload]\nname = walk\n",
		  "run.ini:2: silence_timeout = 9 is under two heartbeats (heartbeat = 5): a working guest would be taken for hung" },
		{ "[run]\nrepeat = 2\nboots = 3\n[workload]\nname = walk\n",
		  "run.ini:3: boots = 3 needs at least as many samples (repeat = 2)" },
		{ "[fleet]\nhosts = -oProxyCommand=x\n[workload]\nname = walk\n",
		  "run.ini:2: bad ssh destination: '-oProxyCommand=x' starts with '-': ssh would take it as an option" },
		{ "[fleet]\nhosts = a;reboot\n[workload]\nname = walk\n",
		  "run.ini:2: bad ssh destination: 'a;reboot' has the character 0x3b at 2: a shell metacharacter or ssh syntax" },
		{ "[fleet]\nhosts = ssh://box:22\n[workload]\nname = walk\n",
		  "run.ini:2: bad ssh destination: 'ssh://box:22' has the character 0x3a at 4: ports, ssh:// URIs and IPv6 literals go in your ssh config: give its Host alias" },
		{ "[fleet]\nhosts = box, box\n[workload]\nname = walk\n",
		  "run.ini:2: bad value for 'hosts': 'box' is listed twice" },
		{ "[fleet]\nhosts = root@box, box\n[workload]\nname = walk\n",
		  "run.ini:2: 'root@box' and 'box' name the same host" },
		{ "[run]\nexecutor = fleet\n[workload]\nname = walk\n",
		  "run.ini: executor = fleet needs [fleet] hosts (or --host DEST)" },
		{ "[fleet]\nhosts = a\nmode = spread\n[workload]\nname = walk\n",
		  "run.ini:3: bad value for 'mode': 'spread' is not one of: each, split" },
		{ "[fleet]\nhosts = a\nvmtax = vmtax; rm -rf /\n[workload]\nname = walk\n",
		  "run.ini:3: bad vmtax command 'vmtax; rm -rf /'" },
		{ "[fleet]\nhosts = a\nvmtax = --help\n[workload]\nname = walk\n",
		  "run.ini:3: bad vmtax command '--help'" },
		{ "[fleet]\nhosts = a\nconnect_timeout = 0\n[workload]\nname = walk\n",
		  "run.ini:3: bad value for 'connect_timeout': 0 is out of range [1, 600]" },
		{ "[fleet]\nhosts = a\nmode = split\nallow_unlike = maybe\n[workload]\nname = walk\n",
		  "run.ini:4: bad value for 'allow_unlike': 'maybe' is not a boolean (yes/no)" },
		/* a typed parameter's overrides, each value as its type */
		{ "[workload]\nname = walk\nSIZE_MIB = lots\n",
		  "run.ini:3: workload parameter SIZE_MIB: 'lots' is not an integer (SIZE_MIB is an int of at least 1, " },
		{ "[workload]\nname = walk\nSIZE_MIB = 64, 0\n",
		  "run.ini:3: workload parameter SIZE_MIB: 0 is out of range (at least 1) (SIZE_MIB is an int of at least 1, " },
		{ "[run]\n", "run.ini: [workload] name is missing" },
		{ "[run\nname = x\n", "run.ini:2: key 'name' outside any section" },
		{ "[run]\nname = \xff\xfe\n", "run.ini: not UTF-8 text" },
		/* terminal escapes in a name: shown scrubbed ('?') */
		{ "[ma\033[2Jtrix]\nwhere = guest\n[workload]\nname = walk\n",
		  "run.ini:2: unknown section [ma?[2Jtrix]" },
		{ "[run]\nna\033[31mme = x\n[workload]\nname = walk\n",
		  "run.ini:2: unknown key 'na?[31mme' in [run]" },
		{ "[host]\nsysctl.vm.\033]0;x\007 = 1\n[workload]\nname = walk\n",
		  "run.ini:2: unknown host knob 'sysctl.vm.?]0;x?' in [host]" },
		{ "[guest]\nsysctl.\033c = 1\n[workload]\nname = walk\n",
		  "run.ini:2: 'sysctl.?c' is not a guest knob name" },
		{ "[run]\nname = a\n[run\033]\n[run\033]\n[workload]\nname = walk\n",
		  "run.ini:4: section [run?] appears twice (first on line 3)" },
		{ "[workload]\nname = wa\033lk\n",
		  "run.ini:2: bad workload name 'wa?lk'" },
	};
	char errbuf[4096];
	struct run_config c;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *want = xasprintf("%s/%s", tmpdir, bad[i].why);
		int ret = load_expand(bad[i].text, &c, errbuf, sizeof(errbuf));

		if (ret >= 0)
			fail_msg("config %zu was accepted: %s", i, bad[i].text);
		if (!strstr(errbuf, want))
			fail_msg("config %zu: got '%s', wanted '%s'", i, errbuf,
				 want);
		assert_false(ctrl_in(errbuf));
		free(want);
		run_config_release(&c);
	}
}

/* A workload file's own rules, each with its message. */
static void test_bad_workloads(void **state)
{
	static const struct bad bad[] = {
		{ "[workload]\ndescription = x\n",
		  "w.ini: [workload] has no 'run' command" },
		{ "[workload]\nrun = true\nmetric = regex\n",
		  "w.ini:3: metric = regex needs 'metric_regex'" },
		{ "[workload]\nrun = true\nmetric_regex = no groups\n",
		  "w.ini:3: metric_regex 'no groups' is not a POSIX ERE with a capture group" },
		{ "[workload]\nrun = true\nseries_regex = (x) only\n",
		  "w.ini:3: series_regex '(x) only' is not a POSIX ERE with two capture groups" },
		{ "[workload]\nrun = true\nestimate = 2 * N\n",
		  "w.ini:3: 'N' is not a parameter of the workload" },
		{ "[workload]\nrun = true\nestimate = 0.1 * N\n[param.N]\ndefault = many\n",
		  "w.ini:3: parameter N = 'many' is not a number" },
		{ "[workload]\nrun = true\nestimate = 2 x N\n[param.N]\ndefault = 1\n",
		  "w.ini:3: '2 x N' is not seconds as a sum of terms, each a number or a number * a PARAMETER" },
		{ "[workload]\nrun = true\npackages = bash, Not_A_Package\n",
		  "w.ini:3: packages: 'Not_A_Package' is not a Debian package name" },
		{ "[workload]\nrun = true\nscratch = ram\n",
		  "w.ini:3: bad value for 'scratch': 'ram' is not one of: tmpfs, disk" },
		{ "[workload]\nrun = true\nscratch =\n",
		  "w.ini:3: bad value for 'scratch': " },
		{ "[workload]\nrun = true\n[param.X]\ndescription = d\n",
		  "w.ini:4: [param.X] has no default" },
		{ "[workload]\nrun = true\n[param.lower]\ndefault = 1\n",
		  "w.ini:4: parameter name 'lower' must be upper case" },
		{ "[workload]\nrun = true\nmetirc = elapsed\n",
		  "w.ini:3: unknown key 'metirc' in [workload] (did you mean 'metric'?)" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 1\ndefault = 2\n",
		  "w.ini:5: 'default' is set twice in [param.X] (first on line 4)" },
		{ "[workload]\nrun = true\n[param.\033[2J]\ndefault = 1\n",
		  "w.ini:4: parameter name '?[2J' must be upper case" },
		/* typed parameters: the declaration, then the default */
		{ "[workload]\nrun = true\n[param.X]\ndefault = 1\ntype = integer\n",
		  "w.ini:5: [param.X] type: type 'integer' is not one of: string, int, number, size, enum" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = abc\ntype = int\n",
		  "w.ini:4: [param.X] default: 'abc' is not an integer (type int)" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 1\ntype = int\nmin = 5\n",
		  "w.ini:4: [param.X] default: 1 is out of range (at least 5) (type int of at least 5)" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 9\ntype = int\nmin = 1\nmax = 8\n",
		  "w.ini:4: [param.X] default: 9 is out of range [1, 8] (type int from 1 to 8)" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 512K\ntype = size\nmin = 1M\n",
		  "w.ini:4: [param.X] default: 512K is out of range (at least 1 MiB) (type size of at least 1M)" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = c\ntype = enum\nchoices = a, b\n",
		  "w.ini:4: [param.X] default: 'c' is not one of: a, b (type enum: one of a, b)" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = a\ntype = enum\n",
		  "w.ini:5: [param.X] type = enum needs 'choices'" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = a\ntype = int\nchoices = a\n",
		  "w.ini:6: [param.X] choices are for type = enum, not int" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = a\nmax = 3\n",
		  "w.ini:5: [param.X] min and max are for type = int, number or size, not string" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 1\ntype = int\nmin = x\n",
		  "w.ini:6: [param.X] min: 'x' is not an integer" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 1\ntype = int\nmin = 10\nmax = 5\n",
		  "w.ini:7: [param.X] min 10 is above max 5" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = a\ntype = enum\nchoices = a, b, a\n",
		  "w.ini:6: [param.X] choices: choice 'a' is listed twice" },
		{ "[workload]\nrun = true\n[param.X]\ndefault = 1\ntpye = int\n",
		  "w.ini:5: unknown key 'tpye' in [param.X]" },
	};
	char *p = xasprintf("%s/w.ini", tmpdir), *e;
	char errbuf[4096];
	struct workload w;
	size_t i;

	(void)state;
	e = xasprintf("%s/stderr", tmpdir);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *want = xasprintf("%s/%s", tmpdir, bad[i].why);
		int fd, saved, ret;
		ssize_t n;

		put("w.ini", bad[i].text);
		fflush(stderr);
		saved = dup(2);
		fd = open(e, O_RDWR | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0 && saved >= 0);
		dup2(fd, 2);
		ret = workload_load(p, &w);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		n = pread(fd, errbuf, sizeof(errbuf) - 1, 0);
		errbuf[n > 0 ? n : 0] = '\0';
		close(fd);
		if (ret != -EINVAL)
			fail_msg("workload %zu was accepted: %s", i, bad[i].text);
		if (!strstr(errbuf, want))
			fail_msg("workload %zu: got '%s', wanted '%s'", i,
				 errbuf, want);
		assert_false(ctrl_in(errbuf));
		free(want);
	}
	free(e);
	free(p);
}

/* scratch: tmpfs unless said, disk when said. */
static void test_workload_scratch(void **state)
{
	char *p = xasprintf("%s/w.ini", tmpdir);
	struct workload w;

	(void)state;
	put("w.ini", "[workload]\nrun = true\n");
	assert_int_equal(workload_load(p, &w), 0);
	assert_string_equal(w.scratch, WL_SCRATCH_TMPFS);
	workload_release(&w);
	put("w.ini", "[workload]\nrun = true\nscratch = disk\n");
	assert_int_equal(workload_load(p, &w), 0);
	assert_string_equal(w.scratch, WL_SCRATCH_DISK);
	workload_release(&w);
	free(p);
}

/* [fleet] hosts make the executor fleet unless it is set. */
static void test_fleet_keys(void **state)
{
	struct run_config c;

	(void)state;
	assert_int_equal(load("[fleet]\nhosts = root@a, b\n"
			      "[workload]\nname = walk\n",
			      &c),
			 0);
	assert_string_equal(c.executor, "fleet");
	assert_int_equal(c.fleet_hosts.n, 2);
	assert_string_equal(c.fleet_hosts.v[0], "root@a");
	assert_string_equal(c.fleet_mode, "each");
	assert_string_equal(c.fleet_vmtax, "vmtax");
	assert_true(c.fleet_connect_timeout_s == 10);
	assert_null(c.fleet_ssh_config);
	assert_false(c.fleet_allow_unlike);
	run_config_release(&c);
	assert_int_equal(load("[fleet]\nhosts = a, b\nmode = split\n"
			      "allow_unlike = on\n[workload]\nname = walk\n",
			      &c),
			 0);
	assert_true(c.fleet_allow_unlike);
	run_config_release(&c);
	/* a fleet host's own run: told executor = local, hosts unused */
	assert_int_equal(load("[run]\nexecutor = local\n[fleet]\nhosts = a\n"
			      "[workload]\nname = walk\n",
			      &c),
			 0);
	assert_string_equal(c.executor, "local");
	run_config_release(&c);
	assert_int_equal(load("[workload]\nname = walk\n", &c), 0);
	assert_string_equal(c.executor, "local");
	assert_int_equal(c.fleet_hosts.n, 0);
	run_config_release(&c);
}

static void test_big_file(void **state)
{
	char *p = xasprintf("%s/big.ini", tmpdir);
	FILE *f = fopen(p, "w");
	struct run_config c;
	int i;

	(void)state;
	assert_non_null(f);
	for (i = 0; i < 200000; i++)
		fputs("; padding padding padding padding padding\n", f);
	fclose(f);
	assert_int_equal(run_config_load(p, NULL, 0, &c), -EINVAL);
	run_config_release(&c);
	free(p);
}

static void test_helpers(void **state)
{
	struct ini_list l;
	char why[256];
	uint64_t sz;

	(void)state;
	assert_int_equal(ini_parse_size("2G", &sz), 0);
	assert_true(sz == 2ULL << 30);
	assert_int_equal(ini_parse_size("512MiB", &sz), 0);
	assert_true(sz == 512ULL << 20);
	assert_int_equal(ini_parse_size("1.5k", &sz), 0);
	assert_true(sz == 1536);
	assert_int_equal(ini_parse_size("-1G", &sz), -EINVAL);
	assert_int_equal(ini_parse_size("3X", &sz), -EINVAL);
	assert_int_equal(ini_edit_distance("repat", "repeat"), 1);
	assert_int_equal(ini_edit_distance("abc", "abc"), 0);
	assert_true(ini_utf8_valid("h\xc3\xa9", 3));
	assert_false(ini_utf8_valid("\xc3", 1));
	assert_false(ini_utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	assert_int_equal(ini_list_parse(" a , b,c ", &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[1], "b");
	ini_list_free(&l);
	assert_true(is_safe_name("vmtax-demo-1"));
	assert_false(is_safe_name(".."));
	assert_false(is_safe_name("a/b"));
	assert_false(is_safe_name("a\"b"));
}

static void test_domain_xml(void **state)
{
	struct vm_spec s = {
		.name = "vmtax-t-0-1", .type = "qemu", .vcpus = 24,
		.memory_bytes = 15ULL << 30, .kernel = "/boot/k<&'\">",
		.initrd = "/i", .cmdline = "console=ttyS0 x=\"<y>\"",
		.console_log = "/r/c.log", .backing = "hugetlb-1G",
	};
	char *x;

	(void)state;
	x = vm_domain_xml_new(&s);
	assert_non_null(x);
	assert_non_null(strstr(x, "<domain type=\"qemu\">"));
	assert_non_null(strstr(x, "<vcpu>24</vcpu>"));
	assert_non_null(strstr(x, "<memory unit=\"KiB\">15728640</memory>"));
	assert_non_null(strstr(x, "<kernel>/boot/k&lt;&amp;'&quot;&gt;</kernel>"));
	assert_non_null(strstr(x, "<page size=\"1048576\" unit=\"KiB\"/>"));
	assert_non_null(strstr(x, "name=\"org.vmtax.agent.0\""));
	assert_null(strstr(x, "<y>"));
	assert_null(strstr(x, "<disk"));
	free(x);
	s.disk = "/img/cell.qcow2";
	x = vm_domain_xml_new(&s);
	assert_non_null(x);
	assert_non_null(strstr(x, "<source file=\"/img/cell.qcow2\"/>"));
	assert_non_null(strstr(x, "<target dev=\"vda\" bus=\"virtio\"/>"));
	free(x);
	s.disk = NULL;
	s.name = "vmtax-'><evil/>";
	assert_null(vm_domain_xml_new(&s));
	s.name = "vmtax-ok";
	s.backing = "hugetlb-3M";
	assert_null(vm_domain_xml_new(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_config),
		cmocka_unit_test(test_sampling_keys),
		cmocka_unit_test(test_set_override),
		cmocka_unit_test(test_paging_axis),
		cmocka_unit_test(test_typed_axes),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_bad_workloads),
		cmocka_unit_test(test_workload_scratch),
		cmocka_unit_test(test_fleet_keys),
		cmocka_unit_test(test_big_file),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_domain_xml),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
