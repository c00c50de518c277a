/* SPDX-License-Identifier: MIT */
/*
 * rng.h - the one pseudo-random generator of vmtax: seeded, deterministic,
 * no global state (the rounds' shuffle in orchestrator/engine/run-rounds.c, the
 * bootstrap in reports/).  splitmix64 seeds xoshiro256** (Blackman and
 * Vigna); a seed gives the same sequence on every host and build.
 */
#ifndef VMTAX_RNG_H
#define VMTAX_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *g, uint64_t seed);
uint64_t rng_next(struct rng *g);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *g, uint64_t n);
/* Uniform in [0, 1). */
double rng_unit(struct rng *g);
/* A standard normal deviate (Box-Muller). */
double rng_normal(struct rng *g);
/* Fisher-Yates shuffle of V[0..N). */
void rng_shuffle(struct rng *g, size_t *v, size_t n);

#endif
