/* SPDX-License-Identifier: MIT */
/*
 * replay-main - run a libFuzzer target over files, without libFuzzer.
 *
 *   fuzz-replay-NAME FILE...
 *
 * Linked with tests/fuzz/fuzz-NAME.c and the sanitized build (build/san,
 * gcc's ASan and UBSan), so that 'make check' replays the committed corpora
 * without building the library a third time with clang (make fuzz does, to
 * search for new inputs).  Each file is read whole (read_file()) and given to
 * LLVMFuzzerTestOneInput() once, as libFuzzer does when given files; a
 * sanitizer report aborts, naming nothing, so each file is named on stderr
 * before it runs.  Exit 0 when every file ran, 1 when one cannot be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	char *data = NULL;
	size_t len = 0;
	int ret = read_file(path, SIZE_MAX / 2, &data, &len);

	if (ret < 0) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path,
			strerror(-ret));
		return ret;
	}
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	return 0;
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
