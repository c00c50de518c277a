/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for host/kvm-stats: against trees recorded in the nested lab
 * host (tests/fixtures/kvm/<case>/, see tests/fixtures/kvm/README), and
 * against small fake trees in a temp dir for what is missing or garbage.
 *
 * The recorded cases: npt1-s0/npt1-s1 and npt0-s0/npt0-s1 are one
 * second-level guest each (kvm_amd npt=1, then npt=0), dumped when its
 * init said hello (s0) and after it wrote 64 MiB to a tmpfs (s1).
 *
 * Tests that write (the trigger) copy a recorded tree to a temp dir first.
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
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvm-stats.h"
#include "util.h"

#define FIXTURES "tests/fixtures/kvm"

static char tmpdir[] = "/tmp/vmtax-test-kvm.XXXXXX";

/* The QEMU pid of a recorded case: its one debugfs kvm/PID-FD dir. */
static pid_t case_pid(const char *c)
{
	char *p = xasprintf(FIXTURES "/%s/sys/kernel/debug/kvm", c);
	DIR *d = opendir(p);
	struct dirent *de;
	pid_t pid = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strchr(de->d_name, '-') && de->d_name[0] != '.')
			pid = (pid_t)atoi(de->d_name);
	closedir(d);
	free(p);
	assert_true(pid > 0);
	return pid;
}

static char *case_root(const char *c)
{
	return xasprintf(FIXTURES "/%s", c);
}

/* The number in a recorded counter file, read independently. */
static uint64_t case_counter(const char *c, const char *name)
{
	char *root = case_root(c), **dirs = NULL, *p, *text = NULL;
	size_t n = 0;
	uint64_t v;

	assert_int_equal(kvm_stats_dirs(root, case_pid(c), &dirs, &n), 0);
	assert_int_equal(n, 1);
	p = xasprintf("%s/%s", dirs[0], name);
	assert_int_equal(read_file(p, 64, &text, NULL), 0);
	v = strtoull(text, NULL, 10);
	free(text);
	free(p);
	free(dirs[0]);
	free(dirs);
	free(root);
	return v;
}

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);
	char *slash = strrchr(p, '/');
	FILE *f;

	*slash = '\0';
	assert_int_equal(mkdir_parents(p, 0755), 0);
	*slash = '/';
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static char *slurp(const char *path)
{
	char *text = NULL;

	assert_int_equal(read_file(path, 1 << 20, &text, NULL), 0);
	return text;
}

/* Run FN with stderr going to a file; returns what it printed (owned). */
static int saved_err = -1;
static char errpath[128];

static void stderr_capture(void)
{
	int fd;

	snprintf(errpath, sizeof(errpath), "%s/stderr", tmpdir);
	fflush(stderr);
	saved_err = dup(2);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	dup2(fd, 2);
	close(fd);
}

static char *stderr_release(void)
{
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	saved_err = -1;
	return slurp(errpath);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);

	(void)state;
	free(cmd);
	return r == 0 ? 0 : -1;
}

/* ---- exit reason names ---------------------------------------------- */

struct reason {
	enum virt_vendor v;
	uint32_t code;
	const char *name; /* NULL: unknown */
};

static void test_reason_names(void **state)
{
	static const struct reason rows[] = {
	    {VIRT_VENDOR_AMD, 0x400, "npf"},
	    {VIRT_VENDOR_AMD, 0x7b, "io"},
	    {VIRT_VENDOR_AMD, 0x79, "invlpg"},
	    {VIRT_VENDOR_AMD, 0x13, "write_cr3"},
	    {VIRT_VENDOR_AMD, 0x4e, "PF excp"},
	    {VIRT_VENDOR_AMD, 0x60, "interrupt"},
	    {VIRT_VENDOR_AMD, 0x7c, "msr"},
	    {VIRT_VENDOR_AMD, 0x78, "hlt"},
	    {VIRT_VENDOR_AMD, 0xffffffff, "invalid_guest_state"},
	    {VIRT_VENDOR_AMD, 0x3ff, NULL},
	    /* Hygon's kvm_amd: SVM's reasons */
	    {VIRT_VENDOR_HYGON, 0x400, "npf"},
	    {VIRT_VENDOR_HYGON, 0x4e, "PF excp"},
	    {VIRT_VENDOR_HYGON, 48, "write_dr0"}, /* not VMX's EPT_VIOLATION */
	    {VIRT_VENDOR_INTEL, 48, "EPT_VIOLATION"},
	    {VIRT_VENDOR_INTEL, 49, "EPT_MISCONFIG"},
	    {VIRT_VENDOR_INTEL, 30, "IO_INSTRUCTION"},
	    {VIRT_VENDOR_INTEL, 1, "EXTERNAL_INTERRUPT"},
	    {VIRT_VENDOR_INTEL, 12, "HLT"},
	    {VIRT_VENDOR_INTEL, 0x80000000u | 33, "INVALID_STATE"},
	    {VIRT_VENDOR_INTEL, 0x400, NULL},
	    {VIRT_VENDOR_INTEL, 6, NULL},
	    {VIRT_VENDOR_NONE, 48, NULL},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *n = kvm_exit_reason_name(rows[i].v, rows[i].code);

		if (!rows[i].name) {
			if (n)
				fail_msg("row %zu: code %u named '%s'", i,
					 rows[i].code, n);
			continue;
		}
		if (!n || strcmp(n, rows[i].name))
			fail_msg("row %zu: code %u: '%s', want '%s'", i,
				 rows[i].code, n ? n : "(null)", rows[i].name);
	}
	assert_string_equal(kvm_vendor_name(VIRT_VENDOR_AMD), "svm");
	assert_string_equal(kvm_vendor_name(VIRT_VENDOR_HYGON), "svm");
	assert_string_equal(kvm_vendor_name(VIRT_VENDOR_INTEL), "vmx");
	assert_string_equal(kvm_vendor_name(VIRT_VENDOR_NONE), "none");
}

static void test_vendor_detect(void **state)
{
	char *root = case_root("npt1-s0");

	(void)state;
	assert_int_equal(kvm_vendor_detect(root), VIRT_VENDOR_AMD);
	assert_int_equal(kvm_vendor_detect(tmpdir), VIRT_VENDOR_NONE);
	put("intel/sys/module/kvm_intel/parameters/ept", "Y\n");
	free(root);
	root = xasprintf("%s/intel", tmpdir);
	assert_int_equal(kvm_vendor_detect(root), VIRT_VENDOR_INTEL);
	free(root);
}

static void test_counter_kinds(void **state)
{
	(void)state;
	assert_false(kvm_counter_cumulative("pages_2m"));
	assert_false(kvm_counter_cumulative("max_mmu_rmap_size"));
	assert_false(kvm_counter_cumulative("guest_mode"));
	assert_true(kvm_counter_cumulative("exits"));
	assert_true(kvm_counter_cumulative("pf_fixed"));
	assert_true(kvm_counter_cumulative("mmu_shadow_zapped"));
}

/* ---- debugfs: missing and garbage ------------------------------------ */

static void test_snap_unavailable(void **state)
{
	struct kvm_snap s;
	char *root;

	(void)state;
	kvm_snap_init(&s);
	/* no debugfs at all (a host without kvm, debugfs not mounted) */
	root = xasprintf("%s/none", tmpdir);
	assert_int_equal(mkdir_parents(root, 0755), 0);
	assert_int_equal(kvm_snap_read(root, 4242, &s), 0);
	assert_false(s.available);
	assert_non_null(strstr(s.why, "debugfs not mounted"));
	free(root);

	/* debugfs, but no VM of this pid: a TCG guest */
	put("tcg/sys/kernel/debug/kvm/999-12/exits", "5\n");
	put("tcg/sys/kernel/debug/kvm/42420-12/exits", "5\n");
	root = xasprintf("%s/tcg", tmpdir);
	assert_int_equal(kvm_snap_read(root, 4242, &s), 0);
	assert_false(s.available);
	assert_non_null(strstr(s.why, "no KVM VM of pid 4242"));
	free(root);

	/* the same as a sample: null and the why, never 0 */
	{
		struct kvm_snap ok;
		json_t *obs = json_object();

		kvm_snap_init(&ok);
		root = xasprintf("%s/tcg", tmpdir);
		assert_int_equal(kvm_snap_read(root, 999, &ok), 0);
		assert_true(ok.available);
		assert_int_equal(kvm_sample_json(&ok, &s, NULL, NULL, obs), 0);
		assert_true(json_is_null(json_object_get(obs, "kvm")));
		assert_non_null(
		    strstr(json_string_value(json_object_get(obs, "kvm_why")),
			   "no KVM VM of pid 4242"));
		json_decref(obs);
		kvm_snap_release(&ok);
		free(root);
	}
	kvm_snap_release(&s);
}

struct bad_counter {
	const char *text;
};

static void test_snap_garbage(void **state)
{
	static const char *const rows[] = {
	    "\n",     "abc\n", "-1\n", "12 13\n", "99999999999999999999999\n",
	    "0x10\n", " 5\n",
	};
	struct kvm_snap s;

	(void)state;
	kvm_snap_init(&s);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *rel =
		    xasprintf("bad%zu/sys/kernel/debug/kvm/77-9/exits", i);
		char *root = xasprintf("%s/bad%zu", tmpdir, i);
		char *msg;
		int r;

		put(rel, rows[i]);
		rel[strlen(rel) - strlen("exits")] = '\0';
		free(rel);
		rel = xasprintf("bad%zu/sys/kernel/debug/kvm/77-9/pages_4k", i);
		put(rel, "10\n");
		stderr_capture();
		r = kvm_snap_read(root, 77, &s);
		msg = stderr_release();
		if (r != -EINVAL)
			fail_msg("row %zu ('%s'): %d, want -EINVAL", i, rows[i],
				 r);
		assert_false(s.available);
		if (!strstr(msg, "/77-9/exits' is not a counter"))
			fail_msg("row %zu: message '%s'", i, msg);
		free(msg);
		free(root);
		free(rel);
	}
	kvm_snap_release(&s);
}

/* A counter that went back (the VM was replaced) is an error. */
static void test_snap_backwards(void **state)
{
	struct kvm_snap a, b, d;
	char *root = xasprintf("%s/back", tmpdir), *msg;

	(void)state;
	kvm_snap_init(&a);
	kvm_snap_init(&b);
	kvm_snap_init(&d);
	put("back/sys/kernel/debug/kvm/5-1/exits", "100\n");
	put("back/sys/kernel/debug/kvm/5-1/pages_4k", "100\n");
	assert_int_equal(kvm_snap_read(root, 5, &a), 0);
	put("back/sys/kernel/debug/kvm/5-1/exits", "90\n");
	put("back/sys/kernel/debug/kvm/5-1/pages_4k", "50\n");
	assert_int_equal(kvm_snap_read(root, 5, &b), 0);
	stderr_capture();
	assert_int_equal(kvm_snap_delta(&a, &b, &d), -ERANGE);
	msg = stderr_release();
	assert_non_null(strstr(msg, "'exits' went back from 100 to 90"));
	assert_false(d.available);
	free(msg);
	/* a level going down is fine: pages are freed */
	put("back/sys/kernel/debug/kvm/5-1/exits", "110\n");
	assert_int_equal(kvm_snap_read(root, 5, &b), 0);
	assert_int_equal(kvm_snap_delta(&a, &b, &d), 0);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.c[0].name, "exits");
	assert_int_equal(d.c[0].value, 10);
	kvm_snap_release(&a);
	kvm_snap_release(&b);
	kvm_snap_release(&d);
	free(root);
}

/* Two VMs of one process are summed; another process's VM is not. */
static void test_snap_two_vms(void **state)
{
	struct kvm_snap s;
	char *root = xasprintf("%s/two", tmpdir);
	uint64_t v;

	(void)state;
	kvm_snap_init(&s);
	put("two/sys/kernel/debug/kvm/31-11/exits", "7\n");
	put("two/sys/kernel/debug/kvm/31-11/vcpu0/guest_mode", "1\n");
	put("two/sys/kernel/debug/kvm/31-14/exits", "5\n");
	put("two/sys/kernel/debug/kvm/311-11/exits", "1000\n");
	put("two/sys/kernel/debug/kvm/31-x/exits", "1000\n");
	/* tables are skipped: empty (npt=1) or several lines (npt=0) */
	put("two/sys/kernel/debug/kvm/31-11/mmu_rmaps_stat", "");
	put("two/sys/kernel/debug/kvm/31-14/mmu_rmaps_stat",
	    "Rmap_Count:\t0\t1\t\nLevel=4K:\t3\t4\t\n");
	assert_int_equal(kvm_snap_read(root, 31, &s), 0);
	assert_true(s.available);
	assert_int_equal(s.ndirs, 2);
	assert_int_equal(kvm_snap_get(&s, "exits", &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(kvm_snap_get(&s, "guest_mode", &v), -ENOENT);
	assert_int_equal(kvm_snap_get(&s, "mmu_rmaps_stat", &v), -ENOENT);
	assert_int_equal(s.n, 1);
	kvm_snap_release(&s);
	free(root);
}

/* ---- the hist parser -------------------------------------------------- */

#define HDR(f)                                                                 \
	"# event histogram\n#\n# trigger info: "                               \
	"hist:keys=exit_reason:vals=hitcount:sort=hitcount:size=2048" f        \
	" [active]\n#\n\n"
#define TOTALS(h, e)                                                           \
	"\nTotals:\n    Hits: " #h "\n    Entries: " #e "\n    Dropped: 0\n"

static void test_hist_crafted(void **state)
{
	static const char text[] =
	    "# event histogram\n#\n# trigger info: "
	    "hist:keys=common_pid,exit_reason:vals=hitcount:sort=hitcount:"
	    "size=2048 [active]\n#\n\n"
	    "{ common_pid:        100, exit_reason:        124 } hitcount:"
	    "        500\n" TOTALS(500, 1) "\n" HDR(
		" if "
		"common_pid==9||common_pid="
		"=10") "{ exit_reason:     "
		       "   124 } hitcount: "
		       "         1\n"
		       "{ exit_reason:     "
		       "  1024 } hitcount: "
		       "        "
		       "30\n" TOTALS(31, 2) "\n" HDR(" if "
						     "common_pid=="
						     "100") "{ "
							    "exit_"
							    "reason: "
							    "       "
							    "123 } "
							    "hitcount"
							    ":       "
							    "   "
							    "7"
							    "\n" TOTALS(7, 1);
	struct kvm_exits x;

	(void)state;
	kvm_exits_init(&x);
	assert_int_equal(kvm_exits_parse(text,
					 "common_pid == 9 || "
					 "common_pid == 10",
					 &x),
			 0);
	assert_true(x.available);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.e[0].code, 124);
	assert_int_equal(x.e[0].count, 1);
	assert_int_equal(x.e[1].code, 1024);
	assert_int_equal(x.e[1].count, 30);
	assert_int_equal(x.total, 31);
	assert_int_equal(kvm_exits_parse(text, "common_pid==100", &x), 0);
	assert_int_equal(x.total, 7);
	assert_int_equal(x.e[0].code, 123);
	/* NULL: the first exit_reason-only table */
	assert_int_equal(kvm_exits_parse(text, NULL, &x), 0);
	assert_int_equal(x.total, 31);
	/* a filter nobody installed: unavailable, not an error */
	assert_int_equal(kvm_exits_parse(text, "common_pid==11", &x), 0);
	assert_false(x.available);
	assert_non_null(strstr(x.why, "common_pid==11"));
	/* Hits ahead of the entries: exits that came while printing */
	assert_int_equal(kvm_exits_parse(HDR("") "{ exit_reason: 1 } "
						 "hitcount: 2\n" TOTALS(5, 1),
					 NULL, &x),
			 0);
	assert_true(x.available);
	assert_int_equal(x.total, 2);
	assert_int_equal(kvm_exits_parse("", NULL, &x), 0);
	assert_false(x.available);
	kvm_exits_release(&x);
}

struct bad_hist {
	const char *text;
	const char *why;
};

static void test_hist_garbage(void **state)
{
	static const struct bad_hist rows[] = {
	    {HDR("") "{ exit_reason: abc } hitcount: 1\n" TOTALS(1, 1),
	     "line 6: not an exit_reason entry"},
	    {HDR("") "{ exit_reason: 1 } hitcount:\n" TOTALS(1, 1),
	     "line 6: not an exit_reason entry"},
	    {HDR("") "{ exit_reason: 1 hitcount: 1\n" TOTALS(1, 1),
	     "line 6: not an exit_reason entry"},
	    {HDR("") "{ exit_reason: 99999999999 } hitcount: 1\n" TOTALS(1, 1),
	     "line 6: not an exit_reason entry"},
	    {HDR("") "{ exit_reason: 1 } hitcount: 1 x\n" TOTALS(1, 1),
	     "line 6: not an exit_reason entry"},
	    {HDR("") "{ exit_reason: 1 } hitcount: 1\n", "has no Totals"},
	    {HDR("") "{ exit_reason: 1 } hitcount: 2\n" TOTALS(1, 1),
	     "entries sum to more than the hits"},
	    {HDR("") "exit_reason 1 1\n" TOTALS(1, 1),
	     "line 6: unexpected line: 'exit_reason 1 1'"},
	    {HDR("") "{ exit_reason: 1 } hitcount: 1\n"
		     "\nTotals:\n    Hits: many\n",
	     "line 9: unexpected line: 'Hits: many'"},
	    {HDR("") "\nTotals:\n    Hits: 0\n{ exit_reason: 1 } hitcount: 1\n",
	     "line 9: not an exit_reason entry"},
	    {HDR("") "{ exit_reason: 1 } hitcount: 18446744073709551615\n"
		     "{ exit_reason: 2 } hitcount: 1\n" TOTALS(0, 2),
	     "total overflows"},
	};
	struct kvm_exits x;

	(void)state;
	kvm_exits_init(&x);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *msg;
		int r;

		stderr_capture();
		r = kvm_exits_parse(rows[i].text, NULL, &x);
		msg = stderr_release();
		if (r != -EINVAL)
			fail_msg("row %zu: %d, want -EINVAL", i, r);
		if (!strstr(msg, rows[i].why))
			fail_msg("row %zu: message '%s', want '%s'", i, msg,
				 rows[i].why);
		assert_false(x.available);
		assert_int_equal(x.n, 0);
		free(msg);
	}
	kvm_exits_release(&x);
}

/* ---- the trigger ------------------------------------------------------- */

static void test_hist_trigger_fake(void **state)
{
	struct kvm_exit_hist h;
	struct kvm_exits x;
	char *root = xasprintf("%s/trig", tmpdir), *t;

	(void)state;
	kvm_exits_init(&x);
	/* no tracefs: unavailable */
	put("trig/proc/50/task/50/comm", "qemu-system-x86\n");
	put("trig/proc/50/task/53/comm", "CPU 0/KVM\n");
	put("trig/proc/50/task/51/comm", "qemu-system-x86\n");
	assert_int_equal(kvm_exit_hist_start(root, 50, &h), 0);
	assert_false(h.active);
	assert_non_null(strstr(h.why, "no kvm:kvm_exit event"));
	assert_int_equal(kvm_exit_hist_read(&h, &x), 0);
	assert_false(x.available);
	assert_non_null(strstr(x.why, "no kvm:kvm_exit event"));
	assert_int_equal(kvm_exit_hist_stop(&h), 0);

	/* tracefs under debug/tracing: installed with every task id */
	put("trig/sys/kernel/debug/tracing/events/kvm/kvm_exit/trigger",
	    "# Available triggers:\n");
	put("trig/sys/module/kvm_intel/parameters/ept", "Y\n");
	assert_int_equal(kvm_exit_hist_start(root, 50, &h), 0);
	assert_true(h.active);
	assert_int_equal(h.vendor, VIRT_VENDOR_INTEL);
	assert_string_equal(h.filter, "common_pid==50||common_pid==51||"
				      "common_pid==53");
	t = xasprintf("%s/sys/kernel/debug/tracing/events/kvm/kvm_exit/"
		      "trigger",
		      root);
	{
		char *text = slurp(t);

		/* appended, not truncated */
		assert_string_equal(
		    text, "# Available triggers:\n"
			  "hist:keys=exit_reason:vals=hitcount if "
			  "common_pid==50||common_pid==51||common_pid==53");
		free(text);
	}
	put("trig/sys/kernel/debug/tracing/events/kvm/kvm_exit/hist",
	    HDR(" if common_pid==50||common_pid==51||common_pid==53") "{ "
								      "exit_"
								      "reason: "
								      "        "
								      "48 } "
								      "hitcount"
								      ":       "
								      "   9\n"
								      "{ "
								      "exit_"
								      "reason: "
								      "        "
								      "30 } "
								      "hitcount"
								      ":       "
								      "   "
								      "3"
								      "\n" TOTALS(
									  12,
									  2));
	assert_int_equal(kvm_exit_hist_read(&h, &x), 0);
	assert_true(x.available);
	assert_int_equal(x.vendor, VIRT_VENDOR_INTEL);
	assert_int_equal(x.total, 12);
	assert_int_equal(kvm_exit_hist_stop(&h), 0);
	assert_false(h.active);
	{
		char *text = slurp(t);

		assert_non_null(strstr(text, "common_pid==53!hist:keys="
					     "exit_reason:vals=hitcount if "
					     "common_pid==50"));
		free(text);
	}
	/* stopping twice is harmless */
	assert_int_equal(kvm_exit_hist_stop(&h), 0);

	/* a process with too many tasks for one trigger write */
	for (int tid = 1000; tid < 1300; tid++) {
		char *rel = xasprintf("trig/proc/80/task/%d/comm", tid);

		put(rel, "qemu\n");
		free(rel);
	}
	assert_int_equal(kvm_exit_hist_start(root, 80, &h), 0);
	assert_false(h.active);
	assert_non_null(strstr(h.why, "more than a trigger write takes"));

	/* no such process: unavailable */
	assert_int_equal(kvm_exit_hist_start(root, 60, &h), 0);
	assert_false(h.active);
	assert_non_null(strstr(h.why, "cannot list the tasks of pid 60"));
	kvm_exits_release(&x);
	free(t);
	free(root);
}

/* ---- the sampler, on a fake tree ---------------------------------------- */

static void test_sampler_fake(void **state)
{
	static const char filter[] = " if common_pid==70||common_pid==72";
	struct kvm_sampler *k = NULL;
	json_t *obs = json_object(), *kvm, *by, *e;
	char *root = xasprintf("%s/samp", tmpdir);

	(void)state;
	put("samp/proc/70/task/70/comm", "qemu-system-x86\n");
	put("samp/proc/70/task/72/comm", "CPU 0/KVM\n");
	put("samp/sys/module/kvm_amd/parameters/npt", "1\n");
	put("samp/sys/kernel/tracing/events/kvm/kvm_exit/trigger", "");
	put("samp/sys/kernel/debug/kvm/70-11/exits", "1000\n");
	put("samp/sys/kernel/debug/kvm/70-11/pf_fixed", "10\n");
	put("samp/sys/kernel/debug/kvm/70-11/pages_4k", "400\n");
	put("samp/sys/kernel/debug/kvm/70-11/pages_2m", "3\n");
	put("samp/sys/kernel/debug/kvm/70-11/mmu_unsync", "0\n");
	put("samp/sys/kernel/tracing/events/kvm/kvm_exit/hist",
	    HDR(" if common_pid==70||common_pid==72") "{ exit_reason:        "
						      "123 } hitcount:        "
						      "100\n" TOTALS(100, 1));
	assert_int_equal(kvm_sampler_new(root, 70, &k), 0);
	assert_int_equal(kvm_sampler_begin(k), 0);
	put("samp/sys/kernel/debug/kvm/70-11/exits", "1600\n");
	put("samp/sys/kernel/debug/kvm/70-11/pf_fixed", "10\n");
	put("samp/sys/kernel/debug/kvm/70-11/pages_4k", "300\n");
	put("samp/sys/kernel/debug/kvm/70-11/pages_2m", "40\n");
	put("samp/sys/kernel/debug/kvm/70-11/mmu_unsync", "2\n");
	put("samp/sys/kernel/tracing/events/kvm/kvm_exit/hist",
	    HDR(" if common_pid==70||common_pid==72") "{ exit_reason:       "
						      "1024 } hitcount:        "
						      "450\n"
						      "{ exit_reason:        "
						      "123 } hitcount:        "
						      "250\n"
						      "{ exit_reason:         "
						      "96 } hitcount:          "
						      "0\n" TOTALS(700, 3));
	assert_int_equal(kvm_sampler_end(k, obs), 0);
	kvm = json_object_get(obs, "kvm");
	assert_true(json_is_object(kvm));
	assert_null(json_object_get(obs, "kvm_why"));
	assert_int_equal(json_integer_value(json_object_get(kvm, "pages_4k")),
			 300);
	assert_int_equal(json_integer_value(json_object_get(kvm, "pages_2m")),
			 40);
	/* the kernel has no pages_1g here: null, not 0 */
	assert_true(json_is_null(json_object_get(kvm, "pages_1g")));
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(kvm, "at_end"), "mmu_unsync")),
			 2);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(kvm, "delta"), "exits")),
			 600);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(kvm, "delta"), "pf_fixed")),
			 0);
	assert_null(json_object_get(json_object_get(kvm, "delta"), "pages_4k"));
	assert_string_equal(
	    json_string_value(json_object_get(kvm, "exits_vendor")), "svm");
	assert_int_equal(
	    json_integer_value(json_object_get(kvm, "exits_total")), 600);
	by = json_object_get(kvm, "exits_by_reason");
	assert_int_equal(json_array_size(by), 2);
	e = json_array_get(by, 0);
	assert_string_equal(json_string_value(json_object_get(e, "reason")),
			    "npf");
	assert_int_equal(json_integer_value(json_object_get(e, "code")), 1024);
	assert_int_equal(json_integer_value(json_object_get(e, "count")), 450);
	e = json_array_get(by, 1);
	assert_string_equal(json_string_value(json_object_get(e, "reason")),
			    "io");
	assert_int_equal(json_integer_value(json_object_get(e, "count")), 150);
	{
		char *t = xasprintf("%s/sys/kernel/tracing/events/kvm/"
				    "kvm_exit/trigger",
				    root);
		char *text;

		kvm_sampler_free(k);
		text = slurp(t);
		assert_non_null(strstr(text, "!hist:keys=exit_reason:vals="
					     "hitcount"));
		assert_non_null(strstr(text, filter));
		free(text);
		free(t);
	}

	/* the guest is gone by the next sample: null with the why */
	assert_int_equal(kvm_sampler_new(root, 70, &k), 0);
	assert_int_equal(kvm_sampler_begin(k), 0);
	put("samp/sys/kernel/debug/kvm/71-11/exits", "1\n");
	{
		char *cmd =
		    xasprintf("rm -r '%s/sys/kernel/debug/kvm/70-11'", root);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	assert_int_equal(kvm_sampler_end(k, obs), 0);
	assert_true(json_is_null(json_object_get(obs, "kvm")));
	assert_non_null(
	    strstr(json_string_value(json_object_get(obs, "kvm_why")),
		   "no KVM VM of pid 70"));
	/* end without begin is a caller's error */
	stderr_capture();
	assert_int_equal(kvm_sampler_end(k, obs), -EINVAL);
	free(stderr_release());
	kvm_sampler_free(k);
	kvm_sampler_free(NULL);
	json_decref(obs);
	free(root);
}

/* ---- the recorded trees ------------------------------------------------ */

struct rec {
	const char *c;
	pid_t pid;
	uint64_t pages_4k, pages_2m, exits;
	size_t ncounters; /* one-line files in the VM dir */
	const char *filter;
};

static const struct rec recs[] = {
    {"npt1-s0", 95, 476, 60, 28519, 60,
     "common_pid==100||common_pid==104||common_pid==95"},
    {"npt1-s1", 95, 476, 183, 30886, 60,
     "common_pid==100||common_pid==104||common_pid==95"},
    {"npt0-s0", 319, 7943, 70, 99137, 60,
     "common_pid==319||common_pid==324||common_pid==328"},
    {"npt0-s1", 319, 8638, 155, 102466, 60,
     "common_pid==319||common_pid==324||common_pid==328"},
};

static void test_fixture_snap(void **state)
{
	struct kvm_snap s;

	(void)state;
	kvm_snap_init(&s);
	for (size_t i = 0; i < ARRAY_SIZE(recs); i++) {
		char *root = case_root(recs[i].c);
		uint64_t v;

		assert_int_equal(case_pid(recs[i].c), recs[i].pid);
		assert_int_equal(kvm_snap_read(root, recs[i].pid, &s), 0);
		assert_true(s.available);
		assert_int_equal(s.ndirs, 1);
		assert_int_equal(s.n, recs[i].ncounters);
		assert_int_equal(kvm_snap_get(&s, "pages_4k", &v), 0);
		assert_int_equal(v, recs[i].pages_4k);
		assert_int_equal(v, case_counter(recs[i].c, "pages_4k"));
		assert_int_equal(kvm_snap_get(&s, "pages_2m", &v), 0);
		assert_int_equal(v, recs[i].pages_2m);
		assert_int_equal(kvm_snap_get(&s, "pages_1g", &v), 0);
		assert_int_equal(v, 0);
		assert_int_equal(kvm_snap_get(&s, "exits", &v), 0);
		assert_int_equal(v, recs[i].exits);
		/* the shadow MMU's rmap table is not a counter */
		assert_int_equal(kvm_snap_get(&s, "mmu_rmaps_stat", &v),
				 -ENOENT);
		/* vcpu0/ is not read */
		assert_int_equal(kvm_snap_get(&s, "tsc-offset", &v), -ENOENT);
		for (size_t j = 1; j < s.n; j++)
			assert_true(strcmp(s.c[j - 1].name, s.c[j].name) < 0);
		free(root);
	}
	kvm_snap_release(&s);
}

static void test_fixture_delta(void **state)
{
	static const struct {
		const char *a, *b, *name;
		uint64_t d;
	} rows[] = {
	    {"npt1-s0", "npt1-s1", "exits", 2367},
	    {"npt1-s0", "npt1-s1", "pf_fixed", 123},
	    {"npt1-s0", "npt1-s1", "pf_taken", 123},
	    {"npt1-s0", "npt1-s1", "tlb_flush", 0},
	    {"npt1-s0", "npt1-s1", "mmu_shadow_zapped", 0},
	    {"npt0-s0", "npt0-s1", "exits", 3329},
	    {"npt0-s0", "npt0-s1", "pf_fixed", 1041},
	    {"npt0-s0", "npt0-s1", "pf_taken", 1794},
	    {"npt0-s0", "npt0-s1", "tlb_flush", 347},
	    {"npt0-s0", "npt0-s1", "invlpg", 70},
	    {"npt0-s0", "npt0-s1", "mmu_shadow_zapped", 60},
	    {"npt0-s0", "npt0-s1", "mmu_pte_write", 85},
	};
	struct kvm_snap a, b, d;

	(void)state;
	kvm_snap_init(&a);
	kvm_snap_init(&b);
	kvm_snap_init(&d);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *ra = case_root(rows[i].a), *rb = case_root(rows[i].b);
		pid_t pid = case_pid(rows[i].a);
		uint64_t v;

		assert_int_equal(kvm_snap_read(ra, pid, &a), 0);
		assert_int_equal(kvm_snap_read(rb, pid, &b), 0);
		assert_int_equal(kvm_snap_delta(&a, &b, &d), 0);
		if (kvm_snap_get(&d, rows[i].name, &v) < 0 || v != rows[i].d)
			fail_msg("row %zu: %s delta %lu, want %lu", i,
				 rows[i].name, (unsigned long)v,
				 (unsigned long)rows[i].d);
		assert_int_equal(v, case_counter(rows[i].b, rows[i].name) -
					case_counter(rows[i].a, rows[i].name));
		/* levels are not deltas */
		assert_int_equal(kvm_snap_get(&d, "pages_2m", &v), -ENOENT);
		assert_int_equal(kvm_snap_get(&d, "max_mmu_rmap_size", &v),
				 -ENOENT);
		free(ra);
		free(rb);
	}
	kvm_snap_release(&a);
	kvm_snap_release(&b);
	kvm_snap_release(&d);
}

static void fixture_hist(const char *c, const char *filter, struct kvm_exits *x)
{
	char *p = xasprintf(FIXTURES "/%s/sys/kernel/tracing/events/kvm/"
				     "kvm_exit/hist",
			    c);
	char *text = slurp(p);

	assert_int_equal(kvm_exits_parse(text, filter, x), 0);
	x->vendor = VIRT_VENDOR_AMD;
	free(text);
	free(p);
}

static uint64_t count_of(const struct kvm_exits *x, uint32_t code)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->e[i].code == code)
			return x->e[i].count;
	return 0;
}

static void test_fixture_hist(void **state)
{
	struct kvm_exits x, y, d;

	(void)state;
	kvm_exits_init(&x);
	kvm_exits_init(&y);
	kvm_exits_init(&d);
	/* npt1-s1: the filtered table, not the common_pid one before it */
	fixture_hist("npt1-s1", recs[1].filter, &x);
	assert_true(x.available);
	assert_int_equal(x.total, 2373);
	assert_int_equal(x.n, 7);
	assert_int_equal(count_of(&x, 1024), 123);
	assert_int_equal(count_of(&x, 96), 1001);
	assert_int_equal(x.dropped, 0);
	/* NULL filter: the first exit_reason-only table is the same one */
	fixture_hist("npt1-s1", NULL, &y);
	assert_int_equal(y.total, 2373);
	/* the other guest's filter is not in this file */
	{
		char *p = xasprintf(FIXTURES "/npt1-s1/sys/kernel/tracing/"
					     "events/kvm/kvm_exit/hist");
		char *text = slurp(p);

		assert_int_equal(kvm_exits_parse(text, recs[3].filter, &y), 0);
		assert_false(y.available);
		free(text);
		free(p);
	}
	/* the sample's delta, s1 - s0 */
	fixture_hist("npt1-s0", recs[0].filter, &y);
	assert_int_equal(y.total, 8);
	assert_int_equal(kvm_exits_delta(&y, &x, &d), 0);
	assert_int_equal(d.total, 2365);
	assert_int_equal(count_of(&d, 1024), 123);
	assert_int_equal(count_of(&d, 124), 795);
	/* and backwards is an error */
	{
		char *msg;

		stderr_capture();
		assert_int_equal(kvm_exits_delta(&x, &y, &d), -ERANGE);
		msg = stderr_release();
		assert_non_null(strstr(msg, "went back"));
		free(msg);
	}
	/* npt0-s1: shadow paging, #PF intercepts lead */
	fixture_hist("npt0-s1", recs[3].filter, &x);
	assert_int_equal(x.total, 3331);
	assert_int_equal(count_of(&x, 78), 1794);
	assert_int_equal(count_of(&x, 1024), 0);
	kvm_exits_release(&x);
	kvm_exits_release(&y);
	kvm_exits_release(&d);
}

static void test_fixture_json(void **state)
{
	static const struct {
		size_t a, b;
		uint64_t pages_2m, exits, npf;
		const char *top;
		uint64_t top_count;
	} rows[] = {
	    {0, 1, 183, 2367, 123, "interrupt", 1000},
	    {2, 3, 155, 3329, 0, "PF excp", 1794},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct rec *ra = &recs[rows[i].a], *rb = &recs[rows[i].b];
		char *roota = case_root(ra->c), *rootb = case_root(rb->c);
		struct kvm_snap a, b;
		struct kvm_exits ea, eb;
		json_t *obs = json_object(), *kvm, *by, *npf = NULL;
		size_t j;

		kvm_snap_init(&a);
		kvm_snap_init(&b);
		kvm_exits_init(&ea);
		kvm_exits_init(&eb);
		assert_int_equal(kvm_snap_read(roota, ra->pid, &a), 0);
		assert_int_equal(kvm_snap_read(rootb, rb->pid, &b), 0);
		fixture_hist(ra->c, ra->filter, &ea);
		fixture_hist(rb->c, rb->filter, &eb);
		assert_int_equal(kvm_sample_json(&a, &b, &ea, &eb, obs), 0);
		kvm = json_object_get(obs, "kvm");
		assert_true(json_is_object(kvm));
		assert_int_equal(
		    json_integer_value(json_object_get(kvm, "pages_2m")),
		    rows[i].pages_2m);
		assert_int_equal(
		    json_integer_value(json_object_get(kvm, "pages_1g")), 0);
		assert_true(json_is_integer(json_object_get(kvm, "pages_1g")));
		assert_int_equal(json_integer_value(json_object_get(
				     json_object_get(kvm, "delta"), "exits")),
				 rows[i].exits);
		by = json_object_get(kvm, "exits_by_reason");
		assert_string_equal(json_string_value(json_object_get(
					json_array_get(by, 0), "reason")),
				    rows[i].top);
		assert_int_equal(json_integer_value(json_object_get(
				     json_array_get(by, 0), "count")),
				 rows[i].top_count);
		for (j = 1; j < json_array_size(by); j++)
			assert_true(json_integer_value(json_object_get(
					json_array_get(by, j - 1), "count")) >=
				    json_integer_value(json_object_get(
					json_array_get(by, j), "count")));
		json_array_foreach(by, j, kvm)
		{
			if (json_integer_value(json_object_get(kvm, "code")) ==
			    1024)
				npf = kvm;
		}
		if (rows[i].npf) {
			assert_non_null(npf);
			assert_string_equal(
			    json_string_value(json_object_get(npf, "reason")),
			    "npf");
			assert_int_equal(
			    json_integer_value(json_object_get(npf, "count")),
			    rows[i].npf);
		} else {
			assert_null(npf);
		}
		json_decref(obs);
		kvm_snap_release(&a);
		kvm_snap_release(&b);
		kvm_exits_release(&ea);
		kvm_exits_release(&eb);
		free(roota);
		free(rootb);
	}
}

/* The trigger we would install is the one the lab recorded. */
static void test_fixture_trigger(void **state)
{
	char *cmd = xasprintf("cp -r " FIXTURES "/npt0-s1 '%s/copy'", tmpdir);
	char *root = xasprintf("%s/copy", tmpdir), *t, *text;
	struct kvm_exit_hist h;
	struct kvm_exits x;

	(void)state;
	kvm_exits_init(&x);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(kvm_exit_hist_start(root, 319, &h), 0);
	assert_true(h.active);
	assert_int_equal(h.vendor, VIRT_VENDOR_AMD);
	assert_string_equal(h.filter, recs[3].filter);
	t = xasprintf("%s/sys/kernel/tracing/events/kvm/kvm_exit/trigger",
		      root);
	text = slurp(t);
	/* the recorded trigger line, as the kernel printed it back */
	assert_non_null(strstr(text, "hist:keys=exit_reason:vals=hitcount:"
				     "sort=hitcount:size=2048 if "
				     "common_pid==319||common_pid==324||"
				     "common_pid==328 [active]\n"));
	free(text);
	assert_int_equal(kvm_exit_hist_read(&h, &x), 0);
	assert_true(x.available);
	assert_int_equal(x.vendor, VIRT_VENDOR_AMD);
	assert_int_equal(x.total, 3331);
	assert_int_equal(kvm_exit_hist_stop(&h), 0);
	kvm_exits_release(&x);
	free(t);
	free(root);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reason_names),
	    cmocka_unit_test(test_vendor_detect),
	    cmocka_unit_test(test_counter_kinds),
	    cmocka_unit_test(test_snap_unavailable),
	    cmocka_unit_test(test_snap_garbage),
	    cmocka_unit_test(test_snap_backwards),
	    cmocka_unit_test(test_snap_two_vms),
	    cmocka_unit_test(test_hist_crafted),
	    cmocka_unit_test(test_hist_garbage),
	    cmocka_unit_test(test_hist_trigger_fake),
	    cmocka_unit_test(test_sampler_fake),
	    cmocka_unit_test(test_fixture_snap),
	    cmocka_unit_test(test_fixture_delta),
	    cmocka_unit_test(test_fixture_hist),
	    cmocka_unit_test(test_fixture_json),
	    cmocka_unit_test(test_fixture_trigger),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
