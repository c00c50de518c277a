/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "util.h"

const struct report_format *const report_formats[] = {
    &report_format_text, &report_format_md,   &report_format_csv,
    &report_format_json, &report_format_html,
};
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
	return "text|md|csv|json|html";
}

static int find_format(const char *format, const struct report_format **f)
{
	*f = report_format_find(format);
	if (!*f)
		return err("unknown format '%s' (formats: %s)", format,
			   report_format_names());
	return 0;
}

int report_write(const char *results_path, const char *format, FILE *out)
{
	return report_write_view(results_path, format, NULL, NULL, out);
}

int report_write_view(const char *results_path, const char *format,
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
		FILE *f = fopen_new(path);
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
			 FILE *out)
{
	const struct report_format *f;
	struct report **runs = xcalloc(n + 1, sizeof(*runs));
	struct compare *c = NULL;
	size_t i;
	int ret;

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
out:
	compare_free(c);
	for (i = 0; i < n; i++)
		report_free(runs[i]);
	free(runs);
	return ret;
}
