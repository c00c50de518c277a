/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the escaping of untrusted text (reports/fmt-escape.c,
 * lib/untrusted.c; docs/security.md "Reports"): each format's function on
 * a table of hostile strings, fmt_printf() against printf for every
 * conversion the formats use, and the terminal scrub.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "untrusted.h"

/* What ESC writes for S. */
static char *run(fmt_escape_fn esc, const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	esc(f, s);
	fclose(f);
	return buf;
}

static void check(fmt_escape_fn esc, const char *in, const char *want)
{
	char *got = run(esc, in);

	if (strcmp(got, want))
		fail_msg("escaping '%s': got '%s', want '%s'", in, got, want);
	free(got);
}

static void test_html(void **state)
{
	(void)state;
	check(fmt_html_escape, "<script>a&b</script>",
	      "&lt;script&gt;a&amp;b&lt;/script&gt;");
	check(fmt_html_escape, "x\" onerror='y'",
	      "x&quot; onerror=&#39;y&#39;");
	check(fmt_html_escape, "plain 12.71% ±0.40%", "plain 12.71% ±0.40%");
}

static void test_md(void **state)
{
	static const struct {
		const char *in, *want;
	} v[] = {
	    {"<script>x</script>", "\\<script>x\\</script>"},
	    {"<img src=x>", "\\<img src=x>"},
	    {"<!-- c -->", "\\<!-- c -->"},
	    {"<0.0001 and < 3", "<0.0001 and < 3"},
	    {"a -> b", "a -> b"},
	    {"> quote", "\\> quote"},
	    {"a | b & `c` \\", "a \\| b \\& \\`c\\` \\\\"},
	    {"line\nnext", "line next"},
	    {"esc\x1b[31m bell\x07 del\x7f csi\xc2\x9b",
	     "esc\\x1b[31m bell\\x07 del\\x7f csi\\x9b"},
	    {"ünïcode ±", "ünïcode ±"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check(fmt_md_escape, v[i].in, v[i].want);
}

static void test_csv(void **state)
{
	static const struct {
		const char *in, *want;
	} v[] = {
	    {"plain", "plain"},
	    {"=HYPERLINK(\"http://x\",\"y\")",
	     "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
	    {"=1+1", "'=1+1"},
	    {"+1", "'+1"},
	    {"-2+3", "'-2+3"},
	    {"@SUM(A1)", "'@SUM(A1)"},
	    {"\tx", "'\tx"},
	    {"\rx", "\"'\rx\""},
	    {"a,b", "\"a,b\""},
	    {"a\nb", "\"a\nb\""},
	    {"a=b", "a=b"},
	    {"", ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check(fmt_csv_field, v[i].in, v[i].want);
}

static void test_text(void **state)
{
	(void)state;
	check(fmt_text_escape, "a\x1b]0;t\x07 b\nc\rd\xc2\x9b\xc2\xa0",
	      "a\\x1b]0;t\\x07 b\\x0ac\\x0dd\\x9b\xc2\xa0");
	check(fmt_text_escape, "<tag> & | ` ±", "<tag> & | ` ±");
}

/* fmt_printf() with an escape that brackets each string. */
static void brackets(FILE *out, const char *s)
{
	fprintf(out, "[%s]", s);
}

static char *pr(const char *fmt, ...) VMTAX_PRINTF(1, 2);

static char *pr(const char *fmt, ...)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	va_list ap;

	va_start(ap, fmt);
	fmt_vprintf(f, brackets, fmt, ap);
	va_end(ap);
	fclose(f);
	return buf;
}

static void same(char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("got '%s', want '%s'", got, want);
	free(got);
}

static void test_printf(void **state)
{
	(void)state;
	/* every conversion but %s prints as printf prints it */
	same(pr("%d %ld %lld %zu %u %llu %x %c %%", -1, -2L, -3LL, (size_t)4,
		5u, 6ULL, 255, 'z'),
	     "-1 -2 -3 4 5 6 ff z %");
	same(pr("%.3f %+.2f%% %g %7.3f %.0f %5.1f%%", 1.23456, 12.5, 0.5, 2.0,
		3.6, 9.25),
	     "1.235 +12.50% 0.5   2.000 4   9.2%");
	same(pr("%*d|%-*d|%.*f", 4, 7, 3, 8, 2, 1.0), "   7|8  |1.00");
	/* strings: escaped, then padded; the precision cuts before */
	same(pr("%s and %s", "a", "b"), "[a] and [b]");
	same(pr("%6s|%-6s|%*s", "a", "b", 5, "c"), "   [a]|[b]   |  [c]");
	same(pr("%.2s|%.*s", "abcdef", 3, "abcdef"), "[ab]|[abc]");
	same(pr("%19s", "x"), "                [x]");
	same(pr("no conversion"), "no conversion");
}

static void test_scrub(void **state)
{
	char a[] = "ok\x1b[2J\nnext\xc2\x9bx\xc3\xa9";
	char b[] = "ok\x1b[2J\nnext";

	(void)state;
	assert_string_equal(untrusted_scrub(a, false),
			    "ok?[2J?next??x\xc3\xa9");
	assert_string_equal(untrusted_scrub(b, true), "ok?[2J\nnext");
	assert_int_equal(untrusted_ctrl_len("\xc2", 1), 0);
	assert_int_equal(untrusted_ctrl_len("\xc2\x9b", 2), 2);
	assert_int_equal(untrusted_ctrl_len("\x7f", 1), 1);
	assert_int_equal(untrusted_ctrl_len("a", 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_html),   cmocka_unit_test(test_md),
	    cmocka_unit_test(test_csv),	   cmocka_unit_test(test_text),
	    cmocka_unit_test(test_printf), cmocka_unit_test(test_scrub),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
