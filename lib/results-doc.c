// SPDX-License-Identifier: MIT
#include "results-doc.h"

#include <limits.h>

#include "beneath.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "util.h"

/*
 * What jansson 2.14 allocates per value, at most, in bytes of heap with
 * glibc's malloc (a chunk is the request plus 8, rounded up to 16, at
 * least 32): read from jansson's structs and checked against it by
 * tests/unit/test-results-doc.c.
 *
 * SLOT: a value's place in its array's table (8 bytes; the table doubles,
 * and while it grows the old and new tables are both held: 24).  Charged
 * to every value, an object member's too.
 * OBJECT: json_object_t (72 bytes: an 80-byte chunk) and its first 8
 * hash buckets (128 bytes: 144).
 * ARRAY: json_array_t (40: 48) and its first table of 8 (64: 80).
 * KEY: an object member: its pair with the key inline (56 + the key + 1),
 * and its share of the buckets (16 each, at most 2 per member, 3 while
 * they are rehashed): 80 + 48, plus the key's length.
 * STRING: json_string_t (32: 48) and the value (its length + 1: at least
 * 32), plus the length.
 * NUMBER: json_integer_t or json_real_t (24: 32).
 * true, false and null are jansson's singletons: a slot only.
 * A string's length in the text is at least its decoded length (an escape
 * is never shorter than what it stands for).
 */
#define COST_SLOT 24
#define COST_OBJECT 224
#define COST_ARRAY 128
#define COST_KEY 128
#define COST_STRING 96
#define COST_NUMBER 32

/* The end of the string that starts at S (its opening quote). */
static const char *string_end(const char *s, const char *end)
{
	for (s++; s < end && *s != '"';)
		s += *s == '\\' ? 2 : 1;
	return s < end ? s + 1 : end;
}

/* Whether the string that ends at S is an object's key. */
static bool is_key(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	return s < end && *s == ':';
}

/* The end of the token of bytes in SET that starts at S. */
static const char *span(const char *s, const char *end, const char *set)
{
	while (s < end && *s && strchr(set, *s))
		s++;
	return s;
}

void results_doc_cost(const char *text, size_t len, struct results_doc_cost *c)
{
	const char *s = text, *end = text + len, *q;
	size_t longest = 0;

	memset(c, 0, sizeof(*c));
	while (s < end) {
		size_t cost = COST_SLOT;

		if (*s == '{') {
			cost += COST_OBJECT;
			q = s + 1;
		} else if (*s == '[') {
			cost += COST_ARRAY;
			q = s + 1;
		} else if (*s == '"') {
			q = string_end(s, end);
			cost = is_key(q, end)
				   ? COST_KEY + (size_t)(q - s)
				   : cost + COST_STRING + (size_t)(q - s);
		} else if (*s == '-' || (*s >= '0' && *s <= '9')) {
			cost += COST_NUMBER;
			q = span(s, end, "0123456789+-.eE");
		} else if ((*s >= 'a' && *s <= 'z') ||
			   (*s >= 'A' && *s <= 'Z')) {
			/* true, false, null (or a word jansson refuses) */
			q = span(s, end,
				 "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
		} else {
			s++; /* blanks, ',', ':', '}', ']', junk */
			continue;
		}
		if ((size_t)(q - s) > longest)
			longest = (size_t)(q - s);
		c->values++;
		c->bytes += cost;
		s = q;
	}
	/*
	 * The lexer keeps each token in a buffer that doubles as it grows and
	 * is kept for the next (at most twice the longest token), and a
	 * string's decoded copy besides.
	 */
	c->bytes += 3 * (longest + 1);
}

size_t results_doc_budget(size_t len)
{
	size_t b = (size_t)RESULTS_DOC_COST_FACTOR * len;

	if (b < RESULTS_DOC_MEM_MIN)
		return RESULTS_DOC_MEM_MIN;
	return b < RESULTS_DOC_MEM_MAX ? b : RESULTS_DOC_MEM_MAX;
}

int results_doc_decode(const char *text, size_t len, size_t flags, json_t **doc,
		       char *why, size_t whylen)
{
	struct results_doc_cost c;
	json_error_t jerr;
	size_t budget = results_doc_budget(len);
	char rule[96];

	*doc = NULL;
	results_doc_cost(text, len, &c);
	if (c.bytes > budget) {
		if (budget == RESULTS_DOC_MEM_MAX)
			snprintf(rule, sizeof(rule), "RESULTS_DOC_MEM_MAX");
		else if (budget == RESULTS_DOC_MEM_MIN)
			snprintf(rule, sizeof(rule),
				 "RESULTS_DOC_MEM_MIN, the least a file has");
		else
			snprintf(rule, sizeof(rule),
				 "RESULTS_DOC_COST_FACTOR: %d times its %zu "
				 "bytes",
				 RESULTS_DOC_COST_FACTOR, len);
		snprintf(why, whylen,
			 "not loaded: its %zu JSON values would take about "
			 "%.1f MiB of memory, over its budget of %.1f MiB (%s)",
			 c.values, (double)c.bytes / (1 << 20),
			 (double)budget / (1 << 20), rule);
		return -EINVAL;
	}
	*doc = json_loadb(text, len, flags, &jerr);
	if (!*doc) {
		snprintf(why, whylen, "corrupt JSON at line %d: %s", jerr.line,
			 jerr.text);
		return -EINVAL;
	}
	return 0;
}

int results_doc_parse(const char *name, const char *text, size_t len,
		      size_t flags, json_t **doc)
{
	char why[RESULTS_DOC_WHY_MAX];
	int ret = results_doc_decode(text, len, flags, doc, why, sizeof(why));

	return ret < 0 ? err("'%s': %s", name, why) : 0;
}

int results_doc_load(const char *path, size_t flags, json_t **doc)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	char why[PATH_MAX + 192];

	*doc = NULL;
	/* only a regular file, no FIFO waited on, no symlink we did not make
	 * (beneath.h, path_open_file()) */
	ret = read_path_file(path, RESULTS_FILE_MAX, &text, &len, why,
			     sizeof(why));
	if (ret < 0) {
		err("cannot read '%s': %s", path, why);
		/* a link or a FIFO where a file should be: bad input */
		return ret == -ELOOP || ret == -EBADFD || ret == -EISDIR
			       ? -EINVAL
			       : ret;
	}
	ret = results_doc_parse(path, text, len, flags, doc);
	free(text);
	return ret;
}
