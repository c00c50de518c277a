/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the report model (reports/model.c, axes.c, matrix.c):
 * labels, the matrix, counter states, derived counters, the direction of
 * the slowdown, the axes (read, derived, refused), --rows/--cols and the
 * scaling lines, the KVM evidence of guest cells and its comparison.  Each
 * test writes a small results.json to a temporary file and loads it.
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
#include "report.h"

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

/*
 * A run of a bare-metal baseline and one guest cell whose four samples
 * carry S0..S3 (JSON text after the sample's counters: ", \"kvm\": ...");
 * sample 1 failed.
 */
static int load_kvm(const char *s0, const char *s1, const char *s2,
		    const char *s3, struct report **r)
{
	const char *extra[4] = {s0, s1, s2, s3};
	char buf[8192];
	size_t n;
	int i;

	n = (size_t)snprintf(
	    buf, sizeof(buf),
	    "{\"schema\": \"vmtax-results/1\", \"run\": {\"name\": \"k\", "
	    "\"host\": {\"cpu_model\": \"AMD EPYC Processor\"}},\n"
	    " \"workload\": {\"name\": \"w\", \"metric\": \"elapsed\", "
	    "\"unit\": \"s\", \"better\": \"lower\"},\n"
	    " \"baseline\": \"bare-metal/host-thp=always\", \"cells\": [\n"
	    "{\"id\": \"bare-metal/host-thp=always\", \"status\": \"ok\", "
	    "\"env\": {\"where\": \"bare-metal\", \"host_thp\": \"always\"}, "
	    "\"samples\": [{\"index\": 0, \"status\": \"ok\", \"metric\": 1, "
	    "\"elapsed_s\": 1}, {\"index\": 1, \"status\": \"ok\", "
	    "\"metric\": 1.1, \"elapsed_s\": 1.1}]},\n"
	    "{\"id\": \"guest/paging=npt/host-thp=always/guest-thp=always\", "
	    "\"status\": \"ok\", \"env\": {\"where\": \"guest\", \"host_thp\": "
	    "\"always\", \"guest_thp\": \"always\", \"paging\": \"npt\"}, "
	    "\"samples\": [");
	for (i = 0; i < 4; i++)
		n += (size_t)snprintf(
		    buf + n, sizeof(buf) - n,
		    "%s{\"index\": %d, \"status\": \"%s\", \"metric\": %d, "
		    "\"elapsed_s\": %d%s}",
		    i ? ", " : "", i, i == 1 ? "failed" : "ok", 2 + i % 2,
		    2 + i % 2, extra[i]);
	snprintf(buf + n, sizeof(buf) - n, "]}]}\n");
	assert_true(n < sizeof(buf) - 8);
	return load_text(buf, r);
}

static const char kvm_s0[] =
    ", \"kvm\": {\"vms\": 1, \"pages_4k\": 100, \"pages_2m\": 10, "
    "\"pages_1g\": 0, \"at_end\": {}, \"delta\": {\"exits\": 100, "
    "\"pf_fixed\": 10}, \"exits_vendor\": \"svm\", \"exits_total\": 100, "
    "\"exits_by_reason\": [{\"reason\": \"npf\", \"code\": 1024, \"count\": "
    "60}, {\"reason\": \"msr\", \"code\": 124, \"count\": 40}]}";
/* Failed: must not count. */
static const char kvm_s1[] =
    ", \"kvm\": {\"pages_4k\": 1, \"pages_2m\": 1, \"pages_1g\": 1, "
    "\"delta\": {\"exits\": 99999}, \"exits_total\": 99999, "
    "\"exits_by_reason\": [{\"reason\": \"hlt\", \"code\": 120, \"count\": "
    "99999}]}";
static const char kvm_s2[] =
    ", \"kvm\": {\"pages_4k\": 7, \"pages_2m\": 7, \"pages_1g\": 7, "
    "\"delta\": {\"exits\": 300, \"pf_fixed\": 30, \"tlb_flush\": 5}, "
    "\"exits_by_reason\": null, \"exits_by_reason_why\": \"no "
    "kvm:kvm_exit event\"}";
static const char kvm_s3[] =
    ", \"kvm\": {\"pages_4k\": 512, \"pages_2m\": 0, \"pages_1g\": 1, "
    "\"delta\": {\"exits\": 200}, \"exits_total\": 200, "
    "\"exits_by_reason\": [{\"reason\": \"msr\", \"code\": 124, \"count\": "
    "140}, {\"reason\": \"hlt\", \"code\": 120, \"count\": 60}]}";

static void test_kvm_evidence(void **state)
{
	struct report *r = NULL;
	const struct report_kvm *k;
	char buf[512];

	(void)state;
	assert_int_equal(load_kvm(kvm_s0, kvm_s1, kvm_s2, kvm_s3, &r), 0);
	assert_true(r->has_kvm);
	assert_false(r->cells[0].kvm.present);
	assert_false(fmt_kvm_shown(r, &r->cells[0]));
	assert_true(fmt_kvm_shown(r, &r->cells[1]));
	k = &r->cells[1].kvm;
	assert_true(k->present);
	assert_null(k->why);
	assert_int_equal(k->nsamples, 3);
	assert_string_equal(k->vendor, "svm");
	/* Means over the ok samples that have the value. */
	assert_float_equal(k->exits_per_sample, 200, 1e-9);
	assert_float_equal(k->exits_total_mean, 150, 1e-9);
	assert_float_equal(report_kvm_delta(k, "exits"), 200, 1e-9);
	assert_float_equal(report_kvm_delta(k, "pf_fixed"), 20, 1e-9);
	assert_float_equal(report_kvm_delta(k, "tlb_flush"), 5, 1e-9);
	assert_true(isnan(report_kvm_delta(k, "invlpg")));
	/* Reasons: two samples have them; most first, ties by name. */
	assert_int_equal(k->nreason_samples, 2);
	assert_null(k->reasons_why);
	assert_int_equal(k->nreasons, 3);
	assert_string_equal(k->reasons[0].reason, "msr");
	assert_float_equal(k->reasons[0].total, 180, 1e-9);
	assert_float_equal(k->reasons[0].per_sample, 90, 1e-9);
	assert_float_equal(k->reasons[0].share, 0.6, 1e-9);
	assert_string_equal(k->reasons[1].reason, "hlt");
	assert_int_equal(k->reasons[1].code, 120);
	assert_float_equal(k->reasons[1].per_sample, 30, 1e-9);
	assert_string_equal(k->reasons[2].reason, "npf");
	assert_float_equal(k->reasons[2].share, 0.2, 1e-9);
	/* Mappings at the end of the last ok sample: 2 MiB in 4K, 1G. */
	assert_float_equal(k->pages_4k, 512, 0);
	assert_float_equal(k->pages_1g, 1, 0);
	assert_float_equal(k->share_2m, 0, 1e-12);
	assert_float_equal(k->share_1g, 1024.0 / 1026, 1e-12);
	assert_string_equal(fmt_kvm_summary(buf, sizeof(buf), k),
			    "200.0 exits per sample (svm, 3 samples); at the "
			    "end 2M pages map 0.00% and 1G pages 99.81% of "
			    "what KVM mapped (512 4K, 0 2M, 1 1G)");
	assert_string_equal(fmt_kvm_counter_list(buf, sizeof(buf), k),
			    "pf_fixed 20.0, tlb_flush 5.0");
	report_free(r);

	/* No sample with reasons: the why of the first that lacks them. */
	assert_int_equal(load_kvm(kvm_s2, kvm_s1, kvm_s2, kvm_s2, &r), 0);
	k = &r->cells[1].kvm;
	assert_true(k->present);
	assert_int_equal(k->nreason_samples, 0);
	assert_int_equal(k->nreasons, 0);
	assert_string_equal(k->reasons_why, "no kvm:kvm_exit event");
	assert_true(isnan(k->exits_total_mean));
	assert_null(k->vendor);
	assert_float_equal(k->share_2m,
			   7 * 2.0 / (7 * 4.0 / 1024 + 14 + 7 * 1024), 1e-12);
	report_free(r);
}

static void test_kvm_none(void **state)
{
	struct report *r = NULL;

	(void)state;
	/* null with a why: no evidence, the why kept, never zeros. */
	assert_int_equal(
	    load_kvm(", \"kvm\": null, \"kvm_why\": \"debugfs not mounted\"",
		     "",
		     ", \"kvm\": null, \"kvm_why\": \"debugfs not mounted\"",
		     "", &r),
	    0);
	assert_false(r->has_kvm);
	assert_false(r->cells[1].kvm.present);
	assert_string_equal(r->cells[1].kvm.why, "debugfs not mounted");
	assert_true(isnan(r->cells[1].kvm.exits_per_sample));
	assert_true(isnan(r->cells[1].kvm.share_2m));
	assert_false(fmt_kvm_shown(r, &r->cells[1]));
	report_free(r);

	/* No kvm key (an older file). */
	assert_int_equal(load_kvm("", "", "", "", &r), 0);
	assert_false(r->cells[1].kvm.present);
	assert_non_null(strstr(r->cells[1].kvm.why, "no KVM evidence"));
	report_free(r);

	/* null without a why. */
	assert_int_equal(load_kvm(", \"kvm\": null", "", "", "", &r), 0);
	assert_string_equal(r->cells[1].kvm.why,
			    "kvm is null and no kvm_why given");
	report_free(r);
}

static void test_kvm_refused(void **state)
{
	static const char *const bad[] = {
	    /* kvm neither an object nor null */
	    ", \"kvm\": \"yes\"",
	    /* a reason without a count */
	    (", \"kvm\": {\"delta\": {}, \"exits_by_reason\": [{\"reason\": "
	     "\"npf\"}]}"),
	    /* a count without a reason */
	    ", \"kvm\": {\"delta\": {}, \"exits_by_reason\": [{\"count\": 3}]}",
	};
	struct report *r = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load_kvm(bad[i], "", "", "", &r), -EINVAL);
		assert_null(r);
	}
	/* A failed sample's kvm is not read. */
	assert_int_equal(load_kvm("", bad[0], "", "", &r), 0);
	report_free(r);
}

static void test_kvm_compare(void **state)
{
	struct report *runs[2] = {NULL, NULL};
	struct compare *c = NULL;
	const struct compare_kvm *k;
	char buf[1024];

	(void)state;
	assert_int_equal(load_kvm(kvm_s0, "", kvm_s0, kvm_s0, &runs[0]), 0);
	assert_int_equal(load_kvm(kvm_s3, "", kvm_s3, kvm_s3, &runs[1]), 0);
	assert_int_equal(compare_new(runs, 2, NULL, &c), 0);
	assert_true(c->has_kvm);
	assert_false(c->rows[0].kvm.valid); /* bare metal */
	k = &c->rows[1].kvm;
	assert_true(k->valid);
	assert_float_equal(k->exits_delta, 1.0, 1e-12);
	assert_float_equal(k->share_2m_ref, 20.0 / (20 + 100.0 * 4 / 1024),
			   1e-12);
	assert_float_equal(k->share_2m_delta, -k->share_2m_ref, 1e-12);
	/* msr +100, hlt +60 (0 in A), npf -60: ties by name. */
	assert_int_equal(k->ntop, 3);
	assert_string_equal(k->top[0].reason, "msr");
	assert_float_equal(k->top[0].delta, 100, 1e-12);
	assert_string_equal(k->top[1].reason, "hlt");
	assert_float_equal(k->top[1].ref, 0, 0);
	assert_string_equal(k->top[2].reason, "npf");
	assert_float_equal(k->top[2].delta, -60, 1e-12);
	assert_string_equal(
	    fmt_kvm_compare(buf, sizeof(buf), k),
	    "exits per sample 100.0 -> 200.0 (+100.00%); 2M share 98.08% -> "
	    "0.00% (-98.08 points); most changed: msr 40.0 -> 140.0 (+100.0), "
	    "hlt 0.0 -> 60.0 (+60.0), npf 60.0 -> 0.0 (-60.0)");
	compare_free(c);
	report_free(runs[0]);
	report_free(runs[1]);
}

/* The lab line says how the lab became ready; older files' stays as it was. */
static void test_lab_line(void **state)
{
	static const struct {
		const char *extra, *want;
	} rows[] = {
		{ "{}", "(QEMU 7.2.22): absolute" },
		{ "{\"restored\": true, \"ready_s\": 6.25}",
		  "(QEMU 7.2.22), restored from a saved state (ready in 6.2 "
		  "s): absolute" },
		{ "{\"restored\": true, \"state_saved\": true, \"ready_s\": "
		  "106.8}",
		  "(QEMU 7.2.22), booted, its state saved and restored (ready "
		  "in 106.8 s): absolute" },
		{ "{\"restored\": false, \"ready_s\": 31}",
		  "(QEMU 7.2.22), booted (ready in 31.0 s): absolute" },
		{ "{\"restored\": false, \"ready_s\": null}",
		  "(QEMU 7.2.22): absolute" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct report r = { 0 };
		char *s;
		json_t *extra = json_loads(rows[i].extra, 0, NULL);

		r.lab = json_pack("{s:b, s:s, s:s, s:i, s:I, s:s, s:{s:s, s:s}}",
				  "emulated", 1, "cpu_model", "EPYC",
				  "cpu_features", "+svm +npt", "vcpus", 2,
				  "memory_bytes", (json_int_t)3 << 30, "kernel",
				  "6.1", "outer_host", "hostname", "vm", "qemu",
				  "7.2.22");
		json_object_update(r.lab, extra);
		json_decref(extra);
		s = fmt_lab_new(&r);
		if (!strstr(s, rows[i].want))
			fail_msg("row %zu: '%s'", i, s);
		free(s);
		json_decref(r.lab);
	}
}

/* A fleet run's hosts as one matrix: host just after where, each cell
 * its own host's, ids and the baseline named by host. */
static void test_fleet_view(void **state)
{
	const char *one =
	    "{\"schema\": \"x\", \"baseline\": \"bare-metal\", \"axes\": "
	    "[{\"name\": \"where\", \"values\": [\"bare-metal\"]}, "
	    "{\"name\": \"vcpus\", \"values\": [\"1\", \"2\"]}], "
	    "\"cells\": [{\"id\": \"bare-metal\", \"axes\": {\"where\": "
	    "\"bare-metal\"}, \"samples\": [{\"metric\": %d}]}]}";
	char *ta = NULL, *tb = NULL;
	json_t *docs[2], *v, *axes, *c;
	const char *names[] = {"a", "root@b"};

	(void)state;
	assert_true(asprintf(&ta, one, 1) > 0);
	assert_true(asprintf(&tb, one, 2) > 0);
	docs[0] = json_loads(ta, 0, NULL);
	docs[1] = json_loads(tb, 0, NULL);
	v = report_fleet_doc_new((const json_t *const *)docs, names, 2);
	assert_non_null(v);
	axes = json_object_get(v, "axes");
	assert_int_equal(json_array_size(axes), 3);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(axes, 1), "name")),
			    "host");
	assert_string_equal(json_string_value(json_array_get(json_object_get(
				json_array_get(axes, 1), "values"), 1)),
			    "root@b");
	assert_string_equal(json_string_value(json_object_get(v, "baseline")),
			    "bare-metal/host=a");
	assert_int_equal(json_array_size(json_object_get(v, "cells")), 2);
	c = json_array_get(json_object_get(v, "cells"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "id")),
			    "bare-metal/host=root@b");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(c, "axes"), "host")),
			    "root@b");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(c, "samples"), 0),
			     "metric")),
			 2);
	json_decref(v);
	/* a run with no axes (an older vmtax): no view */
	json_object_del(docs[0], "axes");
	assert_null(report_fleet_doc_new((const json_t *const *)docs, names, 2));
	json_decref(docs[0]);
	json_decref(docs[1]);
	free(ta);
	free(tb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_labels),
	    cmocka_unit_test(test_fleet_view),
	    cmocka_unit_test(test_lab_line),
	    cmocka_unit_test(test_matrix),
	    cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_direction),
	    cmocka_unit_test(test_derived_axes),
	    cmocka_unit_test(test_axes_read),
	    cmocka_unit_test(test_axes_mismatch),
	    cmocka_unit_test(test_axes_refused),
	    cmocka_unit_test(test_kvm_evidence),
	    cmocka_unit_test(test_kvm_none),
	    cmocka_unit_test(test_kvm_refused),
	    cmocka_unit_test(test_kvm_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
