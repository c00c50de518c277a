/* SPDX-License-Identifier: MIT */
/*
 * results-doc.h - the one way a results document (a run's results.json,
 * the lab's DIR/lab/results.json, a fleet host's hosts/NAME/results.json)
 * becomes a jansson tree, within a memory budget (docs/security.md,
 * "Caps").
 *
 * jansson's tree costs far more than the text it comes from: an empty
 * object, three bytes of "{},", is about 230 bytes of heap.  So before any
 * tree is built, results_doc_cost() scans the text once (no allocation)
 * and counts its values and object keys, each weighed by an upper bound of
 * what jansson 2.14 allocates for it (results-doc.c says how each was
 * found; tests/unit/test-results-doc.c checks them against jansson itself
 * through a counting allocator).  A document whose estimate is over its
 * budget (results_doc_budget(): RESULTS_DOC_COST_FACTOR times its size,
 * within RESULTS_DOC_MEM_MIN and RESULTS_DOC_MEM_MAX; caps.h) is refused
 * with the file, the count and the budget named; no tree is built.
 *
 * results_doc_parse() and results_doc_load() report their own errors,
 * naming the file (results_doc_decode() hands back why), and return 0 or
 * a negative errno: -EINVAL for corrupt
 * JSON or a document over its budget (a load error: 'vmtax report' exits
 * 2), read_file()'s errno when it cannot be read.
 */
#ifndef VMTAX_RESULTS_DOC_H
#define VMTAX_RESULTS_DOC_H

#include <jansson.h>
#include <stddef.h>

/* What parsing a JSON text would cost, at most (results_doc_cost()). */
struct results_doc_cost {
	size_t values; /* values and object keys: what jansson allocates for */
	size_t bytes;  /* the heap jansson would take for them, at most */
};

/* Scan TEXT (LEN bytes, need not be valid JSON) into *C.  Pure. */
void results_doc_cost(const char *text, size_t len, struct results_doc_cost *c);

/*
 * The budget of a LEN-byte document: RESULTS_DOC_COST_FACTOR * LEN, at
 * least RESULTS_DOC_MEM_MIN and at most RESULTS_DOC_MEM_MAX.
 */
size_t results_doc_budget(size_t len);

/*
 * TEXT (LEN bytes) parsed into *DOC (a new reference) with jansson's
 * FLAGS, when its cost is within its budget; else -EINVAL and why (the
 * count and the budget, or where the JSON is corrupt) in WHY, which
 * RESULTS_DOC_WHY_MAX bytes hold.  Reports nothing: for a caller that
 * records why (a fleet host's results).
 */
#define RESULTS_DOC_WHY_MAX 256
int results_doc_decode(const char *text, size_t len, size_t flags, json_t **doc,
		       char *why, size_t whylen);

/* The same, reported as "'NAME': WHY" (NAME: where TEXT was read). */
int results_doc_parse(const char *name, const char *text, size_t len,
		      size_t flags, json_t **doc);

/* PATH read (at most RESULTS_FILE_MAX bytes) and results_doc_parse()d. */
int results_doc_load(const char *path, size_t flags, json_t **doc);

#endif
