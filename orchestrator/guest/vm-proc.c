// SPDX-License-Identifier: MIT
/* vm-proc.c - whether a guest's QEMU process has ended, by the kernel. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "vm.h"

bool vm_proc_ended(int pid, const char *comm)
{
	char path[64], buf[256], *open_paren, *p;
	int ret;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	ret = read_line(path, buf, sizeof(buf));
	/* gone, or gone between the open and the read */
	if (ret < 0)
		return ret == -ENOENT || ret == -ESRCH;
	/* "PID (COMM) S ...": the state after the last ')' */
	open_paren = strchr(buf, '(');
	p = strrchr(buf, ')');
	if (!open_paren || !p || strncmp(open_paren + 1, comm, strlen(comm)))
		return true;
	return p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}
