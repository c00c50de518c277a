/* SPDX-License-Identifier: MIT */
/* Unit tests for the QEMU user of qemu.conf (orchestrator/guest/guest-reach.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "guest-reach.h"

static void test_qemu_conf_user(void **state)
{
	static const struct {
		const char *text, *user;
	} rows[] = {
	    {"", "libvirt-qemu"},
	    {"# user = \"root\"\n", "libvirt-qemu"}, /* commented out */
	    {"user = \"root\"\n", "root"},
	    {"  user=\"qemu\"\ngroup = \"kvm\"\n", "qemu"},
	    {"user = \"+64055\"\n", "+64055"},
	    {"username = \"x\"\n", "libvirt-qemu"}, /* another key */
	    {"group = \"root\"\n", "libvirt-qemu"},
	    {"user = \"\"\n", "libvirt-qemu"}, /* empty: the default */
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		qemu_conf_user(rows[i].text, buf, sizeof(buf));
		assert_string_equal(buf, rows[i].user);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_qemu_conf_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
