/* SPDX-License-Identifier: MIT */
#include "stats-robust.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t stats_outliers(const double *x, size_t n, bool *flag)
{
	double *v, med, mad, scale, mean_ad = 0;
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		flag[i] = false;
	if (n < STATS_OUTLIER_MIN_N)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	memcpy(v, x, n * sizeof(*v));
	med = median_of(v, n);
	for (i = 0; i < n; i++) {
		v[i] = fabs(x[i] - med);
		mean_ad += v[i];
	}
	mad = median_of(v, n);
	free(v);
	/* M = 0.6745 (x - med) / MAD: the scale MAD / 0.6745 estimates the
	 * standard deviation; the mean absolute deviation times sqrt(pi/2)
	 * does the same when the MAD is 0. */
	scale = mad > 0 ? mad / 0.6745 : 1.2533 * mean_ad / n;
	if (!(scale > 0))
		return 0;
	for (i = 0; i < n; i++)
		if (fabs(x[i] - med) / scale > STATS_OUTLIER_Z) {
			flag[i] = true;
			count++;
		}
	return count;
}

int stats_trend(const double *x, size_t n, struct stats_trend *t)
{
	double s = 0, var, ties = 0;
	size_t i, j;

	t->s = 0;
	t->z = t->p = NAN;
	t->direction = 0;
	t->significant = false;
	if (n < 3)
		return 0;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			s += (x[j] > x[i]) - (x[j] < x[i]);
	/* Ties: each group of t equal values once, at its first member. */
	for (i = 0; i < n; i++) {
		double c = 0;
		bool first = true;

		for (j = 0; j < n; j++)
			if (x[j] == x[i]) {
				if (j < i)
					first = false;
				c++;
			}
		if (first && c > 1)
			ties += c * (c - 1) * (2 * c + 5);
	}
	var = ((double)n * (n - 1) * (2.0 * n + 5) - ties) / 18;
	t->s = s;
	t->direction = (s > 0) - (s < 0);
	if (!(var > 0))
		return 0;
	t->z = (s - t->direction) / sqrt(var);
	t->p = erfc(fabs(t->z) / sqrt(2));
	t->significant = t->p < STATS_ALPHA;
	return 0;
}

int stats_groups(const double *x, const long *group, size_t n,
		 struct stats_groups *g, double *means)
{
	long *ids = malloc((n ? n : 1) * sizeof(*ids));
	double *sum = calloc(n ? n : 1, sizeof(*sum));
	size_t *cnt = calloc(n ? n : 1, sizeof(*cnt));
	double within = 0, grand = 0, between = 0;
	size_t i, k, ng = 0;

	if (!ids || !sum || !cnt)
		abort();
	for (i = 0; i < n; i++) {
		for (k = 0; k < ng && ids[k] != group[i]; k++)
			;
		if (k == ng)
			ids[ng++] = group[i];
		sum[k] += x[i];
		cnt[k]++;
	}
	for (k = 0; k < ng; k++) {
		sum[k] /= cnt[k];
		grand += sum[k];
		if (means)
			means[k] = sum[k];
	}
	for (i = 0; i < n; i++) {
		for (k = 0; ids[k] != group[i]; k++)
			;
		within += (x[i] - sum[k]) * (x[i] - sum[k]);
	}
	g->ngroups = ng;
	g->within_var = n > ng ? within / (n - ng) : NAN;
	if (ng > 1) {
		grand /= ng;
		for (k = 0; k < ng; k++)
			between += (sum[k] - grand) * (sum[k] - grand);
		g->between_var = between / (ng - 1);
	} else {
		g->between_var = NAN;
	}
	free(ids);
	free(sum);
	free(cnt);
	return 0;
}
