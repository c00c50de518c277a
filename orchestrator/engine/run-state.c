/* SPDX-License-Identifier: MIT */
/*
 * run-state.c - the run's state and the small services the engine and the
 * executors share: cell statuses, the executor of a cell and the per-run
 * ops of the run's executors (check, begin, describe, end), progress and
 * whether to stop, saving results.json and a phase's output, a cell id as
 * a file name, the guest files a cell boots, run_release().
 */
#include "run-engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "results-file.h"
#include "untrusted.h"
#include "util.h"
#include "vm.h"

bool run_libvirt_remote(const struct run *r)
{
	return vm_uri_remote(r->cfg.uri, NULL);
}

const struct cell_exec_ops *run_exec_of(const struct run *r, int ci)
{
	return cell_exec_for(r->cfg.executor, r->cells[ci].where,
			     run_libvirt_remote(r));
}

bool run_exec_has(const struct run *r, int ci, unsigned flags)
{
	return cell_exec_has(run_exec_of(r, ci), flags);
}

static struct run_exec *run_exec_find(const struct run *r,
				      const struct cell_exec_ops *ex)
{
	size_t k;

	for (k = 0; k < r->nexecs; k++)
		if (r->execs[k].ex == ex)
			return (struct run_exec *)&r->execs[k];
	return NULL;
}

void *run_exec_state(const struct run *r, const struct cell_exec_ops *ex)
{
	struct run_exec *e = run_exec_find(r, ex);

	return e ? e->state : NULL;
}

void run_exec_state_set(struct run *r, const struct cell_exec_ops *ex,
			void *state)
{
	struct run_exec *e = run_exec_find(r, ex);

	if (!e)
		abort(); /* only an executor of R's cells has a slot */
	e->state = state;
}

int run_execs_check(struct run *r, bool dry)
{
	size_t k;
	int ci;

	for (ci = 0; ci < r->ncells; ci++) {
		const struct cell_exec_ops *ex = run_exec_of(r, ci);

		if (run_exec_find(r, ex))
			continue;
		if (r->nexecs == RUN_EXECS_MAX)
			abort(); /* more executors than places for cells */
		r->execs[r->nexecs].ex = ex;
		r->execs[r->nexecs++].state = NULL;
	}
	for (k = 0; k < r->nexecs; k++)
		if (r->execs[k].ex->check && r->execs[k].ex->check(r, dry) < 0)
			return -EINVAL;
	return 0;
}

int run_execs_begin(struct run *r)
{
	size_t k;

	for (k = 0; k < r->nexecs; k++)
		if (r->execs[k].ex->begin && r->execs[k].ex->begin(r) < 0)
			return -EINVAL;
	return 0;
}

void run_exec_describe(const struct run *r, int ci, json_t *into)
{
	const struct cell_exec_ops *ex;
	size_t k;

	if (ci >= 0) {
		ex = run_exec_of(r, ci);
		if (ex->describe)
			ex->describe(r, ci, into);
		return;
	}
	for (k = 0; k < r->nexecs; k++)
		if (r->execs[k].ex->describe)
			r->execs[k].ex->describe(r, -1, into);
}

void run_execs_end(struct run *r)
{
	/* Last first; each end() still finds its own state (run_exec_state()
	 * looks among the first nexecs), so the count drops after it. */
	while (r->nexecs > 0) {
		struct run_exec *e = &r->execs[r->nexecs - 1];

		if (e->ex->end)
			e->ex->end(r);
		e->state = NULL;
		r->nexecs--;
	}
}

void cell_set_status(struct cell_state *st, enum cell_status s,
		     const char *reason)
{
	st->status = s;
	free(st->reason);
	st->reason = reason ? xstrdup(reason) : NULL;
}

void cell_fail(struct cell_state *st, const char *reason)
{
	cell_set_status(st, CELL_FAILED, reason);
}

void run_progress(struct run *r, int ci, const char *what)
{
	double el = mono_now() - r->t0, eta_s = run_eta(r);
	char eta[32] = "?";

	if (eta_s >= 0) {
		snprintf(eta, sizeof(eta), "%ld:%02ld", (long)eta_s / 60,
			 (long)eta_s % 60);
	} else if (r->samples_done > 0) {
		double per = el / r->samples_done;
		long left = r->samples_total - r->samples_done;

		snprintf(eta, sizeof(eta), "%ld:%02ld",
			 (long)(per * left) / 60, (long)(per * left) % 60);
	}
	note("[%d/%d] %s: %s (elapsed %ld:%02ld, ETA %s)", ci + 1, r->ncells,
	     r->cells[ci].id, what, (long)el / 60, (long)el % 60, eta);
}

bool run_should_stop(struct run *r)
{
	if (*r->stop_signals && !r->stopped) {
		note("stop requested: finishing here; the run can be resumed");
		r->stopped = true;
	}
	if (r->failures >= r->cfg.max_failures && !r->stopped) {
		warn("%ld samples failed (max_failures = %ld): stopping the run",
		     r->failures, r->cfg.max_failures);
		r->stopped = true;
	}
	return r->stopped || r->save_failed;
}

double run_sample_timeout(const struct run *r)
{
	return run_config_sample_timeout(&r->cfg);
}

void run_save_output(struct run *r, const char *slug, const char *phase,
		     long idx, const char *out)
{
	char *rel = xasprintf("logs/%s.%s-%ld.out", slug, phase, idx);
	int fd = open_beneath(r->rundir, rel, O_WRONLY | O_CREAT | O_TRUNC,
			      0644);

	if (fd >= 0) {
		if (out && write(fd, out, strlen(out)) < 0)
			warn("cannot write '%s/%s'", r->rundir, rel);
		close(fd);
	}
	free(rel);
}

void console_tail(const char *path)
{
	char *text = NULL, *p;
	size_t len;
	int lines = 0;

	if (read_file(path, 16 << 20, &text, &len) < 0)
		return;
	/* Back to the start of the 15th line from the end. */
	for (p = text + len; p > text; p--)
		if (p[-1] == '\n' && p != text + len && ++lines == 15)
			break;
	untrusted_scrub(p, true); /* the guest wrote it */
	fprintf(stderr, "--- last lines of %s ---\n%s--- end ---\n", path, p);
	free(text);
}

/* Write results.json; a run directory that cannot be written stops the run. */
void run_save(struct run *r)
{
	if (r->save_failed || results_save(r) == 0)
		return;
	r->save_failed = true;
}

void run_slug(const char *id, char *out, size_t len)
{
	size_t i;

	for (i = 0; id[i] && i + 1 < len; i++)
		out[i] = (id[i] == '/' || id[i] == '=') ? '_' : id[i];
	out[i] = '\0';
}

struct run_guest_files *run_guest_files_find(const struct run *r,
					     const struct cell *c)
{
	size_t i;

	for (i = 0; i < r->ngfs; i++)
		if (!strcmp(r->gfs[i].image, c->image) &&
		    !strcmp(r->gfs[i].kernel, c->kernel) &&
		    !strcmp(r->gfs[i].initrd, c->initrd))
			return &r->gfs[i];
	return NULL;
}

const struct guest_files *run_guest_files(const struct run *r,
					  const struct cell *c)
{
	const struct run_guest_files *g = run_guest_files_find(r, c);

	if (!g)
		abort(); /* run_prepare() resolved every guest cell's files */
	return &g->f;
}

void cell_states_free(struct cell_state *states, int n)
{
	int i;

	for (i = 0; states && i < n; i++) {
		free(states[i].reason);
		json_decref(states[i].env);
		json_decref(states[i].observed);
		json_decref(states[i].samples);
		json_decref(states[i].plan);
	}
	free(states);
}

void run_release(struct run *r)
{
	size_t k;

	run_execs_end(r);
	cell_states_free(r->states, r->ncells);
	run_estimate_free(r->est);
	json_decref(r->head);
	json_decref(r->record_cells);
	json_decref(r->schedule);
	matrix_release(&r->matrix);
	free(r->rundir);
	free(r->results_path);
	free(r->journal_path);
	for (k = 0; k < r->ngfs; k++) {
		guest_files_release(&r->gfs[k].f);
		free(r->gfs[k].image_note);
	}
	free(r->gfs);
	run_config_release(&r->cfg);
}
