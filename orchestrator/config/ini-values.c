/* SPDX-License-Identifier: MIT */
/*
 * The value syntax of config files, beside the schema engine that uses it
 * (declared in ini-schema.h): UTF-8, sizes ("2G"), numbers, lists with
 * quoted elements, and the edit distance behind did-you-mean.  Pure code.
 */
#include "ini-schema.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

bool ini_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n, k;
		unsigned cp;

		if (c < 0x80) {
			if (c == 0)
				return false;
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1, cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2, cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3, cp = c & 0x07;
		} else {
			return false;
		}
		for (k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

unsigned ini_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned d[65][65];

	if (la > 64 || lb > 64)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			unsigned c = d[i - 1][j - 1] +
				     (tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]));

			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	return d[la][lb];
}

int ini_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;
	uint64_t mult = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0 || !isfinite(v))
		return -EINVAL;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mult = 1ULL << 10; break;
		case 'M': mult = 1ULL << 20; break;
		case 'G': mult = 1ULL << 30; break;
		case 'T': mult = 1ULL << 40; break;
		default: return -EINVAL;
		}
		end++;
		if ((*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
			end += 2;
		else if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (v * mult > 1e18)
		return -ERANGE;
	*out = (uint64_t)(v * mult);
	return 0;
}

void ini_list_free(struct ini_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->val);
	l->v = NULL;
	l->val = NULL;
	l->n = 0;
}

void ini_list_copy(struct ini_list *dst, const struct ini_list *src)
{
	size_t i;

	dst->n = src->n;
	dst->v = xcalloc(src->n ? src->n : 1, sizeof(char *));
	for (i = 0; i < src->n; i++)
		dst->v[i] = xstrdup(src->v[i]);
	dst->val = NULL;
	if (src->val) {
		dst->val = xcalloc(src->n ? src->n : 1, sizeof(*dst->val));
		memcpy(dst->val, src->val, src->n * sizeof(*dst->val));
	}
}

void ini_list_push(struct ini_list *l, const char *s, size_t n)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = xstrndup(s, n);
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A quoted element at *P (of list S) into L; *P past it and its blanks. */
static int list_quoted(struct ini_list *l, const char **pp, const char *s,
		       char *why, size_t wlen)
{
	const char *p = *pp, *e = strchr(p + 1, '"');

	if (!e) {
		snprintf(why, wlen, "unterminated quote in '%s'", s);
		return -EINVAL;
	}
	ini_list_push(l, p + 1, e - p - 1);
	p = skip_blanks(e + 1);
	if (*p && *p != ',') {
		snprintf(why, wlen,
			 "text after the closing quote of \"%s\" in '%s'",
			 l->v[l->n - 1], s);
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

/* A plain element at *P (of list S) into L, trimmed; *P past it. */
static int list_plain(struct ini_list *l, const char **pp, const char *s,
		      char *why, size_t wlen)
{
	const char *p = *pp, *e = strchr(p, ',');
	size_t n = e ? (size_t)(e - p) : strlen(p);

	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (!n) {
		snprintf(why, wlen,
			 "empty element in list '%s' (an empty "
			 "value is written \"\")",
			 s);
		return -EINVAL;
	}
	ini_list_push(l, p, n);
	*pp = skip_blanks(p + n);
	return 0;
}

int ini_list_parse(const char *s, struct ini_list *out, char *why,
		   size_t wlen)
{
	struct ini_list l = {0};
	const char *p = s;
	int ret;

	if (!*skip_blanks(s))
		goto done;
	/* after a comma an element must follow: "a," is refused */
	for (;;) {
		p = skip_blanks(p);
		ret = *p == '"' ? list_quoted(&l, &p, s, why, wlen)
				: list_plain(&l, &p, s, why, wlen);
		if (ret < 0) {
			ini_list_free(&l);
			return ret;
		}
		if (!*p)
			break;
		p++; /* the comma */
	}
done:
	*out = l;
	return 0;
}

bool ini_number(const char *v, double *out)
{
	uint64_t sz;
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end != v && !*end && !errno && isfinite(d) &&
	    !isspace((unsigned char)*v)) {
		*out = d;
		return true;
	}
	if (isdigit((unsigned char)*v) && ini_parse_size(v, &sz) == 0) {
		*out = (double)sz;
		return true;
	}
	return false;
}
