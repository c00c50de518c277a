/* SPDX-License-Identifier: MIT */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	row->note = absent_note(row->ref, rn);
	if (!row->note)
		row->note = absent_note(row->cell, n);
	if (!row->note) {
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

static int check_comparable(struct report **runs, size_t nruns)
{
	const struct report *a = runs[0];
	size_t k;

	for (k = 1; k < nruns; k++) {
		const struct report *b = runs[k];

		if (strcmp(a->wl_name, b->wl_name))
			return err("cannot compare '%s' (workload '%s') with "
				   "'%s' (workload '%s')",
				   a->path, a->wl_name, b->path, b->wl_name);
		if (strcmp(a->wl_metric, b->wl_metric) ||
		    strcmp(a->wl_unit, b->wl_unit) ||
		    a->higher_better != b->higher_better)
			return err("cannot compare '%s' (metric '%s' in '%s', "
				   "%s is better) with '%s' (metric '%s' in "
				   "'%s', %s is better)",
				   a->path, a->wl_metric, a->wl_unit,
				   a->wl_better, b->path, b->wl_metric,
				   b->wl_unit, b->wl_better);
	}
	return 0;
}

static void across_runs(struct compare *c)
{
	const struct report *a = c->runs[0];
	struct compare_row *row;
	size_t k, i;

	for (k = 1; k < c->nruns; k++) {
		const struct report *b = c->runs[k];

		for (i = 0; i < a->ncells; i++) {
			long j = report_find_cell(b, a->cells[i].id);

			row = add_row(c);
			row->ref_run = 0;
			row->run = k;
			row->ref = &a->cells[i];
			row->cell = j < 0 ? NULL : &b->cells[j];
			row_finish(c, row, a->higher_better);
		}
		for (i = 0; i < b->ncells; i++) {
			if (report_find_cell(a, b->cells[i].id) >= 0)
				continue;
			row = add_row(c);
			row->ref_run = 0;
			row->run = k;
			row->cell = &b->cells[i];
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
	bool where = !strcmp(r->axes[ax].name, "where");
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

int compare_new(struct report **runs, size_t nruns, const char *by,
		struct compare **out)
{
	struct compare *c = xcalloc(1, sizeof(*c));
	double *geo = NULL;
	size_t i;
	int ret;

	*out = NULL;
	c->runs = runs;
	c->nruns = nruns;
	c->by = by;
	if (by && nruns != 1) {
		ret = err("--by pivots an axis within one run; give one run, "
			  "not %zu",
			  nruns);
		goto out;
	}
	if (!by && nruns < 2) {
		ret = err("compare needs two runs or more (or --by AXIS)");
		goto out;
	}
	if (nruns > ARRAY_SIZE(letters)) {
		ret =
		    err("compare takes at most %zu runs", ARRAY_SIZE(letters));
		goto out;
	}
	ret = check_comparable(runs, nruns);
	if (ret < 0)
		goto out;
	if (by) {
		ret = by_axis(c);
		if (ret < 0)
			goto out;
	} else {
		across_runs(c);
	}
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

void compare_free(struct compare *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nrows; i++)
		free(c->rows[i].note);
	free(c->rows);
	free(c);
}
