/* SPDX-License-Identifier: MIT */
/*
 * Unit test of orchestrator/vm.c's SIGPIPE handling: once a libvirt
 * connection is open (the test driver, no daemon), a write to a closed
 * pipe returns EPIPE instead of ending the process, the way libvirt's own
 * write() to a dead libvirtd's socket must (t0200's libvirtd-SIGTERM case
 * ended vmtax with exit 141); and a program exec'd after it still gets the
 * default SIGPIPE (it is caught, not ignored, so exec resets it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "vm.h"

/* The bit of SIGPIPE in a /proc/PID/status mask line such as "SigIgn:". */
static unsigned long long status_mask(const char *path, const char *key)
{
	char line[256];
	unsigned long long m = ~0ull;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			m = strtoull(line + strlen(key), NULL, 16);
	fclose(f);
	return m;
}

static void test_sigpipe_after_connect(void **state)
{
	struct vm_conn *c = NULL;
	unsigned long long bit = 1ull << (SIGPIPE - 1);
	int p[2], status;
	char out[64];
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(vm_conn_open("test:///default", &c), 0);

	/* a write to a pipe nobody reads: EPIPE, and we are still here */
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	errno = 0;
	n = write(p[1], "x", 1);
	assert_int_equal(n, -1);
	assert_int_equal(errno, EPIPE);
	close(p[1]);
	assert_true(status_mask("/proc/self/status", "SigCgt:") & bit);

	/* a program exec'd now has SIGPIPE neither ignored nor caught */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		execl("/bin/grep", "grep", "^SigIgn:", "/proc/self/status",
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	assert_true(waitpid(pid, &status, 0) == pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(n > 8);
	out[n] = '\0';
	assert_false(strtoull(out + strlen("SigIgn:"), NULL, 16) & bit);

	vm_conn_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sigpipe_after_connect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
