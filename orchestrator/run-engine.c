/* SPDX-License-Identifier: MIT */
#include "run-engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "host.h"
#include "proto.h"
#include "results-file.h"
#include "run-quiet.h"
#include "sample-parse.h"
#include "untrusted.h"
#include "util.h"
#include "vm.h"

static const char *const status_names[] = {
	[CELL_PENDING] = "pending",
	[CELL_OK] = "ok",
	[CELL_FAILED] = "failed",
	[CELL_SKIPPED] = "skipped",
};

const char *cell_status_name(enum cell_status s)
{
	return status_names[s];
}

int cell_status_parse(const char *s, enum cell_status *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(status_names); i++)
		if (!strcmp(s, status_names[i])) {
			*out = (enum cell_status)i;
			return 0;
		}
	return -EINVAL;
}

const struct cell_exec_ops *run_exec_of(const struct run *r, int ci)
{
	return cell_exec_for(r->cfg.executor, r->cells[ci].where);
}

bool run_exec_has(const struct run *r, int ci, unsigned flags)
{
	return cell_exec_has(run_exec_of(r, ci), flags);
}

/* A guest on this host, under its KVM: its paging and hugetlb pool are
 * set here. */
static bool local_guest(const struct run *r, int ci)
{
	return run_exec_has(r, ci, EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS);
}

void cell_set_status(struct cell_state *st, enum cell_status s,
		     const char *reason)
{
	st->status = s;
	free(st->reason);
	st->reason = reason ? xstrdup(reason) : NULL;
}

void cell_fail(struct cell_state *st, const char *reason)
{
	cell_set_status(st, CELL_FAILED, reason);
}

void run_progress(struct run *r, int ci, const char *what)
{
	double el = mono_now() - r->t0;
	char eta[32] = "?";

	if (r->samples_done > 0) {
		double per = el / r->samples_done;
		long left = r->samples_total - r->samples_done;

		snprintf(eta, sizeof(eta), "%ld:%02ld",
			 (long)(per * left) / 60, (long)(per * left) % 60);
	}
	note("[%d/%d] %s: %s (elapsed %ld:%02ld, ETA %s)", ci + 1, r->ncells,
	     r->cells[ci].id, what, (long)el / 60, (long)el % 60, eta);
}

bool run_should_stop(struct run *r)
{
	if (*r->stop_signals && !r->stopped) {
		note("stop requested: finishing here; the run can be resumed");
		r->stopped = true;
	}
	if (r->failures >= r->cfg.max_failures && !r->stopped) {
		warn("%ld samples failed (max_failures = %ld): stopping the run",
		     r->failures, r->cfg.max_failures);
		r->stopped = true;
	}
	return r->stopped || r->save_failed;
}

double run_sample_timeout(const struct run *r)
{
	return run_config_sample_timeout(&r->cfg);
}

void run_save_output(struct run *r, const char *slug, const char *phase,
		     long idx, const char *out)
{
	char *rel = xasprintf("logs/%s.%s-%ld.out", slug, phase, idx);
	int fd = open_beneath(r->rundir, rel, O_WRONLY | O_CREAT | O_TRUNC,
			      0644);

	if (fd >= 0) {
		if (out && write(fd, out, strlen(out)) < 0)
			warn("cannot write '%s/%s'", r->rundir, rel);
		close(fd);
	}
	free(rel);
}

void console_tail(const char *path)
{
	char *text = NULL, *p;
	size_t len;
	int lines = 0;

	if (read_file(path, 16 << 20, &text, &len) < 0)
		return;
	/* Back to the start of the 15th line from the end. */
	for (p = text + len; p > text; p--)
		if (p[-1] == '\n' && p != text + len && ++lines == 15)
			break;
	untrusted_scrub(p, true); /* the guest wrote it */
	fprintf(stderr, "--- last lines of %s ---\n%s--- end ---\n", path, p);
	free(text);
}

/* Write results.json; a run directory that cannot be written stops the run. */
void run_save(struct run *r)
{
	if (r->save_failed || results_save(r) == 0)
		return;
	r->save_failed = true;
}

void run_slug(const char *id, char *out, size_t len)
{
	size_t i;

	for (i = 0; id[i] && i + 1 < len; i++)
		out[i] = (id[i] == '/' || id[i] == '=') ? '_' : id[i];
	out[i] = '\0';
}

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

/* Replace the cell's guest by a fresh one ([run] boots); -1: it failed. */
static int fresh_boot(struct run *r, const struct cell_exec_ops *ex,
		      struct cell_run *cr)
{
	ex->stop(r, cr);
	cr->in_boot = 0;
	return ex->start(r, cr);
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

/*
 * For a hugetlb-backed guest, reserve the guest's memory in the pool before
 * the cell (the original size goes to ORIG, the knob to POOL).  A cell that
 * cannot have its pool is skipped with the reason; returns -1 then.
 */
static int hugetlb_reserve(struct run *r, const struct cell *c,
			   struct cell_state *st, char *pool, size_t plen,
			   char *orig, size_t olen)
{
	unsigned long kib;
	char why[512], want[32];
	int ret;

	if (c->backing == BACKING_HUGETLB_2M)
		kib = 2048;
	else if (c->backing == BACKING_HUGETLB_1G)
		kib = 1048576;
	else
		return 0;
	snprintf(pool, plen, "%s", kib == 2048 ? "hugetlb.2M" : "hugetlb.1G");
	if (!host_supported(r->host, pool, NULL, why, sizeof(why)))
		goto skip;
	if (host_hugetlbfs_mounted("", kib) != 1) {
		snprintf(why, sizeof(why),
			 "no hugetlbfs mount with %s pages (mount one, then "
			 "restart libvirtd: it looks for mounts only at start)",
			 kib == 2048 ? "2M" : "1G");
		goto skip;
	}
	if (host_get(r->host, pool, orig, olen) < 0) {
		snprintf(why, sizeof(why), "cannot read the %s pool", pool);
		goto skip;
	}
	snprintf(want, sizeof(want), "%llu",
		 (unsigned long long)(c->memory / (kib * 1024ULL)) +
			 strtoull(orig, NULL, 10));
	ret = host_set(r->host, pool, want);
	if (ret < 0) {
		snprintf(why, sizeof(why),
			 "cannot reserve %s pages of %s for the guest (see above)",
			 want, kib == 2048 ? "2M" : "1G");
		host_set(r->host, pool, orig);
		goto skip;
	}
	json_object_set_new(st->observed, "hugetlb_pool", json_string(want));
	return 0;
skip:
	pool[0] = '\0';
	note("%s: skipped: %s", c->id, why);
	cell_set_status(st, CELL_SKIPPED, why);
	r->samples_done += st->planned - st->nsamples;
	return -1;
}

/* Why cell CI cannot be honoured here, or false when it can. */
static bool cell_skip(struct run *r, int ci, char *why, size_t len)
{
	const struct cell *c = &r->cells[ci];
	size_t i;

	if (!run_exec_has(r, ci, EXEC_CHANGES_HOST_KNOBS))
		return false; /* this host's settings are not the cell's */
	for (i = 0; i < c->nhost_knobs; i++)
		if (!host_supported(r->host, c->host_knobs[i].name,
				    c->host_knobs[i].value, why, len))
			return true;
	if (!local_guest(r, ci) || c->paging == PAGING_AUTO ||
	    c->paging == PAGING_TCG)
		return false;
	if (!strcmp(r->accel, "tcg")) {
		snprintf(why, len,
			 "paging=%s needs KVM; this host runs guests under TCG "
			 "(%s), where EPT/NPT does not apply",
			 paging_name(c->paging), r->accel_why);
		return true;
	}
	return !host_supported(r->host, "paging", paging_name(c->paging), why,
			       len);
}

static const char *cell_paging(const struct run *r, const struct cell *c)
{
	/* What the cell asks for, so that a skipped EPT cell says EPT. */
	if (c->paging == PAGING_TCG ||
	    (c->paging == PAGING_AUTO && !strcmp(r->accel, "tcg")))
		return "tcg";
	if (c->paging == PAGING_SHADOW)
		return "shadow";
	return r->vendor_paging;
}

/* The cell's [host] knobs, each read back into observed.host_knobs. */
static int host_knobs_set(struct run *r, const struct cell *c,
			  struct cell_state *st)
{
	json_t *got = json_object();
	char why[512], val[128];
	size_t i;
	int ret = 0;

	for (i = 0; i < c->nhost_knobs && ret == 0; i++) {
		const struct cell_kv *k = &c->host_knobs[i];

		if (host_set(r->host, k->name, k->value) < 0) {
			snprintf(why, sizeof(why), "cannot set host knob '%s' to '%s'",
				 k->name, k->value);
			cell_fail(st, why);
			ret = -1;
		} else if (host_get(r->host, k->name, val, sizeof(val)) == 0) {
			json_object_set_new(got, k->name, json_string(val));
		} else {
			json_object_set_new(got, k->name, json_null());
		}
	}
	if (c->nhost_knobs)
		json_object_set_new(st->observed, "host_knobs", got);
	else
		json_decref(got);
	return ret;
}

/* Set the host for cell CI; -1 with the cell failed or skipped. */
int run_host_prepare(struct run *r, int ci, char *pool, size_t plen,
		     char *orig, size_t olen)
{
	const struct cell *c = &r->cells[ci];
	struct cell_state *st = &r->states[ci];
	char why[512], got[64];

	if (run_exec_has(r, ci, EXEC_NEEDS_GUEST))
		json_object_set_new(st->env, "paging",
				    json_string(cell_paging(r, c)));
	if (cell_skip(r, ci, why, sizeof(why))) {
		note("[%d/%d] %s: skipped: %s", ci + 1, r->ncells, c->id, why);
		cell_set_status(st, CELL_SKIPPED, why);
		r->samples_done += st->planned - st->nsamples;
		return -1;
	}
	if (!run_exec_has(r, ci, EXEC_CHANGES_HOST_KNOBS))
		return 0; /* this host's settings are not the cell's */
	if (local_guest(r, ci) && c->paging != PAGING_AUTO &&
	    c->paging != PAGING_TCG) {
		if (host_set(r->host, "paging", paging_name(c->paging)) < 0) {
			cell_fail(st, "cannot set host paging");
			return -1;
		}
		if (host_get(r->host, "paging", got, sizeof(got)) == 0)
			json_object_set_new(st->observed, "paging",
					    json_string(got));
	}
	if (host_knobs_set(r, c, st) < 0)
		return -1;
	if (host_set(r->host, "thp.enabled", c->host_thp) < 0) {
		snprintf(why, sizeof(why), "cannot set host THP to '%s'",
			 c->host_thp);
		cell_fail(st, why);
		return -1;
	}
	if (host_get(r->host, "thp.enabled", got, sizeof(got)) == 0)
		json_object_set_new(st->observed, "host_thp", json_string(got));
	if (local_guest(r, ci) &&
	    hugetlb_reserve(r, c, st, pool, plen, orig, olen) < 0)
		return -1;
	return 0;
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
 * Before each sample of interleaved rounds: the host THP and [host] knobs
 * of cell CI (paging and the hugetlb pool stay as its group set them).
 * -1 with the cell failed.
 */
int run_host_apply(struct run *r, int ci)
{
	const struct cell *c = &r->cells[ci];
	struct cell_state *st = &r->states[ci];
	char why[512];

	if (!run_exec_has(r, ci, EXEC_CHANGES_HOST_KNOBS))
		return 0;
	if (host_knobs_set(r, c, st) < 0)
		return -1;
	if (host_set(r->host, "thp.enabled", c->host_thp) < 0) {
		snprintf(why, sizeof(why), "cannot set host THP to '%s'",
			 c->host_thp);
		cell_fail(st, why);
		return -1;
	}
	return 0;
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

struct run_guest_files *run_guest_files_find(const struct run *r,
					     const struct cell *c)
{
	size_t i;

	for (i = 0; i < r->ngfs; i++)
		if (!strcmp(r->gfs[i].image, c->image) &&
		    !strcmp(r->gfs[i].kernel, c->kernel) &&
		    !strcmp(r->gfs[i].initrd, c->initrd))
			return &r->gfs[i];
	return NULL;
}

const struct guest_files *run_guest_files(const struct run *r,
					  const struct cell *c)
{
	const struct run_guest_files *g = run_guest_files_find(r, c);

	if (!g)
		abort(); /* run_prepare() resolved every guest cell's files */
	return &g->f;
}

void run_release(struct run *r)
{
	size_t k;
	int i;

	for (i = 0; r->states && i < r->ncells; i++) {
		free(r->states[i].reason);
		json_decref(r->states[i].env);
		json_decref(r->states[i].observed);
		json_decref(r->states[i].samples);
		json_decref(r->states[i].plan);
	}
	free(r->states);
	json_decref(r->head);
	json_decref(r->schedule);
	matrix_release(&r->matrix);
	free(r->rundir);
	free(r->results_path);
	free(r->journal_path);
	for (k = 0; k < r->ngfs; k++)
		guest_files_release(&r->gfs[k].f);
	free(r->gfs);
	run_config_release(&r->cfg);
}
