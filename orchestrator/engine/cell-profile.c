/* SPDX-License-Identifier: MIT */
/*
 * The profiled run of a cell (docs/profile.md): one more run of the
 * workload, after the samples, under sampling; its folded stacks go to
 * RUNDIR/profiles/SLUG.folded and what it was to observed.profile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "profile.h"
#include "run-engine.h"
#include "util.h"

/*
 * The mean of the cell's ok samples' elapsed_s (TASK_CLOCK false) or
 * task-clock in seconds (true), over those that have it; -1 if none.
 */
static double samples_mean(const struct cell_state *st, bool task_clock)
{
	double sum = 0;
	long n = 0;
	size_t i;
	json_t *s;

	json_array_foreach(st->samples, i, s)
	{
		const char *status =
		    json_string_value(json_object_get(s, "status"));
		json_t *v =
		    task_clock ? json_object_get(json_object_get(s, "counters"),
						 "task-clock")
			       : json_object_get(s, "elapsed_s");

		if (status && !strcmp(status, "ok") && json_is_number(v)) {
			sum += json_number_value(v) / (task_clock ? 1e9 : 1);
			n++;
		}
	}
	return n ? sum / n : -1;
}

static json_t *ratio_json(double a, double mean)
{
	return a >= 0 && mean > 0 ? json_real(a / mean - 1) : json_null();
}

void cell_profile(struct run *r, const struct cell_exec_ops *ex,
		  struct cell_run *cr)
{
	struct runner_result res;
	char why[512] = "", *path = NULL, *folded = NULL;
	const struct runner_counter_value *tc;
	double t0 = mono_now(), cpu_s;
	json_t *pj = NULL;
	int ret;

	memset(&res, 0, sizeof(res));
	if (!cell_exec_has(ex, EXEC_CAN_PROFILE)) {
		snprintf(why, sizeof(why), "the %s executor cannot profile",
			 ex->name);
		goto fail;
	}
	run_progress(r, cr->ci, "profile run");
	ret = ex->profile(r, cr, &res, why, sizeof(why));
	if (ret < 0)
		goto fail;
	run_save_output(r, cr->slug, "profile", 0, res.output);
	path = xasprintf("profiles/%s.folded", cr->slug);
	folded = profile_folded_new(res.profile, (size_t)-1);
	{
		int dfd = dir_open_nofollow(r->rundir);

		ret = dfd < 0 ? dfd : mkdirat_beneath(dfd, "profiles", 0755);
		if (ret == 0)
			ret = write_at_atomic(dfd, r->rundir, path, folded,
					      strlen(folded), 0644);
		if (dfd >= 0)
			close(dfd);
	}
	if (ret < 0) {
		snprintf(why, sizeof(why), "cannot write '%s/%s': %s",
			 r->rundir, path, strerror(-ret));
		goto fail;
	}
	pj = profile_to_json(res.profile);
	json_object_set_new(pj, "folded",
			    json_sprintf("profiles/%s.folded", cr->slug));
	json_object_set_new(pj, "status",
			    json_string(runner_status_name(res.status)));
	json_object_set_new(pj, "elapsed_s", json_real(res.elapsed_s));
	tc = &res.counters[RC_TASK_CLOCK];
	cpu_s = tc->supported && tc->counted ? tc->value / 1e9 : -1;
	json_object_set_new(pj, "task_clock_s",
			    cpu_s >= 0 ? json_real(cpu_s) : json_null());
	/* what sampling cost the workload, against the unprofiled samples:
	 * in elapsed time, and on CPU (task-clock: less sensitive to a
	 * busy host) */
	json_object_set_new(
	    pj, "overhead",
	    ratio_json(res.elapsed_s, samples_mean(cr->st, false)));
	json_object_set_new(pj, "overhead_cpu",
			    ratio_json(cpu_s, samples_mean(cr->st, true)));
	json_object_set_new(pj, "wall_s", json_real(mono_now() - t0));
	json_object_set_new(cr->st->observed, "profile", pj);
	goto out;
fail:
	warn("%s: no profile: %s", cr->cell->id, why);
	json_object_set_new(cr->st->observed, "profile",
			    json_pack("{ss}", "error", why));
out:
	runner_result_release(&res);
	free(folded);
	free(path);
}
