// SPDX-License-Identifier: MIT
/*
 * The one escaping function per format (format.h, docs/security.md
 * "Reports"): every string that comes from a results file goes through the
 * one of its format, and fmt_printf() passes each %s argument through it.
 */
#include "format.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "untrusted.h"
#include "util.h"

void fmt_html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

/* A spreadsheet takes a field starting with one of these as a formula. */
static bool csv_formula(const char *s)
{
	return *s && strchr("=+-@\t\r", *s);
}

void fmt_csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		if (csv_formula(s))
			fputc('\'', out);
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (csv_formula(s))
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * Whether the character at S (START the string's first) needs a backslash
 * in Markdown: \\ & | and backquotes always; '<' where a tag, a comment or
 * an autolink could start (before a letter, '/', '!' or '?'), so that
 * "<0.0001" stays as it is; '>' where it could start a block quote (first),
 * so that "1913.3 -> 2035.3" does.
 */
static bool md_special(const char *s, bool start)
{
	if (*s == '<')
		return !s[1] || isalpha((unsigned char)s[1]) ||
		       strchr("/!?", s[1]);
	if (*s == '>')
		return start;
	return strchr("\\&|`", *s) != NULL;
}

void fmt_md_escape(FILE *out, const char *s)
{
	size_t n = s ? strlen(s) : 0, k;

	for (size_t i = 0; i < n; i += k ? k : 1) {
		k = untrusted_ctrl_len(s + i, n - i);
		if (s[i] == '\n')
			fputc(' ', out);
		else if (k)
			untrusted_fwrite(out, s + i, k, false);
		else if (md_special(s + i, i == 0))
			fprintf(out, "\\%c", s[i]);
		else
			fputc(s[i], out);
	}
}

void fmt_text_escape(FILE *out, const char *s)
{
	untrusted_fputs(out, s);
}

/*
 * One conversion: SPEC is its text ("%-*s", "%7.3f"), LEN its length
 * modifier, C its letter; W and P its width and precision (-1: none),
 * WSTAR and PSTAR whether they came from the arguments.
 */
struct conv {
	const char *spec, *len;
	char c;
	int w, p;
	bool wstar, pstar;
};

static void conv_str(FILE *out, fmt_escape_fn esc, const struct conv *v,
		     const char *s)
{
	char *e = NULL, *cut = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&e, &n);
	bool left = strchr(v->spec, '-') || v->w < 0;

	if (!m)
		abort();
	s = s ? s : "(null)";
	/* the precision cuts the string, not its escapes */
	if (v->p >= 0)
		s = cut = xstrndup(s, (size_t)v->p);
	esc(m, s);
	fclose(m);
	fprintf(out, left ? "%-*s" : "%*s", v->w < 0 ? -v->w : v->w, e);
	free(cut);
	free(e);
}

static void conv_arg(FILE *out, fmt_escape_fn esc, const struct conv *v,
		     va_list *ap)
{
#define PR(type)                                                               \
	do {                                                                   \
		type v_ = va_arg(*ap, type);                                   \
		if (v->wstar && v->pstar)                                      \
			fprintf(out, v->spec, v->w, v->p, v_);                 \
		else if (v->wstar || v->pstar)                                 \
			fprintf(out, v->spec, v->wstar ? v->w : v->p, v_);     \
		else                                                           \
			fprintf(out, v->spec, v_);                             \
	} while (0)
#define PRS(stype, utype)                                                      \
	do {                                                                   \
		if (sign)                                                      \
			PR(stype);                                             \
		else                                                           \
			PR(utype);                                             \
	} while (0)
	const char *len = v->len;
	bool sign = strchr("di", v->c) != NULL;

	if (v->c == 's') {
		conv_str(out, esc, v, va_arg(*ap, const char *));
	} else if (strchr("diouxXc", v->c)) {
		if (v->c == 'c' || !*len || !strcmp(len, "h") ||
		    !strcmp(len, "hh"))
			PRS(int, unsigned);
		else if (!strcmp(len, "l"))
			PRS(long, unsigned long);
		else if (!strcmp(len, "ll"))
			PRS(long long, unsigned long long);
		else if (!strcmp(len, "z"))
			PRS(ssize_t, size_t);
		else if (!strcmp(len, "j"))
			PRS(intmax_t, uintmax_t);
		else
			PR(ptrdiff_t);
	} else if (strchr("fFeEgGaA", v->c)) {
		if (!strcmp(len, "L"))
			PR(long double);
		else
			PR(double);
	} else if (v->c == 'p') {
		PR(void *);
	} else {
		abort(); /* %n or unknown: a bug in a format string */
	}
#undef PRS
#undef PR
}

/* Parse the conversion at PCT ('%') into V and SPEC; returns its end. */
static const char *conv_parse(const char *pct, struct conv *v, char *spec,
			      size_t slen, char *len, va_list *ap)
{
	const char *q = pct + 1;
	size_t n = 0;

	q += strspn(q, "-+ #0");
	v->w = 0;
	v->p = -1;
	v->wstar = v->pstar = false;
	if (*q == '*') {
		v->w = va_arg(*ap, int);
		v->wstar = true;
		q++;
	} else {
		v->w = atoi(q);
		q += strspn(q, "0123456789");
	}
	if (*q == '.') {
		q++;
		if (*q == '*') {
			v->p = va_arg(*ap, int);
			v->pstar = true;
			q++;
		} else {
			v->p = atoi(q);
			q += strspn(q, "0123456789");
		}
	}
	while (n < 2 && *q && strchr("hlzjtL", *q))
		len[n++] = *q++;
	len[n] = '\0';
	if (!*q || (size_t)(q + 1 - pct) >= slen)
		abort();
	memcpy(spec, pct, (size_t)(q + 1 - pct));
	spec[q + 1 - pct] = '\0';
	v->spec = spec;
	v->len = len;
	v->c = *q;
	return q + 1;
}

void fmt_vprintf(FILE *out, fmt_escape_fn esc, const char *fmt, va_list ap)
{
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		char spec[32], len[3];
		struct conv v;

		if (!pct) {
			fputs(fmt, out);
			break;
		}
		fwrite(fmt, 1, (size_t)(pct - fmt), out);
		if (pct[1] == '%') {
			fputc('%', out);
			fmt = pct + 2;
			continue;
		}
		fmt = conv_parse(pct, &v, spec, sizeof(spec), len, &aq);
		conv_arg(out, esc, &v, &aq);
	}
	va_end(aq);
}

void fmt_printf(FILE *out, fmt_escape_fn esc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vprintf(out, esc, fmt, ap);
	va_end(ap);
}
