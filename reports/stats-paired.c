/* SPDX-License-Identifier: MIT */
#include "stats-paired.h"

#include "rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats-robust.h"

static bool all_finite(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* ---- variance components and the plan ---- */

static void kj_nan(struct stats_kj *o, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->nsamples = n;
	o->r1 = o->inv_r1 = o->s1sq = o->s2sq = o->t1sq = o->t2sq = NAN;
}

/* The mean of 1 / n_i over the NG groups of BOOT[0..N) (stats_groups()'s
 * grouping): what the within variance adds to the boot means' variance. */
static double mean_inverse_size(const long *boot, size_t n, size_t ng)
{
	double s = 0;
	size_t i, j, c;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && (!boot || boot[j] != boot[i]); j++)
			;
		if (j < i)
			continue; /* counted at the boot's first sample */
		for (c = 0, j = i; j < n; j++)
			c += !boot || boot[j] == boot[i];
		s += 1.0 / c;
	}
	return s / ng;
}

int stats_kj(const double *x, const long *boot, size_t n, struct stats_kj *out)
{
	struct stats_groups g;
	long *zero = NULL;
	double raw;

	kj_nan(out, n);
	if (!n)
		return 0;
	if (!all_finite(x, n))
		return -EDOM;
	if (!boot) {
		zero = calloc(n, sizeof(*zero));
		if (!zero)
			return -ENOMEM;
	}
	stats_groups(x, boot ? boot : zero, n, &g, NULL);
	free(zero);
	out->nboots = g.ngroups;
	out->r1 = (double)n / g.ngroups;
	out->inv_r1 = mean_inverse_size(boot, n, g.ngroups);
	out->s1sq = out->t1sq = g.within_var;
	out->s2sq = g.between_var;
	if (isnan(out->s1sq) || isnan(out->s2sq))
		return 0;
	raw = out->s2sq - out->s1sq * out->inv_r1;
	out->t2sq_clamped = raw < 0;
	out->t2sq = raw < 0 ? 0 : raw;
	return 0;
}

static bool bad_var(double v)
{
	return !(v >= 0) || isinf(v);
}

long stats_kj_samples_per_boot(double t1sq, double t2sq, double c1, double c2,
			       long max)
{
	double r;

	if (max < 1 || !(c1 > 0) || !(c2 >= 0) || isinf(c1) || isinf(c2) ||
	    bad_var(t1sq) || bad_var(t2sq))
		return -EINVAL;
	if (t2sq == 0)
		return max;
	r = ceil(sqrt(c2 * t1sq / (c1 * t2sq)));
	if (r < 1)
		return 1;
	return r > (double)max ? max : (long)r;
}

long stats_kj_boots_for(double t1sq, double t2sq, long r1, double mean,
			double target, long max_boots)
{
	double var, want, z, k0;
	long k;

	if (r1 < 1 || max_boots < 2 || !(target > 0) || !isfinite(mean) ||
	    mean == 0 || bad_var(t1sq) || bad_var(t2sq))
		return -EINVAL;
	var = t2sq + t1sq / r1;
	want = target * fabs(mean);
	/* t(0.975, k - 1) > z(0.975): the normal's k is a lower bound. */
	z = 1.959963984540054;
	k0 = ceil(z * z * var / (want * want));
	k = k0 < 2 ? 2 : k0 > (double)max_boots ? max_boots : (long)k0;
	for (; k < max_boots; k++)
		if (stats_t_quantile(1 - STATS_ALPHA / 2, k - 1) *
			sqrt(var / k) <=
		    want)
			break;
	return k;
}

/* ---- units: boots, or rounds ---- */

/* Observations IDX[START[j] .. START[j + 1]) make unit j. */
struct units {
	size_t k;
	size_t *start, *idx;
	enum stats_unit unit;
};

static void units_release(struct units *u)
{
	free(u->start);
	free(u->idx);
}

/*
 * Units of N observations labelled by BOOT: the boots when there are
 * several (all labels >= 0), else every observation; but one label for
 * every observation is one unit when ONE_BOOT_ONE_UNIT (a paired
 * interval: its rounds are not independent of each other then).
 */
static int units_of(const long *boot, size_t n, bool one_boot_one_unit,
		    struct units *u)
{
	long *ids = NULL;
	size_t *of = NULL, i, j, nids = 0, nneg = 0;
	int ret = -ENOMEM;

	memset(u, 0, sizeof(*u));
	u->start = malloc((n + 1) * sizeof(*u->start));
	u->idx = malloc((n ? n : 1) * sizeof(*u->idx));
	ids = malloc((n ? n : 1) * sizeof(*ids));
	of = malloc((n ? n : 1) * sizeof(*of));
	if (!u->start || !u->idx || !ids || !of)
		goto out;
	for (i = 0; boot && i < n; i++) {
		if (boot[i] < 0) {
			nneg++;
			continue;
		}
		for (j = 0; j < nids && ids[j] != boot[i]; j++)
			;
		if (j == nids)
			ids[nids++] = boot[i];
		of[i] = j;
	}
	ret = -EINVAL;
	if (nneg && nneg < n)
		goto out;
	if (nids == 1 && !nneg && one_boot_one_unit) {
		u->unit = STATS_UNIT_BOOT;
	} else if (nids < 2) {
		for (i = 0; i < n; i++)
			of[i] = i;
		nids = n;
		u->unit = STATS_UNIT_ROUND;
	} else {
		u->unit = STATS_UNIT_BOOT;
	}
	/* A counting sort of the observations by unit. */
	u->k = nids;
	memset(u->start, 0, (n + 1) * sizeof(*u->start));
	for (i = 0; i < n; i++)
		u->start[of[i] + 1]++;
	for (j = 0; j < nids; j++)
		u->start[j + 1] += u->start[j];
	for (i = 0; i < n; i++)
		u->idx[u->start[of[i]]++] = i;
	for (j = nids; j > 0; j--)
		u->start[j] = u->start[j - 1];
	u->start[0] = 0;
	ret = 0;
out:
	free(ids);
	free(of);
	if (ret)
		units_release(u);
	return ret;
}

static double unit_mean(const double *x, const struct units *u, size_t j)
{
	double s = 0;
	size_t i;

	for (i = u->start[j]; i < u->start[j + 1]; i++)
		s += x[u->idx[i]];
	return s / (u->start[j + 1] - u->start[j]);
}

/* ---- the paired estimate ---- */

static size_t uf_root(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

static bool same_boot(const long *boot, size_t i, size_t j)
{
	return boot && boot[i] >= 0 && boot[i] == boot[j];
}

size_t stats_paired_units(const long *boot_a, const long *boot_b, size_t n,
			  long *unit)
{
	size_t *parent, i, j, k = 0;
	bool any = false;

	if (!n)
		return 0;
	parent = malloc(n * sizeof(*parent));
	if (!parent)
		abort();
	for (i = 0; i < n; i++)
		parent[i] = i;
	/* Union-find: rounds that share a boot on either side join. */
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (same_boot(boot_a, i, j) || same_boot(boot_b, i, j))
				parent[uf_root(parent, i)] = uf_root(parent, j);
	for (i = 0; i < n; i++) {
		unit[i] = -1;
		any |= (boot_a && boot_a[i] >= 0) || (boot_b && boot_b[i] >= 0);
	}
	for (i = 0; i < n; i++) {
		size_t root = uf_root(parent, i);

		if (unit[root] < 0)
			unit[root] = (long)k++;
		unit[i] = unit[root];
	}
	free(parent);
	if (!any)
		for (i = 0; i < n; i++)
			unit[i] = -1;
	return k;
}

const char *stats_unit_name(enum stats_unit u)
{
	switch (u) {
	case STATS_UNIT_ROUND:
		return "round";
	case STATS_UNIT_BOOT:
		return "boot";
	case STATS_UNIT_BRIDGE:
		return "bridge";
	}
	return "?";
}

int stats_log_ratios(const double *cell, const double *ref, size_t n, double *d)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(cell[i] > 0) || !(ref[i] > 0) || isinf(cell[i]) ||
		    isinf(ref[i])) {
			d[i] = NAN;
			ret = -EDOM;
			continue;
		}
		d[i] = log(cell[i] / ref[i]);
	}
	return ret;
}

static void paired_init(struct stats_paired *o, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->nrounds = n;
	o->mean_log = o->se = o->df = NAN;
	o->ratio = o->ratio_lo = o->ratio_hi = NAN;
	kj_nan(&o->kj, n);
	o->d.delta = o->d.lo = o->d.hi = o->d.p = o->d.df = NAN;
}

/* The ratio, the delta and their interval from the log scale. */
static void paired_fill(struct stats_paired *o, double m, double se, double df,
			bool higher_better)
{
	double tq, t;

	o->mean_log = m;
	o->se = se;
	o->df = df;
	o->ratio = exp(m);
	o->d.valid = true;
	o->d.delta = expm1(higher_better ? -m : m);
	/* One unit, or two that agree: nothing to judge the spread by. */
	if (!(df > 0) || isnan(se) || stats_too_few((size_t)(df + 1), se)) {
		o->d.why = STATS_WHY_TOO_FEW;
		return;
	}
	/* No spread at all: the ratio is exact (as stats_delta() has it). */
	tq = se == 0 ? 0 : stats_t_quantile(1 - STATS_ALPHA / 2, df);
	o->ratio_lo = exp(m - tq * se);
	o->ratio_hi = exp(m + tq * se);
	o->d.lo = expm1(higher_better ? -(m + tq * se) : m - tq * se);
	o->d.hi = expm1(higher_better ? -(m - tq * se) : m + tq * se);
	o->d.bounded = true;
	o->d.df = df;
	if (se == 0) {
		o->d.p = m == 0 ? 1 : 0;
	} else {
		t = m / se;
		o->d.p = stats_betai(df / 2, 0.5, df / (df + t * t));
	}
	o->d.significant = o->d.p < STATS_ALPHA;
}

int stats_paired(const double *d, const long *boot, size_t n,
		 bool higher_better, struct stats_paired *out)
{
	struct units u;
	double m = 0, ss = 0, se = NAN, *means = NULL;
	size_t j;
	int ret;

	paired_init(out, n);
	if (!n)
		return 0;
	if (!all_finite(d, n))
		return -EDOM;
	ret = units_of(boot, n, true, &u);
	if (ret)
		return ret;
	means = malloc(u.k * sizeof(*means));
	if (!means) {
		ret = -ENOMEM;
		goto out;
	}
	ret = stats_kj(d, u.unit == STATS_UNIT_BOOT ? boot : NULL, n, &out->kj);
	if (ret)
		goto out;
	for (j = 0; j < u.k; j++) {
		means[j] = unit_mean(d, &u, j);
		m += means[j];
	}
	m /= u.k;
	if (u.k > 1) {
		for (j = 0; j < u.k; j++)
			ss += (means[j] - m) * (means[j] - m);
		se = sqrt(ss / (u.k - 1) / u.k);
	}
	out->nunits = u.k;
	out->unit = u.unit;
	paired_fill(out, m, se, (double)u.k - 1, higher_better);
	if (u.unit == STATS_UNIT_BOOT && u.k == 1)
		out->d.why = STATS_WHY_ONE_UNIT;
out:
	free(means);
	units_release(&u);
	return ret;
}

int stats_paired_bridge(const struct stats_paired *a,
			const struct stats_paired *b, bool higher_better,
			struct stats_paired *out)
{
	double va, vb, v, df;

	paired_init(out, a->nrounds + b->nrounds);
	out->unit = STATS_UNIT_BRIDGE;
	out->nunits = a->nunits + b->nunits;
	if (!a->d.valid || !b->d.valid)
		return -EINVAL;
	va = a->se * a->se;
	vb = b->se * b->se;
	v = va + vb;
	if (!(a->df > 0) || !(b->df > 0) || isnan(v))
		df = NAN;
	else if (v == 0)
		df = a->df + b->df;
	else
		df = v * v / (va * va / a->df + vb * vb / b->df);
	paired_fill(out, a->mean_log + b->mean_log, sqrt(v), df, higher_better);
	return 0;
}

/* ---- the hierarchical bootstrap ---- */

static double hboot_mean(const double *x, const struct units *u, struct rng *g)
{
	double sum = 0, s;
	size_t r, i, j, nj;

	for (r = 0; r < u->k; r++) {
		j = (size_t)rng_below(g, u->k);
		nj = u->start[j + 1] - u->start[j];
		s = 0;
		for (i = 0; i < nj; i++)
			s += x[u->idx[u->start[j] + (size_t)rng_below(g, nj)]];
		sum += s / nj;
	}
	return sum / u->k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The P quantile of sorted S[0..N), N >= 2 (linear interpolation). */
static double quantile(const double *s, size_t n, double p)
{
	double h = p * (n - 1);
	size_t i = (size_t)h;

	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (h - i) * (s[i + 1] - s[i]);
}

static void percentiles(double *s, size_t n, double *lo, double *hi)
{
	qsort(s, n, sizeof(*s), cmp_double);
	*lo = quantile(s, n, STATS_ALPHA / 2);
	*hi = quantile(s, n, 1 - STATS_ALPHA / 2);
}

int stats_hboot_paired(const double *d, const long *boot, size_t n,
		       uint64_t seed, size_t nres, bool higher_better,
		       double *lo, double *hi)
{
	struct rng g;

	rng_seed(&g, seed);
	struct units u;
	double *s = NULL, l, h;
	size_t r;
	int ret;

	*lo = *hi = NAN;
	if (!n || nres < 2)
		return -EINVAL;
	if (!all_finite(d, n))
		return -EDOM;
	ret = units_of(boot, n, true, &u);
	if (ret)
		return ret;
	ret = -EDOM;
	if (u.k < 2)
		goto out;
	ret = -ENOMEM;
	s = malloc(nres * sizeof(*s));
	if (!s)
		goto out;
	for (r = 0; r < nres; r++)
		s[r] = hboot_mean(d, &u, &g);
	percentiles(s, nres, &l, &h);
	*lo = expm1(higher_better ? -h : l);
	*hi = expm1(higher_better ? -l : h);
	ret = 0;
out:
	free(s);
	units_release(&u);
	return ret;
}

static bool all_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(x[i] > 0) || isinf(x[i]))
			return false;
	return true;
}

int stats_hboot_ratio(const double *x, const long *xboot, size_t nx,
		      const double *y, const long *yboot, size_t ny,
		      uint64_t seed, size_t nres, bool higher_better,
		      double *lo, double *hi)
{
	struct rng g;

	rng_seed(&g, seed);
	struct units ux, uy;
	double *s = NULL, l, h;
	size_t r;
	int ret;

	*lo = *hi = NAN;
	if (!nx || !ny || nres < 2)
		return -EINVAL;
	if (!all_positive(x, nx) || !all_positive(y, ny))
		return -EDOM;
	ret = units_of(xboot, nx, false, &ux);
	if (ret)
		return ret;
	ret = units_of(yboot, ny, false, &uy);
	if (ret) {
		units_release(&ux);
		return ret;
	}
	ret = -EDOM;
	if (ux.k < 2 || uy.k < 2)
		goto out;
	ret = -ENOMEM;
	s = malloc(nres * sizeof(*s));
	if (!s)
		goto out;
	for (r = 0; r < nres; r++)
		s[r] = hboot_mean(x, &ux, &g) / hboot_mean(y, &uy, &g);
	percentiles(s, nres, &l, &h);
	*lo = higher_better ? 1 / h - 1 : l - 1;
	*hi = higher_better ? 1 / l - 1 : h - 1;
	ret = 0;
out:
	free(s);
	units_release(&ux);
	units_release(&uy);
	return ret;
}

/* ---- A/A ---- */

bool stats_interval_holds(const struct stats_delta *d, double value)
{
	return d->valid && d->bounded && d->lo <= value && value <= d->hi;
}

int stats_rerun_holds(const struct stats_delta *a, const struct stats_delta *b,
		      bool *a_holds_b, bool *b_holds_a)
{
	*a_holds_b = *b_holds_a = false;
	if (!a->valid || !b->valid)
		return -EINVAL;
	*a_holds_b = stats_interval_holds(a, b->delta);
	*b_holds_a = stats_interval_holds(b, a->delta);
	return *a_holds_b + *b_holds_a;
}
