/* SPDX-License-Identifier: MIT */
/*
 * image-recipe.c - recipes and their hashes (image-recipe.h).
 */
#include <inttypes.h>
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

int recipe_add_script(struct recipe *r, const char *what, const char *path,
		      bool content_only)
{
	const char *slash = strrchr(path, '/');
	char *lib = slash ? xasprintf("%.*s/" RECIPE_SCRIPT_LIB,
				      (int)(slash - path), path)
			  : xstrdup(RECIPE_SCRIPT_LIB);
	char *lwhat = xasprintf("%s lib", what);
	int ret = content_only ? recipe_add_content(r, what, path)
			       : recipe_add_file(r, what, path);

	if (ret == 0 && access(lib, F_OK) == 0)
		ret = content_only ? recipe_add_content(r, lwhat, lib)
				   : recipe_add_file(r, lwhat, lib);
	free(lib);
	free(lwhat);
	return ret;
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
