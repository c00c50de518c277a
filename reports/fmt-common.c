/* SPDX-License-Identifier: MIT */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const fmt_colors[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
    "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
};
const size_t fmt_ncolors = ARRAY_SIZE(fmt_colors);

char *fmt_num(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "n/a");
	else if (fabs(x) < FMT_NUM_FIXED_MAX)
		snprintf(buf, len, "%.3f", x);
	else
		snprintf(buf, len, "%.6g", x);
	return buf;
}

char *fmt_pct(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.2f%%", 100 * x + 0.0);
	return buf;
}

char *fmt_spct(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.2f%%", 100 * x + 0.0);
	return buf;
}

char *fmt_interval(char *buf, size_t len, const struct stats_delta *d)
{
	char lo[FMT_BUF], hi[FMT_BUF];

	if (!d->valid || !d->bounded)
		snprintf(buf, len, "%s", d->valid ? "unbounded" : "n/a");
	else
		snprintf(buf, len, "[%s, %s]", fmt_spct(lo, sizeof(lo), d->lo),
			 fmt_spct(hi, sizeof(hi), d->hi));
	return buf;
}

char *fmt_interval_why(char *buf, size_t len, const struct stats_delta *d)
{
	char iv[FMT_BUF];

	fmt_interval(iv, sizeof(iv), d);
	if ((!d->valid || !d->bounded) && d->why)
		snprintf(buf, len, "%s: %s", iv, d->why);
	else
		snprintf(buf, len, "%s", iv);
	return buf;
}

char *fmt_halfwidth(char *buf, size_t len, const struct stats_delta *d)
{
	if (!d->valid)
		snprintf(buf, len, "%s", "");
	else if (!d->bounded)
		snprintf(buf, len, "%s", "half-width unbounded");
	else
		snprintf(buf, len, "half-width %.2f%%",
			 100 * (d->hi - d->lo) / 2);
	return buf;
}

/* "+74.09% [+13.38%, +167.31%]" or "+0.00%, interval unbounded". */
static char *slowdown_iv(char *buf, size_t len, const struct stats_delta *d)
{
	char pct[FMT_BUF], iv[FMT_BUF];

	snprintf(buf, len, "%s%s%s", fmt_spct(pct, sizeof(pct), d->delta),
		 d->bounded ? " " : ", interval ",
		 fmt_interval(iv, sizeof(iv), d));
	return buf;
}

char *fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "n/a");
	else if (p < 0.0001)
		snprintf(buf, len, "<0.0001");
	else
		snprintf(buf, len, "%.4f", p);
	return buf;
}

const char *fmt_counter_name(const struct report *r, size_t k)
{
	return report_counter_name(r, k);
}

char *fmt_counter_value(char *buf, size_t len, const struct report *r,
			const struct report_cell *c, size_t k)
{
	const struct report_counter_stats *cs = &c->counters[k];

	if (cs->state == CS_NOT_SUPPORTED)
		snprintf(buf, len, "<not supported>");
	else if (cs->state == CS_NOT_COUNTED)
		snprintf(buf, len, "<not counted>");
	else if (runner_counter_kind(r->counter_id[k]) == RCK_CLOCK)
		snprintf(buf, len, "%.2f msec", cs->mean / 1e6);
	else
		snprintf(buf, len, "%.0f", cs->mean);
	return buf;
}

char *fmt_counter_note(char *buf, size_t len, const struct report *r,
		       const struct report_cell *c, size_t k)
{
	static const char *const prefix[] = {"", "K", "M", "G"};
	const struct report_counter_stats *cs = &c->counters[k];
	int id = r->counter_id[k];
	double x = cs->per_sec;
	size_t p = 0;

	*buf = '\0';
	if (id == RC_INSTRUCTIONS && c->ipc.valid)
		snprintf(buf, len, "%.3f IPC", c->ipc.value);
	else if (id == RC_DTLB_LOAD_MISSES && c->dtlb_miss_rate.valid)
		snprintf(buf, len, "%.2f%% of dTLB-loads",
			 100 * c->dtlb_miss_rate.value);
	else if (id == RC_CYCLES && !isnan(x))
		snprintf(buf, len, "%.3f GHz", x / 1e9);
	else if (runner_counter_kind(id) == RCK_CLOCK && !isnan(cs->cpus))
		snprintf(buf, len, "%.3f CPUs utilized", cs->cpus);
	else if (runner_counter_kind(id) == RCK_SOFTWARE && !isnan(x)) {
		/* perf's units: /sec, K/sec, M/sec, G/sec */
		for (; x >= 1e3 && p + 1 < ARRAY_SIZE(prefix); p++)
			x /= 1e3;
		snprintf(buf, len, "%.3f %s/sec", x, prefix[p]);
	}
	return buf;
}

const char *fmt_signif(const struct stats_delta *d)
{
	if (!d->valid || isnan(d->p))
		return "";
	return d->significant ? "*" : "within noise";
}

const char *fmt_reason(const struct report_cell *c)
{
	if (c->reason)
		return c->reason;
	return strcmp(c->status, "pending") ? "no reason given" : "not run yet";
}

char *fmt_cell_note(char *buf, size_t len, const struct report_cell *c)
{
	char sl[2 * FMT_BUF];

	if (strcmp(c->status, "ok") && !c->nok)
		snprintf(buf, len, "%s: %s", c->status, fmt_reason(c));
	else if (c->is_baseline)
		snprintf(buf, len, "baseline");
	else if (!c->vs_base.valid)
		snprintf(buf, len, "slowdown n/a%s%s",
			 c->vs_base.why ? ": " : "",
			 c->vs_base.why ? c->vs_base.why : "");
	else
		snprintf(buf, len, "slowdown %s%s",
			 slowdown_iv(sl, sizeof(sl), &c->vs_base),
			 c->vs_base.significant ? " *" : "");
	return buf;
}

char *fmt_matrix_entry(char *buf, size_t len, const struct report *r, long cell)
{
	const struct report_cell *c;
	char pct[FMT_BUF];

	if (cell < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	c = &r->cells[cell];
	if (!c->nok)
		snprintf(buf, len, "%s", c->status);
	else if (c->is_baseline)
		snprintf(buf, len, "baseline");
	else if (!c->vs_base.valid)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%s%s",
			 fmt_pct(pct, sizeof(pct), c->vs_base.delta),
			 c->vs_base.significant ? "*" : "");
	return buf;
}

char *fmt_matrix_slot(char *buf, size_t len, const struct report *r,
		      size_t row, size_t col)
{
	const struct report_matrix *m = &r->matrix;
	long cell = m->slot[row * m->ncols + col];
	const struct stats_delta *d;
	char pct[FMT_BUF], iv[FMT_BUF];

	if (cell >= 0 && row && m->slot[(row - 1) * m->ncols + col] == cell) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	if (cell < 0 || !r->cells[cell].nok || r->cells[cell].is_baseline ||
	    !r->cells[cell].vs_base.valid)
		return fmt_matrix_entry(buf, len, r, cell);
	d = &r->cells[cell].vs_base;
	if (d->bounded)
		snprintf(iv, sizeof(iv), "[%.2f, %.2f]", 100 * d->lo,
			 100 * d->hi);
	else
		snprintf(iv, sizeof(iv), "unbounded");
	snprintf(buf, len, "%s%s %s", fmt_pct(pct, sizeof(pct), d->delta),
		 d->significant ? "*" : "", iv);
	return buf;
}

char *fmt_colgeo(char *buf, size_t len, const struct report_colgeo *g)
{
	char pct[FMT_BUF];

	if (!g->n)
		snprintf(buf, len, "none (no cell with a slowdown)");
	else
		snprintf(buf, len, "%s over %zu cell%s",
			 fmt_pct(pct, sizeof(pct), g->geomean), g->n,
			 g->n == 1 ? "" : "s");
	return buf;
}

char *fmt_scaling_entry(char *buf, size_t len, const struct report *r,
			long cell)
{
	const struct report_cell *c;
	char sl[2 * FMT_BUF];

	if (cell < 0 || !r->cells[cell].nok || r->cells[cell].is_baseline ||
	    !r->cells[cell].vs_base.valid)
		return fmt_matrix_entry(buf, len, r, cell);
	c = &r->cells[cell];
	snprintf(buf, len, "%s%s", slowdown_iv(sl, sizeof(sl), &c->vs_base),
		 c->vs_base.significant ? "*" : "");
	return buf;
}

long fmt_scaling_cell(const struct report_scaling_line *l, const char *value)
{
	size_t k;

	for (k = 0; k < l->npoints; k++)
		if (!strcmp(l->points[k].value, value))
			return l->points[k].cell;
	return -1;
}

/* R's lab string K, or "?" */
static const char *lab_str(const json_t *obj, const char *k)
{
	const char *s = json_string_value(json_object_get(obj, k));

	return s ? s : "?";
}

/*
 * ", restored from a saved state (ready in 6.1 s)", ", booted, its state
 * saved and restored (ready in 106.8 s)" (no state fitted) or ", booted
 * (ready in 31.0 s)"; "" for a lab that does not say (older files) or was
 * not ready.
 */
static char *lab_ready_new(const json_t *lab)
{
	const json_t *restored = json_object_get(lab, "restored");
	const json_t *ready = json_object_get(lab, "ready_s");
	const char *how = "booted";

	if (!json_is_boolean(restored) || !json_is_number(ready))
		return xstrdup("");
	if (json_is_true(restored))
		how = json_is_true(json_object_get(lab, "state_saved"))
			  ? "booted, its state saved and restored"
			  : "restored from a saved state";
	return xasprintf(", %s (ready in %.1f s)", how,
			 json_number_value(ready));
}

char *fmt_lab_new(const struct report *r)
{
	const json_t *outer;
	char *ready, *s;

	if (!r->lab)
		return NULL;
	outer = json_object_get(r->lab, "outer_host");
	ready = lab_ready_new(r->lab);
	s = xasprintf(
	    "%s-emulated %s %s, %" JSON_INTEGER_FORMAT " vCPUs, %.1f GiB, "
	    "kernel %s, on %s (QEMU %s)%s: absolute numbers describe emulated "
	    "hardware",
	    json_is_true(json_object_get(r->lab, "emulated")) ? "TCG" : "not",
	    lab_str(r->lab, "cpu_model"), lab_str(r->lab, "cpu_features"),
	    json_integer_value(json_object_get(r->lab, "vcpus")),
	    (double)json_integer_value(json_object_get(r->lab, "memory_bytes")) /
		(1 << 30),
	    lab_str(r->lab, "kernel"), lab_str(outer, "hostname"),
	    lab_str(outer, "qemu"), ready);
	free(ready);
	return s;
}

char *fmt_remote_libvirt_new(const struct report *r)
{
	const json_t *rl = r->remote_libvirt;

	if (!rl)
		return NULL;
	return xasprintf("guest cells ran on %s ('%s', %s); the host above is "
			 "the machine that drove them",
			 lab_str(rl, "hostname"), lab_str(rl, "host"),
			 lab_str(rl, "uri"));
}

char *fmt_fleet_unlike_new(const struct report *r)
{
	const json_t *e;
	char *s = NULL;
	size_t i, n = 0;
	FILE *m;

	if (!r->fleet_unlike)
		return NULL;
	m = open_memstream(&s, &n);
	if (!m)
		abort();
	fputs("the cells ran on hosts that differ ([fleet] allow_unlike = on): "
	      "a difference between cells of two hosts is theirs too:",
	      m);
	json_array_foreach(r->fleet_unlike, i, e)
		fprintf(m, "%s '%s' differs from '%s' in %s", i ? ";" : "",
			lab_str(e, "host"), lab_str(e, "differs_from"),
			lab_str(e, "text"));
	fclose(m);
	return s;
}

char *fmt_axes_new(const struct report *r)
{
	char *s, *t;
	size_t i, k;

	if (r->axes_derived)
		return NULL;
	s = xstrdup("");
	for (i = 0; i < r->naxes; i++) {
		const struct report_axis *a = &r->axes[i];

		t = xasprintf("%s%s%s=", s, i ? ", " : "", a->name);
		free(s);
		s = t;
		for (k = 0; k < a->nvalues; k++) {
			t = xasprintf("%s%s%s", s, k ? "|" : "",
				      *a->values[k] ? a->values[k] : "\"\"");
			free(s);
			s = t;
		}
	}
	return s;
}

const char *fmt_row_value(const struct report_matrix *m, size_t row, size_t k)
{
	const char *v = m->row_val[row * m->nrow_axes + k];

	return *v ? v : "-";
}

const char *fmt_better(const struct report *r)
{
	return r->higher_better ? "higher is better" : "lower is better";
}

char *fmt_effect_run(char *buf, size_t len, const struct report *r)
{
	bool moved =
	    r->file_baseline_id && strcmp(r->file_baseline_id, r->baseline_id);

	snprintf(buf, len,
		 "run '%s' (%s): workload %s, metric %s in %s, %s, baseline "
		 "%s%s%s%s",
		 r->run_name, r->path, r->wl_name, r->wl_metric, r->wl_unit,
		 fmt_better(r), r->baseline_id,
		 moved ? " (by --baseline; the file's is " : "",
		 moved ? r->file_baseline_id : "", moved ? ")" : "");
	return buf;
}

char *fmt_effect_side(char *buf, size_t len, bool baseline, double s)
{
	if (baseline)
		snprintf(buf, len, "baseline (0 by definition)");
	else
		fmt_spct(buf, len, s);
	return buf;
}

char *fmt_effect_points(char *buf, size_t len, const struct compare_row *row)
{
	const struct compare_effect *e = &row->effect;

	if (row->note || !e->valid)
		snprintf(buf, len, "n/a");
	else if (e->ref_base && e->base)
		snprintf(buf, len, "0 by definition");
	else
		snprintf(buf, len, "%+.2f points", 100 * e->points + 0.0);
	return buf;
}

char *fmt_effect_ratio(char *buf, size_t len, const struct compare_row *row)
{
	const struct compare_effect *e = &row->effect;

	if (row->note || !e->valid)
		snprintf(buf, len, "n/a");
	else if (e->ref_base && e->base)
		snprintf(buf, len, "0 by definition");
	else
		fmt_spct(buf, len, e->ratio);
	return buf;
}

char *fmt_compare_label(char *buf, size_t len, const struct compare_row *row)
{
	if (row->ref && row->cell && strcmp(row->ref->label, row->cell->label))
		snprintf(buf, len, "%s %s / %s %s",
			 compare_run_letter(row->ref_run), row->ref->label,
			 compare_run_letter(row->run), row->cell->label);
	else
		snprintf(buf, len, "%s",
			 row->ref ? row->ref->label : row->cell->label);
	return buf;
}

const char *const fmt_kvm_counters[] = {"pf_fixed", "pf_taken", "tlb_flush",
					"invlpg"};
const size_t fmt_kvm_ncounters = ARRAY_SIZE(fmt_kvm_counters);

bool fmt_kvm_shown(const struct report *r, const struct report_cell *c)
{
	return r->has_kvm && !c->bare_metal && c->nok;
}

char *fmt_count(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f", x);
	return buf;
}

char *fmt_kvm_summary(char *buf, size_t len, const struct report_kvm *k)
{
	char e[FMT_BUF], s2[FMT_BUF], s1[FMT_BUF];
	size_t n;

	n = (size_t)snprintf(buf, len, "%s exits per sample (%s%s%zu sample%s)",
			     fmt_count(e, sizeof(e), k->exits_per_sample),
			     k->vendor ? k->vendor : "", k->vendor ? ", " : "",
			     k->nsamples, k->nsamples == 1 ? "" : "s");
	if (n >= len)
		return buf;
	if (isnan(k->share_2m))
		snprintf(buf + n, len - n, "; mappings n/a");
	else
		snprintf(buf + n, len - n,
			 "; at the end 2M pages map %s and 1G pages %s of "
			 "what KVM mapped (%.0f 4K, %.0f 2M, %.0f 1G)",
			 fmt_pct(s2, sizeof(s2), k->share_2m),
			 fmt_pct(s1, sizeof(s1), k->share_1g), k->pages_4k,
			 k->pages_2m, k->pages_1g);
	return buf;
}

char *fmt_kvm_counter_list(char *buf, size_t len, const struct report_kvm *k)
{
	char v[FMT_BUF];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < fmt_kvm_ncounters && n < len; i++) {
		double x = report_kvm_delta(k, fmt_kvm_counters[i]);

		if (isnan(x))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s",
				      n ? ", " : "", fmt_kvm_counters[i],
				      fmt_count(v, sizeof(v), x));
	}
	return buf;
}

char *fmt_kvm_compare(char *buf, size_t len, const struct compare_kvm *k)
{
	char a[FMT_BUF], b[FMT_BUF], d[FMT_BUF];
	size_t i, n;

	n = (size_t)snprintf(buf, len, "exits per sample %s -> %s (%s)",
			     fmt_count(a, sizeof(a), k->exits_ref),
			     fmt_count(b, sizeof(b), k->exits),
			     isnan(k->exits_delta)
				 ? "n/a"
				 : fmt_spct(d, sizeof(d), k->exits_delta));
	if (n < len) {
		if (isnan(k->share_2m_delta))
			snprintf(d, sizeof(d), "n/a");
		else
			snprintf(d, sizeof(d), "%+.2f points",
				 100 * k->share_2m_delta);
		n += (size_t)snprintf(
		    buf + n, len - n, "; 2M share %s -> %s (%s)",
		    isnan(k->share_2m_ref)
			? "n/a"
			: fmt_pct(a, sizeof(a), k->share_2m_ref),
		    isnan(k->share_2m) ? "n/a"
				       : fmt_pct(b, sizeof(b), k->share_2m),
		    d);
	}
	for (i = 0; i < k->ntop && n < len; i++)
		n += (size_t)snprintf(
		    buf + n, len - n, "%s%s %s -> %s (%+.1f)",
		    i ? ", " : "; most changed: ", k->top[i].reason,
		    fmt_count(a, sizeof(a), k->top[i].ref),
		    fmt_count(b, sizeof(b), k->top[i].val), k->top[i].delta);
	return buf;
}

bool fmt_sampling_shown(const struct report_cell *c)
{
	return c->stop_reason || c->boots.ngroups > 1 || c->noutliers ||
	       c->trend.significant || c->iv != REPORT_IV_FIELLER;
}

char *fmt_iv(char *buf, size_t len, const struct report *r,
	     const struct report_cell *c)
{
	const struct stats_paired *p = &c->paired;
	char df[FMT_BUF], lo[FMT_BUF], hi[FMT_BUF], w[FMT_BUF], b[FMT_BUF];
	size_t off;

	if (c->iv == REPORT_IV_FIELLER) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	snprintf(df, sizeof(df), "%.1f", p->df);
	if (c->iv == REPORT_IV_BRIDGE)
		off = (size_t)snprintf(
			buf, len,
			"paired through %s (it shares rounds with this cell "
			"and with the baseline), df %s",
			r->cells[c->bridge_via].id, isnan(p->df) ? "n/a" : df);
	else
		off = (size_t)snprintf(
			buf, len, "paired log ratios of %zu rounds, %zu %s%s as "
			"units, df %s",
			p->nrounds, p->nunits, stats_unit_name(p->unit),
			p->nunits == 1 ? "" : "s", isnan(p->df) ? "n/a" : df);
	if (off < len && c->iv == REPORT_IV_PAIRED && p->kj.nboots > 1 &&
	    !isnan(p->kj.t1sq) && !isnan(p->kj.t2sq))
		off += (size_t)snprintf(
			buf + off, len - off,
			"; variance components (Kalibera-Jones) of the log "
			"ratio: sd within a boot %s, between boots (T2) %s",
			fmt_num(w, sizeof(w), sqrt(p->kj.t1sq)),
			fmt_num(b, sizeof(b), sqrt(p->kj.t2sq)));
	if (off < len && !isnan(c->hboot_lo))
		snprintf(buf + off, len - off,
			 "; hierarchical bootstrap [%s, %s]",
			 fmt_spct(lo, sizeof(lo), c->hboot_lo),
			 fmt_spct(hi, sizeof(hi), c->hboot_hi));
	return buf;
}

char *fmt_stop(char *buf, size_t len, const struct report_cell *c)
{
	char hw[FMT_BUF];
	const char *what;

	if (!c->stop_reason) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	what = !strcmp(c->stop_reason, "target")	 ? "target met"
	       : !strcmp(c->stop_reason, "max_repeat") ? "max_repeat reached"
						       : c->stop_reason;
	if (c->vs_base.valid && !c->is_baseline)
		snprintf(buf, len, "%s (%s, %zu samples)", what,
			 fmt_halfwidth(hw, sizeof(hw), &c->vs_base),
			 c->nsamples);
	else
		snprintf(buf, len, "%s (%zu samples)", what, c->nsamples);
	return buf;
}

char *fmt_rounds_paired(char *buf, size_t len, const struct report_cell *c)
{
	if (c->iv == REPORT_IV_FIELLER || !c->rounds_zero)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len,
			 "%zu of %zu shared rounds paired (%zu left out: a "
			 "metric of 0)",
			 c->rounds_shared - c->rounds_zero, c->rounds_shared,
			 c->rounds_zero);
	return buf;
}

char *fmt_outliers(char *buf, size_t len, const struct report_cell *c)
{
	size_t i, off = 0;

	snprintf(buf, len, "%s", c->noutliers ? "" : "none");
	for (i = 0; i < c->nsamples && off < len; i++)
		if (c->samples[i].outlier)
			off += (size_t)snprintf(buf + off, len - off, "%s%ld",
						off ? ", " : "samples ",
						c->samples[i].index);
	return buf;
}

char *fmt_trend(char *buf, size_t len, const struct report_cell *c)
{
	char p[FMT_BUF];

	if (!c->trend.significant)
		snprintf(buf, len, "%s", "none");
	else
		snprintf(buf, len, "%s, p %s",
			 c->trend.direction > 0 ? "rising" : "falling",
			 fmt_p(p, sizeof(p), c->trend.p));
	return buf;
}

/* A variance as its square root, "%.4g", or "n/a". */
static char *sd(char *buf, size_t len, double var)
{
	if (isnan(var))
		snprintf(buf, len, "%s", "n/a");
	else
		snprintf(buf, len, "%.4g", sqrt(var));
	return buf;
}

char *fmt_boots(char *buf, size_t len, const struct report_cell *c)
{
	char w[FMT_BUF], b[FMT_BUF];

	if (c->boots.ngroups < 2)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len,
			 "%zu boots, sd of the samples within a boot %s, "
			 "sd of the boot means %s%s",
			 c->boots.ngroups, sd(w, sizeof(w), c->boots.within_var),
			 sd(b, sizeof(b), c->boots.between_var),
			 c->unit_boot ? "; interval over boot means" : "");
	return buf;
}
