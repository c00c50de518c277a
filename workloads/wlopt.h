/* SPDX-License-Identifier: MIT */
/*
 * wlopt.h - option table for the workload programs in workloads/.
 *
 * Each workload is one static C file with no library besides libc, so this
 * header carries its small helpers as static inline functions.  A workload
 * declares its options once, in a table that drives parsing, bounds, the
 * defaults (the value already in *val) and --help:
 *
 *	uint64_t size_mib = 2048;
 *	const struct wl_opt opts[] = {
 *		{ "size-mib", "N", &size_mib, 1, 1 << 20, "mapping size" },
 *	};
 *	wl_parse(argc, argv, "randwalk", "what it does", opts,
 *		 ARRAY_SIZE(opts));
 *
 * Usage errors print a message to stderr and exit with status 2; --help
 * prints the table and exits 0.  Options take "--name VALUE" or
 * "--name=VALUE"; values are unsigned integers with an optional K, M or G
 * suffix (powers of 1024).
 */
#ifndef VMTAX_WLOPT_H
#define VMTAX_WLOPT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct wl_opt {
	const char *name;	/* long option without the dashes */
	const char *metavar;	/* "N" in --help */
	uint64_t *val;		/* holds the default; receives the value */
	uint64_t min, max;	/* inclusive bounds */
	const char *help;
};

static inline void wl_usage(FILE *f, const char *prog, const char *summary,
			    const struct wl_opt *opts, size_t n)
{
	fprintf(f, "usage: %s [OPTION]...\n%s\n\n", prog, summary);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  --%-12s %-3s %s (default %llu, range %llu..%llu)\n",
			opts[i].name, opts[i].metavar, opts[i].help,
			(unsigned long long)*opts[i].val,
			(unsigned long long)opts[i].min,
			(unsigned long long)opts[i].max);
	fprintf(f, "  --%-16s show this help\n", "help");
}

static inline int wl_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -errno;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	default: break;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static inline void wl_parse(int argc, char **argv, const char *prog,
			    const char *summary, const struct wl_opt *opts,
			    size_t n)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		const struct wl_opt *o = NULL;
		size_t len;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			wl_usage(stdout, prog, summary, opts, n);
			exit(0);
		}
		if (strncmp(arg, "--", 2))
			goto bad;
		arg += 2;
		len = strcspn(arg, "=");
		for (size_t k = 0; k < n; k++)
			if (strlen(opts[k].name) == len &&
			    !strncmp(opts[k].name, arg, len))
				o = &opts[k];
		if (!o)
			goto bad;
		if (arg[len] == '=')
			val = arg + len + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (!val) {
			fprintf(stderr, "%s: option '--%s' needs a value\n",
				prog, o->name);
			exit(2);
		}
		if (wl_parse_u64(val, o->val) || *o->val < o->min ||
		    *o->val > o->max) {
			fprintf(stderr,
				"%s: bad value '%s' for '--%s' (want %llu..%llu)\n",
				prog, val, o->name,
				(unsigned long long)o->min,
				(unsigned long long)o->max);
			exit(2);
		}
		continue;
bad:
		fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog,
			argv[i]);
		exit(2);
	}
}

static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* splitmix64: a fast, well-mixed generator for filling memory. */
static inline uint64_t wl_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform index in [0, n) from a 64-bit value (Lemire's multiply-shift). */
static inline uint64_t wl_reduce(uint64_t x, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

#endif
