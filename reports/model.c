/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "caps.h"
#include "sample-unit.h"
#include "report.h"
#include "run-engine.h"
#include "runner.h"
#include "sampling-plan.h"
#include "util.h"

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

char *report_results_path_new(const char *arg)
{
	struct stat st;
	size_t len = strlen(arg);

	if (!stat(arg, &st) && S_ISDIR(st.st_mode))
		return xasprintf("%s%sresults.json", arg,
				 len && arg[len - 1] == '/' ? "" : "/");
	return xstrdup(arg);
}

long report_find_cell(const struct report *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].id && !strcmp(r->cells[i].id, id))
			return (long)i;
	return -1;
}

char *report_cell_ids_new(const struct report *r, const char *sep)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		t = xasprintf("%s%s%s", s, i ? sep : "", r->cells[i].id);
		free(s);
		s = t;
	}
	return s;
}

const char *report_paging_word(const struct report *r, const char *paging)
{
	if (!paging)
		return "guest";
	if (!strcmp(paging, "tcg"))
		return "TCG";
	if (!strcmp(paging, "ept"))
		return "EPT on";
	if (!strcmp(paging, "npt"))
		return "NPT on";
	if (!strcmp(paging, "shadow"))
		return r->amd ? "NPT off" : "EPT off";
	return paging;
}

static bool backing_shown(const char *backing)
{
	return backing && strcmp(backing, "thp");
}

/* ", vcpus=2, cmdline=\"\"": the axes the classic label does not show. */
static char *extra_axes(const struct report *r, const struct report_cell *c)
{
	static const char *const classic[] = {"where", "paging", "host-thp",
					      "guest-thp", "backing"};
	char *s = xstrdup(""), *t;
	size_t i, k;

	for (i = 0; c->axv && i < r->naxes; i++) {
		const char *v = c->axv[i];

		for (k = 0; k < ARRAY_SIZE(classic); k++)
			if (!strcmp(classic[k], r->axes[i].name))
				break;
		if (!v || k < ARRAY_SIZE(classic))
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
	free(extra);
}

/* "; " between the parts of S so far and the next. */
static void add_evidence(char **s, const char *fmt, const char *v)
{
	char *t;

	if (!v || !*v)
		return;
	t = xasprintf("%s%s", *s, **s ? "; " : "");
	free(*s);
	*s = xasprintf(fmt, t, v);
	free(t);
}

/* r->host_word and r->host_note from run.host (HOST); see model.h. */
static void host_identity(struct report *r, json_t *host)
{
	json_t *virt = json_object_get(host, "virtualized");
	json_t *hv = json_object_get(host, "hypervisor");
	const char *name = jstr(hv, "name");
	char *ev;

	r->host_recorded = virt != NULL;
	if (!r->host_recorded || r->lab || json_is_false(virt)) {
		r->host_word = xstrdup("bare metal");
		return;
	}
	if (!json_is_true(virt)) {
		r->host_word = xstrdup("host (physical or virtual: unknown)");
		r->host_note = xstrdup(
		    "whether this host is physical could not be told (no "
		    "CPUID hypervisor bit, no cpuinfo flags, no other "
		    "evidence): its cells are labelled host, not bare metal, "
		    "and host knobs (host_thp, hugetlb, sysctl) may set a "
		    "virtual machine's kernel rather than a physical one's");
		return;
	}
	r->host_word = name ? xasprintf("host (a %s guest)", name)
			    : xstrdup("host (a virtual machine)");
	ev = xstrdup("");
	add_evidence(&ev, "%skernel: Hypervisor detected: %s",
		     jstr(hv, "kernel_says"));
	add_evidence(&ev, "%sCPUID 0x40000000: '%s'", jstr(hv, "cpuid"));
	if (json_is_true(json_object_get(hv, "cpu_flag")))
		add_evidence(&ev, "%scpuinfo: %s flag", "hypervisor");
	add_evidence(&ev, "%sDMI: %s", jstr(hv, "dmi_product"));
	add_evidence(&ev, "%s/sys/hypervisor: %s", jstr(hv, "sys_hypervisor"));
	r->host_note = xasprintf(
	    "this host is itself a virtual machine (%s): its cells are not "
	    "bare metal, and host knobs (host_thp, hugetlb, sysctl) set this "
	    "virtual machine's kernel, not the physical machine's beneath it",
	    *ev ? ev : "no detail recorded");
	free(ev);
}

static int load_sample(const char *path, const char *id, json_t *js,
		       struct report_sample *s)
{
	json_t *counters, *quiet;
	enum runner_status rs;
	int k;

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
	for (k = 0; k < RC_NR; k++) {
		json_t *v = json_object_get(counters, runner_counter_name(k));

		s->counter[k] = NAN;
		if (!v)
			s->cstate[k] = CS_NOT_COUNTED;
		else if (json_is_number(v)) {
			s->cstate[k] = CS_OK;
			s->counter[k] = json_number_value(v);
		} else
			s->cstate[k] = CS_NOT_SUPPORTED;
	}
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
	if (!json_is_object(env))
		return err("'%s': cell '%s' has no env object", r->path, c->id);
	c->where = jstr(env, "where");
	if (!c->where ||
	    (strcmp(c->where, "bare-metal") && strcmp(c->where, "guest")))
		return err("'%s': cell '%s': env.where is '%s', not "
			   "'bare-metal' or 'guest'",
			   r->path, c->id, nz(c->where));
	c->bare_metal = !strcmp(c->where, "bare-metal");
	c->host_thp = jstr(env, "host_thp");
	c->guest_thp = jstr(env, "guest_thp");
	c->paging = jstr(env, "paging");
	c->backing = jstr(env, "backing");
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
		ret = load_sample(r->path, c->id, js, &c->samples[k]);
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

static int load_cell(struct report *r, json_t *jc, size_t i)
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
	c->obs_host_thp = jstr(obs, "host_thp");
	c->obs_guest_thp = jstr(obs, "guest_thp");
	c->guest_kernel = jstr(obs, "guest_kernel");
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

/* Summarize FIELD (an offset into report_sample) over the ok samples. */
static void summarize_field(const struct report_cell *c, size_t off,
			    struct stats_summary *out)
{
	double *v = xcalloc(c->nsamples ? c->nsamples : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < c->nsamples; i++) {
		const struct report_sample *s = &c->samples[i];
		double x = *(const double *)((const char *)s + off);

		if (!strcmp(s->status, "ok") && !isnan(x))
			v[n++] = x;
	}
	stats_summarize(v, n, out);
	free(v);
}

static void cell_counters(struct report_cell *c)
{
	double *v = xcalloc(c->nsamples ? c->nsamples : 1, sizeof(*v));
	struct stats_summary s;
	size_t i, n;
	int k;

	for (k = 0; k < RC_NR; k++) {
		struct report_counter_stats *cs = &c->counters[k];

		cs->state = c->nok ? CS_OK : CS_NOT_COUNTED;
		cs->mean = cs->rel_sd = NAN;
		for (i = 0, n = 0; i < c->nsamples; i++) {
			const struct report_sample *sm = &c->samples[i];

			if (strcmp(sm->status, "ok"))
				continue;
			if (sm->cstate[k] == CS_NOT_SUPPORTED)
				cs->state = CS_NOT_SUPPORTED;
			else if (sm->cstate[k] == CS_NOT_COUNTED &&
				 cs->state == CS_OK)
				cs->state = CS_NOT_COUNTED;
			else
				v[n++] = sm->counter[k];
		}
		if (cs->state != CS_OK)
			continue;
		stats_summarize(v, n, &s);
		cs->mean = s.mean;
		cs->rel_sd = s.mean ? s.stddev / fabs(s.mean) : NAN;
	}
	free(v);
}

static struct report_ratio counter_ratio(const struct report_cell *c, int num,
					 int den)
{
	struct report_ratio q = {false, NAN};

	if (c->counters[num].state == CS_OK &&
	    c->counters[den].state == CS_OK && c->counters[den].mean > 0) {
		q.valid = true;
		q.value = c->counters[num].mean / c->counters[den].mean;
	}
	return q;
}

/* Each cell's slowdown against the baseline, and their geometric mean. */
static void compute_slowdowns(struct report *r)
{
	const struct report_cell *base = &r->cells[r->baseline];
	double *geo = xcalloc(r->ncells, sizeof(*geo));
	size_t i;

	r->ngeo = 0;
	for (i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];

		c->is_baseline = (long)i == r->baseline;
		(void)base;
		report_cell_slowdown(r, c);
		if (c->is_baseline)
			c->vs_base.valid = false;
		if (c->vs_base.valid)
			geo[r->ngeo++] = 1 + c->vs_base.delta;
	}
	r->geomean_slowdown = stats_geomean(geo, r->ngeo) - 1;
	free(geo);
}

static void compute_stats(struct report *r)
{
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];

		summarize_field(c, offsetof(struct report_sample, metric),
				&c->metric);
		summarize_field(c, offsetof(struct report_sample, elapsed),
				&c->elapsed);
		summarize_field(c, offsetof(struct report_sample, user),
				&c->user);
		summarize_field(c, offsetof(struct report_sample, sys),
				&c->sys);
		cell_counters(c);
		report_cell_sampling(c);
		c->ipc = counter_ratio(c, RC_INSTRUCTIONS, RC_CYCLES);
		c->dtlb_miss_rate =
		    counter_ratio(c, RC_DTLB_LOAD_MISSES, RC_DTLB_LOADS);
	}
	compute_slowdowns(r);
}

/* r->metric_warning: see model.h. */
static void metric_check(struct report *r)
{
	double v = NAN, lo = INFINITY, hi = -INFINITY;
	size_t i, k, n = 0;
	char num[32];

	if (r->metric_is_elapsed)
		return;
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		for (k = 0; k < c->nsamples; k++) {
			double m = c->samples[k].metric;

			if (strcmp(c->samples[k].status, "ok") || isnan(m))
				continue;
			if (isnan(v))
				v = m;
			else if (m != v)
				return;
		}
		if (c->nok && !isnan(c->elapsed.mean)) {
			lo = fmin(lo, c->elapsed.mean);
			hi = fmax(hi, c->elapsed.mean);
			n++;
		}
	}
	if (n < 2 || isnan(v) || !(lo > 0) ||
	    hi / lo - 1 <= REPORT_CONSTANT_ELAPSED)
		return;
	snprintf(num, sizeof(num), "%.10g", v);
	r->metric_warning = xasprintf(
	    "the metric is %s %s in every ok sample of every cell, while the "
	    "cells' mean elapsed times range from %.3g s to %.3g s: it cannot "
	    "tell the cells apart (a constant count?); capture a rate or a "
	    "time instead",
	    num, r->wl_unit, lo, hi);
}

int report_set_baseline(struct report *r, const char *id)
{
	long i = report_find_cell(r, id);
	char *ids;

	if (i < 0) {
		ids = report_cell_ids_new(r, "|");
		err("'%s': no cell '%s' to take as the baseline (its cells: "
		    "%s)",
		    r->path, id, ids);
		free(ids);
		return -EINVAL;
	}
	if (!r->file_baseline_id)
		r->file_baseline_id = r->baseline_id;
	r->baseline = i;
	r->baseline_id = r->cells[i].id;
	compute_slowdowns(r);
	return 0;
}

/* The run's own facts: name, status, times, config, host and versions. */
static void load_run(struct report *r)
{
	json_t *run = json_object_get(r->doc, "run");
	json_t *host = json_object_get(run, "host");
	json_t *ver = json_object_get(run, "versions");

	r->run_name = nz(jstr(run, "name"));
	r->run_status = nz(jstr(run, "status"));
	r->started = jstr(run, "started");
	r->finished = jstr(run, "finished");
	r->config_path = jstr(run, "config_path");
	r->config_text = jstr(run, "config_text");
	r->hostname = jstr(host, "hostname");
	r->kernel = jstr(host, "kernel");
	r->cpu_model = jstr(host, "cpu_model");
	r->accel = jstr(host, "accel");
	r->accel_reason = jstr(host, "accel_reason");
	r->lab = json_object_get(r->doc, "lab");
	r->schedule = json_object_get(r->doc, "schedule");
	r->seed = (unsigned long long)json_integer_value(
		json_object_get(r->schedule, "seed"));
	if (!r->seed)
		r->seed = 1;
	if (!json_is_object(r->lab))
		r->lab = NULL;
	host_identity(r, host);
	r->cpus = json_is_integer(json_object_get(host, "cpus"))
			  ? (long)json_integer_value(json_object_get(host, "cpus"))
			  : -1;
	r->mem_bytes = jnum(host, "mem_bytes");
	r->v_vmtax = jstr(ver, "vmtax");
	r->v_libvirt = jstr(ver, "libvirt");
	r->v_qemu = jstr(ver, "qemu");
	r->amd = r->cpu_model && strstr(r->cpu_model, "AMD");
}

/* The workload: a name, a metric, and which way is better. */
static int load_workload(struct report *r)
{
	json_t *wl = json_object_get(r->doc, "workload");

	if (!json_is_object(wl))
		return err("'%s': no 'workload' object", r->path);
	r->wl_name = jstr(wl, "name");
	r->wl_description = nz(jstr(wl, "description"));
	r->wl_metric = jstr(wl, "metric");
	r->wl_unit = nz(jstr(wl, "unit"));
	r->wl_better = jstr(wl, "better");
	r->wl_params = json_object_get(wl, "params");
	if (!r->wl_name || !r->wl_metric)
		return err("'%s': workload needs a 'name' and a 'metric'",
			   r->path);
	if (!r->wl_better ||
	    (strcmp(r->wl_better, "lower") && strcmp(r->wl_better, "higher")))
		return err("'%s': workload.better is '%s', not 'lower' or "
			   "'higher'",
			   r->path, nz(r->wl_better));
	r->higher_better = !strcmp(r->wl_better, "higher");
	r->metric_is_elapsed = !strcmp(r->wl_metric, "elapsed");
	return 0;
}

/*
 * The axes and every cell; how many cells were measured (an ok sample)
 * and how many failed into *MEASURED and *FAILED.
 */
static int load_cells(struct report *r, size_t *measured, size_t *failed)
{
	json_t *cells = json_object_get(r->doc, "cells"), *jc;
	size_t i;
	int ret;

	if (!json_is_array(cells))
		return err("'%s': no 'cells' array", r->path);
	if (!json_array_size(cells))
		return err("'%s': empty run: no cells", r->path);
	ret = report_load_axes(r, cells);
	if (ret < 0)
		return ret;
	r->ncells = json_array_size(cells);
	r->cells = xcalloc(r->ncells, sizeof(*r->cells));
	json_array_foreach(cells, i, jc)
	{
		ret = load_cell(r, jc, i);
		if (ret < 0) {
			r->ncells = i + 1; /* free what was built */
			return ret;
		}
		if (r->cells[i].nok)
			(*measured)++;
		if (!strcmp(r->cells[i].status, "failed"))
			(*failed)++;
	}
	report_derive_axes(r);
	return 0;
}

static int load_doc(struct report *r)
{
	const char *schema;
	size_t measured = 0, failed = 0;
	int ret;

	if (!json_is_object(r->doc))
		return err("'%s': not a JSON object", r->path);
	schema = jstr(r->doc, "schema");
	if (!schema)
		return err("'%s': no 'schema' string; not a vmtax results file",
			   r->path);
	if (strcmp(schema, RESULTS_SCHEMA))
		return err("'%s': unknown schema '%s' (this vmtax reads '%s')",
			   r->path, schema, RESULTS_SCHEMA);
	load_run(r);
	ret = load_workload(r);
	if (ret == 0)
		ret = load_cells(r, &measured, &failed);
	if (ret < 0)
		return ret;

	r->baseline_id = jstr(r->doc, "baseline");
	if (!r->baseline_id)
		return err("'%s': no baseline cell id", r->path);
	r->baseline = report_find_cell(r, r->baseline_id);
	if (r->baseline < 0)
		return err("'%s': baseline '%s' is not a cell of this run",
			   r->path, r->baseline_id);
	if (!measured && failed)
		return err("'%s': every measured cell failed (%zu of %zu); "
			   "nothing to report",
			   r->path, failed, r->ncells);
	if (!measured)
		return err("'%s': empty run: no cell has an ok sample",
			   r->path);
	return 0;
}

int report_load(const char *path, struct report **out)
{
	struct report *r = xcalloc(1, sizeof(*r));
	json_error_t jerr;
	char *text = NULL;
	size_t len;
	int ret;

	*out = NULL;
	r->path = xstrdup(path);
	ret = read_file(path, RESULTS_FILE_MAX, &text, &len);
	if (ret < 0) {
		ret = err_code(ret, "cannot read '%s'", path);
		goto out;
	}
	r->doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!r->doc) {
		ret = err("'%s': corrupt JSON at line %d: %s", path, jerr.line,
			  jerr.text);
		goto out;
	}
	ret = load_doc(r);
	if (ret < 0)
		goto out;
	compute_stats(r);
	metric_check(r);
	report_profiles_diff(r);
	ret = report_set_matrix(r, NULL, NULL);
	if (ret < 0)
		goto out;
	report_build_scaling(r);
	*out = r;
	r = NULL;
out:
	free(text);
	report_free(r);
	return ret;
}

void report_free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->cells && i < r->ncells; i++) {
		free(r->cells[i].samples);
		free(r->cells[i].series.x);
		free(r->cells[i].series.y);
		free(r->cells[i].label);
		free(r->cells[i].column);
		free(r->cells[i].mismatch_text);
		free(r->cells[i].busy_text);
		free(r->cells[i].axv);
		report_kvm_release(&r->cells[i].kvm);
		report_profile_release(&r->cells[i].prof);
	}
	free(r->cells);
	report_matrix_release(&r->matrix);
	report_scaling_free(r);
	report_axes_free(r);
	free(r->host_word);
	free(r->host_note);
	free(r->metric_warning);
	json_decref(r->doc);
	free(r->path);
	free(r);
}
