/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for vm_proc_ended() (orchestrator/guest/vm-proc.c): a process that
 * runs under the name asked for has not ended; once it has exited it has,
 * as a zombie not yet reaped (what a late PID 1 leaves QEMU as) and once
 * reaped; a running process under another name (a reused PID) has too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm.h"

/* A child named NAME that waits to be killed. */
static pid_t child_named(const char *name)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		for (;;)
			pause();
	}
	return pid;
}

/* Until PID's comm is NAME (the child has renamed itself), at most 5 s. */
static void wait_named(pid_t pid, const char *name)
{
	struct timespec ts = {0, 10000000};
	int i;

	for (i = 0; i < 500 && vm_proc_ended(pid, name); i++)
		nanosleep(&ts, NULL);
}

static void running_zombie_reaped(void **state)
{
	pid_t pid = child_named("qemu-fake");
	siginfo_t si;

	(void)state;
	wait_named(pid, "qemu-fake");
	assert_false(vm_proc_ended(pid, VM_QEMU_COMM));
	/* another name under that PID is another process */
	assert_true(vm_proc_ended(pid, "something-else"));
	assert_int_equal(kill(pid, SIGKILL), 0);
	/* exited, not reaped: a zombie (WNOWAIT leaves it one) */
	assert_int_equal(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	assert_true(vm_proc_ended(pid, VM_QEMU_COMM));
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_true(vm_proc_ended(pid, VM_QEMU_COMM));
}

static void no_pid_has_not_ended(void **state)
{
	(void)state;
	assert_false(vm_proc_ended(0, VM_QEMU_COMM));
	assert_false(vm_proc_ended(-2, VM_QEMU_COMM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(running_zombie_reaped),
	    cmocka_unit_test(no_pid_has_not_ended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
