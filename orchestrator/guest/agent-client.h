/* SPDX-License-Identifier: MIT */
/*
 * agent-client.h - the host side of the agent protocol (docs/protocol.md),
 * over a guest's channel from vm.h.
 *
 * Every message in either direction is appended to LOG (one JSON line with
 * a timestamp and a direction) so that a failed cell keeps the last words of
 * its agent; the guest console is logged separately by libvirt.
 */
#ifndef VMTAX_AGENT_CLIENT_H
#define VMTAX_AGENT_CLIENT_H

#include <jansson.h>
#include <stdio.h>

#include "proto.h"
#include "vm.h"

struct agent_client {
	struct vm *vm;
	struct proto_decoder dec;
	unsigned long long next_id;
	FILE *log;		/* borrowed; may be NULL */
	/* agent_client_watch_console(): the guest's console log (borrowed;
	 * NULL: none), how long the agent may be silent beside a kernel line
	 * there, how far it was read, the line seen (or "") */
	const char *console;
	double console_silent_s;
	long long console_off;
	char console_line[256];
	int console_trouble; /* enum kmsg_trouble of console_line */
	double console_seen_s; /* mono_now() when the line was read */
	long long logged;	/* bytes written to LOG */
	/* the caps of caps.h, set by agent_client_init() (tests lower them) */
	long max_msgs;		/* AGENT_CALL_MSGS_MAX */
	long long max_log;	/* AGENT_TRANSCRIPT_MAX */
	long long max_file;	/* AGENT_FILE_MAX */
};

void agent_client_init(struct agent_client *a, struct vm *vm, FILE *log);
void agent_client_release(struct agent_client *a);

/*
 * Watch the guest's console log PATH (libvirt writes it; borrowed) while a
 * call waits: a kernel line there saying a CPU is stuck (a lockup, an RCU
 * stall) or that the kernel oopsed (lib/kmsg.h) fails the call with
 * -ETIMEDOUT, WHY naming the line, when the agent has said nothing for
 * SILENT_S seconds (an agent heard after the line is alive: the line is
 * forgotten), and the guest still runs a second after the
 * line was read (a guest that panics and dies is reported as dead, by the
 * call's -EPIPE).  A stuck agent cannot name the record in its
 * heartbeats (docs/protocol.md, kernel_stuck); its console still can, within
 * a second of the line.  Lines already in the log now do not count.
 */
void agent_client_watch_console(struct agent_client *a, const char *path,
				double silent_s);

/*
 * Send a request of TYPE with the members of ARGS (may be NULL; not
 * stolen) and wait for its reply.  The call fails with -ETIMEDOUT when
 * nothing from the agent (reply or heartbeat for this request) arrives for
 * IDLE_S seconds, or when TOTAL_S pass.  On an error reply it returns
 * -EREMOTEIO.  On -EPIPE the domain is gone (vm_stop_reason()).  A guest
 * that sends more than AGENT_CALL_MSGS_MAX messages before the reply, or
 * whose transcript in LOG would pass AGENT_TRANSCRIPT_MAX bytes (caps.h),
 * fails the call with -EMSGSIZE.  WHY gets a one-line description of any
 * failure, control characters replaced (lib/untrusted.h); *RESULT (new
 * reference) the result.  Reports nothing itself: the caller knows the cell
 * and adds context.
 */
int agent_call(struct agent_client *a, const char *type, json_t *args,
	       double idle_s, double total_s, json_t **result, char *why,
	       size_t len);

/* How long the short requests below may take (they touch a few files). */
#define AGENT_QUICK_IDLE_S 30.0
#define AGENT_QUICK_TOTAL_S 60.0

/*
 * Set the generic guest knob NAME (lib/knob-path.h: "sysctl.vm.swappiness",
 * "mm.transparent_hugepage.defrag") to VALUE with a "set-knob" request;
 * GOT gets the value the agent read back.  Returns 0, -EREMOTEIO when the
 * agent refused (WHY: "agent error bad-knob: ...", "agent error io-error:
 * cannot write '10' to '/proc/sys/vm/nope': No such file or directory",
 * "agent error readback-mismatch: ..."), -EPROTO for a reply without a
 * string "value", or what agent_call() returns.  Reports nothing.
 */
int agent_set_knob(struct agent_client *a, const char *name,
		   const char *value, char *got, size_t glen, char *why,
		   size_t wlen);
/*
 * What the guest sees now ("observe"): *OBS (new reference) is the
 * observation object of lib/guest-obs.h (cmdline, cpus_online,
 * mem_total_kb, directmap_kb, userland, userland_tools), checked with
 * guest_obs_check() (-EPROTO with WHY if malformed).  Otherwise as
 * agent_call().  Reports nothing.
 */
int agent_observe(struct agent_client *a, json_t **obs, char *why,
		  size_t len);

/*
 * Files in the guest (read-file, write-file; guest-image/agent/agent-files.h).
 * agent_get_file() copies the whole of REMOTE into LOCAL (written
 * atomically), chunk by chunk; *SIZE (may be NULL) gets its size.
 * agent_put_file() writes LEN bytes of DATA into REMOTE (created or
 * truncated, mode MODE).  The bytes are not copied into the agent log.
 * Return 0 or what agent_call() returns (-EREMOTEIO with WHY "agent error
 * io-error: cannot open '...': No such file or directory" for a missing
 * file), -EPROTO for a malformed reply, -EFBIG for a file the guest says
 * or sends is larger than AGENT_FILE_MAX (caps.h), or a negative errno for
 * LOCAL.
 * Report nothing.
 */
int agent_get_file(struct agent_client *a, const char *remote,
		   const char *local, long long *size, char *why, size_t len);
int agent_put_file(struct agent_client *a, const char *remote,
		   const void *data, size_t dlen, int mode, char *why,
		   size_t len);
/*
 * LEN bytes at most of REMOTE from OFFSET into *BUF (new, NUL-terminated;
 * *N bytes) and the file's size into *SIZE.  As agent_get_file().
 */
int agent_read_chunk(struct agent_client *a, const char *remote,
		     long long offset, size_t max, char **buf, size_t *n,
		     long long *size, char *why, size_t len);

#endif
