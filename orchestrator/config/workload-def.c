/* SPDX-License-Identifier: MIT */
#include "workload-def.h"

#include <ctype.h>
#include <errno.h>
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

void workload_print_man(FILE *f)
{
	ini_print_man(&workload_schema, f);
	fputs(".SS [param.NAME]\n"
	      "One section per parameter; NAME is [A\\-Z][A\\-Z0\\-9_]* and "
	      "reaches the commands as the environment variable NAME.\n"
	      ".TP\n.B default\n\\fIstring\\fR: the value when the run "
	      "config does not override it.\n"
	      ".TP\n.B description\n\\fIstring\\fR: one line, shown by "
	      "\\fBvmtax workloads\\fR.\n",
	      f);
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
	if (!strcmp(name, "default")) {
		/* a default is one value, commas and all */
		struct ini_list l = {xcalloc(1, sizeof(char *)), 1, NULL};

		l.v[0] = xstrdup(value);
		wl_param_set(p, &l);
	} else if (!strcmp(name, "description")) {
		free(p->description);
		p->description = xstrdup(value);
	} else {
		return -ENOENT;
	}
	return 0;
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
	ret = -EINVAL;
	for (i = 0; i < w->nparams; i++)
		if (!w->params[i].values.n) {
			err_plain("%s:%d: [param.%s] has no default", path,
				  w->params[i].line, w->params[i].name);
			goto out;
		}
	ret = 0;
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
