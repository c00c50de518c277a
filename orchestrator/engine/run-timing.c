/* SPDX-License-Identifier: MIT */
/*
 * run-timing.c - a run's estimate (run-estimate.h) made from its cells and
 * this host's figures (timings.h), said before it runs and used for its
 * ETA, and the figures it measured kept for the next (docs/estimate.md).
 * Everything here is said, never fatal: a run goes on without an estimate.
 */
#include "run-engine.h"

#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "rounds-group.h"
#include "run-estimate.h"
#include "timings.h"
#include "util.h"

/* The estimate of a running run, and where its cells were at the start. */
struct run_est {
	struct est_input in;
	long *n0; /* each cell's samples when the run began */
	long *b0; /* and its guests booted */
};

void run_estimate_free(struct run_est *e)
{
	if (!e)
		return;
	free(e->in.cells);
	free(e->n0);
	free(e->b0);
	free(e);
}

/* Whether the cells run inside a lab host: their figures are the lab's
 * (the estimate's places), not this host's. */
static bool run_in_lab(const struct run *r)
{
	return r->ncells > 0 && run_exec_of(r, 0) == &cell_exec_lab;
}

/* Whether cell CI runs in a guest wherever its matrix runs: the executor
 * of its place on the host that runs it (here, or the lab's own). */
static bool cell_guest(const struct run *r, int ci)
{
	return cell_exec_has(cell_exec_for(CELL_EXEC_LOCAL, r->cells[ci].where,
					   run_libvirt_remote(r)),
			     EXEC_NEEDS_GUEST);
}

static enum est_place cell_place(const struct run *r, int ci, bool guest)
{
	bool tcg = false;

	if (guest && !run_in_lab(r) && r->accel)
		tcg = !strcmp(run_cell_paging(r, &r->cells[ci]), "tcg");
	return est_place_of(run_in_lab(r), guest, tcg);
}

/* The key of cell C's workload parameters (timings_params_key()). */
static void cell_params_key(const struct cell *c, char *pkey)
{
	const char **names = xcalloc(c->nparams + 1, sizeof(*names));
	const char **values = xcalloc(c->nparams + 1, sizeof(*values));
	size_t i;

	for (i = 0; i < c->nparams; i++) {
		names[i] = c->params[i].name;
		values[i] = c->params[i].value;
	}
	timings_params_key(names, values, c->nparams, pkey);
	free(names);
	free(values);
}

/* Whether the run sets any of the workload's parameters. */
static bool params_set(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->cfg.wl.nparams; i++)
		if (r->cfg.wl.params[i].override_line)
			return true;
	return false;
}

/* A sample of the workload at P with parameters PKEY: this host's figure,
 * else one of another place scaled, else the declared, else assumed. */
static void sample_figure(const struct run *r, const json_t *t,
			  const struct cell *cell, const char *pkey,
			  enum est_place p, struct est_figure *f)
{
	const char *wl = r->cfg.wl.name;
	const char **names = xcalloc(cell->nparams + 1, sizeof(*names));
	const char **values = xcalloc(cell->nparams + 1, sizeof(*values));
	double tcg = r->cfg.wl.estimate_tcg;
	double fac = est_place_factor(p, tcg), x = 0;
	char *key, why[256] = "";
	bool named = false;
	size_t i;
	int q;

	for (q = -1; q < EST_NPLACES; q++) {
		enum est_place o = q < 0 ? p : (enum est_place)q;
		struct est_figure m;

		key = xasprintf("%s/%s/%s", wl, pkey, est_place_name(o));
		if (!timings_find(t, "sample", key, &m)) {
			free(key);
			continue;
		}
		free(key);
		*f = m;
		if (o != p) {
			/* measured elsewhere: scaled */
			f->s = m.s * fac / est_place_factor(o, tcg);
			f->src = EST_ASSUMED;
			snprintf(f->how, sizeof(f->how),
				 "%.3gx its %s figure, measured here %s",
				 fac / est_place_factor(o, tcg), est_place_name(o),
				 m.date);
		}
		goto out;
	}
	memset(f, 0, sizeof(*f));
	for (i = 0; i < cell->nparams; i++) {
		names[i] = cell->params[i].name;
		values[i] = cell->params[i].value;
	}
	if (*r->cfg.wl.estimate &&
	    est_declared_eval(r->cfg.wl.estimate, names, values, cell->nparams,
			      &x, &named, why, sizeof(why)) == 0) {
		/* a figure that names no parameter is the defaults' */
		const char *dflt = !named && params_set(r)
					   ? ", at its defaults, which this run "
					     "changes"
					   : "";

		f->s = x * fac;
		f->src = EST_DECLARED;
		if (p == EST_BARE)
			snprintf(f->how, sizeof(f->how), "its estimate%s", dflt);
		else
			snprintf(f->how, sizeof(f->how),
				 "its estimate, %.3g s on bare metal%s, x %.3g "
				 "(%s)",
				 x, dflt, fac,
				 p == EST_GUEST_KVM ? "a KVM guest, assumed"
				 : tcg > 0 ? "emulated, its estimate_tcg"
					   : "emulated, assumed");
		goto out;
	}
	f->s = EST_ASSUMED_SAMPLE_S * fac;
	f->src = EST_ASSUMED;
	if (*why)
		snprintf(f->how, sizeof(f->how),
			 "its estimate cannot be read (%.120s): assumed %g s "
			 "x %.3g",
			 why, EST_ASSUMED_SAMPLE_S, fac);
	else
		snprintf(f->how, sizeof(f->how),
			 "no estimate in '%s': assumed %g s x %.3g",
			 r->cfg.wl.path, EST_ASSUMED_SAMPLE_S, fac);
out:
	free(names);
	free(values);
}

static void boot_figure(const json_t *t, const char *image, enum est_place p,
			struct est_figure *f)
{
	char *key = xasprintf("%s/%s", image, est_place_name(p));

	if (!timings_find(t, "boot", key, f)) {
		memset(f, 0, sizeof(*f));
		f->s = est_assumed_boot_s(image, p);
		f->src = EST_ASSUMED;
		snprintf(f->how, sizeof(f->how), "assumed");
	}
	free(key);
}

static void cell_costs(const struct run *r, const json_t *t, int ci,
		       struct est_cell *c)
{
	const struct cell *cell = &r->cells[ci];
	enum est_place p = cell_place(r, ci, c->guest);
	char pkey[17];

	cell_params_key(cell, pkey);
	sample_figure(r, t, cell, pkey, p, &c->sample);
	snprintf(c->sample_what, sizeof(c->sample_what), "%s, %s",
		 r->cfg.wl.name, est_place_name(p));
	if (c->guest) {
		boot_figure(t, cell->image, p, &c->boot);
		snprintf(c->boot_what, sizeof(c->boot_what), "%s, %s",
			 cell->image, est_place_name(p));
	}
}

static void lab_costs(const struct run *r, const json_t *t,
		      struct est_input *in)
{
	/* a lab that carries the debian image boots: its saved state is of
	 * a lab without it (lab_boot()) */
	bool restore = r->cfg.lab_restore && !lab_carries(&r->matrix);
	const char *how = restore ? "restored" : "booted";

	in->lab = true;
	if (!timings_find(t, "lab", how, &in->lab_start)) {
		in->lab_start.s = restore ? EST_ASSUMED_LAB_RESTORED_S
					  : EST_ASSUMED_LAB_BOOTED_S;
		in->lab_start.src = EST_ASSUMED;
		snprintf(in->lab_start.how, sizeof(in->lab_start.how),
			 "assumed%s",
			 restore ? "; a boot and a save where no state fits: "
				   "about a minute more"
				 : "");
	}
	snprintf(in->lab_what, sizeof(in->lab_what), "%s%s", how,
		 r->cfg.lab_restore && !restore
		     ? ": it carries the debian image"
		     : "");
	if (r->lab_image_would != IMAGE_WOULD_NOTHING) {
		bool minutes = r->lab_image_would == IMAGE_WOULD_MINUTES;

		in->nimages = 1;
		in->image.s = minutes ? EST_ASSUMED_IMAGE_MINUTES_S
				      : EST_ASSUMED_IMAGE_SECONDS_S;
		in->image.src = EST_ASSUMED;
		snprintf(in->image.how, sizeof(in->image.how), "assumed");
		snprintf(in->image_what, sizeof(in->image_what), "lab image, %s",
			 minutes ? "through debootstrap"
				 : "from this host's packages");
	}
}

/* Why the most differs from the first pass. */
static void range_say(const struct run *r, struct est_input *in)
{
	if (r->cfg.plan_auto)
		snprintf(in->range_why, sizeof(in->range_why),
			 "plan = auto takes a sizing pass, then up to "
			 "max_boots = %ld boots and max_repeat = %ld samples "
			 "a guest cell",
			 r->cfg.max_boots, r->cfg.max_repeat);
	else if (r->cfg.target > 0)
		snprintf(in->range_why, sizeof(in->range_why),
			 "target = %s may take up to max_repeat = %ld samples "
			 "a cell",
			 r->cfg.target_text, r->cfg.max_repeat);
}

/* The rest per start of the workload with R's first cell's parameters
 * (timings.h). */
static bool rest_find(const struct run *r, const json_t *t,
		      struct est_figure *f)
{
	char pkey[17], *key;
	bool found;

	cell_params_key(&r->cells[0], pkey);
	key = xasprintf("%s/%s", r->cfg.wl.name, pkey);
	found = timings_find(t, "rest", key, f);
	free(key);
	return found;
}

/* The estimate of R's run into a new struct run_est (NULL: none). */
static struct run_est *estimate_new(const struct run *r)
{
	struct run_est *e = xcalloc(1, sizeof(*e));
	struct est_input *in = &e->in;
	struct est_rules ru = {
	    .interleaved = !strcmp(r->cfg.order, "interleaved"),
	    .repeat = r->cfg.repeat,
	    .boots = r->cfg.boots,
	    .warmup = r->cfg.warmup,
	    .target = r->cfg.target > 0,
	    .max_repeat = r->cfg.max_repeat,
	    .plan_auto = r->cfg.plan_auto,
	    .max_boots = r->cfg.max_boots,
	};
	struct est_count *counts;
	bool *guest;
	json_t *t = NULL;
	char *dir = timings_dir_new(), why[256];
	int ci;

	if (timings_load(dir, &t, why, sizeof(why)) < 0)
		warn("the run's estimate: '%s/%s' is not used: %s", dir,
		     TIMINGS_FILE, why);
	else
		info("the run's estimate: figures of earlier runs from "
		     "'%s/%s'%s", dir, TIMINGS_FILE, t ? "" : " (none yet)");
	/* the lab's guests share the lab's memory */
	ru.mem_budget =
	    run_in_lab(r)
		? (unsigned long long)((double)r->cfg.lab_memory * ROUNDS_MEM_SHARE)
		: run_rounds_budget();
	guest = xcalloc((size_t)r->ncells + 1, sizeof(*guest));
	counts = xcalloc((size_t)r->ncells + 1, sizeof(*counts));
	for (ci = 0; ci < r->ncells; ci++)
		guest[ci] = cell_guest(r, ci);
	est_count_cells(&ru, r->cells, r->ncells, guest, counts);
	in->cells = xcalloc((size_t)r->ncells + 1, sizeof(*in->cells));
	in->ncells = r->ncells;
	in->warmup = r->cfg.warmup;
	for (ci = 0; ci < r->ncells; ci++) {
		in->cells[ci].count = counts[ci];
		in->cells[ci].guest = guest[ci];
		cell_costs(r, t, ci, &in->cells[ci]);
	}
	if (!rest_find(r, t, &in->rest)) {
		in->rest.s = EST_ASSUMED_REST_S;
		in->rest.src = EST_ASSUMED;
		snprintf(in->rest.how, sizeof(in->rest.how), "assumed");
	}
	if (run_in_lab(r))
		lab_costs(r, t, in);
	range_say(r, in);
	e->n0 = xcalloc((size_t)r->ncells + 1, sizeof(*e->n0));
	e->b0 = xcalloc((size_t)r->ncells + 1, sizeof(*e->b0));
	free(guest);
	free(counts);
	free(dir);
	json_decref(t);
	return e;
}

void run_estimate_print(const struct run *r, FILE *f)
{
	struct run_est *e = estimate_new(r);
	char line[2048];

	est_format(&e->in, line, sizeof(line));
	fprintf(f, "%s\n", line);
	run_estimate_free(e);
}

/* A resumed run: what the estimate leaves of it, said. */
static void resumed_left(const struct run *r)
{
	const struct est_input *in = &r->est->in;
	struct est_now *now = xcalloc((size_t)r->ncells + 1, sizeof(*now));
	long taken = 0, all = 0;
	char d[32];
	int ci;

	for (ci = 0; ci < r->ncells; ci++) {
		const struct cell_state *st = &r->states[ci];
		long want = in->cells[ci].count.samples;

		now[ci].pending = st->status == CELL_PENDING;
		now[ci].samples_left = want > st->nsamples ? want - st->nsamples
							   : 0;
		now[ci].boots_done = st->boots < in->cells[ci].count.starts
					 ? st->boots
					 : in->cells[ci].count.starts;
		taken += st->nsamples < want ? st->nsamples : want;
		all += want;
	}
	est_duration(est_eta(in, now, 0), d, sizeof(d));
	note("estimate: resumed with %ld of %ld samples taken: %s left", taken,
	     all, d);
	free(now);
}

void run_estimate_begin(struct run *r)
{
	char line[2048];
	int ci;

	run_estimate_free(r->est);
	r->est = estimate_new(r);
	est_format(&r->est->in, line, sizeof(line));
	note("%s", line);
	for (ci = 0; r->states && ci < r->ncells; ci++) {
		r->est->n0[ci] = r->states[ci].nsamples;
		r->est->b0[ci] = r->states[ci].boots;
	}
	if (r->resume && r->states)
		resumed_left(r);
}

double run_eta(const struct run *r)
{
	struct est_now *now;
	double eta;
	int ci;

	if (!r->est || !r->states)
		return -1;
	now = xcalloc((size_t)r->ncells + 1, sizeof(*now));
	for (ci = 0; ci < r->ncells; ci++) {
		const struct cell_state *st = &r->states[ci];

		now[ci].pending =
		    st->status == CELL_PENDING && st->stop == STOP_NONE;
		now[ci].samples_done = st->nsamples - r->est->n0[ci];
		now[ci].samples_left = st->planned - st->nsamples;
		now[ci].boots_done = st->boots - r->est->b0[ci];
	}
	eta = est_eta(&r->est->in, now, mono_now() - r->t0);
	free(now);
	return eta;
}

void run_timings_record(const struct run *r)
{
	char *dir = timings_dir_new(), *text = NULL, why[256], date[32];
	json_t *t = NULL, *doc = NULL;
	size_t len;
	int n;

	if (timings_load(dir, &t, why, sizeof(why)) < 0) {
		warn("this run's figures are not kept: '%s/%s': %s", dir,
		     TIMINGS_FILE, why);
		goto out;
	}
	if (read_file(r->results_path, 64 << 20, &text, &len) < 0 ||
	    !(doc = json_loadb(text, len, 0, NULL)))
		goto out;
	iso8601_now(date, sizeof(date));
	date[10] = '\0';
	n = timings_update(
	    t, doc, mono_now() - r->t0,
	    !r->resume && !r->stopped &&
		!strcmp(json_string_value(json_object_get(
			    json_object_get(doc, "run"), "status")) ?: "",
			"complete"),
	    date);
	if (n > 0 && timings_save(dir, t) == 0)
		note("this host's figures for the next estimate: '%s/%s'", dir,
		     TIMINGS_FILE);
out:
	json_decref(doc);
	json_decref(t);
	free(text);
	free(dir);
}
