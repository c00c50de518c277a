/* SPDX-License-Identifier: MIT */
/* One cell of results.json into the model (model.h, struct report_cell). */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "caps.h"
#include "sample-unit.h"
#include "report.h"
#include "runner.h"
#include "model-json.h"
#include "util.h"
#include "vocab.h"

static bool backing_shown(const char *backing)
{
	return backing && strcmp(backing, "thp");
}

/* ", vcpus=2, cmdline=\"\"": the axes the classic label does not show. */
static char *extra_axes(const struct report *r, const struct report_cell *c)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; c->axv && i < r->naxes; i++) {
		const char *v = c->axv[i];
		const struct vocab_axis *a = vocab_axis_find(r->axes[i].name);

		if (!v || (a && a->classic))
			continue;
		t = xasprintf("%s, %s=%s", s, r->axes[i].name,
			      *v ? v : "\"\"");
		free(s);
		s = t;
	}
	return s;
}

/* The first knob of REQ whose read-back in OBS differs, as a sentence. */
static char *knob_mismatch(const char *who, json_t *req, json_t *obs)
{
	const char *k;
	json_t *v;

	json_object_foreach(req, k, v)
	{
		const char *want = json_string_value(v);
		const char *got = json_string_value(json_object_get(obs, k));

		if (want && got && strcmp(want, got))
			return xasprintf("requested %s knob '%s' = '%s', "
					 "observed '%s'",
					 who, k, want, got);
	}
	return NULL;
}

static void cell_mismatch(struct report_cell *c, json_t *env, json_t *obs)
{
	json_t *want = json_object_get(env, "vcpus");
	json_t *got = json_object_get(obs, "guest_cpus");

	if (c->mismatch)
		return;
	if (json_is_integer(want) && json_is_integer(got) &&
	    json_integer_value(want) != json_integer_value(got))
		c->mismatch_text =
		    xasprintf("requested %lld vcpus, the guest saw %lld",
			      (long long)json_integer_value(want),
			      (long long)json_integer_value(got));
	if (!c->mismatch_text)
		c->mismatch_text =
		    knob_mismatch("host", json_object_get(env, "host_knobs"),
				  json_object_get(obs, "host_knobs"));
	if (!c->mismatch_text)
		c->mismatch_text =
		    knob_mismatch("guest", json_object_get(env, "guest_knobs"),
				  json_object_get(obs, "guest_knobs"));
	c->mismatch = c->mismatch_text != NULL;
}

static void cell_labels(const struct report *r, struct report_cell *c)
{
	char *extra = extra_axes(r, c);

	const char *host = c->host_thp ? c->host_thp : "default";
	const char *guest = c->guest_thp ? c->guest_thp : "default";
	/*
	 * A cell not yet run has no paging recorded; under TCG there is only
	 * one, so say so rather than split the matrix into two columns.
	 */
	const char *paging = c->paging				    ? c->paging
			     : r->accel && !strcmp(r->accel, "tcg") ? "tcg"
								    : NULL;
	const char *pw = report_paging_word(r, paging);
	bool bk = backing_shown(c->backing);

	if (c->bare_metal) {
		c->label = xasprintf("THP %s host%s", host, extra);
		c->column = xstrdup(r->host_word);
	} else {
		c->label = xasprintf("THP %s guest, %s + THP %s host%s%s%s%s",
				     guest, pw, host, bk ? ", " : "",
				     bk ? c->backing : "",
				     bk ? " backing" : "", extra);
		c->column = xasprintf("%s%s%s", pw, bk ? ", " : "",
				      bk ? c->backing : "");
	}
	if (c->obs_host_thp && c->host_thp &&
	    strcmp(c->obs_host_thp, c->host_thp)) {
		c->mismatch = true;
		c->mismatch_text =
		    xasprintf("requested host THP '%s', observed '%s'",
			      c->host_thp, c->obs_host_thp);
	} else if (c->obs_guest_thp && c->guest_thp &&
		   strcmp(c->obs_guest_thp, c->guest_thp)) {
		c->mismatch = true;
		c->mismatch_text =
		    xasprintf("requested guest THP '%s', observed '%s'",
			      c->guest_thp, c->obs_guest_thp);
	}
	if (c->ran_on) {
		char *l = xasprintf("%s, ran on %s", c->label, c->ran_on);

		free(c->label);
		c->label = l;
	}
	free(extra);
}

/*
 * Why KEY of the ok sample JS is not a finite number >= 0 (into WHY), or
 * false when it is.  NEED: absent or null is a reason too (the metric);
 * else only a value that is there is checked (elapsed_s, user_s, sys_s).
 */
static bool bad_value(json_t *js, const char *key, bool need, char *why,
		      size_t len)
{
	json_t *v = json_object_get(js, key);
	double x;

	if (!v || json_is_null(v)) {
		if (need)
			snprintf(why, len, "its %s is %s", key,
				 v ? "null" : "missing");
		return need;
	}
	if (json_is_string(v)) {
		snprintf(why, len, "its %s is the string \"%.32s\"", key,
			 json_string_value(v));
		return true;
	}
	if (!json_is_number(v)) {
		snprintf(why, len, "its %s is not a number", key);
		return true;
	}
	x = json_number_value(v);
	if (isfinite(x) && x >= 0)
		return false;
	snprintf(why, len, "its %s is %s (%g)", key,
		 isfinite(x) ? "negative" : "not finite", x);
	return true;
}

/*
 * An ok sample's numbers: its metric a finite number >= 0, and its times
 * too where it has them; anything else is refused at load (the cell, the
 * sample and why), since a report that drops or averages it would count
 * samples it did not use.  A run records such a metric as a failed
 * sample instead (sample-parse.c).
 */
static int check_ok_sample(const char *path, const char *id, json_t *js,
			   const struct report_sample *s)
{
	static const char *const times[] = {"elapsed_s", "user_s", "sys_s"};
	char why[128];
	size_t k;

	if (bad_value(js, "metric", true, why, sizeof(why)))
		goto bad;
	for (k = 0; k < ARRAY_SIZE(times); k++)
		if (bad_value(js, times[k], false, why, sizeof(why)))
			goto bad;
	return 0;
bad:
	return err("'%s': cell '%s': sample %ld is ok but %s (a finite "
		   "number >= 0 is wanted; a sample without one is failed, "
		   "with its reason)",
		   path, id, s->index, why);
}

/* The slot of runner counter K in R (a raw PMU event: REPORT_COUNTER_RAW
 * and its NAME), added when there is room; -1 if not. */
static int counter_slot(struct report *r, int k, const char *name)
{
	size_t i;

	for (i = 0; i < r->ncounters; i++)
		if (r->counter_id[i] == k &&
		    (k != REPORT_COUNTER_RAW || !strcmp(r->counter_raw[i], name)))
			return (int)i;
	if (r->ncounters == REPORT_COUNTERS_MAX)
		return -1;
	r->counter_id[r->ncounters] = k;
	if (k == REPORT_COUNTER_RAW)
		snprintf(r->counter_raw[r->ncounters],
			 sizeof(r->counter_raw[r->ncounters]), "%s", name);
	return (int)r->ncounters++;
}

/* A sample's counters, by slot: a number, null (not supported), absent
 * (not counted).  Names no runner counter has, and are no raw PMU event,
 * are left out. */
static void load_counters(struct report *r, json_t *counters,
			  struct report_sample *s)
{
	const char *key;
	json_t *v;
	int k;

	for (k = 0; k < REPORT_COUNTERS_MAX; k++) {
		s->counter[k] = NAN;
		s->cstate[k] = CS_NOT_COUNTED;
	}
	json_object_foreach(counters, key, v)
	{
		int id = runner_counter_lookup(key), slot;
		uint64_t config;
		char why[160];

		if (id < 0 && runner_raw_parse(key, &config, why,
					       sizeof(why)) == 0)
			id = REPORT_COUNTER_RAW;
		else if (id < 0 || strcmp(runner_counter_name(id), key))
			continue;
		slot = counter_slot(r, id, key);
		if (slot < 0)
			continue;
		if (json_is_number(v)) {
			s->cstate[slot] = CS_OK;
			s->counter[slot] = json_number_value(v);
		} else {
			s->cstate[slot] = CS_NOT_SUPPORTED;
		}
	}
}

static int load_sample(struct report *r, const char *id, json_t *js,
		       struct report_sample *s)
{
	const char *path = r->path;
	json_t *counters, *quiet;
	enum runner_status rs;

	if (!json_is_object(js))
		return err("'%s': cell '%s': a sample is not an object", path,
			   id);
	s->index = (long)json_integer_value(json_object_get(js, "index"));
	s->status = jstr(js, "status");
	if (!s->status)
		return err("'%s': cell '%s': sample %ld has no status", path,
			   id, s->index);
	if (runner_status_parse(s->status, &rs) < 0)
		return err("'%s': cell '%s': sample %ld has an unknown status "
			   "'%s' (ok, failed, timeout, killed)",
			   path, id, s->index, s->status);
	if (rs == RUNNER_OK && check_ok_sample(path, id, js, s) < 0)
		return -EINVAL;
	s->reason = jstr(js, "reason");
	quiet = json_object_get(js, "host_quiet");
	s->busy = json_is_false(json_object_get(quiet, "quiet"));
	s->busy_why = jstr(quiet, "why");
	s->exit_status =
	    (long)json_integer_value(json_object_get(js, "exit_status"));
	s->elapsed = jnum(js, "elapsed_s");
	s->user = jnum(js, "user_s");
	s->sys = jnum(js, "sys_s");
	s->metric = jnum(js, "metric");
	s->boot = json_is_integer(json_object_get(js, "boot"))
		      ? (long)json_integer_value(json_object_get(js, "boot"))
		      : -1;
	s->round = json_is_integer(json_object_get(js, "round"))
		       ? (long)json_integer_value(json_object_get(js, "round"))
		       : -1;
	counters = json_object_get(js, "counters");
	load_counters(r, counters, s);
	return 0;
}

/* Has a sample's JSON a series with equal, non-empty, numeric x and y? */
static json_t *sample_series(json_t *js, json_t **ys)
{
	json_t *s = json_object_get(js, "series");
	json_t *xs = json_object_get(s, "x"), *v;
	size_t i;

	*ys = json_object_get(s, "y");
	if (!json_is_array(xs) || !json_is_array(*ys) || !json_array_size(xs) ||
	    json_array_size(xs) != json_array_size(*ys))
		return NULL;
	json_array_foreach(xs, i, v)
	{
		if (!json_is_number(v) ||
		    !json_is_number(json_array_get(*ys, i)))
			return NULL;
	}
	return xs;
}

/* The cell's series: x from the first ok sample, mean y per x. */
static void cell_series(struct report_cell *c, json_t *samples)
{
	struct report_series *rs = &c->series;
	size_t *n = NULL, i, j, k;
	json_t *js, *xs, *ys;

	json_array_foreach(samples, k, js)
	{
		if (strcmp(c->samples[k].status, "ok") ||
		    !(xs = sample_series(js, &ys)))
			continue;
		if (!rs->npoints) {
			rs->npoints = json_array_size(xs);
			rs->x = xcalloc(rs->npoints, sizeof(*rs->x));
			rs->y = xcalloc(rs->npoints, sizeof(*rs->y));
			n = xcalloc(rs->npoints, sizeof(*n));
			for (i = 0; i < rs->npoints; i++)
				rs->x[i] =
				    json_number_value(json_array_get(xs, i));
		}
		for (j = 0; j < json_array_size(xs); j++) {
			double x = json_number_value(json_array_get(xs, j));

			for (i = 0; i < rs->npoints && rs->x[i] != x; i++)
				;
			if (i == rs->npoints)
				continue;
			rs->y[i] += json_number_value(json_array_get(ys, j));
			n[i]++;
		}
	}
	for (i = 0; i < rs->npoints; i++)
		rs->y[i] = n[i] ? rs->y[i] / n[i] : NAN;
	free(n);
}

/* The cell's env: where it ran (bare metal or a guest), THP, paging. */
static int cell_load_env(struct report *r, struct report_cell *c, json_t *env)
{
	enum where w;

	if (!json_is_object(env))
		return err("'%s': cell '%s' has no env object", r->path, c->id);
	c->where = jstr(env, AXIS_ENV_WHERE);
	if (!c->where || where_parse(c->where, &w) < 0)
		return err("'%s': cell '%s': env.%s is '%s', not '%s' or '%s'",
			   r->path, c->id, AXIS_ENV_WHERE,
			   nz(c->where), where_name(WHERE_BARE),
			   where_name(WHERE_GUEST));
	c->bare_metal = w == WHERE_BARE;
	c->host_thp = jstr(env, AXIS_ENV_HOST_THP);
	c->guest_thp = jstr(env, AXIS_ENV_GUEST_THP);
	c->paging = jstr(env, AXIS_ENV_PAGING);
	c->backing = jstr(env, AXIS_ENV_BACKING);
	return 0;
}

/* The cell's status, why, why it stopped, and its sample unit. */
static int cell_load_status(struct report *r, struct report_cell *c, json_t *jc)
{
	enum cell_status cs;
	enum stop_reason sr;

	c->status = jstr(jc, "status");
	if (!c->status)
		return err("'%s': cell '%s' has no status", r->path, c->id);
	if (cell_status_parse(c->status, &cs) < 0)
		return err("'%s': cell '%s' has an unknown status '%s' (ok, "
			   "failed, skipped, pending)",
			   r->path, c->id, c->status);
	c->reason = jstr(jc, "reason");
	c->stop_reason = jstr(jc, "stop_reason");
	if (c->stop_reason && stop_reason_parse(c->stop_reason, &sr) < 0)
		return err("'%s': cell '%s' has an unknown stop_reason '%s'",
			   r->path, c->id, c->stop_reason);
	c->unit_boot = sample_unit_is_boot(jstr(jc, "sample_unit"));
	return 0;
}

/* The cell's samples, the ok ones counted, the busy ones said. */
static int cell_load_samples(struct report *r, struct report_cell *c,
			     json_t *samples)
{
	const char *busy_why = NULL;
	json_t *js;
	size_t k;
	int ret;

	if (samples && !json_is_array(samples))
		return err("'%s': cell '%s': samples is not an array", r->path,
			   c->id);
	c->nsamples = json_array_size(samples);
	c->samples =
	    xcalloc(c->nsamples ? c->nsamples : 1, sizeof(*c->samples));
	json_array_foreach(samples, k, js)
	{
		ret = load_sample(r, c->id, js, &c->samples[k]);
		if (ret < 0)
			return ret;
		if (!strcmp(c->samples[k].status, "ok"))
			c->nok++;
		if (c->samples[k].busy && !c->nbusy++)
			busy_why = c->samples[k].busy_why;
	}
	if (c->nbusy)
		c->busy_text = xasprintf(
		    "%zu of %zu samples taken on a busy host (%s)", c->nbusy,
		    c->nsamples, busy_why ? busy_why : "no reason given");
	return 0;
}

int report_load_cell(struct report *r, json_t *jc, size_t i)
{
	struct report_cell *c = &r->cells[i];
	json_t *env, *obs, *samples;
	int ret;

	if (!json_is_object(jc))
		return err("'%s': cells[%zu] is not an object", r->path, i);
	c->id = jstr(jc, "id");
	if (!c->id)
		return err("'%s': cells[%zu] has no id", r->path, i);
	env = json_object_get(jc, "env");
	ret = cell_load_env(r, c, env);
	if (ret == 0)
		ret = cell_load_status(r, c, jc);
	if (ret < 0)
		return ret;
	obs = json_object_get(jc, "observed");
	c->obs_host_thp = jstr(obs, AXIS_ENV_HOST_THP);
	c->obs_guest_thp = jstr(obs, AXIS_ENV_GUEST_THP);
	c->guest_kernel = jstr(obs, "guest_kernel");
	c->ran_on = jstr(obs, "host");
	if (report_find_cell(r, c->id) != (long)i)
		return err("'%s': cell id '%s' appears twice", r->path, c->id);
	ret = report_cell_axes(r, c, jc);
	if (ret < 0)
		return ret;

	samples = json_object_get(jc, "samples");
	ret = cell_load_samples(r, c, samples);
	if (ret < 0)
		return ret;
	cell_series(c, samples);
	if (c->series.npoints)
		r->has_series = true;
	ret = report_cell_kvm(r, c, samples);
	if (ret < 0)
		return ret;
	if (c->kvm.present)
		r->has_kvm = true;
	report_cell_profile(r, c, obs);
	cell_labels(r, c);
	cell_mismatch(c, env, obs);
	return 0;
}
