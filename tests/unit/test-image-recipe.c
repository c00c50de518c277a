/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for recipes (guest-image/build/image-recipe.c): a recipe of contents is the
 * same for the same files in two directories (the shared lab image, two
 * clones), and changes with a file's bytes; a script's recipe names the lib
 * it sources when there is one beside it; recipe_diff() names what changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "image-recipe.h"
#include "util.h"

/* ROOT/DIR/NAME holding TEXT (its directories made). */
static void put(const char *root, const char *dir, const char *name,
		const char *text)
{
	char *d = xasprintf("%s/%s", root, dir);
	char *p = xasprintf("%s/%s", d, name);

	assert_int_equal(mkdir_parents(d, 0755), 0);
	assert_int_equal(write_file_atomic(p, text, strlen(text)), 0);
	free(d);
	free(p);
}

/* The key of a recipe of ROOT/DIR/agent and ROOT/DIR/sh (and its lib),
 * by contents (CONTENT) or with paths. */
static void key_of(const char *root, const char *dir, bool content,
		   char *key)
{
	char *agent = xasprintf("%s/%s/agent", root, dir);
	char *script = xasprintf("%s/%s/sh", root, dir);
	struct recipe r;

	recipe_init(&r);
	recipe_add(&r, "kind lab\n");
	assert_int_equal(content ? recipe_add_content(&r, "/agent", agent)
				 : recipe_add_file(&r, "/agent", agent),
			 0);
	assert_int_equal(recipe_add_script(&r, "script", script), 0);
	recipe_key(&r, key, 17);
	recipe_release(&r);
	free(agent);
	free(script);
}

static void test_contents_not_paths(void **state)
{
	char root[] = "/tmp/vmtax-test-recipe.XXXXXX", a[17], b[17], c[17];
	char *rm;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "one/image", "agent", "agent 1");
	put(root, "one/image", "sh", "script");
	put(root, "two/image", "agent", "agent 1");
	put(root, "two/image", "sh", "script");
	/* by contents: the same files in two places, one key */
	key_of(root, "one/image", true, a);
	key_of(root, "two/image", true, b);
	assert_string_equal(a, b);
	/* with paths (the host's own files, /etc/passwd): two keys */
	key_of(root, "one/image", false, a);
	key_of(root, "two/image", false, b);
	assert_string_not_equal(a, b);
	/* a changed agent: a new key */
	key_of(root, "one/image", true, a);
	put(root, "two/image", "agent", "agent 2");
	key_of(root, "two/image", true, c);
	assert_string_not_equal(a, c);
	rm = xasprintf("rm -rf %s", root);
	assert_int_equal(system(rm), 0);
	free(rm);
}

static void test_script_lib(void **state)
{
	char root[] = "/tmp/vmtax-test-recipe.XXXXXX", a[17], b[17], c[17];
	char *rm;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "image", "agent", "agent");
	put(root, "image", "sh", "script");
	key_of(root, "image", true, a);
	/* the lib beside the script is part of its recipe */
	put(root, "image", RECIPE_SCRIPT_LIB, "lib 1");
	key_of(root, "image", true, b);
	assert_string_not_equal(a, b);
	put(root, "image", RECIPE_SCRIPT_LIB, "lib 2");
	key_of(root, "image", true, c);
	assert_string_not_equal(b, c);
	{
		struct recipe r;
		char *script = xasprintf("%s/image/sh", root);

		recipe_init(&r);
		assert_int_equal(recipe_add_script(&r, "tiny script", script),
				 0);
		recipe_key(&r, a, sizeof(a));
		assert_non_null(strstr(r.text, "tiny script fnv1a64:"));
		assert_non_null(strstr(r.text, "\ntiny script lib fnv1a64:"));
		assert_null(strstr(r.text, root));
		recipe_release(&r);
		free(script);
	}
	rm = xasprintf("rm -rf %s", root);
	assert_int_equal(system(rm), 0);
	free(rm);
}

/*
 * recipe_diff(): each kind of change names its own input, a hashed line
 * by its name alone, another line whole (cut at 60 bytes).
 */
static const struct {
	const char *old, *new, *what;
} diffs[] = {
    {"kind tiny\nbinary stream fnv1a64:0001\n",
     "kind tiny\nbinary stream fnv1a64:0002\n", "binary stream"},
    {"kind debian\n/usr/local/sbin/vmtax-agent fnv1a64:01\n",
     "kind debian\n/usr/local/sbin/vmtax-agent fnv1a64:02\n",
     "/usr/local/sbin/vmtax-agent"},
    {"binary a fnv1a64:1\n", "binary a fnv1a64:1\nbinary b fnv1a64:2\n",
     "binary b"},
    {"binary a fnv1a64:1\nbinary b fnv1a64:2\n", "binary a fnv1a64:1\n",
     "binary b (gone)"},
    {"binary a fnv1a64:1\n", "binary z fnv1a64:1\n",
     "binary z, binary a (gone)"},
    {"kver 6.1.0\nscript fnv1a64:1\n", "kver 6.12.57\nscript fnv1a64:1\n",
     "kver 6.12.57"},
    {"packages a,b\n", "packages a,b,c\n", "packages a,b,c"},
    {"packages a\n",
     "packages "
     "aaaaaaaaa,bbbbbbbbb,ccccccccc,ddddddddd,eeeeeeeee,fffffffff,ggg\n",
     "packages aaaaaaaaa,bbbbbbbbb,ccccccccc,ddddddddd,eeeeeeeee,f..."},
    {"a fnv1a64:1\nb fnv1a64:2\n", "b fnv1a64:2\na fnv1a64:1\n",
     "the recipe's order"},
};

static void test_diff(void **state)
{
	char what[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(diffs) / sizeof(diffs[0]); i++) {
		recipe_diff(diffs[i].old, diffs[i].new, what, sizeof(what));
		assert_string_equal(what, diffs[i].what);
	}
	/* a long list ends in ", ..." within its buffer */
	{
		char small[32];

		recipe_diff("", "binary aaaaaaaaaa fnv1a64:1\nbinary "
				"bbbbbbbbbb fnv1a64:2\n",
			    small, sizeof(small));
		assert_string_equal(small, "binary aaaaaaaaaa, ...");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contents_not_paths),
		cmocka_unit_test(test_script_lib),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
