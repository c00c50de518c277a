// SPDX-License-Identifier: MIT
/* vm-proc.c - whether a guest's QEMU process has ended, by the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm.h"

bool vm_proc_ended(int pid, const char *comm)
{
	char path[64], buf[256], *open_paren, *p;
	int fd;
	ssize_t n;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "PID (COMM) S ...": the state after the last ')' */
	open_paren = strchr(buf, '(');
	p = strrchr(buf, ')');
	if (!open_paren || !p || strncmp(open_paren + 1, comm, strlen(comm)))
		return true;
	return p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}
