/* SPDX-License-Identifier: MIT */
/*
 * fuzz-kvm-hist - libFuzzer target for the kvm_exit hist parser
 * (kvm_exits_parse() of host/kvm-exits.c).
 *
 * Input: the text of a hist file (a NUL ends it early).  It is parsed three
 * ways: any exit_reason table (NULL filter), the filter of the recorded
 * fixtures' first guest, and an empty filter.
 *
 * Checked, beyond the sanitizers, for every parse that succeeds with a
 * table: codes strictly increasing, no zero count, the counts sum to the
 * total; a failed or tableless parse leaves nothing behind.  Two parses of
 * the same text give the same result, and the delta of a result with
 * itself is empty.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvm-stats.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-kvm-hist: invariant broken: %s\n", what);
		abort();
	}
}

static void one(const char *text, const char *filter)
{
	struct kvm_exits x, y, d;
	uint64_t sum = 0;
	int r;

	kvm_exits_init(&x);
	kvm_exits_init(&y);
	kvm_exits_init(&d);
	r = kvm_exits_parse(text, filter, &x);
	if (r < 0 || !x.available) {
		check(!x.available && x.n == 0 && x.e == NULL,
		      "a failed parse keeps entries");
		goto out;
	}
	for (size_t i = 0; i < x.n; i++) {
		check(i == 0 || x.e[i - 1].code < x.e[i].code,
		      "codes not strictly increasing");
		sum += x.e[i].count;
		(void)kvm_exit_reason_name(VIRT_VENDOR_AMD, x.e[i].code);
		(void)kvm_exit_reason_name(VIRT_VENDOR_INTEL, x.e[i].code);
	}
	check(sum == x.total, "counts do not sum to the total");
	check(kvm_exits_parse(text, filter, &y) == 0 && y.available &&
		  y.n == x.n && y.total == x.total &&
		  (!x.n || !memcmp(x.e, y.e, x.n * sizeof(*x.e))),
	      "a second parse differs");
	check(kvm_exits_delta(&x, &y, &d) == 0 && d.n == 0 && d.total == 0,
	      "the delta with itself is not empty");
out:
	kvm_exits_release(&x);
	kvm_exits_release(&y);
	kvm_exits_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);

	one(text, NULL);
	one(text, "common_pid==100||common_pid==104||common_pid==95");
	one(text, "");
	free(text);
	return 0;
}
