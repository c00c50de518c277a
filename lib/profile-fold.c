// SPDX-License-Identifier: MIT
#include "profile.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct profile *profile_new(void)
{
	return xcalloc(1, sizeof(struct profile));
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->event);
	for (size_t i = 0; i < p->nmissing; i++)
		free(p->missing[i]);
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].stack);
	free(p->stacks);
	free(p->index);
	free(p);
}

static void rehash(struct profile *p)
{
	size_t ncap = p->hcap ? p->hcap * 2 : 256;

	free(p->index);
	p->index = xmalloc(ncap * sizeof(*p->index));
	for (size_t i = 0; i < ncap; i++)
		p->index[i] = -1;
	p->hcap = ncap;
	for (size_t i = 0; i < p->nstacks; i++) {
		const char *s = p->stacks[i].stack;
		size_t h = hash_fnv1a(s, strlen(s)) & (ncap - 1);

		while (p->index[h] >= 0)
			h = (h + 1) & (ncap - 1);
		p->index[h] = (long)i;
	}
}

void profile_add_folded(struct profile *p, const char *stack, size_t len,
			uint64_t count)
{
	size_t h;

	if ((p->nstacks + 1) * 2 > p->hcap)
		rehash(p);
	h = hash_fnv1a(stack, len) & (p->hcap - 1);
	while (p->index[h] >= 0) {
		struct profile_stack *s = &p->stacks[p->index[h]];

		if (!strncmp(s->stack, stack, len) && !s->stack[len]) {
			s->count += count;
			p->samples += count;
			return;
		}
		h = (h + 1) & (p->hcap - 1);
	}
	if (p->nstacks == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->stacks = xrealloc(p->stacks, p->cap * sizeof(*p->stacks));
	}
	p->stacks[p->nstacks].stack = xstrndup(stack, len);
	p->stacks[p->nstacks].count = count;
	p->index[h] = (long)p->nstacks++;
	p->samples += count;
}

void profile_add(struct profile *p, const char *const *frames, size_t n,
		 uint64_t count)
{
	size_t len = 0, k = 0;
	char *buf;

	for (size_t i = 0; i < n; i++)
		len += (frames[i] && *frames[i] ? strlen(frames[i])
						: strlen(PROFILE_UNKNOWN)) +
		       1;
	if (!n) {
		profile_add_folded(p, PROFILE_UNKNOWN, strlen(PROFILE_UNKNOWN),
				   count);
		return;
	}
	buf = xmalloc(len + 1);
	for (size_t i = 0; i < n; i++) {
		const char *f =
		    frames[i] && *frames[i] ? frames[i] : PROFILE_UNKNOWN;

		if (i)
			buf[k++] = ';';
		for (; *f; f++)
			/* printable ASCII only: the text travels as JSON */
			buf[k++] = (unsigned char)*f > 0x7e ? '?'
				   : (*f == ';' || isspace((unsigned char)*f) ||
				      iscntrl((unsigned char)*f))
				       ? '_'
				       : *f;
	}
	buf[k] = '\0';
	profile_add_folded(p, buf, k, count);
	free(buf);
}

void profile_note_missing(struct profile *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	for (size_t i = 0; i < p->nmissing; i++) {
		if (!strcmp(p->missing[i], s)) {
			free(s);
			return;
		}
	}
	if (p->nmissing == PROFILE_MISSING_MAX) {
		free(s);
		return;
	}
	p->missing[p->nmissing++] = s;
}

static int by_count(const void *a, const void *b)
{
	const struct profile_stack *x = *(struct profile_stack *const *)a;
	const struct profile_stack *y = *(struct profile_stack *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

char *profile_folded_new(const struct profile *p, size_t max)
{
	struct profile_stack **v = xcalloc(p->nstacks + 1, sizeof(*v));
	size_t len = 0, cap = 4096, i;
	uint64_t other = 0;
	char *out = xmalloc(cap);
	/* room for the "[other stacks] N" line */
	size_t reserve = strlen(PROFILE_OTHER_STACKS) + 24;

	out[0] = '\0';
	for (i = 0; i < p->nstacks; i++)
		v[i] = &p->stacks[i];
	qsort(v, p->nstacks, sizeof(*v), by_count);
	for (i = 0; i < p->nstacks; i++) {
		size_t need = strlen(v[i]->stack) + 24;

		if (len + need + reserve > max) {
			other += v[i]->count;
			continue;
		}
		if (len + need + 1 > cap) {
			while (len + need + 1 > cap)
				cap *= 2;
			out = xrealloc(out, cap);
		}
		len += (size_t)snprintf(out + len, cap - len, "%s %llu\n",
					v[i]->stack,
					(unsigned long long)v[i]->count);
	}
	if (other) {
		if (len + reserve + 1 > cap)
			out = xrealloc(out, cap = len + reserve + 1);
		len += (size_t)snprintf(out + len, cap - len, "%s %llu\n",
					PROFILE_OTHER_STACKS,
					(unsigned long long)other);
	}
	free(v);
	return out;
}

/*
 * The count at the end of folded line L (N bytes, number LINE) into
 * *COUNT, and where it starts into *SP; -EINVAL with why in ERRBUF.
 */
static int folded_count(const char *l, size_t n, long line, size_t *sp,
			uint64_t *count, char *errbuf, size_t errlen)
{
	size_t s;

	for (s = n; s > 0 && l[s - 1] != ' '; s--)
		;
	if (!s || s == n) {
		snprintf(errbuf, errlen, "line %ld: no count", line);
		return -EINVAL;
	}
	*count = 0;
	for (size_t k = s; k < n; k++) {
		if (!isdigit((unsigned char)l[k]) ||
		    *count > (UINT64_MAX - 9) / 10) {
			snprintf(errbuf, errlen, "line %ld: bad count '%.*s'",
				 line, (int)(n - s > 32 ? 32 : n - s), l + s);
			return -EINVAL;
		}
		*count = *count * 10 + (uint64_t)(l[k] - '0');
	}
	if (!*count) {
		snprintf(errbuf, errlen, "line %ld: count 0", line);
		return -EINVAL;
	}
	*sp = s;
	return 0;
}

/* The stack L (SLEN bytes): frames neither empty nor too many, no NUL. */
static int folded_stack_check(const char *l, size_t slen, long line,
			      char *errbuf, size_t errlen)
{
	if (!slen) {
		snprintf(errbuf, errlen, "line %ld: empty stack", line);
		return -EINVAL;
	}
	for (size_t k = 0, frames = 1; k < slen; k++) {
		bool first = k == 0, last = k + 1 == slen;

		if (l[k] == ';' && ++frames > PROFILE_STACK_FRAMES_MAX) {
			snprintf(errbuf, errlen,
				 "line %ld: a stack deeper than %d "
				 "frames (PROFILE_STACK_FRAMES_MAX)",
				 line, PROFILE_STACK_FRAMES_MAX);
			return -EINVAL;
		}

		if (l[k] == '\0' ||
		    (l[k] == ';' && (first || last || l[k + 1] == ';'))) {
			snprintf(errbuf, errlen, "line %ld: empty frame or NUL",
				 line);
			return -EINVAL;
		}
	}
	return 0;
}

int profile_folded_parse(struct profile *p, const char *text, size_t len,
			 char *errbuf, size_t errlen)
{
	size_t pos = 0;
	long line = 0;
	int ret;

	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		size_t sp, slen;
		uint64_t count;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && l[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		ret = folded_count(l, n, line, &sp, &count, errbuf, errlen);
		if (ret < 0)
			return ret;
		slen = sp - 1;
		ret = folded_stack_check(l, slen, line, errbuf, errlen);
		if (ret < 0)
			return ret;
		profile_add_folded(p, l, slen, count);
		if (p->nstacks > PROFILE_STACKS_MAX) {
			snprintf(errbuf, errlen,
				 "line %ld: more than %d distinct stacks "
				 "(PROFILE_STACKS_MAX)",
				 line, PROFILE_STACKS_MAX);
			return -EINVAL;
		}
	}
	return 0;
}

json_t *profile_to_json(const struct profile *p)
{
	json_t *j = json_object(), *m = json_array();
	char *folded = profile_folded_new(p, PROFILE_FOLDED_MAX);

	for (size_t i = 0; i < p->nmissing; i++)
		json_array_append_new(m, json_string(p->missing[i]));
	json_object_set_new(j, "event",
			    p->event ? json_string(p->event) : json_null());
	json_object_set_new(j, "freq_hz", json_real(p->freq_hz));
	json_object_set_new(j, "kernel", json_boolean(p->kernel));
	json_object_set_new(j, "samples", json_integer((json_int_t)p->samples));
	json_object_set_new(j, "lost", json_integer((json_int_t)p->lost));
	json_object_set_new(j, "unknown", json_integer((json_int_t)p->unknown));
	json_object_set_new(j, "missing", m);
	json_object_set_new(j, "folded", json_string(folded));
	free(folded);
	return j;
}

static bool count_get(const json_t *j, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

struct profile *profile_from_json(const json_t *j, char *errbuf, size_t errlen)
{
	struct profile *p = profile_new();
	const json_t *ev = json_object_get(j, "event");
	const json_t *folded = json_object_get(j, "folded");
	const json_t *missing = json_object_get(j, "missing");
	const json_t *m;
	uint64_t samples = 0;
	size_t i;

	if (!json_is_object(j)) {
		snprintf(errbuf, errlen, "profile is not an object");
		goto bad;
	}
	if (!json_is_null(ev) && !json_is_string(ev)) {
		snprintf(errbuf, errlen, "profile 'event' is not a string");
		goto bad;
	}
	if (!json_is_string(folded) || !json_is_array(missing) ||
	    !count_get(j, "samples", &samples) ||
	    !count_get(j, "lost", &p->lost) ||
	    !count_get(j, "unknown", &p->unknown)) {
		snprintf(errbuf, errlen,
			 "profile lacks 'folded', 'missing', 'samples', "
			 "'lost' or 'unknown'");
		goto bad;
	}
	p->event = json_is_string(ev) ? xstrdup(json_string_value(ev)) : NULL;
	p->freq_hz = json_number_value(json_object_get(j, "freq_hz"));
	p->kernel = json_is_true(json_object_get(j, "kernel"));
	json_array_foreach(missing, i, m)
	{
		if (!json_is_string(m)) {
			snprintf(errbuf, errlen,
				 "profile 'missing' holds a "
				 "non-string");
			goto bad;
		}
		profile_note_missing(p, "%s", json_string_value(m));
	}
	if (profile_folded_parse(p, json_string_value(folded),
				 json_string_length(folded), errbuf,
				 errlen) < 0)
		goto bad;
	if (p->samples != samples) {
		snprintf(errbuf, errlen,
			 "profile counts %llu samples but its stacks hold %llu",
			 (unsigned long long)samples,
			 (unsigned long long)p->samples);
		goto bad;
	}
	return p;
bad:
	profile_free(p);
	return NULL;
}
