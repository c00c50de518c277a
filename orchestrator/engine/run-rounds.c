/* SPDX-License-Identifier: MIT */
/*
 * order = interleaved: paired, interleaved rounds (docs/sampling.md,
 * "Interleaved rounds").  A slow drift of the host (this host is itself a
 * virtual machine; shared lab machines and cloud instances drift the same
 * way) lands on every cell of a round alike, and a cell's ratio to the
 * baseline measured round by round cancels it (Abedi & Brecht, ICPE 2017;
 * duet benchmarking, ICPE 2020).
 *
 * Groups.  The guests of a group stay up for its rounds; which cells share
 * a group, and why, is rounds-group.h (a bare-metal cell sampled in two
 * groups bridges them: the reports pair through it,
 * reports/stats-paired.h).  Guest cells are those whose executor has
 * EXEC_NEEDS_GUEST, cell-exec.h; every other cell is placed as a
 * bare-metal one.
 *
 * Boots.  A guest group's rounds are split into [run] boots epochs; every
 * guest of the group is replaced (a fresh boot, setup and warm-up) between
 * epochs, so each guest cell's samples come from boots guests and boots
 * are a level of the repetition model (Kalibera & Jones, ISMM 2013).
 *
 * Each round takes one sample of every cell of the group that still needs
 * one, in an order shuffled by the run's seed and the round's number (so a
 * resumed run shuffles its rounds as the original would have); each
 * sample records its "round".  Before every sample the host's THP and
 * [host] knobs are set for the cell about to run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "rng.h"
#include "rounds-group.h"
#include "run-engine.h"
#include "util.h"

struct rslot {
	int ci;
	struct cell_run cr;
	bool started; /* its executor is up */
	bool guest;   /* a guest cell of the group (else bare metal) */
	/* bare metal that samples in every round a guest of the group
	 * samples in, past its planned count if need be (slots_new()) */
	bool pairs;
	long quota;   /* samples it takes in this group */
	long taken;
};

/* One pass over the groups: ROUNDS rounds in EPOCHS fresh guests. */
struct rphase {
	long rounds, epochs;
	bool last;	  /* profile runs after it */
	const char *what; /* "" or "sizing: " */
};

/* MemAvailable in bytes, 0 when unknown (no split by memory then). */
static unsigned long long mem_available(void)
{
	long kb;

	return host_meminfo_kb("", "MemAvailable", &kb) == 0 && kb > 0
		       ? (unsigned long long)kb * 1024
		       : 0;
}

unsigned long long run_rounds_budget(void)
{
	return (unsigned long long)(mem_available() * ROUNDS_MEM_SHARE);
}

/*
 * A bare-metal cell of a resumed run that ended with all its samples: it
 * may take more, to pair with a guest round its plan has no sample left
 * for (slot_wants()).
 */
static bool reopenable(const struct run *r, int ci)
{
	const struct cell_state *st = &r->states[ci];

	return r->resume && !run_exec_has(r, ci, EXEC_NEEDS_GUEST) &&
	       st->status == CELL_OK &&
	       (st->stop == STOP_REPEAT || st->stop == STOP_PLAN);
}

/*
 * The cells still waiting for samples, grouped (rounds-group.h); in a
 * resumed run, with the bare-metal cells that ended (reopenable()) in the
 * groups whose guests still wait, and in no other.
 */
static size_t make_groups(struct run *r, struct rgroup **out)
{
	bool *guest = xcalloc((size_t)r->ncells, sizeof(*guest));
	bool *waiting = xcalloc((size_t)r->ncells, sizeof(*waiting));
	bool guests_wait = false;
	struct rgroup *gs;
	size_t ng, k, j, n;
	int ci;

	for (ci = 0; ci < r->ncells; ci++) {
		guest[ci] = run_exec_has(r, ci, EXEC_NEEDS_GUEST);
		waiting[ci] = r->states[ci].status == CELL_PENDING &&
			      r->states[ci].stop == STOP_NONE;
		guests_wait |= guest[ci] && waiting[ci];
	}
	for (ci = 0; guests_wait && ci < r->ncells; ci++)
		waiting[ci] |= reopenable(r, ci);
	ng = rounds_groups_make(r->cells, r->ncells, guest, waiting,
				run_rounds_budget(), &gs);
	/* A group of no guest has nothing for an ended cell to pair with. */
	for (k = 0, n = 0; k < ng; k++) {
		struct rgroup *g = &gs[k];
		size_t keep = 0;

		for (j = 0; j < g->ncells; j++)
			if (g->nguests || !reopenable(r, g->cells[j]))
				g->cells[keep++] = g->cells[j];
		g->ncells = keep;
		if (keep) {
			gs[n++] = *g;
		} else {
			free(g->cells);
			free(g->why);
		}
	}
	*out = gs;
	free(guest);
	free(waiting);
	return n;
}

/* results.json "schedule": the order, the seed and the groups. */
static void schedule_record(struct run *r, const struct rgroup *gs,
			    size_t ng)
{
	json_t *groups = json_array();
	size_t k, j;

	for (k = 0; k < ng; k++) {
		json_t *ids = json_array();

		for (j = 0; j < gs[k].ncells; j++)
			json_array_append_new(
				ids, json_string(r->cells[gs[k].cells[j]].id));
		json_array_append_new(groups,
				      json_pack("{s:o, s:s, s:I}", "cells", ids,
						"shares", gs[k].why, "guests",
						(json_int_t)gs[k].nguests));
	}
	json_decref(r->schedule);
	r->schedule = json_pack("{s:s, s:I, s:I, s:o, s:s}", "order",
				"interleaved", "seed", (json_int_t)r->seed,
				"boots", (json_int_t)r->cfg.boots, "groups",
				groups, "why",
				ng > 1 ? "guests whose host settings differ "
					 "cannot be up at once (paging, "
					 "hugetlb pools, or a host THP "
					 "switch that khugepaged would apply "
					 "to a live guest): interleaved "
					 "within each group, the groups one "
					 "after the other"
				       : "one group: every cell in every round");
}

static void slot_stop(struct run *r, struct rslot *s)
{
	if (!s->cr.priv && !s->started)
		return;
	run_exec_of(r, s->ci)->stop(r, &s->cr);
	s->started = false;
}

/* S wants a sample of its own plan (not counting a pairing one). */
static bool slot_wants_own(const struct run *r, const struct rslot *s)
{
	const struct cell_state *st = &r->states[s->ci];

	return st->status == CELL_PENDING && s->taken < s->quota &&
	       st->nsamples < st->planned;
}

/* A guest of the N slots wants a sample. */
static bool guests_want(const struct run *r, const struct rslot *slots,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (slots[i].guest && slot_wants_own(r, &slots[i]))
			return true;
	return false;
}

/*
 * S (one of the N SLOTS) wants a sample: of its own plan, or, a bare-metal
 * slot that pairs, one to pair with a guest of the group that still
 * samples (a resumed run's guest can need a round its baseline has no
 * sample left for: that round would pair with nothing).
 */
static bool slot_wants(const struct run *r, const struct rslot *slots,
		       size_t n, const struct rslot *s)
{
	const struct cell_state *st = &r->states[s->ci];

	if (slot_wants_own(r, s))
		return true;
	return s->pairs &&
	       (st->status == CELL_PENDING || reopenable(r, s->ci)) &&
	       s->taken < s->quota && guests_want(r, slots, n);
}

/* One round: a sample of every slot that wants one, shuffled. */
static void one_round(struct run *r, struct rslot *slots, size_t n)
{
	size_t *order = xcalloc(n ? n : 1, sizeof(*order)), i;
	struct rng rng;
	long round = r->next_round++;

	rng_seed(&rng, r->seed ^ (0x9e3779b97f4a7c15ULL * (unsigned long long)(round + 1)));
	for (i = 0; i < n; i++)
		order[i] = i;
	rng_shuffle(&rng, order, n);
	for (i = 0; i < n && !run_should_stop(r); i++) {
		struct rslot *s = &slots[order[i]];
		struct cell_state *st = &r->states[s->ci];

		if (!s->started || !slot_wants(r, slots, n, s))
			continue;
		if (st->nsamples >= st->planned) {
			/* a pairing sample past the plan (slot_wants()) */
			st->planned++;
			r->samples_total++;
		}
		if (st->status != CELL_PENDING) {
			/* an ended cell reopened to pair (reopenable()):
			 * run_rounds_conclude() ends it again */
			cell_set_status(st, CELL_PENDING, NULL);
			st->stop = STOP_NONE;
		}
		if (run_host_apply(r, s->ci) < 0) {
			slot_stop(r, s);
			continue;
		}
		s->cr.round = round;
		if (run_sample_one(r, run_exec_of(r, s->ci), &s->cr,
				   st->nsamples) < 0) {
			slot_stop(r, s);
			continue;
		}
		s->taken++;
	}
	free(order);
}

static bool group_wants(const struct run *r, const struct rslot *slots,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (slot_wants(r, slots, n, &slots[i]))
			return true;
	return false;
}

/*
 * Group G's rounds (gi of ng), in epochs of fresh guests.  A hugetlb-backed
 * guest is alone in its group; its pool is given back at the end.
 */
/* The slots of group G's cells; the most rounds any wants into *ROUNDS. */
static struct rslot *slots_new(struct run *r, const struct rgroup *g,
			       const struct rphase *ph, long *rounds)
{
	struct rslot *slots = xcalloc(g->ncells, sizeof(*slots));
	long guest_rounds = 0;
	size_t i;

	*rounds = 0;
	for (i = 0; i < g->ncells; i++) {
		struct rslot *s = &slots[i];
		const struct cell_state *st = &r->states[g->cells[i]];

		s->ci = g->cells[i];
		s->cr.ci = s->ci;
		s->cr.cell = &r->cells[s->ci];
		s->cr.st = &r->states[s->ci];
		s->cr.round = -1;
		run_slug(s->cr.cell->id, s->cr.slug, sizeof(s->cr.slug));
		s->guest = i < g->nguests;
		s->quota = st->planned - st->nsamples;
		if (s->quota > ph->rounds)
			s->quota = ph->rounds;
		if (s->quota > *rounds)
			*rounds = s->quota;
		if (s->guest && s->quota > guest_rounds)
			guest_rounds = s->quota;
	}
	/* Bare metal samples in every round its guests sample in. */
	for (i = g->nguests; i < g->ncells; i++)
		if (slots[i].quota < guest_rounds) {
			slots[i].quota = guest_rounds;
			slots[i].pairs = true;
		}
	return slots;
}

/*
 * Epoch E's start of the group's cells not running yet.  The group's host
 * settings (paging, a hugetlb pool: POOL and its ORIG size) are set with
 * its first cell; bare-metal cells start once, guests every epoch.
 */
static void group_start(struct run *r, struct rslot *slots, size_t n, long e,
			char *pool, size_t plen, char *orig, size_t olen)
{
	size_t i;

	for (i = 0; i < n && !run_should_stop(r); i++) {
		struct rslot *s = &slots[i];
		int ret;

		if (s->started || !slot_wants(r, slots, n, s))
			continue;
		if (e == 0 && i == 0)
			ret =
			    run_host_prepare(r, s->ci, pool, plen, orig, olen);
		else if (e == 0)
			ret = run_host_prepare(r, s->ci, NULL, 0, NULL, 0);
		else
			ret = run_host_apply(r, s->ci);
		/* A guest the host cannot honour (skipped, failed) leaves
		 * the group; the others, bare metal included, go on. */
		if (ret < 0)
			continue;
		s->started =
		    run_cell_start(r, run_exec_of(r, s->ci), &s->cr) == 0;
	}
}

/* Profile runs of the started cells, a bare-metal cell in two groups
 * once (PROFILED); never recorded as samples. */
static void group_profile(struct run *r, struct rslot *slots, size_t n,
			  bool *profiled)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (slots[i].started && !profiled[slots[i].ci] &&
		    run_host_apply(r, slots[i].ci) == 0) {
			cell_profile(r, run_exec_of(r, slots[i].ci),
				     &slots[i].cr);
			profiled[slots[i].ci] = true;
		}
}

static void run_group(struct run *r, const struct rgroup *g, size_t gi,
		      size_t ng, const struct rphase *ph, bool *profiled)
{
	long epochs = g->nguests ? ph->epochs : 1, e, k, rounds, per_epoch;
	struct rslot *slots = slots_new(r, g, ph, &rounds);
	char pool[16] = "", orig[32] = "";
	size_t i;

	if (!rounds)
		goto out;
	per_epoch = (rounds + epochs - 1) / epochs;
	if (epochs > 1)
		note("%sgroup %zu of %zu (%s): %zu cells, %ld rounds, every "
		     "guest booted afresh every %ld rounds",
		     ph->what, gi + 1, ng, g->why, g->ncells, rounds,
		     per_epoch);
	else
		note("%sgroup %zu of %zu (%s): %zu cells, %ld rounds", ph->what,
		     gi + 1, ng, g->why, g->ncells, rounds);
	for (e = 0; e < epochs && !run_should_stop(r) &&
		    group_wants(r, slots, g->ncells);
	     e++) {
		group_start(r, slots, g->ncells, e, pool, sizeof(pool), orig,
			    sizeof(orig));
		for (k = 0; k < per_epoch && !run_should_stop(r) &&
			    group_wants(r, slots, g->ncells);
		     k++)
			one_round(r, slots, g->ncells);
		/* Profile runs after the last round. */
		if ((e == epochs - 1 || !group_wants(r, slots, g->ncells)) &&
		    ph->last && r->cfg.profile && !run_should_stop(r))
			group_profile(r, slots, g->ncells, profiled);
		/* Guests go down after every epoch, bare metal at the end. */
		for (i = 0; i < g->nguests; i++)
			slot_stop(r, &slots[i]);
	}
out:
	for (i = 0; i < g->ncells; i++)
		slot_stop(r, &slots[i]);
	if (*pool && host_set(r->host, pool, orig) < 0)
		warn("cannot give back the %s pool", pool);
	run_save(r);
	free(slots);
}

/*
 * [run] plan = auto: a sizing pass of PLAN_SIZING_BOOTS boots of
 * PLAN_SIZING_ROUNDS / PLAN_SIZING_BOOTS samples over every group, then
 * for each guest group the plan (run_plan_group()) and the boots it asks
 * for beyond the sizing pass's, each of its samples per boot.
 */
static void run_rounds_auto(struct run *r, struct rgroup *gs, size_t ng,
			    bool *profiled)
{
	struct rphase ph = {PLAN_SIZING_ROUNDS, PLAN_SIZING_BOOTS, false,
			    "sizing: "};
	size_t k, j;
	int i;

	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];
		long want = PLAN_SIZING_ROUNDS * rounds_groups_in(gs, ng, i);

		if (st->status == CELL_PENDING && st->planned < want) {
			r->samples_total += want - st->planned;
			st->planned = want;
		}
	}
	for (k = 0; k < ng && !run_should_stop(r); k++) {
		ph.last = !gs[k].nguests;
		run_group(r, &gs[k], k, ng, &ph, profiled);
	}
	for (k = 0; k < ng && !run_should_stop(r); k++) {
		struct rphase more = {0, 0, true, "planned: "};
		long r1, nb;

		if (!gs[k].nguests)
			continue;
		run_plan_group(r, gs[k].cells, gs[k].nguests, &r1, &nb);
		if (nb <= PLAN_SIZING_BOOTS)
			continue;
		more.epochs = nb - PLAN_SIZING_BOOTS;
		more.rounds = more.epochs * r1;
		for (j = 0; j < gs[k].ncells; j++) {
			struct cell_state *st = &r->states[gs[k].cells[j]];

			if (st->status != CELL_PENDING)
				continue;
			st->planned += more.rounds;
			r->samples_total += more.rounds;
		}
		run_group(r, &gs[k], k, ng, &more, profiled);
	}
}

void run_rounds(struct run *r, bool *profiled)
{
	struct rgroup *gs = NULL;
	struct rphase ph = {0, r->cfg.boots, true, ""};
	bool first = !r->schedule;
	size_t ng, k;
	int i;

	if (!r->seed)
		r->seed = r->cfg.seed ? (unsigned long long)r->cfg.seed
				      : ((unsigned long long)time(NULL) << 16 ^
					 (unsigned long long)getpid()) &
						0x7fffffffULL;
	ng = make_groups(r, &gs);
	/* A bare-metal cell takes repeat samples in every group it is in;
	 * a later pass (a target's) what the plan asked, spread over them. */
	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];
		long in = rounds_groups_in(gs, ng, i), want;

		if (!in)
			continue;
		if (first && !run_exec_has(r, i, EXEC_NEEDS_GUEST) && in > 1 &&
		    st->planned < r->cfg.repeat * in) {
			r->samples_total += r->cfg.repeat * in - st->planned;
			st->planned = r->cfg.repeat * in;
		}
		want = (st->planned - st->nsamples + in - 1) / in;
		if (want > ph.rounds)
			ph.rounds = want;
	}
	if (first)
		schedule_record(r, gs, ng);
	note("interleaved rounds (seed %llu): %zu group%s", r->seed, ng,
	     ng == 1 ? "" : "s");
	if (r->cfg.plan_auto && first)
		run_rounds_auto(r, gs, ng, profiled);
	else
		for (k = 0; k < ng && !run_should_stop(r); k++)
			run_group(r, &gs[k], k, ng, &ph, profiled);
	run_save(r);
	rounds_groups_free(gs, ng);
}

void run_rounds_conclude(struct run *r)
{
	int i;

	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];

		if (st->status != CELL_PENDING) {
			if (st->stop == STOP_NONE)
				run_cell_finish(r, st, STOP_REPEAT);
			continue;
		}
		if (r->stopped || r->save_failed) {
			cell_set_status(st, CELL_PENDING, "interrupted");
			st->stop = STOP_INTERRUPTED;
		} else if (st->stop == STOP_NONE) {
			run_cell_finish(r, st,
					st->plan ? STOP_PLAN : STOP_REPEAT);
		}
	}
	run_save(r);
}
