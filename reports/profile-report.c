// SPDX-License-Identifier: MIT
/* The report model's profiles (model.h, struct report_profile). */
#include "model.h"
#include "beneath.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cap's number in a static message. */
#define STR_(x) #x
#define STR(x) STR_(x)

static const char too_many_frames[] =
    "no comparison: more than " STR(PROFILE_DIFF_SYMBOLS_MAX)
    " distinct frames in it and the baseline's (PROFILE_DIFF_SYMBOLS_MAX)";
static const char over_budget[] =
    "no comparison: with it the report's profiles would take over " STR(
	PROFILE_REPORT_MEM_MAX_MIB) " MiB (PROFILE_REPORT_MEM_MAX)";

/*
 * What a profile of LEN folded bytes takes, at most: its stacks' strings
 * (no more than the text) and per stack (a line at most) its entry, its
 * string's malloc overhead and its share of the index, with their growth.
 */
static size_t profile_cost(const char *text, size_t len)
{
	size_t lines = 1;

	for (const char *s = text;
	     (s = memchr(s, '\n', len - (size_t)(s - text))); s++)
		lines++;
	return len + 96 * lines;
}

/*
 * The folded file beside the run's results.json, read and parsed, when
 * the report's profiles stay within PROFILE_REPORT_MEM_MAX.  The first
 * that would not fit ends the budget: no later cell's file is read.
 */
static void cell_profile_load(struct report *r, struct report_profile *rp)
{
	char *dir = xstrdup(r->path), *text = NULL, errbuf[160];
	const char *base;
	size_t len = 0, cost = 0, left = PROFILE_REPORT_MEM_MAX - r->prof_mem;
	int ret = -ENOSPC;

	base = dirname(dir);
	if (!r->prof_full)
		/* beneath the run directory: no link followed, only a file */
		ret = read_file_beneath(base, rp->folded,
					left < PROFILE_FILE_MAX
						? left
						: PROFILE_FILE_MAX,
					&text, &len);
	if (ret == -ENOSPC || (ret == -EFBIG && left < PROFILE_FILE_MAX) ||
	    (ret == 0 && (cost = profile_cost(text, len)) > left)) {
		r->prof_full = true;
		rp->why = rp->owned_why = xasprintf(
		    "'%s' not read: the report's profiles would take over %d "
		    "MiB (PROFILE_REPORT_MEM_MAX)",
		    rp->folded, PROFILE_REPORT_MEM_MAX_MIB);
		goto out;
	}
	if (ret < 0) {
		rp->why = rp->owned_why =
		    ret == -EFBIG
			? xasprintf("'%s' is larger than %u bytes "
				    "(PROFILE_FILE_MAX)",
				    rp->folded, PROFILE_FILE_MAX)
			: xasprintf("cannot read '%s': %s", rp->folded,
				    beneath_strerror(ret));
		goto out;
	}
	r->prof_mem += cost;
	rp->p = profile_new();
	if (profile_folded_parse(rp->p, text, len, errbuf, sizeof(errbuf)) <
	    0) {
		rp->why = rp->owned_why =
		    xasprintf("'%s': %s", rp->folded, errbuf);
		profile_free(rp->p);
		rp->p = NULL;
		goto out;
	}
	if (!rp->p->samples) {
		rp->why = "the profile run took no samples";
		goto out;
	}
	rp->present = true;
out:
	free(text);
	free(dir);
}

void report_cell_profile(struct report *r, struct report_cell *c, json_t *obs)
{
	struct report_profile *rp = &c->prof;
	json_t *pj = json_object_get(obs, "profile");
	const char *err_s = json_string_value(json_object_get(pj, "error"));

	rp->overhead = NAN;
	if (!pj) {
		rp->why = "not profiled";
		return;
	}
	r->has_profile = true;
	if (!json_is_object(pj) || err_s) {
		rp->why = err_s ? err_s : "observed.profile is not an object";
		return;
	}
	rp->event = json_string_value(json_object_get(pj, "event"));
	rp->folded = json_string_value(json_object_get(pj, "folded"));
	rp->missing = json_object_get(pj, "missing");
	if (json_is_number(json_object_get(pj, "overhead")))
		rp->overhead =
		    json_number_value(json_object_get(pj, "overhead"));
	if (!rp->folded || strstr(rp->folded, "..") || rp->folded[0] == '/') {
		rp->why = "observed.profile names no folded file in the run "
			  "directory";
		return;
	}
	cell_profile_load(r, rp);
}

/* What D holds: per entry, its own, its name's and its by_total slot. */
static size_t diff_cost(const struct profile_diff *d)
{
	size_t cost = 0;

	for (size_t i = 0; i < d->n; i++)
		cost += 128 + strlen(d->v[i].name);
	return cost;
}

void report_profiles_diff(struct report *r)
{
	const struct report_cell *base;
	size_t cost;
	int ret;

	if (!r->has_profile || r->baseline < 0)
		return;
	base = &r->cells[r->baseline];
	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];

		if (!c->prof.present || c->is_baseline)
			continue;
		if (!base->prof.present) {
			c->prof.diff_why = "the baseline has no profile";
			continue;
		}
		ret = profile_diff_build(
		    base->prof.p, c->prof.p,
		    c->vs_base.valid ? c->vs_base.delta : NAN, &c->prof.diff);
		if (ret == -E2BIG)
			c->prof.diff_why = too_many_frames;
		if (ret < 0)
			continue;
		cost = diff_cost(&c->prof.diff);
		if (cost > PROFILE_REPORT_MEM_MAX - r->prof_mem) {
			profile_diff_release(&c->prof.diff);
			c->prof.diff_why = over_budget;
			continue;
		}
		r->prof_mem += cost;
		c->prof.has_diff = true;
	}
}

void report_profile_release(struct report_profile *p)
{
	profile_diff_release(&p->diff);
	profile_free(p->p);
	free(p->owned_why);
	memset(p, 0, sizeof(*p));
}
