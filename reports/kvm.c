/* SPDX-License-Identifier: MIT */
/* A guest cell's KVM evidence: model.h, struct report_kvm. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define PAGE_4K 4096.0
#define PAGE_2M (2048.0 * 1024)
#define PAGE_1G (1024.0 * 1024 * 1024)

static double num_or_nan(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static struct report_kvm_reason *find_reason(struct report_kvm *k,
					     const char *reason)
{
	size_t i;

	for (i = 0; i < k->nreasons; i++)
		if (!strcmp(k->reasons[i].reason, reason))
			return &k->reasons[i];
	k->reasons =
	    xrealloc(k->reasons, (k->nreasons + 1) * sizeof(*k->reasons));
	memset(&k->reasons[k->nreasons], 0, sizeof(*k->reasons));
	k->reasons[k->nreasons].reason = reason;
	return &k->reasons[k->nreasons++];
}

static int add_reasons(const struct report *r, const struct report_cell *c,
		       long index, struct report_kvm *k, json_t *arr)
{
	json_t *e;
	size_t i;

	json_array_foreach(arr, i, e)
	{
		const char *reason =
		    json_string_value(json_object_get(e, "reason"));
		json_t *count = json_object_get(e, "count");
		struct report_kvm_reason *kr;

		if (!reason || !json_is_number(count))
			return err("'%s': cell '%s': sample %ld: "
				   "kvm.exits_by_reason[%zu] needs a reason "
				   "and a count",
				   r->path, c->id, index, i);
		kr = find_reason(k, reason);
		kr->code = (long)json_integer_value(json_object_get(e, "code"));
		kr->total += json_number_value(count);
	}
	return 0;
}

/* Accumulate delta counter sums in k->delta[].mean, counts in N. */
static void add_delta(struct report_kvm *k, json_t *delta, size_t **n)
{
	const char *name;
	json_t *v;
	size_t i;

	json_object_foreach(delta, name, v)
	{
		if (!json_is_number(v))
			continue;
		for (i = 0; i < k->ndelta && strcmp(k->delta[i].name, name);
		     i++)
			;
		if (i == k->ndelta) {
			k->delta = xrealloc(k->delta, (k->ndelta + 1) *
							  sizeof(*k->delta));
			*n = xrealloc(*n, (k->ndelta + 1) * sizeof(**n));
			k->delta[i].name = name;
			k->delta[i].mean = 0;
			(*n)[i] = 0;
			k->ndelta++;
		}
		k->delta[i].mean += json_number_value(v);
		(*n)[i]++;
	}
}

static int cmp_reason(const void *a, const void *b)
{
	const struct report_kvm_reason *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->reason, y->reason);
}

/* Why an ok sample without a kvm object has none. */
static const char *sample_why(json_t *js)
{
	json_t *kvm = json_object_get(js, "kvm");
	const char *why = json_string_value(json_object_get(js, "kvm_why"));

	if (why)
		return why;
	if (!kvm)
		return "no KVM evidence in the results file (recorded before "
		       "vmtax read KVM's counters)";
	return "kvm is null and no kvm_why given";
}

/* The sums over a cell's samples that become its means. */
struct kvm_sums {
	double exits, etotal;
	size_t nexits, netotal;
	size_t *n;    /* samples per delta counter */
	json_t *last; /* the last sample's kvm: its page counts */
};

/* Sample S's kvm object KVM into K and the sums. */
static int kvm_add_sample(const struct report *r, struct report_cell *c,
			  const struct report_sample *s, json_t *kvm,
			  struct kvm_sums *sum)
{
	struct report_kvm *k = &c->kvm;
	json_t *delta = json_object_get(kvm, "delta"), *byr;
	int ret;

	k->nsamples++;
	sum->last = kvm;
	if (!k->vendor)
		k->vendor =
		    json_string_value(json_object_get(kvm, "exits_vendor"));
	add_delta(k, delta, &sum->n);
	if (json_is_number(json_object_get(delta, "exits"))) {
		sum->exits +=
		    json_number_value(json_object_get(delta, "exits"));
		sum->nexits++;
	}
	if (json_is_number(json_object_get(kvm, "exits_total"))) {
		sum->etotal +=
		    json_number_value(json_object_get(kvm, "exits_total"));
		sum->netotal++;
	}
	byr = json_object_get(kvm, "exits_by_reason");
	if (json_is_array(byr)) {
		ret = add_reasons(r, c, s->index, k, byr);
		if (ret < 0)
			return ret;
		k->nreason_samples++;
	} else if (!k->reasons_why) {
		k->reasons_why = json_string_value(
		    json_object_get(kvm, "exits_by_reason_why"));
		if (!k->reasons_why)
			k->reasons_why = "no exits by reason recorded";
	}
	return 0;
}

/* The means, the exit reasons sorted with their shares. */
static void kvm_means(struct report_kvm *k, const struct kvm_sums *sum)
{
	double rsum = 0;
	size_t i;

	for (i = 0; i < k->ndelta; i++)
		k->delta[i].mean /= sum->n[i];
	k->exits_per_sample = sum->nexits ? sum->exits / sum->nexits : NAN;
	k->exits_total_mean = sum->netotal ? sum->etotal / sum->netotal : NAN;
	if (k->nreasons)
		qsort(k->reasons, k->nreasons, sizeof(*k->reasons), cmp_reason);
	for (i = 0; i < k->nreasons; i++)
		rsum += k->reasons[i].total;
	for (i = 0; i < k->nreasons; i++) {
		k->reasons[i].per_sample =
		    k->reasons[i].total / k->nreason_samples;
		k->reasons[i].share =
		    rsum > 0 ? k->reasons[i].total / rsum : NAN;
	}
}

/* The guest memory's page sizes, from the last sample (LAST). */
static void kvm_pages(struct report_kvm *k, json_t *last)
{
	k->pages_4k = num_or_nan(json_object_get(last, "pages_4k"));
	k->pages_2m = num_or_nan(json_object_get(last, "pages_2m"));
	k->pages_1g = num_or_nan(json_object_get(last, "pages_1g"));
	if (!isnan(k->pages_4k) && !isnan(k->pages_2m) && !isnan(k->pages_1g)) {
		double bytes = k->pages_4k * PAGE_4K + k->pages_2m * PAGE_2M +
			       k->pages_1g * PAGE_1G;

		if (bytes > 0) {
			k->share_2m = k->pages_2m * PAGE_2M / bytes;
			k->share_1g = k->pages_1g * PAGE_1G / bytes;
		}
	}
}

int report_cell_kvm(const struct report *r, struct report_cell *c,
		    json_t *samples)
{
	struct report_kvm *k = &c->kvm;
	struct kvm_sums sum = {0};
	json_t *js;
	size_t i;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	k->exits_per_sample = k->exits_total_mean = NAN;
	k->pages_4k = k->pages_2m = k->pages_1g = NAN;
	k->share_2m = k->share_1g = NAN;
	if (c->bare_metal)
		k->why = "bare metal: no guest";
	else if (!c->nok)
		k->why = "no ok samples";
	json_array_foreach(samples, i, js)
	{
		const struct report_sample *s = &c->samples[i];
		json_t *kvm = json_object_get(js, "kvm");

		if (c->bare_metal || strcmp(s->status, "ok"))
			continue;
		if (kvm && !json_is_object(kvm) && !json_is_null(kvm)) {
			ret = err("'%s': cell '%s': sample %ld: kvm is not an "
				  "object or null",
				  r->path, c->id, s->index);
			goto out;
		}
		if (!json_is_object(kvm)) {
			if (!k->why)
				k->why = sample_why(js);
			continue;
		}
		ret = kvm_add_sample(r, c, s, kvm, &sum);
		if (ret < 0)
			goto out;
	}
	if (!k->nsamples)
		goto out;
	k->present = true;
	k->why = NULL;
	if (k->nreason_samples)
		k->reasons_why = NULL;
	kvm_means(k, &sum);
	kvm_pages(k, sum.last);
out:
	free(sum.n);
	return ret;
}

void report_kvm_release(struct report_kvm *k)
{
	free(k->delta);
	free(k->reasons);
	k->delta = NULL;
	k->reasons = NULL;
	k->ndelta = k->nreasons = 0;
}

double report_kvm_delta(const struct report_kvm *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->ndelta; i++)
		if (!strcmp(k->delta[i].name, name))
			return k->delta[i].mean;
	return NAN;
}
