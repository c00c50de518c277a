/* SPDX-License-Identifier: MIT */
/* Unit tests for the libvirt URIs vmtax opens (orchestrator/vm-uri.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "util.h"
#include "vm.h"

static void test_good(void **state)
{
	static const char *const good[] = {
		"qemu:///system",
		"qemu:///session",
		"qemu+unix:///system",
		"test:///default",
	};
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		why[0] = '\0';
		assert_int_equal(vm_uri_check(good[i], why, sizeof(why)), 0);
	}
}

static void test_bad(void **state)
{
	/* Each row is refused for its own reason. */
	static const struct {
		const char *uri, *why;
	} bad[] = {
		{ "qemu+ext:///system?command=/tmp/x",
		  "transport 'ext' makes libvirt run an external command (as "
		  "root, here)" },
		{ "qemu+ssh://root@far/system",
		  "transport 'ssh' reaches another host: remote libvirt is not "
		  "supported yet" },
		{ "qemu+libssh2://far/system",
		  "transport 'libssh2' reaches another host: remote libvirt is "
		  "not supported yet" },
		{ "qemu+tcp://far/system",
		  "transport 'tcp' reaches another host: remote libvirt is not "
		  "supported yet" },
		{ "qemu+tls://far/system",
		  "transport 'tls' reaches another host: remote libvirt is not "
		  "supported yet" },
		{ "qemu+fd:///system", "unknown transport 'fd'" },
		{ "qemu:///system?command=/bin/sh",
		  "parameter 'command=' names a program for libvirt to run" },
		{ "qemu+unix:///system?socket=/tmp/evil.sock",
		  "parameter 'socket=' points libvirt at another socket than "
		  "its daemon's" },
		{ "qemu:///system?netcat=/tmp/nc",
		  "parameter 'netcat=' names a program to run on the far side" },
		{ "qemu:///system?keyfile=/root/.ssh/id_rsa",
		  "parameter 'keyfile=' names a private key file for libvirt to "
		  "read" },
		{ "qemu:///system?proxy=native",
		  "parameter 'proxy=' makes libvirt start a proxy program" },
		{ "qemu:///system?mode=direct",
		  "parameter 'mode=' selects another daemon than the system's" },
		{ "qemu:///embed?root=/tmp/x",
		  "parameter 'root=' starts an embedded driver rooted elsewhere" },
		{ "qemu:///system?no_tty=1",
		  "parameter 'no_tty=' is not accepted (vmtax takes no URI "
		  "parameters)" },
		{ "qemu:///system?%63ommand=/bin/sh",
		  "a '%' escape (libvirt would decode it): write the URI "
		  "plainly" },
		{ "qemu://far/system",
		  "names a host ('far'): only this host's libvirtd is supported" },
		{ "qemu://far",
		  "names a host ('far'): only this host's libvirtd is supported" },
		{ "qemu:///system#x", "a fragment ('#x')" },
		{ "qemu:///system\n", "a space or control character" },
		{ "qemu:///sys tem", "a space or control character" },
		{ "", "an empty URI" },
		{ "/var/run/libvirt/libvirt-sock",
		  "not DRIVER:///PATH (e.g. qemu:///system)" },
		{ "xen:///system",
		  "'xen:///system' is not a local libvirt (qemu:///system, "
		  "qemu:///session, qemu+unix:///system, test:///default)" },
		{ "qemu:///embed",
		  "'qemu:///embed' is not a local libvirt (qemu:///system, "
		  "qemu:///session, qemu+unix:///system, test:///default)" },
	};
	char why[512], longuri[400];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(vm_uri_check(bad[i].uri, why, sizeof(why)),
				 -EINVAL);
		assert_string_equal(why, bad[i].why);
	}
	memset(longuri, 'a', sizeof(longuri) - 1);
	longuri[sizeof(longuri) - 1] = '\0';
	memcpy(longuri, "qemu:///", 8);
	assert_int_equal(vm_uri_check(longuri, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "longer than 256 characters");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
