/* SPDX-License-Identifier: MIT */
/* agent-observe.c - what the guest sees now (agent-observe.h). */
#include "agent-observe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest-obs.h"
#include "util.h"

#define CPU_ONLINE "/sys/devices/system/cpu/online"
/* Enough for any /proc/meminfo and /proc/cmdline. */
#define PROC_FILE_MAX (256 * 1024)
/* How much of a tool's binary is searched for its banner. */
#define TOOL_READ_MAX (8 * 1024 * 1024)
/* The PATH tools are looked up in when the agent has none. */
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
/* The first MAX bytes of PATH in a new buffer; NULL if unreadable. */
static char *read_head(const char *path, size_t max, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xmalloc(max);
	while (n < max) {
		ssize_t r = read(fd, buf + n, max - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* PROG on PATH (or an absolute PROG) with its links resolved, or NULL. */
static char *tool_resolve_dup(const char *prog)
{
	const char *path = getenv("PATH"), *p;

	if (prog[0] == '/')
		return realpath(prog, NULL);
	if (!path || !*path)
		path = DEFAULT_PATH;
	for (p = path; *p;) {
		size_t n = strcspn(p, ":");
		char file[PATH_MAX];

		if (n && n < sizeof(file) - strlen(prog) - 2) {
			snprintf(file, sizeof(file), "%.*s/%s", (int)n, p,
				 prog);
			if (access(file, X_OK) == 0)
				return realpath(file, NULL);
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

static enum guest_tool tool_kind(const char *prog)
{
	char *resolved = tool_resolve_dup(prog), *data = NULL;
	const char *base;
	enum guest_tool k;
	size_t len = 0;

	/* A busybox is known by its name: spare reading 2 MiB of it. */
	base = resolved ? strrchr(resolved, '/') : NULL;
	if (resolved && strncmp(base ? base + 1 : resolved, "busybox", 7))
		data = read_head(resolved, TOOL_READ_MAX, &len);
	k = guest_tool_kind(resolved, data, len);
	free(data);
	free(resolved);
	return k;
}

/* What the guest sees now (docs/protocol.md, "observe"). */
json_t *agent_observe_new(void)
{
	static const char *const progs[GUEST_TOOL_N] = {"/bin/sh", "ls", "dd"};
	char *cmdline = NULL, *meminfo = NULL, online[4096];
	struct guest_obs o;
	long long v;
	json_t *j;
	size_t i;

	guest_obs_init(&o);
	if (read_file("/proc/cmdline", PROC_FILE_MAX, &cmdline, NULL) == 0)
		o.cmdline = strstrip(cmdline);
	if (read_line(CPU_ONLINE, online, sizeof(online)) == 0 &&
	    (v = cpulist_count(online)) >= 0)
		o.cpus_online = v;
	if (read_file("/proc/meminfo", PROC_FILE_MAX, &meminfo, NULL) == 0) {
		if (meminfo_kb(meminfo, "MemTotal", &v) == 0)
			o.mem_total_kb = v;
		for (i = 0; i < GUEST_DM_N; i++)
			if (meminfo_kb(meminfo, guest_directmap_meminfo[i],
				       &v) == 0)
				o.directmap_kb[i] = v;
	}
	for (i = 0; i < GUEST_TOOL_N; i++)
		o.tools[i] = tool_kind(progs[i]);
	j = guest_obs_to_json(&o);
	free(cmdline);
	free(meminfo);
	return j;
}

