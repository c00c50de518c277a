/* SPDX-License-Identifier: MIT */
/*
 * run-config-load.c - reading a run config through its key table
 * (run-config.c): the file, --set, the keys the table does not name
 * ([host] and [guest] knobs, [workload] parameters), the workload it
 * names; errors at a key's line; release; the resolved config as JSON.
 */
#include "run-config.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "knob-path.h"
#include "util.h"

/* The host knobs the matrix sets itself, and the key that sets each. */
static const struct {
	const char *knob, *key;
} matrix_knobs[] = {
    {"thp.enabled", "[matrix] host_thp"},
    {KNOB_PAGING, "[matrix] paging"},
    {"hugetlb.2M", "[matrix] backing"},
    {"hugetlb.1G", "[matrix] backing"},
};

int run_config_host_knob_check(const char *name, char *msg, size_t len)
{
	const char *k, *best = NULL;
	unsigned d, bestd = 3;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(matrix_knobs); i++)
		if (!strcmp(name, matrix_knobs[i].knob)) {
			snprintf(msg, len,
				 "host knob '%s' is set by %s, not in [host]",
				 name, matrix_knobs[i].key);
			return -EINVAL;
		}
	if (!strncmp(name, KNOB_PREFIX_CPUFREQ, strlen(KNOB_PREFIX_CPUFREQ))) {
		snprintf(msg, len,
			 "host knob '%s' is set by [run] governor (every "
			 "cpufreq policy at once), not in [host]",
			 name);
		return -EINVAL;
	}
	for (i = 0; (k = host_knob_name(i)); i++) {
		if (!strcmp(name, k))
			return 0;
		d = ini_edit_distance(name, k);
		if (d < bestd)
			bestd = d, best = k;
	}
	if (knob_name_valid(name))
		return 0;
	if (best)
		snprintf(
		    msg, len,
		    "unknown host knob '%s' in [host] (did you mean '%s'?)",
		    name, best);
	else
		snprintf(msg, len,
			 "unknown host knob '%s' in [host] (a registered knob, "
			 "or sysctl.A.B, mm.A.B)",
			 name);
	return -EINVAL;
}

/*
 * VALUE as the values of a knob or parameter: a list, no element twice; an
 * empty value is one empty element for a parameter, an error for a knob.
 */
static int parse_values(const char *value, bool knob, struct ini_list *out,
			char *why, size_t len)
{
	size_t i, j;

	if (ini_list_parse(value, out, why, len) < 0)
		return -EINVAL;
	if (!out->n && !knob) {
		out->v = xcalloc(1, sizeof(char *));
		out->v[out->n++] = xstrdup("");
	}
	if (!out->n) {
		snprintf(why, len, "empty value (give at least one)");
		return -EINVAL;
	}
	for (i = 0; i < out->n; i++) {
		if (knob && !*out->v[i]) {
			snprintf(why, len, "a knob value may not be empty");
			goto bad;
		}
		if (knob && strlen(out->v[i]) >= KNOB_VALUE_MAX) {
			snprintf(why, len,
				 "'%s' is too long (at most %d characters)",
				 out->v[i], KNOB_VALUE_MAX - 1);
			goto bad;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(out->v[i], out->v[j])) {
				snprintf(why, len, "'%s' is listed twice",
					 out->v[i]);
				goto bad;
			}
	}
	return 0;
bad:
	ini_list_free(out);
	return -EINVAL;
}

static struct knob_setting *knob_find(struct knob_setting *k, size_t n,
				      const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(k[i].name, name))
			return &k[i];
	return NULL;
}

static void knobs_free(struct knob_setting *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(k[i].name);
		ini_list_free(&k[i].values);
	}
	free(k);
}

/*
 * Set knob NAME of SECTION ("host" or "guest") to VALUE, from LINE (-1:
 * --set, which replaces the file's values).  WHERE prefixes messages
 * ("path:line" or "--set '...'").
 */
static int set_knob(struct run_config *c, const char *where, int line,
		    const char *section, const char *name, const char *value)
{
	bool host = !strcmp(section, "host");
	struct knob_setting **ks = host ? &c->host_knobs : &c->guest_knobs;
	size_t *n = host ? &c->nhost_knobs : &c->nguest_knobs;
	struct knob_setting *k;
	struct ini_list l;
	char why[600];

	if (host && run_config_host_knob_check(name, why, sizeof(why)) < 0)
		return err_plain("%s: %s", where, why);
	/* the file sets a key once (ini-schema.c says so): --set replaces */
	k = line < 0 ? knob_find(*ks, *n, name) : NULL;
	if (parse_values(value, true, &l, why, sizeof(why)) < 0)
		return err_plain("%s: bad value for '%s': %s", where, name,
				 why);
	if (!k) {
		*ks = xgrow(*ks, *n, sizeof(**ks));
		k = &(*ks)[(*n)++];
		k->name = xstrdup(name);
	} else {
		ini_list_free(&k->values);
	}
	k->values = l;
	k->line = line;
	return 0;
}

/* Override workload parameter NAME with VALUE from LINE (-1: --set). */
static int set_param(struct run_config *c, const char *where, int line,
		     const char *name, const char *value)
{
	/* the file sets a key once (ini-schema.c says so): --set replaces */
	struct wl_param *p =
	    line < 0 ? wl_param_find(c->overrides, c->noverrides, name) : NULL;
	struct ini_list l;
	char why[600];

	if (parse_values(value, false, &l, why, sizeof(why)) < 0)
		return err_plain("%s: bad value for '%s': %s", where, name,
				 why);
	if (!p)
		p = wl_param_add(&c->overrides, &c->noverrides, name);
	wl_param_set(p, &l);
	p->override_line = line;
	return 0;
}

/*
 * Keys the table does not name: [workload] NAME (a parameter), [host] KNOB,
 * [guest] sysctl.X / mm.X.  -ENOENT lets the parser say "unknown key" with
 * a did-you-mean.
 */
static int run_extra_key(void *arg, const char *path, int line,
			 const char *section, const char *name,
			 const char *value)
{
	struct run_config *c = arg;
	char *where = xasprintf("%s:%d", path, line);
	int ret = -ENOENT;

	if (!strcmp(section, "workload")) {
		if (wl_param_name_valid(name))
			ret = set_param(c, where, line, name, value);
	} else if (!strcmp(section, "host")) {
		ret = set_knob(c, where, line, section, name, value);
	} else if (!strcmp(section, "guest")) {
		if (run_config_guest_knob_name(name)) {
			ret = set_knob(c, where, line, section, name, value);
		} else if (!strncmp(name, KNOB_PREFIX_SYSCTL,
				    strlen(KNOB_PREFIX_SYSCTL)) ||
			   !strncmp(name, KNOB_PREFIX_MM,
				    strlen(KNOB_PREFIX_MM))) {
			ret = err_plain("%s: '%s' is not a guest knob name "
					"(sysctl.A.B or mm.A.B, components of "
					"letters, digits, '_', '-')",
					where, name);
		}
	}
	free(where);
	return ret;
}

void run_config_error(const struct run_config *c, size_t key, const char *fmt,
		      ...)
{
	int line = ini_line_at(run_config_schema(), &c->origin, key);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		err_plain("%s:%d: %s", c->path, line, msg);
	else
		err_plain("%s: %s", c->path, msg);
}

static int apply_set(struct run_config *c, const char *set)
{
	char *copy = xstrdup(set), *eq, *dot, *where, *name;
	int ret = -EINVAL;

	where = xasprintf("--set '%s'", set);
	eq = strchr(copy, '=');
	dot = strchr(copy, '.');
	if (!eq || !dot || dot > eq) {
		err_plain("%s: expected SECTION.KEY=VALUE", where);
		goto out;
	}
	*eq = '\0';
	*dot = '\0';
	name = dot + 1;
	if (!strcmp(copy, "workload") && wl_param_name_valid(name))
		ret = set_param(c, where, -1, name, eq + 1);
	else if (!strcmp(copy, "host") ||
		 (!strcmp(copy, "guest") && run_config_guest_knob_name(name)))
		ret = set_knob(c, where, -1, copy, name, eq + 1);
	else
		ret = ini_set(run_config_schema(), c, &c->origin, copy, name,
			      eq + 1, where);
out:
	free(where);
	free(copy);
	return ret;
}

static int resolve_workload(struct run_config *c)
{
	char *dircopy = xstrdup(c->path), *dir, *path = NULL, why[1024];
	size_t i, k;
	int ret = -EINVAL;

	if (!c->workload_name || !*c->workload_name) {
		err_plain("%s: [workload] name is missing", c->path);
		goto out;
	}
	dir = dirname(dircopy);
	if (c->workload_dir[0] == '/')
		path =
		    xasprintf("%s/%s.ini", c->workload_dir, c->workload_name);
	else
		path = xasprintf("%s/%s/%s.ini", dir, c->workload_dir,
				 c->workload_name);
	if (access(path, R_OK) < 0) {
		run_config_error(c, RUN_CONFIG_KEY(workload_name),
				 "unknown workload '%s' (no '%s')",
				 c->workload_name, path);
		goto out;
	}
	if (workload_load(path, &c->wl) < 0)
		goto out;
	info("%s: workload '%s' from '%s'", c->path, c->workload_name, path);
	for (i = 0; i < c->noverrides; i++) {
		struct wl_param *o = &c->overrides[i];
		struct wl_param *p =
		    wl_param_find(c->wl.params, c->wl.nparams, o->name);
		struct ini_list l;

		if (!p) {
			if (o->override_line > 0)
				err_plain("%s:%d: workload '%s' has no "
					  "parameter '%s'",
					  c->path, o->override_line,
					  c->workload_name, o->name);
			else
				err_plain("--set: workload '%s' has no "
					  "parameter '%s'",
					  c->workload_name, o->name);
			goto out;
		}
		for (k = 0; k < o->values.n; k++) {
			if (wl_param_check(p, path, o->values.v[k], why,
					   sizeof(why)) == 0)
				continue;
			if (o->override_line > 0)
				err_plain("%s:%d: workload parameter %s: %s",
					  c->path, o->override_line, o->name,
					  why);
			else
				err_plain("--set workload.%s=%s: %s", o->name,
					  o->values.v[k], why);
			goto out;
		}
		ini_list_copy(&l, &o->values);
		wl_param_set(p, &l);
		p->override_line = o->override_line;
	}
	ret = 0;
out:
	free(path);
	free(dircopy);
	return ret;
}

int run_config_load(const char *path, const char *const *sets, size_t nsets,
		    struct run_config *c)
{
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	ret = ini_read_file(path, &c->text);
	if (ret < 0)
		return ret;
	ret = ini_parse_text(run_config_schema(), c, &c->origin, c->path,
			     c->text, run_extra_key, c);
	if (ret < 0)
		return ret;
	for (i = 0; i < nsets; i++)
		if (apply_set(c, sets[i]) < 0)
			return -EINVAL;
	if (ini_finish(run_config_schema(), c, &c->origin) < 0 ||
	    run_config_remote_check(c) < 0)
		return -EINVAL;
	return resolve_workload(c);
}

double run_config_sample_timeout(const struct run_config *c)
{
	return c->wl.timeout_s > 0 ? c->wl.timeout_s : c->timeout_s;
}

void run_config_release(struct run_config *c)
{
	ini_release(run_config_schema(), c);
	wl_params_free(c->overrides, c->noverrides);
	knobs_free(c->host_knobs, c->nhost_knobs);
	knobs_free(c->guest_knobs, c->nguest_knobs);
	workload_release(&c->wl);
	free(c->path);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/* One value as itself, a list as an array. */
static json_t *values_json(const struct ini_list *l)
{
	json_t *a;
	size_t i;

	if (l->n == 1)
		return json_string(l->v[0]);
	a = json_array();
	for (i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

json_t *run_config_to_json(const struct run_config *c)
{
	json_t *j = ini_to_json(run_config_schema(), c);
	json_t *params = json_object();
	json_t *host = json_object(), *guest = json_object_get(j, "guest");
	size_t i;

	for (i = 0; i < c->wl.nparams; i++)
		json_object_set_new(params, c->wl.params[i].name,
				    values_json(&c->wl.params[i].values));
	json_object_set_new(json_object_get(j, "workload"), "params", params);
	for (i = 0; i < c->nhost_knobs; i++)
		json_object_set_new(host, c->host_knobs[i].name,
				    values_json(&c->host_knobs[i].values));
	if (c->nhost_knobs)
		json_object_set_new(j, "host", host);
	else
		json_decref(host);
	for (i = 0; i < c->nguest_knobs; i++)
		json_object_set_new(guest, c->guest_knobs[i].name,
				    values_json(&c->guest_knobs[i].values));
	return j;
}
