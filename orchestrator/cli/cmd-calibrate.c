/* SPDX-License-Identifier: MIT */
/*
 * vmtax calibrate CONFIG: an A/A run (reports/calibrate.h).  The config
 * runs once with [run] replicas = 2 and order = interleaved (every cell
 * twice, each copy with guests of its own, both in every round), the
 * result is split into DIR/a and DIR/b, two ordinary runs with reports of
 * their own, and each cell is judged: does the interval of A/B hold 1,
 * does each run's interval hold the other's estimate.  The table goes to
 * stdout and DIR/calibration.txt, the figures to DIR/calibration.json.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calibrate.h"
#include "cmd-opts.h"
#include "cmds.h"
#include "model.h"
#include "report.h"
#include "results-doc.h"
#include "util.h"

/* The command line, and the 'vmtax run' one it makes (argv of cmd_run). */
struct calibrate_args {
	const char *out;
	bool dry;
	char **rargv;
	int rargc;
};

static int take_set(void *args, char *arg)
{
	struct calibrate_args *a = args;

	a->rargv[a->rargc++] = "--set";
	a->rargv[a->rargc++] = arg;
	return 0;
}

static const struct opt calibrate_opts[] = {
	{ 'o', "out", OPT_STRING, offsetof(struct calibrate_args, out), NULL,
	  "DIR", "the run directory (required but with\n"
	  "--dry-run)",
	  NULL },
	{ 's', "set", OPT_CALLBACK, 0, take_set, "S.K=V",
	  "override a config key, as for vmtax run", NULL },
	{ 'n', "dry-run", OPT_FLAG, offsetof(struct calibrate_args, dry), NULL,
	  NULL,
	  "'vmtax run --dry-run' of the A/A run: check\n"
	  "CONFIG and this host, print the cells (each\n"
	  "twice) and the estimate, and stop: DIR (not\n"
	  "needed) is not made, nothing is changed",
	  NULL },
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax calibrate CONFIG --out DIR [--set SECTION.KEY=VALUE]...\n"
		"       vmtax calibrate CONFIG --dry-run [--set SECTION.KEY=VALUE]...\n"
		"\n"
		"An A/A run: runs CONFIG's matrix with every cell twice (run A and\n"
		"run B), both copies in the same interleaved rounds, each with fresh\n"
		"guests of its own, then says per cell whether the 95%% interval of\n"
		"A/B holds 1 and whether each run's slowdown interval holds the\n"
		"other's estimate, and gives a verdict: consistent with a re-run or\n"
		"not (docs/sampling.md, Calibration).\n"
		"DIR gets the combined run (results.json, logs/), a/ and b/ (each an\n"
		"ordinary run directory for vmtax report and compare), and\n"
		"calibration.txt and calibration.json.\n"
		"\n");
	opts_help(f, calibrate_opts, 2, 23);
	fprintf(f,
		"\n"
		"Exit status: 0 when the runs are consistent, or when no cell has a\n"
		"bounded A/B interval (cannot judge, as vmtax compare), 1 when they\n"
		"are NOT consistent or the run failed, 2 for bad usage; with\n"
		"--dry-run, 0 when the run could start, 2 when it could not (as\n"
		"'vmtax run --dry-run').\n");
}

/* Write replica REP of DIR/results.json to DIR/REP/ with its reports. */
static int split_one(const char *dir, json_t *doc, const char *rep)
{
	char why[512], *sub = xasprintf("%s/%s", dir, rep);
	char *path = xasprintf("%s/results.json", sub), *text = NULL;
	json_t *half = calibrate_split(doc, rep, why, sizeof(why));
	int ret = -EINVAL;

	if (!half) {
		err("%s: %s", dir, why);
		goto out;
	}
	if (mkdir(sub, 0755) < 0 && errno != EEXIST) {
		ret = err_errno("cannot create '%s'", sub);
		goto out;
	}
	text = json_dumps(half, JSON_INDENT(2));
	if (!text || write_file_atomic(path, text, strlen(text)) < 0)
		goto out;
	report_write_rundir(sub, path);
	ret = 0;
out:
	free(text);
	json_decref(half);
	free(path);
	free(sub);
	return ret;
}

static int judge(const char *dir)
{
	char *p_aa = xasprintf("%s/results.json", dir);
	char *p_a = xasprintf("%s/a/results.json", dir);
	char *p_b = xasprintf("%s/b/results.json", dir);
	char *p_txt = xasprintf("%s/calibration.txt", dir);
	char *p_json = xasprintf("%s/calibration.json", dir), *text = NULL;
	struct report *aa = NULL, *a = NULL, *b = NULL;
	struct calib c = { 0 };
	json_t *j = NULL;
	FILE *f = NULL;
	int ret = -1;

	if (report_load(p_aa, &aa) < 0 || report_load(p_a, &a) < 0 ||
	    report_load(p_b, &b) < 0 || calibrate_judge(aa, a, b, &c) < 0)
		goto out;
	calibrate_print(&c, stdout);
	f = fopen(p_txt, "we");
	if (f) {
		calibrate_print(&c, f);
		fclose(f);
	}
	j = calibrate_json(&c);
	text = json_dumps(j, JSON_INDENT(2));
	if (text)
		write_file_atomic(p_json, text, strlen(text));
	ret = calibrate_exit_status(&c);
out:
	free(text);
	json_decref(j);
	calibrate_release(&c);
	report_free(aa);
	report_free(a);
	report_free(b);
	free(p_aa);
	free(p_a);
	free(p_b);
	free(p_txt);
	free(p_json);
	return ret;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_args a = { 0 };
	char *path = NULL;
	int first, ret = EXIT_USAGE, i;
	json_t *doc = NULL;

	a.rargv = xcalloc((size_t)argc * 2 + 8, sizeof(*a.rargv));
	a.rargv[a.rargc++] = "run";
	first = opts_parse(calibrate_opts, usage, &a, argc, argv);
	if (first < 0) {
		ret = opts_status(first);
		goto out;
	}
	if (first != argc - 1 || (!a.out && !a.dry)) {
		ret = opts_usage_error(usage);
		goto out;
	}
	/* The replicas last, so that no --set undoes them. */
	a.rargv[a.rargc++] = argv[first];
	if (a.dry) {
		a.rargv[a.rargc++] = "--dry-run";
	} else {
		a.rargv[a.rargc++] = "--out";
		a.rargv[a.rargc++] = (char *)a.out;
	}
	a.rargv[a.rargc++] = "--set";
	a.rargv[a.rargc++] = "run.replicas=2";
	a.rargv[a.rargc++] = "--set";
	a.rargv[a.rargc++] = "run.order=interleaved";
	ret = cmd_run(a.rargc, a.rargv);
	if (ret == EXIT_USAGE || a.dry)
		goto out;
	path = xasprintf("%s/results.json", a.out);
	if (results_doc_load(path, 0, &doc) < 0) {
		ret = 1;
		goto out;
	}
	if (split_one(a.out, doc, "a") < 0 || split_one(a.out, doc, "b") < 0) {
		ret = 1;
		goto out;
	}
	i = judge(a.out);
	ret = ret ? ret : (i < 0 ? 1 : i);
out:
	json_decref(doc);
	free(path);
	free(a.rargv);
	return ret;
}
