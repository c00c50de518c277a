/* SPDX-License-Identifier: MIT */
/*
 * The report's THP contrasts (model.h, struct report_contrast;
 * docs/reading-reports.md "THP contrasts"): every pair of cells that differ
 * in one THP axis only, never against always, with the delta of never
 * against always (paired over the rounds they share, else Fieller over
 * their units) and a verdict.  Where never is not a resolved slowdown, the
 * figures that show why go beside it (the guest's page faults, KVM's exits
 * and 2M mappings), so an inversion or a hidden difference is said, never
 * silent.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "model.h"
#include "util.h"

static const char *const axis_names[] = {AXIS_NAME_HOST_THP,
					 AXIS_NAME_GUEST_THP};

const char *report_contrast_verdict_name(enum report_contrast_verdict v)
{
	switch (v) {
	case RCV_SLOWER:
		return "never slower";
	case RCV_INVERTED:
		return "never faster";
	default:
		return "not separated";
	}
}

/* Cells A and B have the same value of every axis but AXIS. */
static bool alike_but(const struct report *r, const struct report_cell *a,
		      const struct report_cell *b, size_t axis)
{
	size_t k;

	for (k = 0; k < r->naxes; k++) {
		const char *x = a->axv[k], *y = b->axv[k];

		if (k == axis)
			continue;
		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y)))
			return false;
	}
	return true;
}

/* "where guest, paging hw, host-thp always": the pair's other axes with
 * more than one value (owned). */
static char *context_new(const struct report *r, const struct report_cell *c,
			 size_t axis)
{
	char *s = xstrdup(""), *t;
	size_t k;

	for (k = 0; k < r->naxes; k++) {
		if (k == axis || !c->axv[k] || r->axes[k].nvalues < 2)
			continue;
		t = xasprintf("%s%s%s %s", s, *s ? ", " : "", r->axes[k].name,
			      c->axv[k]);
		free(s);
		s = t;
	}
	if (!*s) {
		free(s);
		s = xstrdup("the run's one setting of the other axes");
	}
	return s;
}

/* The exits a sample in C of the reasons NAMES (NaN if it recorded no
 * reasons). */
static double reason_per_sample(const struct report_cell *c,
				const char *const *names)
{
	double sum = 0;
	size_t i, k;

	if (!c->kvm.present || !c->kvm.nreason_samples)
		return NAN;
	for (i = 0; i < c->kvm.nreasons; i++)
		for (k = 0; names[k]; k++)
			if (!strcmp(c->kvm.reasons[i].reason, names[k]))
				sum += c->kvm.reasons[i].per_sample;
	return sum;
}

static void add(char **s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(char **s, const char *fmt, ...)
{
	char *part, *t;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&part, fmt, ap) < 0)
		part = NULL;
	va_end(ap);
	if (!part)
		return;
	t = xasprintf("%s%s%s", *s ? *s : "", *s ? "; " : "", part);
	free(part);
	free(*s);
	*s = t;
}

/*
 * The figures of never N against always A that say what THP changed (owned,
 * or NULL when the run recorded none): the guest's page faults, KVM's exits
 * and its #PF exits, the 2M mappings at the end.
 */
static char *evidence_new(const struct report_contrast *k,
			  const struct report_cell *n,
			  const struct report_cell *a)
{
	/* page-fault exits: SVM's (NPT off, on), VMX's (EPT off, on) */
	static const char *const pf[] = {"PF excp", "npf", "EXCEPTION_NMI",
					 "EPT_VIOLATION", NULL};
	const struct report_counter_stats *fn = &n->counters[RC_PAGE_FAULTS],
					  *fa = &a->counters[RC_PAGE_FAULTS];
	char *s = NULL;
	double x, y;

	(void)k;
	if (fn->state == CS_OK && fa->state == CS_OK && fa->mean > 0)
		add(&s, "page faults %.0f against %.0f a sample (x%.2f)",
		    fn->mean, fa->mean, fn->mean / fa->mean);
	if (!isnan(n->kvm.exits_per_sample) && !isnan(a->kvm.exits_per_sample))
		add(&s, "KVM exits %.0f against %.0f a sample",
		    n->kvm.exits_per_sample, a->kvm.exits_per_sample);
	x = reason_per_sample(n, pf);
	y = reason_per_sample(a, pf);
	if (!isnan(x) && !isnan(y))
		add(&s, "page-fault exits %.0f against %.0f a sample", x, y);
	if (!isnan(n->kvm.pages_2m) && !isnan(a->kvm.pages_2m))
		add(&s, "2M mappings %.0f against %.0f at the end",
		    n->kvm.pages_2m, a->kvm.pages_2m);
	return s;
}

/* The contrast's line, in every format (owned). */
static char *text_new(const struct report *r, const struct report_contrast *k,
		      const struct report_cell *n, const struct report_cell *a)
{
	char iv[FMT_BUF], pct[FMT_BUF], *ev = evidence_new(k, n, a), *s;
	bool say = k->verdict != RCV_SLOWER && ev;

	(void)r;
	fmt_spct(pct, sizeof(pct), k->d.delta);
	fmt_interval(iv, sizeof(iv), &k->d);
	s = xasprintf("%s never against always (%s): %s %s (%s, %zu unit%s): "
		      "%s%s%s",
		      k->axis, k->context, pct, iv, k->method, k->units,
		      k->units == 1 ? "" : "s",
		      report_contrast_verdict_name(k->verdict),
		      say ? "; the figures: " : "", say ? ev : "");
	free(ev);
	return s;
}

/* Never N against always A into K; false when it cannot be estimated. */
static bool contrast(const struct report *r, const struct report_cell *n,
		     const struct report_cell *a, struct report_contrast *k)
{
	struct stats_paired p;

	if (!n->nok || !a->nok)
		return false;
	if (report_pair(r, n, a, &p, NULL, NULL)) {
		k->d = p.d;
		k->method = "paired rounds";
		k->units = p.nunits;
	} else {
		stats_delta(&n->units, &a->units, r->higher_better, &k->d);
		k->method = "Fieller";
		k->units = n->units.n < a->units.n ? n->units.n : a->units.n;
	}
	if (!k->d.valid)
		return false;
	if (k->d.significant && k->d.delta > 0)
		k->verdict = RCV_SLOWER;
	else if (k->d.significant && k->d.delta < 0)
		k->verdict = RCV_INVERTED;
	else
		k->verdict = RCV_HIDDEN;
	return true;
}

void report_build_contrasts(struct report *r)
{
	bool hidden = false;
	size_t x, i, j;

	for (x = 0; x < sizeof(axis_names) / sizeof(axis_names[0]); x++) {
		long ax = report_find_axis(r, axis_names[x]);

		for (i = 0; ax >= 0 && i < r->ncells; i++) {
			const struct report_cell *n = &r->cells[i];

			if (!n->axv[ax] || strcmp(n->axv[ax], "never"))
				continue;
			for (j = 0; j < r->ncells; j++) {
				const struct report_cell *a = &r->cells[j];
				struct report_contrast k = {0};

				if (!a->axv[ax] || strcmp(a->axv[ax], "always") ||
				    !alike_but(r, n, a, (size_t)ax) ||
				    !contrast(r, n, a, &k))
					continue;
				k.axis = axis_names[x];
				k.never = (long)i;
				k.always = (long)j;
				k.context = context_new(r, a, (size_t)ax);
				k.text = text_new(r, &k, n, a);
				r->contrasts = xrealloc(
				    r->contrasts,
				    (r->ncontrasts + 1) * sizeof(*r->contrasts));
				r->contrasts[r->ncontrasts++] = k;
				hidden |= k.verdict != RCV_SLOWER;
			}
		}
	}
	if (hidden && (r->lab || (r->accel && !strcmp(r->accel, "tcg"))))
		r->contrast_note =
		    "this host is emulated (a lab's nested KVM, or TCG): what "
		    "a translation costs is what the emulator makes of it, so "
		    "THP's effect on time can hide where its effect on page "
		    "faults, exits and 2M mappings shows";
}

void report_contrasts_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->ncontrasts; i++) {
		free(r->contrasts[i].context);
		free(r->contrasts[i].text);
	}
	free(r->contrasts);
	r->contrasts = NULL;
	r->ncontrasts = 0;
}
