/* SPDX-License-Identifier: MIT */
/* The accel decision for accel=auto; see host.h. */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const char *host_accel_decide(const char *root, char *why, size_t len)
{
	char *path = NULL, *cpuinfo = NULL;
	const struct virt_hw *virt;
	struct host_cpu cpu;
	const char *ret = "tcg";
	const char *pvm = "";
	struct stat st;
	int fd, r;

	if (!root)
		root = "";
	path = xasprintf("%s/sys/module/kvm_pvm", root);
	if (!stat(path, &st))
		pvm = " (/dev/kvm is kvm_pvm)";
	free(path);

	path = xasprintf("%s/proc/cpuinfo", root);
	r = read_file(path, 16 << 20, &cpuinfo, NULL);
	if (r < 0) {
		snprintf(why, len, "cannot read '/proc/cpuinfo': %s%s",
			 strerror(-r), pvm);
		goto out;
	}
	free(path);
	path = xasprintf("%s/dev/kvm", root);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open '/dev/kvm' read-write: %s",
			 strerror(errno));
		goto out;
	}
	close(fd);
	host_cpu_parse(cpuinfo, &cpu);
	virt = host_virt_usable(&cpu);
	if (virt) {
		snprintf(why, len, "/dev/kvm is usable and the cpu has %s",
			 virt->flag);
		ret = "kvm";
	} else {
		snprintf(why, len, "no vmx or svm flag in /proc/cpuinfo%s",
			 pvm);
	}
out:
	free(path);
	free(cpuinfo);
	return ret;
}
