/* SPDX-License-Identifier: MIT */
/*
 * fleet-view.c - a fleet run's hosts as one matrix, the host its outermost
 * axis (report.h): the axis, each cell's id and axes with its host (also
 * what a fleet run of mode each records, orchestrator/fleet/fleet-merge.c), and
 * the matrix made from the hosts' results for a run recorded before the
 * host was an axis of results.json (report_fleet_doc_new()).  Each host's
 * cells stay that host's (its samples alone: never pooled).  Pure.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

json_t *report_fleet_id_new(const char *id, const char *name)
{
	const char *slash;

	id = id ? id : "";
	slash = strchr(id, '/');
	if (!slash)
		return json_sprintf("%s/" REPORT_FLEET_AXIS "=%s", id, name);
	return json_sprintf("%.*s/" REPORT_FLEET_AXIS "=%s%s",
			    (int)(slash - id), id, name, slash);
}

void report_fleet_cell_set_host(json_t *cell, const char *name)
{
	json_t *axes = json_object_get(cell, "axes");

	json_object_set_new(
	    cell, "id",
	    report_fleet_id_new(json_string_value(json_object_get(cell, "id")),
				name));
	if (json_is_object(axes))
		json_object_set_new(axes, REPORT_FLEET_AXIS, json_string(name));
}

json_t *report_fleet_axes_new(const json_t *axes, const char *const *names,
			      size_t n)
{
	json_t *out = json_array(), *values = json_array(), *a;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(values, json_string(names[i]));
	json_array_foreach(axes, i, a)
	{
		const char *name =
		    json_string_value(json_object_get(a, "name"));

		if (name && !strcmp(name, REPORT_FLEET_AXIS))
			continue;
		json_array_append(out, a);
		if (!i)
			json_array_append_new(
			    out, json_pack("{s:s, s:s, s:o, s:b, s:s}", "name",
					   REPORT_FLEET_AXIS, "key",
					   REPORT_FLEET_AXIS_KEY, "values",
					   values, "numeric", 0, "applies",
					   "all"));
	}
	if (!json_array_size(out))
		json_decref(values);
	return out;
}

bool report_fleet_has_axis(const json_t *doc)
{
	const json_t *fleet = json_object_get(doc, "fleet"), *a;
	size_t i;

	if (strcmp(json_string_value(json_object_get(fleet, "mode")) ?: "",
		   "each"))
		return false;
	json_array_foreach(json_object_get(doc, "axes"), i, a)
	{
		if (!strcmp(json_string_value(json_object_get(a, "name")) ?: "",
			    REPORT_FLEET_AXIS))
			return true;
	}
	return false;
}

json_t *report_fleet_doc_new(const json_t *const *docs,
			     const char *const *names, size_t n)
{
	json_t *doc, *cells, *c, *copy;
	size_t k, i;

	if (!n || !json_array_size(json_object_get(docs[0], "axes")))
		return NULL;
	doc = json_deep_copy(docs[0]);
	json_object_set_new(
	    doc, "axes",
	    report_fleet_axes_new(json_object_get(docs[0], "axes"), names, n));
	json_object_set_new(
	    doc, "baseline",
	    report_fleet_id_new(
		json_string_value(json_object_get(docs[0], "baseline")),
		names[0]));
	cells = json_array();
	for (k = 0; k < n; k++)
		json_array_foreach(json_object_get(docs[k], "cells"), i, c)
		{
			copy = json_deep_copy(c);
			report_fleet_cell_set_host(copy, names[k]);
			json_array_append_new(cells, copy);
		}
	json_object_set_new(doc, "cells", cells);
	return doc;
}
