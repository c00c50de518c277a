// SPDX-License-Identifier: MIT
/*
 * The profile sections every format shares (format.h): the top entries of
 * each cell's differential profile against the baseline (model.h, struct
 * report_profile; reports/profile-diff.h says what the numbers mean).
 */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Every string argument through the format's escape (format.h). */
#define tprintf(out, ...) fmt_printf(out, fmt_text_escape, __VA_ARGS__)
#define mdprintf(out, ...) fmt_printf(out, fmt_md_escape, __VA_ARGS__)

const struct profile_diff_entry *fmt_profile_top(const struct report_cell *c,
						 bool total, size_t k)
{
	const struct profile_diff *d = &c->prof.diff;

	if (!c->prof.has_diff || k >= d->n || k >= REPORT_PROFILE_TOP)
		return NULL;
	return total ? &d->v[d->by_total[k]] : &d->v[k];
}

char *fmt_profile_summary(char *buf, size_t len, const struct report_cell *c)
{
	const struct report_profile *p = &c->prof;
	size_t n = 0;

	if (!p->present) {
		snprintf(buf, len, "no profile: %s", p->why);
		return buf;
	}
	n += (size_t)snprintf(buf, len, "%s, %llu samples",
			      p->event ? p->event : "no event",
			      (unsigned long long)p->p->samples);
	if (p->p->unknown && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      " (%llu with [unknown] frames)",
				      (unsigned long long)p->p->unknown);
	if (!isnan(p->overhead) && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      ", run %+.1f%% vs the samples",
				      p->overhead * 100);
	/* How far the samples themselves spread about their mean: a profile
	 * run inside that span is within the cell's own noise. */
	if (!isnan(p->overhead) && c->elapsed.n >= 2 && c->elapsed.mean > 0 &&
	    n < len)
		n += (size_t)snprintf(
		    buf + n, len - n, " (they span %+.1f%% to %+.1f%%)",
		    (c->elapsed.min / c->elapsed.mean - 1) * 100 + 0.0,
		    (c->elapsed.max / c->elapsed.mean - 1) * 100 + 0.0);
	if (p->folded && n < len)
		snprintf(buf + n, len - n, ", %s", p->folded);
	return buf;
}

/* "+215.15% = +80.1% do_user_addr_fault, +40.0% clear_page_rep, ..." */
char *fmt_profile_oneline(char *buf, size_t len, const struct report_cell *c)
{
	const struct profile_diff *d = &c->prof.diff;
	size_t n;

	if (!c->prof.has_diff) {
		snprintf(buf, len, "%s",
			 c->prof.diff_why ? c->prof.diff_why : "");
		return buf;
	}
	if (d->scaled)
		n = (size_t)snprintf(buf, len, "%+.2f%% =", d->slowdown * 100);
	else
		n = (size_t)snprintf(buf, len, "shares (no slowdown) =");
	for (size_t k = 0; k < 3 && k < d->n && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s %+.1f%% %s",
				      k ? "," : "", d->v[k].self_delta * 100,
				      d->v[k].name);
	if (d->n > 3 && n < len)
		snprintf(buf + n, len - n, ", ...");
	return buf;
}

static void text_list(const struct report_cell *c, bool total, FILE *out)
{
	const struct profile_diff_entry *e;

	tprintf(out, "   %s:\n",
		total ? "with children (total)" : "where it went (self)");
	for (size_t k = 0; (e = fmt_profile_top(c, total, k)); k++)
		tprintf(out, "   %+8.2f%%  %-40s %5.1f%% -> %5.1f%%\n",
			(total ? e->total_delta : e->self_delta) * 100, e->name,
			(total ? e->total_base : e->self_base) * 100,
			(total ? e->total_cell : e->self_cell) * 100);
}

void fmt_profile_text(const struct report *r, const struct report_cell *c,
		      FILE *out)
{
	char buf[1024];
	size_t i;
	json_t *m;

	if (!r->has_profile)
		return;
	tprintf(out, "\n profile: %s\n",
		fmt_profile_summary(buf, sizeof(buf), c));
	json_array_foreach(c->prof.missing, i, m)
	    tprintf(out, "   missing: %s\n", json_string_value(m));
	if (!c->prof.present || c->is_baseline)
		return;
	tprintf(out, "   vs baseline: %s\n",
		fmt_profile_oneline(buf, sizeof(buf), c));
	if (!c->prof.has_diff)
		return;
	text_list(c, false, out);
	text_list(c, true, out);
}

static void md_list(const struct report_cell *c, bool total, FILE *out)
{
	const struct profile_diff_entry *e;

	mdprintf(out,
		"\n| %s | contribution | share baseline | share cell |\n"
		"|---|---:|---:|---:|\n",
		total ? "symbol (with children)" : "symbol (self)");
	for (size_t k = 0; (e = fmt_profile_top(c, total, k)); k++) {
		mdprintf(out, "| `");
		fmt_md_escape(out, e->name);
		mdprintf(out, "` | %+.2f%% | %.1f%% | %.1f%% |\n",
			(total ? e->total_delta : e->self_delta) * 100,
			(total ? e->total_base : e->self_base) * 100,
			(total ? e->total_cell : e->self_cell) * 100);
	}
}

void fmt_profile_md(const struct report *r, FILE *out)
{
	char buf[1024];
	size_t i, j;
	json_t *m;

	if (!r->has_profile)
		return;
	mdprintf(out, "\n## Profiles (where the time went, vs the baseline)\n");
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		mdprintf(out, "\n%s (`%s`): ", c->label, c->id);
		fmt_md_escape(out, fmt_profile_summary(buf, sizeof(buf), c));
		mdprintf(out, "\n");
		json_array_foreach(c->prof.missing, j, m)
		{
			mdprintf(out, "\n- missing: ");
			fmt_md_escape(out, json_string_value(m));
		}
		if (json_array_size(c->prof.missing))
			mdprintf(out, "\n");
		if (!c->prof.present || c->is_baseline)
			continue;
		mdprintf(out, "\nVs baseline: ");
		fmt_md_escape(out, fmt_profile_oneline(buf, sizeof(buf), c));
		mdprintf(out, "\n");
		if (!c->prof.has_diff)
			continue;
		md_list(c, false, out);
		md_list(c, true, out);
	}
}

static json_t *json_list(const struct report_cell *c, bool total)
{
	const struct profile_diff_entry *e;
	json_t *a = json_array();

	for (size_t k = 0; (e = fmt_profile_top(c, total, k)); k++)
		json_array_append_new(
		    a,
		    json_pack(
			"{ss sf sf sf}", "symbol", e->name, "contribution",
			total ? e->total_delta : e->self_delta,
			"share_baseline", total ? e->total_base : e->self_base,
			"share_cell", total ? e->total_cell : e->self_cell));
	return a;
}

json_t *fmt_profile_json(const struct report_cell *c)
{
	const struct report_profile *p = &c->prof;
	json_t *j;

	if (!p->present)
		return json_pack("{sb ss}", "present", 0, "why", p->why);
	j = json_pack("{sb ss* sI sI sO? ss*}", "present", 1, "event", p->event,
		      "samples", (json_int_t)p->p->samples, "unknown",
		      (json_int_t)p->p->unknown, "missing", p->missing,
		      "folded", p->folded);
	json_object_set_new(j, "overhead",
			    isnan(p->overhead) ? json_null()
					       : json_real(p->overhead));
	if (p->has_diff) {
		json_object_set_new(j, "slowdown",
				    p->diff.scaled ? json_real(p->diff.slowdown)
						   : json_null());
		json_object_set_new(j, "self", json_list(c, false));
		json_object_set_new(j, "total", json_list(c, true));
	} else if (!c->is_baseline && p->diff_why) {
		json_object_set_new(j, "diff_why", json_string(p->diff_why));
	}
	return j;
}

static void csv_field(FILE *out, const char *s)
{
	fputc(',', out);
	fmt_csv_field(out, s);
}

void fmt_profile_csv(const struct report *r, FILE *out, size_t ncols)
{
	const struct profile_diff_entry *e;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		for (int t = 0; t < 2; t++) {
			for (size_t k = 0; (e = fmt_profile_top(c, t, k));
			     k++) {
				char *label = xasprintf(
				    "%s:%s", t ? "total" : "self", e->name);

				fprintf(out, "profile");
				csv_field(out, c->id);
				csv_field(out, label);
				csv_field(out, c->status);
				fprintf(out, ",,,%llu,%.9g",
					(unsigned long long)c->prof.p->samples,
					t ? e->total_delta : e->self_delta);
				/* median .. the last counter */
				for (size_t col = 8; col < ncols; col++)
					fputc(',', out);
				fputc('\n', out);
				free(label);
			}
		}
	}
}
