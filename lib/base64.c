/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "util.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode_new(const void *in, size_t len)
{
	const unsigned char *p = in;
	char *out = xmalloc(BASE64_LEN(len) + 1), *o = out;
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 |
			     p[i + 2];

		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = alphabet[v >> 6 & 63];
		*o++ = alphabet[v & 63];
	}
	if (i < len) {
		unsigned v = (unsigned)p[i] << 16 |
			     (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0);

		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int sextet(char c)
{
	const char *p = c ? strchr(alphabet, c) : NULL;

	return p ? (int)(p - alphabet) : -1;
}

int base64_decode_new(const char *s, unsigned char **out, size_t *len)
{
	size_t n = strlen(s), i, pad = 0;
	unsigned char *buf, *o;

	*out = NULL;
	*len = 0;
	if (n % 4)
		return -EINVAL;
	if (n && s[n - 1] == '=')
		pad = n > 1 && s[n - 2] == '=' ? 2 : 1;
	buf = xmalloc(n / 4 * 3 + 1);
	o = buf;
	for (i = 0; i < n; i += 4) {
		int last = i + 4 == n, v[4], k;

		for (k = 0; k < 4; k++) {
			v[k] = sextet(s[i + k]);
			if (v[k] < 0 && !(last && s[i + k] == '=' &&
					  k >= 4 - (int)pad)) {
				free(buf);
				return -EINVAL;
			}
		}
		*o++ = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (!(last && pad == 2))
			*o++ = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		if (!(last && pad))
			*o++ = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	*o = '\0';
	*out = buf;
	*len = (size_t)(o - buf);
	return 0;
}
