/* SPDX-License-Identifier: MIT */
/* vmtax compare: runs cell by cell, their effects, or one axis of one run. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "compare.h"
#include "format.h"
#include "model.h"
#include "report.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax compare RUNDIR_A RUNDIR_B [RUNDIR...] "
		"[--format FMT] [-o FILE]\n"
		"       vmtax compare RUNDIR_A RUNDIR_B [RUNDIR...] --effect "
		"[--pair REF_ID,ID...]\n"
		"                     [--baseline RUN=ID...] [--format FMT] "
		"[-o FILE]\n"
		"       vmtax compare RUNDIR --by AXIS [--format FMT] "
		"[-o FILE]\n\n"
		"Align cells by id and show each run's mean, the delta of "
		"every later run\n"
		"against run A (ratio of means - 1, positive = slower) with "
		"a Fieller 95%%\n"
		"interval and Welch's test.  With --by, pair each cell with "
		"the cell that\n"
		"differs only in AXIS and has the baseline's value of it.  "
		"Runs of different\n"
		"workloads or metrics are refused unless --effect is "
		"given.\n\n"
		"   --effect           each run's slowdowns against its own "
		"baseline (as\n"
		"                      'vmtax report' prints them, positive = "
		"slower), side\n"
		"                      by side, and their difference in "
		"points: runs of any\n"
		"                      workload, metric and unit\n"
		"   --pair REF_ID,ID   align run A's cell REF_ID with cell ID "
		"of the later\n"
		"                      runs (repeatable); other cells align "
		"by id\n"
		"   --baseline RUN=ID  with --effect: run RUN's (A, B, ...) "
		"slowdowns against\n"
		"                      its cell ID instead of its baseline "
		"(repeatable)\n"
		"   --by AXIS          any axis of the run, named as in its "
		"cell ids\n"
		"                      (docs/axes.md): %s,\n"
		"                      vcpus, host.KNOB, ...\n"
		"   -f, --format FMT   %s (default text)\n"
		"   -o, --output FILE  write FILE (atomically) instead of "
		"stdout\n"
		"   -h, --help         this text\n\n"
		"exit status: 0 ok, 1 failure, 2 bad usage or bad input\n",
		compare_axes(), report_format_names());
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"by", required_argument, NULL, 'b'},
	    {"effect", no_argument, NULL, 'e'},
	    {"pair", required_argument, NULL, 'p'},
	    {"baseline", required_argument, NULL, 'B'},
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *format = "text", *output = NULL;
	struct compare_opts o = {0};
	struct compare_pair *pairs = NULL;
	struct compare_baseline *bases = NULL;
	char **paths = NULL, *buf = NULL;
	size_t len = 0, n = 0, i;
	FILE *mem = NULL;
	int c, ret = EXIT_USAGE, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "b:f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.by = optarg;
			break;
		case 'e':
			o.effect = true;
			break;
		case 'p':
			pairs =
			    xrealloc(pairs, (o.npairs + 1) * sizeof(*pairs));
			if (compare_parse_pair(optarg, &pairs[o.npairs]) < 0)
				goto out;
			o.npairs++;
			break;
		case 'B':
			bases = xrealloc(bases,
					 (o.nbaselines + 1) * sizeof(*bases));
			if (compare_parse_baseline(optarg,
						   &bases[o.nbaselines]) < 0)
				goto out;
			o.nbaselines++;
			break;
		case 'f':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	o.pairs = pairs;
	o.baselines = bases;
	n = argc - optind;
	if (n < 1 || (!o.by && n < 2)) {
		usage(stderr);
		goto out;
	}
	paths = xcalloc(n, sizeof(*paths));
	for (i = 0; i < n; i++)
		paths[i] = report_results_path_new(argv[optind + i]);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		err_errno("cannot allocate the comparison");
		ret = 1;
		goto out;
	}
	rc = report_compare_write((const char *const *)paths, n, &o, format,
				  mem);
	if (fclose(mem) && !rc)
		rc = -EIO;
	mem = NULL;
	if (rc < 0) {
		ret = rc == -EINVAL || rc == -ENOENT ? EXIT_USAGE : 1;
		goto out;
	}
	if (output)
		rc = write_file_atomic(output, buf, len);
	else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
		rc = err_errno("cannot write the comparison");
	ret = rc < 0 ? 1 : 0;
out:
	if (mem)
		fclose(mem);
	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
	free(pairs);
	free(bases);
	free(buf);
	return ret;
}
