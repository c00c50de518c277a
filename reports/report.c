/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "beneath.h"
#include "caps.h"
#include "format.h"
#include "results-doc.h"
#include "util.h"

#define FORMAT_REF(NAME) &report_format_##NAME,
const struct report_format *const report_formats[] = {
    REPORT_FORMATS(FORMAT_REF)};
#undef FORMAT_REF
const size_t report_nformats = ARRAY_SIZE(report_formats);

const struct report_format *report_format_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(report_formats); i++)
		if (!strcmp(report_formats[i]->name, name))
			return report_formats[i];
	return NULL;
}

const char *report_format_names(void)
{
#define FORMAT_NAME(NAME) "|" #NAME
	/* past the first '|' */
	return &REPORT_FORMATS(FORMAT_NAME)[1];
#undef FORMAT_NAME
}

static int find_format(const char *format, const struct report_format **f)
{
	*f = report_format_find(format);
	if (!*f)
		return err("unknown format '%s' (formats: %s)", format,
			   report_format_names());
	return 0;
}

static int report_write_matrix(const char *results_path, const char *format,
			       const char *rows, const char *cols, FILE *out);

int report_write(const char *results_path, const char *format, FILE *out)
{
	return report_write_view(results_path, format, NULL, NULL, out);
}

/* "hosts/NAME/results.json", NAME one path component: where a fleet
 * run's host results are (docs/fleet.md). */
static bool fleet_rel_ok(const char *rel)
{
	static const char pre[] = "hosts/", post[] = "/results.json";
	size_t n = strlen(rel), name;

	if (n <= strlen(pre) + strlen(post) || strncmp(rel, pre, strlen(pre)) ||
	    strcmp(rel + n - strlen(post), post))
		return false;
	name = n - strlen(pre) - strlen(post);
	return !memchr(rel + strlen(pre), '/', name) &&
	       strncmp(rel + strlen(pre), "..", name) &&
	       strncmp(rel + strlen(pre), ".", name);
}

int report_fleet_paths(const char *results_path, char ***paths, size_t *n,
		       bool *fleet)
{
	const char *slash = strrchr(results_path, '/');
	json_t *doc, *hosts, *h;
	size_t i;
	int ret;

	*paths = NULL;
	*n = 0;
	*fleet = false;
	ret = results_doc_load(results_path, JSON_REJECT_DUPLICATES, &doc);
	if (ret < 0)
		return ret;
	hosts = json_object_get(json_object_get(doc, "fleet"), "hosts");
	/* a split fleet's cells are one matrix: its report is the run's */
	if (!strcmp(json_string_value(json_object_get(
			json_object_get(doc, "fleet"), "mode")) ?: "",
		    "split"))
		hosts = NULL;
	*fleet = json_is_array(hosts);
	*paths = xcalloc(json_array_size(hosts) + 1, sizeof(**paths));
	json_array_foreach(hosts, i, h)
	{
		const char *rel =
		    json_string_value(json_object_get(h, "results"));

		if (!rel)
			continue;
		if (!fleet_rel_ok(rel)) {
			ret = err("'%s': fleet host results at '%s': not "
				  "hosts/NAME/results.json",
				  results_path, rel);
			json_decref(doc); /* REL was borrowed from it */
			return ret;
		}
		(*paths)[(*n)++] =
		    xasprintf("%.*s%s", slash ? (int)(slash - results_path + 1)
					      : 0,
			      results_path, rel);
	}
	json_decref(doc);
	return 0;
}

/* PATH's host: the NAME of ".../hosts/NAME/results.json".  Borrowed. */
static const char *host_of_path(char *path)
{
	char *end = strrchr(path, '/'), *start;

	*end = '\0';
	start = strrchr(path, '/');
	return start ? start + 1 : path;
}

/*
 * A fleet run's hosts as one matrix (report_fleet_doc_new()), laid out
 * by ROWS and COLS, one of them the host.
 */
static int fleet_view_write(const char *results_path, char **paths,
			    size_t n, const char *format, const char *rows,
			    const char *cols, FILE *out)
{
	const struct report_format *f;
	json_t **docs = xcalloc(n, sizeof(*docs)), *doc = NULL;
	const char **names = xcalloc(n, sizeof(*names));
	struct report *r = NULL;
	char *name;
	size_t k;
	int ret = find_format(format, &f);

	for (k = 0; ret == 0 && k < n; k++) {
		ret = results_doc_load(paths[k], JSON_REJECT_DUPLICATES,
				       &docs[k]);
		if (ret < 0)
			break;
		name = xstrdup(paths[k]);
		names[k] = xstrdup(host_of_path(name));
		free(name);
	}
	if (ret == 0 &&
	    !(doc = report_fleet_doc_new((const json_t *const *)docs, names,
					 n)))
		ret = err("'%s': its hosts' results have no axes (a run of an "
			  "older vmtax): the host cannot be laid out against "
			  "another axis",
			  results_path);
	if (ret == 0)
		ret = report_load_doc(results_path, doc, true, &r);
	if (ret == 0)
		ret = report_set_matrix(r, rows, cols);
	if (ret == 0)
		ret = f->render(r, out);
	report_free(r);
	json_decref(doc);
	for (k = 0; k < n; k++) {
		json_decref(docs[k]);
		free((char *)names[k]);
	}
	free(docs);
	free(names);
	return ret;
}

/* Whether the fleet run at RESULTS_PATH records the host as an axis of
 * its own (report_fleet_has_axis()). */
static bool host_axis_recorded(const char *results_path)
{
	json_t *doc;
	bool has;

	if (results_doc_load(results_path, JSON_REJECT_DUPLICATES, &doc) < 0)
		return false;
	has = report_fleet_has_axis(doc);
	json_decref(doc);
	return has;
}

/*
 * A fleet run's report: its hosts side by side (the first against each
 * other, cell by cell, as 'vmtax compare' puts runs), or the one host's
 * own report.  With --rows or --cols but the plain --rows host, the host
 * against other axes: the run's own matrix when it records the host as an
 * axis, else the one made from its hosts' results.  Its samples are never
 * pooled.
 */
static int fleet_report(const char *results_path, char **paths, size_t n,
			const char *format, const char *rows,
			const char *cols, FILE *out)
{
	const char *slash = strrchr(results_path, '/');
	int dl = slash ? (int)(slash - results_path + 1) : 0;

	if (!n)
		return err("'%s': a fleet run none of whose hosts' results "
			   "came back: see its \"fleet\" hosts' reasons",
			   results_path);
	if ((cols || (rows && strcmp(rows, REPORT_FLEET_AXIS))) &&
	    host_axis_recorded(results_path))
		return report_write_matrix(results_path, format, rows, cols,
					   out);
	/* the host against another axis: one matrix of every host's cells */
	if (rows && cols &&
	    (!strcmp(rows, REPORT_FLEET_AXIS) ||
	     !strcmp(cols, REPORT_FLEET_AXIS)))
		return fleet_view_write(results_path, paths, n, format, rows,
					cols, out);
	/* --rows host: the hosts are the rows already */
	if (cols || (rows && strcmp(rows, REPORT_FLEET_AXIS)))
		return err("'%s': a fleet run's report puts its hosts side by "
			   "side (--rows host), or against one other axis "
			   "(--rows host --cols AXIS); for other --rows and "
			   "--cols report one host: 'vmtax report "
			   "%.*shosts/NAME'",
			   results_path, dl, results_path);
	if (n == 1)
		return report_write_view(paths[0], format, NULL, NULL, out);
	return report_compare_write((const char *const *)paths, n,
				    &(struct compare_opts){.allow_unlike = true},
				    format, out, NULL);
}

int report_write_view(const char *results_path, const char *format,
		      const char *rows, const char *cols, FILE *out)
{
	char **paths = NULL;
	size_t n = 0;
	bool fleet = false;
	int ret;

	ret = report_fleet_paths(results_path, &paths, &n, &fleet);
	if (ret == 0 && fleet)
		ret = fleet_report(results_path, paths, n, format, rows, cols,
				   out);
	if (ret < 0 || fleet) {
		strv_free(paths, n);
		return ret;
	}
	free(paths);
	return report_write_matrix(results_path, format, rows, cols, out);
}

/* RESULTS_PATH's own matrix, laid out by ROWS and COLS (NULL: as is). */
static int report_write_matrix(const char *results_path, const char *format,
			       const char *rows, const char *cols, FILE *out)
{
	const struct report_format *f;
	struct report *r = NULL;
	int ret;

	ret = find_format(format, &f);
	if (ret < 0)
		goto out;
	ret = report_load(results_path, &r);
	if (ret < 0)
		goto out;
	if (rows || cols) {
		ret = report_set_matrix(r, rows, cols);
		if (ret < 0)
			goto out;
	}
	ret = f->render(r, out);
out:
	report_free(r);
	return ret;
}

void report_write_rundir(const char *rundir, const char *results_path)
{
	static const char *const fmts[][2] = {
		{ "text", "report.txt" }, { "md", "report.md" },
		{ "csv", "report.csv" }, { "html", "report.html" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		char *path = xasprintf("%s/%s", rundir, fmts[i][1]);
		FILE *f = fopen_beneath(rundir, fmts[i][1], false);
		int ret = f ? report_write(results_path, fmts[i][0], f) : -EIO;

		if (f)
			fclose(f);
		if (ret < 0) {
			/* The loader said why (e.g. every cell failed) once. */
			unlink(path);
			warn("no reports written: see results.json");
			free(path);
			goto out;
		}
		free(path);
	}
	fflush(stdout);
	report_write(results_path, "text", stdout);
out:
	note("results: %s", results_path);
}

int report_compare_write(const char *const *paths, size_t n,
			 const struct compare_opts *o, const char *format,
			 FILE *out, char **verdict)
{
	const struct report_format *f;
	struct report **runs = xcalloc(n + 1, sizeof(*runs));
	struct compare *c = NULL;
	size_t i;
	int ret;

	if (verdict)
		*verdict = NULL;
	ret = find_format(format, &f);
	if (ret < 0)
		goto out;
	if (!f->render_compare) {
		ret = err("format '%s' cannot show a comparison", format);
		goto out;
	}
	for (i = 0; i < n; i++) {
		ret = report_load(paths[i], &runs[i]);
		if (ret < 0)
			goto out;
	}
	ret = compare_new(runs, n, o, &c);
	if (ret < 0)
		goto out;
	ret = f->render_compare(c, out);
	if (ret == 0 && verdict)
		*verdict = compare_verdict_new(c);
out:
	compare_free(c);
	for (i = 0; i < n; i++)
		report_free(runs[i]);
	free(runs);
	return ret;
}

/* Append "'WHAT' (REASON)" to *LIST, the Nth item (at most 5 shown). */
static void failure_add(char **list, size_t n, const char *what,
			const char *reason)
{
	char *t;

	if (n > 5)
		return;
	t = n == 5 ? xasprintf("%s, ...", *list)
		   : xasprintf("%s%s%s (%s)", *list, n ? ", " : "", what,
			       reason ? reason : "no reason given");
	free(*list);
	*list = t;
}

int report_failures_new(const char *results_path, char **why)
{
	json_t *doc, *cells, *hosts, *x;
	char *list = xstrdup(""), *hlist = xstrdup(""), *what;
	size_t i, n = 0, nh = 0;
	int ret;

	*why = NULL;
	ret = results_doc_load(results_path, JSON_REJECT_DUPLICATES, &doc);
	if (ret < 0)
		goto out;
	cells = json_object_get(doc, "cells");
	json_array_foreach(cells, i, x)
	{
		if (strcmp(json_string_value(json_object_get(x, "status")) ?: "",
			   "failed"))
			continue;
		what = xasprintf("'%s'",
				 json_string_value(json_object_get(x, "id")) ?: "?");
		failure_add(&list, n++, what,
			    json_string_value(json_object_get(x, "reason")));
		free(what);
	}
	hosts = json_object_get(json_object_get(doc, "fleet"), "hosts");
	json_array_foreach(hosts, i, x)
	{
		const char *name =
		    json_string_value(json_object_get(x, "name")) ?: "?";
		json_int_t nf = json_integer_value(
		    json_object_get(json_object_get(x, "cells"), "failed"));

		if (!strcmp(json_string_value(json_object_get(x, "status")) ?: "",
			    "ok") &&
		    (nf <= 0 || report_fleet_has_axis(doc)))
			continue;
		what = xasprintf("host '%s'", name);
		if (nf > 0) {
			char *r = xasprintf("%lld of its cells failed",
					    (long long)nf);

			failure_add(&hlist, nh++, what, r);
			free(r);
		} else {
			failure_add(&hlist, nh++, what,
				    json_string_value(json_object_get(x, "reason")));
		}
		free(what);
	}
	if (n && nh)
		*why = xasprintf("%zu of %zu cells failed: %s; %zu fleet "
				 "hosts with failures: %s",
				 n, json_array_size(cells), list, nh, hlist);
	else if (n)
		*why = xasprintf("%zu of %zu cells failed: %s", n,
				 json_array_size(cells), list);
	else if (nh)
		*why = xasprintf("%zu of %zu fleet hosts with failures: %s", nh,
				 json_array_size(hosts), hlist);
	json_decref(doc);
out:
	free(list);
	free(hlist);
	return ret;
}
