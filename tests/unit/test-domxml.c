/* SPDX-License-Identifier: MIT */
/* Unit tests for domain XML (orchestrator/guest/domxml.c): the CPU, the NIC, disks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "vm.h"

static struct vm_spec spec(const char *type, const char *features)
{
	struct vm_spec s = {
		.name = "vmtax-t-0-1", .type = type, .vcpus = 2,
		.memory_bytes = 1ULL << 30, .kernel = "/k", .initrd = "/i",
		.cmdline = "console=ttyS0", .console_log = "/r/c.log",
		.backing = "thp", .cpu_features = features,
	};

	return s;
}

static void test_default_cpu(void **state)
{
	struct vm_spec s = spec("kvm", NULL);
	char *x;

	(void)state;
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, "<cpu mode=\"host-passthrough\"/>"));
	free(x);
	/* TCG without features: QEMU's default CPU, no <cpu> at all. */
	s = spec("qemu", "");
	x = vm_domain_xml_new(&s);
	assert_null(strstr(x, "<cpu"));
	free(x);
}

static void test_features(void **state)
{
	struct vm_spec s = spec("qemu", "+pdpe1gb, -la57");
	char *x;

	(void)state;
	x = vm_domain_xml_new(&s);
	assert_non_null(x);
	assert_non_null(strstr(x, "<cpu mode=\"custom\" match=\"exact\">"));
	assert_non_null(strstr(x, "<model fallback=\"forbid\">qemu64</model>"));
	assert_non_null(strstr(x, "<feature policy=\"require\" name=\"pdpe1gb\"/>"));
	assert_non_null(strstr(x, "<feature policy=\"disable\" name=\"la57\"/>"));
	free(x);
	s = spec("kvm", "-pdpe1gb");
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, "<cpu mode=\"host-passthrough\">"));
	assert_non_null(strstr(x, "<feature policy=\"disable\" name=\"pdpe1gb\"/>"));
	free(x);
}

/* The lab host: a named TCG model with svm and npt, as t0520 boots it. */
static void test_lab_model(void **state)
{
	struct vm_spec s = spec("qemu", "+svm +npt");
	char *x;

	(void)state;
	s.cpu_model = "EPYC";
	x = vm_domain_xml_new(&s);
	assert_non_null(x);
	/* In this order, with nothing else in the <cpu>. */
	{
		static const char *const want[] = {
			"<cpu mode=\"custom\" match=\"exact\">",
			"<model fallback=\"forbid\">EPYC</model>",
			"<feature policy=\"require\" name=\"svm\"/>",
			"<feature policy=\"require\" name=\"npt\"/>",
			"</cpu>",
		};
		const char *p = x;
		size_t i;

		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			p = strstr(p, want[i]);
			assert_non_null(p);
			p += strlen(want[i]);
			if (i + 1 < sizeof(want) / sizeof(want[0]))
				assert_int_equal(p[strspn(p, " \n")], '<');
		}
		assert_int_equal(strstr(x, "<feature ") - x,
				 strstr(x, "name=\"svm\"") - x -
				     (long)strlen("<feature policy=\"require\" "));
	}
	free(x);
	/* A model alone is enough for a <cpu>. */
	s = spec("qemu", NULL);
	s.cpu_model = "EPYC";
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, ">EPYC</model>"));
	free(x);
	/* Under KVM the guest gets the host's CPU whatever the model. */
	s = spec("kvm", NULL);
	s.cpu_model = "EPYC";
	x = vm_domain_xml_new(&s);
	assert_null(strstr(x, "EPYC"));
	free(x);
	s = spec("qemu", NULL);
	s.cpu_model = "EPYC<x>";
	assert_null(vm_domain_xml_new(&s));
}

/*
 * A lab whose guests boot the debian image carries it as a second disk:
 * vdb, read-only, named by its serial; a guest or lab without one has one
 * disk.
 */
static void test_carrier(void **state)
{
	struct vm_spec s = spec("qemu", "+svm +npt");
	const char *vdb;
	char *x;

	(void)state;
	s.disk = "/o/kept-lab-1.qcow2";
	x = vm_domain_xml_new(&s);
	assert_non_null(x);
	assert_non_null(strstr(x, "<target dev=\"vda\" bus=\"virtio\"/>"));
	assert_null(strstr(x, "vdb"));
	assert_null(strstr(x, "<readonly"));
	assert_null(strstr(x, "<serial>"));
	free(x);
	s.carrier = "/i/debian-0123456789abcdef.qcow2";
	x = vm_domain_xml_new(&s);
	assert_non_null(x);
	/* The root disk stays vda, writable, first. */
	vdb = strstr(x, "<source file=\"/i/debian-0123456789abcdef.qcow2\"/>");
	assert_non_null(vdb);
	assert_true(strstr(x, "<source file=\"/o/kept-lab-1.qcow2\"/>") < vdb);
	assert_true(strstr(x, "<readonly/>") > vdb);
	assert_non_null(strstr(vdb, "<target dev=\"vdb\" bus=\"virtio\"/>"));
	assert_non_null(strstr(vdb, "<serial>" VM_CARRIER_SERIAL "</serial>"));
	/* One read-only disk: the carrier's element holds it. */
	assert_null(strstr(strstr(x, "<readonly/>") + 1, "<readonly/>"));
	assert_true(strstr(x, "<readonly/>") < strstr(vdb, "</disk>"));
	/* The carrier is a qcow2 as the root disk is: two qcow2 drivers. */
	assert_non_null(strstr(strstr(x, "type=\"qcow2\"") + 1,
			       "type=\"qcow2\""));
	free(x);
}

static void test_bad_features(void **state)
{
	static const char *const bad[] = {
		"pdpe1gb",	    /* no sign */
		"+",		    /* no name */
		"+PDPE1GB",	    /* not a feature name */
		"+a\"b",	    /* a quote */
		"+pdpe1gb;-la57",   /* not a separator */
	};
	struct vm_spec s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = spec("qemu", bad[i]);
		assert_null(vm_domain_xml_new(&s));
	}
}

/*
 * [guest] numa: the vCPUs on the node's CPUs, memory strictly on the node;
 * none without it; a bad binding is refused, each for its own reason.
 */
static void test_numa(void **state)
{
	static const struct {
		const char *node, *cpus;
	} bad[] = {
		{NULL, "0-3"},	  /* CPUs without a node */
		{"", NULL},	  /* an empty node */
		{"0x1", NULL},	  /* not a number */
		{"1", "0-3'"},	  /* not a CPU list */
		{"1", ""},	  /* an empty CPU list */
	};
	struct vm_spec s = spec("kvm", NULL);
	char *x;
	size_t i;

	(void)state;
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, "<vcpu>2</vcpu>"));
	assert_null(strstr(x, "<numatune"));
	free(x);
	s.numa_node = "1";
	s.numa_cpus = "4-7,12";
	x = vm_domain_xml_new(&s);
	assert_non_null(
	    strstr(x, "<vcpu placement=\"static\" cpuset=\"4-7,12\">2</vcpu>"));
	assert_non_null(strstr(x, "<numatune>"));
	assert_non_null(
	    strstr(x, "<memory mode=\"strict\" nodeset=\"1\"/>"));
	free(x);
	/* a node without CPUs: its memory only */
	s.numa_cpus = NULL;
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, "<vcpu>2</vcpu>"));
	assert_non_null(strstr(x, "nodeset=\"1\""));
	free(x);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s.numa_node = bad[i].node;
		s.numa_cpus = bad[i].cpus;
		assert_null(vm_domain_xml_new(&s));
	}
}

/* 'vmtax lab up': a NIC on QEMU's user network, its one way in a port of
 * 127.0.0.1 (restrict=on); none otherwise; unprivileged ports only. */
static void test_ssh_port(void **state)
{
	struct vm_spec s = spec("qemu", NULL);
	char *x;

	(void)state;
	x = vm_domain_xml_new(&s);
	assert_null(strstr(x, "qemu:commandline"));
	assert_null(strstr(x, "xmlns:qemu"));
	assert_null(strstr(x, "<interface"));
	free(x);
	s.ssh_port = 22101;
	x = vm_domain_xml_new(&s);
	assert_non_null(strstr(x, "<domain type=\"qemu\" xmlns:qemu=\"http://"
				  "libvirt.org/schemas/domain/qemu/1.0\">"));
	assert_non_null(strstr(x, "<qemu:arg value=\"user,id=vmtaxnet0,"
				  "restrict=on,hostfwd=tcp:127.0.0.1:22101-"
				  "10.0.2.15:22\"/>"));
	assert_non_null(strstr(x, "<qemu:arg value=\"virtio-net-pci,"
				  "netdev=vmtaxnet0,bus=pcie.0,addr=0x10\"/>"));
	free(x);
	s.ssh_port = 22;
	assert_null(vm_domain_xml_new(&s));
	s.ssh_port = 65536;
	assert_null(vm_domain_xml_new(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh_port),
		cmocka_unit_test(test_default_cpu),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_lab_model),
		cmocka_unit_test(test_bad_features),
		cmocka_unit_test(test_carrier),
		cmocka_unit_test(test_numa),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
