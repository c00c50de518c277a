/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the host comparison (reports/host-diff.h): a table of
 * run.host pairs, each with the fields that differ by name, and the text
 * that names them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "host-diff.h"

#define BASE                                                                   \
	"{\"hostname\": \"a\", \"cpu_model\": \"EPYC\", \"cpus\": 2, "         \
	"\"mem_bytes\": 8, \"kernel\": \"6.1\", \"accel\": \"kvm\", "          \
	"\"virtualized\": false, \"hypervisor\": {\"name\": null}, "           \
	"\"fingerprint\": {\"cpu_id\": \"AMD f25\", \"microcode\": \"0x1\", "  \
	"\"sockets\": 1, \"cores\": 2, \"numa_nodes\": 1, "                    \
	"\"kernel_build\": \"#1 SMP\", \"thp_enabled\": \"always\"}}"

static const struct {
	const char *what;
	const char *b;	   /* JSON patch over BASE: members replaced */
	const char *diff;  /* the names, ',' between; "" none */
} rows[] = {
	{ "the same host", "{}", "" },
	{ "another hostname only", "{\"hostname\": \"b\"}", "" },
	{ "another CPU", "{\"cpu_model\": \"Xeon\"}", "cpu_model" },
	{ "another kernel and memory",
	  "{\"kernel\": \"6.12\", \"mem_bytes\": 16}", "mem_bytes,kernel" },
	{ "a guest", "{\"virtualized\": true, \"hypervisor\": {\"name\": "
		     "\"KVM\"}}", "virtualized" },
	{ "microcode and NUMA",
	  "{\"fingerprint\": {\"cpu_id\": \"AMD f25\", \"microcode\": "
	  "\"0x2\", \"sockets\": 1, \"cores\": 2, \"numa_nodes\": 2, "
	  "\"kernel_build\": \"#1 SMP\"}}", "microcode,numa_nodes" },
	{ "microcode unknown on one side: not a difference",
	  "{\"fingerprint\": {\"cpu_id\": \"AMD f25\", \"microcode\": null, "
	  "\"sockets\": 1, \"cores\": 2, \"numa_nodes\": 1, "
	  "\"kernel_build\": \"#1 SMP\"}}", "" },
	{ "no fingerprint (an older file): the rest compared",
	  "{\"fingerprint\": null, \"accel\": \"tcg\"}", "accel" },
	{ "THP at the start is not the host",
	  "{\"fingerprint\": {\"cpu_id\": \"AMD f25\", \"microcode\": \"0x1\", "
	  "\"sockets\": 1, \"cores\": 2, \"numa_nodes\": 1, "
	  "\"kernel_build\": \"#1 SMP\", \"thp_enabled\": \"never\"}}", "" },
	{ "another build of the kernel, 4 CPUs",
	  "{\"cpus\": 4, \"fingerprint\": {\"cpu_id\": \"AMD f25\", "
	  "\"microcode\": \"0x1\", \"sockets\": 1, \"cores\": 4, "
	  "\"numa_nodes\": 1, \"kernel_build\": \"#2 SMP\"}}",
	  "cpus,cores,kernel_build" },
};

static json_t *host_with(const char *patch)
{
	json_t *a = json_loads(BASE, 0, NULL), *p = json_loads(patch, 0, NULL);

	assert_non_null(a);
	assert_non_null(p);
	json_object_update(a, p);
	json_decref(p);
	return a;
}

static void test_table(void **state)
{
	json_t *a = host_with("{}");
	const char *names[HOST_DIFF_MAX];
	char got[256], text[1024];
	size_t i, k, n;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		json_t *b = host_with(rows[i].b);

		n = host_diff(a, b, names, HOST_DIFF_MAX);
		got[0] = '\0';
		for (k = 0; k < n; k++) {
			strcat(got, k ? "," : "");
			strcat(got, names[k]);
		}
		if (strcmp(got, rows[i].diff))
			fail_msg("%s: got '%s', want '%s'", rows[i].what, got,
				 rows[i].diff);
		assert_int_equal(host_diff_text(a, b, text, sizeof(text)), n);
		assert_true(n ? strlen(text) > 0 : !*text);
		/* symmetric in what it names */
		assert_int_equal(host_diff(b, a, names, HOST_DIFF_MAX), n);
		json_decref(b);
	}
	json_decref(a);
}

static void test_text(void **state)
{
	json_t *a = host_with("{}"), *b = host_with("{\"cpu_model\": \"Xeon\", "
						    "\"cpus\": 4}");
	char text[256], small[20];

	(void)state;
	assert_int_equal(host_diff_text(a, b, text, sizeof(text)), 2);
	assert_string_equal(text, "cpu_model ('EPYC' vs 'Xeon'), cpus ('2' "
				  "vs '4')");
	/* a short buffer: the count is still every field */
	assert_int_equal(host_diff_text(a, b, small, sizeof(small)), 2);
	assert_int_equal(host_diff(NULL, b, NULL, 0), 0);
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
