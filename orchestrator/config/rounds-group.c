/* SPDX-License-Identifier: MIT */
/*
 * rounds-group.c - the groups of interleaved rounds (rounds-group.h).
 */
#include "rounds-group.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static void group_add(struct rgroup *g, int ci)
{
	g->cells = xrealloc(g->cells, (g->ncells + 1) * sizeof(*g->cells));
	g->cells[g->ncells++] = ci;
}

static bool same_knobs(const struct cell *a, const struct cell *b)
{
	size_t i;

	if (a->nhost_knobs != b->nhost_knobs)
		return false;
	for (i = 0; i < a->nhost_knobs; i++)
		if (strcmp(a->host_knobs[i].value, b->host_knobs[i].value))
			return false;
	return true;
}

/* Whether guest cells A and B may be up at once. */
static bool same_host(const struct cell *a, const struct cell *b)
{
	return a->paging == b->paging && !strcmp(a->host_thp, b->host_thp) &&
	       a->backing == b->backing && a->backing == BACKING_THP &&
	       same_knobs(a, b);
}

/* Whether the guests of a group led by guest cell G tolerate the host
 * switched to bare-metal cell B's settings for one sample. */
static bool tolerates(const struct cell *g, const struct cell *b)
{
	if (!same_knobs(g, b))
		return false;
	return strcmp(g->host_thp, "never") || !strcmp(b->host_thp, "never");
}

/*
 * The waiting guest cells into groups of one host setting each, as many
 * in a group as fit in the memory budget; the groups' count.
 */
static size_t group_guests(const struct cell *cells, int n, const bool *guest,
			   const bool *waiting, unsigned long long budget,
			   struct rgroup **out)
{
	struct rgroup *gs = NULL;
	size_t ng = 0, k;
	unsigned long long *used = NULL;
	int ci;

	for (ci = 0; ci < n; ci++) {
		const struct cell *c = &cells[ci];

		if (!guest[ci] || !waiting[ci])
			continue;
		for (k = 0; k < ng; k++)
			if (same_host(&cells[gs[k].cells[0]], c) &&
			    (!budget || used[k] + c->memory <= budget))
				break;
		if (k == ng) {
			gs = xrealloc(gs, (ng + 1) * sizeof(*gs));
			used = xrealloc(used, (ng + 1) * sizeof(*used));
			memset(&gs[ng], 0, sizeof(*gs));
			used[ng++] = 0;
		}
		group_add(&gs[k], ci);
		gs[k].nguests++;
		used[k] += c->memory;
	}
	free(used);
	*out = gs;
	return ng;
}

/*
 * The waiting bare-metal cells into every guest group whose host setting
 * they tolerate; those no group takes into a group of their own.
 */
static size_t group_bare(const struct cell *cells, int n, const bool *guest,
			 const bool *waiting, struct rgroup **gsp, size_t ng)
{
	bool *placed = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*placed));
	struct rgroup *gs = *gsp;
	size_t k;
	int ci;

	for (k = 0; k < ng; k++) {
		const struct cell *lead = &cells[gs[k].cells[0]];

		for (ci = 0; ci < n; ci++)
			if (!guest[ci] && waiting[ci] &&
			    tolerates(lead, &cells[ci])) {
				group_add(&gs[k], ci);
				placed[ci] = true;
			}
	}
	for (ci = 0; ci < n; ci++) {
		if (guest[ci] || placed[ci] || !waiting[ci])
			continue;
		for (k = 0; k < ng && gs[k].nguests; k++)
			;
		if (k == ng) {
			gs = xrealloc(gs, (ng + 1) * sizeof(*gs));
			memset(&gs[ng++], 0, sizeof(*gs));
		}
		group_add(&gs[k], ci);
	}
	free(placed);
	*gsp = gs;
	return ng;
}

/* What group G shares, said in the log. */
static char *group_why_new(const struct cell *cells, const struct rgroup *g)
{
	const struct cell *lead = &cells[g->cells[0]];
	char *s;
	size_t j;

	if (!g->nguests)
		return xstrdup("bare-metal cells that no guest "
			       "group can take");
	s = xasprintf("guests with host THP %s%s%s%s", lead->host_thp,
		      lead->paging > PAGING_AUTO ? ", paging " : "",
		      lead->paging > PAGING_AUTO ? paging_name(lead->paging)
						 : "",
		      lead->backing != BACKING_THP ? ", hugetlb" : "");
	for (j = 0; j < lead->nhost_knobs; j++) {
		char *t = xasprintf("%s, %s=%s", s, lead->host_knobs[j].name,
				    lead->host_knobs[j].value);

		free(s);
		s = t;
	}
	return s;
}

size_t rounds_groups_make(const struct cell *cells, int n, const bool *guest,
			  const bool *waiting, unsigned long long budget,
			  struct rgroup **out)
{
	struct rgroup *gs = NULL;
	size_t ng, k;

	ng = group_guests(cells, n, guest, waiting, budget, &gs);
	ng = group_bare(cells, n, guest, waiting, &gs, ng);
	for (k = 0; k < ng; k++)
		gs[k].why = group_why_new(cells, &gs[k]);
	*out = gs;
	return ng;
}

void rounds_groups_free(struct rgroup *gs, size_t ng)
{
	size_t k;

	for (k = 0; k < ng; k++) {
		free(gs[k].cells);
		free(gs[k].why);
	}
	free(gs);
}

long rounds_groups_in(const struct rgroup *gs, size_t ng, int ci)
{
	long in = 0;
	size_t k, j;

	for (k = 0; k < ng; k++)
		for (j = 0; j < gs[k].ncells; j++)
			in += gs[k].cells[j] == ci;
	return in;
}
