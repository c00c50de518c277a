/* SPDX-License-Identifier: MIT */
#include "ini-schema.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fnmatch.h>
#include <ini.h>
#include <math.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

#define FIELD(obj, off, type) ((type *)((char *)(obj) + (off)))

struct parse_state {
	const struct ini_schema *s;
	void *obj;
	struct ini_origin *o;
	const char *path;
	const char *text; /* cursor for the reader */
	int line;	  /* line the reader handed out last */
	void *sections;	  /* struct seen: the sections so far */
	void *keys;	  /* struct seen: "SECTION\nNAME" of extra keys */
	ini_extra_fn extra;
	void *extra_arg;
	int errors;
	/* The value of the line handed out last when it was too long for
	 * inih's buffer (long_key()); NULL for a line that fit. */
	char *long_value;
};

/* Whether V is one of CHOICES (any value without choices); *IDX: which. */
static bool in_choices(const char *const *choices, const char *v, long *idx)
{
	long i;

	*idx = 0;
	if (!choices)
		return true;
	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], v)) {
			*idx = i;
			return true;
		}
	return false;
}

static void choices_str(const char *const *choices, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; choices && *choices && off < len; choices++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				*choices);
}

static const struct ini_key *find_key(const struct ini_schema *s,
				      const char *section, const char *name,
				      size_t *idx)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].section, section) &&
		    !strcmp(s->keys[i].name, name)) {
			if (idx)
				*idx = i;
			return &s->keys[i];
		}
	return NULL;
}

static void mark_set(const struct ini_key *k, void *obj)
{
	if (k->set_flag)
		*FIELD(obj, k->set_flag - 1, bool) = true;
}

static void free_value(const struct ini_key *k, void *obj)
{
	if (k->shape != INI_ONE) {
		ini_list_free(FIELD(obj, k->offset, struct ini_list));
		return;
	}
	switch (k->type) {
	case INI_STR:
	case INI_ENUM:
		free(*FIELD(obj, k->offset, char *));
		*FIELD(obj, k->offset, char *) = NULL;
		break;
	default:
		break;
	}
}

/* Check one VALUE as K's type and rule; on a bad one the reason goes to WHY. */
static int parse_one(const struct ini_key *k, const char *value,
		     union ini_value *out, char *why, size_t wlen)
{
	char cs[512], *end;

	switch (k->type) {
	case INI_STR:
		break;
	case INI_ENUM:
		if (!in_choices(k->choices, value, &out->n)) {
			choices_str(k->choices, cs, sizeof(cs));
			snprintf(why, wlen, "'%s' is not one of: %s", value, cs);
			return -EINVAL;
		}
		break;
	case INI_INT:
		errno = 0;
		out->n = strtol(value, &end, 0);
		if (end == value || *end || errno) {
			snprintf(why, wlen, "'%s' is not an integer", value);
			return -EINVAL;
		}
		if (out->n < k->min || (k->max && out->n > k->max)) {
			if (!k->max)
				snprintf(why, wlen,
					 "%ld is out of range (at least %.0f)",
					 out->n, k->min);
			else if (k->min <= (double)LONG_MIN)
				snprintf(why, wlen,
					 "%ld is out of range (at most %.0f)",
					 out->n, k->max);
			else
				snprintf(why, wlen,
					 "%ld is out of range [%.0f, %.0f]",
					 out->n, k->min, k->max);
			return -ERANGE;
		}
		break;
	case INI_DOUBLE:
		errno = 0;
		out->d = strtod(value, &end);
		if (end == value || *end || errno || !isfinite(out->d)) {
			snprintf(why, wlen, "'%s' is not a number", value);
			return -EINVAL;
		}
		if (out->d < k->min || (k->max && out->d > k->max)) {
			snprintf(why, wlen, "%g is out of range [%g, %g]",
				 out->d, k->min, k->max);
			return -ERANGE;
		}
		break;
	case INI_SIZE:
		if (ini_parse_size(value, &out->sz) < 0) {
			snprintf(why, wlen,
				 "'%s' is not a size (like 512M, 2G, 4096)",
				 value);
			return -EINVAL;
		}
		if (out->sz < k->min || (k->max && out->sz > k->max)) {
			if (!k->max)
				snprintf(why, wlen,
					 "%s is out of range (at least %.0f MiB)",
					 value, k->min / 1048576);
			else
				snprintf(why, wlen,
					 "%s is out of range [%.0f MiB, %.0f MiB]",
					 value, k->min / 1048576,
					 k->max / 1048576);
			return -ERANGE;
		}
		break;
	case INI_BOOL:
		if (!strcasecmp(value, "yes") || !strcasecmp(value, "true") ||
		    !strcmp(value, "1") || !strcasecmp(value, "on"))
			out->b = true;
		else if (!strcasecmp(value, "no") ||
			 !strcasecmp(value, "false") || !strcmp(value, "0") ||
			 !strcasecmp(value, "off"))
			out->b = false;
		else {
			snprintf(why, wlen, "'%s' is not a boolean (yes/no)",
				 value);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

int ini_value_check(const struct ini_key *k, const char *value, char *why,
		    size_t wlen)
{
	union ini_value v;
	int ret = parse_one(k, value, &v, why, wlen);

	if (ret == 0 && k->check)
		ret = k->check(value, why, wlen);
	return ret;
}

/*
 * Store VALUE for K; on a bad value put the reason in WHY and fail.  *WHOLE
 * says WHY is the whole message (a check() refused), not a reason to follow
 * "bad value for 'KEY': ".
 */
static int store(const struct ini_key *k, void *obj, const char *value,
		 char *why, size_t wlen, bool *whole)
{
	struct ini_list l = { 0 };
	union ini_value v;
	size_t i, j;
	int ret;

	*whole = false;
	if (k->shape == INI_ONE) {
		ret = parse_one(k, value, &v, why, wlen);
		if (ret < 0)
			return ret;
		if (k->check && (ret = k->check(value, why, wlen)) < 0) {
			*whole = true;
			return ret;
		}
		switch (k->type) {
		case INI_STR:
		case INI_ENUM:
			free_value(k, obj);
			*FIELD(obj, k->offset, char *) = xstrdup(value);
			break;
		case INI_INT: *FIELD(obj, k->offset, long) = v.n; break;
		case INI_DOUBLE: *FIELD(obj, k->offset, double) = v.d; break;
		case INI_SIZE: *FIELD(obj, k->offset, uint64_t) = v.sz; break;
		case INI_BOOL: *FIELD(obj, k->offset, bool) = v.b; break;
		}
		return 0;
	}
	if (ini_list_parse(value, &l, why, wlen) < 0)
		return -EINVAL;
	if (!l.n && k->shape == INI_AXIS && k->type == INI_STR)
		ini_list_push(&l, "", 0);
	if (!l.n) {
		snprintf(why, wlen, "empty value (give at least one)");
		return -EINVAL;
	}
	l.val = xcalloc(l.n, sizeof(*l.val));
	for (i = 0; i < l.n; i++) {
		ret = parse_one(k, l.v[i], &l.val[i], why, wlen);
		if (ret >= 0 && k->check && (ret = k->check(l.v[i], why, wlen)) < 0)
			*whole = true;
		if (ret < 0)
			goto bad;
		for (j = 0; j < i; j++)
			if (!strcmp(l.v[i], l.v[j])) {
				snprintf(why, wlen, "'%s' is listed twice",
					 l.v[i]);
				ret = -EINVAL;
				goto bad;
			}
	}
	free_value(k, obj);
	*FIELD(obj, k->offset, struct ini_list) = l;
	return 0;
bad:
	ini_list_free(&l);
	return ret;
}

static bool section_is_extra(const struct ini_schema *s, const char *section,
			     bool *open_keys)
{
	const char *const *e;

	*open_keys = false;
	for (e = s->extra_sections; e && *e; e++) {
		size_t n = strlen(*e);

		if ((*e)[n - 1] == '*' && !strncmp(*e, section, n - 1))
			return true;
		if ((*e)[n - 1] == '+' && !strncmp(*e, section, n - 1) &&
		    !section[n - 1]) {
			*open_keys = true;
			return true;
		}
		if (!strcmp(*e, section))
			return true;
	}
	return false;
}

static bool section_known(const struct ini_schema *s, const char *section)
{
	bool open_keys;
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].section, section))
			return true;
	return section_is_extra(s, section, &open_keys);
}

static void suggest(const struct ini_schema *s, const char *section,
		    const char *name, char *buf, size_t len)
{
	unsigned best = 3, d;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < s->nkeys; i++) {
		if (section && strcmp(s->keys[i].section, section))
			continue;
		d = ini_edit_distance(name, section ? s->keys[i].name
						    : s->keys[i].section);
		if (d < best) {
			best = d;
			snprintf(buf, len, " (did you mean '%s'?)",
				 section ? s->keys[i].name
					 : s->keys[i].section);
		}
	}
}

/*
 * A name the file used, and its line: the sections, and the keys no table
 * names, each once.  tsearch(3)'s trees (red-black in glibc): a lookup is
 * O(log n) whatever the names are, so a file of 100,000 sections parses in
 * n log n comparisons, not the n^2 of a list (test-ini-linear counts them).
 */
struct seen {
	char *name;
	int line;
};

static int seen_cmp(const void *a, const void *b)
{
	return strcmp(((const struct seen *)a)->name,
		      ((const struct seen *)b)->name);
}

static void seen_free(void *p)
{
	struct seen *s = p;

	free(s->name);
	free(s);
}

/* The line NAME was first seen on in ROOT, or 0. */
static int seen_line(void *const *root, const char *name)
{
	struct seen key = {(char *)name, 0}, **s = tfind(&key, root, seen_cmp);

	return s ? (*s)->line : 0;
}

/* NAME (owned: taken) into ROOT on LINE: 0, or the line it was first on. */
static int seen_add(void **root, char *name, int line)
{
	struct seen *s = xmalloc(sizeof(*s)), **at;

	s->name = name;
	s->line = line;
	at = tsearch(s, root, seen_cmp);
	if (!at)
		abort(); /* out of memory, as xmalloc() */
	if (*at == s)
		return 0;
	seen_free(s);
	return (*at)->line;
}

static void perr(struct parse_state *st, const char *fmt, ...)
	VMTAX_PRINTF(2, 3);
static void perr(struct parse_state *st, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_plain("%s:%d: %s", st->path, st->line, msg);
	st->errors++;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse_state *st = user;
	const struct ini_key *k;
	char why[600], sug[128];
	bool open_keys, whole;
	size_t idx;
	int ret;

	if (st->long_value)
		value = st->long_value;
	if (!*section) {
		perr(st, "key '%s' outside any section", name);
		return 1;
	}
	if (!section_known(st->s, section)) {
		suggest(st->s, NULL, section, sug, sizeof(sug));
		perr(st, "unknown section [%s]%s", section, sug);
		return 1;
	}
	k = find_key(st->s, section, name, &idx);
	if (k) {
		if (st->o->line[idx]) {
			perr(st, "'%s' is set twice in [%s] (first on line %d)",
			     name, section, st->o->line[idx]);
			return 1;
		}
		ret = store(k, st->obj, value, why, sizeof(why), &whole);
		if (ret < 0 && whole)
			perr(st, "%s", why);
		else if (ret < 0)
			perr(st, "bad value for '%s': %s", name, why);
		if (ret < 0)
			return 1;
		st->o->line[idx] = st->line;
		mark_set(k, st->obj);
		return 1;
	}
	if (section_is_extra(st->s, section, &open_keys) && st->extra) {
		char *key = xasprintf("%s\n%s", section, name);
		int first = seen_line(&st->keys, key);

		if (first) {
			free(key);
			perr(st, "'%s' is set twice in [%s] (first on line %d)",
			     name, section, first);
			return 1;
		}
		ret = st->extra(st->extra_arg, st->path, st->line, section,
				name, value);
		if (ret == 0) {
			seen_add(&st->keys, key, st->line);
			return 1;
		}
		free(key);
		if (ret != -ENOENT) {
			st->errors++;
			return 1;
		}
	}
	suggest(st->s, section, name, sug, sizeof(sug));
	perr(st, "unknown key '%s' in [%s]%s", name, section, sug);
	return 1;
}

/*
 * inih calls the handler per key only, so a repeated section header is
 * spotted here, where the lines go by.
 */
static void note_section(struct parse_state *st, const char *line)
{
	const char *p = line, *e;
	int first;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '[' || !(e = strchr(p, ']')))
		return;
	first = seen_add(&st->sections, xstrndup(p + 1, (size_t)(e - p - 1)),
			 st->line);
	if (first)
		perr(st, "section [%.*s] appears twice (first on line %d)",
		     (int)(e - p - 1), p + 1, first);
}

/*
 * inih reads a line into a buffer of INI_LINE_MAX bytes compiled into the
 * system library.  A longer line is handed to it shortened, with the same
 * meaning: a comment as ";", a "NAME = VALUE" line as "NAME =", its VALUE
 * (as inih would take it: up to an inline comment, blanks trimmed) kept in
 * long_value for the handler.  Anything else must fit (check_lines()).
 */
static bool long_comment(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	return n && (*p == ';' || *p == '#');
}

/* The length of LINE's "NAME =" (N bytes), or 0: not a key line. */
static size_t long_key_prefix(const char *line, size_t n)
{
	const char *p = line;
	bool space = false;

	while ((size_t)(p - line) < n && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(p - line) == n || *p == '[')
		return 0;
	for (; (size_t)(p - line) < n; p++) {
		if (*p == '=' || *p == ':')
			return (size_t)(p - line) + 1;
		if (space && *p == ';') /* an inline comment before any '=' */
			return 0;
		space = isspace((unsigned char)*p);
	}
	return 0;
}

/* inih's value of the N bytes at V, after the '=': to an inline comment
 * (';' after a blank), blanks trimmed. */
static char *long_value_new(const char *v, size_t n)
{
	size_t i, b = 0, e;
	bool space = false;

	for (i = 0; i < n; i++) {
		if (space && v[i] == ';')
			break;
		space = isspace((unsigned char)v[i]);
	}
	e = i;
	while (b < e && isspace((unsigned char)v[b]))
		b++;
	while (e > b && isspace((unsigned char)v[e - 1]))
		e--;
	return xstrndup(v + b, e - b);
}

static char *reader(char *str, int num, void *stream)
{
	struct parse_state *st = stream;
	const char *nl;
	size_t n, key;

	free(st->long_value);
	st->long_value = NULL;
	if (!*st->text)
		return NULL;
	nl = strchr(st->text, '\n');
	n = nl ? (size_t)(nl - st->text + 1) : strlen(st->text);
	if (n <= (size_t)num - 1) {
		memcpy(str, st->text, n);
		str[n] = '\0';
	} else if (long_comment(st->text, n)) {
		snprintf(str, (size_t)num, ";\n");
	} else {
		/* check_lines() let only a key line whose "NAME =" fits by */
		key = long_key_prefix(st->text, n);
		if (key > (size_t)num - 2)
			key = (size_t)num - 2;
		memcpy(str, st->text, key);
		str[key] = '\n';
		str[key + 1] = '\0';
		st->long_value = long_value_new(st->text + key, n - key);
	}
	st->text += n;
	st->line++;
	note_section(st, str);
	return str;
}

/* Lines too long for inih must be comments or key lines (reader()). */
static int check_lines(const char *path, const char *text)
{
	const char *p = text;
	int line = 1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), key;

		/* as inih reads it: the line, its newline and a NUL */
		if (n + 2 > INI_LINE_MAX && !long_comment(p, n)) {
			key = long_key_prefix(p, n);
			if (!key || key + 2 > INI_LINE_MAX)
				return err_plain(
				    "%s:%d: line longer than %d characters "
				    "(%zu), and not a 'key = value' line whose "
				    "key is shorter",
				    path, line, INI_LINE_MAX - 2, n);
		}
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	return 0;
}

int ini_read_file(const char *path, char **text)
{
	size_t len;
	int ret;

	ret = read_file(path, INI_FILE_MAX, text, &len);
	if (ret == -EFBIG) {
		return err_plain("%s: file is too large (more than %d bytes)",
				 path, INI_FILE_MAX);
	}
	if (ret < 0)
		return err_code(ret, "cannot read '%s'", path);
	if (!ini_utf8_valid(*text, len)) {
		err_plain("%s: not UTF-8 text", path);
		free(*text);
		*text = NULL;
		return -EINVAL;
	}
	return 0;
}

int ini_parse_text(const struct ini_schema *s, void *obj, struct ini_origin *o,
		   const char *path, const char *text, ini_extra_fn extra,
		   void *extra_arg)
{
	struct parse_state st = {
		.s = s, .obj = obj, .o = o, .path = path, .text = text,
		.extra = extra, .extra_arg = extra_arg,
	};
	char why[600];
	bool whole;
	size_t i;
	int ret = -EINVAL, r;

	memset(o, 0, sizeof(*o));
	o->s = s;
	o->path = path;
	if (s->nkeys > INI_KEYS_MAX)
		return err("config schema has too many keys");
	for (i = 0; i < s->nkeys; i++) {
		if (!s->keys[i].def)
			continue;
		if (store(&s->keys[i], obj, s->keys[i].def, why, sizeof(why),
			  &whole) < 0)
			return err("bad default for '%s.%s': %s",
				   s->keys[i].section, s->keys[i].name, why);
	}
	if (check_lines(path, text) < 0)
		goto out;
	r = ini_parse_stream(reader, &st, handler, &st);
	if (r > 0 && !st.errors) {
		err_plain("%s:%d: syntax error", path, r);
		st.errors++;
	}
	if (r < 0) {
		ret = err("cannot parse '%s'", path);
		goto out;
	}
	ret = st.errors ? -EINVAL : 0;
out:
	free(st.long_value);
	tdestroy(st.sections, seen_free);
	tdestroy(st.keys, seen_free);
	return ret;
}

int ini_set(const struct ini_schema *s, void *obj, struct ini_origin *o,
	    const char *section, const char *name, const char *value,
	    const char *where)
{
	const struct ini_key *k;
	char why[600], sug[128];
	bool whole;
	size_t idx;

	k = find_key(s, section, name, &idx);
	if (!k) {
		suggest(s, section, name, sug, sizeof(sug));
		return err_plain("%s: unknown key '%s.%s'%s", where, section,
				 name, sug);
	}
	if (store(k, obj, value, why, sizeof(why), &whole) < 0) {
		if (whole)
			return err_plain("%s: %s", where, why);
		return err_plain("%s: bad value for '%s.%s': %s", where,
				 section, name, why);
	}
	if (!o->line[idx])
		o->line[idx] = -1;
	mark_set(k, obj);
	return 0;
}

int ini_finish(const struct ini_schema *s, void *obj,
	       const struct ini_origin *o)
{
	char msg[1024];
	size_t i;

	for (i = 0; i < s->nkeys; i++) {
		const struct ini_key *k = &s->keys[i];

		if (!k->finish || k->finish(k, obj, o, msg, sizeof(msg)) == 0)
			continue;
		if (o->line[i] > 0)
			return err_plain("%s:%d: %s", o->path, o->line[i], msg);
		return err_plain("%s: %s", o->path, msg);
	}
	return 0;
}

int ini_line_at(const struct ini_schema *s, const struct ini_origin *o,
		size_t offset)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		if (s->keys[i].offset == offset)
			return o->line[i] > 0 ? o->line[i] : 0;
	return 0;
}

void ini_release(const struct ini_schema *s, void *obj)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		free_value(&s->keys[i], obj);
}

static const char *type_name(const struct ini_key *k)
{
	static const char *const one[] = {
		[INI_STR] = "string", [INI_INT] = "integer",
		[INI_DOUBLE] = "number", [INI_SIZE] = "size",
		[INI_BOOL] = "yes|no", [INI_ENUM] = "choice",
	};
	static const char *const list[] = {
		[INI_STR] = "string,..", [INI_INT] = "integer,..",
		[INI_DOUBLE] = "number,..", [INI_SIZE] = "size,..",
		[INI_BOOL] = "yes|no,..", [INI_ENUM] = "choice,..",
	};
	return k->shape == INI_ONE ? one[k->type] : list[k->type];
}

void ini_print_help(const struct ini_schema *s, FILE *f)
{
	const char *section = "";
	char cs[512];
	size_t i;

	for (i = 0; i < s->nkeys; i++) {
		const struct ini_key *k = &s->keys[i];

		if (k->hidden)
			continue;
		if (strcmp(section, k->section)) {
			section = k->section;
			fprintf(f, "  [%s]\n", section);
		}
		fprintf(f, "    %-18s %-11s %s", k->name, type_name(k), k->help);
		if (k->choices) {
			choices_str(k->choices, cs, sizeof(cs));
			fprintf(f, " (%s)", cs);
		}
		if (k->def && *k->def)
			fprintf(f, " [default: %s]", k->def);
		fputc('\n', f);
	}
}

void ini_man_text(FILE *f, const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

/* One .TP entry of the man page for key K. */
static void man_key(const struct ini_key *k, FILE *f)
{
	char cs[512];

	fputs(".TP\n.B ", f);
	ini_man_text(f, k->name);
	fputs("\n\\fI", f);
	ini_man_text(f, type_name(k));
	fputs("\\fR: ", f);
	ini_man_text(f, k->help);
	fputs(".\n", f);
	if (k->choices) {
		choices_str(k->choices, cs, sizeof(cs));
		fputs("One of: ", f);
		ini_man_text(f, cs);
		fputs(".\n", f);
	}
	if ((k->type == INI_INT || k->type == INI_DOUBLE) && k->max > 0)
		fprintf(f, "From %g to %g.\n", k->min, k->max);
	if (k->def && *k->def) {
		fputs("Default: \\fB", f);
		ini_man_text(f, k->def);
		fputs("\\fR.\n", f);
	}
}

/* Sections in the order they first appear, each with all its keys (a table
 * may list a section's keys in more than one run). */
void ini_print_man(const struct ini_schema *s, FILE *f)
{
	size_t i, j;

	for (i = 0; i < s->nkeys; i++) {
		const char *section = s->keys[i].section;

		for (j = 0; j < i && strcmp(s->keys[j].section, section); j++)
			;
		if (j < i)
			continue; /* printed with its first key */
		if (*section) {
			fputs(".SS [", f);
			ini_man_text(f, section);
			fputs("]\n", f);
		}
		for (j = i; j < s->nkeys; j++)
			if (!strcmp(s->keys[j].section, section) &&
			    !s->keys[j].hidden)
				man_key(&s->keys[j], f);
	}
}

/* One element of a list: its typed value V, as parsed when stored. */
static json_t *value_json(const struct ini_key *k, const char *text,
			  union ini_value v)
{
	switch (k->type) {
	case INI_INT: return json_integer(v.n);
	case INI_DOUBLE: return json_real(v.d);
	case INI_SIZE: return json_integer(v.sz);
	case INI_BOOL: return json_boolean(v.b);
	default: return json_string(text);
	}
}

json_t *ini_to_json(const struct ini_schema *s, const void *obj)
{
	json_t *root = json_object(), *sec, *v = NULL;
	size_t i, j;

	for (i = 0; i < s->nkeys; i++) {
		const struct ini_key *k = &s->keys[i];
		const struct ini_list *l;
		const char *str;

		sec = json_object_get(root, k->section);
		if (!sec) {
			sec = json_object();
			json_object_set_new(root, k->section, sec);
		}
		if (k->shape != INI_ONE) {
			l = FIELD((void *)obj, k->offset, struct ini_list);
			if (k->hidden && !l->n)
				continue;
			if (k->shape == INI_AXIS && l->n == 1) {
				v = value_json(k, l->v[0], l->val[0]);
			} else {
				v = json_array();
				for (j = 0; j < l->n; j++)
					json_array_append_new(
						v, value_json(k, l->v[j],
							      l->val[j]));
			}
			json_object_set_new(sec, k->name, v);
			continue;
		}
		switch (k->type) {
		case INI_STR:
		case INI_ENUM:
			str = *FIELD((void *)obj, k->offset, char *);
			v = str ? json_string(str) : json_null();
			break;
		case INI_INT:
			v = json_integer(*FIELD((void *)obj, k->offset, long));
			break;
		case INI_DOUBLE:
			v = json_real(*FIELD((void *)obj, k->offset, double));
			break;
		case INI_SIZE:
			v = json_integer(
				*FIELD((void *)obj, k->offset, uint64_t));
			break;
		case INI_BOOL:
			v = json_boolean(*FIELD((void *)obj, k->offset, bool));
			break;
		}
		json_object_set_new(sec, k->name, v);
	}
	return root;
}
