// SPDX-License-Identifier: MIT
/*
 * stream - STREAM-style memory bandwidth: copy, scale, add and triad over
 * three arrays of doubles, single-threaded.  Each kernel runs --ntimes times;
 * as in McCalpin's STREAM the best time of all but the first run gives the
 * rate, counting the bytes the kernel reads and writes (no write-allocate).
 *
 * Output, one kernel a line, in MB/s (10^6 bytes), higher is better:
 *	copy: 11234.5 MB/s
 *	...
 *	triad: 10456.7 MB/s
 * The arrays should be several times the last-level cache (default 3 x 64 MiB).
 */
#include "wlopt.h"

#include <math.h>

enum { COPY, SCALE, ADD, TRIAD, NKERNELS };

static const char *const kernel_names[NKERNELS] = { "copy", "scale", "add",
						    "triad" };
static const double kernel_arrays[NKERNELS] = { 2, 2, 3, 3 };

static double run_kernel(int k, double *restrict a, double *restrict b,
			 double *restrict c, size_t n, double q)
{
	double t = wl_now();

	switch (k) {
	case COPY:
		for (size_t j = 0; j < n; j++)
			c[j] = a[j];
		break;
	case SCALE:
		for (size_t j = 0; j < n; j++)
			b[j] = q * c[j];
		break;
	case ADD:
		for (size_t j = 0; j < n; j++)
			c[j] = a[j] + b[j];
		break;
	case TRIAD:
		for (size_t j = 0; j < n; j++)
			a[j] = b[j] + q * c[j];
		break;
	}
	return wl_now() - t;
}

/* Replay the kernels on scalars and compare, as STREAM's checkSTREAMresults. */
static int check(const double *a, const double *b, const double *c, size_t n,
		 uint64_t ntimes, double q)
{
	double ea = 1.0, eb = 2.0, ec = 0.0, da = 0, db = 0, dc = 0;

	for (uint64_t k = 0; k < ntimes; k++) {
		ec = ea;
		eb = q * ec;
		ec = ea + eb;
		ea = eb + q * ec;
	}
	for (size_t j = 0; j < n; j += 4099) {
		da = fmax(da, fabs(a[j] - ea) / ea);
		db = fmax(db, fabs(b[j] - eb) / eb);
		dc = fmax(dc, fabs(c[j] - ec) / ec);
	}
	return da > 1e-13 || db > 1e-13 || dc > 1e-13 ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t elements = 8 << 20, ntimes = 10;
	const struct wl_opt opts[] = {
		{ "elements", "N", &elements, 1024, 1ull << 32,
		  "doubles in each of the three arrays" },
		{ "ntimes", "T", &ntimes, 2, 1000,
		  "runs of each kernel; the best after the first counts" },
	};
	double best[NKERNELS], q = 3.0;
	double *a, *b, *c;
	size_t n;

	wl_parse(argc, argv, "stream",
		 "STREAM-style copy/scale/add/triad bandwidth in MB/s (higher is"
		 " better).",
		 opts, ARRAY_SIZE(opts));
	n = elements;
	a = malloc(n * sizeof(*a));
	b = malloc(n * sizeof(*b));
	c = malloc(n * sizeof(*c));
	if (!a || !b || !c) {
		fprintf(stderr, "stream: error: cannot allocate 3 x %zu bytes\n",
			n * sizeof(*a));
		return 1;
	}
	for (size_t j = 0; j < n; j++) {
		a[j] = 1.0;
		b[j] = 2.0;
		c[j] = 0.0;
	}
	for (int k = 0; k < NKERNELS; k++)
		best[k] = INFINITY;
	for (uint64_t i = 0; i < ntimes; i++) {
		for (int k = 0; k < NKERNELS; k++) {
			double t = run_kernel(k, a, b, c, n, q);

			if (i > 0 && t < best[k])
				best[k] = t;
		}
	}
	if (check(a, b, c, n, ntimes, q)) {
		fprintf(stderr, "stream: error: results do not validate\n");
		return 1;
	}
	printf("stream: elements=%zu array_mib=%.1f total_mib=%.1f ntimes=%llu\n",
	       n, n * sizeof(double) / 1048576.0,
	       3 * n * sizeof(double) / 1048576.0, (unsigned long long)ntimes);
	for (int k = 0; k < NKERNELS; k++)
		printf("%s: %.1f MB/s\n", kernel_names[k],
		       kernel_arrays[k] * n * sizeof(double) / best[k] / 1e6);
	free(a);
	free(b);
	free(c);
	return 0;
}
