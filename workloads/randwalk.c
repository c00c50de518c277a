// SPDX-License-Identifier: MIT
/*
 * randwalk - a TLB-bound workload: map N MiB of anonymous memory, fill every
 * word with pseudo-random data (which faults in every page), then make M
 * dependent random 8-byte reads across the whole mapping.
 *
 * The mapping is a plain mmap() with no madvise(), so the host's THP mode
 * (always vs never, madvise acts as never) decides whether it is backed by
 * 2 MiB or 4 KiB pages: that changes the number of faults (~512x) and the
 * reach of the TLB during the walk.
 *
 * The walk's state is a 64-bit value that mixes in every word it reads, so
 * each address depends on the previous load (no memory-level parallelism)
 * and the sequence does not fall into a short cycle, as an index-only
 * recurrence over n words would after about sqrt(n) steps.
 */
#include "wlopt.h"

#include <sys/mman.h>

int main(int argc, char **argv)
{
	uint64_t size_mib = 2048, reads = 20000000, seed = 1;
	const struct wl_opt opts[] = {
		{ "size-mib", "N", &size_mib, 1, 1 << 20,
		  "size of the anonymous mapping in MiB" },
		{ "reads", "M", &reads, 1, UINT64_MAX,
		  "dependent random 8-byte reads after the fill" },
		{ "seed", "S", &seed, 0, UINT64_MAX, "seed of the fill" },
	};
	uint64_t *mem, nwords, state, sum = 0, s;
	double t0, t1, t2;
	size_t len;

	wl_parse(argc, argv, "randwalk",
		 "Fill N MiB of anonymous memory, then walk it with M dependent"
		 " random reads.\nPrints one summary line; elapsed_s covers"
		 " fill and walk.",
		 opts, ARRAY_SIZE(opts));

	len = (size_t)size_mib << 20;
	nwords = len / sizeof(uint64_t);
	t0 = wl_now();
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("randwalk: error: cannot map memory");
		return 1;
	}
	s = seed;
	for (uint64_t i = 0; i < nwords; i++)
		mem[i] = wl_splitmix64(&s);
	t1 = wl_now();

	state = seed ^ 0x2545F4914F6CDD1Dull;
	for (uint64_t r = 0; r < reads; r++) {
		uint64_t v = mem[wl_reduce(state, nwords)];

		sum += v;
		state = state * 6364136223846793005ull + v;
	}
	t2 = wl_now();

	printf("randwalk: size_mib=%llu reads=%llu elapsed_s=%.6f fill_s=%.6f"
	       " walk_s=%.6f ns_per_read=%.3f checksum=%016llx\n",
	       (unsigned long long)size_mib, (unsigned long long)reads,
	       t2 - t0, t1 - t0, t2 - t1, (t2 - t1) * 1e9 / reads,
	       (unsigned long long)sum);
	munmap(mem, len);
	return 0;
}
