/* SPDX-License-Identifier: MIT */
/* Unit tests for the registry of cell executors (orchestrator/cell-exec.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cell-exec.h"

/* Every place of enum where has an executor, and each one's flags agree. */
static void test_registry(void **state)
{
	char why[256];
	size_t i;

	(void)state;
	assert_int_equal(cell_execs_count, WHERE_GUEST + 1);
	for (i = 0; i < cell_execs_count; i++) {
		const struct cell_exec_ops *ex = cell_execs[i];

		assert_non_null(ex);
		assert_ptr_equal(cell_exec_for((enum where)i), ex);
		why[0] = '\0';
		if (!cell_exec_consistent(ex, why, sizeof(why)))
			fail_msg("%s", why);
	}
}

/* What the engine asks of today's two. */
static void test_flags(void **state)
{
	(void)state;
	assert_ptr_equal(cell_exec_for(WHERE_BARE), &cell_exec_bare);
	assert_ptr_equal(cell_exec_for(WHERE_GUEST), &cell_exec_guest);
	assert_false(cell_exec_has(&cell_exec_bare, EXEC_NEEDS_GUEST));
	assert_true(cell_exec_has(&cell_exec_bare,
				  EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE));
	assert_false(cell_exec_has(&cell_exec_bare, EXEC_HAS_KVM_STATS));
	assert_true(cell_exec_has(&cell_exec_guest,
				  EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS |
				      EXEC_HAS_KVM_STATS | EXEC_CAN_PROFILE));
	assert_false(cell_exec_has(&cell_exec_guest, EXEC_REMOTE));
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

/* Each rule of cell_exec_consistent() catches its own mistake. */
static void test_rules(void **state)
{
	static const struct {
		unsigned flags;
		bool restart, profile;
		const char *want; /* NULL: consistent */
	} t[] = {
	    {EXEC_CHANGES_HOST_KNOBS, false, false, NULL},
	    {EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE, false, true, NULL},
	    {EXEC_NEEDS_GUEST | EXEC_REMOTE | EXEC_CAN_PROFILE, true, true,
	     NULL},
	    {EXEC_CHANGES_HOST_KNOBS, false, true, "EXEC_CAN_PROFILE"},
	    {EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE, false, false,
	     "EXEC_CAN_PROFILE"},
	    {EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS, false, false,
	     "without restart()"},
	    {EXEC_HAS_KVM_STATS | EXEC_CHANGES_HOST_KNOBS, false, false,
	     "EXEC_HAS_KVM_STATS without"},
	    {EXEC_REMOTE | EXEC_CHANGES_HOST_KNOBS, false, false,
	     "EXEC_REMOTE with"},
	    {EXEC_NEEDS_GUEST | EXEC_REMOTE | EXEC_HAS_KVM_STATS, true, false,
	     "EXEC_REMOTE with"},
	    {EXEC_NEEDS_GUEST, true, false, "a local executor"},
	    {EXEC_CHANGES_HOST_KNOBS | (1u << 20), false, false,
	     "an unknown flag"},
	};
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cell_exec_ops ex = {
		    .name = "fake",
		    .flags = t[i].flags,
		    .start = fake_start,
		    .sample = fake_sample,
		    .restart = t[i].restart ? fake_restart : NULL,
		    .profile = t[i].profile ? fake_profile : NULL,
		    .stop = fake_stop,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry),
	    cmocka_unit_test(test_flags),
	    cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
