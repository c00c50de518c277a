/* SPDX-License-Identifier: MIT */
/*
 * run-sample.c - one measured sample of a started cell, with the one retry
 * loop (step 4 of a cell's life, run-engine.h): run_sample_one(), and the
 * sample recorded (metric, series, output, journal) or, lost with its
 * executor, listed as failed; and the warm-up runs before the samples
 * (step 3), run_warmup(), which every local executor's start() calls.
 */
#include "run-engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results-file.h"
#include "run-quiet.h"
#include "sample-parse.h"
#include "util.h"

/*
 * Record measured sample IDX of the cell (SJ stolen, RES the same as a
 * struct): its metric, its series, its output in logs/; journalled, then
 * results.json.  Returns true when the sample is ok.
 */
static bool record_sample(struct run *r, struct cell_run *cr, long idx,
			  json_t *sj, const struct runner_result *res)
{
	struct cell_state *st = cr->st;
	char why[512] = "";
	double metric;
	json_t *series;
	bool ok = res->status == RUNNER_OK;

	run_save_output(r, cr->slug, "sample", idx, res->output);
	json_object_del(sj, "output");
	json_object_set_new(sj, "index", json_integer(idx));
	if (st->boots > 0)
		json_object_set_new(sj, "boot", json_integer(st->boots - 1));
	if (cr->round >= 0)
		json_object_set_new(sj, "round", json_integer(cr->round));
	if (ok && sample_metric(&r->cfg.wl, res->output, res->elapsed_s,
				&metric, why, sizeof(why))) {
		json_object_set_new(sj, "metric", json_real(metric));
	} else {
		json_object_set_new(sj, "metric", json_null());
		if (ok) {
			ok = false;
			json_object_set_new(sj, "status", json_string("failed"));
		} else if (res->status == RUNNER_TIMEOUT) {
			snprintf(why, sizeof(why), "timed out after %.0f s",
				 res->elapsed_s);
		} else {
			snprintf(why, sizeof(why),
				 "the run command exited with status %d",
				 res->exit_status);
		}
	}
	json_object_set_new(sj, "reason", *why ? json_string(why) : json_null());
	if ((series = sample_series_new(&r->cfg.wl, res->output)))
		json_object_set_new(sj, "series", series);
	if (results_journal_sample(r, cr->cell->id, sj) < 0)
		r->save_failed = true;
	json_array_append_new(st->samples, sj);
	st->nsamples++;
	if (ok)
		st->nok++;
	else
		st->nfailed++;
	r->samples_done++;
	if (!ok) {
		r->failures++;
		warn("%s: sample %ld failed: %s", cr->cell->id, idx, why);
	}
	run_save(r);
	return ok;
}

/*
 * Sample IDX, lost with its executor (a dead or hung guest, WHY) and not
 * tried again: listed among the cell's samples as failed, with WHY, so that
 * the cell's counts include it.
 */
static void record_lost(struct run *r, struct cell_run *cr, long idx,
			const char *why)
{
	struct cell_state *st = cr->st;
	json_t *sj = json_pack("{s:I, s:s, s:n, s:s}", "index",
			       (json_int_t)idx, "status", "failed", "metric",
			       "reason", why);

	if (st->boots > 0)
		json_object_set_new(sj, "boot", json_integer(st->boots - 1));
	if (cr->round >= 0)
		json_object_set_new(sj, "round", json_integer(cr->round));
	if (results_journal_sample(r, cr->cell->id, sj) < 0)
		r->save_failed = true;
	json_array_append_new(st->samples, sj);
	st->nsamples++;
	st->nfailed++;
	r->samples_done++;
	run_save(r);
}

/* A failed sample that will be retried leaves results.json (not the log). */
static void drop_for_retry(struct run *r, struct cell_state *st)
{
	json_array_remove(st->samples, json_array_size(st->samples) - 1);
	st->nsamples--;
	st->nfailed--;
	r->samples_done--;
}

/*
 * Measured sample IDX of a started cell, with the one retry loop.  Returns
 * 0 (recorded, ok or not), or -1 when the cell cannot go on (failed, with
 * the reason; its planned samples that will not run advance the ETA).
 */
int run_sample_one(struct run *r, const struct cell_exec_ops *ex,
		   struct cell_run *cr, long i)
{
	struct cell_state *st = cr->st;
	char why[512], what[64];
	long attempt;

	cr->in_boot++;
	for (attempt = 0; attempt <= r->cfg.retries; attempt++) {
		struct runner_result res;
		json_t *sj = NULL, *quiet;
		char *reason;
		int ret;

		snprintf(what, sizeof(what), "sample %ld/%ld", i + 1,
			 st->planned);
		run_progress(r, cr->ci, what);
		memset(&res, 0, sizeof(res));
		why[0] = '\0';
		quiet = run_quiet_wait(r, cr);
		ret = ex->sample(r, cr, i, &sj, &res, why, sizeof(why));
		if (ret == 0) {
			json_object_set_new(sj, "host_quiet", quiet);
			quiet = NULL;
			bool ok = record_sample(r, cr, i, sj, &res);

			runner_result_release(&res);
			if (ok || r->save_failed)
				return 0;
			if (attempt < r->cfg.retries)
				drop_for_retry(r, st);
			continue;
		}
		runner_result_release(&res);
		json_decref(sj);
		json_decref(quiet);
		reason = xasprintf("sample %ld: %s", i, why);
		err("%s: %s", cr->cell->id, reason);
		/* A lost executor (a dead or hung guest) costs one
		 * attempt: the sample is tried again in a fresh one
		 * (its setup runs again); samples so far stay. */
		if ((ret == -EPIPE || ret == -ETIMEDOUT) && ex->restart &&
		    attempt < r->cfg.retries && !run_should_stop(r)) {
			note("%s: retrying sample %ld in a fresh guest",
			     cr->cell->id, i + 1);
			ret = ex->restart(r, cr, reason);
			free(reason);
			cr->in_boot = 1;
			if (ret == 0)
				continue;
		} else {
			cell_fail(st, reason);
			free(reason);
		}
		/* The sample is listed, failed (not when the run was
		 * stopped: it is run again on resume); the rest of the
		 * cell's samples are not run. */
		if (!run_should_stop(r))
			record_lost(r, cr, i, why);
		else
			r->samples_done++;
		r->samples_done += st->planned - i - 1;
		r->failures++;
		return -1;
	}
	return 0;
}

int run_warmup(struct run *r, struct cell_run *cr, run_warmup_fn one,
	       void *arg, char *why, size_t len)
{
	long i;
	int ret;

	for (i = 0; i < r->cfg.warmup && !run_should_stop(r); i++) {
		run_progress(r, cr->ci, "warm-up run");
		ret = one(r, cr, i, arg, why, len);
		if (ret < 0)
			return ret;
	}
	return 0;
}
