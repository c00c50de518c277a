// SPDX-License-Identifier: MIT
#include "untrusted.h"

#include <string.h>

size_t untrusted_ctrl_len(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];

	if (!n)
		return 0;
	/* A tab moves no cursor but to the next stop: a guest's multi-field
	 * values (printk's "4\t4\t1\t7") keep theirs. */
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		return 1;
	if (c == 0xc2 && n > 1 && (unsigned char)s[1] >= 0x80 &&
	    (unsigned char)s[1] <= 0x9f)
		return 2;
	return 0;
}

void untrusted_fwrite(FILE *out, const char *s, size_t n, bool keep_nl)
{
	size_t i = 0, run = 0;

	while (i < n) {
		size_t k = untrusted_ctrl_len(s + i, n - i);

		if (!k || (keep_nl && s[i] == '\n')) {
			run++;
			i++;
			continue;
		}
		fwrite(s + i - run, 1, run, out);
		run = 0;
		fprintf(out, "\\x%02x", (unsigned char)s[i + k - 1]);
		i += k;
	}
	fwrite(s + i - run, 1, run, out);
}

void untrusted_fputs(FILE *out, const char *s)
{
	if (s)
		untrusted_fwrite(out, s, strlen(s), false);
}

char *untrusted_scrub(char *s, bool keep_nl)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t k = untrusted_ctrl_len(s + i, n - i);

		if (!k || (keep_nl && s[i] == '\n')) {
			i++;
			continue;
		}
		for (; k; k--)
			s[i++] = '?';
	}
	return s;
}
