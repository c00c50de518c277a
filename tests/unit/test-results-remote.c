/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: what a remote executor's host recorded, taken into this
 * host's run (results_remote_take(), orchestrator/engine/results-file.c): the
 * lab's results.json is untrusted, so each bad document is refused for its
 * own reason, and a good one keeps this host's resume state.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-dir.h"

#include "report.h"
#include "results-file.h"
#include "run-engine.h"
#include "util.h"

static char tmpdir[] = "/tmp/vmtax-test-results-remote.XXXXXX";

static void put(const char *name, const char *text)
{
	config_dir_put(tmpdir, name, text);
}

static int setup(void **state)
{
	(void)state;
	if (config_dir_make(tmpdir, "walk",
			    "[workload]\n"
			    "description = test walk\n"
			    "run = true\n") < 0)
		return -1;
	put("run.ini", "[run]\n"
		       "executor = lab\n"
		       "repeat = 1\n"
		       "[matrix]\n"
		       "where = bare-metal\n"
		       "host_thp = always, never\n"
		       "[workload]\n"
		       "name = walk\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(tmpdir);
}

/* A run of run.ini as this host starts it: its head and pending cells. */
static void run_new(struct run *r)
{
	char *p = xasprintf("%s/run.ini", tmpdir);

	memset(r, 0, sizeof(*r));
	assert_int_equal(run_config_load(p, NULL, 0, &r->cfg), 0);
	assert_int_equal(matrix_expand(&r->cfg, &r->matrix), 0);
	r->cells = r->matrix.cells;
	r->ncells = (int)r->matrix.ncells;
	r->head = results_head_new(r);
	results_states_init(r);
	free(p);
}

/* The lab's document: CELLS (JSON text) under a run with STATUS. */
static json_t *doc_new(const char *schema, const char *status,
		       const char *cells)
{
	json_t *doc = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:b}}", "schema",
				schema, "run", "status", status,
				"config_path", "/in/the/lab.ini", "hostname",
				"lab", "lab_only", "here", 1);

	json_object_set_new(doc, "cells", json_loads(cells, 0, NULL));
	return doc;
}

#define CELL_OK(id)                                                          \
	"{\"id\": \"" id "\", \"status\": \"ok\", \"stop_reason\": "          \
	"\"repeat\", \"samples\": [{\"index\": 0, \"status\": \"ok\", "       \
	"\"metric\": 1.5}]}"

static void test_take_good(void **state)
{
	json_t *doc, *cfg, *label = json_pack("{s:b}", "emulated", 1);
	const char *path;
	struct run r;

	(void)state;
	run_new(&r);
	path = json_string_value(
	    json_object_get(json_object_get(r.head, "run"), "config_path"));
	assert_non_null(path);
	doc = doc_new(RESULTS_SCHEMA, "complete",
		      "[" CELL_OK("bare-metal/host-thp=always") ", {\"id\": "
		      "\"bare-metal/host-thp=never\", \"status\": \"failed\", "
		      "\"reason\": \"x\", \"samples\": [{\"index\": 0, "
		      "\"status\": \"failed\"}, 7]}]");
	assert_int_equal(results_remote_take(&r, doc, "lab", label), 0);
	/* this host's resume state, not the lab's */
	assert_true(strstr(json_string_value(json_object_get(
			       json_object_get(r.head, "run"), "config_path")),
			   "/run.ini") != NULL);
	cfg = json_object_get(json_object_get(r.head, "run"), "config");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(cfg, "run"), "executor")),
			    "lab");
	/* what ran there, labelled */
	assert_true(json_is_object(json_object_get(r.head, "lab_only")));
	assert_ptr_equal(json_object_get(r.head, "lab"), label);
	assert_false(r.stopped);
	assert_int_equal(r.states[0].status, CELL_OK);
	assert_int_equal(r.states[0].nok, 1);
	assert_int_equal(r.states[0].stop, STOP_REPEAT);
	assert_int_equal(r.states[1].status, CELL_FAILED);
	assert_string_equal(r.states[1].reason, "x");
	/* a sample that is not an object is counted failed, not trusted */
	assert_int_equal(r.states[1].nfailed, 2);
	assert_int_equal(r.failures, 2);
	assert_int_equal(r.samples_done, 3);
	json_decref(doc);
	json_decref(label);
	run_release(&r);
}

/* A run there that did not complete leaves this one stopped. */
static void test_take_interrupted(void **state)
{
	json_t *doc;
	struct run r;

	(void)state;
	run_new(&r);
	doc = doc_new(RESULTS_SCHEMA, "interrupted",
		      "[" CELL_OK("bare-metal/host-thp=always") ", {\"id\": "
		      "\"bare-metal/host-thp=never\", \"status\": "
		      "\"pending\"}]");
	assert_int_equal(results_remote_take(&r, doc, "lab", NULL), 0);
	assert_true(r.stopped);
	assert_int_equal(r.states[1].status, CELL_PENDING);
	assert_true(json_is_null(json_object_get(r.head, "lab")));
	json_decref(doc);
	run_release(&r);
}

/* Each bad document, refused for its own reason; R keeps its state. */
static void test_take_bad(void **state)
{
	static const struct {
		const char *schema, *cells;
	} t[] = {
	    /* not a results document */
	    { "something-else", "[]" },
	    /* cells of another matrix: too few, too many, another id */
	    { RESULTS_SCHEMA, "[" CELL_OK("bare-metal/host-thp=always") "]" },
	    { RESULTS_SCHEMA,
	      "[" CELL_OK("bare-metal/host-thp=always") ","
	      CELL_OK("bare-metal/host-thp=never") ","
	      CELL_OK("bare-metal/host-thp=madvise") "]" },
	    { RESULTS_SCHEMA,
	      "[" CELL_OK("bare-metal/host-thp=always") ","
	      CELL_OK("guest/host-thp=never") "]" },
	    /* no cells at all */
	    { RESULTS_SCHEMA, "{}" },
	    /* a status that is not one */
	    { RESULTS_SCHEMA,
	      "[" CELL_OK("bare-metal/host-thp=always") ", {\"id\": "
	      "\"bare-metal/host-thp=never\", \"status\": \"great\"}]" },
	};
	static const char *const want[] = {
	    "not a vmtax-results",
	    "1 cells, but the matrix has 2",
	    "3 cells, but the matrix has 2",
	    "cell 1 is not 'bare-metal/host-thp=never'",
	    "0 cells, but the matrix has 2",
	    "has status 'great'",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char buf[4096] = "";
		json_t *doc = doc_new(t[i].schema, "complete", t[i].cells);
		struct run r;
		FILE *saved = stderr, *mem = fmemopen(buf, sizeof(buf), "w");
		int ret;

		run_new(&r);
		stderr = mem;
		ret = results_remote_take(&r, doc, "lab", NULL);
		fflush(mem);
		stderr = saved;
		fclose(mem);
		if (ret != -EINVAL || !strstr(buf, want[i]))
			fail_msg("row %zu: want -EINVAL and '%s', got %d '%s'",
				 i, want[i], ret, buf);
		assert_int_equal(r.states[0].status, CELL_PENDING);
		assert_int_equal(r.states[0].nsamples, 0);
		json_decref(doc);
		run_release(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_take_good),
	    cmocka_unit_test(test_take_interrupted),
	    cmocka_unit_test(test_take_bad),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
