// SPDX-License-Identifier: MIT
/*
 * sparse-touch - a THP pathology: map a large anonymous region and write one
 * byte in each 2 MiB stretch of it.  With THP "never" each touch faults in a
 * single 4 KiB page; with "always" each touch faults in, and zeroes, a whole
 * 2 MiB huge page: 512 times the memory and far more time.  Lower is better,
 * so THP always shows up as a slowdown.
 *
 * The mapping is a plain mmap() without madvise(), so the system-wide THP
 * mode decides.  --rounds maps, touches and unmaps the region that many
 * times, to lengthen the run without holding more memory.
 */
#include "wlopt.h"

#include <sys/mman.h>
#include <unistd.h>

/* Resident set in KiB, from /proc/self/statm; -1 if unknown. */
static long rss_kib(void)
{
	long size, resident = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	uint64_t size_mib = 1024, stride_kib = 2048, rounds = 1;
	const struct wl_opt opts[] = {
		{ "size-mib", "N", &size_mib, 2, 1 << 20,
		  "size of the anonymous mapping in MiB" },
		{ "stride-kib", "K", &stride_kib, 4, 1 << 20,
		  "distance between touched bytes in KiB" },
		{ "rounds", "R", &rounds, 1, 1000000,
		  "map, touch and unmap this many times" },
	};
	size_t len, stride, touches = 0;
	long rss = -1;
	double t0, t;

	wl_parse(argc, argv, "sparse-touch",
		 "Touch one byte in each 2 MiB of a large mapping; prints the"
		 " elapsed time\n(lower is better).",
		 opts, ARRAY_SIZE(opts));
	len = (size_t)size_mib << 20;
	stride = (size_t)stride_kib << 10;
	t0 = wl_now();
	for (uint64_t r = 0; r < rounds; r++) {
		volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("sparse-touch: error: cannot map memory");
			return 1;
		}
		for (size_t off = 0; off < len; off += stride) {
			p[off] = 1;
			touches++;
		}
		if (r == 0)
			rss = rss_kib();
		munmap((void *)p, len);
	}
	t = wl_now() - t0;
	printf("sparse-touch: size_mib=%llu stride_kib=%llu rounds=%llu"
	       " touches=%zu elapsed_s=%.6f us_per_touch=%.3f rss_kib=%ld\n",
	       (unsigned long long)size_mib, (unsigned long long)stride_kib,
	       (unsigned long long)rounds, touches, t, t * 1e6 / touches,
	       rss);
	return 0;
}
