/* SPDX-License-Identifier: MIT */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *g, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		g->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *g)
{
	uint64_t *s = g->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rng_below(struct rng *g, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = rng_next(g);
	while (x >= limit);
	return x % n;
}

double rng_unit(struct rng *g)
{
	return (double)(rng_next(g) >> 11) * 0x1.0p-53;
}

double rng_normal(struct rng *g)
{
	double u1, u2;

	do
		u1 = rng_unit(g);
	while (u1 <= 0);
	u2 = rng_unit(g);
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

void rng_shuffle(struct rng *g, size_t *v, size_t n)
{
	size_t i, j, t;

	for (i = n; i > 1; i--) {
		j = (size_t)rng_below(g, i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}
