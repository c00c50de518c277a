// SPDX-License-Identifier: MIT
/* output.c - where -o points: see output.h for the rules. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"

/* The descriptor a name of the process's own streams stands for, or -1. */
static int std_stream(const char *path)
{
	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout") ||
	    !strcmp(path, "/proc/self/fd/1") || !strcmp(path, "/dev/fd/1"))
		return 1;
	if (!strcmp(path, "/dev/stderr") || !strcmp(path, "/proc/self/fd/2") ||
	    !strcmp(path, "/dev/fd/2"))
		return 2;
	return -1;
}

static const char *kind_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISREG(m))
		return "a regular file";
	return "of an unknown kind";
}

/* 0 where ST (lstat of PATH) may be written, else the refusal, reported. */
static int refuse(const char *path, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return err_code(-EISDIR,
				"output '%s' is a directory: give a file in it",
				path);
	if (S_ISLNK(st->st_mode))
		return err_code(-ELOOP,
				"output '%s' is a symbolic link: vmtax follows "
				"none it is given for output; give the path it "
				"points to",
				path);
	if (S_ISBLK(st->st_mode))
		return err_code(-ENOTBLK,
				"output '%s' is a block device: vmtax writes "
				"no report over a disk",
				path);
	if (!S_ISREG(st->st_mode) && !S_ISCHR(st->st_mode) &&
	    !S_ISFIFO(st->st_mode) && !S_ISSOCK(st->st_mode))
		return err_code(-EINVAL, "output '%s' is %s: not written to",
				path, kind_name(st->st_mode));
	return 0;
}

int output_check(const char *path)
{
	struct stat st;

	if (!*path)
		return err_code(-EINVAL, "output path is empty");
	if (std_stream(path) >= 0)
		return 0;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : err_errno("cannot stat output '%s'",
						   path);
	return refuse(path, &st);
}

int output_check_link(const char *path)
{
	struct stat st;

	if (!*path)
		return err_code(-EINVAL, "output path is empty");
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : err_errno("cannot stat output '%s'",
						   path);
	if (S_ISLNK(st.st_mode))
		return 0;
	return err_code(S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST,
			"output '%s' is %s, not a symbolic link: vmtax "
			"replaces only a link it made there; give another -o",
			path, kind_name(st.st_mode));
}

static int write_all(int fd, const char *path, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return err_errno("cannot write '%s'", path);
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* A character device or a FIFO that lstat saw as ST: opened, written. */
static int write_node(const char *path, const struct stat *st,
		      const void *data, size_t len)
{
	struct stat now;
	int fd, ret;

	/* no O_CREAT, no O_TRUNC: what is there is written to, not made */
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return err_errno("cannot open output '%s'", path);
	if (fstat(fd, &now) < 0) {
		ret = err_errno("cannot stat output '%s'", path);
		goto out;
	}
	/* swapped between lstat and open: write to nothing else */
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT)) {
		ret = err_code(-EAGAIN,
			       "output '%s' changed while it was opened: not "
			       "written",
			       path);
		goto out;
	}
	ret = write_all(fd, path, data, len);
out:
	close(fd);
	return ret;
}

static int write_socket(const char *path, const void *data, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return err_code(-ENAMETOOLONG,
				"output socket '%s': path too long", path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_errno("cannot make a socket for output '%s'", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = err_errno("cannot connect to output socket '%s'", path);
		goto out;
	}
	ret = write_all(fd, path, data, len);
out:
	close(fd);
	return ret;
}

int output_write(const char *path, const void *data, size_t len)
{
	struct stat st;
	int fd = std_stream(path), ret;

	if (fd >= 0)
		return write_all(fd, fd == 1 ? "standard output"
					     : "standard error",
				 data, len);
	ret = output_check(path);
	if (ret < 0)
		return ret;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return err_errno("cannot stat output '%s'", path);
		return write_file_atomic(path, data, len);
	}
	if (S_ISREG(st.st_mode))
		return write_file_atomic(path, data, len);
	if (S_ISSOCK(st.st_mode))
		return write_socket(path, data, len);
	return write_node(path, &st, data, len);
}
