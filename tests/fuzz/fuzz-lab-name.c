/* SPDX-License-Identifier: MIT */
/*
 * fuzz-lab-name - libFuzzer target for the name rule of the lab's files
 * (lab_path_check() and lab_name_check() of orchestrator/lab/lab-sync.c).
 *
 * Input: any bytes, taken as the path a lab lists (NULs included: the
 * check takes a length).  Checked, beyond the sanitizers: a path accepted
 * is relative, has 1..LAB_DEPTH_MAX names, each 1..LAB_NAME_MAX bytes of
 * LAB_NAME_CHARS, none starting with '.', none 'lab.json' or
 * 'host-journal', so no path accepted can leave DIR/lab or name this
 * host's own files; a refusal always says why, in printable text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab-sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-lab-name: invariant broken: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	char why[256] = "";
	size_t at = 0, depth = 0, i;
	int r = lab_path_check(p, size, why, sizeof(why));

	if (r < 0) {
		check(why[0] != '\0', "a refusal without a reason");
		for (i = 0; why[i]; i++)
			check((unsigned char)why[i] >= 0x20 &&
				      (unsigned char)why[i] < 0x7f,
			      "a reason with a control or non-ASCII byte");
		return 0;
	}
	check(r == 0, "neither 0 nor -EINVAL");
	check(size > 0 && p[0] != '/', "an accepted absolute or empty path");
	while (at <= size) {
		const char *s = memchr(p + at, '/', size - at);
		size_t n = s ? (size_t)(s - p) - at : size - at;

		depth++;
		check(n >= 1 && n <= LAB_NAME_MAX, "a name of a bad length");
		check(p[at] != '.', "a name starting with '.'");
		for (i = 0; i < n; i++)
			check(p[at + i] && strchr(LAB_NAME_CHARS, p[at + i]),
			      "a byte outside LAB_NAME_CHARS");
		check(!(n == 8 && !memcmp(p + at, "lab.json", 8)),
		      "lab.json accepted");
		check(!(n == 12 && !memcmp(p + at, "host-journal", 12)),
		      "host-journal accepted");
		check(lab_name_check(p + at, n, why, sizeof(why)) == 0,
		      "a name the path rule took but the name rule refuses");
		at += n + 1;
	}
	check(depth <= LAB_DEPTH_MAX, "too deep");
	return 0;
}
