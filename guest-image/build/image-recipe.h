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
 * "WHAT fnv1a64:HASH": the contents of PATH only, not where it is: the
 * same agent in two clones, or in a checkout moved or copied, is the same
 * line, so the image stays current (every kind's inputs of the tree are
 * named so; recipe_add_file() is for the host's own files, /etc/passwd).
 * 0 or -errno, reported.
 */
int recipe_add_content(struct recipe *r, const char *what, const char *path);
/* The shell piece the initramfs scripts source from their own directory
 * (guest-image/build/mkinitramfs-lib.sh; 'make install' puts it beside them). */
#define RECIPE_SCRIPT_LIB "mkinitramfs-lib.sh"
/*
 * Script PATH's line (as recipe_add_content()), then "WHAT lib" for the
 * RECIPE_SCRIPT_LIB beside it when there is one: what the script sources
 * decides the bytes too.
 */
int recipe_add_script(struct recipe *r, const char *what, const char *path);
/*
 * What differs between the recipe OLD (of the build a link names) and NEW
 * (of the inputs now), into WHAT (LEN bytes), ", "-separated: the name of
 * each input whose line NEW has and OLD has not (a hashed line's text
 * before " fnv1a64:", "binary stream"; another line whole, cut at 60
 * bytes: "kver 6.12.57"), then "NAME (gone)" for each name OLD has and
 * NEW has not (another line's name is its first word); "the recipe's
 * order" when no line differs.  Pure.
 */
void recipe_diff(const char *old, const char *new, char *what, size_t len);
/* Finish R: its text stays in r->text; the key goes to KEY (>= 17). */
void recipe_key(struct recipe *r, char *key, size_t len);
void recipe_release(struct recipe *r);

#endif
