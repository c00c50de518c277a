/* SPDX-License-Identifier: MIT */
/* kmsg.c - a watch on the kernel log for a stuck CPU (kmsg.h). */
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/*
 * What the kernel prints when a CPU stops making progress (kernel/watchdog.c,
 * kernel/watchdog_hld.c, kernel/rcu/tree_stall.h), e.g. an exec looping in
 * the page-fault handler under TCG (docs/profile.md):
 *	watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]
 */
static const char *const stuck_marks[] = {
	"BUG: soft lockup - CPU#",
	"Watchdog detected hard LOCKUP on cpu",
	"self-detected stall on CPU",
	"detected stalls on CPUs/tasks",
};

bool kmsg_stuck_record(const char *rec, size_t len, char *out, size_t outlen)
{
	const char *msg = memchr(rec, ';', len), *end;
	size_t n;

	if (!msg)
		return false;
	msg++;
	end = memchr(msg, '\n', len - (size_t)(msg - rec));
	n = end ? (size_t)(end - msg) : len - (size_t)(msg - rec);
	for (size_t i = 0; i < ARRAY_SIZE(stuck_marks); i++) {
		if (!memmem(msg, n, stuck_marks[i], strlen(stuck_marks[i])))
			continue;
		if (outlen)
			snprintf(out, outlen, "%.*s", (int)n, msg);
		return true;
	}
	return false;
}

int kmsg_watch_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

bool kmsg_watch_poll(int fd, char *out, size_t outlen)
{
	char rec[8192];

	for (int i = 0; fd >= 0 && i < 4096; i++) {
		ssize_t n = read(fd, rec, sizeof(rec));

		if (n < 0 && errno == EPIPE)
			continue; /* overwritten before we read it: go on */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false; /* EAGAIN: nothing more for now */
		if (kmsg_stuck_record(rec, (size_t)n, out, outlen))
			return true;
	}
	return false;
}
