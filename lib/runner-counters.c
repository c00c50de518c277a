// SPDX-License-Identifier: MIT
/*
 * runner-counters.c - the perf events the runner can count (runner.h):
 * their names as perf prints them, what perf_event_open(2) calls them, and
 * opening one; raw PMU events ("r003c").  The RC_NR counters every run opens come first, in the
 * order of enum runner_counter.
 */
#include "runner.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct counter_def {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HW_CACHE(cache, op, result)                                            \
	((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))
#define SW(name, c) { name, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c }
#define HW(name, c) { name, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c }
#define CACHE(name, c, op, res)                                                \
	{ name, PERF_TYPE_HW_CACHE,                                            \
	  HW_CACHE(PERF_COUNT_HW_CACHE_##c, PERF_COUNT_HW_CACHE_OP_##op,       \
		   PERF_COUNT_HW_CACHE_RESULT_##res) }
/* A cache's stores and prefetches, and its loads (perf's names). */
#define CACHE_SP(p, c)                                                         \
	CACHE(p "-stores", c, WRITE, ACCESS),                                  \
	    CACHE(p "-store-misses", c, WRITE, MISS),                          \
	    CACHE(p "-prefetches", c, PREFETCH, ACCESS),                       \
	    CACHE(p "-prefetch-misses", c, PREFETCH, MISS)
#define CACHE_ALL(p, c)                                                        \
	CACHE(p "-loads", c, READ, ACCESS),                                    \
	    CACHE(p "-load-misses", c, READ, MISS), CACHE_SP(p, c)

static const struct counter_def counter_defs[] = {
	/* The RC_NR of every run, in enum runner_counter's order. */
	[RC_TASK_CLOCK] = SW("task-clock", TASK_CLOCK),
	[RC_PAGE_FAULTS] = SW("page-faults", PAGE_FAULTS),
	[RC_CONTEXT_SWITCHES] = SW("context-switches", CONTEXT_SWITCHES),
	[RC_CYCLES] = HW("cycles", CPU_CYCLES),
	[RC_INSTRUCTIONS] = HW("instructions", INSTRUCTIONS),
	[RC_DTLB_LOADS] = CACHE("dTLB-loads", DTLB, READ, ACCESS),
	[RC_DTLB_LOAD_MISSES] = CACHE("dTLB-load-misses", DTLB, READ, MISS),
	/* What [run] events may add: perf list's generic events. */
	SW("cpu-clock", CPU_CLOCK),
	SW("cpu-migrations", CPU_MIGRATIONS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", REF_CPU_CYCLES),
	CACHE_SP("dTLB", DTLB),
	CACHE_ALL("L1-dcache", L1D),
	CACHE_ALL("L1-icache", L1I),
	CACHE_ALL("LLC", LL),
	CACHE_ALL("iTLB", ITLB),
	CACHE_ALL("branch", BPU),
	CACHE_ALL("node", NODE),
};

_Static_assert(ARRAY_SIZE(counter_defs) == RUNNER_COUNTER_MAX,
	       "RUNNER_COUNTER_MAX is the size of counter_defs[]");
_Static_assert(RUNNER_COUNTER_MAX <= 64, "a counter set is a uint64_t");

/* perf's other names for some of them (perf list: "cpu-cycles OR cycles"). */
static const struct {
	const char *alias, *name;
} counter_aliases[] = {
	{"cpu-cycles", "cycles"},	  {"branch-instructions", "branches"},
	{"faults", "page-faults"},	  {"cs", "context-switches"},
	{"migrations", "cpu-migrations"}, {"idle-cycles-frontend", "stalled-cycles-frontend"},
	{"idle-cycles-backend", "stalled-cycles-backend"},
};

const char *runner_counter_name(int k)
{
	if (k < 0 || k >= RUNNER_COUNTER_MAX)
		return NULL;
	return counter_defs[k].name;
}

int runner_counter_lookup(const char *name)
{
	for (int i = 0; i < RUNNER_COUNTER_MAX; i++)
		if (!strcmp(counter_defs[i].name, name))
			return i;
	for (size_t i = 0; i < ARRAY_SIZE(counter_aliases); i++)
		if (!strcmp(counter_aliases[i].alias, name))
			return runner_counter_lookup(counter_aliases[i].name);
	return -1;
}

enum runner_counter_kind runner_counter_kind(int k)
{
	if (k < 0 || k >= RUNNER_COUNTER_MAX)
		return RCK_HARDWARE;
	if (counter_defs[k].type == PERF_TYPE_SOFTWARE)
		return counter_defs[k].config == PERF_COUNT_SW_TASK_CLOCK ||
			       counter_defs[k].config == PERF_COUNT_SW_CPU_CLOCK
			   ? RCK_CLOCK
			   : RCK_SOFTWARE;
	return counter_defs[k].type == PERF_TYPE_HW_CACHE ? RCK_CACHE
							  : RCK_HARDWARE;
}

/* perf's raw form: 'r' then a hex digit, or 'r' alone (no digits). */
static bool raw_form(const char *name)
{
	return name[0] == 'r' &&
	       (!name[1] || isxdigit((unsigned char)name[1]));
}

int runner_raw_parse(const char *name, uint64_t *config, char *why,
		     size_t len)
{
	size_t n = 0;

	*config = 0;
	if (name[0] != 'r') {
		snprintf(why, len, "'%s' is not a raw PMU event ('r' and 1-16 "
			 "hex digits, as perf takes it: r003c)", name);
		return -EINVAL;
	}
	for (const char *p = name + 1; *p; p++, n++) {
		if (!isxdigit((unsigned char)*p)) {
			snprintf(why, len, "raw PMU event '%s': '%c' is not a "
				 "hex digit", name, *p);
			return -EINVAL;
		}
		if (n < 16)
			*config = *config << 4 |
				  (uint64_t)(isdigit((unsigned char)*p)
						 ? *p - '0'
						 : tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!n) {
		snprintf(why, len, "raw PMU event 'r' has no hex digits ('r' "
			 "and 1-16 of them, as perf takes it: r003c)");
		return -EINVAL;
	}
	if (n > 16) {
		snprintf(why, len, "raw PMU event '%s' has %zu hex digits: at "
			 "most 16 (a 64-bit config)", name, n);
		return -EINVAL;
	}
	return 0;
}

int runner_raw_add(struct runner_raw_events *raw, const char *name,
		   char *why, size_t len)
{
	uint64_t config;
	int ret = runner_raw_parse(name, &config, why, len);

	if (ret < 0)
		return ret;
	for (int j = 0; j < raw->n; j++) {
		if (raw->config[j] != config)
			continue;
		if (!strcmp(raw->name[j], name))
			snprintf(why, len, "perf event '%s' is listed twice",
				 name);
		else
			snprintf(why, len, "raw PMU event '%s' is '%s' again "
				 "(config 0x%llx)", name, raw->name[j],
				 (unsigned long long)config);
		return -EINVAL;
	}
	if (raw->n == RUNNER_RAW_MAX) {
		snprintf(why, len, "more than %d raw PMU events: at most %d",
			 RUNNER_RAW_MAX, RUNNER_RAW_MAX);
		return -EINVAL;
	}
	raw->config[raw->n] = config;
	snprintf(raw->name[raw->n], sizeof(raw->name[raw->n]), "%s", name);
	raw->n++;
	return 0;
}

int runner_events_parse(const char *list, uint64_t *set,
			struct runner_raw_events *raw, char *why, size_t len)
{
	const char *p = list;
	bool named = false; /* a name since the last comma */
	int total;

	*set = 0;
	memset(raw, 0, sizeof(*raw));
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0; /* no events */
	for (;;) {
		char name[64];
		size_t n = 0;
		int k;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',' || !*p) {
			if (!named) {
				snprintf(why, len, "an empty perf event (a "
					 "comma with no name on one side)");
				return -EINVAL;
			}
			if (!*p)
				break;
			named = false;
			p++;
			continue;
		}
		while (*p && *p != ',' && !isspace((unsigned char)*p)) {
			if (n + 1 < sizeof(name))
				name[n] = *p;
			n++;
			p++;
		}
		name[n < sizeof(name) ? n : sizeof(name) - 1] = '\0';
		named = true;
		k = n < sizeof(name) ? runner_counter_lookup(name) : -1;
		if (k < 0 && raw_form(name)) {
			if (runner_raw_add(raw, name, why, len) < 0)
				return -EINVAL;
			continue;
		}
		if (k < 0) {
			snprintf(why, len,
				 "unknown perf event '%s' (one of perf's "
				 "generic hardware, software or cache "
				 "events, as 'perf list' names them, or a raw "
				 "one: 'r' and 1-16 hex digits)",
				 name);
			return -EINVAL;
		}
		if (*set & RUNNER_COUNTER_BIT(k)) {
			snprintf(why, len, "perf event '%s' is listed twice",
				 name);
			return -EINVAL;
		}
		*set |= RUNNER_COUNTER_BIT(k);
	}
	/* The RC_NR are counted on every run: listing one adds nothing. */
	*set &= ~RUNNER_COUNTERS_DEFAULT;
	total = __builtin_popcountll(*set) + raw->n;
	if (total > RUNNER_EVENTS_MAX) {
		snprintf(why, len, "%d perf events beyond the %d counted "
			 "always: at most %d",
			 total, RC_NR, RUNNER_EVENTS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Open the event TYPE/CONFIG on PID, disabled (runner_counter_open()). */
static int event_open(uint32_t type, uint64_t config, pid_t pid,
		      bool on_exec)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	/* A run's counters follow its child's whole tree; a probe's or a
	 * held one (runner_counters_hold()) stays on the caller. */
	attr.inherit = on_exec;
	attr.enable_on_exec = on_exec;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;

	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	/* Without the right to count kernel work (perf_event_paranoid >= 2
	 * for non-root) retry with user space only, as perf stat does. */
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return errno ? -errno : -EIO;
	return fd;
}

int runner_counter_open(int k, pid_t pid, bool on_exec)
{
	if (k < 0 || k >= RUNNER_COUNTER_MAX)
		return -EINVAL;
	return event_open(counter_defs[k].type, counter_defs[k].config, pid,
			  on_exec);
}

int runner_raw_open(uint64_t config, pid_t pid, bool on_exec)
{
	return event_open(PERF_TYPE_RAW, config, pid, on_exec);
}

void runner_probe_counters(int open_errno[RC_NR])
{
	for (int i = 0; i < RC_NR; i++) {
		int fd = runner_counter_open(i, 0, false);

		if (fd < 0) {
			open_errno[i] = -fd;
		} else {
			open_errno[i] = 0;
			close(fd);
		}
	}
}

void runner_counters_hold(int fds[RUNNER_COUNTER_MAX])
{
	for (int i = 0; i < RUNNER_COUNTER_MAX; i++) {
		fds[i] = runner_counter_open(i, 0, false);
		if (fds[i] < 0)
			fds[i] = -1;
	}
}
