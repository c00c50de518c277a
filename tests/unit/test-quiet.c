/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the quiet-host evidence (host/quiet.h: parsers, the busy
 * rule, the reader over tests/fixtures/quiet/<case>/) and for CPU lists and
 * the pin rule (lib/cpuset.h).  Run from the top of the tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "quiet.h"
#include "vm.h"

#define FIXTURES "tests/fixtures/quiet"

static void test_parse_stat(void **state)
{
	static const struct {
		const char *text;
		int ret;
		long v;
	} rows[] = {
	    {"cpu 1 2 3\nprocs_running 4\nprocs_blocked 0\n", 0, 4},
	    {"procs_running 0\n", 0, 0},
	    {"procs_running 17", 0, 17},
	    /* each bad row fails for its own reason */
	    {"cpu 1 2 3\nprocs_blocked 0\n", -EINVAL, 0}, /* absent */
	    {"procs_running \n", -EINVAL, 0},		  /* no number */
	    {"procs_running -1\n", -EINVAL, 0},		  /* negative */
	    {"procs_running 3x\n", -EINVAL, 0},		  /* trailing junk */
	    {"xprocs_running 3\n", -EINVAL, 0}, /* not at a line start */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		long v = -99;

		assert_int_equal(quiet_parse_stat(rows[i].text, &v),
				 rows[i].ret);
		if (!rows[i].ret)
			assert_int_equal(v, rows[i].v);
	}
}

static void test_parse_loadavg(void **state)
{
	double l[3];

	(void)state;
	assert_int_equal(quiet_parse_loadavg("3.46 1.97 1.01 3/147 6309\n", l),
			 0);
	assert_true(fabs(l[0] - 3.46) < 1e-9 && fabs(l[1] - 1.97) < 1e-9 &&
		    fabs(l[2] - 1.01) < 1e-9);
	assert_int_equal(quiet_parse_loadavg("", l), -EINVAL);
	assert_int_equal(quiet_parse_loadavg("1.0 2.0\n", l), -EINVAL);
	assert_int_equal(quiet_parse_loadavg("1.0 x 3.0 1/2 3\n", l), -EINVAL);
	assert_int_equal(quiet_parse_loadavg("-1.0 2.0 3.0 1/2 3\n", l),
			 -EINVAL);
}

static void test_task_state(void **state)
{
	(void)state;
	assert_int_equal(quiet_parse_task_state("12 (bash) R 1 2 3"), 'R');
	assert_int_equal(quiet_parse_task_state("12 (bash) S 1 2 3"), 'S');
	/* a comm with spaces and a ')' */
	assert_int_equal(quiet_parse_task_state("13 (CPU 0/KVM (x)) R 1 2"),
			 'R');
	assert_int_equal(quiet_parse_task_state("13 (a) ) S 1 2"), 'S');
	assert_int_equal(quiet_parse_task_state("12 bash R 1"), 0);
	assert_int_equal(quiet_parse_task_state("12 (bash)"), 0);
	assert_int_equal(quiet_parse_task_state("12 (bash) Q 1"), 0);
}

static void test_judge(void **state)
{
	struct host_quiet q;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.others_min = 0;
	quiet_judge(&q, 0);
	assert_false(q.busy);
	assert_non_null(strstr(q.why, "0 other runnable tasks"));
	q.others_min = 1;
	quiet_judge(&q, 0);
	assert_true(q.busy);
	assert_non_null(strstr(q.why, "more than 0"));
	quiet_judge(&q, 1);
	assert_false(q.busy);
	q.others_min = -1;
	quiet_judge(&q, 0);
	assert_false(q.busy);
	assert_non_null(strstr(q.why, "unknown"));
}

static void test_read_busy(void **state)
{
	struct host_quiet q;
	int pid = 4242;

	(void)state;
	/* procs_running 4: the reader (1) and QEMU's running thread (1) are
	 * vmtax's own; its sleeping thread is not counted. */
	assert_int_equal(host_quiet_read(FIXTURES "/busy", &pid, 1, 0, &q), 0);
	assert_int_equal(q.procs_running, 4);
	assert_int_equal(q.own_running, 2);
	assert_int_equal(q.others_min, 2);
	assert_true(q.busy);
	assert_true(q.load_known);
	assert_true(fabs(q.load[0] - 3.46) < 1e-9);
	assert_string_equal(q.governor, "performance");
	assert_int_equal(q.boost, 1);
	/* the same host with a threshold of 2 is quiet */
	assert_int_equal(host_quiet_read(FIXTURES "/busy", &pid, 1, 2, &q), 0);
	assert_false(q.busy);
}

static void test_read_quiet(void **state)
{
	struct host_quiet q;

	(void)state;
	assert_int_equal(host_quiet_read(FIXTURES "/quiet", NULL, 0, 0, &q), 0);
	assert_int_equal(q.procs_running, 1);
	assert_int_equal(q.own_running, 1);
	assert_int_equal(q.others_min, 0);
	assert_false(q.busy);
	assert_string_equal(q.governor, "powersave");
	assert_int_equal(q.boost, 0); /* intel_pstate no_turbo = 1 */
}

static void test_read_no_cpufreq(void **state)
{
	struct host_quiet q;

	(void)state;
	assert_int_equal(host_quiet_read(FIXTURES "/bare", NULL, 0, 0, &q), 0);
	assert_true(q.busy); /* procs_running 2: one other */
	assert_string_equal(q.governor, "");
	assert_non_null(strstr(q.governor_why, "no cpufreq"));
	assert_int_equal(q.boost, -1);
	assert_non_null(strstr(q.boost_why, "no_turbo"));
	/* no /proc/stat at all: an error, and nothing judged busy */
	assert_true(host_quiet_read(FIXTURES "/absent", NULL, 0, 0, &q) < 0);
	assert_false(q.busy);
	assert_int_equal(q.others_min, -1);
}

static void test_cpuset(void **state)
{
	static const struct {
		const char *text, *formatted, *msg;
	} rows[] = {
	    {"0", "0", NULL},
	    {"0-3,6\n", "0-3,6", NULL},
	    {"3,1,2", "1-3", NULL},
	    {"0-1,1-2", "0-2", NULL},
	    {"", NULL, "an empty CPU list"},
	    {"a", NULL, "expected a CPU number"},
	    {"3-1", NULL, "backwards range 3-1"},
	    {"1,", NULL, "expected a CPU number"},
	    {"1-", NULL, "expected a CPU number"},
	    {"4096", NULL, "past the largest"},
	    {"1 2", NULL, "unexpected '2'"},
	};
	struct cpuset s;
	char buf[64], msg[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int ret = cpuset_parse(rows[i].text, &s, msg, sizeof(msg));

		if (rows[i].formatted) {
			assert_int_equal(ret, 0);
			cpuset_format(&s, buf, sizeof(buf));
			assert_string_equal(buf, rows[i].formatted);
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_non_null(strstr(msg, rows[i].msg));
		}
	}
	cpuset_parse("0-3,6", &s, msg, sizeof(msg));
	assert_int_equal(cpuset_count(&s), 5);
	assert_int_equal(cpuset_nth(&s, 4), 6);
	assert_int_equal(cpuset_nth(&s, 5), -1);
}

static void test_pin_plan(void **state)
{
	struct cpuset online;
	struct pin_plan *p = calloc(1, sizeof(*p));
	char msg[128];

	(void)state;
	assert_int_equal(host_cpus_online(FIXTURES "/bare", &online), 0);
	/* none pins nothing */
	assert_int_equal(pin_plan_make("none", 2, &online, p, msg, sizeof(msg)),
			 0);
	assert_false(p->pinned);
	/* auto on a 2-CPU host, 2 vCPUs: 0, 1, emulator beside vCPU 1 */
	assert_int_equal(pin_plan_make("auto", 2, &online, p, msg, sizeof(msg)),
			 0);
	assert_true(p->pinned);
	assert_int_equal(p->vcpu_cpu[0], 0);
	assert_int_equal(p->vcpu_cpu[1], 1);
	assert_int_equal(p->emulator_cpu, 1);
	/* 3 vCPUs wrap round */
	assert_int_equal(pin_plan_make("auto", 3, &online, p, msg, sizeof(msg)),
			 0);
	assert_int_equal(p->vcpu_cpu[2], 0);
	/* a list: the same rule over it */
	assert_int_equal(host_cpus_online(FIXTURES "/busy", &online), 0);
	assert_int_equal(pin_plan_make("2,6", 3, &online, p, msg, sizeof(msg)),
			 0);
	assert_int_equal(p->vcpu_cpu[0], 2);
	assert_int_equal(p->vcpu_cpu[1], 6);
	assert_int_equal(p->vcpu_cpu[2], 2);
	assert_int_equal(p->emulator_cpu, 6);
	/* an offline CPU is refused, naming it and what is online */
	assert_int_equal(pin_plan_make("3-5", 1, &online, p, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "CPU 4 is offline or absent (online: 0-3,6)");
	/* the key's syntax check */
	assert_int_equal(pin_value_check("auto", msg, sizeof(msg)), 0);
	assert_int_equal(pin_value_check("0-1", msg, sizeof(msg)), 0);
	assert_int_equal(pin_value_check("any", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "pin takes none, auto or a CPU list"));
	free(p);
}

static void test_cputune_xml(void **state)
{
	struct pin_plan *p = calloc(1, sizeof(*p));
	struct cpuset online;
	struct vm_spec s = {
	    .name = "vmtax-t-0-1",
	    .type = "qemu",
	    .vcpus = 2,
	    .memory_bytes = 1ULL << 30,
	    .kernel = "/k",
	    .initrd = "/i",
	    .cmdline = "console=ttyS0",
	    .console_log = "/r/c.log",
	    .backing = "thp",
	};
	char msg[128], *x;

	(void)state;
	x = vm_domain_xml_new(&s);
	assert_null(strstr(x, "cputune"));
	/* the device set plain QEMU has: ACPI, no USB, the channel's
	 * controller on the root bus */
	assert_non_null(strstr(x, "<features>\n  <acpi/>\n </features>"));
	assert_non_null(strstr(x, "<controller type=\"usb\" model=\"none\"/>"));
	assert_non_null(strstr(x, "<controller type=\"virtio-serial\" index=\"0\">\n"
				  "   <address type=\"pci\" domain=\"0\" bus=\"0\" "
				  "slot=\"2\" function=\"0\"/>"));
	free(x);
	cpuset_parse("0-1", &online, msg, sizeof(msg));
	assert_int_equal(pin_plan_make("auto", 2, &online, p, msg, sizeof(msg)),
			 0);
	s.pin = p;
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, "<cputune>"));
	assert_non_null(strstr(x, "<vcpupin vcpu=\"0\" cpuset=\"0\"/>"));
	assert_non_null(strstr(x, "<vcpupin vcpu=\"1\" cpuset=\"1\"/>"));
	assert_non_null(strstr(x, "<emulatorpin cpuset=\"1\"/>"));
	free(x);
	/* a plan for another vCPU count is refused */
	s.vcpus = 3;
	assert_null(vm_domain_xml_new(&s));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_stat),
	    cmocka_unit_test(test_parse_loadavg),
	    cmocka_unit_test(test_task_state),
	    cmocka_unit_test(test_judge),
	    cmocka_unit_test(test_read_busy),
	    cmocka_unit_test(test_read_quiet),
	    cmocka_unit_test(test_read_no_cpufreq),
	    cmocka_unit_test(test_cpuset),
	    cmocka_unit_test(test_pin_plan),
	    cmocka_unit_test(test_cputune_xml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
