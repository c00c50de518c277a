/* SPDX-License-Identifier: MIT */
/*
 * cpuset.h - CPU lists ("0-3,6", the kernel's cpulist format) and the rule
 * that pins a guest's vCPUs and QEMU's emulator threads ([guest] pin).
 * Pure: no I/O (the host's online CPUs come from host_cpus_online()).
 *
 * The pin rule, one definition for every caller:
 *	none     nothing is pinned (the scheduler places every thread);
 *	auto     the rule below over the host's online CPUs;
 *	CPULIST  the rule below over the CPUs listed (each must be online).
 * Over CPUs c[0] < c[1] < ... < c[n-1]: vCPU i runs on c[i mod n] and the
 * emulator threads (QEMU's main loop, I/O) on c[n-1].  On a 2-CPU host,
 * auto with 2 vCPUs gives vCPU 0 on CPU 0, vCPU 1 on CPU 1, the emulator
 * on CPU 1 (beside vCPU 1: there is no third CPU to give it); with 1 vCPU
 * the vCPU gets CPU 0 and the emulator CPU 1 to itself.
 */
#ifndef VMTAX_CPUSET_H
#define VMTAX_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 1024

struct cpuset {
	uint64_t bits[CPUSET_MAX / 64];
};

void cpuset_clear(struct cpuset *s);
void cpuset_add(struct cpuset *s, unsigned cpu);
bool cpuset_has(const struct cpuset *s, unsigned cpu);
unsigned cpuset_count(const struct cpuset *s);
/* The Nth CPU (0-based) in ascending order, or -1 past the end. */
int cpuset_nth(const struct cpuset *s, unsigned n);
/*
 * Parse a cpulist ("0", "0-3", "0,2-3", trailing newline allowed) into S.
 * 0, or -EINVAL with the reason in MSG (an empty list, a bad number, a
 * range backwards, a CPU past CPUSET_MAX).
 */
int cpuset_parse(const char *text, struct cpuset *s, char *msg, size_t len);
/* S as a cpulist ("0-3,6") in BUF; "" for an empty set. */
void cpuset_format(const struct cpuset *s, char *buf, size_t len);

/* A [guest] pin value resolved: which CPU each vCPU and the emulator get. */
struct pin_plan {
	bool pinned; /* false for pin = none */
	unsigned nvcpus;
	int vcpu_cpu[CPUSET_MAX]; /* nvcpus of them */
	int emulator_cpu;
};

/* Whether V is a pin value by its syntax: none, auto, or a cpulist. */
int pin_value_check(const char *v, char *msg, size_t len);
/*
 * The plan for pin value V and NVCPUS vCPUs on a host whose online CPUs
 * are ONLINE.  -EINVAL with MSG for a list naming a CPU that is not
 * online ("CPU 5 is offline or absent (online: 0-1)") or more vCPUs than
 * CPUSET_MAX.
 */
int pin_plan_make(const char *v, unsigned nvcpus, const struct cpuset *online,
		  struct pin_plan *p, char *msg, size_t len);

#endif
