/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the effect compare (reports/compare.c, compare.h
 * "Effects", "Pairs", "Baselines"): each side is its cell's own vs_base,
 * the difference in points and the ratio, baselines at 0 by definition,
 * explicit pairs and the cells they take, a run's baseline moved by
 * report_set_baseline(), the note when the baselines are not in one row,
 * the refusals, and the parsing of --pair and --baseline.  Each test
 * writes small results.json files to temporary files and loads them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <errno.h>

#include "compare.h"
#include "model.h"

struct tcell {
	const char *id, *host_thp; /* bare metal */
	double v[3];		   /* NaN: no such sample */
	const char *status;	   /* NULL: "ok" */
};

/* Load a bare-metal run of workload WL (METRIC, BETTER) with CELLS. */
static struct report *load_run(const char *wl, const char *better,
			       const char *baseline, const struct tcell *cells,
			       size_t n)
{
	char path[] = "/tmp/vmtax-test-compare.XXXXXX";
	struct report *r = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	size_t i, j;

	assert_non_null(f);
	fprintf(f,
		"{\"schema\": \"vmtax-results/1\",\n"
		" \"run\": {\"name\": \"%s\", \"status\": \"complete\", "
		"\"host\": {}},\n"
		" \"workload\": {\"name\": \"%s\", \"metric\": \"regex\", "
		"\"unit\": \"u-%s\", \"better\": \"%s\"},\n"
		" \"baseline\": \"%s\",\n \"cells\": [\n",
		wl, wl, wl, better, baseline);
	for (i = 0; i < n; i++) {
		const char *st = cells[i].status ? cells[i].status : "ok";

		fprintf(f,
			"%s{\"id\": \"%s\", \"status\": \"%s\", \"reason\": "
			"%s, \"observed\": {}, \"env\": {\"where\": "
			"\"bare-metal\", \"host_thp\": \"%s\", \"guest_thp\": "
			"null, \"paging\": null}, \"samples\": [",
			i ? ",\n" : "", cells[i].id, st,
			strcmp(st, "ok") ? "\"it broke\"" : "null",
			cells[i].host_thp);
		for (j = 0; j < 3 && !isnan(cells[i].v[j]); j++)
			fprintf(f,
				"%s{\"index\": %zu, \"status\": \"%s\", "
				"\"metric\": %.17g, \"elapsed_s\": 1}",
				j ? ", " : "", j, st, cells[i].v[j]);
		fprintf(f, "]}");
	}
	fprintf(f, "]}\n");
	fclose(f);
	assert_int_equal(report_load(path, &r), 0);
	unlink(path);
	return r;
}

/* Seed-like: one sample each, higher is better, baseline "never". */
static const struct tcell seed[] = {
    {"bare-metal/host-thp=never", "never", {1, NAN, NAN}, NULL},
    {"bare-metal/host-thp=always", "always", {1.1, NAN, NAN}, NULL},
};
/* Run-like: three samples, lower is better, baseline "never". */
static const struct tcell run[] = {
    {"bare-metal/host-thp=always", "always", {8, 8.2, 8.4}, NULL},
    {"bare-metal/host-thp=never", "never", {4, 4.1, 4.2}, NULL},
    {"bare-metal/host-thp=madvise", "madvise", {5, 5, 5.1}, NULL},
};

static const struct compare_row *row_of(const struct compare *c,
					const char *ref_id, const char *id)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct compare_row *r = &c->rows[i];

		if ((ref_id ? r->ref && !strcmp(r->ref->id, ref_id)
			    : !r->ref) &&
		    (id ? r->cell && !strcmp(r->cell->id, id) : !r->cell))
			return r;
	}
	fail_msg("no row %s / %s", ref_id ? ref_id : "-", id ? id : "-");
	return NULL;
}

static void test_effect_rows(void **state)
{
	struct report *runs[2];
	struct compare_opts o = {.effect = true};
	struct compare *c = NULL;
	const struct compare_row *row;
	double sa, sb;

	(void)state;
	runs[0] =
	    load_run("seed", "higher", "bare-metal/host-thp=never", seed, 2);
	runs[1] =
	    load_run("other", "lower", "bare-metal/host-thp=never", run, 3);
	/* Without --effect the workloads are refused. */
	assert_int_equal(compare_new(runs, 2, NULL, &c), -EINVAL);
	assert_null(c);
	assert_int_equal(compare_new(runs, 2, &o, &c), 0);
	assert_true(c->effect);
	assert_int_equal(c->nnotes, 0);
	assert_int_equal(c->ngeo, 0);
	assert_int_equal(c->nrows, 3);

	row = row_of(c, "bare-metal/host-thp=always",
		     "bare-metal/host-thp=always");
	assert_null(row->note);
	assert_false(row->d.valid); /* no cross-run delta in this mode */
	/* each side is the slowdown the single-run report prints */
	sa = row->ref->vs_base.delta;
	sb = row->cell->vs_base.delta;
	assert_float_equal(sa, 1 / 1.1 - 1, 1e-12); /* higher is better */
	assert_float_equal(sb, 8.2 / 4.1 - 1, 1e-12);
	assert_false(row->ref->vs_base.bounded); /* one sample: unbounded */
	assert_true(row->cell->vs_base.bounded);
	assert_true(row->effect.valid);
	assert_false(row->effect.ref_base || row->effect.base);
	assert_float_equal(row->effect.points, sb - sa, 1e-12);
	assert_float_equal(row->effect.ratio, (1 + sb) / (1 + sa) - 1, 1e-12);
	assert_null(row->effect.why);

	/* both baselines: 0 by definition, no number made up */
	row =
	    row_of(c, "bare-metal/host-thp=never", "bare-metal/host-thp=never");
	assert_true(row->effect.ref_base && row->effect.base);
	assert_true(row->effect.valid);
	assert_float_equal(row->effect.points, 0, 0);
	assert_false(row->ref->vs_base.valid);

	/* a cell run A lacks: a note, as across runs */
	row = row_of(c, NULL, "bare-metal/host-thp=madvise");
	assert_string_equal(row->note, "no such cell in run A");
	compare_free(c);
	report_free(runs[0]);
	report_free(runs[1]);
}

static void test_effect_pairs(void **state)
{
	static const struct tcell split[] = {
	    {"bare-metal/host.split=3:1", "never", {100, NAN, NAN}, NULL},
	    {"bare-metal/host.split=4:4", "never", {90, NAN, NAN}, NULL},
	};
	static const struct compare_pair pairs[] = {
	    {"bare-metal/host.split=3:1", "bare-metal/host-thp=never"},
	    {"bare-metal/host.split=4:4", "bare-metal/host-thp=always"},
	};
	struct compare_opts o = {.effect = true, .pairs = pairs, .npairs = 2};
	struct report *runs[2];
	struct compare *c = NULL;
	const struct compare_row *row;

	(void)state;
	runs[0] =
	    load_run("hint", "higher", "bare-metal/host.split=3:1", split, 2);
	runs[1] =
	    load_run("other", "lower", "bare-metal/host-thp=never", run, 3);
	assert_int_equal(compare_new(runs, 2, &o, &c), 0);
	assert_int_equal(c->nnotes, 0); /* the baselines share a row */
	assert_int_equal(c->nrows, 3);
	row =
	    row_of(c, "bare-metal/host.split=3:1", "bare-metal/host-thp=never");
	assert_true(row->effect.ref_base && row->effect.base);
	row = row_of(c, "bare-metal/host.split=4:4",
		     "bare-metal/host-thp=always");
	assert_float_equal(row->effect.points,
			   (8.2 / 4.1 - 1) - (100.0 / 90 - 1), 1e-12);
	row_of(c, NULL, "bare-metal/host-thp=madvise");
	compare_free(c);

	/* a pair takes a cell from the alignment by id */
	o.npairs = 1;
	o.pairs = &(const struct compare_pair){"bare-metal/host-thp=never",
					       "bare-metal/host-thp=always"};
	report_free(runs[0]);
	runs[0] =
	    load_run("seed", "higher", "bare-metal/host-thp=never", seed, 2);
	assert_int_equal(compare_new(runs, 2, &o, &c), 0);
	row = row_of(c, "bare-metal/host-thp=always", NULL);
	assert_string_equal(row->note, "run B's cell "
				       "'bare-metal/host-thp=always' is paired "
				       "with 'bare-metal/host-thp=never'");
	row = row_of(c, NULL, "bare-metal/host-thp=never");
	assert_string_equal(row->note, "run A's cell "
				       "'bare-metal/host-thp=never' is paired "
				       "with 'bare-metal/host-thp=always'");
	/* A's baseline sits with B's "always", not B's baseline */
	assert_int_equal(c->nnotes, 1);
	assert_non_null(strstr(c->notes[0], "--baseline B="
					    "bare-metal/host-thp=always"));
	row = row_of(c, "bare-metal/host-thp=never",
		     "bare-metal/host-thp=always");
	assert_true(row->effect.ref_base);
	assert_false(row->effect.valid);
	assert_string_equal(row->effect.why,
			    "the baseline of run A only: the runs' slowdowns "
			    "here are against different cells");
	compare_free(c);
	report_free(runs[0]);
	report_free(runs[1]);
}

static void test_effect_baseline(void **state)
{
	static const struct compare_baseline moved = {
	    1, "bare-metal/host-thp=always"};
	struct compare_opts o = {.effect = true};
	struct report *runs[2];
	struct compare *c = NULL;
	const struct compare_row *row;

	(void)state;
	runs[0] =
	    load_run("seed", "higher", "bare-metal/host-thp=never", seed, 2);
	runs[1] =
	    load_run("other", "lower", "bare-metal/host-thp=madvise", run, 3);
	assert_int_equal(compare_new(runs, 2, &o, &c), 0);
	assert_int_equal(c->nnotes, 1);
	assert_non_null(strstr(c->notes[0],
			       "--baseline B=bare-metal/host-thp=never makes "
			       "it run B's baseline"));
	compare_free(c);

	/* the same slowdowns against another cell, by the model's code */
	o.baselines = &moved;
	o.nbaselines = 1;
	assert_int_equal(compare_new(runs, 2, &o, &c), 0);
	assert_string_equal(runs[1]->baseline_id, "bare-metal/host-thp=always");
	assert_string_equal(runs[1]->file_baseline_id,
			    "bare-metal/host-thp=madvise");
	row =
	    row_of(c, "bare-metal/host-thp=never", "bare-metal/host-thp=never");
	assert_float_equal(row->cell->vs_base.delta, 4.1 / 8.2 - 1, 1e-12);
	row = row_of(c, NULL, "bare-metal/host-thp=madvise");
	assert_false(row->cell->is_baseline);
	compare_free(c);
	report_free(runs[0]);
	report_free(runs[1]);
}

static void test_effect_refused(void **state)
{
	static const struct tcell broken[] = {
	    {"bare-metal/host-thp=never", "never", {NAN, NAN, NAN}, "skipped"},
	    {"bare-metal/host-thp=always", "always", {3, 3, 3}, NULL},
	};
	static const struct compare_pair bad[] = {
	    {"bare-metal/host-thp=never", "bare-metal/host-thp=nope"},
	    {"bare-metal/host-thp=nope", "bare-metal/host-thp=never"},
	};
	static const struct compare_pair twice[] = {
	    {"bare-metal/host-thp=never", "bare-metal/host-thp=never"},
	    {"bare-metal/host-thp=always", "bare-metal/host-thp=never"},
	};
	static const struct compare_baseline far = {2, "x"};
	struct report *runs[2];
	struct compare *c = NULL;
	struct compare_opts o = {.effect = true};
	size_t i;

	(void)state;
	runs[0] =
	    load_run("seed", "higher", "bare-metal/host-thp=never", seed, 2);
	runs[1] =
	    load_run("b", "lower", "bare-metal/host-thp=never", broken, 2);
	/* a baseline without ok samples: no slowdowns */
	assert_int_equal(compare_new(runs, 2, &o, &c), -EINVAL);
	report_free(runs[1]);
	runs[1] =
	    load_run("other", "lower", "bare-metal/host-thp=never", run, 3);
	for (i = 0; i < 2; i++) {
		o.pairs = &bad[i];
		o.npairs = 1;
		assert_int_equal(compare_new(runs, 2, &o, &c), -EINVAL);
	}
	o.pairs = twice;
	o.npairs = 2;
	assert_int_equal(compare_new(runs, 2, &o, &c), -EINVAL);
	o.npairs = 0;
	o.baselines = &far;
	o.nbaselines = 1;
	assert_int_equal(compare_new(runs, 2, &o, &c), -EINVAL);
	o.nbaselines = 0;
	o.by = "host-thp";
	assert_int_equal(compare_new(runs, 1, &o, &c), -EINVAL);
	/* --baseline without --effect */
	o = (struct compare_opts){.baselines = &far, .nbaselines = 1};
	assert_int_equal(compare_new(runs, 2, &o, &c), -EINVAL);
	assert_null(c);
	report_free(runs[0]);
	report_free(runs[1]);
}

static void test_parse(void **state)
{
	static const struct {
		const char *text, *ref_id, *id;
	} pairs[] = {
	    {"a/x=1:2,b/y=3", "a/x=1:2", "b/y=3"},
	    {"a", NULL, NULL},
	    {",b", NULL, NULL},
	    {"a,", NULL, NULL},
	    {"a,b,c", NULL, NULL},
	};
	static const struct {
		const char *text;
		int run;
		const char *id;
	} bases[] = {
	    {"B=bare-metal/host-thp=never", 1, "bare-metal/host-thp=never"},
	    {"A=x", 0, "x"},
	    {"b=x", -1, NULL},
	    {"B", -1, NULL},
	    {"B=", -1, NULL},
	    {"BB=x", -1, NULL},
	};
	/* --threshold: the fraction, or NAN for a refusal */
	static const struct {
		const char *text;
		double want;
	} thresholds[] = {
	    {"5", 0.05}, {"5%", 0.05}, {"0", 0}, {"2.5", 0.025},
	    {"-1", NAN}, {"5x", NAN},  {"", NAN}, {"%", NAN},
	    {"nan", NAN}, {"inf", NAN}, {"5%%", NAN},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char *t = strdup(pairs[i].text);
		struct compare_pair p;
		int ret = compare_parse_pair(t, &p);

		if (pairs[i].ref_id) {
			assert_int_equal(ret, 0);
			assert_string_equal(p.ref_id, pairs[i].ref_id);
			assert_string_equal(p.id, pairs[i].id);
		} else {
			assert_int_equal(ret, -EINVAL);
		}
		free(t);
	}
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct compare_baseline b;
		int ret = compare_parse_baseline(bases[i].text, &b);

		if (bases[i].id) {
			assert_int_equal(ret, 0);
			assert_int_equal(b.run, bases[i].run);
			assert_string_equal(b.id, bases[i].id);
		} else {
			assert_int_equal(ret, -EINVAL);
		}
	}
	for (i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++) {
		double f = -1;
		int ret = compare_parse_threshold(thresholds[i].text, &f);

		if (isnan(thresholds[i].want)) {
			assert_int_equal(ret, -EINVAL);
			assert_true(f == -1); /* untouched */
		} else {
			assert_int_equal(ret, 0);
			assert_true(fabs(f - thresholds[i].want) < 1e-12);
		}
	}
}

/* The verdict's rule for one row: valid, significant, beyond the threshold. */
static void test_row_changed(void **state)
{
	static const struct {
		bool valid, significant;
		double delta, threshold;
		bool want;
	} rows[] = {
	    {true, true, 0.027, 0, true},    /* any significant change */
	    {true, true, -0.07, 0.05, true}, /* a speed-up counts too */
	    {true, true, 0.033, 0.03, true},
	    {true, true, 0.027, 0.03, false}, /* within the threshold */
	    {true, true, 0.05, 0.05, false},  /* more than, not as much */
	    {true, false, 0.5, 0, false},     /* not significant */
	    {false, true, 0.5, 0, false},     /* no delta */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct compare_row row;

		memset(&row, 0, sizeof(row));
		row.d.valid = rows[i].valid;
		row.d.significant = rows[i].significant;
		row.d.delta = rows[i].delta;
		if (compare_row_changed(&row, rows[i].threshold) != rows[i].want)
			fail_msg("row %zu: want %d", i, rows[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_effect_rows),
	    cmocka_unit_test(test_effect_pairs),
	    cmocka_unit_test(test_effect_baseline),
	    cmocka_unit_test(test_effect_refused),
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_row_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
