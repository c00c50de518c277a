/* SPDX-License-Identifier: MIT */
#include "run-quiet.h"

#include <time.h>

#include "quiet.h"
#include "run-engine.h"
#include "util.h"

static json_t *quiet_json(const struct host_quiet *q, double waited)
{
	json_t *j = json_object();

	json_object_set_new(j, "quiet",
			    q->others_min < 0 ? json_null()
					      : json_boolean(!q->busy));
	json_object_set_new(j, "why", json_string(q->why));
	json_object_set_new(j, "procs_running",
			    q->procs_running < 0
				? json_null()
				: json_integer(q->procs_running));
	json_object_set_new(
	    j, "own_running",
	    q->procs_running < 0 ? json_null() : json_integer(q->own_running));
	json_object_set_new(j, "others_running",
			    q->others_min < 0 ? json_null()
					      : json_integer(q->others_min));
	json_object_set_new(j, "loadavg",
			    q->load_known ? json_pack("[fff]", q->load[0],
						      q->load[1], q->load[2])
					  : json_null());
	json_object_set_new(j, "governor",
			    *q->governor ? json_string(q->governor)
					 : json_null());
	if (!*q->governor)
		json_object_set_new(j, "governor_why",
				    json_string(q->governor_why));
	json_object_set_new(
	    j, "boost", q->boost < 0 ? json_null() : json_boolean(q->boost));
	if (q->boost < 0)
		json_object_set_new(j, "boost_why", json_string(q->boost_why));
	json_object_set_new(j, "waited_s", json_real(waited));
	return j;
}

json_t *run_quiet_wait(struct run *r, const struct cell_run *cr)
{
	const struct timespec second = {1, 0};
	double t0 = mono_now(), waited = 0;
	struct host_quiet q;
	bool told = false;

	for (;;) {
		host_quiet_read("", &cr->own_pid, 1, r->cfg.quiet_others, &q);
		waited = mono_now() - t0;
		if (!q.busy || waited >= r->cfg.quiet_wait_s ||
		    run_should_stop(r))
			break;
		if (!told) {
			note("%s: host busy (%s); waiting up to %.0f s for "
			     "quiet",
			     cr->cell->id, q.why, r->cfg.quiet_wait_s);
			told = true;
		}
		nanosleep(&second, NULL);
	}
	if (q.busy)
		warn("%s: sample taken on a busy host: %s", cr->cell->id,
		     q.why);
	return quiet_json(&q, waited);
}
