/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the results document loader (lib/results-doc.c): its cost
 * estimate is an upper bound of what jansson really allocates, for every
 * shape of JSON a hostile file could be made of and for the fixtures,
 * measured through jansson's own allocator hooks; vmtax's own results
 * files, indented and compact, are within their budget; the hostile shapes
 * past the budget are refused before any tree is built.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "results-doc.h"
#include "util.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

/*
 * The heap jansson holds, counted as glibc's malloc does (a chunk is the
 * request plus 8, rounded up to 16, at least 32) whatever allocator this
 * build has (ASan's pads differently): each block carries its request.
 */
static size_t heap_now, heap_peak;

static size_t chunk(size_t n)
{
	size_t c = (n + 8 + 15) & ~(size_t)15;

	return c < 32 ? 32 : c;
}

static void *counting_malloc(size_t n)
{
	size_t *p = malloc(n + 16);

	if (!p)
		return NULL;
	p[0] = n;
	heap_now += chunk(n);
	if (heap_now > heap_peak)
		heap_peak = heap_now;
	return p + 2;
}

static void counting_free(void *v)
{
	size_t *p = v;

	if (!p)
		return;
	heap_now -= chunk(p[-2]);
	free(p - 2);
}

/* The peak heap jansson takes to parse TEXT (0 when it fails). */
static size_t parse_peak(const char *text, size_t len)
{
	json_error_t e;
	json_t *doc;

	heap_now = heap_peak = 0;
	json_set_alloc_funcs(counting_malloc, counting_free);
	doc = json_loadb(text, len, 0, &e);
	json_decref(doc); /* freed by the allocator that made it */
	json_set_alloc_funcs(malloc, free);
	assert_int_equal(heap_now, 0);
	return doc ? heap_peak : 0;
}

/* The text of HEAD, then N times ITEM separated by SEP, then TAIL. */
static char *repeat_new(const char *head, const char *item, const char *sep,
			size_t n, const char *tail)
{
	size_t hl = strlen(head), il = strlen(item), sl = strlen(sep);
	char *s = xmalloc(hl + n * (il + sl) + strlen(tail) + 1), *p = s;

	p = mempcpy(p, head, hl);
	for (size_t i = 0; i < n; i++) {
		if (i)
			p = mempcpy(p, sep, sl);
		p = mempcpy(p, item, il);
	}
	strcpy(p, tail);
	return s;
}

/* An object of N distinct keys "kI", each with the value VALUE. */
static char *keys_new(size_t n, const char *value)
{
	size_t cap = 16 + n * (strlen(value) + 24), len = 1;
	char *s = xmalloc(cap);

	s[0] = '{';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s\"k%zx\":%s",
					i ? "," : "", i, value);
	snprintf(s + len, cap - len, "}");
	return s;
}

/*
 * TEXT's real cost (jansson's peak heap) is at most the estimate; the
 * ratios printed are what docs/security.md and caps.h quote.  Frees TEXT.
 */
static void check_bound(const char *what, char *text)
{
	struct results_doc_cost c;
	size_t len = strlen(text), peak;

	results_doc_cost(text, len, &c);
	peak = parse_peak(text, len);
	print_message("%-28s %9zu bytes, %8zu values: jansson %5.1fx, "
		      "estimate %5.1fx\n",
		      what, len, c.values, (double)peak / (double)len,
		      (double)c.bytes / (double)len);
	assert_true(peak > 0);
	assert_true(c.values > 0);
	assert_true(peak <= c.bytes);
	free(text);
}

#define N 20000

static void test_estimate_bounds_every_shape(void **state)
{
	char *big = xmalloc(200001);

	(void)state;
	check_bound("empty objects", repeat_new("[", "{}", ",", N, "]"));
	check_bound("empty objects, blanks",
		    repeat_new("[", "{}", " ,\n ", N, "]"));
	check_bound("empty arrays", repeat_new("[", "[]", ",", N, "]"));
	check_bound("arrays of an object",
		    repeat_new("[", "[{}]", ",", N, "]"));
	check_bound("zeros", repeat_new("[", "0", ",", N, "]"));
	check_bound("reals", repeat_new("[", "0.5", ",", N, "]"));
	check_bound("big integers",
		    repeat_new("[", "-9223372036854775807", ",", N, "]"));
	check_bound("empty strings", repeat_new("[", "\"\"", ",", N, "]"));
	check_bound(
	    "escaped strings",
	    repeat_new("[", "\"\\u00e9\\n\\ud83d\\ude00\"", ",", N, "]"));
	check_bound("nulls", repeat_new("[", "null", ",", N, "]"));
	check_bound("trues and falses",
		    repeat_new("[", "true,false", ",", N, "]"));
	check_bound("keys of zeros", keys_new(N, "0"));
	check_bound("keys of empty objects", keys_new(N, "{}"));
	check_bound("keys of strings", keys_new(N, "\"x\""));
	check_bound("one-member objects",
		    repeat_new("[", "{\"\":0}", ",", N, "]"));
	check_bound("one-member objects of []",
		    repeat_new("[", "{\"\":[]}", ",", N, "]"));
	memset(big, '[', 2000);
	memset(big + 2000, ']', 2000);
	big[4000] = '\0';
	check_bound("arrays 2000 deep", xstrdup(big));
	memset(big, 'x', 200000);
	big[0] = big[199999] = '"';
	big[200000] = '\0';
	check_bound("one long string", xasprintf("[%s]", big));
	memset(big, '1', 200000);
	big[1] = '.';
	check_bound("one long number", xasprintf("[%s]", big));
	free(big);
}

/* Fixtures/results-*.json, as written and compact: each within budget. */
static void test_fixtures_within_budget(void **state)
{
	DIR *d = opendir(FIXTURES);
	struct dirent *e;
	size_t n = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char *path, *compact;
		json_t *doc;

		if (strncmp(e->d_name, "results-", 8) ||
		    !strstr(e->d_name, ".json"))
			continue;
		path = xasprintf("%s/%s", FIXTURES, e->d_name);
		assert_int_equal(results_doc_load(path, 0, &doc), 0);
		compact = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		assert_int_equal(
		    results_doc_parse(path, compact, strlen(compact), 0, &doc),
		    0);
		json_decref(doc);
		check_bound(e->d_name, compact);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

static void test_budget(void **state)
{
	(void)state;
	assert_int_equal(results_doc_budget(1000), RESULTS_DOC_MEM_MIN);
	assert_int_equal(results_doc_budget(1 << 20),
			 RESULTS_DOC_COST_FACTOR << 20);
	assert_int_equal(results_doc_budget(RESULTS_FILE_MAX),
			 RESULTS_DOC_MEM_MAX);
}

/* Past the budget: refused, no tree built (jansson allocated nothing). */
static void test_hostile_refused(void **state)
{
	static const struct {
		const char *head, *item, *tail;
	} rows[] = {
	    {"{\"cells\":[", "{}", "]}"},
	    {"[", "[]", "]"},
	    {"[", "[{}]", "]"},
	    {"[", "{\"\":[]}", "]"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *text = repeat_new(rows[i].head, rows[i].item, ",", N,
					rows[i].tail);
		json_t *doc = (json_t *)1;

		heap_now = heap_peak = 0;
		json_set_alloc_funcs(counting_malloc, counting_free);
		assert_int_equal(results_doc_parse("hostile.json", text,
						   strlen(text), 0, &doc),
				 -EINVAL);
		json_set_alloc_funcs(malloc, free);
		assert_null(doc);
		assert_int_equal(heap_peak, 0);
		free(text);
	}
}

static void test_corrupt_and_missing(void **state)
{
	json_t *doc = (json_t *)1;

	(void)state;
	assert_int_equal(results_doc_parse("x.json", "{\"a\":", 5, 0, &doc),
			 -EINVAL);
	assert_null(doc);
	assert_int_equal(results_doc_load(FIXTURES "/no-such.json", 0, &doc),
			 -ENOENT);
	assert_null(doc);
	/* duplicates are jansson's flag, passed through */
	assert_int_equal(results_doc_parse("d.json", "{\"a\":1,\"a\":2}", 13,
					   JSON_REJECT_DUPLICATES, &doc),
			 -EINVAL);
	assert_int_equal(
	    results_doc_parse("d.json", "{\"a\":1,\"a\":2}", 13, 0, &doc), 0);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_estimate_bounds_every_shape),
	    cmocka_unit_test(test_fixtures_within_budget),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_hostile_refused),
	    cmocka_unit_test(test_corrupt_and_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
