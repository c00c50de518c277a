/* SPDX-License-Identifier: MIT */
/* Unit tests for the libvirt URIs vmtax opens (orchestrator/guest/vm-uri.c). */
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
		"qemu+ssh://root@box/system",
		"qemu+ssh://root@box.example.org:2222/system",
		"qemu+ssh://vm_tax-1@10.0.0.7/system",
	};
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		why[0] = '\0';
		assert_int_equal(vm_uri_check(good[i], why, sizeof(why)), 0);
	}
}

static void test_remote_parts(void **state)
{
	struct vm_uri_dest d;

	(void)state;
	assert_true(vm_uri_remote("qemu+ssh://root@box.lan:2222/system", &d));
	assert_string_equal(d.user, "root");
	assert_string_equal(d.host, "box.lan");
	assert_int_equal(d.port, 2222);
	assert_true(vm_uri_remote("qemu+ssh://u@h/system", &d));
	assert_string_equal(d.host, "h");
	assert_int_equal(d.port, 0);
	assert_false(vm_uri_remote("qemu:///system", &d));
	assert_string_equal(d.host, "");
	assert_false(vm_uri_remote("qemu+ssh://-oProxyCommand=x@h/system", &d));
	assert_false(vm_uri_remote(NULL, &d));
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
		{ "qemu+libssh://root@far/system",
		  "transport 'libssh' is libvirt's own ssh client, which reads "
		  "neither your ssh config nor its known_hosts rules: use "
		  "qemu+ssh://USER@HOST/system" },
		{ "qemu+libssh2://far/system",
		  "transport 'libssh2' is libvirt's own ssh client, which reads "
		  "neither your ssh config nor its known_hosts rules: use "
		  "qemu+ssh://USER@HOST/system" },
		{ "qemu+tcp://far/system",
		  "transport 'tcp' is unencrypted and unauthenticated: use "
		  "qemu+ssh://USER@HOST/system" },
		{ "qemu+tls://far/system",
		  "transport 'tls' needs libvirt's own certificates, which "
		  "vmtax does not check: use qemu+ssh://USER@HOST/system" },
		/* qemu+ssh: only USER@HOST[:PORT]/system, no parameters */
		{ "qemu+ssh://root@box/system?command=/tmp/x",
		  "parameter 'command=' names a program for libvirt to run" },
		{ "qemu+ssh://root@box/system?socket=/tmp/s",
		  "parameter 'socket=' points libvirt at another socket than "
		  "its daemon's" },
		{ "qemu+ssh://root@box/system?netcat=/tmp/nc",
		  "parameter 'netcat=' names a program to run on the far side" },
		{ "qemu+ssh://root@box/system?keyfile=/tmp/k",
		  "parameter 'keyfile=' names a private key file for libvirt to "
		  "read" },
		{ "qemu+ssh://root@box/system?known_hosts=/tmp/kh",
		  "parameter 'known_hosts=' names a file for libvirt to read" },
		{ "qemu+ssh://root@box/system?proxy=netcat",
		  "parameter 'proxy=' makes libvirt start a proxy program" },
		{ "qemu+ssh://root@box/system?no_verify=1",
		  "parameter 'no_verify=' turns off libvirt's host and "
		  "certificate checks" },
		{ "qemu+ssh://root@box/system?no_tty=1",
		  "parameter 'no_tty=' is not accepted (vmtax takes no URI "
		  "parameters)" },
		{ "qemu+ssh://root@box/session",
		  "a remote '/session' is the ssh user's own libvirtd, which "
		  "vmtax does not drive: use /system" },
		{ "qemu+ssh://root@box/embed",
		  "path '/embed' over ssh: only /system is supported" },
		{ "qemu+ssh://root@box",
		  "no path: write qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu+ssh:///system",
		  "the ssh transport with no host: write "
		  "qemu+ssh://USER@HOST[:PORT]/system" },
		{ "xen+ssh://root@box/system",
		  "driver 'xen' over ssh: only qemu+ssh is supported" },
		{ "qemu+ssh://box/system",
		  "names no user ('box'): write "
		  "qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu+ssh://root@-oProxyCommand=x/system",
		  "host '-oProxyCommand=x' starts with '-' (ssh would take it "
		  "as an option)" },
		{ "qemu+ssh://-lroot@box/system",
		  "user '-lroot' starts with '-' (ssh would take it as an "
		  "option)" },
		{ "qemu+ssh://root@box;id/system",
		  "host 'box;id' has ';', which is not one of [A-Za-z0-9._-] (an "
		  "IPv6 address or ssh options belong in your ssh config, under "
		  "a Host alias)" },
		{ "qemu+ssh://root@[::1]/system",
		  "host '[::1]' has '[', which is not one of [A-Za-z0-9._-] (an "
		  "IPv6 address or ssh options belong in your ssh config, under "
		  "a Host alias)" },
		{ "qemu+ssh://ro$ot@box/system",
		  "user 'ro$ot' has '$', which is not one of [A-Za-z0-9._-] (an "
		  "IPv6 address or ssh options belong in your ssh config, under "
		  "a Host alias)" },
		{ "qemu+ssh://a@b@box/system",
		  "host 'b@box' has '@', which is not one of [A-Za-z0-9._-] (an "
		  "IPv6 address or ssh options belong in your ssh config, under "
		  "a Host alias)" },
		{ "qemu+ssh://@box/system",
		  "no user: a remote libvirt is "
		  "qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu+ssh://root@/system",
		  "no host: a remote libvirt is "
		  "qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu+ssh://root@box:0/system",
		  "port '0' is not a number from 1 to 65535" },
		{ "qemu+ssh://root@box:65536/system",
		  "port '65536' is not a number from 1 to 65535" },
		{ "qemu+ssh://root@box:22x/system",
		  "port '22x' is not a number from 1 to 65535" },
		{ "qemu+ssh://root@box:/system",
		  "port '' is not a number from 1 to 65535" },
		{ "qemu+ssh://root@box/system#x", "a fragment ('#x')" },
		{ "qemu+ssh://root@box/system?%6eo_verify=1",
		  "a '%' escape (libvirt would decode it): write the URI "
		  "plainly" },
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
		  "names a host ('far') without the ssh transport: only this "
		  "host's libvirtd, or qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu://far",
		  "names a host ('far') without the ssh transport: only this "
		  "host's libvirtd, or qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu+unix://root@far/system",
		  "names a host ('root@far') without the ssh transport: only "
		  "this host's libvirtd, or qemu+ssh://USER@HOST[:PORT]/system" },
		{ "qemu:///system#x", "a fragment ('#x')" },
		{ "qemu:///system\n", "a space or control character" },
		{ "qemu:///sys tem", "a space or control character" },
		{ "", "an empty URI" },
		{ "/var/run/libvirt/libvirt-sock",
		  "not DRIVER:///PATH (e.g. qemu:///system)" },
		{ "xen:///system",
		  "'xen:///system' is not a local libvirt (qemu:///system, "
		  "qemu:///session, qemu+unix:///system, test:///default) nor "
		  "qemu+ssh://USER@HOST/system" },
		{ "qemu:///embed",
		  "'qemu:///embed' is not a local libvirt (qemu:///system, "
		  "qemu:///session, qemu+unix:///system, test:///default) nor "
		  "qemu+ssh://USER@HOST/system" },
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
		cmocka_unit_test(test_remote_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
