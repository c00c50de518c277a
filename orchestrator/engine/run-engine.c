/* SPDX-License-Identifier: MIT */
/*
 * run-engine.c - the life of a cell (start, samples, profile, stop,
 * conclude) and run_engine(): order = cells round by round, or the passes
 * of interleaved rounds (run-rounds.c); with a target, the plan
 * (run-sampling.c) says what the next round takes.  The host settings are
 * run-host.c, a sample's retry loop run-sample.c, the state run-state.c.
 */
#include "run-engine.h"

#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "util.h"

/* Replace the cell's guest by a fresh one ([run] boots); -1: it failed. */
static int fresh_boot(struct run *r, const struct cell_exec_ops *ex,
		      struct cell_run *cr)
{
	ex->stop(r, cr);
	cr->in_boot = 0;
	return ex->start(r, cr);
}

/*
 * The samples of a started cell, one after the other (order = cells).
 * Returns 0, or -1 when the cell cannot go on (failed, with the reason).
 */
static int run_samples(struct run *r, const struct cell_exec_ops *ex,
		       struct cell_run *cr)
{
	struct cell_state *st = cr->st;
	long i, per_boot = run_per_boot(r, cr->ci);

	for (i = st->nsamples; i < st->planned && !run_should_stop(r); i++) {
		if (per_boot && cr->in_boot >= per_boot &&
		    fresh_boot(r, ex, cr) < 0) {
			r->samples_done += st->planned - i;
			return -1;
		}
		if (run_sample_one(r, ex, cr, i) < 0)
			return -1;
	}
	return 0;
}

/*
 * Start the cell's executor.  A guest that dies or hangs before its agent
 * is ready (nested guests do, now and then) costs one of the cell's
 * retries, as a lost sample does: a fresh guest in its place, the reason
 * kept in the cell's observed.guest_restarts.
 */
int run_cell_start(struct run *r, const struct cell_exec_ops *ex,
		   struct cell_run *cr)
{
	long attempt;
	int ret = ex->start(r, cr);

	for (attempt = 0; ret < 0 && ex->restart &&
			  attempt < r->cfg.retries &&
			  cr->st->status == CELL_FAILED && !run_should_stop(r);
	     attempt++) {
		char *reason = xasprintf("start: %s", cr->st->reason
							  ? cr->st->reason
							  : "failed");

		note("%s: starting again in a fresh guest (%ld of %ld "
		     "retries)",
		     cr->cell->id, attempt + 1, r->cfg.retries);
		cell_set_status(cr->st, CELL_PENDING, NULL);
		ret = ex->restart(r, cr, reason);
		free(reason);
	}
	return ret;
}

/*
 * A cell whose samples all failed is failed, and says why: the distinct
 * reasons of its samples, each with its count.
 */
static void cell_conclude(struct run *r, struct cell_state *st)
{
	char buf[1024];
	size_t i, j, off;
	int n;

	if (st->status != CELL_PENDING)
		return;
	if ((r->stopped || r->save_failed) && st->nsamples < st->planned) {
		cell_set_status(st, CELL_PENDING, "interrupted");
		return;
	}
	if (st->nok > 0) {
		cell_set_status(st, CELL_OK, NULL);
		return;
	}
	if (st->nsamples == 0) {
		cell_fail(st, "no sample was measured");
		return;
	}
	off = (size_t)snprintf(buf, sizeof(buf), "no sample ok: ");
	for (i = 0; i < json_array_size(st->samples); i++) {
		const char *why = json_string_value(
			json_object_get(json_array_get(st->samples, i), "reason"));
		bool seen = false;

		why = why ? why : "no reason given";
		for (j = 0; j < i && !seen; j++) {
			const char *w = json_string_value(json_object_get(
				json_array_get(st->samples, j), "reason"));

			seen = !strcmp(w ? w : "no reason given", why);
		}
		if (seen)
			continue;
		for (n = 0, j = 0; j < json_array_size(st->samples); j++) {
			const char *w = json_string_value(json_object_get(
				json_array_get(st->samples, j), "reason"));

			n += !strcmp(w ? w : "no reason given", why);
		}
		if (off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%s%s (%d of %ld)",
						i ? "; " : "", why, n,
						st->nsamples);
	}
	cell_fail(st, buf);
}

/* Conclude the cell (cell_conclude()) and say why it stopped sampling. */
void run_cell_finish(struct run *r, struct cell_state *st,
		     enum stop_reason why)
{
	cell_conclude(r, st);
	if (st->status == CELL_FAILED)
		st->stop = STOP_FAILED;
	else if (st->status == CELL_SKIPPED)
		st->stop = STOP_SKIPPED;
	else if (st->status == CELL_PENDING)
		st->stop = st->reason ? STOP_INTERRUPTED : STOP_NONE;
	else
		st->stop = why;
}

static void run_cell(struct run *r, int ci)
{
	const struct cell_exec_ops *ex = run_exec_of(r, ci);
	struct cell_state *st = &r->states[ci];
	char pool[16] = "", orig[32] = "";
	struct cell_run cr;
	long i;

	if (st->status != CELL_PENDING && !r->resume) {
		/* not this host's ([run] cells) */
		note("[%d/%d] %s: %s: %s", ci + 1, r->ncells, r->cells[ci].id,
		     cell_status_name(st->status), st->reason ?: "");
		return;
	}
	if (st->status != CELL_PENDING) {
		/* Ended in an earlier, resumed-from run: never repeated. */
		note("[%d/%d] %s: %s in the earlier run", ci + 1, r->ncells,
		     r->cells[ci].id, cell_status_name(st->status));
		return;
	}
	cell_set_status(st, CELL_PENDING, NULL);
	memset(&cr, 0, sizeof(cr));
	cr.ci = ci;
	cr.cell = &r->cells[ci];
	cr.st = st;
	run_slug(cr.cell->id, cr.slug, sizeof(cr.slug));
	cr.round = -1;
	if (run_host_prepare(r, ci, pool, sizeof(pool), orig, sizeof(orig)) < 0)
		goto out;
	if (run_cell_start(r, ex, &cr) == 0) {
		if (run_samples(r, ex, &cr) < 0) {
			/* failed: the reason is set */
		} else if (r->cfg.profile && !run_should_stop(r)) {
			cell_profile(r, ex, &cr);
		}
	} else {
		/* Samples that will not run still advance the ETA. */
		for (i = st->nsamples; i < st->planned; i++)
			r->samples_done++;
	}
	ex->stop(r, &cr);
	/* Without a target the cell is done; with one, the plan says. */
	if (!(r->cfg.target > 0) || st->status != CELL_PENDING) {
		run_cell_finish(r, st, STOP_REPEAT);
	} else if (r->stopped || r->save_failed) {
		cell_set_status(st, CELL_PENDING, "interrupted");
		st->stop = STOP_INTERRUPTED;
	}
	/* Give the pool back after every cell, not only at the end. */
	if (*pool && host_set(r->host, pool, orig) < 0)
		warn("cannot give back the %s pool", pool);
out:
	run_save(r);
}

/*
 * With a target, after a round (order = cells) or a pass (interleaved):
 * plan the next (run_sampling_plan()), conclude the cells that settled,
 * and say what comes; false when every cell has settled.
 */
static bool plan_next(struct run *r, const char *what, int n)
{
	long more = run_sampling_plan(r);
	int i;

	for (i = 0; i < r->ncells; i++)
		if (r->states[i].status == CELL_PENDING &&
		    r->states[i].stop != STOP_NONE)
			run_cell_finish(r, &r->states[i], r->states[i].stop);
	run_save(r);
	if (more)
		note("%s %d: %ld more samples for the cells whose interval is "
		     "wider than the target (%g%%)",
		     what, n, more, r->cfg.target * 100);
	return more > 0;
}

/* order = interleaved: passes of rounds until the plan is content. */
static void run_engine_rounds(struct run *r)
{
	bool *profiled = xcalloc((size_t)r->ncells, sizeof(*profiled));
	int pass;

	for (pass = 0;; pass++) {
		run_rounds(r, profiled);
		if (run_should_stop(r) || !(r->cfg.target > 0))
			break;
		if (!plan_next(r, "pass", pass + 1))
			break;
	}
	run_rounds_conclude(r);
	free(profiled);
}

void run_engine(struct run *r)
{
	int i, round;

	r->t0 = mono_now();
	if (run_exec_has(r, 0, EXEC_REMOTE)) {
		run_remote(r);
		return;
	}
	r->samples_total = 0;
	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];

		/* A resumed cell goes on from where it was. */
		st->planned = st->nsamples > r->cfg.repeat ? st->nsamples
							   : r->cfg.repeat;
		if (st->status == CELL_PENDING)
			r->samples_total += st->planned - st->nsamples;
	}
	r->samples_done = 0;
	if (!strcmp(r->cfg.order, "interleaved")) {
		run_engine_rounds(r);
		return;
	}
	json_decref(r->schedule);
	r->schedule = json_pack("{s:s}", "order", "cells");
	for (round = 0;; round++) {
		for (i = 0; i < r->ncells && !run_should_stop(r); i++) {
			struct cell_state *st = &r->states[i];

			/* Round 0 also names the cells an earlier run ended. */
			if (st->status != CELL_PENDING) {
				if (!round)
					run_cell(r, i);
			} else if (st->stop == STOP_NONE &&
				   st->nsamples < st->planned) {
				run_cell(r, i);
			}
		}
		if (run_should_stop(r) || !(r->cfg.target > 0))
			break;
		if (!plan_next(r, "round", round + 1))
			break;
	}
}
