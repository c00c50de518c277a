/* SPDX-License-Identifier: MIT */
/*
 * run-remote.c - a run whose cells all run on another host (run-engine.h,
 * run_remote()): the executor's run_remote() runs them there with a vmtax of
 * its own, and what comes back becomes this run's state.
 */
#include "run-engine.h"

#include <errno.h>

#include "results-file.h"
#include "util.h"

void run_remote(struct run *r)
{
	const struct cell_exec_ops *ex = run_exec_of(r, 0);
	json_t *doc = NULL, *label = NULL;
	int ret, rc = -1;

	ret = ex->run_remote(r, &doc, &label, &rc);
	if (doc) {
		/* saved mid-run by a run that no longer runs */
		if (ret < 0)
			results_doc_cut_off(doc);
		if (results_remote_take(r, doc, ex->name, label) < 0)
			ret = -EINVAL;
	} else if (label) {
		json_object_set(r->head, ex->name, label);
	}
	if (ret < 0 || rc < 0)
		r->stopped = true;
	else if (rc > 0)
		note("%s: the run there exited with status %d", ex->name, rc);
	run_save(r);
	json_decref(doc);
	json_decref(label);
}
