/* SPDX-License-Identifier: MIT */
/*
 * fleet-view.c - a fleet run's hosts as one matrix, the host its outermost
 * axis (report.h, report_fleet_doc_new()): 'vmtax report RUN --rows host
 * --cols AXIS' of a run of mode each.  Each host's cells stay that host's
 * (its samples alone: never pooled); the hosts' results are not changed.
 * Pure.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* "ID/host=NAME": a cell of host NAME in the view. */
static json_t *view_id(const char *id, const char *name)
{
	return json_sprintf("%s/" REPORT_FLEET_AXIS "=%s", id ? id : "",
			    name);
}

/* The view's axes: DOC's, the host (NAMES[0..N)) just after where. */
static json_t *view_axes(const json_t *doc, const char *const *names,
			 size_t n)
{
	json_t *axes = json_array(), *values = json_array(), *a;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(values, json_string(names[i]));
	json_array_foreach(json_object_get(doc, "axes"), i, a)
	{
		json_array_append(axes, a);
		if (!i)
			json_array_append_new(
			    axes, json_pack("{s:s, s:o, s:b, s:s}", "name",
					    REPORT_FLEET_AXIS, "values", values,
					    "numeric", 0, "applies", "all"));
	}
	if (!json_array_size(axes))
		json_decref(values);
	return axes;
}

json_t *report_fleet_doc_new(const json_t *const *docs,
			     const char *const *names, size_t n)
{
	json_t *doc, *cells, *c, *copy;
	size_t k, i;

	if (!n || !json_array_size(json_object_get(docs[0], "axes")))
		return NULL;
	doc = json_deep_copy(docs[0]);
	json_object_set_new(doc, "axes", view_axes(docs[0], names, n));
	json_object_set_new(
	    doc, "baseline",
	    view_id(json_string_value(json_object_get(docs[0], "baseline")),
		    names[0]));
	cells = json_array();
	for (k = 0; k < n; k++)
		json_array_foreach(json_object_get(docs[k], "cells"), i, c)
		{
			copy = json_deep_copy(c);
			json_object_set_new(
			    copy, "id",
			    view_id(json_string_value(json_object_get(c, "id")),
				    names[k]));
			if (json_is_object(json_object_get(copy, "axes")))
				json_object_set_new(json_object_get(copy, "axes"),
						    REPORT_FLEET_AXIS,
						    json_string(names[k]));
			json_array_append_new(cells, copy);
		}
	json_object_set_new(doc, "cells", cells);
	return doc;
}
