/* SPDX-License-Identifier: MIT */
/*
 * kmsg.h - a watch on the kernel log for a CPU the kernel itself calls
 * stuck: a soft or hard lockup, or an RCU stall.  The agent keeps one open
 * while a workload runs and names the first such record in its heartbeats
 * (docs/protocol.md, "kernel_stuck"); the host then gives the guest up at
 * once, as it does a silent one, instead of waiting out the sample's
 * timeout (a task looping in the kernel cannot be killed, so the timeout
 * would only end in silence).
 *
 * Records are read from /dev/kmsg ("PRI,SEQ,USEC,FLAGS;MESSAGE", see the
 * kernel's Documentation/ABI/testing/dev-kmsg); any facility counts, so
 * that root can test the path by writing such a line to /dev/kmsg.
 *
 * The host reads the same messages from the guest's console log (libvirt
 * writes it: "[   12.345678] MESSAGE" lines), for a guest whose agent went
 * silent and so cannot name the record (issue 21): the same marks, and an
 * oops's too (a silent agent beside an oops is a lost guest).  One parser,
 * kmsg_trouble_message(), serves both.
 */
#ifndef VMTAX_KMSG_H
#define VMTAX_KMSG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * If the record REC (LEN bytes, as one read() of /dev/kmsg returns it)
 * says a CPU is stuck, copy its message's first line (truncated) to OUT and
 * return true.  Pure: no I/O.
 */
bool kmsg_stuck_record(const char *rec, size_t len, char *out, size_t outlen);

/* What a kernel message says, if anything (kmsg_trouble_message()). */
enum kmsg_trouble {
	KMSG_FINE,
	KMSG_STUCK, /* a soft or hard lockup, an RCU stall */
	KMSG_OOPS,  /* an oops, a kernel BUG, a panic */
};

/*
 * The trouble message MSG (N bytes, one line, no newline) reports, with
 * MSG copied (truncated) to OUT when it reports some.  Pure.
 */
enum kmsg_trouble kmsg_trouble_message(const char *msg, size_t n, char *out,
				       size_t outlen);

/*
 * The same for one line of a console log (LEN bytes, without its newline):
 * a kernel line, "[ SECONDS.MICROS] MESSAGE" (printk's time stamp, on in
 * Debian's kernels); a line without the stamp is user space's, never
 * trouble.  Pure.
 */
enum kmsg_trouble kmsg_console_line(const char *line, size_t len, char *out,
				    size_t outlen);

/*
 * Read the complete lines console log PATH gained past *OFF (advanced past
 * them; a line still being written is left for the next call), at most a
 * few MiB a call.  Returns the trouble of the first line that reports some
 * (its message in OUT), KMSG_FINE when none does, or a negative errno when
 * PATH cannot be read (a log not yet created reads as empty).
 */
int kmsg_console_poll(const char *path, long long *off, char *out,
		      size_t outlen);

/* Open /dev/kmsg positioned at its end: the fd, or a negative errno. */
int kmsg_watch_open(void);

/*
 * Read what was logged since the last call (never blocks); true with the
 * message in OUT at the first record that says a CPU is stuck.
 */
bool kmsg_watch_poll(int fd, char *out, size_t outlen);

#endif
