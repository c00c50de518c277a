/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the host identity (host/identity.h): the verdict and the
 * hypervisor's name over tests/fixtures/ident/<case>/ with each case's CPUID
 * passed in, the fingerprint, the kernel log's line, and the JSON that goes
 * into results.json.  Run from the top of the tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"

#define FIXTURES "tests/fixtures/ident"

static const struct {
	const char *dir;
	struct host_cpuid cpuid;
	enum host_virt virt;
	const char *name;	 /* "" none */
	const char *kernel_says; /* "" unknown */
	int cpu_flag;
	const char *cpu_id;
	const char *microcode;
	int sockets, cores, numa;
} cases[] = {
    {"kvm",
     {true, true, "KVMKVMKVM"},
     HOST_VIRT_GUEST,
     "KVM",
     "KVM",
     1,
     "GenuineIntel family 6 model 106 stepping 6",
     "",
     2,
     2,
     1},
    /* the kernel's word wins over the outer cloud's CPUID signature */
    {"pvm",
     {true, true, "bhyve bhyve "},
     HOST_VIRT_GUEST,
     "PVM",
     "PVM",
     1,
     "AuthenticAMD family 26 model 2 stepping 1",
     "",
     1,
     2,
     1},
    {"physical",
     {true, false, ""},
     HOST_VIRT_PHYSICAL,
     "",
     "",
     0,
     "AuthenticAMD family 25 model 1 stepping 1",
     "0xa0011d1",
     2,
     4,
     2},
    /* rotated-out kernel line: CPUID names it */
    {"xen",
     {true, true, "XenVMMXenVMM"},
     HOST_VIRT_GUEST,
     "Xen",
     "",
     1,
     "GenuineIntel family 6 model 85 stepping 4",
     "0x2007006",
     1,
     1,
     -1},
    {"hyperv",
     {true, true, "Microsoft Hv"},
     HOST_VIRT_GUEST,
     "Microsoft Hyper-V",
     "Microsoft Hyper-V",
     1,
     "GenuineIntel family 6 model 79 stepping 1",
     "0xffffffff",
     1,
     1,
     -1},
    /* no CPUID, no flags line: unknown, not physical */
    {"noflags",
     {false, false, ""},
     HOST_VIRT_UNKNOWN,
     "",
     "",
     -1,
     "",
     "",
     -1,
     -1,
     -1},
};

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char root[256];
		struct host_ident id;

		snprintf(root, sizeof(root), FIXTURES "/%s", cases[i].dir);
		host_ident_read(root, &cases[i].cpuid, &id);
		printf("# %s: virt %d name '%s'\n", cases[i].dir, id.virt,
		       id.name);
		assert_int_equal(id.virt, cases[i].virt);
		assert_string_equal(id.name, cases[i].name);
		assert_string_equal(id.kernel_says, cases[i].kernel_says);
		assert_int_equal(id.cpu_flag, cases[i].cpu_flag);
		assert_string_equal(id.cpu_id, cases[i].cpu_id);
		assert_string_equal(id.microcode, cases[i].microcode);
		assert_int_equal(id.sockets, cases[i].sockets);
		assert_int_equal(id.cores, cases[i].cores);
		assert_int_equal(id.numa_nodes, cases[i].numa);
		/* unknown says why: the line is not there, or no log */
		if (!*cases[i].kernel_says)
			assert_non_null(strstr(
			    id.kernel_why,
			    *cases[i].cpu_id ? "rotated out" : "cannot read"));
	}
}

static void test_fingerprint_files(void **state)
{
	struct host_cpuid none = {false, false, ""};
	struct host_ident id;

	(void)state;
	host_ident_read(FIXTURES "/kvm", &none, &id);
	assert_string_equal(id.thp_enabled, "always");
	assert_string_equal(id.thp_defrag, "madvise");
	assert_string_equal(
	    id.kernel_build,
	    "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)");
	assert_string_equal(id.dmi_vendor, "QEMU");
	assert_string_equal(id.dmi_product, "Standard PC (Q35 + ICH9, 2009)");
	/* without CPUID the flag alone says it */
	assert_int_equal(id.virt, HOST_VIRT_GUEST);
	host_ident_read(FIXTURES "/xen", &none, &id);
	assert_string_equal(id.sys_hypervisor, "xen");
	assert_string_equal(id.thp_enabled, ""); /* no such file: unknown */
	assert_string_equal(id.kernel_build, "");
	/* no CPUID signature, no kernel line: /sys/hypervisor names it */
	assert_string_equal(id.name, "xen");
}

/* Each piece of evidence alone makes a guest; none (with CPUID) physical. */
static void test_judge(void **state)
{
	static const struct {
		bool cpuid_known, hv_bit;
		const char *sig;
		int flag;
		const char *vendor, *product, *sysh, *kernel;
		enum host_virt virt;
		const char *name;
	} rows[] = {
	    {true, false, "", 0, "", "", "", "", HOST_VIRT_PHYSICAL, ""},
	    {true, true, "VMwareVMware", 1, "", "", "", "", HOST_VIRT_GUEST,
	     "VMware"},
	    {true, true, "TCGTCGTCGTCG", 1, "", "", "", "", HOST_VIRT_GUEST,
	     "QEMU TCG"},
	    {true, true, "NoSuchHv0000", 1, "", "", "", "", HOST_VIRT_GUEST,
	     ""},
	    {false, false, "", 1, "", "", "", "", HOST_VIRT_GUEST, ""},
	    {false, false, "", -1, "", "", "xen", "", HOST_VIRT_GUEST, "xen"},
	    {false, false, "", -1, "", "", "", "KVM", HOST_VIRT_GUEST, "KVM"},
	    {false, false, "", -1, "innotek GmbH", "VirtualBox", "", "",
	     HOST_VIRT_GUEST, "VirtualBox"},
	    /* a bare-metal cloud instance's DMI is not a virtual platform */
	    {true, false, "", 0, "Amazon EC2", "m5.metal", "", "",
	     HOST_VIRT_PHYSICAL, ""},
	    {false, false, "", 0, "", "", "", "", HOST_VIRT_PHYSICAL, ""},
	    {false, false, "", -1, "", "", "", "", HOST_VIRT_UNKNOWN, ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct host_ident id;

		memset(&id, 0, sizeof(id));
		id.cpuid.known = rows[i].cpuid_known;
		id.cpuid.hv_bit = rows[i].hv_bit;
		snprintf(id.cpuid.sig, sizeof(id.cpuid.sig), "%s", rows[i].sig);
		id.cpu_flag = rows[i].flag;
		snprintf(id.dmi_vendor, sizeof(id.dmi_vendor), "%s",
			 rows[i].vendor);
		snprintf(id.dmi_product, sizeof(id.dmi_product), "%s",
			 rows[i].product);
		snprintf(id.sys_hypervisor, sizeof(id.sys_hypervisor), "%s",
			 rows[i].sysh);
		snprintf(id.kernel_says, sizeof(id.kernel_says), "%s",
			 rows[i].kernel);
		host_ident_judge(&id);
		printf("# row %zu\n", i);
		assert_int_equal(id.virt, rows[i].virt);
		assert_string_equal(id.name, rows[i].name);
	}
}

static void test_kernel_log(void **state)
{
	char out[64];

	(void)state;
	assert_true(host_kernel_log_hypervisor(
	    "6,0,0,-;Linux\n6,1,0,-;Hypervisor detected: KVM\n", out,
	    sizeof(out)));
	assert_string_equal(out, "KVM");
	assert_true(host_kernel_log_hypervisor(
	    "[    0.000000] Hypervisor detected: Microsoft Hyper-V  \n", out,
	    sizeof(out)));
	assert_string_equal(out, "Microsoft Hyper-V");
	assert_false(
	    host_kernel_log_hypervisor("6,0,0,-;Linux\n", out, sizeof(out)));
	assert_false(host_kernel_log_hypervisor("Hypervisor detected: \n", out,
						sizeof(out)));
	assert_string_equal(host_cpuid_sig_name("Microsoft Hv"), "Hyper-V");
	assert_null(host_cpuid_sig_name("KVMKVMKVMKVM"));
}

static void test_json(void **state)
{
	struct host_cpuid pvm = {true, true, "bhyve bhyve "};
	struct host_cpuid none = {false, false, ""};
	struct host_ident id;
	json_t *h = json_object(), *hv, *fp;

	(void)state;
	host_ident_read(FIXTURES "/pvm", &pvm, &id);
	host_ident_json(&id, h);
	hv = json_object_get(h, "hypervisor");
	fp = json_object_get(h, "fingerprint");
	assert_true(json_is_true(json_object_get(h, "virtualized")));
	assert_string_equal(json_string_value(json_object_get(hv, "name")),
			    "PVM");
	assert_string_equal(json_string_value(json_object_get(hv, "cpuid")),
			    "bhyve bhyve ");
	assert_string_equal(
	    json_string_value(json_object_get(hv, "kernel_says")), "PVM");
	assert_true(json_is_null(json_object_get(hv, "dmi_vendor")));
	assert_null(json_object_get(hv, "kernel_says_why"));
	assert_true(json_is_null(json_object_get(fp, "microcode")));
	assert_int_equal(json_integer_value(json_object_get(fp, "cores")), 2);
	json_decref(h);

	h = json_object();
	host_ident_read(FIXTURES "/noflags", &none, &id);
	host_ident_json(&id, h);
	hv = json_object_get(h, "hypervisor");
	assert_true(json_is_null(json_object_get(h, "virtualized")));
	assert_true(json_is_null(json_object_get(hv, "cpuid_bit")));
	assert_true(json_is_null(json_object_get(hv, "cpu_flag")));
	assert_non_null(
	    strstr(json_string_value(json_object_get(hv, "kernel_says_why")),
		   "cannot read /dev/kmsg"));
	json_decref(h);
}

/* The real host: whatever it is, the reading must hold together. */
static void test_this_host(void **state)
{
	struct host_ident id;

	(void)state;
	host_ident_read("", NULL, &id);
	printf("# this host: virt %d, name '%s', cpuid '%s', kernel '%s'\n",
	       id.virt, id.name, id.cpuid.sig, id.kernel_says);
	if (id.cpuid.known && id.cpuid.hv_bit)
		assert_int_equal(id.virt, HOST_VIRT_GUEST);
	if (id.cpu_flag == 1)
		assert_int_equal(id.virt, HOST_VIRT_GUEST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_fingerprint_files),
	    cmocka_unit_test(test_judge),
	    cmocka_unit_test(test_kernel_log),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_this_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
