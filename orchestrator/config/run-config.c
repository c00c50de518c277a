/* SPDX-License-Identifier: MIT */
/*
 * run-config.c - the run config's key table: run_keys[], every key of
 * configs/NAME.ini declared once with its default, bounds, help and axis,
 * and the rules that go with it (a key's check, and the finish hooks that
 * look at several keys together).  Reading a config with it is
 * run-config-load.c; describing it, run-config-doc.c.
 */
#include "run-config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "quiet.h"
#include "runner.h"
#include "image.h"
#include "lab.h"
#include "matrix.h"
#include "thp.h"
#include "util.h"
#include "vm.h"

#define C(f) offsetof(struct run_config, f)
#define GIB (1024.0 * 1024 * 1024)
/* The key was set: the bool field F says so. */
#define WAS_SET(f) .set_flag = INI_FLAG(C(f))
/* The key is an axis (matrix.h struct axis_spec). */
#define AXIS(...) .ext = &(const struct axis_spec){__VA_ARGS__}
#define CELL(f, how) .cell = offsetof(struct cell, f), .as = how
#define KEY(sec, nm, ty, field, dflt, ...)                                     \
	{                                                                      \
		.section = sec, .name = nm, .type = ty, .offset = C(field),    \
		.def = dflt, __VA_ARGS__                                       \
	}

static const char *const images[] = {"tiny", "debian", NULL};
static const char *const accels[] = {"auto", "kvm", "tcg", NULL};
/* [run] order: sampling.md; run_rounds() is "interleaved". */
static const char *const orders[] = {"interleaved", "cells", NULL};
static const char *const plans[] = {"fixed", "auto", NULL};
static const char *const governors[] = {RUN_GOVERNOR_KEEP, "performance", NULL};
static const char *const onoff[] = {"on", "off", NULL};
enum { ONOFF_ON }; /* the index of "on" in onoff */

static int check_run_name(const char *v, char *msg, size_t len)
{
	if (is_safe_name(v))
		return 0;
	snprintf(msg, len,
		 "bad run name '%s' (use letters, digits, '.', '_', '-')", v);
	return -EINVAL;
}

static int check_workload_name(const char *v, char *msg, size_t len)
{
	if (is_safe_name(v))
		return 0;
	snprintf(msg, len, "bad workload name '%s'", v);
	return -EINVAL;
}

static int check_cpu_features(const char *v, char *msg, size_t len)
{
	if (vm_cpu_features_valid(v))
		return 0;
	snprintf(msg, len,
		 "bad CPU features '%s' (want +name or -name, e.g. +pdpe1gb)", v);
	return -EINVAL;
}

static int check_file(const char *v, char *msg, size_t len)
{
	if (*v)
		return 0;
	snprintf(msg, len, "an empty file name (give a path, or auto)");
	return -EINVAL;
}

static int check_uri(const char *v, char *msg, size_t len)
{
	char why[256];

	if (vm_uri_check(v, why, sizeof(why)) == 0)
		return 0;
	snprintf(msg, len, "refusing libvirt URI '%s': %s", v, why);
	return -EINVAL;
}

static int check_pin(const char *v, char *msg, size_t len)
{
	return pin_value_check(v, msg, len);
}

/* [guest] numa: none, or a node number (its existence: preflight). */
static int check_numa(const char *v, char *msg, size_t len)
{
	char *end;
	long n;

	if (!strcmp(v, "none"))
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || errno ||
	    n > RUN_NUMA_NODE_MAX) {
		snprintf(msg, len, "numa: '%s' is not 'none' or a NUMA node number "
			 "(0..%d)", v, RUN_NUMA_NODE_MAX);
		return -EINVAL;
	}
	return 0;
}

/* A pin list naming a CPU this host does not have online is refused here,
 * at its line, before anything boots. */
static int finish_pin(const struct ini_key *k, void *obj,
		      const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;
	struct cpuset online;
	struct pin_plan *plan;
	int ret;

	(void)k;
	(void)o;
	if (!strcmp(c->pin, "none") || !strcmp(c->pin, "auto"))
		return 0;
	if (host_cpus_online("", &online) < 0) {
		snprintf(msg, len, "cannot tell which CPUs are online");
		return -EINVAL;
	}
	plan = xcalloc(1, sizeof(*plan));
	ret = pin_plan_make(c->pin, 1, &online, plan, msg, len);
	free(plan);
	return ret;
}

/* [run] events: perf's generic event names and raw PMU events
 * (lib/runner.h). */
_Static_assert(RUNNER_RAW_MAX == 4, "[run] events' help says 'at most 4'");
static int check_events(const char *v, char *msg, size_t len)
{
	struct runner_raw_events raw;
	uint64_t set;

	return runner_events_parse(v, &set, &raw, msg, len);
}

static int finish_events(const struct ini_key *k, void *obj,
			 const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;

	(void)k;
	(void)o;
	return runner_events_parse(c->events_text, &c->events, &c->raw_events,
				   msg, len);
}

/* "2%" or "0.5 %": a relative half-width, above 0 and below 100%. */
static int parse_target(const char *v, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	while (*end == ' ')
		end++;
	if (errno || end == v || *end != '%' || end[1] || !(x > 0) ||
	    !(x < 100))
		return -EINVAL;
	*out = x / 100;
	return 0;
}

static int check_target(const char *v, char *msg, size_t len)
{
	double x;

	if (!*v || parse_target(v, &x) == 0)
		return 0;
	snprintf(msg, len,
		 "bad target '%s' (want a percentage above 0 and below 100, "
		 "e.g. 2%%)",
		 v);
	return -EINVAL;
}

/*
 * target, repeat and max_repeat together (docs/sampling.md): the target
 * as a fraction, max_repeat defaulting to repeat (a fixed number of
 * samples, as without a target) and never below it.
 */
static int finish_max_repeat(const struct ini_key *k, void *obj,
			     const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;

	c->target = 0;
	if (*c->target_text)
		parse_target(c->target_text, &c->target);
	(void)k;
	(void)o;
	if (!c->max_repeat_set) {
		c->max_repeat = c->repeat;
		return 0;
	}
	if (c->max_repeat < c->repeat) {
		snprintf(msg, len, "max_repeat = %ld is below repeat = %ld",
			 c->max_repeat, c->repeat);
		return -EINVAL;
	}
	return 0;
}

/*
 * How long a sample's agent may say nothing before its guest is taken for
 * hung: unset, a few heartbeats and a margin for a slow (TCG) guest.
 */
static int finish_silence(const struct ini_key *k, void *obj,
			  const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;

	(void)k;
	(void)o;
	if (!c->silence_set) {
		c->silence_s = c->heartbeat_s * 4 + 30;
		return 0;
	}
	if (c->silence_s < 2 * c->heartbeat_s) {
		snprintf(msg, len,
			 "silence_timeout = %g is under two heartbeats "
			 "(heartbeat = %g): a working guest would be taken "
			 "for hung",
			 c->silence_s, c->heartbeat_s);
		return -EINVAL;
	}
	return 0;
}

/* Replicas (an A/A run) are compared round by round. */
static int finish_replicas(const struct ini_key *k, void *obj,
			   const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;

	(void)k;
	(void)o;
	if (strcmp(c->order, "cells") || c->replicas < 2)
		return 0;
	snprintf(msg, len,
		 "replicas = %ld needs order = interleaved (the replicas of a "
		 "cell are compared round by round)",
		 c->replicas);
	return -EINVAL;
}

/*
 * boots, order and replicas together (docs/sampling.md).  boots = 0 is
 * "auto": 2 for the guest cells of interleaved rounds (boots are a level
 * of the repetition model), 1 for order = cells.  More boots than samples,
 * or replicas (an A/A run) outside interleaved rounds, are refused.
 */
static int finish_boots(const struct ini_key *k, void *obj,
			const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;
	bool cells = !strcmp(c->order, "cells");

	(void)k;
	(void)o;
	if (c->boots > c->repeat) {
		snprintf(msg, len,
			 "boots = %ld needs at least as many samples (repeat "
			 "= %ld)",
			 c->boots, c->repeat);
		return -EINVAL;
	}
	c->plan_auto = !strcmp(c->plan, "auto");
	if (c->plan_auto && cells) {
		snprintf(msg, len, "plan = auto needs order = interleaved");
		return -EINVAL;
	}
	if (c->plan_auto && c->boots) {
		snprintf(msg, len,
			 "plan = auto chooses the boots: drop boots = %ld (or "
			 "give boots = 0: --set run.boots=0), or bound them "
			 "with max_boots",
			 c->boots);
		return -EINVAL;
	}
	if (c->max_boots < 2 && c->plan_auto) {
		snprintf(msg, len, "plan = auto needs max_boots >= 2");
		return -EINVAL;
	}
	c->boots_auto = c->boots == 0;
	if (c->boots_auto)
		c->boots = cells || c->repeat < 2 ? 1 : 2;
	return 0;
}

/*
 * ept/npt are the vendors' spellings of the paging axis: on = hw, off =
 * shadow.  Given once, they become [matrix] paging.
 */
static int finish_paging_spelling(const struct ini_key *k, void *obj,
				  const struct ini_origin *o, char *msg,
				  size_t len)
{
	struct run_config *c = obj;
	const struct ini_list *l =
	    (const struct ini_list *)((char *)obj + k->offset);
	bool npt = l == &c->npt;
	enum paging p;
	size_t i;

	(void)o;
	if (!(npt ? c->npt_set : c->ept_set))
		return 0;
	if (c->paging_set) {
		snprintf(msg, len,
			 "give the paging axis once: 'paging', 'ept' or 'npt'");
		return -EINVAL;
	}
	if (npt && c->ept_set) {
		snprintf(msg, len, "give either 'ept' or 'npt', not both");
		return -EINVAL;
	}
	ini_list_free(&c->paging);
	c->paging.v = xcalloc(l->n, sizeof(char *));
	c->paging.val = xcalloc(l->n, sizeof(*c->paging.val));
	for (i = 0; i < l->n; i++) {
		p = l->val[i].n == ONOFF_ON ? PAGING_HW : PAGING_SHADOW;
		c->paging.v[i] = xstrdup(paging_name(p));
		c->paging.val[i].n = p - 1; /* choices are paging_names + 1 */
	}
	c->paging.n = l->n;
	c->paging_by = k;
	return 0;
}

/* Paging is in cell ids when the config gives it, in any spelling. */
static int finish_paging(const struct ini_key *k, void *obj,
			 const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;

	(void)k;
	(void)o;
	(void)msg;
	(void)len;
	c->paging_axis = c->paging_set || c->ept_set || c->npt_set;
	return 0;
}

static int check_fleet_dest(const char *v, char *msg, size_t len)
{
	char why[384];

	if (fleet_dest_check(v, why, sizeof(why)) == 0)
		return 0;
	snprintf(msg, len, "bad ssh destination: %s", why);
	return -EINVAL;
}

/* The command each host runs: a path or a name on its PATH, one word. */
static int check_fleet_vmtax(const char *v, char *msg, size_t len)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._/+-",
			    v[i]))
			break;
	if (*v && *v != '-' && !v[i])
		return 0;
	snprintf(msg, len,
		 "bad vmtax command '%s' (a path or a name: letters, digits, "
		 "'.', '_', '/', '+', '-'; not starting with '-')",
		 v);
	return -EINVAL;
}

/* An ssh config file: a path of printable characters. */
static int check_fleet_ssh_config(const char *v, char *msg, size_t len)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			break;
	if (*v && !v[i])
		return 0;
	snprintf(msg, len, "bad ssh config path (an empty one, or one with a "
			   "control character)");
	return -EINVAL;
}

/* Two entries naming one host (root@box and box) are one machine. */
static int fleet_hosts_distinct(const struct ini_list *l, char *msg,
				size_t len)
{
	size_t i, j;

	if (l->n > FLEET_HOSTS_MAX) {
		snprintf(msg, len, "%zu hosts (at most %d)", l->n,
			 FLEET_HOSTS_MAX);
		return -EINVAL;
	}
	for (i = 0; i < l->n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(fleet_dest_host(l->v[i]),
				    fleet_dest_host(l->v[j]))) {
				snprintf(msg, len,
					 "'%s' and '%s' name the same host",
					 l->v[j], l->v[i]);
				return -EINVAL;
			}
	return 0;
}

/*
 * [fleet] hosts and [run] executor together: hosts make the executor
 * "fleet" unless it is set (a fleet host's own run is told executor =
 * local: the hosts are then unused, as [lab] is but for the lab);
 * executor = fleet needs hosts.
 */
static int finish_fleet(const struct ini_key *k, void *obj,
			const struct ini_origin *o, char *msg, size_t len)
{
	struct run_config *c = obj;

	(void)k;
	(void)o;
	if (c->fleet_hosts.n && !c->executor_set) {
		free(c->executor);
		c->executor = xstrdup(FLEET_EXEC);
	}
	if (!strcmp(c->executor, FLEET_EXEC) && !c->fleet_hosts.n) {
		snprintf(msg, len,
			 "executor = " FLEET_EXEC " needs [fleet] hosts (or "
			 "--host DEST)");
		return -EINVAL;
	}
	return fleet_hosts_distinct(&c->fleet_hosts, msg, len);
}

static const struct ini_key run_keys[] = {
    KEY("run", "name", INI_STR, name, "run", .check = check_run_name,
	.help = "run name (letters, digits, '.', '_', '-')"),
    KEY("run", "repeat", INI_INT, repeat, "3", .min = 1, .max = 1000,
	.help = "measured samples per cell"),
    KEY("run", "target", INI_STR, target_text, "", .check = check_target,
	.help = "stop a cell when the half-width of its 95% slowdown "
		"interval is at most this, e.g. 2% (empty: repeat samples)"),
    KEY("run", "max_repeat", INI_INT, max_repeat, NULL, .min = 1, .max = 10000,
	.finish = finish_max_repeat, WAS_SET(max_repeat_set),
	.help = "samples a cell may take with a target (default: repeat)"),
    KEY("run", "order", INI_ENUM, order, "interleaved", .choices = orders,
	.help = "interleaved: every round samples each cell once, shuffled, "
		"guests kept up (groups where host settings differ); cells: "
		"one cell after the other"),
    KEY("run", "executor", INI_ENUM, executor, "local",
	.choices = cell_exec_places, WAS_SET(executor_set),
	.help = "where the matrix runs: local (this host: its bare metal, "
		"guests of its KVM or TCG), lab (inside a lab host, the "
		"[lab] keys: emulated AMD-V, real KVM; docs/lab.md) or fleet "
		"(on each of the [fleet] hosts, over ssh; docs/fleet.md)"),
    KEY("run", "seed", INI_INT, seed, "0", .min = 0, .max = 2147483647L,
	.help = "seed of the rounds' shuffle and the bootstrap (0: from the "
		"clock; the one used is recorded)"),
    KEY("run", "replicas", INI_INT, replicas, "1", .min = 1, .max = 2,
	.finish = finish_replicas,
	.help = "copies of every cell in the same rounds (2: an A/A run; "
		"vmtax calibrate sets it)"),
    KEY("run", "plan", INI_ENUM, plan, "fixed", .choices = plans,
	.help = "auto: a sizing pass (2 boots x 2 samples) measures each "
		"level's cost and variance, then picks samples per boot and "
		"boots (Kalibera-Jones) within max_repeat and max_boots"),
    KEY("run", "max_boots", INI_INT, max_boots, "8", .min = 1, .max = 1000,
	.help = "the most boots plan = auto may give a guest cell"),
    KEY("run", "boots", INI_INT, boots, "0", .min = 0, .max = 1000,
	.finish = finish_boots,
	.help = "fresh guests a guest cell's samples are spread over (0: "
		"auto, 2 with order = interleaved; > 1: boot means are the "
		"units of its interval)"),
    KEY("run", "warmup", INI_INT, warmup, "0", .min = 0, .max = 100,
	.help =
	    "unrecorded runs per cell before the samples (fault-in, caches)"),
    KEY("run", "baseline", INI_STR, baseline, "",
	.help = "cell id slowdowns are relative to (default: first cell)"),
    KEY("run", "timeout", INI_DOUBLE, timeout_s, "3600", .min = 1,
	.max = 7 * 86400, .help = "seconds one sample may take"),
    KEY("run", "boot_timeout", INI_DOUBLE, boot_timeout_s, "300", .min = 1,
	.max = 3600, .help = "seconds from domain start to the agent's hello"),
    KEY("run", "heartbeat", INI_DOUBLE, heartbeat_s, "5", .min = 0.5,
	.max = 600, .help = "seconds between agent heartbeats during a sample"),
    KEY("run", "silence_timeout", INI_DOUBLE, silence_s, NULL, .min = 1,
	.max = 3600, .finish = finish_silence, WAS_SET(silence_set),
	.help = "seconds a sample's agent may say nothing (no heartbeat, no "
		"reply) before its guest is taken for hung (default: 4 "
		"heartbeats + 30; at least 2 heartbeats)"),
    KEY("run", "retries", INI_INT, retries, "0", .min = 0, .max = 10,
	.help = "extra attempts for a failed sample (a dead or hung guest is "
		"replaced by a fresh one)"),
    KEY("run", "max_failures", INI_INT, max_failures, "10", .min = 1,
	.max = 10000, .help = "failed samples after which the run stops"),
    KEY("run", "quiet_wait", INI_DOUBLE, quiet_wait_s, "0", .min = 0,
	.max = 3600,
	.help = "seconds to wait before a sample for a quiet host (0: do "
		"not wait); past it the sample is taken and flagged busy"),
    KEY("run", "quiet_others", INI_INT, quiet_others, "0", .min = 0,
	.max = 4096,
	.help = "other runnable tasks a quiet host may have (busy: more in "
		"each of 5 reads 20 ms apart)"),
    KEY("run", "governor", INI_ENUM, governor, RUN_GOVERNOR_KEEP,
	.choices = governors,
	.help = "cpufreq governor of this host's CPUs for the run: keep (touch "
		"nothing) or performance (every cpufreq policy set before the "
		"cells, put back after, journalled; a policy that does not "
		"offer it refuses the run; a host without cpufreq, as most "
		"VMs, is recorded as 'no cpufreq')"),
    KEY("run", "profile", INI_BOOL, profile, "off",
	.help = "one more, unrecorded run per cell under sampling: folded "
		"stacks in profiles/, a differential profile in the report "
		"(docs/profile.md)"),
    KEY("run", "profile_hz", INI_DOUBLE, profile_hz, "997", .min = 10,
	.max = 20000, WAS_SET(profile_hz_set),
	.help = "samples per second of the profile run (a TCG "
		"guest's default is 127: a sample costs 100 us "
		"or more there)"),
    KEY("run", "events", INI_STR, events_text, "", .check = check_events,
	.finish = finish_events,
	.help = "perf events to count beyond task-clock, page-faults, "
		"context-switches, cycles, instructions, dTLB-loads and "
		"dTLB-load-misses, as 'perf stat -e' names them, e.g. "
		"'dTLB-store-misses, major-faults' (perf's generic hardware, "
		"software and cache events), or raw PMU events as perf takes "
		"them, 'r' and 1-16 hex digits (r003c: umask 00, event 3c "
		"on x86; at most 4); one the CPU or kernel lacks is "
		"<not supported>, never 0"),
    KEY("run", "cells", INI_INT, cells, NULL, .shape = INI_LIST, .min = 0,
	.max = MATRIX_MAX_CELLS - 1, .hidden = true,
	.help = "only these cells of the matrix, by index from 0 (the others "
		"are skipped: a split fleet's share, set by the fleet)"),
    KEY("guest", "image", INI_ENUM, image, "tiny", .shape = INI_AXIS,
	.choices = images, .help = "guest image kind",
	AXIS(.slot = SLOT_IMAGE, .kind = AXIS_GUEST_KEY,
	     .applies = APPLIES_GUEST, CELL(image, CELL_TEXT))),
    KEY("guest", "vcpus", INI_INT, vcpus, "2", .shape = INI_AXIS, .min = 1,
	.max = 512, .help = "virtual CPUs",
	AXIS(.slot = SLOT_VCPUS, .kind = AXIS_GUEST_KEY,
	     .applies = APPLIES_GUEST, CELL(vcpus, CELL_LONG))),
    KEY("guest", "memory", INI_SIZE, memory, "2G", .shape = INI_AXIS,
	.min = 512.0 * 1024 * 1024, .max = 4096 * GIB,
	.help = "guest memory (guests under 512M start with THP off)",
	AXIS(.slot = SLOT_MEMORY, .kind = AXIS_GUEST_KEY,
	     .applies = APPLIES_GUEST, CELL(memory, CELL_U64))),
    KEY("guest", "accel", INI_ENUM, accel, "auto", .choices = accels,
	.help = "kvm needs vmx or svm; auto falls back to tcg"),
    KEY("guest", "kernel", INI_STR, kernel, "auto", .shape = INI_AXIS,
	.check = check_file,
	.help = "guest kernel (auto: the newest of vmtax's kernel cache, else "
		"of /boot)",
	AXIS(.slot = SLOT_KERNEL, .kind = AXIS_GUEST_KEY,
	     .applies = APPLIES_GUEST, CELL(kernel, CELL_TEXT),
	     .base_name = true)),
    KEY("guest", "initrd", INI_STR, initrd, "auto", .shape = INI_AXIS,
	.check = check_file,
	.help = "guest initramfs (auto: the tiny image for that kernel)",
	AXIS(.slot = SLOT_INITRD, .kind = AXIS_GUEST_KEY,
	     .applies = APPLIES_GUEST, CELL(initrd, CELL_TEXT),
	     .base_name = true)),
    KEY("guest", "uri", INI_STR, uri, "qemu:///system", .check = check_uri,
	.help = "libvirt connection URI: this host's (qemu:///system, "
		"qemu:///session) or qemu+ssh://USER@HOST[:PORT]/system "
		"(guest cells only, on that host; docs/fleet.md); no +ext, "
		"no parameters"),
    KEY("guest", "cmdline", INI_STR, cmdline, "", .shape = INI_AXIS,
	.help = "extra guest kernel command line (a comma needs quotes)",
	AXIS(.slot = SLOT_CMDLINE, .kind = AXIS_GUEST_KEY,
	     .applies = APPLIES_GUEST, CELL(cmdline, CELL_TEXT))),
    KEY("guest", "cpu_features", INI_STR, cpu_features, "",
	.check = check_cpu_features,
	.help = "CPU features to add or remove, e.g. '+pdpe1gb' (1G pages "
		"under TCG) or '-la57'"),
    KEY("guest", "pin", INI_STR, pin, "none", .check = check_pin,
	.finish = finish_pin,
	.help = "pin vCPUs and emulator threads: none, auto (vCPU i on online "
		"CPU i mod n, emulator on the last), or a CPU list (same rule "
		"over it)"),
    KEY("guest", "numa", INI_STR, numa, "none", .check = check_numa,
	.help = "bind the guest's vCPUs (to the node's CPUs) and memory "
		"(strictly) to this host's NUMA node: none, or a node number "
		"(one the host does not have is refused before the run)"),
    KEY("lab", "cpu", INI_ENUM, lab_cpu, LAB_CPU_DEFAULT,
	.choices = lab_cpu_names,
	.help = "executor = lab: QEMU CPU model of the lab host (TCG-emulated "
		"AMD with SVM)"),
    KEY("lab", "cpu_features", INI_STR, lab_cpu_features, "+svm +npt",
	.check = check_cpu_features,
	.help = "executor = lab: the lab host's CPU features (svm and npt are "
		"required)"),
    KEY("lab", "vcpus", INI_INT, lab_vcpus, "2", .min = 1, .max = 64,
	.help = "executor = lab: the lab host's vCPUs"),
    KEY("lab", "memory", INI_SIZE, lab_memory, "4G", .min = 1ULL << 30,
	.max = 1ULL << 40, .help = "executor = lab: the lab host's memory"),
    KEY("lab", "restore", INI_BOOL, lab_restore, "on",
	.help = "executor = lab: start the lab from a saved state of a lab "
		"that was ready (seconds), saved on first use; off: boot it "
		"every time"),
    KEY("lab", "image_from", INI_ENUM, lab_image_from, "auto",
	.choices = image_from_names,
	.help = "executor = lab: where the lab image's root file system comes "
		"from: auto (this host's packages where it has them, else "
		"debootstrap), packages (or fail), debootstrap (minutes, the "
		"network)"),
    KEY("fleet", "hosts", INI_STR, fleet_hosts, NULL, .shape = INI_LIST,
	.check = check_fleet_dest, .finish = finish_fleet,
	.help = "ssh destinations (USER@HOST or an alias of your ssh config) "
		"that each run the matrix with a vmtax of their own; makes "
		"[run] executor fleet (docs/fleet.md)"),
    KEY("fleet", "mode", INI_ENUM, fleet_mode, "each", .choices = fleet_modes,
	.help = "each: every host runs the whole matrix (host is the outermost "
		"level); split: like hosts share its cells, each cell run on "
		"one host (round robin)"),
    KEY("fleet", "vmtax", INI_STR, fleet_vmtax, "vmtax",
	.check = check_fleet_vmtax,
	.help = "the vmtax command on each host (a name on its PATH, or a "
		"path); it must be this vmtax's version and build"),
    KEY("fleet", "connect_timeout", INI_DOUBLE, fleet_connect_timeout_s, "10",
	.min = 1, .max = 600,
	.help = "seconds ssh may take to connect to a host (ConnectTimeout)"),
    KEY("fleet", "ssh_config", INI_STR, fleet_ssh_config, NULL,
	.check = check_fleet_ssh_config,
	.help = "an ssh config file for every ssh and scp of the run (ssh -F; "
		"then ssh reads no other): Host aliases with their ports, keys "
		"and known_hosts; none: ssh's own"),
    KEY("fleet", "allow_unlike", INI_BOOL, fleet_allow_unlike, "off",
	.help = "mode = split across hosts that differ: on runs it anyway "
		"(each difference warned, recorded in results.json's "
		"fleet.unlike and said in the report); off: refused"),
    KEY("matrix", AXIS_NAME_WHERE, INI_ENUM, where, "bare-metal, guest",
	.shape = INI_LIST, .choices = where_names, .help = "where cells run",
	AXIS(.slot = SLOT_WHERE, .kind = AXIS_WHERE, .applies = APPLIES_ALL,
	     .as = CELL_SET_BY_MATRIX)),
    KEY("matrix", AXIS_ENV_HOST_THP, INI_ENUM, host_thp, "always, never",
	.shape = INI_LIST, .choices = thp_enabled_modes, .help = "host THP modes",
	AXIS(.slot = SLOT_HOST_THP, .name = AXIS_NAME_HOST_THP, .kind = AXIS_CLASSIC,
	     .applies = APPLIES_ALL, CELL(host_thp, CELL_TEXT))),
    KEY("matrix", AXIS_ENV_GUEST_THP, INI_ENUM, guest_thp, "always, never",
	.shape = INI_LIST, .choices = thp_enabled_modes, .help = "guest THP modes",
	AXIS(.slot = SLOT_GUEST_THP, .name = AXIS_NAME_GUEST_THP, .kind = AXIS_CLASSIC,
	     .applies = APPLIES_GUEST, CELL(guest_thp, CELL_TEXT))),
    KEY("matrix", AXIS_NAME_PAGING, INI_ENUM, paging, "auto", .shape = INI_LIST,
	.choices = paging_names + 1, WAS_SET(paging_set),
	.finish = finish_paging,
	.help =
	    "guest paging: hw (EPT/NPT), shadow, tcg, auto (what accel gives)",
	AXIS(.slot = SLOT_PAGING, .kind = AXIS_CLASSIC,
	     .applies = APPLIES_GUEST, CELL(paging, CELL_ENUM),
	     .in_id = INI_FLAG(C(paging_axis)))),
    KEY("matrix", "ept", INI_ENUM, ept, NULL, .shape = INI_LIST,
	.choices = onoff, .finish = finish_paging_spelling, WAS_SET(ept_set),
	.help = "Intel spelling of paging: on = hw, off = shadow"),
    KEY("matrix", "npt", INI_ENUM, npt, NULL, .shape = INI_LIST,
	.choices = onoff, .finish = finish_paging_spelling, WAS_SET(npt_set),
	.help = "AMD spelling of paging: on = hw, off = shadow"),
    KEY("matrix", AXIS_NAME_BACKING, INI_ENUM, backing, "thp",
	.shape = INI_LIST,
	.choices = backing_names + 1, WAS_SET(backing_set),
	.help = "guest RAM backing",
	AXIS(.slot = SLOT_BACKING, .kind = AXIS_CLASSIC,
	     .applies = APPLIES_GUEST, CELL(backing, CELL_ENUM),
	     .in_id = INI_FLAG(C(backing_set)))),
    KEY("matrix", "exclude", INI_STR, exclude, NULL, .shape = INI_LIST,
	.help = "cell ids to leave out (fnmatch patterns)"),
    KEY("workload", "name", INI_STR, workload_name, NULL,
	.check = check_workload_name,
	.help = "workload (configs/workloads/NAME.ini)"),
    KEY("workload", "dir", INI_STR, workload_dir, "workloads",
	.help = "workload directory, relative to the config file"),
};

static const char *const run_extra[] = {"workload+", "guest+", "host+", NULL};
static const struct ini_schema run_schema = {
    run_keys,
    ARRAY_SIZE(run_keys),
    run_extra,
};

const struct ini_schema *run_config_schema(void)
{
	return &run_schema;
}
