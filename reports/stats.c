/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A power of two near the largest |x| (1 when they are all 0 or not
 * finite): dividing by it is exact, and sums of the quotients stay far from
 * overflow, so means and spreads are right at 1e300 as at 1.
 */
static double pow2_scale(const double *x, size_t n)
{
	double m = 0;
	size_t i;
	int e;

	for (i = 0; i < n; i++)
		if (isfinite(x[i]) && fabs(x[i]) > m)
			m = fabs(x[i]);
	if (!(m > 0))
		return 1;
	frexp(m, &e);
	return ldexp(1, e);
}

int stats_summarize(const double *x, size_t n, struct stats_summary *s)
{
	double *sorted;
	double sum = 0, ss = 0, tq, scale, dev;
	size_t i;

	s->n = n;
	s->mean = s->median = s->stddev = s->cv = NAN;
	s->min = s->max = s->ci_lo = s->ci_hi = NAN;
	if (!n)
		return 0;

	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		abort();
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	scale = pow2_scale(sorted, n);
	for (i = 0; i < n; i++)
		sum += sorted[i] / scale;
	s->mean = sum / n * scale;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median =
	    n % 2 ? sorted[n / 2] : sorted[n / 2 - 1] / 2 + sorted[n / 2] / 2;
	free(sorted);
	if (n < 2)
		return 0;

	/* Two-pass variance, scaled: accurate, and finite at 1e300. */
	for (i = 0; i < n; i++) {
		dev = (x[i] - s->mean) / scale;
		ss += dev * dev;
	}
	s->stddev = sqrt(ss / (n - 1)) * scale;
	s->cv = s->mean != 0 ? s->stddev / fabs(s->mean) : NAN;
	tq = stats_t_quantile(1 - STATS_ALPHA / 2, n - 1);
	s->ci_lo = s->mean - tq * s->stddev / sqrt(n);
	s->ci_hi = s->mean + tq * s->stddev / sqrt(n);
	/* The mean of values >= 0 is >= 0: the interval is cut there (the
	 * cut loses no coverage, since the true mean is never below). */
	if (s->min >= 0 && s->ci_lo < 0)
		s->ci_lo = 0;
	return 0;
}

/* Continued fraction for I_x(a, b) by the modified Lentz method. */
static double betacf(double a, double b, double x)
{
	const double eps = 1e-15, tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h, aa, del;
	int m, m2;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		m2 = 2 * m;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double bt;

	if (!(a > 0) || !(b > 0) || isnan(x))
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		 b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * stats_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double want, lo = 0, hi = 1, x = 0.5, nx, f, dens, lbeta, t;
	int i;

	if (!(df > 0) || !(p > 0) || !(p < 1))
		return NAN;
	if (p == 0.5)
		return 0;
	/*
	 * P(|T| > t) = I_x(df/2, 1/2) with x = df/(df+t^2), increasing in x:
	 * solve on x, where the function is smooth and bounded, by Newton
	 * steps (dI/dx = x^(a-1) (1-x)^(-1/2) / B(a, 1/2)) kept inside the
	 * bracket [lo, hi], bisecting whenever a step would leave it.
	 */
	want = 2 * (p > 0.5 ? 1 - p : p);
	lbeta = lgamma(df / 2) + lgamma(0.5) - lgamma(df / 2 + 0.5);
	for (i = 0; i < 400; i++) {
		f = stats_betai(df / 2, 0.5, x) - want;
		if (f == 0)
			break;
		if (f < 0)
			lo = x;
		else
			hi = x;
		dens = exp((df / 2 - 1) * log(x) - 0.5 * log1p(-x) - lbeta);
		nx = x - f / dens;
		if (!(nx > lo && nx < hi))
			nx = lo + (hi - lo) / 2;
		if (nx <= lo || nx >= hi || fabs(nx - x) <= 1e-16 * x)
			break;
		x = nx;
	}
	t = sqrt(df * (1 - x) / x);
	return p > 0.5 ? t : -t;
}

/* The squared standard error of a mean over SCALE^2 (as unscaled code
 * computes it, sd * sd / n, for the same bits where nothing overflows). */
static double rel_var(const struct stats_summary *x, double scale)
{
	double sd = x->stddev / scale;

	return sd * sd / x->n;
}

/* A power of two near the largest of the means and spreads of A and B. */
static double pair_scale(const struct stats_summary *a,
			 const struct stats_summary *b)
{
	double v[4] = {a->mean, b->mean, a->stddev, b->stddev};

	return pow2_scale(v, 4);
}

int stats_welch(const struct stats_summary *a, const struct stats_summary *b,
		struct stats_welch *w)
{
	double va, vb, se2, scale;

	w->t = w->df = w->p = NAN;
	if (a->n < 2 || b->n < 2)
		return 0;
	/* Scaled by a power of two: exact, and no overflow at 1e300. */
	scale = pair_scale(a, b);
	va = rel_var(a, scale);
	vb = rel_var(b, scale);
	se2 = va + vb;
	if (se2 == 0) {
		/* No spread at all: the means either agree or they do not. */
		w->df = a->n + b->n - 2;
		w->t = a->mean == b->mean
			   ? 0
			   : copysign(INFINITY, a->mean - b->mean);
		w->p = a->mean == b->mean ? 1 : 0;
		return 0;
	}
	w->t = (a->mean / scale - b->mean / scale) / sqrt(se2);
	w->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = stats_betai(w->df / 2, 0.5, w->df / (w->df + w->t * w->t));
	return 0;
}

int stats_fieller(double a, double va, double b, double vb, double tq,
		  struct stats_ratio *r)
{
	double g, disc, half;

	r->ratio = r->lo = r->hi = NAN;
	r->bounded = false;
	if (b == 0)
		return -EDOM;
	r->ratio = a / b;
	if (isnan(tq) || isnan(va) || isnan(vb))
		return 0;
	g = tq * tq * vb / (b * b);
	if (g >= 1)
		return 0;
	disc = va * (1 - g) + r->ratio * r->ratio * vb;
	half = tq / fabs(b) * sqrt(disc);
	r->lo = (r->ratio - half) / (1 - g);
	r->hi = (r->ratio + half) / (1 - g);
	r->bounded = true;
	return 0;
}

bool stats_too_few(size_t n, double rel_se)
{
	return n < STATS_JUDGE_MIN_N && !(rel_se > STATS_NEAR_ZERO_SPREAD);
}

int stats_delta(const struct stats_summary *cell,
		const struct stats_summary *ref, bool higher_better,
		struct stats_delta *d)
{
	const struct stats_summary *num = higher_better ? ref : cell;
	const struct stats_summary *den = higher_better ? cell : ref;
	struct stats_welch w;
	struct stats_ratio r;
	double vnum = NAN, vden = NAN, tq = NAN, snum, sden, f, rse = NAN;

	memset(d, 0, sizeof(*d));
	d->delta = d->lo = d->hi = d->p = d->df = NAN;
	if (!cell->n || !ref->n) {
		d->why = STATS_WHY_NO_SAMPLE;
		return 0;
	}
	if (ref->mean == 0 || cell->mean == 0) {
		d->why =
		    ref->mean == 0 ? STATS_WHY_ZERO_REF : STATS_WHY_ZERO_CELL;
		return 0;
	}
	stats_welch(cell, ref, &w);
	/* Each side scaled by a power of two (exact): no overflow at 1e300. */
	snum = pow2_scale(&num->mean, 1);
	sden = pow2_scale(&den->mean, 1);
	if (num->n >= 2 && den->n >= 2) {
		vnum = rel_var(num, snum);
		vden = rel_var(den, sden);
		rse = sqrt(
		    vnum * snum / fabs(num->mean) * snum / fabs(num->mean) +
		    vden * sden / fabs(den->mean) * sden / fabs(den->mean));
		tq = isnan(w.df) ? NAN
				 : stats_t_quantile(1 - STATS_ALPHA / 2, w.df);
		/* No spread at all: the ratio is exact. */
		if (vnum == 0 && vden == 0)
			tq = 0;
	}
	stats_fieller(num->mean / snum, vnum, den->mean / sden, vden, tq, &r);
	f = snum / sden;
	d->valid = true;
	d->delta = r.ratio * f - 1;
	d->bounded = r.bounded;
	d->lo = r.bounded ? r.lo * f - 1 : NAN;
	d->hi = r.bounded ? r.hi * f - 1 : NAN;
	d->p = w.p;
	d->df = w.df;
	if (stats_too_few(cell->n < ref->n ? cell->n : ref->n, rse)) {
		/* Two samples that agree say nothing of the spread. */
		d->bounded = false;
		d->lo = d->hi = d->p = NAN;
		d->why = STATS_WHY_TOO_FEW;
	} else if (!r.bounded) {
		d->why = STATS_WHY_DENOM;
	} else if (num->mean > 0 && den->mean > 0 && !(r.lo > 0)) {
		/* A ratio of two times is never 0 or less: no interval. */
		d->bounded = false;
		d->lo = d->hi = NAN;
		d->why = STATS_WHY_REACHES_ZERO;
	}
	d->significant = !isnan(d->p) && d->p < STATS_ALPHA;
	return 0;
}

double stats_geomean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return NAN;
		s += log(x[i]);
	}
	return exp(s / n);
}
