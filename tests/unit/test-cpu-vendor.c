// SPDX-License-Identifier: MIT
/*
 * Unit tests for the CPU vendors' table (host/cpu-vendor.h, host/cpu.c):
 * which vendor a /proc/cpuinfo or a results file's run.host names, and its
 * KVM module, paging parameter and report label.  Hygon, an AMD derivative,
 * is AMD's kvm_amd, npt, "NPT"; a CPU of no known vendor is none, never
 * Intel's by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "host.h"
#include "util.h"

/* A cpuinfo's vendor, and what its row says. */
static void test_cpuinfo(void **state)
{
	static const struct {
		const char *cpuinfo;
		enum virt_vendor vendor;
		const char *name;
		/* NULL: VIRT_VENDOR_NONE, no row */
		const char *module, *paging, *label, *label_off;
		bool usable;
	} rows[] = {
	    {"processor\t: 0\nvendor_id\t: GenuineIntel\n"
	     "model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz\n"
	     "flags\t\t: fpu vmx ept\n",
	     VIRT_VENDOR_INTEL, "Intel", "kvm_intel", "ept", "EPT", "EPT off",
	     true},
	    {"processor\t: 0\nvendor_id\t: AuthenticAMD\n"
	     "model name\t: AMD EPYC 7763 64-Core Processor\n"
	     "flags\t\t: fpu svm npt\n",
	     VIRT_VENDOR_AMD, "AMD", "kvm_amd", "npt", "NPT", "NPT off", true},
	    {"processor\t: 0\nvendor_id\t: HygonGenuine\n"
	     "model name\t: Hygon C86 7185 32-core Processor\n"
	     "flags\t\t: fpu svm npt\n",
	     VIRT_VENDOR_HYGON, "Hygon", "kvm_amd", "npt", "NPT", "NPT off",
	     true},
	    /* a guest without nested virtualization: the vendor, no flag */
	    {"vendor_id\t: AuthenticAMD\nflags\t\t: fpu hypervisor\n",
	     VIRT_VENDOR_AMD, "AMD", "kvm_amd", "npt", "NPT", "NPT off", false},
	    {"vendor_id\t: HygonGenuine\nflags\t\t: fpu\n", VIRT_VENDOR_HYGON,
	     "Hygon", "kvm_amd", "npt", "NPT", "NPT off", false},
	    /* another vendor goes by the flag (Zhaoxin has VT-x) */
	    {"vendor_id\t: CentaurHauls\nflags\t\t: fpu vmx\n",
	     VIRT_VENDOR_INTEL, "Intel", "kvm_intel", "ept", "EPT", "EPT off",
	     true},
	    {"flags\t\t: fpu svm\n", VIRT_VENDOR_AMD, "AMD", "kvm_amd", "npt",
	     "NPT", "NPT off", true},
	    /* no vendor: none, not Intel's; a live host's model name is not
	     * asked (its vendor_id is) */
	    {"vendor_id\t: CentaurHauls\nmodel name\t: VIA Nano (AMD-like)\n"
	     "flags\t\t: fpu\n",
	     VIRT_VENDOR_NONE, "unknown", NULL, NULL, NULL, NULL, false},
	    {"model name\t: Intel(R) Core(TM) i7\nflags\t\t: fpu\n",
	     VIRT_VENDOR_NONE, "unknown", NULL, NULL, NULL, NULL, false},
	    {"", VIRT_VENDOR_NONE, "unknown", NULL, NULL, NULL, NULL, false},
	};
	struct host_cpu cpu;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct virt_hw *hw;
		enum virt_vendor v;

		host_cpu_parse(rows[i].cpuinfo, &cpu);
		v = host_virt_vendor(&cpu);
		if (v != rows[i].vendor)
			fail_msg("row %zu: vendor %d, want %d", i, (int)v,
				 (int)rows[i].vendor);
		assert_string_equal(host_virt_vendor_name(v), rows[i].name);
		hw = host_virt_hw(v);
		if (!rows[i].module) {
			if (hw)
				fail_msg("row %zu: a row (%s) for no vendor", i,
					 hw->module);
		} else {
			assert_non_null(hw);
			assert_string_equal(hw->module, rows[i].module);
			assert_string_equal(hw->paging, rows[i].paging);
			assert_string_equal(hw->label, rows[i].label);
			assert_string_equal(hw->label_off, rows[i].label_off);
			assert_ptr_equal(host_virt_hw_paging(hw->paging), hw);
		}
		if ((host_virt_usable(&cpu) != NULL) != rows[i].usable)
			fail_msg("row %zu: usable %d, want %d", i,
				 host_virt_usable(&cpu) != NULL,
				 rows[i].usable);
	}
}

/*
 * A results file's run.host: cpu_vendor when it records one, else (older
 * files) a word of cpu_model.
 */
static void test_named(void **state)
{
	static const struct {
		const char *vendor_id, *model;
		enum virt_vendor want;
	} rows[] = {
	    {"HygonGenuine", "Hygon C86 7185 32-core Processor",
	     VIRT_VENDOR_HYGON},
	    {"GenuineIntel", NULL, VIRT_VENDOR_INTEL},
	    {"AuthenticAMD", "", VIRT_VENDOR_AMD},
	    /* the vendor_id wins over the model name */
	    {"GenuineIntel", "AMD EPYC 7763", VIRT_VENDOR_INTEL},
	    /* one it does not know is not guessed from the model */
	    {"CentaurHauls", "AMD EPYC 7763", VIRT_VENDOR_NONE},
	    /* older files: the model name */
	    {NULL, "Hygon C86 7185 32-core Processor", VIRT_VENDOR_HYGON},
	    {"", "AMD EPYC Processor", VIRT_VENDOR_AMD},
	    {NULL, "Intel(R) Xeon(R) CPU X5650 @ 2.67GHz", VIRT_VENDOR_INTEL},
	    /* a whole word only */
	    {NULL, "XAMDY 9000", VIRT_VENDOR_NONE},
	    {NULL, "Hygonic 1", VIRT_VENDOR_NONE},
	    {NULL, "QEMU Virtual CPU version 2.5+", VIRT_VENDOR_NONE},
	    {NULL, NULL, VIRT_VENDOR_NONE},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		enum virt_vendor v =
		    host_virt_vendor_named(rows[i].vendor_id, rows[i].model);

		if (v != rows[i].want)
			fail_msg("row %zu ('%s', '%s'): vendor %d, want %d", i,
				 rows[i].vendor_id ? rows[i].vendor_id : "(null)",
				 rows[i].model ? rows[i].model : "(null)",
				 (int)v, (int)rows[i].want);
	}
}

static void test_paging_rows(void **state)
{
	char ids[64];

	(void)state;
	assert_string_equal(host_virt_hw_paging("ept")->label_on, "EPT on");
	assert_string_equal(host_virt_hw_paging("npt")->label_on, "NPT on");
	assert_null(host_virt_hw_paging("shadow"));
	assert_null(host_virt_hw_paging("hw"));
	assert_null(host_virt_hw_paging(NULL));
	assert_null(host_virt_hw(VIRT_VENDOR_NONE));
	host_virt_vendor_ids(ids, sizeof(ids));
	assert_string_equal(ids, "GenuineIntel, AuthenticAMD, HygonGenuine");
	host_virt_vendor_ids(ids, 8); /* cut, never overrun */
	assert_string_equal(ids, "Genuine");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpuinfo),
	    cmocka_unit_test(test_named),
	    cmocka_unit_test(test_paging_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
