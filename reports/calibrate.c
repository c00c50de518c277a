/* SPDX-License-Identifier: MIT */
#include "calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "util.h"
#include "vocab.h"

#define REPLICA_AXIS AXIS_NAME_REPLICA

/* ID without "/replica=REP" (owned), or NULL when it is not that replica. */
static char *strip(const char *id, const char *rep)
{
	char *suffix = xasprintf("/" REPLICA_AXIS "=%s", rep), *out = NULL;
	size_t n = strlen(id), k = strlen(suffix);

	if (n > k && !strcmp(id + n - k, suffix))
		out = xstrndup(id, n - k);
	free(suffix);
	return out;
}

json_t *calibrate_split(json_t *doc, const char *rep, char *why, size_t len)
{
	json_t *out = json_deep_copy(doc), *cells = json_array(), *axes, *c;
	const char *base = json_string_value(json_object_get(doc, "baseline"));
	char *nb = base ? strip(base, rep) : NULL, *other;
	size_t i;

	other = base ? strip(base, strcmp(rep, "a") ? "a" : "b") : NULL;
	if (!nb && !other) {
		snprintf(why, len, "not an A/A run: its baseline '%s' has no "
			 "replica (run it with --set run.replicas=2)",
			 base ? base : "(none)");
		json_decref(out);
		json_decref(cells);
		return NULL;
	}
	json_object_set_new(out, "baseline", json_string(nb ? nb : other));
	free(nb);
	free(other);
	json_array_foreach(json_object_get(doc, "cells"), i, c)
	{
		char *id = strip(json_string_value(json_object_get(c, "id"))
					 ?: "",
				 rep);
		json_t *cc;

		if (!id)
			continue;
		cc = json_deep_copy(c);
		json_object_set_new(cc, "id", json_string(id));
		json_object_del(json_object_get(cc, "axes"), REPLICA_AXIS);
		json_array_append_new(cells, cc);
		free(id);
	}
	json_object_set_new(out, "cells", cells);
	axes = json_array();
	json_array_foreach(json_object_get(doc, "axes"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "name")) ?: "",
			   REPLICA_AXIS))
			json_array_append(axes, c);
	json_object_set_new(out, "axes", axes);
	return out;
}

/* The 95th percentile of binomial(N, P): the misses a calibrated set of N
 * 95% intervals shows 95% of the time or more. */
static size_t binom_q95(size_t n, double p)
{
	double cdf = 0, pk = pow(1 - p, (double)n);
	size_t k;

	for (k = 0; k <= n; k++) {
		cdf += pk;
		if (cdf >= 0.95)
			return k;
		pk *= (double)(n - k) / (double)(k + 1) * p / (1 - p);
	}
	return n;
}

size_t calibrate_allowed_misses(size_t n)
{
	return binom_q95(n, 0.05);
}

int calibrate_judge(const struct report *aa, const struct report *a,
		    const struct report *b, struct calib *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->rows = xcalloc(a->ncells ? a->ncells : 1, sizeof(*out->rows));
	for (i = 0; i < a->ncells; i++) {
		struct calib_row *row = &out->rows[out->nrows];
		const struct report_cell *ca = &a->cells[i];
		char *ida = xasprintf("%s/" REPLICA_AXIS "=a", ca->id);
		char *idb = xasprintf("%s/" REPLICA_AXIS "=b", ca->id);
		long ka = report_find_cell(aa, ida), kb = report_find_cell(aa, idb);
		long jb = report_find_cell(b, ca->id);

		free(ida);
		free(idb);
		if (ka < 0 || kb < 0 || jb < 0) {
			calibrate_release(out);
			return err_code(-EINVAL,
					"cell '%s' is not in both replicas",
					ca->id);
		}
		row->id = ca->id;
		row->baseline = ca->is_baseline;
		row->rerun = -1;
		if (report_pair(aa, &aa->cells[ka], &aa->cells[kb], &row->ab,
				NULL, NULL) &&
		    row->ab.d.bounded) {
			row->ab_holds = stats_interval_holds(&row->ab.d, 0);
			out->nratio++;
			out->nratio_hold += row->ab_holds;
		}
		row->a = ca->vs_base;
		row->b = b->cells[jb].vs_base;
		if (!row->baseline && row->a.valid && row->b.valid &&
		    row->a.bounded && row->b.bounded) {
			row->rerun = stats_rerun_holds(&row->a, &row->b,
						       &row->a_holds_b,
						       &row->b_holds_a);
			if (row->rerun >= 0) {
				out->nrerun += 2;
				out->nrerun_hold += (size_t)row->rerun;
			}
		}
		out->nrows++;
	}
	out->allowed_misses = calibrate_allowed_misses(out->nratio);
	out->judged = out->nratio > 0;
	out->consistent = out->judged &&
			  out->nratio - out->nratio_hold <= out->allowed_misses;
	return 0;
}

void calibrate_release(struct calib *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "NO";
}

void calibrate_print(const struct calib *c, FILE *out)
{
	char s1[FMT_BUF], s2[FMT_BUF], i1[FMT_BUF], i2[FMT_BUF], r[FMT_BUF],
	    ri[FMT_BUF];
	size_t i;

	fprintf(out, "A/A calibration: the config twice, interleaved in the "
		     "same rounds, each copy with guests of its own\n\n");
	for (i = 0; i < c->nrows; i++) {
		const struct calib_row *row = &c->rows[i];

		fprintf(out, "%s%s\n", row->id,
			row->baseline ? " (baseline)" : "");
		if (row->ab.d.valid)
			fprintf(out,
				"  A/B ratio %s, 95%% interval %s over %zu %ss: "
				"%s\n",
				fmt_spct(r, sizeof(r), row->ab.d.delta),
				fmt_interval(ri, sizeof(ri), &row->ab.d),
				row->ab.nunits, stats_unit_name(row->ab.unit),
				!row->ab.d.bounded ? "unbounded (too few units)"
				: row->ab_holds	   ? "holds 1"
						   : "does NOT hold 1");
		else
			fprintf(out, "  A/B ratio: no shared rounds\n");
		if (row->baseline)
			continue;
		fprintf(out, "  run A %s %s, run B %s %s", 
			fmt_spct(s1, sizeof(s1), row->a.delta),
			fmt_interval(i1, sizeof(i1), &row->a),
			fmt_spct(s2, sizeof(s2), row->b.delta),
			fmt_interval(i2, sizeof(i2), &row->b));
		if (row->rerun >= 0)
			fprintf(out, "; A's holds B's estimate: %s, B's holds "
				     "A's: %s\n",
				yes_no(row->a_holds_b), yes_no(row->b_holds_a));
		else
			fprintf(out, "; (an interval is unbounded)\n");
	}
	fprintf(out,
		"\nratio intervals holding 1: %zu of %zu (a calibrated 95%% "
		"interval: about 95%%; up to %zu misses expected by chance)\n"
		"each run's interval holding the other's estimate: %zu of %zu "
		"(a calibrated 95%% interval: about 83%%)\n"
		"verdict: %s\n",
		c->nratio_hold, c->nratio, c->allowed_misses, c->nrerun_hold,
		c->nrerun,
		!c->judged ? CALIBRATE_CANNOT_JUDGE
		": no cell has a bounded A/B interval"
		: c->consistent ? CALIBRATE_CONSISTENT
				: CALIBRATE_INCONSISTENT
		": the two runs differ beyond their intervals");
}

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *calibrate_json(const struct calib *c)
{
	json_t *rows = json_array();
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct calib_row *row = &c->rows[i];

		json_array_append_new(
			rows,
			json_pack("{s:s, s:b, s:{s:o, s:o, s:o, s:I, s:b}, "
				  "s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:o, "
				  "s:o}",
				  "cell", row->id, "baseline", row->baseline,
				  "ab", "delta", jnum(row->ab.d.delta), "lo",
				  jnum(row->ab.d.lo), "hi", jnum(row->ab.d.hi),
				  "units", (json_int_t)row->ab.nunits,
				  "holds_1", row->ab_holds, "a", "delta",
				  jnum(row->a.delta), "lo", jnum(row->a.lo),
				  "hi", jnum(row->a.hi), "b", "delta",
				  jnum(row->b.delta), "lo", jnum(row->b.lo),
				  "hi", jnum(row->b.hi), "a_holds_b",
				  row->rerun >= 0 ? json_boolean(row->a_holds_b)
						  : json_null(),
				  "b_holds_a",
				  row->rerun >= 0 ? json_boolean(row->b_holds_a)
						  : json_null()));
	}
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o}", "cells", rows,
			 "ratio_intervals", (json_int_t)c->nratio,
			 "ratio_holding_1", (json_int_t)c->nratio_hold,
			 "rerun_checks", (json_int_t)c->nrerun,
			 "rerun_holding", (json_int_t)c->nrerun_hold,
			 "allowed_misses", (json_int_t)c->allowed_misses,
			 "consistent",
			 c->judged ? json_boolean(c->consistent) : json_null());
}

int calibrate_exit_status(const struct calib *c)
{
	return c->judged && !c->consistent ? 1 : 0;
}
