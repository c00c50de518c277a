/* SPDX-License-Identifier: MIT */
/*
 * quiet.h - was the host quiet when a sample started?  Evidence read before
 * every sample (bare metal and guest) and recorded with it as
 * "host_quiet" (docs/results-format.md).
 *
 * What is read (ROOT is "" on the real host, a fixture tree in tests):
 *	ROOT/proc/stat            procs_running: tasks runnable right now,
 *	                          the reading thread itself included;
 *	ROOT/proc/PID/task/TID/stat  the state of each thread of the run's
 *	                          own processes (vmtax, the guest's QEMU):
 *	                          those in state R are vmtax's own runnable
 *	                          tasks (vmtax counts at least 1: the reader);
 *	ROOT/proc/loadavg         the 1, 5 and 15 minute load averages;
 *	ROOT/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
 *	ROOT/sys/devices/system/cpu/cpufreq/boost (acpi-cpufreq: 1 = on), or
 *	ROOT/sys/devices/system/cpu/intel_pstate/no_turbo (1 = boost off).
 * A governor or boost state that cannot be read is unknown (NULL / -1)
 * with the reason; it is never reported as 0.
 *
 * The rule (one definition, quiet_judge()): the host is busy when other
 * tasks -- procs_running minus vmtax's own runnable threads -- exceed
 * max_others in every one of QUIET_READS reads taken QUIET_GAP_MS apart.
 * A single read catches short-lived kernel threads; a task that stays
 * runnable across all reads is competing for the CPUs.  The load average
 * is recorded but not judged: the previous sample's own work raises it.
 *
 * Pure functions (quiet_parse_*, quiet_judge) do no I/O and are unit
 * tested; host_quiet_read() and host_cpus_online() read ROOT.
 */
#ifndef VMTAX_QUIET_H
#define VMTAX_QUIET_H

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"

#define QUIET_READS 5
#define QUIET_GAP_MS 20

struct host_quiet {
	long procs_running; /* the last read's; -1 unknown */
	long own_running;   /* vmtax's own runnable threads in it */
	long others_min;    /* fewest other runnable tasks over the reads */
	double load[3];	    /* 1, 5, 15 min; load_known false: unknown */
	bool load_known;
	char governor[32]; /* "" unknown, with governor_why */
	char governor_why[128];
	int boost; /* 1 on, 0 off, -1 unknown with boost_why */
	char boost_why[128];
	bool busy;     /* by quiet_judge() */
	char why[160]; /* the judgement in words */
};

/* procs_running of a /proc/stat TEXT: 0, or -EINVAL when absent or bad. */
int quiet_parse_stat(const char *text, long *procs_running);
/* The three load averages of a /proc/loadavg TEXT: 0 or -EINVAL. */
int quiet_parse_loadavg(const char *text, double load[3]);
/* The state letter of a /proc/PID/task/TID/stat TEXT ('R', 'S', ...; the
 * comm may hold spaces and parentheses), or 0 when malformed. */
char quiet_parse_task_state(const char *text);
/*
 * Judge Q (others_min filled in) against MAX_OTHERS: sets busy and why.
 */
void quiet_judge(struct host_quiet *q, long max_others);

/*
 * Read the evidence into Q: QUIET_READS reads of procs_running and of the
 * runnable threads of this process (at least one: the reader) and of PIDS
 * (NPIDS of them, e.g. the guest's QEMU; a pid <= 0 is skipped), the
 * load averages, governor and boost; then quiet_judge().  procs_running
 * unreadable is -errno (reported); the rest is only unknown.
 */
int host_quiet_read(const char *root, const int *pids, size_t npids,
		    long max_others, struct host_quiet *q);
/* The host's online CPUs (ROOT/sys/devices/system/cpu/online). */
int host_cpus_online(const char *root, struct cpuset *s);
/*
 * The CPUs of NUMA node NODE (ROOT/sys/devices/system/node/nodeN/cpulist):
 * 0, -ENOENT (reported nothing) when there is no such node, or another
 * negative errno (reported).
 */
int host_numa_node_cpus(const char *root, int node, struct cpuset *s);

#endif
