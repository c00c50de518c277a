/* SPDX-License-Identifier: MIT */
/* The run's axes (docs/axes.md): read and checked, or derived from env. */
#include "knob-path.h"
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "report.h"
#include "util.h"
#include "vocab.h"

long report_find_axis(const struct report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->naxes; i++)
		if (!strcmp(r->axes[i].name, name))
			return (long)i;
	return -1;
}

char *report_axis_names_new(const struct report *r, const char *sep)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < r->naxes; i++) {
		t = xasprintf("%s%s%s", s, i ? sep : "", r->axes[i].name);
		free(s);
		s = t;
	}
	return s;
}

const char *report_axis_heading(const struct report_axis *a)
{
	return vocab_axis_heading(a->name);
}

/* A workload parameter of the run: in workload.params or a cell's params. */
static bool is_param(const struct report *r, json_t *cells, const char *name)
{
	json_t *jc;
	size_t i;

	if (json_object_get(r->wl_params, name))
		return true;
	json_array_foreach(cells, i, jc)
	{
		if (json_object_get(
			json_object_get(json_object_get(jc, "env"), "params"),
			name))
			return true;
	}
	return false;
}

/*
 * A knob-shaped name ([A-Za-z0-9._-], shorter than KNOB_NAME_MAX): a
 * reference transcribed from a seed names knobs this vmtax does not have
 * (seed 004's host.split), and such a name can carry no markup.
 */
static bool knob_shaped(const char *name)
{
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
				"rstuvwxyz0123456789._-");

	return n && !name[n] && n < KNOB_NAME_MAX;
}

static bool known_name(const struct report *r, json_t *cells, const char *name)
{
	if (vocab_axis_find(name)) /* neither a knob nor a parameter */
		return true;
	if (r->fleet_view && !strcmp(name, REPORT_FLEET_AXIS))
		return true; /* a fleet run's hosts (fleet-view.c) */
	/* the names the config loader accepts, nothing else: they reach
	 * every format (docs/security.md) */
	if (!strncmp(name, "host.", 5))
		return host_knob_name_known(name + 5) || knob_shaped(name + 5);
	if (!strncmp(name, "guest.", 6))
		return run_config_guest_knob_name(name + 6) ||
		       knob_shaped(name + 6);
	return wl_param_name_valid(name) && is_param(r, cells, name);
}

/* Axis A's values: distinct strings, at least one. */
static int load_axis_values(struct report *r, struct report_axis *a,
			    json_t *values)
{
	json_t *v;
	size_t k, j;

	if (!json_is_array(values) || !json_array_size(values))
		return err("'%s': axis '%s' has no values", r->path, a->name);
	a->values = xcalloc(json_array_size(values), sizeof(*a->values));
	json_array_foreach(values, k, v)
	{
		if (!json_is_string(v))
			return err("'%s': axis '%s': values[%zu] is not a "
				   "string",
				   r->path, a->name, k);
		a->values[k] = json_string_value(v);
		for (j = 0; j < k; j++)
			if (!strcmp(a->values[j], a->values[k]))
				return err("'%s': axis '%s' lists value '%s' "
					   "twice",
					   r->path, a->name, a->values[k]);
		a->nvalues++;
	}
	return 0;
}

/* A numeric axis's numbers: one finite number per value. */
static int load_axis_numbers(struct report *r, struct report_axis *a,
			     json_t *numbers)
{
	json_t *v;
	size_t k;

	if (json_array_size(numbers) != a->nvalues)
		return err("'%s': axis '%s' is numeric but has not one number "
			   "per value",
			   r->path, a->name);
	a->numbers = xcalloc(a->nvalues, sizeof(*a->numbers));
	json_array_foreach(numbers, k, v)
	{
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return err("'%s': axis '%s': numbers[%zu] is not a "
				   "number",
				   r->path, a->name, k);
		a->numbers[k] = json_number_value(v);
	}
	return 0;
}

static int load_axis(struct report *r, json_t *cells, json_t *ja, size_t i)
{
	struct report_axis *a = &r->axes[i];
	const char *applies;
	int ret;

	if (!json_is_object(ja))
		return err("'%s': axes[%zu] is not an object", r->path, i);
	a->name = json_string_value(json_object_get(ja, "name"));
	if (!a->name || !*a->name)
		return err("'%s': axes[%zu] has no name", r->path, i);
	if (!known_name(r, cells, a->name))
		return err("'%s': unknown axis '%s' (axes are where, paging, "
			   "host-thp, guest-thp, backing, image, kernel, "
			   "initrd, vcpus, memory, cmdline, host.KNOB, "
			   "guest.KNOB and the workload's parameters)",
			   r->path, a->name);
	if (report_find_axis(r, a->name) != (long)i)
		return err("'%s': axis '%s' appears twice", r->path, a->name);
	a->key = json_string_value(json_object_get(ja, "key"));
	applies = json_string_value(json_object_get(ja, "applies"));
	if (!applies || (strcmp(applies, "all") && strcmp(applies, "guest")))
		return err("'%s': axis '%s': applies is '%s', not 'all' or "
			   "'guest'",
			   r->path, a->name, applies ? applies : "");
	a->guest_only = !strcmp(applies, "guest");
	ret = load_axis_values(r, a, json_object_get(ja, "values"));
	if (ret < 0)
		return ret;
	a->numeric = json_is_true(json_object_get(ja, "numeric"));
	if (!a->numeric)
		return 0;
	return load_axis_numbers(r, a, json_object_get(ja, "numbers"));
}

int report_load_axes(struct report *r, json_t *cells)
{
	json_t *axes = json_object_get(r->doc, "axes"), *ja;
	size_t i;
	int ret;

	if (!axes) {
		r->axes_derived = true;
		return 0;
	}
	if (!json_is_array(axes) || !json_array_size(axes))
		return err("'%s': 'axes' is not a non-empty array", r->path);
	r->axes = xcalloc(json_array_size(axes), sizeof(*r->axes));
	json_array_foreach(axes, i, ja)
	{
		r->naxes = i + 1; /* free what was built */
		ret = load_axis(r, cells, ja, i);
		if (ret < 0)
			return ret;
	}
	if (report_find_axis(r, AXIS_NAME_WHERE) < 0)
		return err("'%s': the axes have no '%s' axis", r->path,
			   AXIS_NAME_WHERE);
	return 0;
}

static long value_index(const struct report_axis *a, const char *v)
{
	size_t i;

	for (i = 0; v && i < a->nvalues; i++)
		if (!strcmp(a->values[i], v))
			return (long)i;
	return -1;
}

long report_axis_value_index(const struct report *r, size_t axis,
			     const struct report_cell *c)
{
	return value_index(&r->axes[axis], c->axv[axis]);
}

int report_cell_axes(struct report *r, struct report_cell *c, json_t *jc)
{
	json_t *ja = json_object_get(jc, "axes"), *v;
	const char *name;
	char *vals;
	size_t i;
	long k;

	if (r->axes_derived) {
		if (ja)
			return err("'%s': cell '%s' has axes but the run has "
				   "none",
				   r->path, c->id);
		return 0;
	}
	if (!json_is_object(ja))
		return err("'%s': cell '%s' has no axes object", r->path,
			   c->id);
	c->axv = xcalloc(r->naxes, sizeof(*c->axv));
	json_object_foreach(ja, name, v)
	{
		k = report_find_axis(r, name);
		if (k < 0) {
			vals = report_axis_names_new(r, ", ");
			err("'%s': cell '%s': unknown axis '%s' (the run's "
			    "axes: %s)",
			    r->path, c->id, name, vals);
			free(vals);
			return -EINVAL;
		}
		if (!json_is_string(v))
			return err("'%s': cell '%s': axis '%s' is not a string",
				   r->path, c->id, name);
		c->axv[k] = json_string_value(v);
		if (value_index(&r->axes[k], c->axv[k]) < 0)
			return err("'%s': cell '%s': axis '%s' is '%s', not "
				   "one of its values",
				   r->path, c->id, name, c->axv[k]);
		if (r->axes[k].guest_only && c->bare_metal)
			return err("'%s': cell '%s': axis '%s' applies to "
				   "guests only",
				   r->path, c->id, name);
	}
	for (i = 0; i < r->naxes; i++)
		if (!c->axv[i] && (!r->axes[i].guest_only || !c->bare_metal))
			return err("'%s': cell '%s' has no value for axis "
				   "'%s'",
				   r->path, c->id, r->axes[i].name);
	if (strcmp(c->axv[report_find_axis(r, AXIS_NAME_WHERE)], c->where))
		return err("'%s': cell '%s': axis where is '%s' but env.where "
			   "is '%s'",
			   r->path, c->id, c->axv[report_find_axis(r, AXIS_NAME_WHERE)],
			   c->where);
	return 0;
}

/* Does ID ("guest/paging=ept/...") have a NAME= part? */
static bool id_has(const char *id, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strchr(id, '/'); p; p = strchr(p + 1, '/'))
		if (!strncmp(p + 1, name, n) && p[1 + n] == '=')
			return true;
	return false;
}

/* Derived value of classic axis ID for cell C, or NULL. */
static const char *derived(const struct report_cell *c, enum vocab_axis_id id)
{
	if (vocab_axes[id].guest_only && c->bare_metal)
		return NULL;
	switch (id) {
	case VAX_WHERE:
		return c->where;
	case VAX_HOST_THP:
		return c->host_thp ? c->host_thp : "default";
	case VAX_GUEST_THP:
		return c->guest_thp ? c->guest_thp : "default";
	case VAX_PAGING:
		return c->paging;
	default:
		return c->backing;
	}
}

void report_derive_axes(struct report *r)
{
	size_t n, i, k;

	if (!r->axes_derived)
		return;
	r->axes = xcalloc(VAX_CLASSIC_NR, sizeof(*r->axes));
	for (i = 0; i < r->ncells; i++)
		r->cells[i].axv = xcalloc(VAX_CLASSIC_NR, sizeof(char *));
	for (n = 0; n < VAX_CLASSIC_NR; n++) {
		const struct vocab_axis *va = &vocab_axes[n];
		struct report_axis *a = &r->axes[r->naxes];
		bool in_ids = va->in_ids;

		for (i = 0; !in_ids && i < r->ncells; i++)
			in_ids = id_has(r->cells[i].id, va->name);
		if (!in_ids)
			continue;
		a->name = va->name;
		a->guest_only = va->guest_only;
		a->values = xcalloc(r->ncells, sizeof(*a->values));
		for (i = 0; i < r->ncells; i++) {
			const char *v = derived(&r->cells[i], n);

			r->cells[i].axv[r->naxes] = v;
			if (v && value_index(a, v) < 0)
				a->values[a->nvalues++] = v;
		}
		if (!a->nvalues) {
			free(a->values);
			memset(a, 0, sizeof(*a));
			for (k = 0; k < r->ncells; k++)
				r->cells[k].axv[r->naxes] = NULL;
			continue;
		}
		r->naxes++;
	}
}

void report_axes_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->naxes; i++) {
		free(r->axes[i].values);
		free(r->axes[i].numbers);
	}
	free(r->axes);
}
