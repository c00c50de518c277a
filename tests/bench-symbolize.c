// SPDX-License-Identifier: MIT
/*
 * bench-symbolize - make bench's section 10: what symbolizing one profile
 * costs, per binary.  For each FILE, ROUNDS times, a fresh symbolizer
 * (lib/profile-symbols.c) resolves NADDR file offsets spread evenly over
 * the file, as one profile's user frames of that binary would: the table
 * is read once per round, then looked up.  It prints the best round's time
 * and the mean, how many offsets resolved to a symbol, and an FNV-1a hash
 * of the names in order, so that two builds (before and after a change of
 * the symbolizer) can be compared for the same results as well as for
 * time.  -d DIR looks for separate debug files under DIR instead of
 * SYMBOLIZER_DEBUG_DIR ("" for none: the file's own table only).  It
 * asserts nothing (no test times itself).
 *
 *	bench-symbolize [-r ROUNDS] [-n NADDR] [-d DIR] FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile-symbols.h"
#include "profile.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ ';') * 0x100000001b3ull;
}

int main(int argc, char **argv)
{
	long rounds = 20, naddr = 20000;
	const char *debug_dir = SYMBOLIZER_DEBUG_DIR;
	int c;

	while ((c = getopt(argc, argv, "r:n:d:")) != -1) {
		if (c == 'r')
			rounds = atol(optarg);
		else if (c == 'n')
			naddr = atol(optarg);
		else if (c == 'd')
			debug_dir = optarg;
		else
			return 2;
	}
	if (optind == argc || rounds < 1 || naddr < 1) {
		fprintf(stderr, "usage: bench-symbolize [-r ROUNDS] [-n NADDR] "
				"[-d DIR] FILE...\n");
		return 2;
	}
	printf("   %-40s %10s %10s %8s %8s  %s\n", "file", "best ms", "mean ms",
	       "offsets", "named", "names' hash");
	for (int f = optind; f < argc; f++) {
		struct stat st;
		double best = 0, sum = 0;
		uint64_t hash = 0;
		long named = 0;

		if (stat(argv[f], &st) < 0 || st.st_size <= 0) {
			printf("   %-40s cannot stat\n", argv[f]);
			continue;
		}
		for (long r = 0; r < rounds; r++) {
			struct symbolizer *s = symbolizer_new("", false);
			struct profile *p = profile_new();
			double t0 = now_ms(), dt;

			symbolizer_set_debug_dir(s, debug_dir);
			hash = 0xcbf29ce484222325ull;
			named = 0;
			for (long i = 0; i < naddr; i++) {
				uint64_t off = (uint64_t)st.st_size * i / naddr;
				const char *n =
				    symbolizer_user(s, p, argv[f], off);

				named += strcmp(n, PROFILE_UNKNOWN) != 0;
				hash = fnv(hash, n);
			}
			dt = now_ms() - t0;
			symbolizer_free(s);
			profile_free(p);
			sum += dt;
			if (!r || dt < best)
				best = dt;
		}
		printf("   %-40s %10.2f %10.2f %8ld %8ld  %016llx\n", argv[f],
		       best, sum / rounds, naddr, named,
		       (unsigned long long)hash);
	}
	return 0;
}
