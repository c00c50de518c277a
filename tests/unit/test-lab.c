/* SPDX-License-Identifier: MIT */
/* Unit tests for the lab host's CPU facts and what it carries (orchestrator/config/lab.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lab.h"

static void test_feature(void **state)
{
	static const struct {
		const char *features, *name;
		int want;
	} t[] = {
		{ "+svm +npt", "svm", 1 },
		{ "+svm +npt", "npt", 1 },
		{ "+svm,+npt,-pdpe1gb", "pdpe1gb", -1 },
		{ "+svm +npt", "pdpe1gb", 0 },
		{ "+svm -svm", "svm", -1 },	   /* the last mention wins */
		{ "+nptx +svm", "npt", 0 },	   /* a whole name only */
		{ "+svm +np", "npt", 0 },
		{ "", "svm", 0 },
		{ NULL, "svm", 0 },
		{ "  , +svm ,", "svm", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(lab_feature(t[i].features, t[i].name),
				 t[i].want);
}

static void test_models(void **state)
{
	const struct lab_cpu_model *m = lab_cpu_model_find("EPYC");

	(void)state;
	assert_non_null(m);
	assert_string_equal(host_virt_hw(m->vendor)->paging, "npt");
	assert_true(m->pdpe1gb);
	assert_null(lab_cpu_model_find("Skylake-Server"));
	assert_null(lab_cpu_model_find("epyc"));
}

/* The lab carries the debian image when a guest cell boots it. */
static void test_carries(void **state)
{
	struct cell cells[] = {
		{ .where = WHERE_BARE },
		{ .where = WHERE_GUEST, .image = "tiny" },
		{ .where = WHERE_GUEST, .image = "debian" },
	};
	struct matrix m = { .cells = cells, .ncells = 2 };

	(void)state;
	assert_false(lab_carries(&m));
	m.ncells = 3;
	assert_true(lab_carries(&m));
	m.cells = cells + 2;
	m.ncells = 1;
	assert_true(lab_carries(&m));
	m.ncells = 0;
	assert_false(lab_carries(&m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feature),
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_carries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
