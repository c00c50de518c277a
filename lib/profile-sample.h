/* SPDX-License-Identifier: MIT */
/*
 * profile-sample.h - sample a process tree through perf_event_open(2).
 *
 * The runner opens a sampler on its forked child before exec (like its
 * counters): one event per CPU on that pid with inherit=1 and
 * enable_on_exec=1, so every process the workload starts is sampled and
 * nothing of the runner is.  The event is "cycles" where the PMU has it,
 * else "cpu-clock" (a TCG guest, most VMs); the profile names which.
 * Samples carry PERF_SAMPLE_IP | TID | TIME | CALLCHAIN (kernel and user
 * frames); mmap, comm and task records say which file each address belongs
 * to.  Without the right to sample the kernel (perf_event_paranoid, not
 * root) it samples user space only and says so.  vmtax does not need the
 * perf tool: the tiny guest has none (docs/profile.md).
 *
 * Each CPU's ring buffer must be drained while the workload runs: the
 * runner polls the rings' descriptors (profile_sampler_pollfds()), which
 * the kernel makes readable when a ring is half full, and calls
 * profile_sampler_drain() after every poll; records the kernel could not
 * store are counted as lost.  Waking only then, not on a timer, is what
 * keeps the sampler's own cost down in an emulated guest, where every
 * wake-up of the runner is emulated too (docs/profile.md, Cost).
 *
 * profile_decode() turns the raw records (struct perf_event_header and
 * body, concatenated, in the layout the sampler asks for) into folded
 * stacks.  It is pure but for the symbolizer and never trusts its input: a
 * truncated or malformed record ends the decoding with a note in "missing".
 *
 * Ownership: profile_sampler_finish() consumes the sampler and returns an
 * owned profile; profile_sampler_free(NULL) does nothing.
 */
#ifndef VMTAX_PROFILE_SAMPLE_H
#define VMTAX_PROFILE_SAMPLE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"
#include "profile-symbols.h"

#define PROFILE_DEFAULT_HZ 997.0
/*
 * A TCG guest's default: a sample costs 100 us or more of emulation there;
 * at 127 Hz the profile run costs some 2 to 3% (docs/profile.md, Cost),
 * at 251 Hz some 4%.
 */
#define PROFILE_TCG_HZ 127.0

struct profile_sampler;

/*
 * Open a sampler on PID (not yet exec'd), symbolizing with SYM (borrowed;
 * NULL: this system's /proc/kallsyms and files).  Never fails: a sampler
 * that could not open any event says why in its profile (event null).
 */
struct profile_sampler *profile_sampler_open(pid_t pid, double freq_hz,
					     struct symbolizer *sym);
/*
 * The descriptors to poll for POLLIN (a ring half full) into PFD, at most
 * MAX; returns how many (0 for a NULL sampler).  A ring whose task is gone
 * (POLLHUP, seen by profile_sampler_drain()) is left out from then on.
 */
size_t profile_sampler_pollfds(const struct profile_sampler *s,
			       struct pollfd *pfd, size_t max);
/* How many descriptors profile_sampler_pollfds() may fill at most. */
size_t profile_sampler_nfds(const struct profile_sampler *s);
/*
 * Copy what the ring buffers hold; cheap when they are empty.  PFD, NPFD:
 * what the last poll returned for profile_sampler_pollfds()'s descriptors
 * (NULL, 0: none).  Past 16 MiB
 * of records it folds those older than a second (a long run stays bounded
 * in memory; later records of another CPU cannot be older than that).
 */
void profile_sampler_drain(struct profile_sampler *s, const struct pollfd *pfd,
			   size_t npfd);
/* Drain, close, fold what is left and free S. */
struct profile *profile_sampler_finish(struct profile_sampler *s);
void profile_sampler_free(struct profile_sampler *s);

/* Decode raw records into P (its event fields are left alone). */
void profile_decode(const void *raw, size_t len, struct symbolizer *sym,
		    struct profile *p);

#endif
