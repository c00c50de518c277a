/* SPDX-License-Identifier: MIT */
/* Unit tests for base64 (lib/base64.c): RFC 4648's vectors, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

static void test_rfc4648_vectors(void **state)
{
	static const struct {
		const char *plain, *enc;
	} v[] = {
		{ "", "" },	       { "f", "Zg==" },
		{ "fo", "Zm8=" },      { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *e = base64_encode_new(v[i].plain, strlen(v[i].plain));
		unsigned char *d;
		size_t n;

		assert_string_equal(e, v[i].enc);
		assert_int_equal(strlen(e), BASE64_LEN(strlen(v[i].plain)));
		assert_int_equal(base64_decode_new(v[i].enc, &d, &n), 0);
		assert_int_equal(n, strlen(v[i].plain));
		assert_memory_equal(d, v[i].plain, n);
		free(e);
		free(d);
	}
}

static void test_all_bytes_round_trip(void **state)
{
	unsigned char in[700], *d;
	size_t len, n;
	char *e;

	(void)state;
	for (len = 0; len < sizeof(in); len++)
		in[len] = (unsigned char)(len * 37 + 11);
	for (len = 0; len <= sizeof(in); len += 1 + len / 3) {
		e = base64_encode_new(in, len);
		assert_int_equal(base64_decode_new(e, &d, &n), 0);
		assert_int_equal(n, len);
		assert_memory_equal(d, in, len);
		free(e);
		free(d);
	}
}

static void test_bad_input(void **state)
{
	static const char *const bad[] = {
		"Zg=",	    /* length not a multiple of 4 */
		"Zm9v!A==", /* a character outside the alphabet */
		"Zg==Zm9v", /* padding before the end */
		"Z===",	    /* three pads */
		"=Zg=",	    /* padding first */
		"Zm 9",	    /* a blank */
	};
	unsigned char *d = (unsigned char *)"x";
	size_t i, n = 7;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(base64_decode_new(bad[i], &d, &n), -EINVAL);
		assert_null(d);
		assert_int_equal(n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_all_bytes_round_trip),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
