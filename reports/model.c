/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "caps.h"
#include "sample-unit.h"
#include "report.h"
#include "results-doc.h"
#include "runner.h"
#include "model-json.h"
#include "util.h"

char *report_results_path_new(const char *arg)
{
	int fd = dir_open_path(arg, false, 0, NULL, 0);
	size_t len = strlen(arg);

	if (fd < 0)
		return xstrdup(arg); /* a file, or the read says why not */
	close(fd);
	return xasprintf("%s%sresults.json", arg,
			 len && arg[len - 1] == '/' ? "" : "/");
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
	if (host_virt_hw_paging(paging))
		return host_virt_hw_paging(paging)->label_on;
	/* shadow is the host's hw paging off; of no known vendor, "shadow" */
	if (!strcmp(paging, "shadow") && host_virt_hw(r->vendor))
		return host_virt_hw(r->vendor)->label_off;
	return paging;
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

	for (k = 0; k < REPORT_COUNTERS_MAX; k++) {
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

const char *report_counter_name(const struct report *r, size_t k)
{
	if (r->counter_id[k] == REPORT_COUNTER_RAW)
		return r->counter_raw[k];
	return runner_counter_name(r->counter_id[k]);
}

/* perf stat's derived figures (model.h, struct report_counter_stats). */
static void cell_counter_rates(const struct report *r, struct report_cell *c)
{
	const struct report_counter_stats *tc = &c->counters[RC_TASK_CLOCK];
	size_t k;

	for (k = 0; k < REPORT_COUNTERS_MAX; k++) {
		struct report_counter_stats *cs = &c->counters[k];

		cs->per_sec = cs->cpus = NAN;
		if (cs->state != CS_OK || k >= r->ncounters)
			continue;
		if (tc->state == CS_OK && tc->mean > 0)
			cs->per_sec = cs->mean / (tc->mean / 1e9);
		if (runner_counter_kind(r->counter_id[k]) == RCK_CLOCK &&
		    c->elapsed.mean > 0)
			cs->cpus = cs->mean / (c->elapsed.mean * 1e9);
	}
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

/* r->colgeo from the cells' slowdowns (model.h). */
static void column_geomeans(struct report *r)
{
	double *geo = xcalloc(r->ncells, sizeof(*geo));
	size_t i, j, k;

	free(r->colgeo);
	r->colgeo = xcalloc(r->ncells, sizeof(*r->colgeo));
	r->ncolgeo = 0;
	for (i = 0; i < r->ncells; i++) {
		struct report_colgeo *g;

		for (k = 0; k < r->ncolgeo; k++)
			if (!strcmp(r->colgeo[k].column, r->cells[i].column))
				break;
		if (k < r->ncolgeo)
			continue;
		g = &r->colgeo[r->ncolgeo++];
		g->column = r->cells[i].column;
		for (j = i; j < r->ncells; j++) {
			const struct report_cell *c = &r->cells[j];

			if (strcmp(c->column, g->column))
				continue;
			g->ncells++;
			if (c->vs_base.valid)
				geo[g->n++] = 1 + c->vs_base.delta;
		}
		g->geomean = stats_geomean(geo, g->n) - 1;
	}
	free(geo);
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
	column_geomeans(r);
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
		cell_counter_rates(r, c);
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
	r->remote_libvirt = json_object_get(run, "remote_libvirt");
	if (!json_is_object(r->remote_libvirt))
		r->remote_libvirt = NULL;
	r->fleet_unlike =
	    json_object_get(json_object_get(r->doc, "fleet"), "unlike");
	if (!json_array_size(r->fleet_unlike))
		r->fleet_unlike = NULL;
	host_identity(r, host);
	r->cpus = json_is_integer(json_object_get(host, "cpus"))
			  ? (long)json_integer_value(json_object_get(host, "cpus"))
			  : -1;
	r->mem_bytes = jnum(host, "mem_bytes");
	r->v_vmtax = jstr(ver, "vmtax");
	r->v_libvirt = jstr(ver, "libvirt");
	r->v_qemu = jstr(ver, "qemu");
	r->vendor = host_virt_vendor_named(jstr(host, "cpu_vendor"),
					   r->cpu_model);
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
		ret = report_load_cell(r, jc, i);
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

/* R (its doc loaded) checked and built, into *OUT; R freed on failure. */
static int load_built(struct report *r, struct report **out)
{
	int ret;

	/* The RC_NR always, in their slots; the samples add the others. */
	for (r->ncounters = 0; r->ncounters < RC_NR; r->ncounters++)
		r->counter_id[r->ncounters] = (int)r->ncounters;
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
	report_build_contrasts(r);
	*out = r;
	r = NULL;
out:
	report_free(r);
	return ret;
}

int report_load(const char *path, struct report **out)
{
	struct report *r = xcalloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	r->path = xstrdup(path);
	ret = results_doc_load(path, JSON_REJECT_DUPLICATES, &r->doc);
	if (ret < 0) {
		report_free(r);
		return ret;
	}
	/* a fleet run's hosts, an axis of its own record */
	r->fleet_view = report_fleet_has_axis(r->doc);
	return load_built(r, out);
}

int report_load_doc(const char *path, json_t *doc, bool fleet_view,
		    struct report **out)
{
	struct report *r = xcalloc(1, sizeof(*r));

	*out = NULL;
	r->path = xstrdup(path);
	r->doc = json_incref(doc);
	r->fleet_view = fleet_view;
	return load_built(r, out);
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
		slowdown_cell_release(&r->cells[i].view);
		report_kvm_release(&r->cells[i].kvm);
		report_profile_release(&r->cells[i].prof);
	}
	free(r->cells);
	free(r->colgeo);
	report_matrix_release(&r->matrix);
	report_scaling_free(r);
	report_contrasts_free(r);
	report_axes_free(r);
	free(r->host_word);
	free(r->host_note);
	free(r->metric_warning);
	json_decref(r->doc);
	free(r->path);
	free(r);
}
