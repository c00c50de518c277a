/* SPDX-License-Identifier: MIT */
/*
 * fleet-collect.c - what comes back from each fleet host (fleet.h,
 * docs/fleet.md): its run directory into RUN/hosts/NAME (scp over the same
 * connection), its results checked to be this run's cells
 * (results_remote_check()), and this run's record of them: each cell's
 * outcome on every host into R's states and the hosts in "fleet"
 * (fleet-merge.c); mode split, this run's document, each cell from its host
 * (fleet_split_doc_new()).  --resume: a host whose run ended ok keeps the
 * results it brought back.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "beneath.h"
#include "caps.h"
#include "exec-fleet.h"
#include "results-doc.h"
#include "results-file.h"
#include "run-engine.h"
#include "util.h"

/* What came back into RUN/REL: host H's results, checked, or why not. */
static void take_doc(struct fleet *f, struct fleet_host *h, const char *rel)
{
	char *path = xasprintf("%s/results.json", rel), *text = NULL;
	char *what = xasprintf("fleet: host '%s''s results", h->name);
	char why[RESULTS_DOC_WHY_MAX];
	size_t len = 0;
	int ret;

	ret = read_file_beneath(f->r->rundir, path, RESULTS_FILE_MAX, &text,
				&len);
	if (ret == 0 &&
	    results_doc_decode(text, len, 0, &h->doc, why, sizeof(why)) < 0 &&
	    !*h->why)
		snprintf(h->why, sizeof(h->why), "its results.json: %s", why);
	else if (ret < 0 && ret != -ENOENT && !*h->why)
		snprintf(h->why, sizeof(h->why), "its results '%s/%s': %s",
			 f->r->rundir, path, beneath_strerror(ret));
	if (h->doc && results_remote_check(f->r, h->doc, what) < 0) {
		json_decref(h->doc);
		h->doc = NULL;
		if (!*h->why)
			snprintf(h->why, sizeof(h->why),
				 "its results are not this run's");
	} else if (!h->doc && !*h->why) {
		snprintf(h->why, sizeof(h->why),
			 "no results came back ('%s/%s')", f->r->rundir, path);
	}
	free(text);
	free(what);
	free(path);
}

static int remove_cb(const char *path, const struct stat *sb, int flag,
		     struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

/* A host's copy as it comes (fleet_run_capture_watch()): 1 once past a
 * cap, with why. */
struct copy_watch {
	const char *local;
	char why[256];
};

static int copy_over(void *arg)
{
	struct copy_watch *w = arg;
	long long bytes, files;
	int ret = tree_usage(w->local, FLEET_COPY_DEPTH_MAX, &bytes, &files);

	if (ret == -ELOOP) {
		snprintf(w->why, sizeof(w->why),
			 "its copy is deeper than %d directories "
			 "(FLEET_COPY_DEPTH_MAX)",
			 FLEET_COPY_DEPTH_MAX);
		return 1;
	}
	return ret == 0 && fleet_copy_judge(bytes, files, "its copy came to",
					    w->why, sizeof(w->why)) < 0;
}

/* LOCAL and everything in it removed (no link followed). */
static void copy_remove(const char *local)
{
	if (nftw(local, remove_cb, 16, FTW_DEPTH | FTW_PHYS) < 0 &&
	    errno != ENOENT)
		warn("fleet: cannot remove '%s'", local);
}

/* Whether host K's run directory REMOTE may come back as its du says it
 * is (a host whose du does not answer is judged as its copy comes). */
static bool copy_allowed(struct fleet *f, size_t k, const char *remote)
{
	struct fleet_host *h = &f->h[k];
	char *cmd = fleet_usage_cmd_new(remote), *out = NULL, why[256];
	long long bytes, files;
	int status = -1;
	bool ok = true;

	if (fleet_on_host(f, k, cmd, -1, FLEET_CHECK_TIMEOUT_S, &out,
			  &status) == 0 &&
	    status == 0 && fleet_usage_parse(out, &bytes, &files) == 0 &&
	    fleet_copy_judge(bytes, files, "its run directory there is", why,
			     sizeof(why)) < 0) {
		snprintf(h->why, sizeof(h->why), "%s: not copied", why);
		warn("fleet: host '%s': %s", h->name, h->why);
		ok = false;
	}
	free(out);
	free(cmd);
	return ok;
}

void fleet_fetch(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	char *rel = xasprintf(FLEET_SUBDIR "/%s", h->name);
	char *local = xasprintf("%s/%s", f->r->rundir, rel);
	char *remote = xasprintf("%s/run", f->rplain), *out = NULL;
	struct copy_watch w = {local, ""};
	size_t n;
	char **v = fleet_scp_argv_new(&f->ssh, h->name, remote, local, &n);
	int status = -1, ret;

	copy_remove(local);
	if (!copy_allowed(f, k, remote))
		goto out;
	ret = fleet_run_capture_watch(v, FLEET_COPY_TIMEOUT_S, copy_over, &w,
				      &out, &status);
	if (ret == 0 && status == 0 && copy_over(&w))
		ret = -EFBIG; /* what came after the last look */
	if (ret == -EFBIG) {
		copy_remove(local);
		snprintf(h->why, sizeof(h->why), "%s: removed", w.why);
		warn("fleet: host '%s': %s", h->name, h->why);
	} else if (ret == 0 && status == 0) {
		take_doc(f, h, rel);
	} else if (!*h->why) {
		snprintf(h->why, sizeof(h->why),
			 "its run directory did not come back (scp status "
			 "%d): %s",
			 status, out ? strtok(out, "\n") ?: "" : "");
	}
out:
	strv_free(v, n);
	free(out);
	free(remote);
	free(local);
	free(rel);
}

/* What came back from each host, for fleet-merge.c (owned: free it). */
static struct fleet_host_result *results_new(const struct fleet *f)
{
	struct fleet_host_result *res = xcalloc(f->n, sizeof(*res));
	size_t k;

	for (k = 0; k < f->n; k++) {
		res[k].name = f->h[k].name;
		res[k].doc = f->h[k].doc;
		res[k].host = f->h[k].probe_host;
		res[k].rc = f->h[k].rc;
		res[k].why = *f->h[k].why ? f->h[k].why : NULL;
	}
	return res;
}

json_t *fleet_record_new(struct fleet *f)
{
	struct fleet_host_result *res = results_new(f);
	struct run *r = f->r;
	json_t *label;
	int i;

	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];
		char *reason = NULL;
		json_t *obs = NULL;
		enum cell_status cs;
		size_t k =
		    fleet_is_split(f) ? fleet_split_host((size_t)i, f->n) : 0;
		const char *word =
		    fleet_cell_merge(res + k, fleet_is_split(f) ? 1 : f->n,
				     (size_t)i, &reason, &obs);

		if (cell_status_parse(word, &cs) < 0)
			cs = CELL_FAILED;
		cell_set_status(st, cs, reason);
		json_decref(st->observed);
		st->observed = obs;
		free(reason);
	}
	/* mode each: every host's cells, the host their outermost axis */
	json_decref(r->record_cells);
	r->record_cells = NULL;
	if (!fleet_is_split(f)) {
		json_t *own = results_cells_new(r);

		r->record_cells = fleet_each_cells_new(res, f->n, r->head, own);
		json_decref(own);
	}
	label = fleet_label_new(r->cfg.fleet_mode, res, f->n);
	free(res);
	return label;
}

json_t *fleet_split_record_new(const struct fleet *f)
{
	struct fleet_host_result *res = results_new(f);
	json_t *doc = fleet_split_doc_new(res, f->n, (size_t)f->r->ncells);

	free(res);
	return doc;
}

bool fleet_resume_done(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	const json_t *hosts =
	    json_object_get(json_object_get(f->r->head, FLEET_EXEC), "hosts");
	const json_t *e;
	char *rel, probe_why[sizeof(h->why)];
	size_t i;

	json_array_foreach(hosts, i, e)
	{
		const char *name =
		    json_string_value(json_object_get(e, "name"));
		const char *st =
		    json_string_value(json_object_get(e, "status"));

		if (!name || strcmp(name, h->name))
			continue;
		if (!st || strcmp(st, "ok") ||
		    !json_is_integer(json_object_get(e, "exit_status")))
			return false;
		/* its probe's failure (if any) matters only if it runs */
		rel = xasprintf(FLEET_SUBDIR "/%s", h->name);
		snprintf(probe_why, sizeof(probe_why), "%s", h->why);
		*h->why = '\0';
		take_doc(f, h, rel);
		free(rel);
		snprintf(h->why, sizeof(h->why), "%s", h->doc ? "" : probe_why);
		if (!h->doc)
			return false;
		h->rc =
		    (int)json_integer_value(json_object_get(e, "exit_status"));
		return true;
	}
	return false;
}
