// SPDX-License-Identifier: MIT
/*
 * bench-stats - make bench's section 8: the hierarchical bootstrap's time
 * (stats_hboot_paired(), STATS_HBOOT_RESAMPLES resamples of 50 values in 10
 * boots of 5) against the least such work can cost, measured in the same
 * run: as many resamples of the same 50 values drawn with the same
 * generator, each summed.  It prints both and their ratio; it asserts
 * nothing (no test times itself: make check must pass on a busy host).
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "rng.h"
#include "stats-paired.h"

#define N 50
#define TRIES 5

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The reference: NRES resamples of D, each a mean of N draws. */
static double reference(const double *d, size_t nres)
{
	struct rng g;
	double acc = 0;
	size_t r, i;

	rng_seed(&g, 9);
	for (r = 0; r < nres; r++) {
		double s = 0;

		for (i = 0; i < N; i++)
			s += d[rng_below(&g, N)];
		acc += s / N;
	}
	return acc;
}

int main(void)
{
	double d[N], lo, hi, best_h = INFINITY, best_r = INFINITY, t0;
	volatile double sink = 0;
	long boot[N];
	int i, try;

	for (i = 0; i < N; i++) {
		boot[i] = i / 5;
		d[i] = 0.3 + 0.01 * ((i * 37) % 11) + 0.05 * (i / 5 % 3);
	}
	for (try = 0; try < TRIES; try++) {
		t0 = now_ms();
		if (stats_hboot_paired(d, boot, N, 9, STATS_HBOOT_RESAMPLES,
				       false, &lo, &hi) < 0) {
			fprintf(stderr, "bench-stats: the bootstrap failed\n");
			return 1;
		}
		best_h = fmin(best_h, now_ms() - t0);
		t0 = now_ms();
		sink += reference(d, STATS_HBOOT_RESAMPLES);
		best_r = fmin(best_r, now_ms() - t0);
	}
	(void)sink;
	printf("   hierarchical bootstrap: %d resamples of %d values in 10 "
	       "boots, best of %d: %.2f ms\n",
	       STATS_HBOOT_RESAMPLES, N, TRIES, best_h);
	printf("   reference (the same draws, each resample summed): %.2f ms\n",
	       best_r);
	printf("   bootstrap / reference = %.2f\n", best_h / best_r);
	return 0;
}
