/* SPDX-License-Identifier: MIT */
/*
 * image-recipe.c - recipes and their hashes (image-recipe.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image-recipe.h"
#include "util.h"

#define MAX_BINARY (256u << 20)

static uint64_t fnv1a64(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

/* The hash of a file's contents as 16 hex digits into HEX (>= 17). */
static int hash_file(const char *path, char *hex, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	int ret;

	ret = read_file(path, MAX_BINARY, &buf, &n);
	if (ret < 0)
		return err_code(ret, "image: recipe: cannot read '%s'", path);
	snprintf(hex, len, "%016" PRIx64, fnv1a64(FNV_INIT, buf, n));
	free(buf);
	return 0;
}

void recipe_init(struct recipe *r)
{
	r->text = NULL;
	r->len = 0;
	r->f = open_memstream(&r->text, &r->len);
	if (!r->f)
		abort();
}

void recipe_add(struct recipe *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(r->f, fmt, ap);
	va_end(ap);
}

int recipe_add_file(struct recipe *r, const char *what, const char *path)
{
	char hex[17];
	int ret = hash_file(path, hex, sizeof(hex));

	if (ret < 0)
		return ret;
	recipe_add(r, "%s %s fnv1a64:%s\n", what, path, hex);
	return 0;
}

int recipe_add_content(struct recipe *r, const char *what, const char *path)
{
	char hex[17];
	int ret = hash_file(path, hex, sizeof(hex));

	if (ret < 0)
		return ret;
	recipe_add(r, "%s fnv1a64:%s\n", what, hex);
	return 0;
}

int recipe_add_script(struct recipe *r, const char *what, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *lib = slash ? xasprintf("%.*s/" RECIPE_SCRIPT_LIB,
				      (int)(slash - path), path)
			  : xstrdup(RECIPE_SCRIPT_LIB);
	char *lwhat = xasprintf("%s lib", what);
	int ret = recipe_add_content(r, what, path);

	if (ret == 0 && access(lib, F_OK) == 0)
		ret = recipe_add_content(r, lwhat, lib);
	free(lib);
	free(lwhat);
	return ret;
}

#define HASH_MARK " fnv1a64:"
#define SHOWN_MAX 60

/*
 * The line P..E's name (recipe_diff()): a hashed line's text before
 * HASH_MARK, else its first word; its length into *N.  *HASHED says which.
 */
static void line_name(const char *p, const char *e, size_t *n, bool *hashed)
{
	const char *h = NULL, *q;

	for (q = p; q + sizeof(HASH_MARK) - 1 <= e; q++)
		if (!memcmp(q, HASH_MARK, sizeof(HASH_MARK) - 1))
			h = q;
	*hashed = h != NULL;
	if (!h) {
		h = memchr(p, ' ', (size_t)(e - p));
		if (!h)
			h = e;
	}
	*n = (size_t)(h - p);
}

/* The end of the line at P (its '\n', or the text's end). */
static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

/* Whether TEXT has the line LINE (N bytes) whole (BY_NAME false), or a
 * line named as LINE's name (N bytes) is (BY_NAME). */
static bool text_has(const char *text, const char *line, size_t n, bool by_name)
{
	const char *p, *e;

	for (p = text; *p; p = *e ? e + 1 : e) {
		size_t m;
		bool hashed;

		e = line_end(p);
		if (by_name)
			line_name(p, e, &m, &hashed);
		else
			m = (size_t)(e - p);
		if (m == n && !memcmp(p, line, n))
			return true;
	}
	return false;
}

/* Append S (N bytes, and SUFFIX) to the list BUF (LEN bytes). */
static void list_add(char *buf, size_t len, const char *s, size_t n,
		     const char *suffix)
{
	size_t used = strlen(buf);

	if (used + n + strlen(suffix) + 8 >= len) {
		if (!strstr(buf, ", ..."))
			snprintf(buf + used, len - used, ", ...");
		return;
	}
	snprintf(buf + used, len - used, "%s%.*s%s", used ? ", " : "", (int)n,
		 s, suffix);
}

void recipe_diff(const char *old, const char *new, char *what, size_t len)
{
	const char *p, *e;

	what[0] = '\0';
	for (p = new; *p; p = *e ? e + 1 : e) {
		size_t n;
		bool hashed;

		e = line_end(p);
		if (e == p || text_has(old, p, (size_t)(e - p), false))
			continue;
		line_name(p, e, &n, &hashed);
		if (hashed)
			list_add(what, len, p, n, "");
		else if (e - p > SHOWN_MAX)
			list_add(what, len, p, SHOWN_MAX, "...");
		else
			list_add(what, len, p, (size_t)(e - p), "");
	}
	for (p = old; *p; p = *e ? e + 1 : e) {
		size_t n;
		bool hashed;

		e = line_end(p);
		if (e == p)
			continue;
		line_name(p, e, &n, &hashed);
		if (!text_has(new, p, n, true))
			list_add(what, len, p, n, " (gone)");
	}
	if (!what[0])
		snprintf(what, len, "the recipe's order");
}

/* Finish R: its text stays in r->text; the key goes to KEY (>= 17). */
void recipe_key(struct recipe *r, char *key, size_t len)
{
	fflush(r->f);
	snprintf(key, len, "%016" PRIx64, fnv1a64(FNV_INIT, r->text, r->len));
}

void recipe_release(struct recipe *r)
{
	if (r->f)
		fclose(r->f);
	free(r->text);
	r->f = NULL;
	r->text = NULL;
}
