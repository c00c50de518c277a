/* SPDX-License-Identifier: MIT */
/*
 * kvm-sample - one sample of host/kvm-stats on a live host, for the lab.
 *
 *	kvm-sample PID [FILE TEXT]
 *
 * Runs kvm_sampler_new/begin on QEMU process PID, waits until FILE contains
 * TEXT (without FILE: one second), then kvm_sampler_end and prints the
 * observed object as one JSON line.  Exit status 0, or 1 after an error.
 * tests/tools/kvm-lab-fixtures.sh runs it inside the lab host (MODE=sample);
 * on a host without KVM it prints {"kvm": null, "kvm_why": ...}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvm-stats.h"
#include "util.h"

static int file_has(const char *path, const char *text)
{
	char *buf = NULL;
	int found;

	if (read_file(path, 1 << 20, &buf, NULL) < 0)
		return 0;
	found = strstr(buf, text) != NULL;
	free(buf);
	return found;
}

int main(int argc, char **argv)
{
	struct kvm_sampler *k = NULL;
	json_t *obs = json_object();
	char *out = NULL;
	int ret = 1;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: kvm-sample PID [FILE TEXT]\n");
		return 2;
	}
	if (kvm_sampler_new("", (pid_t)atoi(argv[1]), &k) < 0 ||
	    kvm_sampler_begin(k) < 0)
		goto out;
	if (argc == 4) {
		for (int i = 0; i < 3000 && !file_has(argv[2], argv[3]); i++)
			usleep(100000);
	} else {
		sleep(1);
	}
	if (kvm_sampler_end(k, obs) < 0)
		goto out;
	out = json_dumps(obs, JSON_COMPACT | JSON_SORT_KEYS);
	printf("%s\n", out);
	ret = 0;
out:
	kvm_sampler_free(k);
	free(out);
	json_decref(obs);
	return ret;
}
