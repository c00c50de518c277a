/* SPDX-License-Identifier: MIT */
/*
 * run-host.c - the host settings of a cell (step 2 of a cell's life,
 * run-engine.h): the cpufreq governor, paging, [host] knobs, host THP and
 * the hugetlb pool, each set through host/ and read back into the cell's
 * observed; a cell this host cannot honour is skipped with the reason.
 */
#include "run-engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "knob-path.h"
#include "util.h"

/* A guest on this host, under its KVM: its paging and hugetlb pool are
 * set here. */
static bool local_guest(const struct run *r, int ci)
{
	return run_exec_has(r, ci, EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS);
}

/* The hugetlb pool's page size of backing B in kB, 0 for none. */
static unsigned long backing_kib(enum backing b)
{
	return b == BACKING_HUGETLB_2M ? 2048 : b == BACKING_HUGETLB_1G ? 1048576 : 0;
}

/*
 * For a hugetlb-backed guest, reserve the guest's memory in the pool before
 * the cell (the original size goes to ORIG, the knob to POOL).  A cell that
 * cannot have its pool is skipped with the reason; returns -1 then.  That
 * the pool and its mount are there was checked before (cell_skip()).
 */
static int hugetlb_reserve(struct run *r, const struct cell *c,
			   struct cell_state *st, char *pool, size_t plen,
			   char *orig, size_t olen)
{
	unsigned long kib = backing_kib(c->backing);
	char why[512], want[32];
	int ret;

	if (!kib)
		return 0;
	snprintf(pool, plen, "%s", kib == 2048 ? "hugetlb.2M" : "hugetlb.1G");
	if (host_get(r->host, pool, orig, olen) < 0) {
		snprintf(why, sizeof(why), "cannot read the %s pool", pool);
		goto skip;
	}
	snprintf(want, sizeof(want), "%llu",
		 (unsigned long long)(c->memory / (kib * 1024ULL)) +
			 strtoull(orig, NULL, 10));
	ret = host_set(r->host, pool, want);
	if (ret < 0) {
		snprintf(why, sizeof(why),
			 "cannot reserve %s pages of %s for the guest (see above)",
			 want, kib == 2048 ? "2M" : "1G");
		host_set(r->host, pool, orig);
		goto skip;
	}
	json_object_set_new(st->observed, "hugetlb_pool", json_string(want));
	return 0;
skip:
	pool[0] = '\0';
	note("%s: skipped: %s", c->id, why);
	cell_set_status(st, CELL_SKIPPED, why);
	r->samples_done += st->planned - st->nsamples;
	return -1;
}

bool run_cell_knobs_unsupported(struct host_ctx *ctx, const struct cell *c,
				char *why, size_t len)
{
	size_t i;

	for (i = 0; i < c->nhost_knobs; i++)
		if (!host_supported(ctx, c->host_knobs[i].name,
				    c->host_knobs[i].value, why, len))
			return true;
	return false;
}

bool run_cell_paging_unsupported(struct host_ctx *ctx, const struct cell *c,
				 const char *accel, const char *accel_why,
				 char *why, size_t len)
{
	if (c->paging != PAGING_HW && c->paging != PAGING_SHADOW)
		return false;
	if (!strcmp(accel, "tcg")) {
		snprintf(why, len,
			 "paging=%s needs KVM; this host runs guests under TCG "
			 "(%s), where EPT/NPT does not apply",
			 paging_name(c->paging), accel_why);
		return true;
	}
	return !host_supported(ctx, KNOB_PAGING, paging_name(c->paging), why,
			       len);
}

bool run_cell_hugetlb_unsupported(struct host_ctx *ctx, const char *root,
				  const struct cell *c, char *why, size_t len)
{
	unsigned long kib = backing_kib(c->backing);

	if (!kib)
		return false;
	if (!host_supported(ctx, kib == 2048 ? "hugetlb.2M" : "hugetlb.1G",
			    NULL, why, len))
		return true;
	if (host_hugetlbfs_mounted(root, kib) != 1) {
		snprintf(why, len,
			 "no hugetlbfs mount with %s pages (mount one, then "
			 "restart libvirtd: it looks for mounts only at start)",
			 kib == 2048 ? "2M" : "1G");
		return true;
	}
	return false;
}

/* Why cell CI cannot be honoured here, or false when it can. */
static bool cell_skip(struct run *r, int ci, char *why, size_t len)
{
	const struct cell *c = &r->cells[ci];

	if (!run_exec_has(r, ci, EXEC_CHANGES_HOST_KNOBS))
		return false; /* this host's settings are not the cell's */
	if (run_cell_knobs_unsupported(r->host, c, why, len))
		return true;
	if (!local_guest(r, ci))
		return false;
	return run_cell_paging_unsupported(r->host, c, r->accel, r->accel_why,
					   why, len) ||
	       run_cell_hugetlb_unsupported(r->host, "", c, why, len);
}

static const char *cell_paging(const struct run *r, const struct cell *c)
{
	/* What the cell asks for, so that a skipped EPT cell says EPT. */
	if (c->paging == PAGING_TCG ||
	    (c->paging == PAGING_AUTO && !strcmp(r->accel, "tcg")))
		return "tcg";
	if (c->paging == PAGING_SHADOW)
		return "shadow";
	/* a CPU of no known vendor runs no KVM guest: a hw cell is skipped */
	return *r->vendor_paging ? r->vendor_paging : paging_name(c->paging);
}

const char *run_cell_paging(const struct run *r, const struct cell *c)
{
	return cell_paging(r, c);
}

/* The cell's [host] knobs, each read back into observed.host_knobs. */
static int host_knobs_set(struct run *r, const struct cell *c,
			  struct cell_state *st)
{
	json_t *got = json_object();
	char why[512], val[128];
	size_t i;
	int ret = 0;

	for (i = 0; i < c->nhost_knobs && ret == 0; i++) {
		const struct cell_kv *k = &c->host_knobs[i];

		if (host_set(r->host, k->name, k->value) < 0) {
			snprintf(why, sizeof(why), "cannot set host knob '%s' to '%s'",
				 k->name, k->value);
			cell_fail(st, why);
			ret = -1;
		} else if (host_get(r->host, k->name, val, sizeof(val)) == 0) {
			json_object_set_new(got, k->name, json_string(val));
		} else {
			json_object_set_new(got, k->name, json_null());
		}
	}
	if (c->nhost_knobs)
		json_object_set_new(st->observed, "host_knobs", got);
	else
		json_decref(got);
	return ret;
}

/* Cell C's [host] knobs, then its host THP; -1 with the cell failed. */
static int knobs_and_thp_set(struct run *r, const struct cell *c,
			     struct cell_state *st)
{
	char why[512];

	if (host_knobs_set(r, c, st) < 0)
		return -1;
	if (host_set(r->host, "thp.enabled", c->host_thp) < 0) {
		snprintf(why, sizeof(why), "cannot set host THP to '%s'",
			 c->host_thp);
		cell_fail(st, why);
		return -1;
	}
	return 0;
}

/*
 * [run] governor: every cpufreq policy set (host_governor_set(), once: the
 * policies already so are left), into observed.governor, null with
 * governor_why where there is no cpufreq.  -1 with the cell failed.
 */
static int governor_set(struct run *r, struct cell_state *st)
{
	char why[512];
	int i, ret;

	if (!strcmp(r->cfg.governor, RUN_GOVERNOR_KEEP))
		return 0;
	ret = host_governor_set(r->host, r->cfg.governor, why, sizeof(why));
	if (ret < 0) {
		snprintf(why, sizeof(why),
			 "cannot set the cpufreq governor to '%s'",
			 r->cfg.governor);
		cell_fail(st, why);
		return -1;
	}
	json_object_set_new(st->observed, "governor",
			    ret ? json_string(r->cfg.governor) : json_null());
	if (ret)
		return 0;
	for (i = 0; i < r->ncells; i++) /* said once a run */
		if (json_object_get(r->states[i].observed, "governor_why"))
			break;
	if (i == r->ncells)
		note("governor = %s: %s", r->cfg.governor, why);
	json_object_set_new(st->observed, "governor_why", json_string(why));
	return 0;
}

/* Set the host for cell CI once; -1 with the cell failed or skipped. */
static int host_prepare_once(struct run *r, int ci, char *pool, size_t plen,
			     char *orig, size_t olen)
{
	const struct cell *c = &r->cells[ci];
	struct cell_state *st = &r->states[ci];
	char why[512], got[64];

	if (run_exec_has(r, ci, EXEC_NEEDS_GUEST))
		json_object_set_new(st->env, AXIS_ENV_PAGING,
				    json_string(cell_paging(r, c)));
	if (cell_skip(r, ci, why, sizeof(why))) {
		note("[%d/%d] %s: skipped: %s", ci + 1, r->ncells, c->id, why);
		cell_set_status(st, CELL_SKIPPED, why);
		r->samples_done += st->planned - st->nsamples;
		return -1;
	}
	/* where it runs, as its executor says (a remote libvirt's THP) */
	run_exec_describe(r, ci, st->observed);
	if (!run_exec_has(r, ci, EXEC_CHANGES_HOST_KNOBS))
		return 0; /* this host's settings are not the cell's */
	if (governor_set(r, st) < 0)
		return -1;
	if (local_guest(r, ci) && c->paging != PAGING_AUTO &&
	    c->paging != PAGING_TCG) {
		if (host_set(r->host, KNOB_PAGING, paging_name(c->paging)) < 0) {
			cell_fail(st, "cannot set host paging");
			return -1;
		}
		if (host_get(r->host, KNOB_PAGING, got, sizeof(got)) == 0)
			json_object_set_new(st->observed,
					    AXIS_ENV_PAGING,
					    json_string(got));
	}
	if (knobs_and_thp_set(r, c, st) < 0)
		return -1;
	if (host_get(r->host, "thp.enabled", got, sizeof(got)) == 0)
		json_object_set_new(st->observed, AXIS_ENV_HOST_THP, json_string(got));
	if (local_guest(r, ci) &&
	    hugetlb_reserve(r, c, st, pool, plen, orig, olen) < 0)
		return -1;
	return 0;
}

/*
 * A cell that fails while the host is set up for it (a module that would
 * not reload, a domain of the cell before that outlived the wait, a knob
 * that read back wrong) is tried again, up to [run] retries times, as a
 * failed sample is; each failure is kept in observed.host_setup_failures.
 * A skipped cell is not: the host cannot honour it.  Nor is one whose
 * hugetlb pool was changed before it failed (its size before is not known
 * again).
 */
int run_host_prepare(struct run *r, int ci, char *pool, size_t plen,
		     char *orig, size_t olen)
{
	struct cell_state *st = &r->states[ci];
	json_t *fails = NULL;
	long attempt;
	int ret;

	for (attempt = 0;; attempt++) {
		ret = host_prepare_once(r, ci, pool, plen, orig, olen);
		if (ret == 0 || st->status != CELL_FAILED ||
		    attempt >= r->cfg.retries || (pool && *pool) ||
		    run_should_stop(r))
			break;
		if (!fails)
			fails = json_array();
		json_array_append_new(fails,
				      json_string(st->reason ?: "failed"));
		note("[%d/%d] %s: setting the host up failed (%s): trying "
		     "again (%ld of %ld retries)",
		     ci + 1, r->ncells, r->cells[ci].id,
		     st->reason ?: "failed", attempt + 1, r->cfg.retries);
		cell_set_status(st, CELL_PENDING, NULL);
		sleep(1);
	}
	if (fails)
		json_object_set_new(st->observed, "host_setup_failures", fails);
	return ret;
}

/*
 * Before each sample of interleaved rounds: the host THP and [host] knobs
 * of cell CI (paging and the hugetlb pool stay as its group set them).
 * -1 with the cell failed.
 */
int run_host_apply(struct run *r, int ci)
{
	const struct cell *c = &r->cells[ci];
	struct cell_state *st = &r->states[ci];

	if (!run_exec_has(r, ci, EXEC_CHANGES_HOST_KNOBS))
		return 0;
	return knobs_and_thp_set(r, c, st);
}
