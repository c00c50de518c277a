/* SPDX-License-Identifier: MIT */
/*
 * run-estimate.c - the run's estimate (run-estimate.h, docs/estimate.md).
 */
#include "run-estimate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini-schema.h"
#include "rounds-group.h"
#include "util.h"

static const char *const place_names[] = {
	[EST_BARE] = "bare-metal",	  [EST_GUEST_KVM] = "guest-kvm",
	[EST_GUEST_TCG] = "guest-tcg",	  [EST_LAB_BARE] = "lab-bare-metal",
	[EST_LAB_GUEST] = "lab-guest",
};

/*
 * A sample at each place against bare metal, in units of the workload's
 * TCG factor (TCG) or as is (1): a TCG guest and the lab's own cells are
 * emulated; a lab guest runs under KVM nested in it, NPT's page walk
 * emulated too: a quarter more (docs/lab.md, 3.11 s against 2.49 s); a
 * KVM guest a tenth more.
 */
static const struct {
	double f;
	bool tcg;
} place_factors[] = {
	[EST_BARE] = {1.0, false},     [EST_GUEST_KVM] = {1.1, false},
	[EST_GUEST_TCG] = {1.0, true}, [EST_LAB_BARE] = {1.0, true},
	[EST_LAB_GUEST] = {1.25, true},
};

/* Boot to hello, assumed: the tiny image and a disk image (debian). */
static const double boot_tiny[] = {
	[EST_BARE] = 0,	       [EST_GUEST_KVM] = 2.0, [EST_GUEST_TCG] = 6.0,
	[EST_LAB_BARE] = 0,    [EST_LAB_GUEST] = 14.0,
};
static const double boot_disk[] = {
	[EST_BARE] = 0,	       [EST_GUEST_KVM] = 10.0, [EST_GUEST_TCG] = 60.0,
	[EST_LAB_BARE] = 0,    [EST_LAB_GUEST] = 60.0,
};

const char *est_place_name(enum est_place p)
{
	return place_names[p];
}

int est_place_parse(const char *s, enum est_place *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(place_names); i++)
		if (!strcmp(s, place_names[i])) {
			*out = (enum est_place)i;
			return 0;
		}
	return -EINVAL;
}

enum est_place est_place_of(bool lab, bool guest, bool tcg)
{
	if (lab)
		return guest ? EST_LAB_GUEST : EST_LAB_BARE;
	if (!guest)
		return EST_BARE;
	return tcg ? EST_GUEST_TCG : EST_GUEST_KVM;
}

double est_place_factor(enum est_place p, double tcg)
{
	if (!(tcg > 0))
		tcg = EST_ASSUMED_TCG;
	return place_factors[p].f * (place_factors[p].tcg ? tcg : 1);
}

double est_assumed_boot_s(const char *image, enum est_place p)
{
	return !strcmp(image, "tiny") ? boot_tiny[p] : boot_disk[p];
}

/* ---- a declared estimate ---- */

/* A parameter name at *P ([A-Z][A-Z0-9_]*) into NAME; false when none. */
static bool name_at(const char **p, char *name, size_t len)
{
	size_t k = 0;

	if (!(**p >= 'A' && **p <= 'Z'))
		return false;
	while ((**p >= 'A' && **p <= 'Z') || (**p >= '0' && **p <= '9') ||
	       **p == '_') {
		if (k + 1 < len)
			name[k++] = **p;
		(*p)++;
	}
	name[k] = '\0';
	return true;
}

static bool number_at(const char **p, double *x)
{
	char *end;

	if (!((**p >= '0' && **p <= '9') || **p == '.'))
		return false;
	*x = strtod(*p, &end);
	if (end == *p)
		return false;
	*p = end;
	return true;
}

static void blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/* The value of parameter NAME, a number, into *X. */
static int param_value(const char *name, const char *const *names,
		       const char *const *values, size_t n, double *x,
		       char *why, size_t len)
{
	size_t i;

	for (i = 0; i < n && strcmp(names[i], name); i++)
		;
	if (i == n) {
		snprintf(why, len, "'%s' is not a parameter of the workload",
			 name);
		return -EINVAL;
	}
	if (!ini_number(values[i], x)) {
		snprintf(why, len, "parameter %s = '%s' is not a number", name,
			 values[i]);
		return -EINVAL;
	}
	return 0;
}

int est_declared_eval(const char *expr, const char *const *names,
		      const char *const *values, size_t n, double *out,
		      bool *params, char *why, size_t len)
{
	const char *p = expr;
	double sum = 0;
	bool any = false;

	for (;;) {
		char name[65] = "";
		double c = 1, v = 1;
		bool num;

		blanks(&p);
		num = number_at(&p, &c);
		if (!num && !name_at(&p, name, sizeof(name)))
			break;
		blanks(&p);
		if (*p == '*') {
			p++;
			blanks(&p);
			if (num ? !name_at(&p, name, sizeof(name))
				: !number_at(&p, &c))
				break;
		}
		if (*name) {
			if (param_value(name, names, values, n, &v, why, len) < 0)
				return -EINVAL;
			any = true;
		}
		sum += c * v;
		blanks(&p);
		if (!*p) {
			if (!(sum >= 0)) {
				snprintf(why, len, "'%s' comes to %g s, below 0",
					 expr, sum);
				return -EINVAL;
			}
			*out = sum;
			if (params)
				*params = any;
			return 0;
		}
		if (*p++ != '+')
			break;
	}
	snprintf(why, len,
		 "'%s' is not seconds as a sum of terms, each a number or a "
		 "number * a PARAMETER",
		 expr);
	return -EINVAL;
}

/* ---- counting ---- */

static long div_up(long a, long b)
{
	return b > 0 ? (a + b - 1) / b : a;
}

/* Rounds of a target at most: each round at most doubles a cell. */
static long target_rounds(const struct est_rules *ru)
{
	long rounds = 1, n = ru->repeat > 0 ? ru->repeat : 1;

	while (n < ru->max_repeat) {
		n *= 2;
		rounds++;
	}
	return rounds;
}

/* order = cells: every cell alone, its guest replaced each per_boot. */
static void count_cells(const struct est_rules *ru, bool guest,
			struct est_count *o)
{
	long per = guest && ru->boots > 1 ? div_up(ru->repeat, ru->boots) : 0;
	long rounds = target_rounds(ru);

	o->samples = ru->repeat;
	o->starts = per ? div_up(ru->repeat, per) : 1;
	o->samples_hi = o->samples;
	o->starts_hi = o->starts;
	if (ru->target) {
		o->samples_hi = ru->max_repeat;
		o->starts_hi = per ? div_up(ru->max_repeat, per) + rounds - 1
				   : rounds;
	}
}

/* order = interleaved: IN groups (bare metal), epochs of fresh guests. */
static void count_rounds(const struct est_rules *ru, bool guest, long in,
			 struct est_count *o)
{
	long epochs = ru->boots > 1 ? ru->boots : 1;
	long rounds = ru->plan_auto ? PLAN_SIZING_ROUNDS : ru->repeat;
	long per;

	if (ru->plan_auto)
		epochs = PLAN_SIZING_BOOTS;
	per = div_up(rounds, epochs);
	if (guest) {
		o->samples = rounds;
		o->starts = div_up(rounds, per);
	} else {
		o->samples = rounds * in;
		o->starts = in;
	}
	o->samples_hi = o->samples;
	o->starts_hi = o->starts;
	if (ru->plan_auto) {
		/* the plan's boots, each within max_repeat's samples */
		o->samples_hi = (PLAN_SIZING_ROUNDS + ru->max_repeat) *
				(guest ? 1 : in);
		o->starts_hi = guest ? ru->max_boots : 2 * in;
	} else if (ru->target) {
		o->samples_hi = ru->max_repeat * (guest ? 1 : in);
		o->starts_hi = o->starts * target_rounds(ru);
	}
}

void est_count_cells(const struct est_rules *ru, const struct cell *cells,
		     int n, const bool *guest, struct est_count *out)
{
	struct rgroup *gs = NULL;
	bool *waiting = NULL;
	size_t ng = 0;
	int ci;

	if (ru->interleaved) {
		waiting = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*waiting));
		for (ci = 0; ci < n; ci++)
			waiting[ci] = true;
		ng = rounds_groups_make(cells, n, guest, waiting,
					ru->mem_budget, &gs);
	}
	for (ci = 0; ci < n; ci++) {
		memset(&out[ci], 0, sizeof(out[ci]));
		if (ru->interleaved)
			count_rounds(ru, guest[ci],
				     rounds_groups_in(gs, ng, ci), &out[ci]);
		else
			count_cells(ru, guest[ci], &out[ci]);
	}
	rounds_groups_free(gs, ng);
	free(waiting);
}

/* ---- the cost ---- */

/* What one start of C costs: its boot, warm-up runs and the rest. */
static double start_cost(const struct est_input *in, const struct est_cell *c)
{
	return (c->guest ? c->boot.s : 0) + (double)in->warmup * c->sample.s +
	       in->rest.s;
}

double est_total(const struct est_input *in, bool hi)
{
	double t = 0;
	int i;

	for (i = 0; i < in->ncells; i++) {
		const struct est_cell *c = &in->cells[i];
		const struct est_count *k = &c->count;

		t += (double)(hi ? k->samples_hi : k->samples) * c->sample.s +
		     (double)(hi ? k->starts_hi : k->starts) *
			 start_cost(in, c);
	}
	if (in->lab)
		t += in->lab_start.s;
	t += in->nimages * in->image.s;
	return t;
}

void est_duration(double s, char *buf, size_t len)
{
	long m;

	if (!(s >= 0))
		s = 0;
	m = lround(s / 60);
	if (s < 100)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 600)
		snprintf(buf, len, "%.1f min", s / 60);
	else if (m < 120)
		snprintf(buf, len, "%ld min", m);
	else
		snprintf(buf, len, "%ld h %02ld min", m / 60, m % 60);
}

/* A figure's source, as said after its label. */
static void source_say(const struct est_figure *f, char *buf, size_t len)
{
	switch (f->src) {
	case EST_MEASURED:
		snprintf(buf, len, "measured here %s", f->date);
		break;
	case EST_DECLARED:
		snprintf(buf, len, "declared: %s", f->how);
		break;
	case EST_ASSUMED:
		snprintf(buf, len, "not measured here: %s", f->how);
		break;
	}
}

/* One term of the line: N x S (WHAT, source); summed over its cells. */
struct term {
	const char *what;
	double n, sum;		   /* count, and seconds in all */
	const struct est_figure *f; /* the least sure of its figures */
};

static void term_add(struct term *t, size_t *nt, const char *what, double n,
		     const struct est_figure *f)
{
	size_t i;

	if (n <= 0)
		return;
	for (i = 0; i < *nt && strcmp(t[i].what, what); i++)
		;
	if (i == *nt) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].what = what;
		t[i].f = f;
		(*nt)++;
	}
	t[i].n += n;
	t[i].sum += n * f->s;
	if (f->src > t[i].f->src)
		t[i].f = f;
}

/* Append printf-style to BUF at *OFF, bounded. */
static void VMTAX_PRINTF(4, 5)
    add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

static void terms_say(char *buf, size_t len, size_t *off, const char *head,
		      const struct term *t, size_t nt, const char *unit)
{
	char src[320];
	size_t i;

	for (i = 0; i < nt; i++) {
		source_say(t[i].f, src, sizeof(src));
		add(buf, len, off, "%s%.0f%s x %.1f s (%s, %s)",
		    i ? ", " : head, t[i].n, unit, t[i].sum / t[i].n,
		    t[i].what, src);
	}
}

void est_format(const struct est_input *in, char *buf, size_t len)
{
	struct term *ts = xcalloc((size_t)in->ncells + 1, sizeof(*ts));
	struct term *tb = xcalloc((size_t)in->ncells + 1, sizeof(*tb));
	size_t nts = 0, ntb = 0, off = 0;
	double lo = est_total(in, false), hi = est_total(in, true);
	long starts = 0;
	char d[32], src[320];
	int i;

	for (i = 0; i < in->ncells; i++) {
		const struct est_cell *c = &in->cells[i];

		term_add(ts, &nts, c->sample_what, (double)c->count.samples,
			 &c->sample);
		if (c->guest)
			term_add(tb, &ntb, c->boot_what,
				 (double)c->count.starts, &c->boot);
		starts += c->count.starts;
	}
	est_duration(lo, d, sizeof(d));
	add(buf, len, &off, "estimate: %s (%d cell%s; ", d, in->ncells,
	    in->ncells == 1 ? "" : "s");
	terms_say(buf, len, &off, "samples ", ts, nts, "");
	if (ntb)
		terms_say(buf, len, &off, "; boots ", tb, ntb, "");
	if (in->warmup && starts)
		add(buf, len, &off, "; %ld warm-up run%s", in->warmup * starts,
		    in->warmup * starts == 1 ? "" : "s");
	if (starts) {
		source_say(&in->rest, src, sizeof(src));
		add(buf, len, &off,
		    "; %ld start%s x %.1f s of setup and the rest (%s)", starts,
		    starts == 1 ? "" : "s", in->rest.s, src);
	}
	if (in->lab) {
		source_say(&in->lab_start, src, sizeof(src));
		add(buf, len, &off, "; lab start %.0f s (%s, %s)",
		    in->lab_start.s, in->lab_what, src);
	}
	if (in->nimages) {
		source_say(&in->image, src, sizeof(src));
		add(buf, len, &off, "; image build %.0f s (%s, %s)",
		    in->image.s, in->image_what, src);
	}
	add(buf, len, &off, ")");
	if (hi > lo * 1.01) {
		est_duration(hi, d, sizeof(d));
		add(buf, len, &off, "; up to %s: %s", d, in->range_why);
	}
	free(ts);
	free(tb);
}

/* ---- while the run goes ---- */

/*
 * The starts of C that are behind it: those a sample has followed (its
 * samples per start, counted), no more than its guests booted.  A guest
 * just booted, its warm-up still running, is still ahead: crediting it
 * at once made the first ETA of the demo 24 minutes for 32.
 */
static long starts_taken(const struct est_cell *c, const struct est_now *w)
{
	double per = c->count.starts > 0 ? (double)c->count.samples /
						   (double)c->count.starts
					 : 1;
	long n = per > 0 ? (long)ceil((double)w->samples_done / per) : 0;
	long most = c->guest ? w->boots_done : c->count.starts;

	return n < most ? n : most;
}

double est_eta(const struct est_input *in, const struct est_now *now,
	       double elapsed)
{
	double done = 0, left = 0, p = 0.1 * est_total(in, false);
	int i;

	for (i = 0; i < in->ncells; i++) {
		const struct est_cell *c = &in->cells[i];
		const struct est_now *w = &now[i];
		double sc = start_cost(in, c);
		long starts_done = starts_taken(c, w);

		done += (double)w->samples_done * c->sample.s +
			(double)starts_done * sc;
		if (!w->pending || w->samples_left <= 0)
			continue;
		left += (double)w->samples_left * c->sample.s;
		if (c->count.starts > starts_done)
			left += (double)(c->count.starts - starts_done) * sc;
	}
	if (!(elapsed > 0))
		elapsed = 0;
	/* nothing behind it yet: the model, less the time gone */
	if (!(done > 0))
		return left > elapsed ? left - elapsed : 0;
	return left * (elapsed + p) / (done + p);
}
