/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: results.json's run.notes (results_head_new(),
 * orchestrator/engine/results-file.c): a stale image the run boots as it is
 * (cmd-run.c keeps its note in run_guest_files.image_note) is said there,
 * once per note, and a run with none has no notes key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config-dir.h"

#include "results-file.h"
#include "run-engine.h"
#include "util.h"

static char tmpdir[] = "/tmp/vmtax-test-results-notes.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (config_dir_make(tmpdir, "walk",
			    "[workload]\n"
			    "description = test walk\n"
			    "run = true\n") < 0)
		return -1;
	config_dir_put(tmpdir, "run.ini",
		       "[run]\n"
		       "repeat = 1\n"
		       "[matrix]\n"
		       "where = bare-metal\n"
		       "host_thp = never\n"
		       "[workload]\n"
		       "name = walk\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(tmpdir);
}

/* run.ini loaded into R, with N guest files, the first noted NOTE. */
static void run_load(struct run *r, size_t n, const char *note)
{
	char *p = xasprintf("%s/run.ini", tmpdir);

	memset(r, 0, sizeof(*r));
	assert_int_equal(run_config_load(p, NULL, 0, &r->cfg), 0);
	assert_int_equal(matrix_expand(&r->cfg, &r->matrix), 0);
	r->cells = r->matrix.cells;
	r->ncells = (int)r->matrix.ncells;
	r->ngfs = n;
	r->gfs = n ? xcalloc(n, sizeof(*r->gfs)) : NULL;
	if (n && note)
		r->gfs[0].image_note = xstrdup(note);
	free(p);
}

static void test_no_note(void **state)
{
	struct run r;
	json_t *head;

	(void)state;
	run_load(&r, 1, NULL);
	head = results_head_new(&r);
	assert_null(json_object_get(json_object_get(head, "run"), "notes"));
	json_decref(head);
	run_release(&r);
}

static void test_stale_image_noted(void **state)
{
	const char *note = "the debian image 'x/debian.qcow2' is stale "
			   "(changed since it was built: /bin/busybox): "
			   "booted as it is";
	struct run r;
	json_t *head, *notes;

	(void)state;
	run_load(&r, 2, note);
	head = results_head_new(&r);
	notes = json_object_get(json_object_get(head, "run"), "notes");
	assert_true(json_is_array(notes));
	assert_int_equal(json_array_size(notes), 1);
	assert_string_equal(json_string_value(json_array_get(notes, 0)), note);
	json_decref(head);
	run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_note),
	    cmocka_unit_test(test_stale_image_noted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
