/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the run preflight (orchestrator/engine/run-preflight.h) against a
 * fake host: a copy of tests/fixtures/preflight/intel (an Intel server with
 * VT-x and EPT, as it shows itself in /proc and /sys; see its README), a
 * build tree whose debian image is built, the seed's config (24 vCPUs,
 * 15 GiB, accel = kvm, ept = on, off, bare-metal cells) with a hugetlb
 * backing and a [host] knob, and a fake package query and free disk space.
 * Everything passes there; each case then takes one thing away and asserts
 * that exactly its row says so, with its own message and remedy.  Nothing
 * on the real host is read but the fixture's copy.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-dir.h"

#include "matrix.h"
#include "run-config.h"
#include "run-engine.h"
#include "run-preflight.h"
#include "util.h"

#define FIXTURE "tests/fixtures/preflight/intel"

/* Test-only fake host state (globals are fine in a test). */
static char dir[] = "/tmp/vmtax-test-preflight.XXXXXX";
static char root[PATH_MAX];
static char fake_lacks[256];	 /* packages the fake dpkg says are missing */
static uint64_t fake_free;	 /* bytes free for the fake statvfs */

static const char config[] = "[run]\n"
			     "name = preflight\n"
			     "[guest]\n"
			     "image = debian\n"
			     "vcpus = 24\n"
			     "memory = 15G\n"
			     "accel = kvm\n"
			     "[host]\n"
			     "sysctl.vm.swappiness = 10\n"
			     "[matrix]\n"
			     "where = bare-metal, guest\n"
			     "ept = on, off\n"
			     "backing = thp, hugetlb-2M\n"
			     "[workload]\n"
			     "name = kbuild\n";

static int fake_missing(const char *packages, char *missing, size_t len)
{
	const char *p;
	size_t n, used = 0;

	missing[0] = '\0';
	for (p = package_next(packages, &n); p; p = package_next(p + n, &n)) {
		char word[128];

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (strstr(fake_lacks, word))
			used += (size_t)snprintf(missing + used, len - used,
						 "%s%s", used ? " " : "", word);
	}
	return 0;
}

static int fake_disk_free(const char *path, uint64_t *bytes)
{
	(void)path;
	*bytes = fake_free;
	return 0;
}

static void sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	assert_true(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	ret = system(cmd);
	if (ret)
		fail_msg("'%s' failed", cmd);
	free(cmd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/vmtax-test-preflight.XXXXXX");
	if (config_dir_make(dir, "kbuild",
			    "[workload]\nrun = true\n"
			    "packages = build-essential bison flex\n") < 0)
		return -1;
	config_dir_put(dir, "run.ini", config);
	snprintf(root, sizeof(root), "%s/root", dir);
	sh("cp -a " FIXTURE " '%s' && mkdir -p '%s/lib/modules'", root, root);
	sh("mkdir -p '%s/build/bin' '%s/build/images' && cd '%s/build/images' "
	   "&& touch debian.qcow2 debian.vmlinuz debian.initrd",
	   dir, dir, dir);
	fake_lacks[0] = '\0';
	fake_free = 100ULL << 30;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(dir);
}

/* The preflight of the config (with SETS) on the fake host into P. */
static void check(struct preflight *p, const char *const *sets, size_t nsets)
{
	struct preflight_host h = {
	    .root = root,
	    .missing_packages = fake_missing,
	    .disk_free = fake_disk_free,
	};
	char *path = xasprintf("%s/run.ini", dir);
	struct run r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(run_config_load(path, sets, nsets, &r.cfg), 0);
	assert_int_equal(matrix_expand(&r.cfg, &r.matrix), 0);
	r.cells = r.matrix.cells;
	r.ncells = (int)r.matrix.ncells;
	snprintf(r.bindir, sizeof(r.bindir), "%s/build/bin", dir);
	preflight_check(&r, &h, p);
	matrix_release(&r.matrix);
	run_config_release(&r.cfg);
	free(path);
}

static void print_list(const struct preflight *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		printf("# %s (%s): %s: %s\n", p->items[i].name,
		       p->items[i].verdict == PREFLIGHT_MISSING ? "missing"
								 : "skips",
		       p->items[i].what, p->items[i].fix);
}

static void test_all_there(void **state)
{
	struct preflight p;

	(void)state;
	check(&p, NULL, 0);
	print_list(&p);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nmissing, 0);
	/* read, never written: the tree is as recorded */
	sh("diff -r --exclude=lib " FIXTURE " '%s'", root);
}

/* One thing taken away: what the shell does to the fake host, the row
 * that must say so (and no other), how, and its remedy. */
struct gone {
	const char *what;
	const char *cmd;   /* run in ROOT's parent, with $R the root */
	const char *lacks; /* fake_lacks */
	uint64_t free;	   /* fake_free, 0: plenty */
	const char *row;
	enum preflight_verdict verdict;
	const char *says;
	const char *fix;
};

static const struct gone gones[] = {
    {"no vmx flag", "sed -i 's/ vmx / /' $R/proc/cpuinfo", "", 0,
     "VT-x/AMD-V", PREFLIGHT_MISSING,
     "no vmx or svm flag in /proc/cpuinfo, and [guest] accel = kvm",
     "use the lab (docs/lab.md)"},
    {"a PVM host", "sed -i 's/ vmx / /' $R/proc/cpuinfo && "
		   "mkdir $R/sys/module/kvm_pvm",
     "", 0, "VT-x/AMD-V", PREFLIGHT_MISSING,
     "(a PVM /dev/kvm, kvm_pvm here, cannot run KVM guests)",
     "hardware virtualization"},
    {"no /dev/kvm", "rm $R/dev/kvm", "", 0, "/dev/kvm", PREFLIGHT_MISSING,
     "cannot open '/dev/kvm' read-write: No such file or directory",
     "modprobe kvm_intel"},
    {"kvm_intel built in", "rm $R/sys/module/kvm_intel/initstate", "", 0,
     "EPT/NPT paging", PREFLIGHT_SKIPS,
     "kvm_intel is built into the kernel: ept can only be set at boot",
     "(/sys/module/kvm_intel/parameters/ept): load it as a module"},
    {"kvm_intel not loaded", "rm -r $R/sys/module/kvm_intel", "", 0,
     "EPT/NPT paging", PREFLIGHT_SKIPS, "module 'kvm_intel' is not loaded",
     "modprobe kvm_intel"},
    {"no ept parameter", "rm $R/sys/module/kvm_intel/parameters/ept", "", 0,
     "EPT/NPT paging", PREFLIGHT_SKIPS,
     "cannot read '/sys/module/kvm_intel/parameters/ept'",
     "reloading kvm_intel with ept=0 or 1"},
    {"8 CPUs", "echo 0-7 >$R/sys/devices/system/cpu/online", "", 0, "CPUs",
     PREFLIGHT_MISSING, "asks for 24 vCPUs, and this host has 8 CPUs online",
     "give [guest] vcpus 8 or fewer"},
    {"8 GiB available", "sed -i 's/^MemAvailable:.*/MemAvailable: 8388608 kB/' "
			"$R/proc/meminfo",
     "", 0, "memory", PREFLIGHT_MISSING,
     "a 15.0 GiB guest, and this host has 187.4 GiB of memory (MemTotal), "
     "8.0 GiB available (MemAvailable)",
     "free memory"},
    {"8 GiB in all", "sed -i -e 's/^MemAvailable:.*/MemAvailable: 7340032 kB/' "
		     "-e 's/^MemTotal:.*/MemTotal: 8388608 kB/' $R/proc/meminfo",
     "", 0, "memory", PREFLIGHT_MISSING,
     "this host has 8.0 GiB of memory (MemTotal), 7.0 GiB available",
     "run on a host with more memory"},
    {"no hugetlbfs mount", "sed -i '/hugetlbfs/d' $R/proc/mounts", "", 0,
     "hugepages", PREFLIGHT_SKIPS,
     "skipped: no hugetlbfs mount with 2M pages", "mount hugetlbfs"},
    {"no 2M pool", "rm -r $R/sys/kernel/mm/hugepages/hugepages-2048kB", "", 0,
     "hugepages", PREFLIGHT_SKIPS,
     "no '/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages'",
     "drop that [matrix] backing"},
    {"no swappiness", "rm $R/proc/sys/vm/swappiness", "", 0, "host knobs",
     PREFLIGHT_SKIPS, "cells ('bare-metal/", "drop the knob from [host]"},
    {"no debian image", "rm build/images/debian.qcow2", "", 0,
     "guest image", PREFLIGHT_MISSING,
     "image = debian, but there is no built image ('",
     "run 'vmtax image build --kind debian' first"},
    {"the workload's packages", "true", "bison flex", 0, "workload packages",
     PREFLIGHT_MISSING,
     "bare-metal cells run workload 'kbuild' on this host, which lacks "
     "packages it needs: bison flex",
     "apt-get install bison flex), or run guest cells only"},
    {"512 MiB free", "true", "", 512ULL << 20, "disk space",
     PREFLIGHT_MISSING,
     "has 0.5 GiB free, and this run needs 1.0 GiB there (images to "
     "build: 0.0 GiB; 2 guest overlays of up to 0.5 GiB)",
     "free space there"},
};

static void test_one_gone(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(gones); i++) {
		const struct gone *g = &gones[i];
		const struct preflight_item *it;
		struct preflight p;

		teardown(NULL);
		assert_int_equal(setup(NULL), 0);
		sh("cd '%s' && R=root && %s", dir, g->cmd);
		snprintf(fake_lacks, sizeof(fake_lacks), "%s", g->lacks);
		if (g->free)
			fake_free = g->free;
		check(&p, NULL, 0);
		printf("# %s:\n", g->what);
		print_list(&p);
		it = preflight_find(&p, g->row);
		assert_non_null(it);
		assert_int_equal(p.n, 1);
		assert_int_equal(it->verdict, g->verdict);
		assert_non_null(strstr(it->what, g->says));
		assert_non_null(strstr(it->fix, g->fix));
		assert_int_equal(p.nmissing, g->verdict == PREFLIGHT_MISSING);
	}
}

/* An image to build: what its build runs, and /lib/modules. */
static void test_image_build(void **state)
{
	const struct preflight_item *it;
	struct preflight p;

	(void)state;
	sh("rm '%s/build/images/debian.qcow2' && rmdir '%s/lib/modules'", dir,
	   root);
	snprintf(fake_lacks, sizeof(fake_lacks), "debootstrap supermin");
	check(&p, NULL, 0);
	print_list(&p);
	assert_int_equal(p.nmissing, 2);
	assert_non_null(preflight_find(&p, "guest image"));
	it = preflight_find(&p, "image build");
	assert_non_null(it);
	assert_non_null(strstr(it->what, "building the debian image runs "
					 "debootstrap supermin, which this "
					 "host lacks, and needs a "
					 "/lib/modules"));
	assert_string_equal(it->fix, "apt-get install debootstrap supermin; "
				     "mkdir /lib/modules ('make deps' does "
				     "both)");
}

/* Guest cells only: the workload's packages are the image's business. */
static void test_guest_only(void **state)
{
	static const char *const sets[] = {"matrix.where=guest",
					   "run.baseline="};
	struct preflight p;

	(void)state;
	snprintf(fake_lacks, sizeof(fake_lacks), "bison flex");
	check(&p, sets, ARRAY_SIZE(sets));
	print_list(&p);
	assert_int_equal(p.n, 0);
}

/*
 * scratch = disk: the debian image has a disk; the tiny image has none,
 * and its cells are refused before anything runs.
 */
static void test_scratch_disk(void **state)
{
	static const char *const tiny[] = {"guest.image=tiny"};
	const struct preflight_item *it;
	struct preflight p;

	(void)state;
	config_dir_put(dir, "workloads/kbuild.ini",
		       "[workload]\nrun = true\nscratch = disk\n");
	check(&p, NULL, 0);
	print_list(&p);
	assert_null(preflight_find(&p, "scratch directory"));
	check(&p, tiny, ARRAY_SIZE(tiny));
	print_list(&p);
	it = preflight_find(&p, "scratch directory");
	assert_non_null(it);
	assert_int_equal(it->verdict, PREFLIGHT_MISSING);
	assert_non_null(strstr(it->what,
			       "workload 'kbuild' declares scratch = disk, "
			       "and cell 'guest/"));
	assert_non_null(strstr(it->what, "boots the tiny image, which has no "
					 "disk"));
}

/* [guest] numa: a node the (fake) host has passes; one it lacks is refused. */
static void test_numa_node(void **state)
{
	static const char *const node1[] = {"guest.numa=1"};
	static const char *const bare[] = {"guest.numa=1",
					   "matrix.where=bare-metal"};
	const struct preflight_item *it;
	struct preflight p;

	(void)state;
	sh("mkdir -p '%s/sys/devices/system/node/node0' && "
	   "echo 0-23 >'%s/sys/devices/system/node/node0/cpulist'",
	   root, root);
	check(&p, NULL, 0);
	assert_null(preflight_find(&p, "NUMA node"));
	check(&p, node1, ARRAY_SIZE(node1));
	print_list(&p);
	it = preflight_find(&p, "NUMA node");
	assert_non_null(it);
	assert_int_equal(it->verdict, PREFLIGHT_MISSING);
	assert_string_equal(it->what, "[guest] numa = 1: this host has no such "
				      "NUMA node");
	/* no guest booted here: nothing to bind */
	check(&p, bare, ARRAY_SIZE(bare));
	assert_null(preflight_find(&p, "NUMA node"));
	sh("mkdir -p '%s/sys/devices/system/node/node1' && "
	   "echo 24-47 >'%s/sys/devices/system/node/node1/cpulist'",
	   root, root);
	check(&p, node1, ARRAY_SIZE(node1));
	assert_null(preflight_find(&p, "NUMA node"));
}

/*
 * [run] governor = performance: passes where every cpufreq policy offers
 * it and where there is no cpufreq (the run records that); a policy that
 * does not is refused; keep, or no cell on this host, checks nothing.
 */
static void test_governor(void **state)
{
	static const char *const perf[] = {"run.governor=performance"};
	static const char *const bare[] = {"run.governor=performance",
					   "matrix.where=bare-metal"};
	const struct preflight_item *it;
	struct preflight p;

	(void)state;
	check(&p, perf, ARRAY_SIZE(perf)); /* the fixture has no cpufreq */
	assert_null(preflight_find(&p, "cpufreq governor"));
	sh("cd '%s/sys/devices/system/cpu' && mkdir -p cpufreq/policy0 "
	   "cpufreq/policy12 && for p in 0 12; do echo powersave "
	   ">cpufreq/policy$p/scaling_governor; done && echo 'performance "
	   "powersave' >cpufreq/policy0/scaling_available_governors && echo "
	   "'powersave' >cpufreq/policy12/scaling_available_governors",
	   root);
	check(&p, NULL, 0);
	assert_null(preflight_find(&p, "cpufreq governor"));
	check(&p, bare, ARRAY_SIZE(bare));
	print_list(&p);
	it = preflight_find(&p, "cpufreq governor");
	assert_non_null(it);
	assert_int_equal(it->verdict, PREFLIGHT_MISSING);
	assert_string_equal(it->what,
			    "[run] governor = performance: cpufreq policy12 "
			    "does not offer the governor 'performance' (its "
			    "scaling_available_governors: powersave)");
	assert_string_equal(it->fix, "[run] governor = keep, or run where "
				     "every cpufreq policy offers it");
	sh("echo 'performance powersave' "
	   ">'%s/sys/devices/system/cpu/cpufreq/policy12/"
	   "scaling_available_governors'",
	   root);
	check(&p, perf, ARRAY_SIZE(perf));
	assert_null(preflight_find(&p, "cpufreq governor"));
}

/* accel = auto without KVM: no refusal, the paging cells are skipped. */
static void test_auto_without_kvm(void **state)
{
	static const char *const sets[] = {"guest.accel=auto"};
	const struct preflight_item *it;
	struct preflight p;

	(void)state;
	sh("sed -i 's/ vmx / /' '%s/proc/cpuinfo'", root);
	check(&p, sets, ARRAY_SIZE(sets));
	print_list(&p);
	assert_int_equal(p.nmissing, 0);
	it = preflight_find(&p, "EPT/NPT paging");
	assert_non_null(it);
	assert_int_equal(it->verdict, PREFLIGHT_SKIPS);
	assert_int_equal(it->ncells, 16);
	assert_non_null(strstr(it->what, "paging=hw needs KVM; this host runs "
					 "guests under TCG (no vmx or svm "
					 "flag in /proc/cpuinfo)"));
}

/* Everything gone at once: every row is named in one list, as printed. */
static void test_all_at_once(void **state)
{
	static const char *const rows[] = {
	    "VT-x/AMD-V", "CPUs", "memory", "hugepages", "host knobs",
	    "guest image", "workload packages", "disk space"};
	struct preflight p;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	sh("cd '%s' && sed -i 's/ vmx / /' root/proc/cpuinfo && "
	   "echo 0-1 >root/sys/devices/system/cpu/online && "
	   "sed -i 's/^MemAvailable:.*/MemAvailable: 8388608 kB/' "
	   "root/proc/meminfo && sed -i '/hugetlbfs/d' root/proc/mounts && "
	   "rm root/proc/sys/vm/swappiness build/images/debian.qcow2",
	   dir);
	snprintf(fake_lacks, sizeof(fake_lacks), "bison");
	fake_free = 1ULL << 30;
	check(&p, NULL, 0);
	print_list(&p);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		assert_non_null(preflight_find(&p, rows[i]));
	assert_int_equal(p.n, ARRAY_SIZE(rows));
	assert_int_equal(p.nmissing, 6);
	assert_int_equal(p.nskips, 2);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	preflight_print(&p, "configs/kbuild-ept-thp.ini", f);
	fclose(f);
	printf("%s", text);
	assert_non_null(strstr(text, "vmtax: preflight: 6 requirements missing "
				     "for configs/kbuild-ept-thp.ini:\n"
				     "  - VT-x/AMD-V: no vmx or svm flag in "
				     "/proc/cpuinfo, and [guest] accel = kvm: "
				     "run on a host with hardware "
				     "virtualization"));
	assert_non_null(strstr(text, "\n  - CPUs: cell '"));
	assert_non_null(strstr(text, "vmtax: preflight: 2 requirements of some "
				     "cells missing for "
				     "configs/kbuild-ept-thp.ini (the run "
				     "skips them):\n  - hugepages: "));
	free(text);
}

/* A hugetlb-backed guest larger than the memory its pool grows from:
 * refused as any guest, its pages said. */
static void test_hugetlb_too_big(void **state)
{
	static const char *const sets[] = {"matrix.backing=hugetlb-2M"};
	const struct preflight_item *it;
	struct preflight p;

	(void)state;
	sh("sed -i 's/^MemAvailable:.*/MemAvailable: 8388608 kB/' "
	   "'%s/proc/meminfo'",
	   root);
	check(&p, sets, ARRAY_SIZE(sets));
	print_list(&p);
	assert_int_equal(p.nmissing, 1);
	it = preflight_find(&p, "memory");
	assert_non_null(it);
	assert_int_equal(it->verdict, PREFLIGHT_MISSING);
	assert_non_null(strstr(it->what,
			       "asks for a 15.0 GiB guest backed by 2M "
			       "hugepages (the run adds 7680 of them to the "
			       "pool, from available memory), and this host "
			       "has 187.4 GiB of memory (MemTotal), 8.0 GiB "
			       "available (MemAvailable)"));
	assert_non_null(strstr(it->fix, "free memory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_all_there, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_image_build, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_guest_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scratch_disk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_numa_node, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_auto_without_kvm, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_all_at_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hugetlb_too_big, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_governor, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
