/* SPDX-License-Identifier: MIT */
/*
 * guest-obs.h - what a guest saw of itself: its kernel command line, online
 * CPUs, memory, direct map and userland.  The agent reads the files and
 * fills a struct guest_obs through the parsers below; both ends share the
 * JSON form (the "hello" result's observation fields and the whole "observe"
 * result, docs/protocol.md):
 *
 *	{"cmdline": "console=ttyS0 ...", "cpus_online": 4,
 *	 "mem_total_kb": 1004640,
 *	 "directmap_kb": {"4k": 20480, "2M": 1028096, "1G": null},
 *	 "userland": "busybox",
 *	 "userland_tools": {"sh": "busybox", "ls": "busybox", "dd": "busybox"}}
 *
 * Unsupported is null, never 0: a /proc/meminfo line that is absent (no
 * DirectMap1G without pdpe1gb, no DirectMap lines at all off x86) is null,
 * and so is a file the agent could not read.
 *
 * Userland: how the tools a workload's commands use are provided.  Each of
 * /bin/sh, ls and dd (ls and dd found on the workload PATH) is a tool kind:
 * "busybox" (it resolves to a busybox binary), "gnu" (a GNU coreutils
 * binary), "other" (anything else, dash for /bin/sh on Debian) or null (not
 * found).  "userland" is "busybox" when ls and dd are both busybox, "gnu"
 * when both are GNU coreutils, else "other"; null when neither is found.
 *
 * Pure code: no I/O.  Linked into the static guest agent: libc and jansson.
 */
#ifndef VMTAX_GUEST_OBS_H
#define VMTAX_GUEST_OBS_H

#include <jansson.h>
#include <stddef.h>

/* The direct map page sizes, in the order of their JSON keys. */
enum guest_directmap { GUEST_DM_4K, GUEST_DM_2M, GUEST_DM_1G, GUEST_DM_N };
/* JSON key ("4k", "2M", "1G") and /proc/meminfo key ("DirectMap4k", ...). */
extern const char *const guest_directmap_key[GUEST_DM_N];
extern const char *const guest_directmap_meminfo[GUEST_DM_N];

enum guest_tool {
	GUEST_TOOL_MISSING, /* null */
	GUEST_TOOL_BUSYBOX,
	GUEST_TOOL_GNU,
	GUEST_TOOL_OTHER,
};
/* The tools "userland_tools" names, in this order. */
enum { GUEST_TOOL_SH, GUEST_TOOL_LS, GUEST_TOOL_DD, GUEST_TOOL_N };
extern const char *const guest_tool_name[GUEST_TOOL_N];

/* -1 (null in JSON) wherever a value is unknown or absent. */
struct guest_obs {
	const char *cmdline; /* borrowed; NULL = unknown */
	long long cpus_online;
	long long mem_total_kb;
	long long directmap_kb[GUEST_DM_N];
	enum guest_tool tools[GUEST_TOOL_N];
};

/* All unknown. */
void guest_obs_init(struct guest_obs *o);

/*
 * The value in kB of the /proc/meminfo line "KEY:   N kB" in MEMINFO (the
 * whole file).  0 with *KB set; -ENOENT when there is no such line; -EINVAL
 * when the line is not "N kB".
 */
int meminfo_kb(const char *meminfo, const char *key, long long *kb);

/*
 * How many CPUs a kernel cpu list names ("0-3,5" -> 5, "0" -> 1, "" or
 * "\n" -> 0).  -EINVAL for anything else (a reversed range, junk).
 */
long long cpulist_count(const char *list);

/*
 * The kind of one tool: RESOLVED is its path with links resolved (NULL when
 * not found); DATA/LEN the start of the file (may be NULL): a busybox binary
 * is recognised by its name or the "BusyBox v" banner, GNU coreutils by
 * "GNU coreutils".
 */
enum guest_tool guest_tool_kind(const char *resolved, const void *data,
				size_t len);
/* "busybox", "gnu", "other" or NULL for missing. */
const char *guest_tool_str(enum guest_tool t);
/* The overall "userland" (see above) of TOOLS, or NULL. */
const char *guest_userland(const enum guest_tool tools[GUEST_TOOL_N]);

/* The JSON form (new reference). */
json_t *guest_obs_to_json(const struct guest_obs *o);
/*
 * Check that OBJ (a hello or observe result) carries well-formed
 * observation fields: each is present with its type or null.  0, or
 * -EPROTO with what is wrong in WHY.
 */
int guest_obs_check(const json_t *obj, char *why, size_t len);

#endif
