/* SPDX-License-Identifier: MIT */
/*
 * image-recipe.h - the recipe of an image (image.h): the text of every input
 * that decides its bytes, one "key value" line each, and its 64-bit FNV-1a
 * hash, which names the image's files.  A cache key, not a security boundary.
 *
 * recipe_init() opens R (it aborts if no memory); recipe_add*() append;
 * recipe_key() finishes R (its text stays in r->text, owned by R) and writes
 * the key; recipe_release() frees it all.
 */
#ifndef VMTAX_IMAGE_RECIPE_H
#define VMTAX_IMAGE_RECIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

struct recipe {
	char *text;
	size_t len;
	FILE *f;
};

void recipe_init(struct recipe *r);
void recipe_add(struct recipe *r, const char *fmt, ...) VMTAX_PRINTF(2, 3);
/* "WHAT PATH fnv1a64:HASH" for the contents of PATH; 0 or -errno, reported. */
int recipe_add_file(struct recipe *r, const char *what, const char *path);
/*
 * "WHAT fnv1a64:HASH": the contents of PATH only, not where it is, for the
 * images every checkout shares (image.h: the lab): the same agent in two
 * clones is the same line.  0 or -errno, reported.
 */
int recipe_add_content(struct recipe *r, const char *what, const char *path);
/* The shell piece the initramfs scripts source from their own directory
 * (guest-image/build/mkinitramfs-lib.sh; 'make install' puts it beside them). */
#define RECIPE_SCRIPT_LIB "mkinitramfs-lib.sh"
/*
 * Script PATH's line (as recipe_add_file(), or with CONTENT_ONLY as
 * recipe_add_content()), then "WHAT lib" for the RECIPE_SCRIPT_LIB beside
 * it when there is one: what the script sources decides the bytes too.
 */
int recipe_add_script(struct recipe *r, const char *what, const char *path,
		      bool content_only);
/* Finish R: its text stays in r->text; the key goes to KEY (>= 17). */
void recipe_key(struct recipe *r, char *key, size_t len);
void recipe_release(struct recipe *r);

#endif
