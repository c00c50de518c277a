/* SPDX-License-Identifier: MIT */
/* Files beneath a directory, no symlink followed (beneath.h). */
#include "beneath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __NR_openat2
#include <linux/openat2.h>
#endif

#include "util.h"

/* A relative path of named components: no "", ".", ".." or leading '/'. */
static bool rel_valid(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}

/* The walk: each directory on the way opened with O_NOFOLLOW. */
static int openat_walk(int dirfd, const char *rel, int flags, mode_t mode)
{
	char *copy = xstrdup(rel), *p = copy, *slash;
	int fd = dirfd, next, ret;

	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		next = openat(fd, p,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != dirfd)
			close(fd);
		if (next < 0) {
			ret = -errno;
			goto out;
		}
		fd = next;
		p = slash + 1;
	}
	ret = openat(fd, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (ret < 0)
		ret = -errno;
	if (fd != dirfd)
		close(fd);
out:
	free(copy);
	return ret;
}

int openat_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	if (!rel_valid(rel))
		return -EXDEV;
#ifdef __NR_openat2
	{
		struct open_how how = {
			.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
			.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				   RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(__NR_openat2, dirfd, rel, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		/* ENOSYS: an older kernel; E2BIG/EINVAL: a newer libc ABI */
		if (errno != ENOSYS && errno != E2BIG && errno != EPERM)
			return -errno;
	}
#endif
	return openat_walk(dirfd, rel, flags, mode);
}

int dir_open_nofollow(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int open_beneath(const char *root, const char *rel, int flags, mode_t mode)
{
	int dfd = dir_open_nofollow(root), fd;

	if (dfd < 0)
		return dfd;
	fd = openat_beneath(dfd, rel, flags, mode);
	close(dfd);
	return fd;
}

int mkdirat_beneath(int dirfd, const char *rel, mode_t mode)
{
	const char *slash = strrchr(rel, '/');
	struct stat st;
	int pfd = dirfd, ret = 0;

	if (!rel_valid(rel))
		return -EXDEV;
	if (slash) {
		char *parent = xstrndup(rel, (size_t)(slash - rel));

		pfd = openat_beneath(dirfd, parent, O_RDONLY | O_DIRECTORY, 0);
		free(parent);
		if (pfd < 0)
			return pfd;
		rel = slash + 1;
	}
	if (mkdirat(pfd, rel, mode) < 0 && errno != EEXIST)
		ret = -errno;
	else if (fstatat(pfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = -errno;
	else if (!S_ISDIR(st.st_mode))
		ret = -ENOTDIR;
	if (pfd != dirfd)
		close(pfd);
	return ret;
}

int read_file_beneath(const char *root, const char *rel, size_t max,
		      char **out, size_t *len)
{
	char path[64];
	int fd, ret;

	*out = NULL;
	fd = open_beneath(root, rel, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	/* read_file() of our own descriptor: no second lookup by name */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = read_file(path, max, out, len);
	close(fd);
	return ret;
}

/* REL's own directory under DIRFD (ROOT in messages), opened. */
static int parent_open(int dirfd, const char *root, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	char *pdir = NULL;
	int pfd;

	if (slash) {
		pdir = xstrndup(rel, (size_t)(slash - rel));
		pfd = openat_beneath(dirfd, pdir, O_RDONLY | O_DIRECTORY, 0);
	} else {
		pfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		if (pfd < 0)
			pfd = -errno;
	}
	if (pfd < 0)
		pfd = err_code(pfd, "cannot open '%s/%s'", root,
			       pdir ? pdir : ".");
	free(pdir);
	return pfd;
}

/* LEN bytes of DATA into FD, its MODE set, synced (TMP in messages). */
static int write_all_sync(int fd, const void *data, size_t len, mode_t mode,
			  const char *root, const char *tmp)
{
	const char *p = data;
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return err_errno("cannot write '%s/%s'", root, tmp);
		off += (size_t)w;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0)
		return err_errno("cannot write '%s/%s'", root, tmp);
	return 0;
}

int write_at_atomic(int dirfd, const char *root, const char *rel,
		    const void *data, size_t len, mode_t mode)
{
	char *tmp = xasprintf("%s.tmp", rel), *btmp;
	const char *slash = strrchr(rel, '/');
	const char *base = slash ? slash + 1 : rel;
	int fd = -1, pfd, ret;

	btmp = xasprintf("%s.tmp", base);
	/* the rename and the fsync happen in REL's own directory */
	pfd = parent_open(dirfd, root, rel);
	if (pfd < 0) {
		ret = pfd;
		goto out;
	}
	unlinkat(pfd, btmp, 0);
	fd = openat(pfd, btmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = err_errno("cannot create '%s/%s'", root, tmp);
		goto out;
	}
	ret = write_all_sync(fd, data, len, mode, root, tmp);
	if (ret < 0)
		goto out;
	if (renameat(pfd, btmp, pfd, base) < 0) {
		ret = err_errno("cannot rename '%s/%s' to '%s/%s'", root, tmp,
				root, rel);
		goto out;
	}
	close(fd);
	fd = -1;
	fsync(pfd);
	ret = 0;
out:
	if (fd >= 0) {
		/* a write that failed (a full disk) leaves no .tmp behind */
		close(fd);
		unlinkat(pfd, btmp, 0);
	}
	if (pfd >= 0)
		close(pfd);
	free(btmp);
	free(tmp);
	return ret;
}

int write_file_beneath(const char *root, const char *rel, const void *data,
		       size_t len)
{
	int dfd = dir_open_nofollow(root), ret;

	if (dfd < 0)
		return err_code(dfd, "cannot open '%s'", root);
	ret = write_at_atomic(dfd, root, rel, data, len, 0644);
	close(dfd);
	return ret;
}

FILE *fopen_beneath(const char *root, const char *rel, bool append)
{
	int fd = open_beneath(root, rel,
			      O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
			      0644);
	FILE *f;

	if (fd < 0) {
		err_code(fd, "cannot create '%s/%s'", root, rel);
		return NULL;
	}
	f = fdopen(fd, append ? "a" : "w");
	if (!f) {
		err_errno("cannot open '%s/%s'", root, rel);
		close(fd);
	}
	return f;
}

bool stat_ours(const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();

	if (st->st_uid != me) {
		if (why && me == 0)
			snprintf(why, len, "owned by uid %u, not by root",
				 (unsigned)st->st_uid);
		else if (why)
			snprintf(why, len, "owned by uid %u, not by uid %u",
				 (unsigned)st->st_uid, (unsigned)me);
		return false;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		if (why)
			snprintf(why, len, "writable by %s (mode %04o)",
				 st->st_mode & S_IWOTH ? "others" : "its group",
				 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* tree_usage() of the directory FD (taken: closed here), DEPTH levels. */
static int usage_at(int fd, int depth, long long *bytes, long long *entries)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat st;
	int ret = 0, sub;

	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		++*entries;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile */
		if (S_ISREG(st.st_mode))
			*bytes += (long long)st.st_size;
		if (!S_ISDIR(st.st_mode))
			continue;
		if (!depth) {
			ret = -ELOOP;
			continue;
		}
		sub = openat(dirfd(d), e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			int r = usage_at(sub, depth - 1, bytes, entries);

			ret = ret ? ret : r == -ELOOP ? r : 0;
		}
	}
	closedir(d);
	return ret;
}

int tree_usage(const char *root, int max_depth, long long *bytes,
	       long long *entries)
{
	int fd = dir_open_nofollow(root);

	*bytes = *entries = 0;
	if (fd < 0)
		return fd;
	return usage_at(fd, max_depth, bytes, entries);
}
