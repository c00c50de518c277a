/* SPDX-License-Identifier: MIT */
/* vmtax compare: runs cell by cell, their effects, or one axis of one run. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "beneath.h"
#include "caps.h"
#include "cmd-opts.h"
#include "cmds.h"
#include "compare.h"
#include "format.h"
#include "model.h"
#include "output.h"
#include "report.h"
#include "untrusted.h"
#include "results-doc.h"
#include "util.h"

struct compare_args {
	const char *format, *output;
	bool exit_zero;
	struct compare_opts o;
	struct compare_pair *pairs;	/* o.pairs, owned */
	struct compare_baseline *bases; /* o.baselines, owned */
};

static int take_pair(void *args, char *arg)
{
	struct compare_args *a = args;

	a->pairs = xrealloc(a->pairs, (a->o.npairs + 1) * sizeof(*a->pairs));
	if (compare_parse_pair(arg, &a->pairs[a->o.npairs]) < 0)
		return -EINVAL;
	a->o.pairs = a->pairs;
	a->o.npairs++;
	return 0;
}

static int take_baseline(void *args, char *arg)
{
	struct compare_args *a = args;

	a->bases = xrealloc(a->bases,
			    (a->o.nbaselines + 1) * sizeof(*a->bases));
	if (compare_parse_baseline(arg, &a->bases[a->o.nbaselines]) < 0)
		return -EINVAL;
	a->o.baselines = a->bases;
	a->o.nbaselines++;
	return 0;
}

static int take_threshold(void *args, char *arg)
{
	struct compare_args *a = args;

	return compare_parse_threshold(arg, &a->o.threshold) < 0 ? -EINVAL : 0;
}

static const struct opt compare_opts[] = {
	{ 0, "effect", OPT_FLAG, offsetof(struct compare_args, o.effect), NULL,
	  NULL,
	  "each run's slowdowns against its own baseline (as\n"
	  "'vmtax report' prints them, positive = slower), side\n"
	  "by side, and their difference in points: runs of any\n"
	  "workload, metric and unit",
	  NULL },
	{ 0, "pair", OPT_CALLBACK, 0, take_pair, "REF_ID,ID",
	  "align run A's cell REF_ID with cell ID of the later\n"
	  "runs (repeatable); other cells align by id",
	  NULL },
	{ 0, "baseline", OPT_CALLBACK, 0, take_baseline, "RUN=ID",
	  "with --effect: run RUN's (A, B, ...) slowdowns against\n"
	  "its cell ID instead of its baseline (repeatable)",
	  NULL },
	{ 'b', "by", OPT_STRING, offsetof(struct compare_args, o.by), NULL,
	  "AXIS",
	  "any axis of the run, named as in its cell ids\n"
	  "(docs/axes.md): %s,\n"
	  "vcpus, host.KNOB, ...; host: a fleet run's hosts",
	  compare_axes },
	{ 0, "threshold", OPT_CALLBACK, 0, take_threshold, "PCT",
	  "exit 1 only for a significant change of more than\n"
	  "PCT percent (default 0: any significant change)",
	  NULL },
	{ 0, "exit-zero", OPT_FLAG, offsetof(struct compare_args, exit_zero),
	  NULL, NULL,
	  "exit 0 whatever changed: only the table (errors are\n"
	  "still 2)",
	  NULL },
	{ 0, "allow-unlike", OPT_FLAG,
	  offsetof(struct compare_args, o.allow_unlike), NULL, NULL,
	  "compare runs whose hosts differ (CPU, kernel, memory,\n"
	  "...: named in a note) instead of refusing them",
	  NULL },
	{ 'f', "format", OPT_STRING, offsetof(struct compare_args, format),
	  NULL, "FMT", "%s (default text)", report_format_names },
	{ 'o', "output", OPT_STRING, offsetof(struct compare_args, output),
	  NULL, "FILE", OUTPUT_HELP, NULL },
	OPT_ROW_END,
};

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
		"given, runs from hosts\n"
		"that differ unless --allow-unlike is.  Interleaved runs "
		"compare each cell's\n"
		"paired slowdown against its run's baseline.\n\n");
	opts_help(f, compare_opts, 3, 22);
	fprintf(f,
		"\nexit status: 0 no significant change, 1 a significant "
		"change (beyond\n"
		"--threshold) or two runs of one config NOT consistent with a "
		"re-run\n"
		"(unless --exit-zero), 2 bad usage, bad input or another "
		"error\n");
}

/*
 * The comparison of the runs at PATHS into *BUF and what changed into
 * *VERDICT (compare.h compare_verdict_new()): 0, or the exit status.
 */
static int compare_render(const struct compare_args *a, char **paths,
			  size_t n, char **buf, size_t *len, char **verdict)
{
	FILE *mem = open_memstream(buf, len);
	int rc;

	*verdict = NULL;
	if (!mem) {
		err_errno("cannot allocate the comparison");
		return EXIT_USAGE;
	}
	rc = report_compare_write((const char *const *)paths, n, &a->o,
				  a->format, mem, verdict);
	if (fclose(mem) && !rc)
		rc = -EIO;
	return rc < 0 ? EXIT_USAGE : 0;
}

/* Whether PATH is a split fleet run's results (fleet.mode "split"). */
static bool split_run(const char *path)
{
	json_t *doc;
	bool split;

	if (results_doc_load(path, JSON_REJECT_DUPLICATES, &doc) < 0)
		return false;
	split = !strcmp(json_string_value(json_object_get(
			    json_object_get(doc, "fleet"), "mode")) ?: "",
			"split");
	json_decref(doc);
	return split;
}

/*
 * --by host of a fleet run (docs/fleet.md): its hosts' results, compared
 * as runs (the first host against each later one), in place of *PATHS.
 * 0, or the exit status.
 */
static int fleet_hosts(struct compare_args *a, char ***paths, size_t *n)
{
	char **hosts = NULL;
	size_t nh = 0;
	bool fleet = false;

	if (report_fleet_paths((*paths)[0], &hosts, &nh, &fleet) < 0) {
		strv_free(hosts, nh);
		return EXIT_USAGE;
	}
	if (!fleet && split_run((*paths)[0])) {
		strv_free(hosts, nh);
		err("'%s': a split fleet run: each of its cells ran on one "
		    "host, so there is nothing to compare by host within it "
		    "(to compare hosts, run the config with [fleet] mode = "
		    "each, or compare two runs: vmtax compare RUN_A RUN_B)",
		    (*paths)[0]);
		return EXIT_USAGE;
	}
	if (!fleet || nh < 2) {
		strv_free(hosts, nh);
		err("'%s': %s: --by host compares the hosts of a fleet run "
		    "(docs/fleet.md)",
		    (*paths)[0],
		    fleet ? "fewer than two of its hosts' results came back"
			  : "not a fleet run");
		return EXIT_USAGE;
	}
	strv_free(*paths, *n);
	*paths = hosts;
	*n = nh;
	a->o.by = NULL;
	a->o.allow_unlike = true; /* the hosts are what is compared */
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { .format = "text" };
	char **paths = NULL, *buf = NULL, *verdict = NULL;
	size_t len = 0, n = 0, i;
	int first, ret, rc;

	first = opts_parse(compare_opts, usage, &a, argc, argv);
	if (first < 0) {
		ret = opts_status(first);
		goto out;
	}
	if (a.output && output_check(a.output) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	n = argc - first;
	if (n < 1 || (!a.o.by && n < 2)) {
		ret = opts_usage_error(usage);
		goto out;
	}
	paths = xcalloc(n, sizeof(*paths));
	for (i = 0; i < n; i++)
		paths[i] = report_results_path_new(argv[first + i]);
	if (n == 1 && a.o.by && !strcmp(a.o.by, REPORT_FLEET_AXIS)) {
		ret = fleet_hosts(&a, &paths, &n);
		if (ret)
			goto out;
	}
	ret = compare_render(&a, paths, n, &buf, &len, &verdict);
	if (ret)
		goto out;
	if (a.output)
		rc = output_write(a.output, buf, len);
	else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
		rc = err_errno("cannot write the comparison");
	else
		rc = 0;
	ret = rc < 0 ? EXIT_USAGE : 0;
	if (!ret && verdict && !a.exit_zero) {
		fputs("vmtax: compare: ", stderr);
		untrusted_fputs(stderr, verdict); /* cell ids from the file */
		fputs(" (exit 1; --exit-zero: 0)\n", stderr);
		ret = 1;
	}
out:
	free(verdict);
	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
	free(a.pairs);
	free(a.bases);
	free(buf);
	return ret;
}
