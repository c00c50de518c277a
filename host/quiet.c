/* SPDX-License-Identifier: MIT */
/* The pure half of quiet.h: parsing /proc text and the busy rule. */
#include "quiet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int quiet_parse_stat(const char *text, long *procs_running)
{
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, "procs_running ", 14)) {
			char *end;
			long v;

			errno = 0;
			v = strtol(p + 14, &end, 10);
			if (errno || end == p + 14 || v < 0 ||
			    (*end && *end != '\n'))
				return -EINVAL;
			*procs_running = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -EINVAL;
}

int quiet_parse_loadavg(const char *text, double load[3])
{
	char *end;
	const char *p = text;
	int i;

	for (i = 0; i < 3; i++) {
		errno = 0;
		load[i] = strtod(p, &end);
		if (errno || end == p || load[i] < 0 ||
		    (*end != ' ' && *end != '\n' && *end))
			return -EINVAL;
		p = end;
	}
	return 0;
}

char quiet_parse_task_state(const char *text)
{
	/* "TID (comm) S ...": the comm ends at the last ')'. */
	const char *p = strrchr(text, ')');

	if (!p || p[1] != ' ' || !p[2] || !strchr("RSDZTtWXxKPI", p[2]))
		return 0;
	return p[2];
}

void quiet_judge(struct host_quiet *q, long max_others)
{
	if (q->others_min < 0) {
		q->busy = false;
		snprintf(q->why, sizeof(q->why),
			 "unknown: procs_running could not be read");
		return;
	}
	q->busy = q->others_min > max_others;
	snprintf(q->why, sizeof(q->why),
		 "%ld other runnable task%s in each of %d reads %d ms apart "
		 "(%s %ld)",
		 q->others_min, q->others_min == 1 ? "" : "s", QUIET_READS,
		 QUIET_GAP_MS, q->busy ? "more than" : "at most", max_others);
}
