/* SPDX-License-Identifier: MIT */
/*
 * fleet-merge.c - what came back from a fleet's hosts, as this run records
 * it (fleet.h): one label for the run, each cell's outcome on every host
 * (mode each), or each cell from the one host that ran it (mode split),
 * and (mode split) the hosts that differ from the first.
 * Samples stay in each host's own results (RUN/hosts/NAME/results.json):
 * they are never pooled across hosts.  Pure.
 */
#include "fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-diff.h"
#include "report.h"
#include "util.h"

static const char *const counted[] = {"ok", "failed", "skipped", "pending"};

static const json_t *host_cell(const struct fleet_host_result *h, size_t i)
{
	return h->doc ? json_array_get(json_object_get(h->doc, "cells"), i)
		      : NULL;
}

/* {"ok": N, "failed": N, ...} of H's cells. */
static json_t *cell_counts(const struct fleet_host_result *h)
{
	json_t *o = json_object(), *c;
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(counted); k++)
		json_object_set_new(o, counted[k], json_integer(0));
	json_array_foreach(json_object_get(h->doc, "cells"), i, c)
	{
		const char *st =
		    json_string_value(json_object_get(c, "status"));

		for (k = 0; st && k < ARRAY_SIZE(counted); k++)
			if (!strcmp(st, counted[k]))
				json_object_set_new(
				    o, st,
				    json_integer(json_integer_value(
						     json_object_get(o, st)) +
						 1));
	}
	return o;
}

static bool host_ok(const struct fleet_host_result *h)
{
	return !h->why && h->doc && h->rc == 0;
}

static json_t *host_entry(const struct fleet_host_result *h)
{
	const json_t *host =
	    json_object_get(json_object_get(h->doc, "run"), "host");
	json_t *e = json_object();
	char *why = NULL;

	if (!host_ok(h))
		why = h->why ? xstrdup(h->why)
			     : xasprintf("the run there exited with status %d",
					 h->rc);
	json_object_set_new(e, "name", json_string(h->name));
	json_object_set_new(e, "status",
			    json_string(host_ok(h) ? "ok" : "failed"));
	json_object_set_new(e, "reason", why ? json_string(why) : json_null());
	json_object_set_new(e, "exit_status",
			    h->rc >= 0 ? json_integer(h->rc) : json_null());
	json_object_set_new(
	    e, "results",
	    h->doc ? json_sprintf(FLEET_SUBDIR "/%s/results.json", h->name)
		   : json_null());
	if (!host)
		host = h->host;
	json_object_set_new(e, "host",
			    host ? json_deep_copy(host) : json_null());
	json_object_set_new(e, "cells", cell_counts(h));
	free(why);
	return e;
}

/* H's run.host as check() compared it: its probe's, else its results'. */
static const json_t *compared_host(const struct fleet_host_result *h)
{
	return h->host ? h->host
		       : json_object_get(json_object_get(h->doc, "run"),
					 "host");
}

json_t *fleet_unlike_new(const struct fleet_host_result *h, size_t n)
{
	json_t *unlike = json_array(), *fields;
	const char *names[HOST_DIFF_MAX];
	char text[1024];
	size_t i, j, nd;

	for (i = 1; i < n; i++) {
		nd = host_diff(compared_host(&h[0]), compared_host(&h[i]),
			       names, HOST_DIFF_MAX);
		if (!nd)
			continue;
		host_diff_text(compared_host(&h[0]), compared_host(&h[i]),
			       text, sizeof(text));
		fields = json_array();
		for (j = 0; j < nd; j++)
			json_array_append_new(fields, json_string(names[j]));
		json_array_append_new(
		    unlike, json_pack("{s:s, s:s, s:o, s:s}", "host", h[i].name,
				      "differs_from", h[0].name, "fields",
				      fields, "text", text));
	}
	if (!json_array_size(unlike)) {
		json_decref(unlike);
		return NULL;
	}
	return unlike;
}

json_t *fleet_label_new(const char *mode, const struct fleet_host_result *h,
			size_t n)
{
	json_t *hosts = json_array(), *label, *unlike = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(hosts, host_entry(&h[i]));
	label = json_pack("{s:s, s:o}", "mode", mode, "hosts", hosts);
	if (!strcmp(mode, fleet_modes[FLEET_SPLIT]))
		unlike = fleet_unlike_new(h, n);
	if (unlike)
		json_object_set_new(label, "unlike", unlike);
	return label;
}

/* Cell I on host H: its status word and reason (borrowed or static). */
static const char *cell_on(const struct fleet_host_result *h, size_t i,
			   const char **reason)
{
	const json_t *c = host_cell(h, i);
	const char *st = json_string_value(json_object_get(c, "status"));

	*reason = json_string_value(json_object_get(c, "reason"));
	/* a cell cut short there: why the host failed (its connection) */
	if (st && strcmp(st, "ok") && h->why)
		*reason = h->why;
	if (st)
		return st;
	*reason = h->why ? h->why : "no results came back";
	return "failed";
}

const char *fleet_cell_merge(const struct fleet_host_result *h, size_t n,
			     size_t i, char **reason, json_t **observed)
{
	const char *status = "ok", *st, *why;
	json_t *hosts = json_object();
	size_t k;

	*reason = NULL;
	for (k = 0; k < n; k++) {
		const json_t *c = host_cell(&h[k], i);

		st = cell_on(&h[k], i, &why);
		json_object_set_new(
		    hosts, h[k].name,
		    json_pack("{s:s, s:s?, s:I}", "status", st, "reason", why,
			      "samples",
			      (json_int_t)json_array_size(
				  json_object_get(c, "samples"))));
		if (!strcmp(status, "ok") && strcmp(st, "ok")) {
			status = st;
			*reason = xasprintf("host '%s': %s", h[k].name,
					    why ? why : st);
		}
	}
	*observed = json_pack("{s:o}", "hosts", hosts);
	return status;
}

size_t fleet_split_host(size_t ci, size_t nhosts)
{
	return nhosts ? ci % nhosts : 0;
}

char *fleet_split_cells_new(size_t k, size_t nhosts, size_t ncells)
{
	char *s = xstrdup(""), *prev;
	size_t i;

	for (i = 0; i < ncells; i++) {
		if (fleet_split_host(i, nhosts) != k)
			continue;
		prev = s;
		s = xasprintf("%s%s%zu", prev, *prev ? "," : "", i);
		free(prev);
	}
	return s;
}

/* Cell I as its host H ran it (TMPL[I] when H has no results: its id,
 * axes and env), with what this run records of it. */
static json_t *split_cell(const struct fleet_host_result *h, const json_t *tmpl,
			  size_t i)
{
	const json_t *src = host_cell(h, i);
	json_t *c, *obs, *merged;
	char *reason = NULL;
	const char *word = fleet_cell_merge(h, 1, i, &reason, &merged);

	c = json_deep_copy(src ? src : json_array_get(tmpl, i));
	if (!src) {
		json_object_set_new(c, "samples", json_array());
		json_object_set_new(c, "stop_reason", json_null());
		json_object_set_new(c, "observed", json_object());
		json_object_del(c, "plan");
		json_object_del(c, "variance");
	}
	json_object_set_new(c, "status", json_string(word));
	if (reason)
		json_object_set_new(c, "reason", json_string(reason));
	obs = json_object_get(c, "observed");
	if (!json_is_object(obs)) {
		obs = json_object();
		json_object_set_new(c, "observed", obs);
	}
	json_object_set_new(obs, "host", json_string(h->name));
	json_object_set(obs, "hosts", json_object_get(merged, "hosts"));
	json_decref(merged);
	free(reason);
	return c;
}

json_t *fleet_split_doc_new(const struct fleet_host_result *h, size_t n,
			    size_t ncells)
{
	const json_t *tmpl = NULL;
	json_t *doc, *cells;
	bool complete = true;
	size_t i, k;

	for (k = 0; k < n; k++) {
		const char *st = json_string_value(json_object_get(
		    json_object_get(h[k].doc, "run"), "status"));

		if (!tmpl && h[k].doc)
			tmpl = h[k].doc;
		complete &= st && !strcmp(st, "complete");
	}
	if (!tmpl)
		return NULL;
	doc = json_deep_copy(tmpl);
	cells = json_array();
	for (i = 0; i < ncells; i++)
		json_array_append_new(
		    cells, split_cell(&h[fleet_split_host(i, n)],
				      json_object_get(tmpl, "cells"), i));
	json_object_set_new(doc, "cells", cells);
	json_object_set_new(json_object_get(doc, "run"), "status",
			    json_string(complete ? "complete" : "interrupted"));
	return doc;
}

/* Host H's fingerprint: from its results' run.host, else its probe's. */
static json_t *host_fingerprint(const struct fleet_host_result *h)
{
	const json_t *fp = json_object_get(
	    json_object_get(json_object_get(h->doc, "run"), "host"),
	    "fingerprint");

	if (!fp)
		fp = json_object_get(h->host, "fingerprint");
	return fp ? json_deep_copy(fp) : json_null();
}

json_t *fleet_each_cells_new(const struct fleet_host_result *h, size_t n,
			     json_t *head, const json_t *own)
{
	const char **names;
	json_t *cells, *c;
	size_t i, k, ncells = json_array_size(own);

	names = xcalloc(n ? n : 1, sizeof(*names));
	for (k = 0; k < n; k++)
		names[k] = h[k].name;
	json_object_set_new(
	    head, "axes",
	    report_fleet_axes_new(json_object_get(head, "axes"), names, n));
	json_object_set_new(
	    head, "baseline",
	    report_fleet_id_new(
		json_string_value(json_object_get(head, "baseline")),
		names[0]));
	cells = json_array();
	for (k = 0; k < n; k++)
		for (i = 0; i < ncells; i++) {
			c = split_cell(&h[k], own, i);
			/* its host is an axis here, not where it ran */
			json_object_del(json_object_get(c, "observed"), "host");
			report_fleet_cell_set_host(c, h[k].name);
			json_object_set_new(
			    c, REPORT_FLEET_AXIS,
			    json_pack("{s:s, s:o}", "name", h[k].name,
				      "fingerprint", host_fingerprint(&h[k])));
			json_array_append_new(cells, c);
		}
	free(names);
	return cells;
}

/* ID without its "/host=NAME" (report_fleet_id_new()'s).  Owned. */
static char *id_unhosted_new(const char *id)
{
	const char *seg = strstr(id, "/" REPORT_FLEET_AXIS "="), *end;

	if (!seg)
		return xstrdup(id);
	end = strchr(seg + 1, '/');
	return xasprintf("%.*s%s", (int)(seg - id), id, end ? end : "");
}

static void set_unhosted_id(json_t *o, const char *key)
{
	const char *id = json_string_value(json_object_get(o, key));
	char *s;

	if (!id)
		return;
	s = id_unhosted_new(id);
	json_object_set_new(o, key, json_string(s));
	free(s);
}

void fleet_each_cells_undo(json_t *doc)
{
	json_t *axes = json_object_get(doc, "axes"), *a, *cells, *c, *own;
	const char *first = NULL;
	size_t i, at = 0;

	if (!report_fleet_has_axis(doc))
		return;
	json_array_foreach(axes, i, a)
	{
		if (strcmp(json_string_value(json_object_get(a, "name")) ?: "",
			   REPORT_FLEET_AXIS))
			continue;
		first = json_string_value(
		    json_array_get(json_object_get(a, "values"), 0));
		at = i;
		break;
	}
	cells = json_object_get(doc, "cells");
	own = json_array();
	json_array_foreach(cells, i, c)
	{
		json_t *cax = json_object_get(c, "axes");
		const char *h = json_string_value(
		    json_object_get(cax, REPORT_FLEET_AXIS));

		if (!first || !h || strcmp(h, first))
			continue;
		c = json_deep_copy(c);
		json_object_del(json_object_get(c, "axes"), REPORT_FLEET_AXIS);
		json_object_del(c, REPORT_FLEET_AXIS);
		json_object_set_new(c, "samples", json_array());
		set_unhosted_id(c, "id");
		json_array_append_new(own, c);
	}
	json_object_set_new(doc, "cells", own);
	json_array_remove(axes, at);
	set_unhosted_id(doc, "baseline");
}
