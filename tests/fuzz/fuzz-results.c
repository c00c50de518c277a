/* SPDX-License-Identifier: MIT */
/*
 * fuzz-results - libFuzzer target for the results.json loader used by
 * 'vmtax report' and 'vmtax compare' (reports/model.c), with the statistics
 * it computes, every formatter and the comparisons.
 *
 * report_load() takes a path, so the input goes into a memfd and is loaded
 * through /proc/self/fd/N.  A loaded report is rendered in every format to
 * /dev/null, compared with itself across runs, and compared by every axis
 * 'vmtax compare --by' accepts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare.h"
#include "format.h"
#include "model.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static int memfd = -1;
static char path[64];

static int setup(void)
{
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		return err_errno("cannot open '/dev/null'");
	memfd = memfd_create("results.json", MFD_CLOEXEC);
	if (memfd < 0)
		return err_errno("cannot create a memfd");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

static int put_input(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (ftruncate(memfd, 0) < 0 || lseek(memfd, 0, SEEK_SET) < 0)
		return -errno;
	while (off < size) {
		ssize_t w = write(memfd, data + off, size - off);

		if (w < 0)
			return -errno;
		off += w;
	}
	return 0;
}

/* The axes of 'vmtax compare --by', split from "where|host_thp|...". */
static void compare_by_axes(struct report *r)
{
	char *axes = xstrdup(compare_axes()), *save = NULL, *axis;
	size_t i;

	for (axis = strtok_r(axes, "|", &save); axis;
	     axis = strtok_r(NULL, "|", &save)) {
		struct compare_opts o = {.by = axis};
		struct compare *c = NULL;

		if (compare_new(&r, 1, &o, &c) < 0)
			continue;
		for (i = 0; i < report_nformats; i++)
			if (report_formats[i]->render_compare)
				report_formats[i]->render_compare(c, devnull);
		compare_free(c);
	}
	free(axes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct compare_opts effect = {.effect = true};
	struct report *r = NULL, *runs[2];
	struct compare *c = NULL;
	size_t i;

	if (!devnull && setup() < 0)
		abort();
	if (put_input(data, size) < 0)
		abort();
	if (report_load(path, &r) < 0) {
		if (r)
			abort(); /* a failed load hands nothing back */
		return 0;
	}
	for (i = 0; i < report_nformats; i++)
		report_formats[i]->render(r, devnull);
	for (i = 0; i < r->ncells; i++)
		if (report_find_cell(r, r->cells[i].id) < 0)
			abort(); /* every cell can be found by its id */
	runs[0] = r;
	runs[1] = r;
	if (compare_new(runs, 2, NULL, &c) == 0) {
		for (i = 0; i < report_nformats; i++)
			if (report_formats[i]->render_compare)
				report_formats[i]->render_compare(c, devnull);
		compare_free(c);
	}
	if (compare_new(runs, 2, &effect, &c) == 0) {
		for (i = 0; i < report_nformats; i++)
			if (report_formats[i]->render_compare)
				report_formats[i]->render_compare(c, devnull);
		compare_free(c);
	}
	compare_by_axes(r);
	report_free(r);
	fflush(devnull);
	return 0;
}
