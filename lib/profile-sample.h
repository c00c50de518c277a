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
 * Each CPU's ring buffer must be drained while the workload runs
 * (profile_sampler_drain(), from the runner's poll loop at least every
 * PROFILE_DRAIN_MS); records the kernel could not store are counted as lost.
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

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"
#include "profile-symbols.h"

#define PROFILE_DEFAULT_HZ 997.0
/* A TCG guest's default: a sample costs ~100 us of emulation there. */
#define PROFILE_TCG_HZ 251.0
#define PROFILE_DRAIN_MS 50

struct profile_sampler;

/*
 * Open a sampler on PID (not yet exec'd), symbolizing with SYM (borrowed;
 * NULL: this system's /proc/kallsyms and files).  Never fails: a sampler
 * that could not open any event says why in its profile (event null).
 */
struct profile_sampler *profile_sampler_open(pid_t pid, double freq_hz,
					     struct symbolizer *sym);
/*
 * Copy what the ring buffers hold; cheap when they are empty.  Past 16 MiB
 * of records it folds those older than a second (a long run stays bounded
 * in memory; later records of another CPU cannot be older than that).
 */
void profile_sampler_drain(struct profile_sampler *s);
/* Drain, close, fold what is left and free S. */
struct profile *profile_sampler_finish(struct profile_sampler *s);
void profile_sampler_free(struct profile_sampler *s);

/* Decode raw records into P (its event fields are left alone). */
void profile_decode(const void *raw, size_t len, struct symbolizer *sym,
		    struct profile *p);

#endif
