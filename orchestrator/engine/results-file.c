/* SPDX-License-Identifier: MIT */
#include "results-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "beneath.h"
#include "caps.h"
#include "fleet.h"
#include "host.h"
#include "identity.h"
#include "report.h"
#include "results-doc.h"
#include "sample-unit.h"
#include "util.h"
#include "vm.h"

json_t *results_cell_env_new(const struct run *r, const struct cell *c)
{
	json_t *env = json_object();
	bool guest = c->where == WHERE_GUEST;

	(void)r;
	json_object_set_new(env, AXIS_ENV_WHERE,
			    json_string(where_name(c->where)));
	json_object_set_new(env, AXIS_ENV_HOST_THP, json_string(c->host_thp));
	json_object_set_new(env, AXIS_ENV_GUEST_THP,
			    guest ? json_string(c->guest_thp) : json_null());
	json_object_set_new(env, "vcpus",
			    guest ? json_integer(c->vcpus) : json_null());
	json_object_set_new(env, "memory_bytes",
			    guest ? json_integer((json_int_t)c->memory)
				  : json_null());
	json_object_set_new(env, AXIS_ENV_BACKING,
			    guest ? json_string(backing_name(c->backing))
				  : json_null());
	json_object_set_new(env, AXIS_ENV_PAGING, json_null());
	if (guest) {
		json_object_set_new(env, "cmdline", json_string(c->cmdline));
		json_object_set_new(env, "kernel", json_string(c->kernel));
		json_object_set_new(env, "image", json_string(c->image));
	}
	json_object_set_new(env, "params", cell_kv_json(c->params, c->nparams));
	if (c->nhost_knobs)
		json_object_set_new(env, "host_knobs",
				    cell_kv_json(c->host_knobs, c->nhost_knobs));
	if (c->nguest_knobs)
		json_object_set_new(env, "guest_knobs",
				    cell_kv_json(c->guest_knobs,
						 c->nguest_knobs));
	return env;
}

static void host_info(json_t *host, const struct run *r)
{
	struct host_ident id;

	host_summary_json(host);
	json_object_set_new(host, "accel",
			    r->accel ? json_string(r->accel) : json_null());
	json_object_set_new(host, "accel_reason", json_string(r->accel_why));
	host_ident_read("", NULL, &id);
	host_ident_json(&id, host);
}

/* DIR (a descriptor) was made by this vmtax, or refused naming the fix. */
static int rundir_check(int fd, const char *dir)
{
	struct stat st;
	char why[128];

	if (fstat(fd, &st) < 0)
		return err_errno("cannot stat '%s'", dir);
	if (!stat_ours(&st, why, sizeof(why)))
		return err_code(-EPERM,
				"run directory '%s' is %s: someone else could "
				"change what this run writes and reads there; "
				"give a new --out (vmtax creates it), or, if "
				"you trust it, 'chown %u %s && chmod go-w %s'",
				dir, why, (unsigned)geteuid(), dir, dir);
	return 0;
}

/*
 * The run directory OUT (else runs/NAME-TIMESTAMP) made if need be, its
 * parents too, each component made with mkdirat and opened O_NOFOLLOW, a
 * symbolic link on the way followed only when link_followable(): its
 * descriptor, and its absolute path into *DIR.
 */
static int rundir_open(const char *out, const char *name, char **dir)
{
	char ts[32], why[PATH_MAX + 192], *path;
	int fd;

	if (out) {
		path = xstrdup(out);
	} else {
		iso8601_now(ts, sizeof(ts));
		path = xasprintf("runs/%s-%s", name, ts);
	}
	fd = dir_open_path(path, true, 0755, why, sizeof(why));
	/* WHY names the component and its reason (strerror's too) */
	if (fd < 0)
		err("cannot create run directory '%s': %s%s", path, why,
		    fd == -ELOOP ? "; give another --out, or the link's "
				   "target if you trust it"
				 : "");
	if (fd >= 0 && !(*dir = fd_path_new(fd))) {
		close(fd);
		fd = err("cannot resolve '%s' (is /proc mounted?)", path);
	}
	free(path);
	return fd;
}

/* DIR's logs/ (FD is DIR) made, a directory this vmtax made. */
static int logs_dir_make(int fd, const char *dir)
{
	struct stat st;
	int ret = mkdirat_beneath(fd, "logs", 0755);

	if (ret == -ENOTDIR)
		return err_code(ret,
				"'%s/logs' is not a directory (a symbolic "
				"link?): remove it, or give a new --out",
				dir);
	if (ret < 0)
		return err_code(ret, "cannot create '%s/logs'", dir);
	if (fstatat(fd, "logs", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno("cannot stat '%s/logs'", dir);
	if (!stat_ours(&st, NULL, 0))
		return err_code(-EPERM,
				"'%s/logs' was not made by this vmtax: "
				"remove it, or give a new --out",
				dir);
	return ret;
}

int results_dir_make(const char *out, const char *name, bool resume,
		     const char *cmd, char **dir)
{
	struct stat st;
	int ret, fd = -1;

	*dir = NULL;
	fd = rundir_open(out, name, dir);
	if (fd < 0)
		return fd;
	ret = rundir_check(fd, *dir);
	if (ret < 0)
		goto out;
	if (!resume &&
	    fstatat(fd, "results.json", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ret = err("'%s' already holds a run; give another --out, or "
			  "'%s --resume %s'",
			  *dir, cmd, *dir);
		goto out;
	}
	ret = logs_dir_make(fd, *dir);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

int results_doc_load_ours(const char *dir, const char *rel, const char *what,
			  json_t **doc)
{
	char why[RESULTS_DOC_WHY_MAX], fdpath[64], *text = NULL;
	struct stat st;
	size_t len = 0;
	int dfd, fd = -1, ret;

	*doc = NULL;
	dfd = dir_open_nofollow(dir);
	if (dfd < 0)
		return err_code(dfd, "cannot open '%s'", dir);
	ret = rundir_check(dfd, dir);
	if (ret < 0)
		goto out;
	fd = openat_file(dfd, rel);
	if (fd < 0) {
		ret = fd;
		err("cannot open '%s/%s': %s", dir, rel, beneath_strerror(fd));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		ret = err_errno("cannot stat '%s/%s'", dir, rel);
		goto out;
	}
	if (!stat_ours(&st, why, sizeof(why))) {
		ret = err_code(-EPERM,
			       "'%s/%s' was not written by this vmtax (%s): "
			       "its config path and --set list are not taken; "
			       "if you trust it, 'chown %u %s/%s && chmod go-w "
			       "%s/%s'",
			       dir, rel, why, (unsigned)geteuid(), dir, rel,
			       dir, rel);
		goto out;
	}
	/* read_file() of our own descriptor: no second lookup by name */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	ret = read_file(fdpath, RESULTS_FILE_MAX, &text, &len);
	if (ret < 0) {
		ret = err_code(ret, "%s: cannot read '%s/%s'", what, dir, rel);
		goto out;
	}
	ret = results_doc_decode(text, len, 0, doc, why, sizeof(why));
	if (ret < 0)
		err("%s: '%s/%s': %s", what, dir, rel, why);
out:
	free(text);
	if (fd >= 0)
		close(fd);
	close(dfd);
	return ret;
}

/* What the run said of its set-up that its figures depend on (a stale
 * image booted as it is): run.notes, when there is any. */
static void run_notes(json_t *run, const struct run *r)
{
	json_t *notes = json_array();
	size_t k;

	for (k = 0; k < r->ngfs; k++)
		if (r->gfs[k].image_note)
			json_array_append_new(
			    notes, json_string(r->gfs[k].image_note));
	if (json_array_size(notes))
		json_object_set_new(run, "notes", notes);
	else
		json_decref(notes);
}

json_t *results_head_new(const struct run *r)
{
	json_t *doc = json_object(), *run = json_object(), *wl = json_object();
	json_t *host = json_object(), *ver = json_object(), *params, *sets;
	char ts[32], lv[64] = "", qv[64] = "", *abs;
	size_t i;

	iso8601_now(ts, sizeof(ts));
	json_object_set_new(run, "name", json_string(r->cfg.name));
	/* absolute: --resume works from any directory (a lab's config is
	 * also put at this path inside the lab) */
	abs = realpath(r->cfg.path, NULL);
	json_object_set_new(run, "config_path",
			    json_string(abs ? abs : r->cfg.path));
	free(abs);
	json_object_set_new(run, "config_text", json_string(r->cfg.text));
	json_object_set_new(run, "config", run_config_to_json(&r->cfg));
	sets = json_array();
	for (i = 0; i < r->nsets; i++)
		json_array_append_new(sets, json_string(r->sets[i]));
	json_object_set_new(run, "sets", sets);
	json_object_set_new(run, "started", json_string(ts));
	json_object_set_new(run, "finished", json_null());
	json_object_set_new(run, "status", json_string("running"));
	host_info(host, r);
	json_object_set_new(run, "host", host);
	json_object_set_new(ver, "vmtax", json_string(VMTAX_VERSION));
	if (r->need_guest)
		vm_versions(r->cfg.uri, lv, sizeof(lv), qv, sizeof(qv));
	json_object_set_new(ver, "libvirt", *lv ? json_string(lv) : json_null());
	json_object_set_new(ver, "qemu", *qv ? json_string(qv) : json_null());
	json_object_set_new(run, "versions", ver);
	/* where its executors ran the cells (run.remote_libvirt) */
	run_exec_describe(r, -1, run);
	run_notes(run, r);
	json_object_set_new(doc, "schema", json_string(RESULTS_SCHEMA));
	json_object_set_new(doc, "run", run);

	json_object_set_new(wl, "name", json_string(r->cfg.wl.name));
	json_object_set_new(wl, "description",
			    json_string(r->cfg.wl.description));
	json_object_set_new(wl, "metric", json_string(r->cfg.wl.metric));
	json_object_set_new(wl, "unit", json_string(r->cfg.wl.unit));
	json_object_set_new(wl, "better", json_string(r->cfg.wl.better));
	json_object_set_new(wl, "scratch", json_string(r->cfg.wl.scratch));
	params = json_object();
	for (i = 0; i < r->cfg.wl.nparams; i++)
		json_object_set_new(params, r->cfg.wl.params[i].name,
				    json_string(r->cfg.wl.params[i].value));
	json_object_set_new(wl, "params", params);
	json_object_set_new(doc, "workload", wl);
	json_object_set_new(doc, "baseline",
			    json_string(r->cells[r->matrix.baseline].id));
	json_object_set_new(doc, "axes", matrix_axes_json(&r->matrix));
	return doc;
}

void results_states_init(struct run *r)
{
	int i;

	r->states = xcalloc(r->ncells, sizeof(*r->states));
	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];

		st->status = CELL_PENDING;
		st->env = results_cell_env_new(r, &r->cells[i]);
		st->observed = json_object();
		st->samples = json_array();
		if (!matrix_cell_listed(&r->cfg, (size_t)i)) {
			st->status = CELL_SKIPPED;
			st->reason = xstrdup(MATRIX_CELL_UNLISTED);
			st->stop = STOP_SKIPPED;
		}
	}
}

static json_t *cell_json_new(const struct run *r, int i)
{
	const struct cell_state *st = &r->states[i];
	json_t *j = json_object(), *v;

	json_object_set_new(j, "id", json_string(r->cells[i].id));
	json_object_set_new(j, "axes", matrix_cell_axes_json(&r->matrix, i));
	json_object_set(j, "env", st->env);
	json_object_set_new(j, "status",
			    json_string(cell_status_name(st->status)));
	json_object_set_new(j, "reason",
			    st->reason ? json_string(st->reason) : json_null());
	json_object_set_new(j, "stop_reason",
			    st->stop != STOP_NONE
				? json_string(stop_reason_name(st->stop))
				: json_null());
	json_object_set_new(j, "sample_unit",
			    json_string(sample_unit_name(run_unit_is_boot(r, i))));
	if (st->plan)
		json_object_set(j, "plan", st->plan);
	if ((v = run_cell_variance_new(r, i)))
		json_object_set_new(j, "variance", v);
	json_object_set(j, "observed", st->observed);
	json_object_set(j, "samples", st->samples);
	return j;
}

json_t *results_cells_new(const struct run *r)
{
	json_t *cells = json_array();
	int i;

	for (i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_json_new(r, i));
	return cells;
}

int results_save(struct run *r)
{
	json_t *cells = r->record_cells ? json_incref(r->record_cells)
					: results_cells_new(r);
	char *s;
	int ret;

	if (r->schedule)
		json_object_set(r->head, "schedule", r->schedule);
	json_object_set_new(r->head, "cells", cells);
	s = json_dumps(r->head, JSON_INDENT(2));
	json_object_del(r->head, "cells");
	if (!s)
		return err("cannot serialise the results");
	ret = write_file_beneath(r->rundir, "results.json", s, strlen(s));
	free(s);
	return ret;
}

int results_journal_sample(struct run *r, const char *cell_id, json_t *sj)
{
	json_t *line = json_pack("{s:s, s:O}", "cell", cell_id, "sample", sj);
	char *text = json_dumps(line, JSON_COMPACT);
	size_t len = text ? strlen(text) : 0;
	off_t before;
	int fd, ret = 0;

	fd = open_beneath(r->rundir, "samples.jsonl",
			  O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		ret = err_code(fd, "cannot open '%s'", r->journal_path);
		goto out;
	}
	if (!text) {
		ret = err("cannot serialise a sample of '%s'", cell_id);
		goto out;
	}
	text[len] = '\n';	/* one write: a line is whole or absent */
	before = lseek(fd, 0, SEEK_END);
	if (write(fd, text, len + 1) != (ssize_t)(len + 1) || fsync(fd) < 0) {
		ret = err_errno("cannot append to '%s'", r->journal_path);
		/* A partial line would spoil the next one: take it back. */
		if (before >= 0 && ftruncate(fd, before) < 0) {
			/* the resume reader skips a line it cannot parse */
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(text);
	json_decref(line);
	return ret;
}

void results_finish(struct run *r)
{
	json_t *run = json_object_get(r->head, "run");
	char ts[32];

	iso8601_now(ts, sizeof(ts));
	json_object_set_new(run, "finished", json_string(ts));
	json_object_set_new(run, "status",
			    json_string(r->stopped ? "interrupted" : "complete"));
}

/*
 * A results document saved mid-run by a run that is no longer running (its
 * host was cut off from under it): "running" becomes "interrupted".
 */
void results_doc_cut_off(json_t *doc)
{
	json_t *run = json_object_get(doc, "run");

	if (!strcmp(json_string_value(json_object_get(run, "status")) ?: "",
		    "running"))
		json_object_set_new(run, "status",
				    json_string("interrupted"));
}

/* ---- resume ---- */

/*
 * Whether J (PATH) is a run this vmtax can resume: its
 * schema, a config path and cells, not complete.
 */
static bool resumable(const json_t *j, const char *path)
{
	const json_t *run = json_object_get(j, "run");

	if (!json_is_string(json_object_get(j, "schema")) ||
	    strcmp(json_string_value(json_object_get(j, "schema")),
		   RESULTS_SCHEMA)) {
		err_plain("%s: cannot resume: not a %s file", path,
			  RESULTS_SCHEMA);
		return false;
	}
	if (!json_is_string(json_object_get(run, "config_path"))) {
		err_plain("%s: cannot resume: no run.config_path", path);
		return false;
	}
	if (!json_is_array(json_object_get(j, "cells"))) {
		err_plain("%s: cannot resume: no cells", path);
		return false;
	}
	if (json_is_string(json_object_get(run, "status")) &&
	    !strcmp(json_string_value(json_object_get(run, "status")),
		    "complete")) {
		err_plain("%s: the run is complete; nothing to resume", path);
		return false;
	}
	return true;
}

int results_resume_load(const char *dir, json_t **doc, const char ***sets,
			size_t *nsets)
{
	char *abs = NULL, *path = NULL, why[PATH_MAX + 192];
	json_t *j = NULL, *s;
	size_t i;
	int ret = -EINVAL, fd;

	/* DIR as --out is taken: a link another user made is not followed */
	fd = dir_open_path(dir, false, 0, why, sizeof(why));
	if (fd >= 0) {
		abs = fd_path_new(fd);
		close(fd);
	}
	if (!abs) {
		err("cannot resume '%s': %s", dir,
		    fd < 0 ? why : "cannot resolve it (is /proc mounted?)");
		goto out;
	}
	path = xasprintf("%s/results.json", abs);
	/* config_path and sets from a file someone else wrote are refused */
	if (results_doc_load_ours(abs, "results.json", "cannot resume", &j) <
	    0)
		goto out;
	if (!resumable(j, path))
		goto out;
	/* a fleet run's record of every host's cells: its matrix's again */
	fleet_each_cells_undo(j);
	free(*sets);
	*sets = NULL;
	*nsets = 0;
	s = json_object_get(json_object_get(j, "run"), "sets");
	for (i = 0; i < json_array_size(s); i++) {
		*sets = xrealloc(*sets, (*nsets + 1) * sizeof(**sets));
		(*sets)[(*nsets)++] = json_string_value(json_array_get(s, i));
	}
	*doc = j;
	j = NULL;
	ret = 0;
out:
	json_decref(j);
	free(path);
	free(abs);
	return ret;
}

int results_resume_check(struct run *r, json_t *old, bool force)
{
	const char *text = json_string_value(
		json_object_get(json_object_get(old, "run"), "config_text"));
	json_t *cells = json_object_get(old, "cells");
	int i;

	if (!text || strcmp(text, r->cfg.text)) {
		if (!force) {
			err_plain(
			    "%s: the config has changed since the run began; "
			    "'--force' resumes anyway",
			    r->cfg.path);
			return -EINVAL;
		}
		warn("%s: the config has changed since the run began; "
		     "resuming anyway (--force)", r->cfg.path);
	}
	if ((size_t)r->ncells != json_array_size(cells)) {
		err_plain("%s: the matrix has %d cells, the run has %zu",
			  r->cfg.path, r->ncells, json_array_size(cells));
		return -EINVAL;
	}
	for (i = 0; i < r->ncells; i++) {
		const char *id = json_string_value(
			json_object_get(json_array_get(cells, i), "id"));

		if (!id || strcmp(r->cells[i].id, id)) {
			err_plain("%s: cell %d is '%s' in the config but not "
				  "in the run",
				  r->cfg.path, i, r->cells[i].id);
			return -EINVAL;
		}
	}
	return 0;
}

/* A sample's counts into its cell's state. */
static void state_add_sample(struct run *r, struct cell_state *st,
			     json_t *sj)
{
	json_t *round = json_object_get(sj, "round");

	const char *status = json_string_value(json_object_get(sj, "status"));

	json_array_append(st->samples, sj);
	st->nsamples++;
	/* Later guests of the cell count on from the last boot recorded, and
	 * later rounds from the last round. */
	if (json_is_integer(json_object_get(sj, "boot")) &&
	    json_integer_value(json_object_get(sj, "boot")) >= st->boots)
		st->boots = json_integer_value(json_object_get(sj, "boot")) + 1;
	if (json_is_integer(round) && json_integer_value(round) >= r->next_round)
		r->next_round = json_integer_value(round) + 1;
	if (status && !strcmp(status, "ok") &&
	    json_is_number(json_object_get(sj, "metric")))
		st->nok++;
	else
		st->nfailed++;
}

/* Samples that reached samples.jsonl but not results.json. */
static void take_late_samples(struct run *r)
{
	char *text = NULL, *line, *save = NULL;
	int i, ret;

	ret = read_file_beneath(r->rundir, "samples.jsonl", 1 << 30, &text,
				NULL);
	if (ret < 0 && ret != -ENOENT)
		warn("'%s/samples.jsonl' not read: %s", r->rundir,
		     beneath_strerror(ret));
	if (ret < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL), *sj;
		const char *id;

		if (!j)
			continue;
		id = json_string_value(json_object_get(j, "cell"));
		sj = json_object_get(j, "sample");
		for (i = 0; id && json_is_object(sj) && i < r->ncells; i++) {
			struct cell_state *st = &r->states[i];

			if (strcmp(r->cells[i].id, id))
				continue;
			if (json_integer_value(json_object_get(sj, "index")) ==
			    st->nsamples)
				state_add_sample(r, st, sj);
		}
		json_decref(j);
	}
	free(text);
}

/*
 * The cells of a results document (CELLS, already checked to be R's, in
 * order) into R's states; WHAT names the document in errors.  0, or
 * -EINVAL (reported) for a cell whose status is not one.
 */
static int states_from_cells(struct run *r, const json_t *cells,
			     const char *what)
{
	int i;

	r->states = xcalloc(r->ncells, sizeof(*r->states));
	for (i = 0; i < r->ncells; i++) {
		json_t *cj = json_array_get(cells, i), *samples, *plan;
		struct cell_state *st = &r->states[i];
		const char *status = json_string_value(json_object_get(cj, "status"));
		const char *reason = json_string_value(json_object_get(cj, "reason"));
		size_t k;

		st->samples = json_array();
		if (!status || cell_status_parse(status, &st->status) < 0)
			return err("%s: cell '%s' has status '%s'", what,
				   r->cells[i].id, status ? status : "(none)");
		/* A cell cut short by a signal or a kill starts again where
		 * it stopped; its old reason ("interrupted") goes. */
		if (reason && st->status != CELL_PENDING)
			st->reason = xstrdup(reason);
		st->env = json_deep_copy(json_object_get(cj, "env"));
		if (!st->env)
			st->env = results_cell_env_new(r, &r->cells[i]);
		st->observed = json_deep_copy(json_object_get(cj, "observed"));
		if (!json_is_object(st->observed)) {
			json_decref(st->observed);
			st->observed = json_object();
		}
		plan = json_object_get(cj, "plan");
		st->plan = json_is_object(plan) ? json_deep_copy(plan) : NULL;
		samples = json_object_get(cj, "samples");
		for (k = 0; k < json_array_size(samples); k++)
			state_add_sample(r, st, json_array_get(samples, k));
		/* A cell that ended keeps why; a pending one samples on. */
		reason = json_string_value(json_object_get(cj, "stop_reason"));
		if (reason && st->status != CELL_PENDING &&
		    stop_reason_parse(reason, &st->stop) < 0)
			st->stop = STOP_NONE;
	}
	return 0;
}

/* Whether CELLS are R's cells, in order; else why, reported with WHAT. */
static int cells_are_ours(const struct run *r, const json_t *cells,
			  const char *what)
{
	int i;

	if ((size_t)r->ncells != json_array_size(cells))
		return err("%s: %zu cells, but the matrix has %d", what,
			   json_array_size(cells), r->ncells);
	for (i = 0; i < r->ncells; i++) {
		const char *id = json_string_value(
			json_object_get(json_array_get(cells, i), "id"));

		if (!id || strcmp(r->cells[i].id, id))
			return err("%s: cell %d is not '%s'", what, i,
				   r->cells[i].id);
	}
	return 0;
}

int results_remote_check(const struct run *r, const json_t *doc,
			 const char *what)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	if (!schema || strcmp(schema, RESULTS_SCHEMA) ||
	    !json_is_object(json_object_get(doc, "run")))
		return err("%s: not a %s document with a run", what,
			   RESULTS_SCHEMA);
	return cells_are_ours(r, json_object_get(doc, "cells"), what);
}

int results_remote_take(struct run *r, const json_t *doc, const char *key,
			json_t *label)
{
	json_t *cells = json_object_get(doc, "cells"), *head, *run, *ours;
	struct cell_state *before;
	const char *status;
	static const char *const kept[] = { "config_path", "config_text",
					    "config", "sets", "started",
					    "resumed" };
	char *what = xasprintf("the %s's results", key);
	size_t k;
	int i, ret;

	ret = results_remote_check(r, doc, what);
	if (ret < 0)
		goto out;
	/* R's states stay as they were unless every cell parses */
	before = r->states;
	r->states = NULL;
	ret = states_from_cells(r, cells, what);
	if (ret < 0) {
		cell_states_free(r->states, r->ncells);
		r->states = before;
		goto out;
	}
	cell_states_free(before, r->ncells);
	r->samples_done = 0;
	r->failures = 0;
	for (i = 0; i < r->ncells; i++) {
		r->samples_done += r->states[i].nsamples;
		r->failures += r->states[i].nfailed;
	}
	/* what ran is the other host's; how to resume it is this host's */
	head = json_deep_copy(doc);
	json_object_del(head, "cells");
	run = json_object_get(head, "run");
	ours = json_object_get(r->head, "run");
	for (k = 0; k < ARRAY_SIZE(kept); k++) {
		json_t *v = json_object_get(ours, kept[k]);

		if (v)
			json_object_set(run, kept[k], v);
		else
			json_object_del(run, kept[k]);
	}
	json_object_set(head, key, label ? label : json_null());
	json_decref(r->head);
	r->head = head;
	status = json_string_value(json_object_get(run, "status"));
	r->stopped = !status || strcmp(status, "complete");
out:
	free(what);
	return ret;
}

int results_resume_apply(struct run *r, json_t *old)
{
	json_t *run, *resumed;
	char ts[32], *what;
	int i, ret;

	r->head = json_deep_copy(old);
	json_object_del(r->head, "cells");
	what = xasprintf("%s: cannot resume", r->results_path);
	ret = states_from_cells(r, json_object_get(old, "cells"), what);
	free(what);
	if (ret < 0)
		return ret;
	take_late_samples(r);
	/* Interleaved rounds shuffle as the run began them. */
	r->seed = (unsigned long long)json_integer_value(
		json_object_get(json_object_get(old, "schedule"), "seed"));
	/* A run begun before axes existed gets them now: every cell has its
	 * own, so the run must have them too. */
	if (!json_object_get(r->head, "axes"))
		json_object_set_new(r->head, "axes", matrix_axes_json(&r->matrix));
	for (i = 0; i < r->ncells; i++)
		r->samples_done += r->states[i].nsamples;
	run = json_object_get(r->head, "run");
	iso8601_now(ts, sizeof(ts));
	json_object_set_new(run, "status", json_string("running"));
	if (!json_is_array(json_object_get(run, "resumed")))
		json_object_set_new(run, "resumed", json_array());
	resumed = json_object_get(run, "resumed");
	json_array_append_new(resumed, json_string(ts));
	note("resuming '%s': %ld samples already measured", r->rundir,
	     r->samples_done);
	return 0;
}
