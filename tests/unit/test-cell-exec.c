/* SPDX-License-Identifier: MIT */
/* Unit tests for the registry of cell executors (orchestrator/engine/cell-exec.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cell-exec.h"
#include "run-engine.h"

/*
 * Every row's executor is consistent; every place of [run] executor has
 * rows, and every row a place; a remote place has one executor for every
 * cell, this host one per enum where.
 */
static void test_registry(void **state)
{
	char why[256];
	size_t i, p;

	(void)state;
	for (i = 0; i < cell_exec_rows_count; i++) {
		const struct cell_exec_row *row = &cell_exec_rows[i];
		bool named = false;

		assert_non_null(row->ops);
		why[0] = '\0';
		if (!cell_exec_consistent(row->ops, why, sizeof(why)))
			fail_msg("%s", why);
		for (p = 0; cell_exec_places[p]; p++)
			named |= !strcmp(cell_exec_places[p], row->place);
		if (!named)
			fail_msg("row %zu: place '%s' is not a value of [run] "
				 "executor", i, row->place);
		assert_int_equal(row->where_any,
				 cell_exec_has(row->ops, EXEC_REMOTE));
	}
	for (p = 0; cell_exec_places[p]; p++) {
		const struct cell_exec_ops *b =
		    cell_exec_for(cell_exec_places[p], WHERE_BARE, false);
		const struct cell_exec_ops *g =
		    cell_exec_for(cell_exec_places[p], WHERE_GUEST, false);

		assert_int_equal(b == g, cell_exec_has(b, EXEC_REMOTE));
	}
	assert_string_equal(cell_exec_places[0], CELL_EXEC_LOCAL);
}

/* What the engine asks of today's three. */
static void test_flags(void **state)
{
	(void)state;
	assert_ptr_equal(cell_exec_for("local", WHERE_BARE, false), &cell_exec_bare);
	assert_ptr_equal(cell_exec_for("local", WHERE_GUEST, false), &cell_exec_guest);
	assert_ptr_equal(cell_exec_for("lab", WHERE_BARE, false), &cell_exec_lab);
	assert_ptr_equal(cell_exec_for("lab", WHERE_GUEST, false), &cell_exec_lab);
	assert_int_equal(cell_exec_lab.flags, EXEC_REMOTE);
	assert_false(cell_exec_has(&cell_exec_bare, EXEC_NEEDS_GUEST));
	assert_true(cell_exec_has(&cell_exec_bare,
				  EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE));
	assert_false(cell_exec_has(&cell_exec_bare, EXEC_HAS_KVM_STATS));
	assert_true(cell_exec_has(&cell_exec_guest,
				  EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS |
				      EXEC_HAS_KVM_STATS | EXEC_CAN_PROFILE));
	assert_false(cell_exec_has(&cell_exec_guest, EXEC_REMOTE));
	assert_ptr_equal(cell_exec_for("local", WHERE_GUEST, true),
			 &cell_exec_guest_remote);
	assert_ptr_equal(cell_exec_for("local", WHERE_BARE, true),
			 &cell_exec_bare);
	assert_true(cell_exec_has(&cell_exec_guest_remote,
				  EXEC_NEEDS_GUEST | EXEC_REMOTE_LIBVIRT));
	assert_false(cell_exec_has(&cell_exec_guest_remote,
				   EXEC_CHANGES_HOST_KNOBS));
	assert_false(cell_exec_has(&cell_exec_guest_remote,
				   EXEC_HAS_KVM_STATS));
	assert_false(
	    cell_exec_has(&cell_exec_guest, EXEC_NEEDS_GUEST | EXEC_REMOTE));
}

static int fake_start(struct run *r, struct cell_run *cr)
{
	(void)r;
	(void)cr;
	return 0;
}

static int fake_sample(struct run *r, struct cell_run *cr, long idx,
		       json_t **sj, struct runner_result *res, char *why,
		       size_t len)
{
	(void)r;
	(void)cr;
	(void)idx;
	(void)sj;
	(void)res;
	(void)why;
	(void)len;
	return 0;
}

static int fake_restart(struct run *r, struct cell_run *cr, const char *why)
{
	(void)r;
	(void)cr;
	(void)why;
	return 0;
}

static int fake_profile(struct run *r, struct cell_run *cr,
			struct runner_result *res, char *why, size_t len)
{
	(void)r;
	(void)cr;
	(void)res;
	(void)why;
	(void)len;
	return 0;
}

static void fake_stop(struct run *r, struct cell_run *cr)
{
	(void)r;
	(void)cr;
}

static int fake_check(struct run *r, bool dry)
{
	(void)r;
	(void)dry;
	return 0;
}

static int fake_run_remote(struct run *r, json_t **doc, json_t **label,
			   int *rc)
{
	(void)r;
	(void)doc;
	(void)label;
	(void)rc;
	return 0;
}

/* LOCAL_CHECK_OPS: a local executor's ops and its check() (its preflight,
 * as bare metal's and the guests' have). */
enum ops { LOCAL_OPS, REMOTE_OPS, BOTH_OPS, LOCAL_CHECK_OPS };

/* Each rule of cell_exec_consistent() catches its own mistake. */
static void test_rules(void **state)
{
	static const struct {
		unsigned flags;
		bool restart, profile;
		const char *want; /* NULL: consistent */
		enum ops ops;
	} t[] = {
	    {EXEC_CHANGES_HOST_KNOBS, false, false, NULL, LOCAL_OPS},
	    {EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE, false, true, NULL, LOCAL_OPS},
	    {EXEC_CHANGES_HOST_KNOBS, false, false, NULL, LOCAL_CHECK_OPS},
	    {EXEC_NEEDS_GUEST | EXEC_REMOTE_LIBVIRT, true, false, NULL,
	     LOCAL_CHECK_OPS},
	    {EXEC_REMOTE, false, false, NULL, REMOTE_OPS},
	    {EXEC_NEEDS_GUEST | EXEC_REMOTE | EXEC_CAN_PROFILE, false, false,
	     NULL, REMOTE_OPS},
	    {EXEC_REMOTE, false, false, "EXEC_REMOTE needs check()", LOCAL_OPS},
	    {EXEC_REMOTE, false, false, "EXEC_REMOTE needs check()", BOTH_OPS},
	    {EXEC_REMOTE, true, false, "EXEC_REMOTE needs check()",
	     REMOTE_OPS},
	    {EXEC_CHANGES_HOST_KNOBS, false, false, "a local executor needs",
	     REMOTE_OPS},
	    {EXEC_CHANGES_HOST_KNOBS, false, false, "a local executor needs",
	     BOTH_OPS},
	    {EXEC_CHANGES_HOST_KNOBS, false, true, "EXEC_CAN_PROFILE", LOCAL_OPS},
	    {EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE, false, false,
	     "EXEC_CAN_PROFILE", LOCAL_OPS},
	    {EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS, false, false,
	     "without restart()", LOCAL_OPS},
	    {EXEC_HAS_KVM_STATS | EXEC_CHANGES_HOST_KNOBS, false, false,
	     "EXEC_HAS_KVM_STATS without", LOCAL_OPS},
	    {EXEC_REMOTE | EXEC_CHANGES_HOST_KNOBS, false, false,
	     "EXEC_REMOTE with", LOCAL_OPS},
	    {EXEC_NEEDS_GUEST | EXEC_REMOTE | EXEC_HAS_KVM_STATS, true, false,
	     "EXEC_REMOTE with", LOCAL_OPS},
	    {EXEC_NEEDS_GUEST, true, false, "a local executor", LOCAL_OPS},
	    {EXEC_CHANGES_HOST_KNOBS | (1u << 20), false, false,
	     "an unknown flag", LOCAL_OPS},
	};
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool local = t[i].ops != REMOTE_OPS;
		bool remote = t[i].ops == REMOTE_OPS || t[i].ops == BOTH_OPS;
		bool check = remote || t[i].ops == LOCAL_CHECK_OPS;
		struct cell_exec_ops ex = {
		    .name = "fake",
		    .flags = t[i].flags,
		    .start = local ? fake_start : NULL,
		    .sample = local ? fake_sample : NULL,
		    .restart = t[i].restart ? fake_restart : NULL,
		    .profile = t[i].profile ? fake_profile : NULL,
		    .stop = local ? fake_stop : NULL,
		    .check = check ? fake_check : NULL,
		    .run_remote = remote ? fake_run_remote : NULL,
		};
		bool ok;

		why[0] = '\0';
		ok = cell_exec_consistent(&ex, why, sizeof(why));
		if (!t[i].want) {
			if (!ok)
				fail_msg("row %zu: %s", i, why);
		} else if (ok || !strstr(why, t[i].want)) {
			fail_msg("row %zu: want '%s', got '%s'", i, t[i].want,
				 ok ? "consistent" : why);
		}
	}
}

/* What each end() found as its own state, in the order they ran. */
static void *ended[2];
static int nended;

static void end_a(struct run *r);
static void end_b(struct run *r);
static const struct cell_exec_ops end_ops_a = {.end = end_a};
static const struct cell_exec_ops end_ops_b = {.end = end_b};

static void end_a(struct run *r)
{
	ended[nended++] = run_exec_state(r, &end_ops_a);
}

static void end_b(struct run *r)
{
	ended[nended++] = run_exec_state(r, &end_ops_b);
}

/*
 * run_execs_end(): every executor's end() still finds its own state (the
 * remote libvirt's end() frees its connection through it: it leaked when
 * the count dropped first), last first, and none is left after.
 */
static void test_end_finds_state(void **state)
{
	static struct run r;
	int a = 1, b = 2;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.execs[0].ex = &end_ops_a;
	r.execs[0].state = &a;
	r.execs[1].ex = &end_ops_b;
	r.execs[1].state = &b;
	r.nexecs = 2;
	nended = 0;
	run_execs_end(&r);
	assert_int_equal(nended, 2);
	assert_ptr_equal(ended[0], &b);
	assert_ptr_equal(ended[1], &a);
	assert_int_equal(r.nexecs, 0);
	assert_null(r.execs[0].state);
	assert_null(r.execs[1].state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry),
	    cmocka_unit_test(test_flags),
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_end_finds_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
