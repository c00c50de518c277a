/* SPDX-License-Identifier: MIT */
#include "knob-path.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *prefix;
	const char *dir;
} trees[] = {
	{ KNOB_PREFIX_SYSCTL, KNOB_DIR_SYSCTL },
	{ KNOB_PREFIX_MM, KNOB_DIR_MM },
};

static int tree_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if (!strncmp(name, trees[i].prefix, strlen(trees[i].prefix)))
			return (int)i;
	return -1;
}

static bool component_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

const char *knob_name_problem(const char *name)
{
	const char *p;
	int t;
	bool empty = true;

	if (!name || !*name)
		return "is empty";
	if (strlen(name) >= KNOB_NAME_MAX)
		return "is too long (a knob name has fewer than 128 characters)";
	t = tree_of(name);
	if (t < 0)
		return "does not start with '" KNOB_PREFIX_SYSCTL
		       "' or '" KNOB_PREFIX_MM "'";
	p = name + strlen(trees[t].prefix);
	if (!*p)
		return "names no file after its prefix";
	for (; *p; p++) {
		if (*p == '.') {
			if (empty)
				return "has an empty part between dots";
			empty = true;
		} else if (component_char(*p)) {
			empty = false;
		} else {
			return "has a character other than A-Z, a-z, 0-9, "
			       "'_', '-' and '.'";
		}
	}
	return empty ? "ends with a dot" : NULL;
}

bool knob_name_valid(const char *name)
{
	return !knob_name_problem(name);
}

int knob_path(const char *name, char *path, size_t len)
{
	size_t n;
	char *p;
	int t;

	if (!knob_name_valid(name))
		return -EINVAL;
	t = tree_of(name);
	n = (size_t)snprintf(path, len, "%s/%s", trees[t].dir,
			     name + strlen(trees[t].prefix));
	if (n >= len)
		return -ENAMETOOLONG;
	for (p = path + strlen(trees[t].dir) + 1; *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

int knob_value_parse(const char *raw, char *out, size_t len)
{
	const char *open = strchr(raw, '['), *b, *e;
	size_t n;

	if (open && strchr(raw, '\n') && strchr(raw, '\n') < open)
		open = NULL;	/* only the first line counts */
	if (open) {
		const char *close = strchr(open, ']');

		if (!close)
			return -EINVAL;
		b = open + 1;
		e = close;
	} else {
		b = raw;
		e = raw + strcspn(raw, "\n");
	}
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - b);
	if (!n)
		return -EINVAL;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, b, n);
	out[n] = '\0';
	return 0;
}

/* The next character of S after collapsing blanks, advancing *S. */
static int next_norm(const char **s)
{
	const char *p = *s;
	bool blank = false;

	while (*p == ' ' || *p == '\t') {
		blank = true;
		p++;
	}
	*s = p;
	return blank ? ' ' : (unsigned char)*p;
}

bool knob_value_same(const char *wanted, const char *got)
{
	const char *a = wanted, *b = got;

	while (*a == ' ' || *a == '\t')
		a++;
	while (*b == ' ' || *b == '\t')
		b++;
	for (;;) {
		int ca = next_norm(&a), cb = next_norm(&b);

		/* trailing blanks count for nothing */
		if (ca == ' ' && !*a)
			ca = 0;
		if (cb == ' ' && !*b)
			cb = 0;
		if (ca != cb)
			return false;
		if (!ca)
			return true;
		if (ca != ' ')
			a++;
		if (cb != ' ')
			b++;
	}
}
