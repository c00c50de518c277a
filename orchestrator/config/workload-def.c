/* SPDX-License-Identifier: MIT */
#include "workload-def.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <libgen.h>
#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run-estimate.h"
#include "util.h"

#define W(f) offsetof(struct workload, f)
#define KEY(nm, ty, field, dflt, ...)                                          \
	{                                                                      \
		.section = "workload", .name = nm, .type = ty,                 \
		.offset = W(field), .def = dflt, __VA_ARGS__                   \
	}

static const char *const metrics[] = {"elapsed", "regex", NULL};
static const char *const betters[] = {"lower", "higher", NULL};
static const char *const scratches[] = {WL_SCRATCH_TMPFS, WL_SCRATCH_DISK,
					NULL};

/* Whether RE compiles as a POSIX ERE with at least GROUPS groups. */
static bool ere_with_groups(const char *re, size_t groups)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED) != 0)
		return false;
	ok = r.re_nsub >= groups;
	regfree(&r);
	return ok;
}

static int check_metric_regex(const char *v, char *msg, size_t len)
{
	if (!*v || ere_with_groups(v, 1))
		return 0;
	snprintf(msg, len,
		 "metric_regex '%s' is not a POSIX ERE with a capture group",
		 v);
	return -EINVAL;
}

static int check_series_regex(const char *v, char *msg, size_t len)
{
	if (!*v || ere_with_groups(v, 2))
		return 0;
	snprintf(msg, len,
		 "series_regex '%s' is not a POSIX ERE with two capture groups",
		 v);
	return -EINVAL;
}

static int check_packages(const char *v, char *msg, size_t len)
{
	const char *p;
	size_t n;

	for (p = package_next(v, &n); p; p = package_next(p + n, &n))
		if (!debian_package_name(p, n)) {
			snprintf(
			    msg, len,
			    "packages: '%.*s' is not a Debian package name",
			    (int)n, p);
			return -EINVAL;
		}
	return 0;
}

static int finish_run(const struct ini_key *k, void *obj,
		      const struct ini_origin *o, char *msg, size_t len)
{
	const struct workload *w = obj;

	(void)k;
	(void)o;
	if (w->run && *w->run)
		return 0;
	snprintf(msg, len, "[workload] has no 'run' command");
	return -EINVAL;
}

static int finish_metric(const struct ini_key *k, void *obj,
			 const struct ini_origin *o, char *msg, size_t len)
{
	const struct workload *w = obj;

	(void)k;
	(void)o;
	if (strcmp(w->metric, "regex") || *w->metric_regex)
		return 0;
	snprintf(msg, len, "metric = regex needs 'metric_regex'");
	return -EINVAL;
}

/* The estimate reads, over the parameters' defaults. */
static int finish_estimate(const struct ini_key *k, void *obj,
			   const struct ini_origin *o, char *msg, size_t len)
{
	const struct workload *w = obj;
	const char **names = xcalloc(w->nparams + 1, sizeof(*names));
	const char **values = xcalloc(w->nparams + 1, sizeof(*values));
	double x;
	size_t i;
	int ret = 0;

	(void)k;
	(void)o;
	for (i = 0; i < w->nparams; i++) {
		names[i] = w->params[i].name;
		values[i] = w->params[i].value;
	}
	/* a parameter with no default is said after (workload_load()) */
	for (i = 0; i < w->nparams && values[i]; i++)
		;
	if (*w->estimate && i == w->nparams)
		ret = est_declared_eval(w->estimate, names, values, w->nparams,
					&x, NULL, msg, len);
	free(names);
	free(values);
	return ret;
}

static const struct ini_key workload_keys[] = {
    KEY("description", INI_STR, description, "", .help = "one line"),
    KEY("setup", INI_STR, setup, "",
	.help = "shell command run once per cell before the samples (not "
		"measured)"),
    KEY("run", INI_STR, run, NULL, .finish = finish_run,
	.help = "the measured shell command"),
    KEY("clean", INI_STR, clean, "",
	.help = "shell command run once per cell after the samples"),
    KEY("metric", INI_ENUM, metric, "elapsed", .choices = metrics,
	.finish = finish_metric,
	.help = "elapsed time, or a regex over the output"),
    KEY("metric_regex", INI_STR, metric_regex, "", .check = check_metric_regex,
	.help = "POSIX ERE; the first group is the value"),
    KEY("series_regex", INI_STR, series_regex, "", .check = check_series_regex,
	.help =
	    "POSIX ERE applied to every output line; groups 1 and 2 are x, y"),
    KEY("unit", INI_STR, unit, "s", .help = "unit of the metric"),
    KEY("better", INI_ENUM, better, "lower", .choices = betters,
	.help = "which way is better"),
    KEY("packages", INI_STR, packages, "", .check = check_packages,
	.help = "Debian packages the guest image needs"),
    KEY("timeout", INI_DOUBLE, timeout_s, "0", .min = 0, .max = 7 * 86400,
	.help = "seconds one sample may take (0: the run's timeout)"),
    KEY("estimate", INI_STR, estimate, "", .finish = finish_estimate,
	.help = "seconds one sample takes on bare metal, a sum of terms, "
		"each a number or a number * a PARAMETER (\"0.0034 * "
		"SIZE_MIB + 0.00000046 * READS\"): 'vmtax run --dry-run' "
		"estimates with it until the workload has run on the host"),
    KEY("estimate_tcg", INI_DOUBLE, estimate_tcg, "0", .min = 0, .max = 1000,
	.help = "how many times slower a sample runs under TCG emulation "
		"(a TCG guest, the lab) than on bare metal, for the estimate "
		"(0: assumed 10; memory-bound code about 1, code that "
		"computes 10 to 20)"),
    KEY("scratch", INI_ENUM, scratch, WL_SCRATCH_TMPFS, .choices = scratches,
	.help = "the kind of file system of the commands' scratch working "
		"directory ($VMTAX_WORKDIR), the same on both sides: tmpfs "
		"(bare metal: under /dev/shm; a guest: /tmp) or disk (bare "
		"metal: in the run directory; the debian image: /var/tmp on "
		"its ext4 root; not in the tiny image, which has no disk)"),
};

static const char *const workload_extra[] = {"param.*", NULL};
static const struct ini_schema workload_schema = {
    workload_keys,
    ARRAY_SIZE(workload_keys),
    workload_extra,
};

const struct ini_schema *workload_def_schema(void)
{
	return &workload_schema;
}

/* ---- [param.NAME] ---- */

/* The types a parameter may declare, by name (enum ini_type). */
static const struct {
	const char *name;
	enum ini_type type;
} param_types[] = {
    {"string", INI_STR}, {"int", INI_INT},   {"number", INI_DOUBLE},
    {"size", INI_SIZE},	 {"enum", INI_ENUM},
};

static const char *param_type_name(enum ini_type t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(param_types); i++)
		if (param_types[i].type == t)
			return param_types[i].name;
	return "string";
}

/* The keys of a [param.NAME] section, each with its rule: it takes VALUE
 * (from LINE) into P, or writes why not into WHY. */
struct param_key {
	const char *name;
	const char *type; /* as the man page says it */
	int (*take)(struct wl_param *p, int line, const char *value,
		    char *why, size_t len);
	const char *help;
};

static int take_default(struct wl_param *p, int line, const char *value,
			char *why, size_t len)
{
	/* a default is one value, commas and all */
	struct ini_list l = {xcalloc(1, sizeof(char *)), 1, NULL};

	(void)why;
	(void)len;
	l.v[0] = xstrdup(value);
	wl_param_set(p, &l);
	p->default_line = line;
	return 0;
}

static int take_description(struct wl_param *p, int line, const char *value,
			    char *why, size_t len)
{
	(void)line;
	(void)why;
	(void)len;
	free(p->description);
	p->description = xstrdup(value);
	return 0;
}

static int take_type(struct wl_param *p, int line, const char *value,
		     char *why, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(param_types); i++)
		if (!strcmp(value, param_types[i].name)) {
			p->key.type = param_types[i].type;
			p->type_line = line;
			return 0;
		}
	snprintf(why, len,
		 "type '%s' is not one of: string, int, number, size, enum",
		 value);
	return -EINVAL;
}

static int take_bound(char **dst, const char *value, char *why, size_t len)
{
	if (!*value) {
		snprintf(why, len, "empty bound");
		return -EINVAL;
	}
	free(*dst);
	*dst = xstrdup(value);
	return 0;
}

static int take_min(struct wl_param *p, int line, const char *value,
		    char *why, size_t len)
{
	p->bound_line = line;
	return take_bound(&p->min, value, why, len);
}

static int take_max(struct wl_param *p, int line, const char *value,
		    char *why, size_t len)
{
	p->bound_line = line;
	return take_bound(&p->max, value, why, len);
}

static int take_choices(struct wl_param *p, int line, const char *value,
			char *why, size_t len)
{
	struct ini_list l = {0};
	size_t i, j;

	p->choices_line = line;
	if (ini_list_parse(value, &l, why, len) < 0)
		return -EINVAL;
	for (i = 0; i < l.n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(l.v[i], l.v[j])) {
				snprintf(why, len, "choice '%s' is listed twice",
					 l.v[i]);
				ini_list_free(&l);
				return -EINVAL;
			}
	if (!l.n) {
		snprintf(why, len, "no choices (give at least one)");
		return -EINVAL;
	}
	free_strv(p->choices);
	p->choices = xcalloc(l.n + 1, sizeof(char *));
	for (i = 0; i < l.n; i++)
		p->choices[i] = xstrdup(l.v[i]);
	p->key.choices = (const char *const *)p->choices;
	ini_list_free(&l);
	return 0;
}

static const struct param_key param_keys[] = {
    {"default", "string", take_default,
     "the value when the run config does not override it; a value of the "
     "parameter's type"},
    {"description", "string", take_description,
     "one line, shown by 'vmtax workloads'"},
    {"type", "choice", take_type,
     "what every value of the parameter is: string (any text, the "
     "default), int, number, size (512M, 2G, 4096), or enum (one of "
     "choices).  Its default, each override in a run config and each "
     "--set workload.NAME=VALUE is checked where it is written, with its "
     "file:line, exit status 2"},
    {"min", "as type", take_min,
     "int, number or size: the least value (inclusive)"},
    {"max", "as type", take_max,
     "int, number or size: the greatest value (inclusive)"},
    {"choices", "string,..", take_choices,
     "enum: the values it may take, comma separated"},
};

void workload_print_man(FILE *f)
{
	size_t i;

	ini_print_man(&workload_schema, f);
	fputs(".SS [param.NAME]\n"
	      "One section per parameter; NAME is [A\\-Z][A\\-Z0\\-9_]* and "
	      "reaches the commands as the environment variable NAME, its "
	      "value as written.\n",
	      f);
	for (i = 0; i < ARRAY_SIZE(param_keys); i++) {
		fprintf(f, ".TP\n.B %s\n\\fI%s\\fR: ", param_keys[i].name,
			param_keys[i].type);
		ini_man_text(f, param_keys[i].help);
		fputs(".\n", f);
	}
}

/* A bound of P as its type, into *OUT; -EINVAL with WHY. */
static int param_bound(const struct wl_param *p, const char *text,
		       double *out, char *why, size_t len)
{
	struct ini_key k = p->key;
	union ini_value v;
	char *end;

	k.min = k.type == INI_INT ? (double)LONG_MIN : -DBL_MAX;
	k.max = 0;
	if (ini_value_check(&k, text, why, len) < 0)
		return -EINVAL;
	if (k.type == INI_SIZE) {
		ini_parse_size(text, &v.sz);
		*out = (double)v.sz;
	} else {
		*out = strtod(text, &end);
	}
	return 0;
}

/* P's declaration, whole after the file: its bounds and choices fit its
 * type, and its default is one of its values.  -EINVAL, reported. */
static int param_finish(const char *path, struct wl_param *p)
{
	bool ranged = p->key.type == INI_INT || p->key.type == INI_DOUBLE ||
		      p->key.type == INI_SIZE;
	int line = p->type_line ? p->type_line : p->line;
	char why[600];

	p->key.section = "param";
	p->key.name = p->name;
	p->key.min = p->key.type == INI_INT	  ? (double)LONG_MIN
		     : p->key.type == INI_DOUBLE ? -DBL_MAX
						 : 0;
	if ((p->min || p->max) && !ranged)
		return err_plain("%s:%d: [param.%s] min and max are for type = "
				 "int, number or size, not %s",
				 path, p->bound_line, p->name,
				 param_type_name(p->key.type));
	if (p->choices && p->key.type != INI_ENUM)
		return err_plain("%s:%d: [param.%s] choices are for type = "
				 "enum, not %s",
				 path, p->choices_line, p->name,
				 param_type_name(p->key.type));
	if (p->key.type == INI_ENUM && !p->choices)
		return err_plain("%s:%d: [param.%s] type = enum needs "
				 "'choices'",
				 path, line, p->name);
	line = p->bound_line;
	if (p->min && param_bound(p, p->min, &p->key.min, why, sizeof(why)) < 0)
		return err_plain("%s:%d: [param.%s] min: %s", path, line,
				 p->name, why);
	if (p->max && param_bound(p, p->max, &p->key.max, why, sizeof(why)) < 0)
		return err_plain("%s:%d: [param.%s] max: %s", path, line,
				 p->name, why);
	/* ini-schema.h: a max of 0 is no bound; a declared 0 is one */
	if (p->max && p->key.max == 0)
		p->key.max = p->key.type == INI_INT ? 0.5 : DBL_MIN;
	if (p->min && p->max && p->key.min > p->key.max)
		return err_plain("%s:%d: [param.%s] min %s is above max %s",
				 path, line, p->name, p->min, p->max);
	if (!p->values.n)
		return err_plain("%s:%d: [param.%s] has no default", path,
				 p->line, p->name);
	if (ini_value_check(&p->key, p->value, why, sizeof(why)) < 0) {
		char type[256];

		wl_param_type_str(p, type, sizeof(type));
		return err_plain("%s:%d: [param.%s] default: %s (type %s)", path,
				 p->default_line, p->name, why, type);
	}
	return 0;
}

void wl_param_type_str(const struct wl_param *p, char *buf, size_t len)
{
	size_t off, i;

	off = (size_t)snprintf(buf, len, "%s", param_type_name(p->key.type));
	if (p->min && p->max)
		snprintf(buf + off, len - off, " from %s to %s", p->min, p->max);
	else if (p->min)
		snprintf(buf + off, len - off, " of at least %s", p->min);
	else if (p->max)
		snprintf(buf + off, len - off, " of at most %s", p->max);
	for (i = 0; p->choices && p->choices[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : ": one of ", p->choices[i]);
}

int wl_param_check(const struct wl_param *p, const char *path,
		   const char *value, char *why, size_t len)
{
	char reason[600], type[256];

	if (ini_value_check(&p->key, value, reason, sizeof(reason)) == 0)
		return 0;
	wl_param_type_str(p, type, sizeof(type));
	snprintf(why, len, "%s (%s is %s %s, %s:%d)", reason, p->name,
		 strchr("aeiou", type[0]) ? "an" : "a", type, path,
		 p->type_line ? p->type_line : p->line);
	return -EINVAL;
}

void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

struct wl_param *wl_param_find(struct wl_param *p, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

struct wl_param *wl_param_add(struct wl_param **p, size_t *n, const char *name)
{
	struct wl_param *q;

	*p = xgrow(*p, *n, sizeof(**p));
	q = &(*p)[(*n)++];
	memset(q, 0, sizeof(*q));
	q->name = xstrdup(name);
	return q;
}

void wl_param_set(struct wl_param *p, struct ini_list *l)
{
	ini_list_free(&p->values);
	p->values = *l;
	p->value = l->n ? l->v[0] : NULL;
	l->v = NULL;
	l->n = 0;
}

void wl_params_free(struct wl_param *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].name);
		ini_list_free(&p[i].values);
		free(p[i].description);
		free_strv(p[i].choices);
		free(p[i].min);
		free(p[i].max);
	}
	free(p);
}

static int workload_extra_key(void *arg, const char *path, int line,
			      const char *section, const char *name,
			      const char *value)
{
	struct workload *w = arg;
	const char *pname = section + strlen("param.");
	struct wl_param *p;
	char why[600];
	size_t i;

	if (!wl_param_name_valid(pname))
		return err_plain("%s:%d: parameter name '%s' must be upper "
				 "case letters, digits and '_'",
				 path, line, pname);
	/* a section appears once (ini-schema.c): its keys come together,
	 * so its parameter is the last one or a new one */
	p = w->nparams ? &w->params[w->nparams - 1] : NULL;
	if (p && strcmp(p->name, pname))
		p = NULL;
	if (!p) {
		p = wl_param_add(&w->params, &w->nparams, pname);
		p->line = line;
	}
	for (i = 0; i < ARRAY_SIZE(param_keys); i++) {
		if (strcmp(name, param_keys[i].name))
			continue;
		if (param_keys[i].take(p, line, value, why, sizeof(why)) < 0)
			return err_plain("%s:%d: [param.%s] %s: %s", path, line,
					 pname, name, why);
		return 0;
	}
	return -ENOENT;
}

int workload_load(const char *path, struct workload *w)
{
	char *text = NULL, *base;
	size_t i;
	int ret;

	memset(w, 0, sizeof(*w));
	w->path = xstrdup(path);
	base = xstrdup(basename(w->path));
	if (strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".ini"))
		base[strlen(base) - 4] = '\0';
	w->name = base;
	ret = ini_read_file(path, &text);
	if (ret < 0)
		goto out;
	ret = ini_parse_text(&workload_schema, w, &w->origin, w->path, text,
			     workload_extra_key, w);
	if (ret < 0)
		goto out;
	ret = ini_finish(&workload_schema, w, &w->origin);
	if (ret < 0)
		goto out;
	for (i = 0; i < w->nparams && ret == 0; i++)
		ret = param_finish(path, &w->params[i]);
out:
	free(text);
	if (ret < 0)
		workload_release(w);
	return ret;
}

void workload_release(struct workload *w)
{
	ini_release(&workload_schema, w);
	wl_params_free(w->params, w->nparams);
	free(w->name);
	free(w->path);
	memset(w, 0, sizeof(*w));
}

char **workload_env_new(const struct workload *w)
{
	char **env = xcalloc(w->nparams + 1, sizeof(*env));
	size_t i;

	for (i = 0; i < w->nparams; i++)
		env[i] =
		    xasprintf("%s=%s", w->params[i].name, w->params[i].value);
	return env;
}

static int ini_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

int workload_packages_all(const char *dir, char **list, size_t max,
			  size_t *n)
{
	struct dirent **ents = NULL;
	int k, i, ret = 0;

	k = scandir(dir, &ents, ini_file, alphasort);
	if (k < 0)
		return 0; /* no workloads: no extra packages */
	for (i = 0; i < k; i++) {
		char *path = xasprintf("%s/%s", dir, ents[i]->d_name);
		const char *p;
		struct workload w;
		size_t len;

		if (workload_load(path, &w) < 0) {
			ret = -EINVAL;
		} else {
			for (p = package_next(w.packages, &len); p;
			     p = package_next(p + len, &len)) {
				if (*n == max) {
					ret = err("image: more than %zu workload "
						  "packages",
						  max);
					break;
				}
				list[(*n)++] = xstrndup(p, len);
			}
			workload_release(&w);
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	return ret;
}
