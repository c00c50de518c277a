/* SPDX-License-Identifier: MIT */
/* The reading half of quiet.h: ROOT/proc and ROOT/sys into host_quiet. */
#include "quiet.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Threads of PID in state R, or 0 when it has gone. */
static long running_threads(const char *root, int pid)
{
	char dir[512], path[1024], *text;
	struct dirent *de;
	long n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/proc/%d/task", root, pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", dir, de->d_name);
		if (read_file(path, 4096, &text, NULL) < 0)
			continue; /* the thread ended meanwhile */
		n += quiet_parse_task_state(text) == 'R';
		free(text);
	}
	closedir(d);
	return n;
}

static void read_governor(const char *root, struct host_quiet *q)
{
	char path[512];

	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		 root);
	if (read_line(path, q->governor, sizeof(q->governor)) < 0) {
		q->governor[0] = '\0';
		snprintf(q->governor_why, sizeof(q->governor_why),
			 "no cpufreq scaling governor (no cpufreq driver: "
			 "a virtual machine, or frequency not OS-controlled)");
	}
}

static void read_boost(const char *root, struct host_quiet *q)
{
	char path[512], line[16];

	q->boost = -1;
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpufreq/boost",
		 root);
	if (read_line(path, line, sizeof(line)) == 0 &&
	    (!strcmp(line, "0") || !strcmp(line, "1"))) {
		q->boost = line[0] == '1';
		return;
	}
	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/cpu/intel_pstate/no_turbo", root);
	if (read_line(path, line, sizeof(line)) == 0 &&
	    (!strcmp(line, "0") || !strcmp(line, "1"))) {
		q->boost = line[0] == '0';
		return;
	}
	snprintf(q->boost_why, sizeof(q->boost_why),
		 "neither cpufreq/boost nor intel_pstate/no_turbo exists");
}

int host_quiet_read(const char *root, const int *pids, size_t npids,
		    long max_others, struct host_quiet *q)
{
	const struct timespec gap = {0, QUIET_GAP_MS * 1000000L};
	char path[512], *text = NULL;
	int i, ret = 0;
	size_t k;

	memset(q, 0, sizeof(*q));
	q->procs_running = -1;
	q->others_min = -1;
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	for (i = 0; i < QUIET_READS; i++) {
		long running, own;

		if (i)
			nanosleep(&gap, NULL);
		if ((ret = read_file(path, 1 << 20, &text, NULL)) < 0) {
			err("cannot read '%s': %s", path, strerror(-ret));
			break;
		}
		ret = quiet_parse_stat(text, &running);
		free(text);
		text = NULL;
		if (ret < 0) {
			err("no procs_running in '%s'", path);
			break;
		}
		/* This process: at least the thread reading /proc/stat. */
		own = running_threads(root, getpid());
		if (own < 1)
			own = 1;
		for (k = 0; k < npids; k++)
			if (pids[k] > 0 && pids[k] != getpid())
				own += running_threads(root, pids[k]);
		q->procs_running = running;
		q->own_running = own;
		if (q->others_min < 0 || running - own < q->others_min)
			q->others_min = running - own < 0 ? 0 : running - own;
	}
	snprintf(path, sizeof(path), "%s/proc/loadavg", root);
	if (read_file(path, 4096, &text, NULL) == 0 &&
	    quiet_parse_loadavg(text, q->load) == 0)
		q->load_known = true;
	free(text);
	read_governor(root, q);
	read_boost(root, q);
	quiet_judge(q, max_others);
	return ret < 0 ? ret : 0;
}

int host_cpus_online(const char *root, struct cpuset *s)
{
	char path[512], line[1024], msg[128];

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	if (read_line(path, line, sizeof(line)) < 0)
		return err_errno("cannot read '%s'", path);
	if (cpuset_parse(line, s, msg, sizeof(msg)) < 0)
		return err("'%s': %s", path, msg);
	return 0;
}

int host_numa_node_cpus(const char *root, int node, struct cpuset *s)
{
	char path[512], line[1024], msg[128];

	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d",
		 root, node);
	if (access(path, F_OK) < 0)
		return -ENOENT;
	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/node/node%d/cpulist", root, node);
	if (read_line(path, line, sizeof(line)) < 0)
		return err_errno("cannot read '%s'", path);
	if (cpuset_parse(line, s, msg, sizeof(msg)) < 0)
		return err("'%s': %s", path, msg);
	return 0;
}
