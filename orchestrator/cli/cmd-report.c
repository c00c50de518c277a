/* SPDX-License-Identifier: MIT */
/* vmtax report: render a run's results.json in one format. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "format.h"
#include "model.h"
#include "output.h"
#include "report.h"
#include "untrusted.h"
#include "util.h"

struct report_args {
	const char *format, *output, *rows, *cols;
	bool exit_zero;
};

static const struct opt report_opts[] = {
	{ 'f', "format", OPT_STRING, offsetof(struct report_args, format), NULL,
	  "FMT", "%s (default text)", report_format_names },
	{ 0, "rows", OPT_STRING, offsetof(struct report_args, rows), NULL,
	  "AXES", "the matrix's row axes (default guest-thp,host-thp)", NULL },
	{ 0, "cols", OPT_STRING, offsetof(struct report_args, cols), NULL,
	  "AXES",
	  "its column axes (default: where, paging and backing\n"
	  "as one label); axes that vary and are neither are\n"
	  "folded into the rows.  AXES are names as in the cell\n"
	  "ids (docs/axes.md): where, paging, host-thp, vcpus, ...",
	  NULL },
	{ 'o', "output", OPT_STRING, offsetof(struct report_args, output), NULL,
	  "FILE", OUTPUT_HELP, NULL },
	{ 0, "exit-zero", OPT_FLAG, offsetof(struct report_args, exit_zero),
	  NULL, NULL,
	  "exit 0 though cells failed: only the report (errors\n"
	  "are still 2)",
	  NULL },
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax report RUNDIR|results.json [--format FMT] "
		"[-o FILE]\n"
		"                    [--rows AXIS[,AXIS...]] "
		"[--cols AXIS[,AXIS...]]\n\n"
		"Render a run's results with statistics: per cell the mean, "
		"spread and 95%%\n"
		"interval, the slowdown against the baseline with a 95%% "
		"interval (* p < 0.05),\n"
		"the counters, the slowdown matrix, and for each numeric "
		"axis (vcpus, memory,\n"
		"...) the slowdown against its value.  Which interval a cell "
		"gets:\n"
		"  paired rounds         interleaved: log ratios of the rounds "
		"it shares with\n"
		"                        the baseline, the coarser side's "
		"boots (else the\n"
		"                        rounds) as units (t, units - 1 df)\n"
		"  paired, bridged       interleaved, no round shared with the "
		"baseline: through\n"
		"                        a cell (bare metal) that shares "
		"rounds with both\n"
		"  Fieller (Welch's df)  order = cells, older files, a cell "
		"with no pairing\n"
		"  unbounded: WHY        too few samples to judge, or a ratio "
		"it cannot bound\n"
		"(docs/sampling.md, \"Which interval a cell gets\")\n\n");
	opts_help(f, report_opts, 3, 22);
	fprintf(f, "\nexit status: 0 every cell ended ok or skipped, 1 a cell "
		   "(or a fleet host)\nfailed (unless --exit-zero), 2 bad usage, "
		   "bad input or another error\n");
}

/* Render into memory first: a bad input never leaves a partial file. */
int cmd_report(int argc, char **argv)
{
	struct report_args a = { .format = "text" };
	char *path = NULL, *buf = NULL, *failed = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	int first, ret = EXIT_USAGE, rc;

	first = opts_parse(report_opts, usage, &a, argc, argv);
	if (first < 0)
		return opts_status(first);
	if (argc - first != 1)
		return opts_usage_error(usage);
	if (!report_format_find(a.format)) {
		err("unknown format '%s' (formats: %s)", a.format,
		    report_format_names());
		goto out;
	}
	if (a.output && output_check(a.output) < 0)
		goto out;
	path = report_results_path_new(argv[first]);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		err_errno("cannot allocate the report");
		goto out;
	}
	rc = report_write_view(path, a.format, a.rows, a.cols, mem);
	if (fclose(mem) && !rc)
		rc = -EIO;
	mem = NULL;
	if (rc < 0 || report_failures_new(path, &failed) < 0)
		goto out;
	if (a.output)
		rc = output_write(a.output, buf, len);
	else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
		rc = err_errno("cannot write the report");
	if (rc < 0)
		goto out;
	ret = 0;
	if (failed && !a.exit_zero) {
		fputs("vmtax: report: ", stderr);
		untrusted_fputs(stderr, failed); /* cell ids from the file */
		fputs(" (exit 1; --exit-zero: 0)\n", stderr);
		ret = 1;
	}
out:
	free(failed);
	if (mem)
		fclose(mem);
	free(buf);
	free(path);
	return ret;
}
