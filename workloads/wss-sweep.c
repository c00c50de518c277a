// SPDX-License-Identifier: MIT
/*
 * wss-sweep - dependent random-access latency across working-set sizes, from
 * 16 KiB doubling up to --max-mib: the curve steps up as the working set
 * leaves each cache level and the reach of the TLB.
 *
 * One anonymous mapping of the largest size is filled with pseudo-random
 * words once; each size then walks its first WSS bytes.  The walk state adds
 * every word it reads, and the next index is taken from its high bits, so
 * each load depends on the one before and the walk does not settle into a
 * short cycle.  ns_per_access includes a few cycles of arithmetic per step.
 *
 * Output, one line per size (lower is better), then a summary whose
 * largest_ns_per_access repeats the last size's latency as a single number:
 *	wss_kib=16 ns_per_access=2.105
 *	...
 *	wss-sweep: sizes=17 ... largest_ns_per_access=280.1 elapsed_s=...
 */
#include "wlopt.h"

#include <sys/mman.h>

static uint64_t walk(const uint64_t *mem, uint64_t nwords, uint64_t n,
		     uint64_t *state)
{
	uint64_t s = *state, sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = mem[wl_reduce(s, nwords)];

		s += v;
		sum ^= v;
	}
	*state = s;
	return sum;
}

/* LEN bytes of MEM filled from SEED. */
static void fill(uint64_t *mem, size_t len, uint64_t seed)
{
	uint64_t s = seed;

	for (size_t i = 0; i < len / sizeof(*mem); i++)
		mem[i] = wl_splitmix64(&s);
}

/*
 * The timed walks, MIN_KIB doubling to MAX_MIB, each size's latency
 * printed; the number of sizes.  *SUM folds every walk, *LAST_NS is the
 * largest size's latency.
 */
static uint64_t sweep(const uint64_t *mem, uint64_t min_kib, uint64_t max_mib,
		      uint64_t accesses, uint64_t seed, uint64_t *sum,
		      double *last_ns)
{
	uint64_t state = seed ^ 0x2545F4914F6CDD1Dull, nsizes = 0;

	for (uint64_t kib = min_kib;; kib *= 2) {
		uint64_t nwords;
		double t;

		if (kib > max_mib * 1024)
			kib = max_mib * 1024;
		nwords = kib * 1024 / sizeof(*mem);
		/* Warm the caches and TLB for this size, untimed. */
		*sum ^= walk(mem, nwords, accesses / 4, &state);
		t = wl_now();
		*sum ^= walk(mem, nwords, accesses, &state);
		t = wl_now() - t;
		*last_ns = t * 1e9 / accesses;
		printf("wss_kib=%llu ns_per_access=%.3f\n",
		       (unsigned long long)kib, *last_ns);
		fflush(stdout);
		nsizes++;
		if (kib == max_mib * 1024)
			break;
	}
	return nsizes;
}

int main(int argc, char **argv)
{
	uint64_t min_kib = 16, max_mib = 1024, accesses = 1000000, seed = 1;
	const struct wl_opt opts[] = {
		{ "min-kib", "N", &min_kib, 4, 1 << 30,
		  "smallest working set in KiB" },
		{ "max-mib", "N", &max_mib, 1, 1 << 20,
		  "largest working set in MiB" },
		{ "accesses", "N", &accesses, 1000, UINT64_MAX,
		  "timed dependent accesses per size" },
		{ "seed", "S", &seed, 0, UINT64_MAX, "seed of the fill" },
	};
	uint64_t *mem, sum = 0, nsizes;
	double last_ns = 0;
	size_t len;
	double t0 = wl_now();

	wl_parse(argc, argv, "wss-sweep",
		 "Dependent random-access latency for working sets from 16 KiB"
		 " doubling to\n--max-mib; prints 'wss_kib=N ns_per_access=X'"
		 " per size (lower is better).",
		 opts, ARRAY_SIZE(opts));
	if (min_kib > max_mib * 1024) {
		fprintf(stderr, "wss-sweep: --min-kib is above --max-mib\n");
		return 2;
	}
	len = (size_t)max_mib << 20;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("wss-sweep: error: cannot map memory");
		return 1;
	}
	fill(mem, len, seed);
	nsizes = sweep(mem, min_kib, max_mib, accesses, seed, &sum, &last_ns);
	printf("wss-sweep: sizes=%llu max_mib=%llu accesses=%llu"
	       " largest_ns_per_access=%.3f elapsed_s=%.6f checksum=%016llx\n",
	       (unsigned long long)nsizes, (unsigned long long)max_mib,
	       (unsigned long long)accesses, last_ns, wl_now() - t0,
	       (unsigned long long)sum);
	munmap(mem, len);
	return 0;
}
