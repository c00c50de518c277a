/* SPDX-License-Identifier: MIT */
/*
 * html: one self-contained page - inline CSS and SVG, no scripts, no
 * external references - so it can be mailed, archived and opened offline.
 * The heatmap, bar and series charts are in fmt-html-charts.c, the
 * scaling chart of each numeric axis in fmt-html-scaling.c, comparisons in
 * fmt-html-compare.c.  A run with KVM evidence has a KVM section: per
 * guest cell a <table class="kvm" data-id=ID> of the top exit reasons, or a
 * <p class="na" data-id=ID> with why it has none.
 */
#include "format.h"
#include "fmt-walk.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "util.h"


static void esc(FILE *out, const char *s)
{
	fmt_html_escape(out, s);
}

/* S escaped, with "±" as its entity (a table's "(±0.13%)"). */
static void esc_pm(FILE *out, const char *s)
{
	const char *pm;

	while ((pm = strstr(s, "±"))) {
		char *part = xstrndup(s, pm - s);

		esc(out, part);
		free(part);
		fputs("&plusmn;", out);
		s = pm + strlen("±");
	}
	esc(out, s);
}

/*
 * Table T (fmt-walk.h) as an HTML table of class CLASS with data-id ID
 * (each may be NULL); frees it.  A row with an id has it as data-id; a
 * cell not measured spans the rest of its row with its reason.
 */
static void html_table(struct fmt_table *t, const char *class, const char *id,
		       FILE *out)
{
	size_t row, col;

	fprintf(out, "<table");
	if (class)
		fprintf(out, " class=\"%s\"", class);
	if (id) {
		fprintf(out, " data-id=\"");
		esc(out, id);
		fprintf(out, "\"");
	}
	fprintf(out, ">\n<tr>");
	for (col = 0; col < t->ncols; col++) {
		fprintf(out, "<th>");
		esc_pm(out, t->head[col] ? t->head[col] : "");
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n");
	for (row = 0; row < t->nrows; row++) {
		fprintf(out, "<tr");
		if (t->row_id[row]) {
			fprintf(out, " data-id=\"");
			esc(out, t->row_id[row]);
			fprintf(out, "\"");
		}
		fprintf(out, ">");
		for (col = 0; col < t->ncols; col++) {
			const struct fmt_cell *c = fmt_table_cell(t, row, col);

			if (c->flags & FMT_CELL_SKIP)
				fprintf(out,
					"<td colspan=\"%zu\" class=\"skip\">",
					t->ncols - col);
			else
				fprintf(out, c->flags & FMT_CELL_NA
						 ? "<td class=\"na\">"
						 : "<td>");
			if ((c->flags & FMT_CELL_RAW) &&
			    !(c->flags & FMT_CELL_NA))
				fputs(c->text, out);
			else
				esc_pm(out, c->text);
			if (c->note && (c->flags & FMT_CELL_SKIP)) {
				fprintf(out, ": ");
				esc(out, c->note);
			} else if (c->note) {
				fprintf(out, "<br><small>");
				esc(out, c->note);
				fprintf(out, "</small>");
			}
			fprintf(out, "</td>");
			if (c->flags & FMT_CELL_SKIP)
				break;
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
	fmt_table_free(t);
}

static void kv(FILE *out, const char *k, const char *v)
{
	fprintf(out, "<tr><th>%s</th><td>", k);
	esc(out, v ? v : "n/a");
	fprintf(out, "</td></tr>\n");
}

/* The host's rows of the run table: name, kernel, CPU, memory, accel. */
static void html_meta_host(const struct report *r, FILE *out)
{
	char buf[FMT_BUF], *lab = fmt_lab_new(r);
	char *remote = fmt_remote_libvirt_new(r);

	kv(out, "host", r->hostname);
	kv(out, "kernel", r->kernel);
	kv(out, "cpu", r->cpu_model);
	if (r->cpus < 0)
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), "%ld", r->cpus);
	kv(out, "cpus", buf);
	if (isnan(r->mem_bytes))
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), "%.1f GiB",
			 r->mem_bytes / (1 << 30));
	kv(out, "memory", buf);
	kv(out, "accel", r->accel);
	kv(out, "accel reason", r->accel_reason);
	if (lab)
		kv(out, "lab host (every cell ran inside it)", lab);
	free(lab);
	if (remote)
		kv(out, "remote libvirt", remote);
	free(remote);
	if (r->host_note)
		kv(out, "host identity", r->host_note);
	lab = fmt_fleet_unlike_new(r);
	if (lab)
		kv(out, "unlike hosts", lab);
	free(lab);
}

static void html_meta(const struct report *r, FILE *out)
{
	char buf[FMT_BUF], *axes;
	const char *k;
	json_t *v;

	fprintf(out, "<h2>Run</h2>\n<table class=\"meta\">\n");
	kv(out, "run", r->run_name);
	kv(out, "status", r->run_status);
	kv(out, "started", r->started);
	kv(out, "finished", r->finished);
	kv(out, "workload", r->wl_name);
	kv(out, "description", r->wl_description);
	snprintf(buf, sizeof(buf), "%s in %s, %s", r->wl_metric, r->wl_unit,
		 fmt_better(r));
	kv(out, "metric", buf);
	json_object_foreach(r->wl_params, k, v)
	{
		fprintf(out, "<tr><th>param ");
		esc(out, k);
		fprintf(out, "</th><td>");
		esc(out, json_is_string(v) ? json_string_value(v) : "?");
		fprintf(out, "</td></tr>\n");
	}
	kv(out, "baseline", r->baseline_id);
	if ((axes = fmt_axes_new(r))) {
		kv(out, "axes", axes);
		free(axes);
	}
	html_meta_host(r, out);
	if (r->metric_warning)
		kv(out, "&#9888; warning", r->metric_warning);
	kv(out, "vmtax", r->v_vmtax);
	kv(out, "libvirt", r->v_libvirt);
	kv(out, "qemu", r->v_qemu);
	kv(out, "config", r->config_path);
	fprintf(out, "</table>\n");
	if (r->config_text) {
		fprintf(out, "<details><summary>config text</summary><pre>");
		esc(out, r->config_text);
		fprintf(out, "</pre></details>\n");
	}
}

static void html_cells(const struct report *r, FILE *out)
{
	fprintf(out, "<h2>Cells</h2>\n");
	html_table(fmt_walk_cells_new(r), NULL, NULL, out);
}

static void html_counters(const struct report *r, FILE *out)
{
	fprintf(out, "<h2>Counters</h2>\n<p>mean (&plusmn; stddev/mean), "
		     "and perf stat's derived figures</p>\n");
	html_table(fmt_walk_counters_new(r), NULL, NULL, out);
}

static void html_matrix_table(const struct report *r, FILE *out)
{
	fprintf(out, "<h2>Slowdown matrix</h2>\n<p>vs ");
	esc(out, r->cells[r->baseline].label);
	fprintf(out, "; ");
	esc(out, FMT_MATRIX_KEY);
	fprintf(out, "</p>\n");
	html_table(fmt_walk_matrix_new(r), NULL, NULL, out);
}

/* What KVM saw per guest cell; nothing for a run without KVM evidence. */
static void html_kvm(const struct report *r, FILE *out)
{
	char buf[512];
	size_t i;

	if (!r->has_kvm)
		return;
	fprintf(out, "<h2>KVM</h2>\n<p>what KVM saw of each guest, per "
		     "sample</p>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		const struct report_kvm *k = &c->kvm;

		if (!fmt_kvm_shown(r, c))
			continue;
		fprintf(out, "<h3>");
		esc(out, c->label);
		fprintf(out, "</h3>\n");
		if (!k->present) {
			fprintf(out, "<p class=\"na\" data-id=\"");
			esc(out, c->id);
			fprintf(out, "\">no evidence: ");
			esc(out, k->why);
			fprintf(out, "</p>\n");
			continue;
		}
		fprintf(out, "<p>");
		esc(out, fmt_kvm_summary(buf, sizeof(buf), k));
		fprintf(out, "</p>\n");
		if (!k->nreason_samples) {
			fprintf(out, "<p class=\"na\">exits by reason n/a: ");
			esc(out, k->reasons_why);
			fprintf(out, "</p>\n");
		} else
			html_table(fmt_walk_kvm_new(k), "kvm", c->id, out);
		if (*fmt_kvm_counter_list(buf, sizeof(buf), k)) {
			fprintf(out, "<p>per sample: ");
			esc(out, buf);
			fprintf(out, "</p>\n");
		}
	}
}

static void html_observed(const struct report *r, FILE *out)
{
	size_t i;

	fprintf(out, "<h2>Requested and observed settings</h2>\n<table>\n"
		     "<tr><th>cell</th><th>status</th><th>host THP requested"
		     "</th><th>observed</th><th>guest THP requested</th>"
		     "<th>observed</th><th>guest kernel</th><th></th></tr>\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		fprintf(out, "<tr%s><td>",
			c->mismatch || c->busy_text ? " class=\"flag\"" : "");
		esc(out, c->id);
		fprintf(out, "</td><td>");
		esc(out, c->status);
		if (c->reason) {
			fprintf(out, ": ");
			esc(out, c->reason);
		}
		fprintf(out, "</td><td>");
		esc(out, c->host_thp ? c->host_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->obs_host_thp ? c->obs_host_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->guest_thp ? c->guest_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->obs_guest_thp ? c->obs_guest_thp : "-");
		fprintf(out, "</td><td>");
		esc(out, c->guest_kernel ? c->guest_kernel : "-");
		fprintf(out, "</td><td>");
		if (c->mismatch_text) {
			fprintf(out, "&#9888; ");
			esc(out, c->mismatch_text);
		}
		if (c->busy_text) {
			fprintf(out, "%s&#9888; busy host: ",
				c->mismatch_text ? "<br>" : "");
			esc(out, c->busy_text);
		}
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
}

static const char *const css =
    "body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{border:1px solid #bbb;padding:2px 6px;text-align:left}"
    "td{font-variant-numeric:tabular-nums}"
    ".meta th{background:#f3f3f3}.na{color:#888}.skip{color:#a33}"
    "tr.flag td{background:#fff3c4}"
    "svg text{font:12px sans-serif}svg .hd{font-weight:bold}"
    "rect.cell{stroke:#666}.slow{fill:#e06666}.fast{fill:#6aa84f}"
    ".whisker{stroke:#222;stroke-width:1.5;fill:none}"
    ".axis{stroke:#888}pre{background:#f6f6f6;padding:.5em}";

void fmt_html_begin(FILE *out, const char *title1, const char *title2)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n<title>");
	esc(out, title1);
	esc(out, title2);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	esc(out, title1);
	esc(out, title2);
	fprintf(out, "</h1>\n");
}

/* How the cells sampled: only when some cell has something to say. */
static void html_sampling(const struct report *r, FILE *out)
{
	struct fmt_table *t = fmt_walk_sampling_new(r);
	size_t i;
	bool any;

	if (!t)
		return;
	fprintf(out, "<h2>Sampling</h2>\n");
	html_table(t, NULL, NULL, out);
	for (i = 0, any = false; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		char iv[1024];

		if (!*fmt_iv(iv, sizeof(iv), r, c))
			continue;
		if (!any)
			fprintf(out, "<p>Intervals from interleaved rounds:</p>\n<ul>\n");
		any = true;
		fprintf(out, "<li>");
		esc(out, c->label);
		fprintf(out, ": ");
		esc(out, iv);
		fprintf(out, "</li>\n");
	}
	if (any)
		fprintf(out, "</ul>\n");
}

static int html_render(const struct report *r, FILE *out)
{
	char buf[FMT_BUF];
	size_t i, n = 0, flame_left = FLAME_REPORT_FRAMES_MAX;

	fmt_html_begin(out, "vmtax report: ", r->run_name);
	{
		char *lab = fmt_lab_new(r);

		if (lab) {
			fprintf(out, "<p class=\"lab\" style=\"background:#fff3cd;padding:.5em\"><b>Emulated hardware.</b> "
				     "Every cell ran inside a lab host: ");
			esc(out, lab);
			fprintf(out, ".</p>\n");
		}
		free(lab);
	}
	html_matrix_table(r, out);
	fmt_html_heatmap(r, out);
	fmt_html_bars(r, out);
	fmt_html_series(r, out);
	for (i = 0; i < r->nscaling; i++)
		fmt_html_scaling(r, &r->scaling[i], out);
	if (r->ncontrasts)
		fprintf(out, "<h2>THP contrasts</h2>\n<p>Never against always, "
			     "cells alike but for it:</p>\n<ul>\n");
	for (i = 0; i < r->ncontrasts; i++) {
		fprintf(out, "<li>");
		fmt_html_escape(out, r->contrasts[i].text);
		fprintf(out, "</li>\n");
	}
	if (r->ncontrasts)
		fprintf(out, "</ul>\n");
	if (r->contrast_note)
		fprintf(out, "<p>Note: %s.</p>\n", r->contrast_note);
	fprintf(out, "<p>");
	esc(out, FMT_COLGEO_TITLE);
	fprintf(out, ":</p>\n<ul class=\"colgeo\">\n");
	for (i = 0; i < r->ncolgeo; i++) {
		fprintf(out, "<li>");
		esc(out, r->colgeo[i].column);
		fprintf(out, ": <b>");
		esc(out, fmt_colgeo(buf, sizeof(buf), &r->colgeo[i]));
		fprintf(out, "</b></li>\n");
	}
	fprintf(out, "</ul>\n");
	html_cells(r, out);
	html_sampling(r, out);
	html_counters(r, out);
	html_kvm(r, out);
	if (r->has_profile)
		fprintf(out, "<h2>Profiles</h2>\n");
	for (i = 0; i < r->ncells; i++)
		fmt_html_profile(r, &r->cells[i], &flame_left, out);
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (c->nok)
			continue;
		if (!n++)
			fprintf(out, "<h2>Not measured</h2>\n<ul>\n");
		fprintf(out, "<li><code>");
		esc(out, c->id);
		fprintf(out, "</code> ");
		esc(out, c->status);
		fprintf(out, ": ");
		esc(out, fmt_reason(c));
		fprintf(out, "</li>\n");
	}
	if (n)
		fprintf(out, "</ul>\n");
	html_observed(r, out);
	html_meta(r, out);
	fprintf(out, "</body>\n</html>\n");
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_format_html = {
    .name = "html",
    .render = html_render,
    .render_compare = fmt_html_compare,
};
