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

/* true if the first "flags" line of CPUINFO has the word FLAG. */
static bool flags_have(const char *cpuinfo, const char *flag)
{
	const char *line = strstr(cpuinfo, "\nflags");
	size_t n = strlen(flag);
	const char *p, *end;

	if (!strncmp(cpuinfo, "flags", 5))
		line = cpuinfo;
	else if (line)
		line++;
	else
		return false;
	end = strchrnul(line, '\n');
	p = memchr(line, ':', end - line);
	while (p && p < end) {
		const char *w;

		p += strspn(p, ": \t");
		w = p;
		p += strcspn(p, " \t\n");
		if (p > end)
			p = end;
		if ((size_t)(p - w) == n && !strncmp(w, flag, n))
			return true;
	}
	return false;
}

const char *host_accel_decide(const char *root, char *why, size_t len)
{
	char *path = NULL, *cpuinfo = NULL;
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
	if (flags_have(cpuinfo, "vmx")) {
		snprintf(why, len, "/dev/kvm is usable and the cpu has vmx");
		ret = "kvm";
	} else if (flags_have(cpuinfo, "svm")) {
		snprintf(why, len, "/dev/kvm is usable and the cpu has svm");
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
