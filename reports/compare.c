/* SPDX-License-Identifier: MIT */
#include "compare.h"

#include "calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host-diff.h"
#include "util.h"

static const char *const letters[] = {
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M",
    "N", "O", "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z",
};

const char *compare_run_letter(size_t i)
{
	return i < ARRAY_SIZE(letters) ? letters[i] : "?";
}

const char *compare_axes(void)
{
	return "where|host-thp|guest-thp|paging|backing";
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static char *absent_note(const struct report_cell *c, const char *who)
{
	if (!c)
		return xasprintf("no such cell in %s", who);
	if (!c->nok)
		return xasprintf("%s: %s: %s", who, c->status,
				 c->reason ? c->reason : "no ok samples");
	return NULL;
}

static double reason_count(const struct report_kvm *k, const char *reason)
{
	size_t i;

	for (i = 0; i < k->nreasons; i++)
		if (!strcmp(k->reasons[i].reason, reason))
			return k->reasons[i].per_sample;
	return 0; /* the hist lists only the reasons that occurred */
}

/* Insert R into the top list by |delta| descending, then name. */
static void top_insert(struct compare_kvm *k,
		       const struct compare_kvm_reason *r)
{
	size_t i, j;

	for (i = 0; i < k->ntop; i++) {
		double a = fabs(r->delta), b = fabs(k->top[i].delta);

		if (a > b ||
		    (a == b && strcmp(r->reason, k->top[i].reason) < 0))
			break;
	}
	if (i >= COMPARE_KVM_TOP)
		return;
	if (k->ntop < COMPARE_KVM_TOP)
		k->ntop++;
	for (j = k->ntop - 1; j > i; j--)
		k->top[j] = k->top[j - 1];
	k->top[i] = *r;
}

static void kvm_delta(const struct report_kvm *ref,
		      const struct report_kvm *val, struct compare_kvm *k)
{
	const struct report_kvm *side[2] = {ref, val};
	size_t s, i, j;

	memset(k, 0, sizeof(*k));
	if (!ref->present || !val->present)
		return;
	k->valid = true;
	k->exits_ref = ref->exits_per_sample;
	k->exits = val->exits_per_sample;
	k->exits_delta = k->exits_ref > 0 ? k->exits / k->exits_ref - 1 : NAN;
	k->share_2m_ref = ref->share_2m;
	k->share_2m = val->share_2m;
	k->share_2m_delta = k->share_2m - k->share_2m_ref;
	if (!ref->nreason_samples || !val->nreason_samples)
		return;
	for (s = 0; s < 2; s++)
		for (i = 0; i < side[s]->nreasons; i++) {
			const char *name = side[s]->reasons[i].reason;
			struct compare_kvm_reason r;

			/* reasons of both sides: count each once */
			if (s == 1) {
				for (j = 0;
				     j < ref->nreasons &&
				     strcmp(ref->reasons[j].reason, name);
				     j++)
					;
				if (j < ref->nreasons)
					continue;
			}
			r.reason = name;
			r.ref = reason_count(ref, name);
			r.val = reason_count(val, name);
			r.delta = r.val - r.ref;
			top_insert(k, &r);
		}
}

/*
 * Both cells of ROW have ok samples: their slowdowns against their own
 * runs' baselines, side by side (compare.h, "Effects").
 */
static void effect_finish(struct compare_row *row)
{
	const struct stats_delta *sa = &row->ref->vs_base;
	const struct stats_delta *sb = &row->cell->vs_base;
	struct compare_effect *e = &row->effect;
	const char *ra = compare_run_letter(row->ref_run);
	const char *rb = compare_run_letter(row->run);

	e->ref_base = row->ref->is_baseline;
	e->base = row->cell->is_baseline;
	if (e->ref_base && e->base) {
		e->valid = true; /* 0 against 0, both by definition */
		return;
	}
	if (e->ref_base || e->base) {
		e->why = xasprintf("the baseline of run %s only: the runs' "
				   "slowdowns here are against different cells",
				   e->ref_base ? ra : rb);
		return;
	}
	if (!sa->valid || !sb->valid) {
		row->note =
		    xasprintf("run %s: no slowdown against its baseline "
			      "(a mean of 0)",
			      sa->valid ? rb : ra);
		return;
	}
	e->valid = true;
	e->points = sb->delta - sa->delta;
	e->ratio =
	    1 + sa->delta > 0 ? (1 + sb->delta) / (1 + sa->delta) - 1 : NAN;
}

/*
 * Both runs of ROW interleaved, with one baseline, and both cells paired
 * against it: the change of the paired estimates (compare.h).
 */
static bool paired_delta(const struct compare *c, struct compare_row *row,
			 bool higher_better)
{
	const struct report *ra = c->runs[row->ref_run], *rb = c->runs[row->run];
	struct stats_paired neg, out;

	if (c->by || !ra->schedule || !rb->schedule ||
	    strcmp(ra->baseline_id, rb->baseline_id) ||
	    row->ref->iv == REPORT_IV_FIELLER ||
	    row->cell->iv == REPORT_IV_FIELLER || !row->ref->paired.d.valid ||
	    !row->cell->paired.d.valid)
		return false;
	neg = row->ref->paired;
	neg.mean_log = -neg.mean_log;
	if (stats_paired_bridge(&row->cell->paired, &neg, higher_better,
				&out) < 0 ||
	    !out.d.valid)
		return false;
	row->d = out.d;
	row->paired = true;
	return true;
}

static void row_finish(struct compare *c, struct compare_row *row,
		       bool higher_better)
{
	char rn[256], n[256];

	if (c->by) {
		snprintf(rn, sizeof(rn), "%s=%s", c->by, row->ref_name);
		snprintf(n, sizeof(n), "%s=%s", c->by, row->name);
	} else {
		snprintf(rn, sizeof(rn), "run %s",
			 compare_run_letter(row->ref_run));
		snprintf(n, sizeof(n), "run %s", compare_run_letter(row->run));
	}
	if (!row->note)
		row->note = absent_note(row->ref, rn);
	if (!row->note)
		row->note = absent_note(row->cell, n);
	if (!row->note && c->effect) {
		effect_finish(row);
	} else if (!row->note) {
		if (!paired_delta(c, row, higher_better))
			stats_delta(&row->cell->units, &row->ref->units,
				    higher_better, &row->d);
		kvm_delta(&row->ref->kvm, &row->cell->kvm, &row->kvm);
		if (row->kvm.valid)
			c->has_kvm = true;
	} else
		memset(&row->d, 0, sizeof(row->d));
}

static struct compare_row *add_row(struct compare *c)
{
	c->rows = xrealloc(c->rows, (c->nrows + 1) * sizeof(*c->rows));
	memset(&c->rows[c->nrows], 0, sizeof(*c->rows));
	return &c->rows[c->nrows++];
}

static const char use_effect[] =
    "use --effect to compare each run's slowdowns against its own baseline";

static int check_comparable(struct report **runs, size_t nruns)
{
	const struct report *a = runs[0];
	size_t k;

	for (k = 1; k < nruns; k++) {
		const struct report *b = runs[k];

		if (strcmp(a->wl_name, b->wl_name))
			return err("cannot compare '%s' (workload '%s') with "
				   "'%s' (workload '%s'); %s",
				   a->path, a->wl_name, b->path, b->wl_name,
				   use_effect);
		if (strcmp(a->wl_metric, b->wl_metric) ||
		    strcmp(a->wl_unit, b->wl_unit) ||
		    a->higher_better != b->higher_better)
			return err("cannot compare '%s' (metric '%s' in '%s', "
				   "%s is better) with '%s' (metric '%s' in "
				   "'%s', %s is better); %s",
				   a->path, a->wl_metric, a->wl_unit,
				   a->wl_better, b->path, b->wl_metric,
				   b->wl_unit, b->wl_better, use_effect);
	}
	return 0;
}

static int no_cell(struct compare *c, size_t k, const char *id)
{
	char *ids = report_cell_ids_new(c->runs[k], "|");

	err("--pair: run %s ('%s') has no cell '%s' (its cells: %s)",
	    compare_run_letter(k), c->runs[k]->path, id, ids);
	free(ids);
	return -EINVAL;
}

static int check_pairs(struct compare *c, const struct compare_opts *o)
{
	size_t i, j, k;

	for (i = 0; i < o->npairs; i++) {
		const struct compare_pair *p = &o->pairs[i];

		if (report_find_cell(c->runs[0], p->ref_id) < 0)
			return no_cell(c, 0, p->ref_id);
		for (k = 1; k < c->nruns; k++)
			if (report_find_cell(c->runs[k], p->id) < 0)
				return no_cell(c, k, p->id);
		for (j = 0; j < i; j++) {
			if (!strcmp(o->pairs[j].ref_id, p->ref_id))
				return err("--pair: cell '%s' of run A is "
					   "paired twice (with '%s' and '%s')",
					   p->ref_id, o->pairs[j].id, p->id);
			if (!strcmp(o->pairs[j].id, p->id))
				return err("--pair: cell '%s' of the later "
					   "runs is paired twice (with '%s' "
					   "and '%s')",
					   p->id, o->pairs[j].ref_id,
					   p->ref_id);
		}
	}
	return 0;
}

/*
 * The cell of B aligned with run A's cell REF_ID: its pair's, else the
 * cell of the same id unless a pair claims that one; -1 when none.
 */
static long partner(const struct compare_opts *o, const struct report *b,
		    const char *ref_id)
{
	size_t i;

	for (i = 0; i < o->npairs; i++)
		if (!strcmp(o->pairs[i].ref_id, ref_id))
			return report_find_cell(b, o->pairs[i].id);
	for (i = 0; i < o->npairs; i++)
		if (!strcmp(o->pairs[i].id, ref_id))
			return -1;
	return report_find_cell(b, ref_id);
}

/* A pair that takes cell ID of the side (run A when REF), or NULL. */
static const struct compare_pair *pair_taking(const struct compare_opts *o,
					      const char *id, bool ref)
{
	size_t i;

	for (i = 0; i < o->npairs; i++)
		if (!strcmp(ref ? o->pairs[i].ref_id : o->pairs[i].id, id))
			return &o->pairs[i];
	return NULL;
}

/* Say so when run A's baseline and run K's are not in one row. */
static void baseline_note(struct compare *c, const struct compare_opts *o,
			  size_t k)
{
	const struct report *a = c->runs[0], *b = c->runs[k];
	long j = partner(o, b, a->baseline_id);
	char *with, *fix;

	if (j == b->baseline)
		return;
	with = j < 0 ? xstrdup("no cell") : xasprintf("'%s'", b->cells[j].id);
	fix = j < 0 ? xasprintf("--pair %s,%s aligns the baselines",
				a->baseline_id, b->baseline_id)
		    : xasprintf("--baseline %s=%s makes it run %s's baseline",
				compare_run_letter(k), b->cells[j].id,
				compare_run_letter(k));
	c->notes = xrealloc(c->notes, (c->nnotes + 1) * sizeof(*c->notes));
	c->notes[c->nnotes++] = xasprintf(
	    "run A's baseline '%s' is aligned with %s of run %s, whose "
	    "baseline is '%s': the two runs' slowdowns are against different "
	    "cells (%s)",
	    a->baseline_id, with, compare_run_letter(k), b->baseline_id, fix);
	free(fix);
	free(with);
}

static void add_note(struct compare *c, char *note)
{
	c->notes = xrealloc(c->notes, (c->nnotes + 1) * sizeof(*c->notes));
	c->notes[c->nnotes++] = note;
}

/*
 * A run whose host is not run A's: refused unless ALLOW_UNLIKE, else
 * noted (the machines differ too).
 */
static int host_notes(struct compare *c, bool allow_unlike)
{
	const json_t *a = json_object_get(
	    json_object_get(c->runs[0]->doc, "run"), "host");
	char diff[1024];
	size_t k;

	for (k = 1; k < c->nruns; k++) {
		const json_t *b = json_object_get(
		    json_object_get(c->runs[k]->doc, "run"), "host");

		if (!host_diff_text(a, b, diff, sizeof(diff)))
			continue;
		if (!allow_unlike)
			return err("'%s' (run %s) ran on another host than "
				   "'%s' (run A): %s; its differences would "
				   "be the hosts' too (--allow-unlike compares "
				   "them anyway)",
				   c->runs[k]->path, compare_run_letter(k),
				   c->runs[0]->path, diff);
		add_note(c, xasprintf("run %s ran on another host than run "
				      "A: %s; its differences are the "
				      "hosts' too",
				      compare_run_letter(k), diff));
	}
	return 0;
}

/* Say once that interleaved runs' rows compare paired estimates. */
static void paired_note(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nrows && !c->rows[i].paired; i++)
		;
	if (i == c->nrows)
		return;
	add_note(c, xasprintf(
			"the runs were interleaved: a cell's change is that of "
			"its paired slowdown against the baseline '%s' in "
			"each run (the host's drift within a run cancels); "
			"the baseline's own row compares its means",
			c->runs[0]->baseline_id));
}

/* Two runs of one config: consistent with a re-run?  (compare.h) */
static char *compare_rerun_new(struct compare *c)
{
	const struct report *a = c->runs[0], *b = c->runs[1];
	size_t i, n = 0, miss = 0, checks = 0, hold = 0;
	size_t allowed;
	bool x, y;

	if (!a->config_text || !b->config_text ||
	    strcmp(a->config_text, b->config_text))
		return NULL;
	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];

		if (row->d.valid && row->d.bounded) {
			n++;
			miss += !stats_interval_holds(&row->d, 0);
		}
		if (row->ref && row->cell && !row->ref->is_baseline &&
		    stats_rerun_holds(&row->ref->vs_base, &row->cell->vs_base,
				      &x, &y) >= 0 &&
		    row->ref->vs_base.bounded && row->cell->vs_base.bounded) {
			checks += 2;
			hold += (size_t)x + (size_t)y;
		}
	}
	if (!n)
		return xstrdup("the two runs share one config, but no row has "
			       "a bounded interval: " CALIBRATE_CANNOT_JUDGE);
	allowed = calibrate_allowed_misses(n);
	c->rerun_inconsistent = miss > allowed;
	return xasprintf(
	    "the two runs share one config: %zu of %zu cells' B/A intervals "
	    "hold 0 (up to %zu misses expected by chance); each run's "
	    "slowdown interval holds the other's estimate in %zu of %zu "
	    "checks (about 83%% for calibrated intervals): %s",
	    n - miss, n, allowed, hold, checks,
	    miss <= allowed ? CALIBRATE_CONSISTENT : CALIBRATE_INCONSISTENT);
}

static void across_runs(struct compare *c, const struct compare_opts *o)
{
	const struct report *a = c->runs[0];
	struct compare_row *row;
	const struct compare_pair *p;
	size_t k, i, i2;

	for (k = 1; k < c->nruns; k++) {
		const struct report *b = c->runs[k];
		const char *bl = compare_run_letter(k);

		if (c->effect)
			baseline_note(c, o, k);
		for (i = 0; i < a->ncells; i++) {
			long j = partner(o, b, a->cells[i].id);

			row = add_row(c);
			row->ref_run = 0;
			row->run = k;
			row->ref = &a->cells[i];
			row->cell = j < 0 ? NULL : &b->cells[j];
			p = pair_taking(o, a->cells[i].id, false);
			if (j < 0 && p)
				row->note = xasprintf(
				    "run %s's cell '%s' is paired with '%s'",
				    bl, p->id, p->ref_id);
			row_finish(c, row, a->higher_better);
		}
		for (i = 0; i < b->ncells; i++) {
			for (i2 = 0; i2 < a->ncells; i2++)
				if (partner(o, b, a->cells[i2].id) == (long)i)
					break;
			if (i2 < a->ncells)
				continue;
			row = add_row(c);
			row->ref_run = 0;
			row->run = k;
			row->cell = &b->cells[i];
			p = pair_taking(o, b->cells[i].id, true);
			if (p)
				row->note = xasprintf(
				    "run A's cell '%s' is paired with '%s'",
				    p->ref_id, p->id);
			row_finish(c, row, a->higher_better);
		}
	}
}

/*
 * Cells P and Q differ at most in axis AX; for "where" the axes that apply
 * to guests only are ignored.
 */
static bool pair_of(const struct report *r, size_t ax,
		    const struct report_cell *p, const struct report_cell *q)
{
	bool where = !strcmp(r->axes[ax].name, AXIS_NAME_WHERE);
	size_t i;

	for (i = 0; i < r->naxes; i++) {
		if (i == ax || (where && r->axes[i].guest_only))
			continue;
		if (!same(p->axv[i], q->axv[i]))
			return false;
	}
	return true;
}

static int by_axis(struct compare *c)
{
	const struct report *r = c->runs[0];
	const char *ref;
	char *names;
	size_t i, j;
	long ax;

	ax = report_lookup_axis(r, c->by);
	if (ax < 0) {
		names = report_axis_names_new(r, "|");
		err("unknown axis '%s' (axes of '%s': %s)", c->by, r->path,
		    names);
		free(names);
		return -EINVAL;
	}
	ref = r->cells[r->baseline].axv[ax];
	if (!ref)
		ref = r->axes[ax].values[0];

	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *cell = &r->cells[i];
		const char *v = cell->axv[ax];
		struct compare_row *row;

		if (!v || !strcmp(v, ref))
			continue;
		row = add_row(c);
		row->cell = cell;
		row->name = v;
		row->ref_name = ref;
		for (j = 0; j < r->ncells; j++) {
			const char *w = r->cells[j].axv[ax];

			if (w && !strcmp(w, ref) &&
			    pair_of(r, (size_t)ax, &r->cells[j], cell)) {
				row->ref = &r->cells[j];
				break;
			}
		}
		row_finish(c, row, r->higher_better);
	}
	if (!c->nrows)
		return err("'%s': no two cells differ only in '%s'", r->path,
			   c->by);
	return 0;
}

/* An effect compare needs a slowdown in every run. */
static int check_baselines(struct report **runs, size_t nruns)
{
	size_t k;

	for (k = 0; k < nruns; k++) {
		const struct report *r = runs[k];
		const struct report_cell *b = &r->cells[r->baseline];

		if (!b->nok)
			return err("'%s': baseline '%s' has no ok samples "
				   "(%s: %s): the run has no slowdowns to "
				   "compare",
				   r->path, b->id, b->status,
				   b->reason ? b->reason : "no reason given");
	}
	return 0;
}

static int set_baselines(struct report **runs, size_t nruns,
			 const struct compare_opts *o)
{
	size_t i, j;
	int ret;

	for (i = 0; i < o->nbaselines; i++) {
		const struct compare_baseline *b = &o->baselines[i];

		if (b->run >= nruns)
			return err("--baseline %s=%s: there is no run %s (%zu "
				   "runs: A to %s)",
				   compare_run_letter(b->run), b->id,
				   compare_run_letter(b->run), nruns,
				   compare_run_letter(nruns - 1));
		for (j = 0; j < i; j++)
			if (o->baselines[j].run == b->run)
				return err("--baseline: run %s is given two "
					   "baselines ('%s' and '%s')",
					   compare_run_letter(b->run),
					   o->baselines[j].id, b->id);
		ret = report_set_baseline(runs[b->run], b->id);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int check_opts(const struct compare_opts *o, size_t nruns)
{
	if (o->by && o->effect)
		return err("--effect compares runs, each against its own "
			   "baseline; it does not go with --by");
	if (o->nbaselines && !o->effect)
		return err(
		    "--baseline sets what a run's slowdowns are against; "
		    "it goes with --effect only");
	if (o->by && o->npairs)
		return err("--pair aligns the cells of two runs; it does not "
			   "go with --by");
	if (o->by && nruns != 1)
		return err("--by pivots an axis within one run; give one run, "
			   "not %zu",
			   nruns);
	if (!o->by && nruns < 2)
		return err("compare needs two runs or more (or --by AXIS)");
	if (nruns > ARRAY_SIZE(letters))
		return err("compare takes at most %zu runs",
			   ARRAY_SIZE(letters));
	return 0;
}

int compare_new(struct report **runs, size_t nruns,
		const struct compare_opts *o, struct compare **out)
{
	static const struct compare_opts none;
	struct compare *c = xcalloc(1, sizeof(*c));
	double *geo = NULL;
	size_t i;
	int ret;

	*out = NULL;
	if (!o)
		o = &none;
	c->runs = runs;
	c->nruns = nruns;
	c->by = o->by;
	c->effect = o->effect;
	c->threshold = o->threshold;
	ret = check_opts(o, nruns);
	if (ret < 0)
		goto out;
	ret = set_baselines(runs, nruns, o);
	if (ret < 0)
		goto out;
	ret = c->effect ? check_baselines(runs, nruns)
			: check_comparable(runs, nruns);
	if (ret < 0)
		goto out;
	ret = check_pairs(c, o);
	if (ret < 0)
		goto out;
	if (c->by) {
		ret = by_axis(c);
		if (ret < 0)
			goto out;
	} else {
		ret = host_notes(c, o->allow_unlike || c->effect);
		if (ret < 0)
			goto out;
		across_runs(c, o);
		paired_note(c);
	}
	if (!c->by && !c->effect && nruns == 2)
		c->rerun = compare_rerun_new(c);
	geo = xcalloc(c->nrows + 1, sizeof(*geo));
	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].d.valid)
			geo[c->ngeo++] = 1 + c->rows[i].d.delta;
	c->geomean = stats_geomean(geo, c->ngeo) - 1;
	*out = c;
	c = NULL;
	ret = 0;
out:
	free(geo);
	compare_free(c);
	return ret;
}

int compare_parse_pair(char *text, struct compare_pair *p)
{
	char *comma = strchr(text, ',');

	if (!comma || comma == text || !comma[1] || strchr(comma + 1, ','))
		return err("--pair '%s': expected REF_ID,ID (a cell id of run "
			   "A, a comma, a cell id of the later runs)",
			   text);
	*comma = '\0';
	p->ref_id = text;
	p->id = comma + 1;
	return 0;
}

int compare_parse_baseline(const char *text, struct compare_baseline *b)
{
	if (text[0] < 'A' || text[0] > 'Z' || text[1] != '=' || !text[2])
		return err("--baseline '%s': expected RUN=ID (a run letter, A "
			   "for the first, '=', a cell id of that run)",
			   text);
	b->run = (size_t)(text[0] - 'A');
	b->id = text + 2;
	return 0;
}

bool compare_row_changed(const struct compare_row *row, double threshold)
{
	return row->d.valid && row->d.significant &&
	       (threshold <= 0 || fabs(row->d.delta) > threshold);
}

char *compare_verdict_new(const struct compare *c)
{
	char *list = xstrdup(""), *out = NULL, *t;
	size_t i, n = 0, shown = 0;

	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		const struct report_cell *cell = row->cell ? row->cell : row->ref;

		if (!compare_row_changed(row, c->threshold))
			continue;
		if (++n > 5)
			continue;
		t = xasprintf("%s%s'%s'%s%s %+.1f%%", list, shown++ ? ", " : "",
			      cell->id, c->by ? "" : " run ",
			      c->by ? "" : compare_run_letter(row->run),
			      100 * row->d.delta);
		free(list);
		list = t;
	}
	if (n) {
		char beyond[64] = "";

		if (c->threshold > 0)
			snprintf(beyond, sizeof(beyond), " beyond %g%%",
				 100 * c->threshold);
		out = xasprintf("%zu of %zu rows changed significantly%s: %s%s",
				n, c->nrows, beyond, list, n > shown ? ", ..." : "");
	}
	if (c->rerun_inconsistent) {
		t = xasprintf("%s%sthe runs are NOT consistent with a re-run",
			      out ? out : "", out ? "; " : "");
		free(out);
		out = t;
	}
	free(list);
	return out;
}

int compare_parse_threshold(const char *text, double *fraction)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end != text && *end == '%')
		end++;
	if (end == text || *end || errno || !isfinite(v) || v < 0)
		return err("--threshold '%s': expected a percentage >= 0 "
			   "(5 or 5%%: a change of more than 5%% counts)",
			   text);
	*fraction = v / 100;
	return 0;
}

void compare_free(struct compare *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nrows; i++) {
		free(c->rows[i].note);
		free(c->rows[i].effect.why);
	}
	for (i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	free(c->rerun);
	free(c->rows);
	free(c);
}
