// SPDX-License-Identifier: MIT
#include "profile-diff.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Counts per symbol while building: a small open-addressing table. */
struct acc {
	char *name;
	uint64_t self[2], total[2];
	uint64_t seen; /* the stack serial it was last counted in */
};

struct table {
	struct acc *v;
	size_t n, cap;
};

/* S's (N bytes) counts, added when new; NULL past PROFILE_DIFF_SYMBOLS_MAX. */
static struct acc *table_get(struct table *t, const char *s, size_t n)
{
	size_t h;

	if ((t->n + 1) * 2 > t->cap) {
		struct table nt = {
		    xcalloc(t->cap ? t->cap * 2 : 1024, sizeof(struct acc)), 0,
		    t->cap ? t->cap * 2 : 1024};

		for (size_t i = 0; i < t->cap; i++) {
			const char *nm = t->v[i].name;

			if (!nm)
				continue;
			h = hash_fnv1a(nm, strlen(nm)) & (nt.cap - 1);
			while (nt.v[h].name)
				h = (h + 1) & (nt.cap - 1);
			nt.v[h] = t->v[i];
			nt.n++;
		}
		free(t->v);
		*t = nt;
	}
	h = hash_fnv1a(s, n) & (t->cap - 1);
	while (t->v[h].name) {
		if (!strncmp(t->v[h].name, s, n) && !t->v[h].name[n])
			return &t->v[h];
		h = (h + 1) & (t->cap - 1);
	}
	if (t->n >= PROFILE_DIFF_SYMBOLS_MAX)
		return NULL;
	t->v[h].name = xstrndup(s, n);
	t->n++;
	return &t->v[h];
}

/* P's stacks counted into T as SIDE; -E2BIG past the symbols' cap. */
static int count(struct table *t, const struct profile *p, int side,
		 uint64_t *serial)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		const char *s = p->stacks[i].stack;
		uint64_t c = p->stacks[i].count;

		++*serial;
		while (*s) {
			const char *e = strchr(s, ';');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			struct acc *a = table_get(t, s, n);

			if (!a)
				return -E2BIG;
			if (a->seen != *serial) {
				a->seen = *serial;
				a->total[side] += c;
			}
			if (!e) {
				a->self[side] += c;
				break;
			}
			s = e + 1;
		}
	}
	return 0;
}

static int by_self(const void *a, const void *b)
{
	const struct profile_diff_entry *x = a, *y = b;
	double dx = fabs(x->self_delta), dy = fabs(y->self_delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_total(const void *a, const void *b, void *arg)
{
	const struct profile_diff_entry *v = arg;
	const struct profile_diff_entry *x = &v[*(const size_t *)a];
	const struct profile_diff_entry *y = &v[*(const size_t *)b];
	double dx = fabs(x->total_delta), dy = fabs(y->total_delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

int profile_diff_build(const struct profile *base, const struct profile *cell,
		       double slowdown, struct profile_diff *out)
{
	struct table t = {0};
	uint64_t serial = 0;
	double nb, nc, k;
	size_t j = 0;

	memset(out, 0, sizeof(*out));
	if (!base->samples || !cell->samples)
		return -EINVAL;
	out->scaled = isfinite(slowdown);
	out->slowdown = out->scaled ? slowdown : 0;
	if (count(&t, base, 0, &serial) < 0 ||
	    count(&t, cell, 1, &serial) < 0) {
		for (size_t i = 0; i < t.cap; i++)
			free(t.v[i].name);
		free(t.v);
		return -E2BIG;
	}
	nb = (double)base->samples;
	nc = (double)cell->samples;
	k = 1 + out->slowdown;
	out->v = xcalloc(t.n ? t.n : 1, sizeof(*out->v));
	for (size_t i = 0; i < t.cap; i++) {
		struct acc *a = &t.v[i];
		struct profile_diff_entry *e;

		if (!a->name)
			continue;
		e = &out->v[j++];
		e->name = a->name;
		e->self_base = a->self[0] / nb;
		e->self_cell = a->self[1] / nc;
		e->total_base = a->total[0] / nb;
		e->total_cell = a->total[1] / nc;
		e->self_delta = e->self_cell * k - e->self_base;
		e->total_delta = e->total_cell * k - e->total_base;
	}
	out->n = j;
	free(t.v);
	qsort(out->v, out->n, sizeof(*out->v), by_self);
	out->by_total = xcalloc(out->n ? out->n : 1, sizeof(size_t));
	for (size_t i = 0; i < out->n; i++)
		out->by_total[i] = i;
	qsort_r(out->by_total, out->n, sizeof(size_t), by_total, out->v);
	return 0;
}

void profile_diff_release(struct profile_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
	free(d->by_total);
	memset(d, 0, sizeof(*d));
}

double profile_share_of(const struct profile *p, const char *const *names)
{
	uint64_t hit = 0;

	if (!p->samples)
		return NAN;
	for (size_t i = 0; i < p->nstacks; i++) {
		const char *s = p->stacks[i].stack;
		bool found = false;

		while (*s && !found) {
			const char *e = strchr(s, ';');
			size_t n = e ? (size_t)(e - s) : strlen(s);

			for (const char *const *nm = names; *nm && !found; nm++)
				found = strlen(*nm) == n && !strncmp(*nm, s, n);
			s = e ? e + 1 : s + n;
		}
		if (found)
			hit += p->stacks[i].count;
	}
	return (double)hit / (double)p->samples;
}
