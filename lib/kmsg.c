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
 * the page-fault handler under TCG (docs/tcg-lockup.md):
 *	watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:132]
 * and when it oopses (arch/x86/kernel/dumpstack.c, arch/x86/mm/fault.c,
 * kernel/panic.c).  A mark with ALSO counts only with ALSO after it: a
 * user task's general protection fault ("traps: sh[5] general protection
 * fault ip:...") is not the kernel's ("general protection fault, probably
 * for non-canonical address ...: 0000 [#1] PREEMPT SMP NOPTI").
 */
static const struct {
	const char *mark;
	enum kmsg_trouble what;
	const char *also;
} marks[] = {
	{"BUG: soft lockup - CPU#", KMSG_STUCK, NULL},
	{"Watchdog detected hard LOCKUP on cpu", KMSG_STUCK, NULL},
	{"self-detected stall on CPU", KMSG_STUCK, NULL},
	{"detected stalls on CPUs/tasks", KMSG_STUCK, NULL},
	{"Oops: ", KMSG_OOPS, NULL},
	{"BUG: unable to handle page fault", KMSG_OOPS, NULL},
	{"BUG: kernel NULL pointer dereference", KMSG_OOPS, NULL},
	{"general protection fault", KMSG_OOPS, " [#"},
	{"kernel BUG at ", KMSG_OOPS, NULL},
	{"Kernel panic - not syncing", KMSG_OOPS, NULL},
};

enum kmsg_trouble kmsg_trouble_message(const char *msg, size_t n, char *out,
				       size_t outlen)
{
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		const char *at = memmem(msg, n, marks[i].mark,
					strlen(marks[i].mark));

		if (!at || (marks[i].also &&
			    !memmem(at, n - (size_t)(at - msg), marks[i].also,
				    strlen(marks[i].also))))
			continue;
		if (outlen)
			snprintf(out, outlen, "%.*s", (int)n, msg);
		return marks[i].what;
	}
	return KMSG_FINE;
}

bool kmsg_stuck_record(const char *rec, size_t len, char *out, size_t outlen)
{
	const char *msg = memchr(rec, ';', len), *end;
	size_t n;
	char keep[512];

	if (!msg)
		return false;
	msg++;
	end = memchr(msg, '\n', len - (size_t)(msg - rec));
	n = end ? (size_t)(end - msg) : len - (size_t)(msg - rec);
	if (kmsg_trouble_message(msg, n, keep, sizeof(keep)) != KMSG_STUCK)
		return false;
	if (outlen)
		snprintf(out, outlen, "%.*s", (int)n, msg);
	return true;
}

enum kmsg_trouble kmsg_console_line(const char *line, size_t len, char *out,
				    size_t outlen)
{
	const char *p = line, *end = line + len;

	const char *q;

	if (len && line[len - 1] == '\r')
		end--;
	/* Only the kernel's lines: user space writes to the console too (the
	 * agent logs each command, which may quote such a message). */
	if (p == end || *p != '[' || !(q = memchr(p, ']', (size_t)(end - p))) ||
	    p + 1 + strspn(p + 1, " 0123456789.") != q)
		return KMSG_FINE;
	p = q + 1;
	if (p < end && *p == ' ')
		p++;
	return kmsg_trouble_message(p, (size_t)(end - p), out, outlen);
}

int kmsg_console_poll(const char *path, long long *off, char *out,
		      size_t outlen)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = KMSG_FINE;

	if (fd < 0)
		return errno == ENOENT ? KMSG_FINE : -errno;
	for (int i = 0; i < 64 && ret == KMSG_FINE; i++) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)*off);
		const char *p = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		while (ret == KMSG_FINE &&
		       (nl = memchr(p, '\n', (size_t)(buf + n - p)))) {
			ret = kmsg_console_line(p, (size_t)(nl - p), out,
						outlen);
			*off += nl + 1 - p;
			p = nl + 1;
		}
		/* A line longer than the buffer is skipped whole. */
		if (p == buf && n == (ssize_t)sizeof(buf))
			*off += n;
		else if (n < (ssize_t)sizeof(buf))
			break;
	}
	close(fd);
	return ret;
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
