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

/* The folded file beside the run's results.json, read and parsed. */
static void cell_profile_load(const struct report *r, struct report_profile *rp)
{
	char *dir = xstrdup(r->path), *text = NULL, errbuf[160];
	size_t len;
	int ret;

	/* beneath the run directory: no link followed, only a file */
	ret = read_file_beneath(dirname(dir), rp->folded, PROFILE_FILE_MAX,
				&text, &len);
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

void report_profiles_diff(struct report *r)
{
	const struct report_cell *base;

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
		if (profile_diff_build(base->prof.p, c->prof.p,
				       c->vs_base.valid ? c->vs_base.delta
							: NAN,
				       &c->prof.diff) == 0)
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
