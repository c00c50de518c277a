// SPDX-License-Identifier: MIT
/*
 * forktouch - a kernel build in miniature, for the paging axis: PROCS short
 * processes, one after another, each of which maps TOUCH_KIB of fresh
 * anonymous memory, writes one byte in every 4 KiB page of it, and exits.
 *
 * What it costs is what make -j costs a guest: address spaces created and
 * torn down, page tables built, page faults on small mappings, TLB flushes
 * at exit.  Under shadow paging (EPT/NPT off) each of those is a VM exit
 * (CR3 writes, #PF intercepts, INVLPG); with EPT/NPT the guest handles them
 * itself.  The mapping is kept under 2 MiB by default, so THP does not
 * change the page size of the touches, only of the rest of the guest.
 */
#include "wlopt.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(size_t len)
{
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED)
		return 2;
	for (off = 0; off < len; off += 4096)
		p[off] = (char)off;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t procs = 200, touch_kib = 1024;
	const struct wl_opt opts[] = {
		{ "procs", "N", &procs, 1, 1000000,
		  "processes to create, one after another" },
		{ "touch-kib", "K", &touch_kib, 4, 1 << 20,
		  "anonymous memory each process maps and touches, in KiB" },
	};
	double t0, t1;
	uint64_t i;

	wl_parse(argc, argv, "forktouch",
		 "Create N processes one after another; each touches every "
		 "page of K KiB\nof fresh anonymous memory and exits.  Prints "
		 "one summary line.",
		 opts, ARRAY_SIZE(opts));
	t0 = wl_now();
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("forktouch: error: cannot fork");
			return 1;
		}
		if (pid == 0)
			_exit(child((size_t)touch_kib << 10));
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "forktouch: error: process %llu "
					"failed\n",
				(unsigned long long)i);
			return 1;
		}
	}
	t1 = wl_now();
	printf("forktouch: procs=%llu touch_kib=%llu elapsed_s=%.6f "
	       "us_per_proc=%.1f\n",
	       (unsigned long long)procs, (unsigned long long)touch_kib,
	       t1 - t0, (t1 - t0) * 1e6 / (double)procs);
	return 0;
}
