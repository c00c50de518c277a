/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the run estimate (run-estimate.h) and this host's figures
 * (timings.h): places, the samples and starts of each cell as the engine
 * takes them (a table of configs), the seconds a table of plans with known
 * figures comes to, the line it is said in, the ETA, the figures a
 * results.json gives, and the figures file's rules (no symbolic link, root
 * only, its schema).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-dir.h"

#include "matrix.h"
#include "run-config.h"
#include "run-estimate.h"
#include "timings.h"
#include "util.h"

static char tmpdir[] = "/tmp/vmtax-test-run-estimate.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return config_dir_make(tmpdir, "wl",
			       "[workload]\nrun = true\nestimate = 2\n"
			       "[param.N]\ndefault = 1\n");
}

static int teardown(void **state)
{
	(void)state;
	return config_dir_remove(tmpdir);
}

/* TEXT's config and matrix (the test fails if either is refused). */
static void load(const char *text, struct run_config *c, struct matrix *m)
{
	char *p = xasprintf("%s/run.ini", tmpdir);
	char *full = xasprintf("%s[workload]\nname = wl\n", text);

	config_dir_put(tmpdir, "run.ini", full);
	assert_int_equal(run_config_load(p, NULL, 0, c), 0);
	assert_int_equal(matrix_expand(c, m), 0);
	free(full);
	free(p);
}

static void rules_of(const struct run_config *c, struct est_rules *ru)
{
	memset(ru, 0, sizeof(*ru));
	ru->interleaved = !strcmp(c->order, "interleaved");
	ru->repeat = c->repeat;
	ru->boots = c->boots;
	ru->warmup = c->warmup;
	ru->target = c->target > 0;
	ru->max_repeat = c->max_repeat;
	ru->plan_auto = c->plan_auto;
	ru->max_boots = c->max_boots;
}

static void test_places(void **state)
{
	enum est_place p;
	int i;

	(void)state;
	for (i = 0; i < EST_NPLACES; i++) {
		assert_int_equal(est_place_parse(est_place_name(i), &p), 0);
		assert_int_equal(p, i);
	}
	assert_int_equal(est_place_parse("guest", &p), -EINVAL);
	assert_int_equal(est_place_of(false, false, true), EST_BARE);
	assert_int_equal(est_place_of(false, true, false), EST_GUEST_KVM);
	assert_int_equal(est_place_of(false, true, true), EST_GUEST_TCG);
	assert_int_equal(est_place_of(true, false, true), EST_LAB_BARE);
	assert_int_equal(est_place_of(true, true, false), EST_LAB_GUEST);
	/* TCG costs more than a KVM guest, which costs more than none */
	/* the workload's TCG factor, else the assumed one */
	assert_float_equal(est_place_factor(EST_GUEST_TCG, 0), EST_ASSUMED_TCG,
			   1e-9);
	assert_float_equal(est_place_factor(EST_GUEST_TCG, 2), 2, 1e-9);
	assert_float_equal(est_place_factor(EST_LAB_BARE, 2), 2, 1e-9);
	assert_float_equal(est_place_factor(EST_LAB_GUEST, 2), 2.5, 1e-9);
	assert_float_equal(est_place_factor(EST_BARE, 2), 1, 1e-9);
	assert_true(est_place_factor(EST_GUEST_KVM, 2) >
		    est_place_factor(EST_BARE, 2));
	assert_true(est_assumed_boot_s("debian", EST_GUEST_KVM) >
		    est_assumed_boot_s("tiny", EST_GUEST_KVM));
}

/*
 * Each config: the samples and starts of its guest cells and of its
 * bare-metal cells, summed, first pass and most.
 */
static void test_count(void **state)
{
	static const struct {
		const char *name, *text;
		long gs, gst, bs, bst; /* guest samples, starts; bare ... */
		long gs_hi, gst_hi, bs_hi, bst_hi;
	} rows[] = {
	    /* demo.ini: interleaved, 4 boots of 1 sample; bare-metal THP
	     * always joins the always group, never both groups */
	    {"demo",
	     "[run]\nrepeat = 4\nboots = 4\nwarmup = 1\n"
	     "[matrix]\nwhere = bare-metal, guest\nhost_thp = always, never\n"
	     "guest_thp = always, never\n",
	     16, 16, 12, 3, 16, 16, 12, 3},
	    /* order = cells, one guest each, its samples in 2 boots */
	    {"cells boots",
	     "[run]\norder = cells\nrepeat = 5\nboots = 2\n"
	     "[matrix]\nwhere = bare-metal, guest\nhost_thp = always\n"
	     "guest_thp = always, never\n",
	     10, 4, 5, 1, 10, 4, 5, 1},
	    /* order = cells, boots auto (1): one guest per cell */
	    {"cells one boot",
	     "[run]\norder = cells\nrepeat = 3\n"
	     "[matrix]\nwhere = guest\nhost_thp = always, never\n"
	     "guest_thp = never\n",
	     6, 2, 0, 0, 6, 2, 0, 0},
	    /* bare metal only: a group of its own */
	    {"bare",
	     "[run]\nrepeat = 3\n"
	     "[matrix]\nwhere = bare-metal\nhost_thp = always, never\n",
	     0, 0, 6, 2, 0, 0, 6, 2},
	    /* a target: up to max_repeat samples; order = cells restarts a
	     * cell each round (at most doubling: 2, 4, 8: 3 rounds) */
	    {"target",
	     "[run]\norder = cells\nrepeat = 2\ntarget = 5%\n"
	     "max_repeat = 8\n"
	     "[matrix]\nwhere = bare-metal, guest\nhost_thp = always\n"
	     "guest_thp = always\n",
	     2, 1, 2, 1, 8, 3, 8, 3},
	    /* plan = auto: the sizing pass (4 samples over 2 boots), then up
	     * to max_boots boots */
	    {"plan auto",
	     "[run]\nrepeat = 2\nplan = auto\nmax_boots = 6\n"
	     "max_repeat = 20\n"
	     "[matrix]\nwhere = guest\nhost_thp = always\n"
	     "guest_thp = always, never\n",
	     8, 4, 0, 0, 48, 12, 0, 0},
	};
	size_t i;
	int ci;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct run_config c;
		struct matrix m;
		struct est_rules ru;
		struct est_count *k;
		bool *guest;
		long gs = 0, gst = 0, bs = 0, bst = 0;
		long gsh = 0, gsth = 0, bsh = 0, bsth = 0;

		load(rows[i].text, &c, &m);
		rules_of(&c, &ru);
		guest = xcalloc(m.ncells, sizeof(*guest));
		k = xcalloc(m.ncells, sizeof(*k));
		for (ci = 0; ci < (int)m.ncells; ci++)
			guest[ci] = m.cells[ci].where == WHERE_GUEST;
		est_count_cells(&ru, m.cells, (int)m.ncells, guest, k);
		for (ci = 0; ci < (int)m.ncells; ci++) {
			*(guest[ci] ? &gs : &bs) += k[ci].samples;
			*(guest[ci] ? &gst : &bst) += k[ci].starts;
			*(guest[ci] ? &gsh : &bsh) += k[ci].samples_hi;
			*(guest[ci] ? &gsth : &bsth) += k[ci].starts_hi;
		}
		if (gs != rows[i].gs || gst != rows[i].gst ||
		    bs != rows[i].bs || bst != rows[i].bst ||
		    gsh != rows[i].gs_hi || gsth != rows[i].gst_hi ||
		    bsh != rows[i].bs_hi || bsth != rows[i].bst_hi)
			fail_msg("%s: guest %ld/%ld bare %ld/%ld, most guest "
				 "%ld/%ld bare %ld/%ld",
				 rows[i].name, gs, gst, bs, bst, gsh, gsth, bsh,
				 bsth);
		free(guest);
		free(k);
		matrix_release(&m);
		run_config_release(&c);
	}
}

static struct est_figure fig(double s, enum est_source src)
{
	struct est_figure f;

	memset(&f, 0, sizeof(f));
	f.s = s;
	f.src = src;
	snprintf(f.date, sizeof(f.date), "2026-12-05");
	snprintf(f.how, sizeof(f.how), "assumed");
	return f;
}

/* A plan of NB bare-metal and NG guest cells, each of S samples and T
 * starts, at the figures given. */
static void plan(struct est_input *in, struct est_cell *cells, int nb, int ng,
		 long s, long t, double sample_b, double sample_g, double boot,
		 double rest, long warmup)
{
	int i;

	memset(in, 0, sizeof(*in));
	in->cells = cells;
	in->ncells = nb + ng;
	in->warmup = warmup;
	in->rest = fig(rest, EST_MEASURED);
	for (i = 0; i < nb + ng; i++) {
		struct est_cell *c = &cells[i];

		memset(c, 0, sizeof(*c));
		c->guest = i >= nb;
		c->count.samples = c->count.samples_hi = s;
		c->count.starts = c->count.starts_hi = t;
		c->sample = fig(c->guest ? sample_g : sample_b, EST_MEASURED);
		c->boot = fig(boot, EST_MEASURED);
		snprintf(c->sample_what, sizeof(c->sample_what), "wl, %s",
			 c->guest ? "guest-tcg" : "bare-metal");
		snprintf(c->boot_what, sizeof(c->boot_what), "tiny, guest-tcg");
	}
}

/* Known figures -> the seconds the model gives. */
static void test_total(void **state)
{
	static const struct {
		int nb, ng;
		long s, t, warmup;
		double sb, sg, boot, rest, lab, image, want;
	} rows[] = {
	    /* one bare-metal cell: 3 x 2 s, one start of 1 s */
	    {1, 0, 3, 1, 0, 2, 0, 0, 1, 0, 0, 7},
	    /* warm-up: one run per start at the sample's cost */
	    {1, 0, 3, 1, 1, 2, 0, 0, 1, 0, 0, 9},
	    /* guests: 2 cells x (4 x 10 s + 4 boots x (5 + 10 + 1)) */
	    {0, 2, 4, 4, 1, 0, 10, 5, 1, 0, 0, 2 * (40 + 4 * 16)},
	    /* both, a lab start and an image */
	    {1, 1, 2, 2, 0, 1, 3, 4, 0.5, 10, 40,
	     (2 * 1 + 2 * 0.5) + (2 * 3 + 2 * 4.5) + 10 + 40},
	};
	struct est_cell cells[8];
	struct est_input in;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		plan(&in, cells, rows[i].nb, rows[i].ng, rows[i].s, rows[i].t,
		     rows[i].sb, rows[i].sg, rows[i].boot, rows[i].rest,
		     rows[i].warmup);
		if (rows[i].lab > 0) {
			in.lab = true;
			in.lab_start = fig(rows[i].lab, EST_ASSUMED);
		}
		if (rows[i].image > 0) {
			in.nimages = 1;
			in.image = fig(rows[i].image, EST_ASSUMED);
		}
		assert_float_equal(est_total(&in, false), rows[i].want, 1e-9);
		assert_float_equal(est_total(&in, true), rows[i].want, 1e-9);
	}
	/* the most: samples_hi and starts_hi */
	plan(&in, cells, 1, 0, 2, 1, 3, 0, 0, 1, 0);
	cells[0].count.samples_hi = 10;
	cells[0].count.starts_hi = 5;
	assert_float_equal(est_total(&in, false), 2 * 3 + 1, 1e-9);
	assert_float_equal(est_total(&in, true), 10 * 3 + 5, 1e-9);
}

static void test_duration(void **state)
{
	static const struct {
		double s;
		const char *want;
	} rows[] = {
	    {0, "0 s"},	       {45.4, "45 s"},	    {150, "2.5 min"},
	    {1380, "23 min"},  {7500, "2 h 05 min"}, {-3, "0 s"},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		est_duration(rows[i].s, buf, sizeof(buf));
		assert_string_equal(buf, rows[i].want);
	}
}

/* The line says each term with its count, figure and source. */
static void test_format(void **state)
{
	struct est_cell cells[4];
	struct est_input in;
	char buf[2048];

	(void)state;
	plan(&in, cells, 2, 2, 4, 2, 1.5, 12, 6, 2, 1);
	cells[0].sample = fig(1.5, EST_DECLARED);
	snprintf(cells[0].sample.how, sizeof(cells[0].sample.how),
		 "its estimate");
	in.lab = true;
	in.lab_start = fig(10, EST_ASSUMED);
	snprintf(in.lab_what, sizeof(in.lab_what), "restored");
	est_format(&in, buf, sizeof(buf));
	/* 2 x 4 x 1.5 + 2 x 4 x 12 + 2 x 2 x (1.5 + 2) + 2 x 2 x (6 + 12 + 2)
	 * + 10 = 12 + 96 + 14 + 80 + 10 = 212 s; the most, 36 more samples
	 * of 12 s: 644 s */
	assert_non_null(strstr(buf, "estimate: 3.5 min (4 cells; "));
	assert_non_null(strstr(buf, "samples 8 x 1.5 s (wl, bare-metal, "
				    "declared: its estimate), 8 x 12.0 s "
				    "(wl, guest-tcg, measured here "
				    "2026-12-05)"));
	assert_non_null(strstr(buf, "; boots 4 x 6.0 s (tiny, guest-tcg, "
				    "measured here 2026-12-05)"));
	assert_non_null(strstr(buf, "; 8 warm-up runs"));
	assert_non_null(strstr(buf, "; 8 starts x 2.0 s of setup and the rest"));
	assert_non_null(
	    strstr(buf, "; lab start 10 s (restored, not measured here: "
			"assumed)"));
	assert_null(strstr(buf, "up to"));
	cells[3].count.samples_hi = 40;
	snprintf(in.range_why, sizeof(in.range_why), "a target");
	est_format(&in, buf, sizeof(buf));
	assert_non_null(strstr(buf, "); up to 11 min: a target"));
}

/* The ETA: the model over what is left, scaled by the pace so far. */
static void test_eta(void **state)
{
	struct est_cell cells[2];
	struct est_input in;
	struct est_now now[2];
	double total;

	(void)state;
	/* a guest cell: 4 samples x 10 s, 2 boots x (5 + 0 + 1) s = 52 s */
	plan(&in, cells, 0, 1, 4, 2, 0, 10, 5, 1, 0);
	total = est_total(&in, false);
	assert_float_equal(total, 52, 1e-9);
	memset(now, 0, sizeof(now));
	now[0].pending = true;
	now[0].samples_left = 4;
	/* nothing done: the whole estimate */
	assert_float_equal(est_eta(&in, now, 0), 52, 1e-9);
	/* a guest booted, no sample yet: its start is still ahead, 3 s of it
	 * gone */
	now[0].boots_done = 1;
	assert_float_equal(est_eta(&in, now, 3), 49, 1e-9);
	/* half done (a boot and 2 samples: 26 s) at the model's pace */
	now[0].samples_done = 2;
	now[0].samples_left = 2;
	now[0].boots_done = 1;
	assert_float_equal(est_eta(&in, now, 26), 26, 1e-9);
	/* the same, twice as slow: (52 + 5.2) / (26 + 5.2) x 26 */
	assert_float_equal(est_eta(&in, now, 52), 26 * 57.2 / 31.2, 1e-9);
	/* the boots count: both made, one sample left */
	now[0].samples_done = 3;
	now[0].samples_left = 1;
	now[0].boots_done = 2;
	assert_float_equal(est_eta(&in, now, 42), 10, 1e-9);
	/* a cell that failed leaves nothing */
	now[0].pending = false;
	assert_float_equal(est_eta(&in, now, 42), 0, 1e-9);
}

/* A declared estimate over the parameters; each bad one with its reason. */
static void test_declared(void **state)
{
	const char *names[] = {"SIZE_MIB", "READS", "MODE", "MEM"};
	const char *values[] = {"1024", "4000000", "fast", "1G"};
	static const struct {
		const char *expr;
		double want;
		bool params;
		const char *why; /* NULL: reads */
	} rows[] = {
	    {"2", 2, false, NULL},
	    {" 0.5 ", 0.5, false, NULL},
	    {"0.0034 * SIZE_MIB + 0.00000046 * READS", 0.0034 * 1024 + 1.84,
	     true, NULL},
	    {"1 + SIZE_MIB * 0.001", 1 + 1.024, true, NULL},
	    {"READS", 4000000, true, NULL},
	    {"1e-9 * MEM", 1.073741824, true, NULL},
	    {"2 * SIZE", 0, false, "'SIZE' is not a parameter of the workload"},
	    {"2 * MODE", 0, false, "parameter MODE = 'fast' is not a number"},
	    {"", 0, false,
	     "'' is not seconds as a sum of terms, each a number or a number "
	     "* a PARAMETER"},
	    {"2 +", 0, false,
	     "'2 +' is not seconds as a sum of terms, each a number or a "
	     "number * a PARAMETER"},
	    {"2 * 3", 0, false,
	     "'2 * 3' is not seconds as a sum of terms, each a number or a "
	     "number * a PARAMETER"},
	    {"SIZE_MIB * READS", 0, false,
	     "'SIZE_MIB * READS' is not seconds as a sum of terms, each a "
	     "number or a number * a PARAMETER"},
	    {"2 - 1", 0, false,
	     "'2 - 1' is not seconds as a sum of terms, each a number or a "
	     "number * a PARAMETER"},
	    {"size_mib", 0, false,
	     "'size_mib' is not seconds as a sum of terms, each a number or a "
	     "number * a PARAMETER"},
	};
	char why[256];
	double x;
	bool named;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		int ret = est_declared_eval(rows[i].expr, names, values, 4, &x,
					    &named, why, sizeof(why));

		if (!rows[i].why) {
			if (ret != 0)
				fail_msg("'%s': %s", rows[i].expr, why);
			assert_float_equal(x, rows[i].want, 1e-9);
			assert_int_equal(named, rows[i].params);
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_string_equal(why, rows[i].why);
		}
	}
}

static void test_params_key(void **state)
{
	const char *n1[] = {"A", "B"}, *v1[] = {"1", "2"};
	const char *n2[] = {"B", "A"}, *v2[] = {"2", "1"};
	const char *v3[] = {"1", "3"};
	char k1[17], k2[17], k3[17];

	(void)state;
	timings_params_key(n1, v1, 2, k1);
	timings_params_key(n2, v2, 2, k2);
	timings_params_key(n1, v3, 2, k3);
	assert_int_equal(strlen(k1), 16);
	assert_string_equal(k1, k2); /* order does not matter */
	assert_string_not_equal(k1, k3);
}

/* A small results.json: the figures it gives. */
static const char results_doc[] =
    "{\"schema\": \"vmtax-results/1\","
    " \"run\": {\"status\": \"complete\", \"host\": {\"accel\": \"tcg\"},"
    "  \"config\": {\"run\": {\"warmup\": 1}}},"
    " \"workload\": {\"name\": \"wl\"},"
    " \"schedule\": {\"groups\": [{\"cells\": [\"g\", \"b\"]},"
    "  {\"cells\": [\"b\"]}]},"
    " \"cells\": ["
    "  {\"id\": \"b\", \"env\": {\"where\": \"bare-metal\", \"paging\": null,"
    "   \"params\": {\"N\": \"1\"}},"
    "   \"observed\": {},"
    "   \"samples\": [{\"status\": \"ok\", \"elapsed_s\": 1.0},"
    "    {\"status\": \"ok\", \"elapsed_s\": 3.0},"
    "    {\"status\": \"failed\", \"elapsed_s\": 4.0}]},"
    "  {\"id\": \"g\", \"env\": {\"where\": \"guest\", \"paging\": \"tcg\","
    "   \"image\": \"tiny\", \"params\": {\"N\": \"1\"}},"
    "   \"observed\": {\"boot_to_hello_s\": 6.0, \"guest_boots\": 2},"
    "   \"samples\": [{\"status\": \"ok\", \"elapsed_s\": 10.0, \"boot\": 0},"
    "    {\"status\": \"ok\", \"elapsed_s\": 20.0, \"boot\": 1}]}]}";

static void test_update(void **state)
{
	const char *names[] = {"N"}, *values[] = {"1"};
	json_t *doc = json_loads(results_doc, 0, NULL), *t = json_object();
	struct est_figure f;
	char pkey[17], *key, *rkey;
	size_t i;

	(void)state;
	assert_non_null(doc);
	timings_params_key(names, values, 1, pkey);
	/* wall 80 s: samples 38 s, boots 2 x 6 s, warm-ups 2 x 15 s (guest)
	 * + 2 x 2 s (bare metal, in 2 groups): 84 s: no rest (0) */
	assert_int_equal(timings_update(t, doc, 80, true, "2026-12-05"), 4);
	/* the rest per start: under the first cell's parameters */
	rkey = xasprintf("wl/%s", pkey);
	key = xasprintf("wl/%s/bare-metal", pkey);
	assert_true(timings_find(t, "sample", key, &f));
	assert_float_equal(f.s, 2.0, 1e-9); /* the ok samples' mean */
	assert_int_equal(f.src, EST_MEASURED);
	assert_string_equal(f.date, "2026-12-05");
	free(key);
	key = xasprintf("wl/%s/guest-tcg", pkey);
	assert_true(timings_find(t, "sample", key, &f));
	assert_float_equal(f.s, 15.0, 1e-9);
	free(key);
	assert_true(timings_find(t, "boot", "tiny/guest-tcg", &f));
	assert_float_equal(f.s, 6.0, 1e-9);
	assert_true(timings_find(t, "rest", rkey, &f));
	assert_float_equal(f.s, 0, 1e-9);
	/* wall 124 s: 40 s more over 4 starts (2 boots, 2 bare) */
	assert_int_equal(timings_update(t, doc, 124, true, "2026-12-06"), 4);
	assert_true(timings_find(t, "rest", rkey, &f));
	assert_float_equal(f.s, 10.0, 1e-9);
	assert_string_equal(f.date, "2026-12-06");
	/* a resumed run: no rest from its wall */
	json_object_del(t, "rest");
	assert_int_equal(timings_update(t, doc, 124, false, "2026-12-06"), 3);
	assert_false(timings_find(t, "rest", rkey, &f));
	/* a lab booted again (it died or hung): its start, no rest */
	json_object_set_new(doc, "lab",
			    json_pack("{s:f, s:b, s:i}", "ready_s", 15.0,
				      "restored", 0, "boots", 2));
	assert_int_equal(timings_update(t, doc, 124, true, "2026-12-06"), 4);
	assert_false(timings_find(t, "rest", rkey, &f));
	assert_true(timings_find(t, "lab", "booted", &f));
	assert_float_equal(f.s, 15.0, 1e-9);
	/* one lab boot: its rest counts the lab's start out */
	json_object_set_new(json_object_get(doc, "lab"), "boots",
			    json_integer(1));
	assert_int_equal(timings_update(t, doc, 139, true, "2026-12-06"), 5);
	assert_true(timings_find(t, "rest", rkey, &f));
	assert_float_equal(f.s, 10.0, 1e-9);
	json_object_del(doc, "lab");
	/* guests of a remote libvirt are not this host's */
	json_object_set_new(json_object_get(doc, "run"), "remote_libvirt",
			    json_object());
	assert_int_equal(timings_update(t, doc, 124, true, "2026-12-06"), 0);
	/* a section keeps TIMINGS_KEYS_MAX figures, the oldest dropped */
	json_object_del(json_object_get(doc, "run"), "remote_libvirt");
	for (i = 0; i < TIMINGS_KEYS_MAX + 5; i++) {
		key = xasprintf("old/%zu/bare-metal", i);
		json_object_set_new(
		    json_object_get(t, "sample"), key,
		    json_pack("{s:f, s:i, s:s}", "s", 1.0, "n", 1, "date",
			      i == 7 ? "2026-01-01" : "2026-06-01"));
		free(key);
	}
	assert_int_equal(timings_update(t, doc, 124, true, "2026-12-07"), 4);
	assert_int_equal(json_object_size(json_object_get(t, "sample")),
			 TIMINGS_KEYS_MAX);
	assert_false(timings_find(t, "sample", "old/7/bare-metal", &f));
	key = xasprintf("wl/%s/guest-tcg", pkey);
	assert_true(timings_find(t, "sample", key, &f));
	assert_string_equal(f.date, "2026-12-07");
	free(key);
	free(rkey);
	json_decref(doc);
	json_decref(t);
}

/* The file: saved and read back; a symlink, a file of another owner,
 * another schema refused with the reason. */
static void test_file(void **state)
{
	char dir[] = "/tmp/vmtax-test-timings.XXXXXX", why[256];
	json_t *t = json_pack("{s:s, s:{s:{s:f, s:i, s:s}}}", "schema",
			      TIMINGS_SCHEMA, "boot", "tiny/guest-kvm", "s",
			      2.5, "n", 1, "date", "2026-12-05");
	json_t *got = NULL;
	struct est_figure f;
	char *path, *other;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/%s", dir, TIMINGS_FILE);
	other = xasprintf("%s/other.json", dir);
	/* none yet: an empty object, no error */
	assert_int_equal(timings_load(dir, &got, why, sizeof(why)), 0);
	assert_int_equal(json_object_size(got), 0);
	json_decref(got);
	if (geteuid() != 0) {
		/* the file must be root's: nothing more to check here */
		skip();
	}
	assert_int_equal(timings_save(dir, t), 0);
	assert_int_equal(timings_load(dir, &got, why, sizeof(why)), 0);
	assert_true(timings_find(got, "boot", "tiny/guest-kvm", &f));
	assert_float_equal(f.s, 2.5, 1e-9);
	json_decref(got);
	/* writable by others */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(timings_load(dir, &got, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "writable by others (mode 0666)");
	json_decref(got);
	/* another owner */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chown(path, 1, 1), 0);
	assert_int_equal(timings_load(dir, &got, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "owned by uid 1, not by root");
	json_decref(got);
	/* a symbolic link, even to a good file */
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(chown(other, 0, 0), 0);
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(timings_load(dir, &got, why, sizeof(why)), -ELOOP);
	assert_string_equal(why, "a symbolic link");
	assert_int_equal(json_object_size(got), 0);
	json_decref(got);
	/* another schema */
	assert_int_equal(unlink(path), 0);
	config_dir_put(dir, TIMINGS_FILE, "{\"schema\": \"other/1\"}");
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(timings_load(dir, &got, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a " TIMINGS_SCHEMA " object");
	json_decref(got);
	unlink(path);
	unlink(other);
	rmdir(dir);
	free(path);
	free(other);
	json_decref(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_places),   cmocka_unit_test(test_count),
	    cmocka_unit_test(test_total),    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_format),   cmocka_unit_test(test_eta),
	    cmocka_unit_test(test_declared),
	    cmocka_unit_test(test_params_key), cmocka_unit_test(test_update),
	    cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
