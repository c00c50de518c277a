/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the report model (reports/model.c, axes.c, matrix.c):
 * labels, the matrix, counter states, derived counters, the direction of
 * the slowdown, the axes (read, derived, refused), --rows/--cols and the
 * scaling lines.  Each test writes a small results.json to a temporary file
 * and loads it.
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

#include "format.h"
#include "model.h"

static const char head[] =
    "{\"schema\": \"vmtax-results/1\",\n"
    " \"run\": {\"name\": \"t\", \"status\": \"complete\",\n"
    "   \"host\": {\"cpu_model\": \"%s\", \"accel\": \"kvm\"}},\n"
    " \"workload\": {\"name\": \"w\", \"metric\": \"%s\", \"unit\": "
    "\"%s\", \"better\": \"%s\"},\n"
    " \"baseline\": \"bare-metal/host-thp=always\",\n"
    " \"cells\": [\n";

/* A cell with three ok samples of METRIC +- 1%, COUNTERS verbatim. */
static void cell(FILE *f, const char *id, const char *where, const char *h,
		 const char *g, const char *paging, double metric,
		 const char *counters, bool last)
{
	int i;

	fprintf(f,
		"{\"id\": \"%s\", \"status\": \"ok\", \"reason\": null, "
		"\"observed\": {},\n \"env\": {\"where\": \"%s\", "
		"\"host_thp\": \"%s\", \"guest_thp\": %s%s%s, \"paging\": "
		"%s%s%s},\n \"samples\": [",
		id, where, h, g ? "\"" : "", g ? g : "null", g ? "\"" : "",
		paging ? "\"" : "", paging ? paging : "null",
		paging ? "\"" : "");
	for (i = 0; i < 3; i++)
		fprintf(f,
			"%s{\"index\": %d, \"status\": \"ok\", \"elapsed_s\": "
			"%g, \"user_s\": 1, \"sys_s\": 0.1, \"metric\": %g, "
			"\"counters\": {%s}}",
			i ? ", " : "", i, metric * (0.99 + 0.01 * i),
			metric * (0.99 + 0.01 * i), counters);
	fprintf(f, "]}%s\n", last ? "" : ",");
}

static struct report *load(const char *cpu, const char *metric,
			   const char *better, bool amd_shadow)
{
	char path[] = "/tmp/vmtax-test-report.XXXXXX";
	struct report *r = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fprintf(f, head, cpu, metric, !strcmp(metric, "elapsed") ? "s" : "MB/s",
		better);
	cell(f, "bare-metal/host-thp=always", "bare-metal", "always", NULL,
	     NULL, 10,
	     "\"cycles\": 1000, \"instructions\": 500, \"dTLB-loads\": 200, "
	     "\"dTLB-load-misses\": 2",
	     false);
	cell(f, "bare-metal/host-thp=never", "bare-metal", "never", NULL, NULL,
	     11, "\"cycles\": null, \"instructions\": 500", false);
	cell(f, "guest/paging=ept/host-thp=always/guest-thp=never", "guest",
	     "always", "never", "ept", 12, "", false);
	cell(f, "guest/paging=shadow/host-thp=always/guest-thp=never", "guest",
	     "always", "never", amd_shadow ? "shadow" : "tcg", 20, "", true);
	fprintf(f, "]}\n");
	fclose(f);
	assert_int_equal(report_load(path, &r), 0);
	unlink(path);
	return r;
}

static void test_labels(void **state)
{
	struct report *r = load("AMD EPYC 7302", "elapsed", "lower", true);

	(void)state;
	assert_string_equal(r->cells[0].label, "THP always host");
	assert_string_equal(r->cells[0].column, "bare metal");
	assert_string_equal(r->cells[2].label,
			    "THP never guest, EPT on + THP always host");
	/* Shadow paging on AMD is "NPT off". */
	assert_string_equal(r->cells[3].label,
			    "THP never guest, NPT off + THP always host");
	report_free(r);

	r = load("Intel(R) Xeon(R)", "elapsed", "lower", true);
	assert_string_equal(r->cells[3].column, "EPT off");
	report_free(r);

	r = load("Intel(R) Xeon(R)", "elapsed", "lower", false);
	assert_string_equal(r->cells[3].column, "TCG");
	report_free(r);
}

static void test_matrix(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);
	const struct report_matrix *m = &r->matrix;

	(void)state;
	/* Rows: (never guest, always host), (-, never host); columns:
	 * bare metal, EPT on, EPT off. */
	assert_int_equal(m->ncols, 3);
	assert_int_equal(m->nrows, 2);
	assert_string_equal(m->cols[0], "bare metal");
	assert_int_equal(m->nrow_axes, 2);
	assert_string_equal(r->axes[m->row_axes[0]].name, "guest-thp");
	assert_string_equal(m->row_val[0 * 2 + 0], "never");
	assert_string_equal(m->row_val[1 * 2 + 1], "never");
	assert_string_equal(m->row_val[1 * 2 + 0], "");
	assert_int_equal(m->slot[0 * 3 + 0], 0);
	assert_int_equal(m->slot[0 * 3 + 1], 2);
	assert_int_equal(m->slot[0 * 3 + 2], 3);
	assert_int_equal(m->slot[1 * 3 + 0], 1);
	assert_int_equal(m->slot[1 * 3 + 1], -1);
	report_free(r);
}

static void test_counters(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);
	const struct report_cell *b = &r->cells[0], *n = &r->cells[1];

	(void)state;
	/* IPC = 500/1000, dTLB miss rate = 2/200 */
	assert_true(b->ipc.valid);
	assert_true(fabs(b->ipc.value - 0.5) < 1e-12);
	assert_true(b->dtlb_miss_rate.valid);
	assert_true(fabs(b->dtlb_miss_rate.value - 0.01) < 1e-12);
	assert_int_equal(b->counters[RC_TASK_CLOCK].state, CS_NOT_COUNTED);
	/* null cycles: not supported, and no IPC rather than 0 */
	assert_int_equal(n->counters[RC_CYCLES].state, CS_NOT_SUPPORTED);
	assert_int_equal(n->counters[RC_INSTRUCTIONS].state, CS_OK);
	assert_false(n->ipc.valid);
	assert_false(n->dtlb_miss_rate.valid);
	report_free(r);
}

static void test_direction(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);
	char buf[FMT_BUF];

	(void)state;
	/* Lower is better: 11/10 - 1 = +10% (the samples are 0.99x, 1x,
	 * 1.01x of the nominal value on both sides, so the means are
	 * exactly nominal). */
	assert_true(r->cells[0].is_baseline);
	assert_false(r->cells[0].vs_base.valid);
	assert_true(fabs(r->cells[1].vs_base.delta - 0.1) < 1e-12);
	assert_string_equal(fmt_matrix_entry(buf, sizeof(buf), r, 1),
			    "10.00%*");
	assert_string_equal(fmt_matrix_entry(buf, sizeof(buf), r, 0),
			    "baseline");
	/* geomean of 1.1, 1.2, 2.0 = 2.64^(1/3) */
	assert_true(fabs(r->geomean_slowdown - (cbrt(2.64) - 1)) < 1e-12);
	report_free(r);

	/* Higher is better: 10/11 - 1 = -9.09% (faster). */
	r = load("Intel", "regex", "higher", true);
	assert_true(fabs(r->cells[1].vs_base.delta - (10.0 / 11 - 1)) < 1e-12);
	assert_true(r->cells[1].vs_base.lo < r->cells[1].vs_base.delta);
	assert_true(r->cells[1].vs_base.hi > r->cells[1].vs_base.delta);
	report_free(r);
}

/* Load TEXT as a results.json; *R is the report or NULL. */
static int load_text(const char *text, struct report **r)
{
	char path[] = "/tmp/vmtax-test-report.XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	ret = report_load(path, r);
	unlink(path);
	return ret;
}

static void test_derived_axes(void **state)
{
	struct report *r = load("Intel", "elapsed", "lower", true);

	(void)state;
	/* No "axes" in the file: where, paging (in the ids), host-thp,
	 * guest-thp; backing is in no id. */
	assert_true(r->axes_derived);
	assert_int_equal(r->naxes, 4);
	assert_string_equal(r->axes[0].name, "where");
	assert_string_equal(r->axes[1].name, "paging");
	assert_string_equal(r->axes[2].name, "host-thp");
	assert_string_equal(r->axes[3].name, "guest-thp");
	assert_false(r->axes[2].guest_only);
	assert_true(r->axes[3].guest_only);
	assert_int_equal(r->axes[2].nvalues, 2);
	assert_int_equal(r->axes[1].nvalues, 2); /* ept, shadow */
	assert_string_equal(r->axes[1].values[1], "shadow");
	assert_null(r->cells[0].axv[3]); /* bare metal has no guest THP */
	assert_string_equal(r->cells[2].axv[3], "never");
	assert_int_equal(report_find_axis(r, "vcpus"), -1);
	assert_int_equal(report_lookup_axis(r, "host_thp"), 2);
	assert_int_equal(r->nscaling, 0);
	report_free(r);
}

/* One bare-metal cell and three guests at 1, 2, 4 vcpus. */
static const char axes_doc[] =
    "{\"schema\": \"vmtax-results/1\", \"run\": {\"name\": \"a\"},\n"
    " \"workload\": {\"name\": \"w\", \"metric\": \"elapsed\", "
    "\"unit\": \"s\", \"better\": \"lower\", \"params\": {\"N\": \"1\"}},\n"
    " \"axes\": [{\"name\": \"where\", \"values\": [\"bare-metal\", "
    "\"guest\"], \"numeric\": false, \"applies\": \"all\"},\n"
    "  {\"name\": \"host-thp\", \"values\": [\"always\"], \"numeric\": "
    "false, \"applies\": \"all\"},\n"
    "  {\"name\": \"%s\", \"values\": [\"1\", \"2\", \"4\"], \"numeric\": "
    "true, \"numbers\": [1, 2, 4], \"applies\": \"guest\"}],\n"
    " \"baseline\": \"bare-metal/host-thp=always\",\n"
    " \"cells\": [\n"
    "  {\"id\": \"bare-metal/host-thp=always\", \"status\": \"ok\", "
    "\"env\": {\"where\": \"bare-metal\", \"host_thp\": \"always\"},\n"
    "   \"axes\": {\"where\": \"bare-metal\", \"host-thp\": \"always\"%s},\n"
    "   \"samples\": [{\"status\": \"ok\", \"metric\": 10}, "
    "{\"status\": \"ok\", \"metric\": 10.1}]},\n"
    "  {\"id\": \"guest/host-thp=always/vcpus=4\", \"status\": \"ok\", "
    "\"env\": {\"where\": \"guest\", \"host_thp\": \"always\", "
    "\"vcpus\": 4, \"host_knobs\": {\"k\": \"a\"}},\n"
    "   \"observed\": {\"guest_cpus\": %d, \"host_knobs\": {\"k\": \"%s\"}},\n"
    "   \"axes\": {\"where\": \"guest\", \"host-thp\": \"always\", "
    "\"vcpus\": \"%s\"},\n"
    "   \"samples\": [{\"status\": \"ok\", \"metric\": 11}, "
    "{\"status\": \"ok\", \"metric\": 11.1}]},\n"
    "  {\"id\": \"guest/host-thp=always/vcpus=1\", \"status\": \"ok\", "
    "\"env\": {\"where\": \"guest\", \"host_thp\": \"always\"},\n"
    "   \"axes\": {\"where\": \"guest\", \"host-thp\": \"always\", "
    "\"vcpus\": \"1\"},\n"
    "   \"samples\": [{\"status\": \"ok\", \"metric\": 30}, "
    "{\"status\": \"ok\", \"metric\": 30.3}]},\n"
    "  {\"id\": \"guest/host-thp=always/vcpus=2\", \"status\": \"failed\", "
    "\"env\": {\"where\": \"guest\", \"host_thp\": \"always\"},\n"
    "   \"axes\": {\"where\": \"guest\", \"host-thp\": \"always\", "
    "\"vcpus\": \"2\"},\n"
    "   \"samples\": []}]}\n";

/* The doc with axis NAME, EXTRA in the bare-metal cell's axes, what the
 * 4-vcpu guest saw, and its vcpus value. */
static int load_axes(const char *name, const char *extra, int cpus,
		     const char *vcpus, struct report **r)
{
	char buf[8192], out[8192], key[64], *p, *q = out;
	size_t n;

	snprintf(buf, sizeof(buf), axes_doc, name, extra, cpus, "a", vcpus);
	/* the cells' axes name the axis too */
	snprintf(key, sizeof(key), "\"%s\": \"", name);
	for (p = buf; *p;) {
		if (!strncmp(p, "\"vcpus\": \"", 10)) {
			n = strlen(key);
			memcpy(q, key, n);
			q += n;
			p += 10;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	return load_text(out, r);
}

static void test_axes_read(void **state)
{
	struct report *r = NULL;
	const struct report_scaling_line *l;

	(void)state;
	assert_int_equal(load_axes("vcpus", "", 4, "4", &r), 0);
	assert_false(r->axes_derived);
	assert_int_equal(r->naxes, 3);
	assert_true(r->axes[2].numeric);
	assert_true(r->axes[2].guest_only);
	assert_true(r->axes[2].numbers[2] == 4);
	assert_string_equal(r->cells[1].axv[2], "4");
	assert_null(r->cells[0].axv[2]);
	assert_string_equal(r->cells[1].label,
			    "THP default guest, guest + THP always host, "
			    "vcpus=4");
	assert_false(r->cells[1].mismatch);

	/* Default matrix: vcpus is folded into the rows, host-major. */
	assert_int_equal(r->matrix.nrow_axes, 2); /* host-thp, vcpus */
	assert_string_equal(r->axes[r->matrix.row_axes[1]].name, "vcpus");
	assert_int_equal(r->matrix.nrows, 3);
	assert_int_equal(r->matrix.ncols, 2);
	assert_string_equal(r->matrix.row_val[0 * 2 + 1], "1");
	assert_int_equal(r->matrix.slot[0 * 2 + 0], 0); /* bare metal: all */
	assert_int_equal(r->matrix.slot[2 * 2 + 0], 0);
	assert_int_equal(r->matrix.slot[0 * 2 + 1], 2); /* vcpus=1 */
	assert_int_equal(r->matrix.slot[2 * 2 + 1], 1); /* vcpus=4 */

	/* Scaling: one line (nothing else varies), by x. */
	assert_int_equal(r->nscaling, 1);
	assert_int_equal(r->scaling[0].nlines, 1);
	l = &r->scaling[0].lines[0];
	assert_string_equal(l->label, "all");
	assert_int_equal(l->npoints, 3);
	assert_true(l->points[0].x == 1 && l->points[0].cell == 2);
	assert_true(l->points[1].x == 2 && l->points[1].cell == 3);
	assert_true(l->points[2].x == 4 && l->points[2].cell == 1);
	assert_true(fabs(r->cells[2].vs_base.delta - 2) < 1e-9);

	/* --rows where --cols vcpus */
	assert_int_equal(report_set_matrix(r, "where", "vcpus"), 0);
	assert_int_equal(r->matrix.nrows, 2);
	assert_int_equal(r->matrix.ncols, 3);
	assert_string_equal(r->matrix.cols[0], "vcpus=1");
	assert_int_equal(r->matrix.slot[0 * 3 + 2], 0); /* bare metal */
	assert_int_equal(r->matrix.slot[1 * 3 + 2], 1);
	/* A bad name leaves the matrix as it was. */
	assert_int_equal(report_set_matrix(r, "colour", NULL), -EINVAL);
	assert_int_equal(report_set_matrix(r, "vcpus", "vcpus"), -EINVAL);
	assert_int_equal(r->matrix.ncols, 3);
	report_free(r);
}

static void test_axes_mismatch(void **state)
{
	struct report *r = NULL;
	char buf[8192];

	(void)state;
	assert_int_equal(load_axes("vcpus", "", 2, "4", &r), 0);
	assert_true(r->cells[1].mismatch);
	assert_string_equal(r->cells[1].mismatch_text,
			    "requested 4 vcpus, the guest saw 2");
	report_free(r);

	/* The 4-vcpu cell asked for host knob k=a. */
	snprintf(buf, sizeof(buf), axes_doc, "vcpus", "", 4, "b", "4");
	assert_int_equal(load_text(buf, &r), 0);
	assert_true(r->cells[1].mismatch);
	assert_string_equal(r->cells[1].mismatch_text,
			    "requested host knob 'k' = 'a', observed 'b'");
	assert_false(r->cells[2].mismatch);
	report_free(r);
}

static void test_axes_refused(void **state)
{
	struct report *r = NULL;

	(void)state;
	/* Each row of the table is one reason (t0410 checks the messages). */
	assert_int_equal(load_axes("colour", "", 4, "4", &r), -EINVAL);
	assert_null(r);
	assert_int_equal(load_axes("host-thp", "", 4, "4", &r), -EINVAL);
	assert_int_equal(load_axes("vcpus", "", 4, "8", &r), -EINVAL);
	assert_int_equal(load_axes("vcpus", ", \"vcpus\": \"1\"", 4, "4", &r),
			 -EINVAL);
	assert_int_equal(load_axes("vcpus", ", \"memory\": \"1\"", 4, "4", &r),
			 -EINVAL);
	/* A workload parameter is an axis name, a knob too. */
	assert_int_equal(load_axes("N", "", 4, "4", &r), 0);
	assert_string_equal(r->cells[1].label,
			    "THP default guest, guest + THP always host, N=4");
	report_free(r);
	assert_int_equal(load_axes("guest.sysctl.vm.swappiness", "", 4, "4", &r),
			 0);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_labels),
	    cmocka_unit_test(test_matrix),
	    cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_direction),
	    cmocka_unit_test(test_derived_axes),
	    cmocka_unit_test(test_axes_read),
	    cmocka_unit_test(test_axes_mismatch),
	    cmocka_unit_test(test_axes_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
