/* SPDX-License-Identifier: MIT */
/* vmtax report: render a run's results.json in one format. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "format.h"
#include "model.h"
#include "report.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax report RUNDIR|results.json [--format FMT] "
		"[-o FILE]\n"
		"                    [--rows AXIS[,AXIS...]] "
		"[--cols AXIS[,AXIS...]]\n\n"
		"Render a run's results with statistics: per cell the mean, "
		"spread and 95%%\n"
		"interval, the slowdown against the baseline with a Fieller "
		"95%% interval and\n"
		"Welch's test (* p < 0.05), the counters, the slowdown "
		"matrix, and for each\n"
		"numeric axis (vcpus, memory, ...) the slowdown against its "
		"value.\n\n"
		"   -f, --format FMT   %s (default text)\n"
		"   --rows AXES        the matrix's row axes (default "
		"guest-thp,host-thp)\n"
		"   --cols AXES        its column axes (default: where, "
		"paging and backing\n"
		"                      as one label); axes that vary and are "
		"neither are\n"
		"                      folded into the rows.  AXES are names "
		"as in the cell\n"
		"                      ids (docs/axes.md): where, paging, "
		"host-thp, vcpus, ...\n"
		"   -o, --output FILE  write FILE (atomically) instead of "
		"stdout\n"
		"   -h, --help         this text\n\n"
		"exit status: 0 ok, 1 failure, 2 bad usage or bad input\n",
		report_format_names());
}

/* Render into memory first: a bad input never leaves a partial file. */
int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"rows", required_argument, NULL, 'R'},
	    {"cols", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *format = "text", *output = NULL, *rows = NULL,
		   *cols = NULL;
	char *path = NULL, *buf = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	int c, ret = EXIT_USAGE, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'R':
			rows = optarg;
			break;
		case 'C':
			cols = optarg;
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
	if (argc - optind != 1) {
		usage(stderr);
		goto out;
	}
	if (!report_format_find(format)) {
		err("unknown format '%s' (formats: %s)", format,
		    report_format_names());
		goto out;
	}
	path = report_results_path_new(argv[optind]);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		err_errno("cannot allocate the report");
		ret = 1;
		goto out;
	}
	rc = report_write_view(path, format, rows, cols, mem);
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
		rc = err_errno("cannot write the report");
	ret = rc < 0 ? 1 : 0;
out:
	if (mem)
		fclose(mem);
	free(buf);
	free(path);
	return ret;
}
