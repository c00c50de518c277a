/* SPDX-License-Identifier: MIT */
/*
 * runner.h - the measuring runner: run one workload phase and measure it.
 *
 * The same code measures bare-metal cells (linked into vmtax) and guest cells
 * (linked into the static vmtax-agent), so a number means the same thing on
 * both sides.
 *
 * A phase is "SHELL -c CMD" (spec->shell, else /bin/sh; argv[0] is "sh", so
 * a busybox runs its ash) run in its own process group, with a given
 * environment (spec->env on top of the caller's environment; the last of
 * duplicate keys wins), working directory and timeout.  Its stdin is
 * /dev/null.  When the shell exits, whatever is left of its process group is
 * killed.  The runner measures:
 *   - elapsed_s from CLOCK_MONOTONIC, from releasing the forked child to exec
 *     (after the counters are attached) to reaping the shell;
 *   - user_s, sys_s, max_rss_kb, minor_faults, major_faults from wait4() on
 *     the shell, which includes every descendant the shell waited for;
 *   - counters from perf_event_open(2), one fd per event, opened on the child
 *     before exec with inherit=1 and enable_on_exec=1, so they cover the
 *     whole process tree and nothing of the runner itself.
 *
 * Counters: an event the kernel or PMU refuses (ENOENT, EOPNOTSUPP, EINVAL,
 * EACCES...) is "unsupported": supported=false and value is meaningless; it
 * is written as JSON null, never 0.  An event that was opened but never
 * scheduled (time_running == 0) is "not counted" (counted=false).  Counts are
 * scaled by time_enabled/time_running when multiplexed (scaled=true).  With
 * spec->counters false no counter is opened: supported=false, open_errno=0.
 *
 * Profile: with spec->profile the phase is also sampled (lib/profile-sample.h:
 * every process of the tree, kernel and user call chains) and symbolized
 * here after it ended, where its binaries and kallsyms are; res->profile
 * then holds the folded stacks (never NULL: a sampler that could not open
 * says why in it).  Sampling costs time, so a profiled run is never a
 * measured sample (docs/profile.md).
 *
 * Output: up to RUNNER_OUTPUT_MAX bytes of the phase's combined stdout and
 * stderr are kept (the tail), for metric regexes and for logs.
 *
 * Ownership: struct runner_result is filled by runner_run(); release it with
 * runner_result_release().  Nothing here is global; the runner may be used
 * from several threads on different results.
 */
#ifndef VMTAX_RUNNER_H
#define VMTAX_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct profile;

#define RUNNER_OUTPUT_MAX (64 * 1024)

/*
 * The counters, defined once for the runner, the agent protocol and the
 * reports (lib/runner-counters.c): results.json keys them by
 * runner_counter_name(), and reports show them in this order.  A counter is
 * an index in [0, RUNNER_COUNTER_MAX): first the RC_NR every run opens,
 * then the rest of perf's generic events ("perf list": hardware, software,
 * hardware cache), which [run] events adds ("events = dTLB-store-misses,
 * major-faults", as 'perf stat -e').  A set of counters is a uint64_t of
 * RUNNER_COUNTER_BIT(k).  [run] events may also list raw PMU events, which
 * have no index (struct runner_raw_events).
 */
enum runner_counter {
	RC_TASK_CLOCK,
	RC_PAGE_FAULTS,
	RC_CONTEXT_SWITCHES,
	RC_CYCLES,
	RC_INSTRUCTIONS,
	RC_DTLB_LOADS,
	RC_DTLB_LOAD_MISSES,
	RC_NR,
};

#define RUNNER_COUNTER_MAX 61
#define RUNNER_COUNTER_BIT(k) ((uint64_t)1 << (k))
#define RUNNER_COUNTERS_DEFAULT (RUNNER_COUNTER_BIT(RC_NR) - 1)
/* [run] events adds at most this many (perf multiplexes beyond a few),
 * raw PMU events included. */
#define RUNNER_EVENTS_MAX 9

/*
 * Raw PMU events, as perf takes them (perf-list(1), "RAW HARDWARE EVENT
 * DESCRIPTOR"): 'r' and 1-16 hex digits, the config of a PERF_TYPE_RAW
 * event (rUUEE on x86: umask UU, event select EE).  Named as written
 * ("r003c"), as perf stat shows them, in results.json and reports.  At most
 * RUNNER_RAW_MAX a run: about the general-purpose counters a core has
 * (x86: 4 a hyperthread); perf multiplexes beyond.  Two spellings of one
 * config ("r3c", "r003c") are the same event.
 */
#define RUNNER_RAW_MAX 4
#define RUNNER_RAW_NAME_MAX 18 /* "r", 16 hex digits, NUL */
struct runner_raw_events {
	int n;
	uint64_t config[RUNNER_RAW_MAX];
	char name[RUNNER_RAW_MAX][RUNNER_RAW_NAME_MAX]; /* as written */
};

/* What perf stat shows of a counter (reports): task-clock and cpu-clock in
 * msec, other software events with a rate, the rest as counts. */
enum runner_counter_kind {
	RCK_CLOCK,	/* task-clock, cpu-clock: ns */
	RCK_SOFTWARE,	/* page-faults, context-switches, ... */
	RCK_HARDWARE,	/* cycles, instructions, ... */
	RCK_CACHE,	/* dTLB-loads, LLC-load-misses, ... */
};

/* perf's name of counter K ("task-clock", ...), NULL out of range. */
const char *runner_counter_name(int k);
/* The counter of a name or one of perf's aliases ("cs"), or -1. */
int runner_counter_lookup(const char *name);
enum runner_counter_kind runner_counter_kind(int k);
/*
 * A raw PMU event NAME ("r003c") into *CONFIG: 0, or -EINVAL with the
 * reason in WHY when NAME is not 'r' and 1-16 hex digits.
 */
int runner_raw_parse(const char *name, uint64_t *config, char *why,
		     size_t len);
/*
 * Add the raw event NAME to RAW: 0, or -EINVAL with the reason in WHY
 * (not a raw event, its config there already, more than RUNNER_RAW_MAX).
 */
int runner_raw_add(struct runner_raw_events *raw, const char *name,
		   char *why, size_t len);
/*
 * The counters a comma- or blank-separated LIST of perf event names adds
 * to the RC_NR, into *SET (those already among the RC_NR add nothing), and
 * its raw PMU events, in the order listed, into *RAW.  An unknown, bad or
 * repeated name, an empty one between commas, more than RUNNER_RAW_MAX raw
 * ones or more than RUNNER_EVENTS_MAX in all is -EINVAL with the reason in
 * WHY.
 */
int runner_events_parse(const char *list, uint64_t *set,
			struct runner_raw_events *raw, char *why, size_t len);

struct runner_counter_value {
	bool supported;	/* perf_event_open accepted it */
	bool counted;	/* it ran for a non-zero time */
	bool scaled;	/* time_running < time_enabled */
	uint64_t value;	/* scaled count (task-clock in ns) */
	int open_errno;	/* why it is unsupported, 0 otherwise */
};

struct runner_spec {
	const char *cmd;		/* passed to SHELL -c */
	const char *shell;		/* absolute path; NULL: /bin/sh */
	const char *const *env;		/* "K=V" strings, NULL-terminated; may be NULL */
	const char *cwd;		/* NULL: inherit */
	double timeout_s;		/* <= 0: no timeout */
	bool counters;			/* open perf counters: the RC_NR */
	uint64_t events;		/* and these (runner_events_parse()) */
	struct runner_raw_events raw;	/* and these raw PMU events */
	bool profile;			/* sample it (res->profile) */
	double profile_hz;		/* <= 0: PROFILE_DEFAULT_HZ */
	/*
	 * Called about every tick_s seconds (<= 0: 1 s) while the phase runs
	 * (heartbeats), from the calling thread.  May be NULL.  A non-zero
	 * return kills the phase's process group (status "killed").
	 */
	int (*tick)(void *arg, double elapsed_s);
	void *tick_arg;
	double tick_s;
};

enum runner_status {
	RUNNER_OK,	  /* exited 0 */
	RUNNER_FAILED,	  /* exited non-zero or was killed by a signal */
	RUNNER_TIMEOUT,	  /* killed at the timeout (whole process group) */
	RUNNER_KILLED,	  /* killed because tick() asked for it */
};

struct runner_result {
	enum runner_status status;
	int exit_status;	/* exit code, or 128+signal */
	double elapsed_s;
	double user_s;
	double sys_s;
	long max_rss_kb;
	long minor_faults;
	long major_faults;
	/* The RC_NR and spec->events (with counters), or those a sample's
	 * JSON has (proto_sample_parse()); counters[] of the others is 0. */
	uint64_t counter_set;
	struct runner_counter_value counters[RUNNER_COUNTER_MAX];
	/* The spec's raw PMU events (with counters), or those a sample's
	 * JSON has: raw_counters[j] is raw.name[j]'s. */
	struct runner_raw_events raw;
	struct runner_counter_value raw_counters[RUNNER_RAW_MAX];
	char *output;		/* NUL-terminated tail of stdout+stderr */
	size_t output_len;
	bool output_truncated;
	struct profile *profile;	/* owned; with spec->profile */
};

/*
 * Run one phase.  Returns 0 when the phase ran (whatever its exit status:
 * see res->status) and a negative errno when it could not be started; in the
 * latter case the error was reported.
 */
int runner_run(const struct runner_spec *spec, struct runner_result *res);
void runner_result_release(struct runner_result *res);
const char *runner_status_name(enum runner_status s);
/* The status named S ("ok", "failed", "timeout", "killed"), or -EINVAL. */
int runner_status_parse(const char *s, enum runner_status *out);

/*
 * Probe whether each counter can be opened here (for 'vmtax host probe').
 * open_errno[i] is 0 when supported.
 */
void runner_probe_counters(int open_errno[RC_NR]);
/* Open counter K on PID (0: the caller), disabled; with ON_EXEC it follows
 * the tree and starts at exec.  An fd, or a negative errno. */
int runner_counter_open(int k, pid_t pid, bool on_exec);
/* The same for a raw PMU event's CONFIG (PERF_TYPE_RAW). */
int runner_raw_open(uint64_t config, pid_t pid, bool on_exec);

/*
 * Hold the kernel's perf switches on for the caller's life: one disabled
 * counter of each kind (all RUNNER_COUNTER_MAX, so a run's [run] events
 * patch nothing either), on the caller itself, into FDS (-1 where the kernel
 * refuses it; close them to let go).  A run's first counter of a kind turns
 * static keys on and its last one off again, and each turn patches kernel
 * text (the page-fault and context-switch paths) while the other CPUs run
 * through it; the guest agent holds them so that its runs patch nothing
 * (docs/tcg-lockup.md).
 */
void runner_counters_hold(int fds[RUNNER_COUNTER_MAX]);

#endif
