/* SPDX-License-Identifier: MIT */
/*
 * replay-main - run a libFuzzer target over files, without libFuzzer.
 *
 *   fuzz-replay-NAME FILE...
 *
 * Linked with tests/fuzz/fuzz-NAME.c and the sanitized build (build/san,
 * gcc's ASan and UBSan), so that 'make check' replays the committed corpora
 * without building the library a third time with clang (make fuzz does, to
 * search for new inputs).  Each file is read whole and given to
 * LLVMFuzzerTestOneInput() once, as libFuzzer does when given files; a
 * sanitizer report aborts, naming nothing, so each file is named on stderr
 * before it runs.  Exit 0 when every file ran, 1 when one cannot be read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *p;

			cap = cap ? cap * 2 : 4096;
			p = realloc(data, cap);
			if (!p) {
				fprintf(stderr, "replay: out of memory for '%s'\n",
					path);
				ret = -1;
				goto out;
			}
			data = p;
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		ret = -1;
		goto out;
	}
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(data, len);
out:
	free(data);
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (replay(argv[i]) < 0)
			bad = 1;
	return bad;
}
