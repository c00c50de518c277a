/* SPDX-License-Identifier: MIT */
/* Unit tests for the guest CPU in domain XML (orchestrator/domxml.c). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_cpu),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_bad_features),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
