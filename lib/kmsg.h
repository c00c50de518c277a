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

/* Open /dev/kmsg positioned at its end: the fd, or a negative errno. */
int kmsg_watch_open(void);

/*
 * Read what was logged since the last call (never blocks); true with the
 * message in OUT at the first record that says a CPU is stuck.
 */
bool kmsg_watch_poll(int fd, char *out, size_t outlen);

#endif
