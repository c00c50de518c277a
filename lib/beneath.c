/* SPDX-License-Identifier: MIT */
/* Files beneath a directory, no symlink followed (beneath.h). */
#include "beneath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* ST's type as the readers take it: 0 for a regular file. */
static int stat_regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	return S_ISDIR(st->st_mode) ? -EISDIR : -EBADFD;
}

/*
 * FD, an O_PATH descriptor, checked to be a regular file and opened for
 * reading through /proc/self/fd (no second lookup by name; a device is
 * never opened).  FD is closed.
 */
static int path_fd_reopen(int fd)
{
	char path[64];
	struct stat st;
	int ret;

	if (fstat(fd, &st) < 0)
		ret = -errno;
	else
		ret = stat_regular(&st);
	if (ret == 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ret = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (ret < 0)
			ret = -errno;
	}
	close(fd);
	return ret;
}

int openat_file(int dirfd, const char *rel)
{
	int fd = openat_beneath(dirfd, rel, O_PATH, 0);

	return fd < 0 ? fd : path_fd_reopen(fd);
}

const char *beneath_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link (not followed)";
	case -EISDIR:
		return "a directory, not a file";
	case -EBADFD:
		return "not a regular file (a FIFO, a device or a socket)";
	case -EXDEV:
		return "not a path inside the directory";
	default:
		return strerror(-err);
	}
}

bool link_followable(const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();

	if (st->st_uid == me || st->st_uid == 0)
		return true;
	if (why && me == 0)
		snprintf(why, len, "owned by uid %u, not by root",
			 (unsigned)st->st_uid);
	else if (why)
		snprintf(why, len, "owned by uid %u, not by uid %u or root",
			 (unsigned)st->st_uid, (unsigned)me);
	return false;
}

/* A walk of a path (path_walk()): where it is, and what is left. */
struct walk {
	char *rest;	  /* the components still to open (owned) */
	char *seen;	  /* those opened, for messages (owned) */
	int fd;		  /* the directory reached */
	int links;	  /* symbolic links followed */
	const char *path; /* as given, for messages */
	char *why;	  /* the caller's buffer, or NULL */
	size_t len;
};

/* NAME after the components W has opened (owned). */
static char *walk_at_new(const struct walk *w, const char *name)
{
	return xasprintf("%s%s%s", w->seen,
			 *w->seen && strcmp(w->seen, "/") ? "/" : "", name);
}

/*
 * The walk failed at NAME: WHY gets "'COMPONENT' WHAT" (WHAT: strerror()
 * by default), "it WHAT" when NAME is the path as given.
 */
static int walk_fail(struct walk *w, int ret, const char *name,
		     const char *what)
{
	char *at;

	if (!w->why)
		return ret;
	at = walk_at_new(w, name);
	if (!strcmp(at, w->path))
		snprintf(w->why, w->len, "%s%s", what ? "it " : "",
			 what ? what : strerror(-ret));
	else if (what)
		snprintf(w->why, w->len, "'%s' %s", at, what);
	else
		snprintf(w->why, w->len, "'%s': %s", at, strerror(-ret));
	free(at);
	return ret;
}

/*
 * NAME at W->fd is a symbolic link (ST): followed only when
 * link_followable(), its target put before what is left of the walk.
 */
static int walk_link(struct walk *w, const char *name, const struct stat *st)
{
	char target[PATH_MAX], owner[96], msg[192], *rest;
	ssize_t n;

	if (!link_followable(st, owner, sizeof(owner))) {
		snprintf(msg, sizeof(msg),
			 "is a symbolic link %s: not followed (whoever owns "
			 "a link chooses where it points)",
			 owner);
		return walk_fail(w, -ELOOP, name, msg);
	}
	if (++w->links > BENEATH_LINKS_MAX)
		return walk_fail(w, -ELOOP, name,
				 "is one symbolic link too many");
	n = readlinkat(w->fd, name, target, sizeof(target));
	if (n < 0 || n == (ssize_t)sizeof(target))
		return walk_fail(w, n < 0 ? -errno : -ENAMETOOLONG, name,
				 NULL);
	target[n] = '\0';
	rest = xasprintf("%s/%s", target, w->rest);
	free(w->rest);
	w->rest = rest;
	if (*target == '/') {
		close(w->fd);
		w->fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(w->seen);
		w->seen = xstrdup("/");
		if (w->fd < 0)
			return walk_fail(w, -errno, "", NULL);
	}
	return 0;
}

/* NAME, a component of the walk, opened with FLAGS (made first if MAKE). */
static int walk_one(struct walk *w, const char *name, int flags, bool make,
		    mode_t mode)
{
	struct stat st;
	int fd, ret;

	fd = openat(w->fd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && make) {
		if (mkdirat(w->fd, name, mode) < 0 && errno != EEXIST)
			return walk_fail(w, -errno, name, NULL);
		fd = openat(w->fd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	}
	/* O_PATH | O_NOFOLLOW opens a link itself: a link all the same */
	if (fd >= 0 && (flags & O_PATH) &&
	    (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = ELOOP;
	}
	if (fd >= 0) {
		char *seen = walk_at_new(w, name);

		free(w->seen);
		w->seen = seen;
		close(w->fd);
		w->fd = fd;
		return 0;
	}
	ret = -errno;
	if ((ret == -ELOOP || ret == -ENOTDIR) &&
	    fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return walk_link(w, name, &st);
	return walk_fail(w, ret, name, NULL);
}

/*
 * PATH walked one component at a time (beneath.h, dir_open_path()): the
 * directories on the way opened O_DIRECTORY | O_NOFOLLOW, the last
 * component with FLAGS; MAKE makes missing directories (the last too
 * when FLAGS has O_DIRECTORY).  The descriptor reached, or a negative
 * errno with WHY.
 */
static int path_walk(const char *path, int flags, bool make, mode_t mode,
		     char *why, size_t len)
{
	struct walk w = { .path = path, .why = why, .len = len };
	int ret = 0;

	if (why && len)
		*why = '\0';
	if (!*path) {
		if (why)
			snprintf(why, len, "an empty path");
		return -ENOENT;
	}
	w.rest = xstrdup(path);
	w.seen = xstrdup(*path == '/' ? "/" : "");
	w.fd = open(*path == '/' ? "/" : ".",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.fd < 0)
		ret = walk_fail(&w, -errno, "", NULL);
	while (ret == 0) {
		char *p = w.rest + strspn(w.rest, "/"), *name, *end;
		bool last;

		if (!*p)
			break;
		end = p + strcspn(p, "/");
		name = xstrndup(p, (size_t)(end - p));
		/* what is left after NAME, before NAME is opened: a link's
		 * target goes before it */
		memmove(w.rest, end, strlen(end) + 1);
		last = !w.rest[strspn(w.rest, "/")];
		if (strcmp(name, "."))
			ret = walk_one(&w, name,
				       last ? flags : O_RDONLY | O_DIRECTORY,
				       make && (!last || (flags & O_DIRECTORY)),
				       mode);
		free(name);
	}
	free(w.rest);
	free(w.seen);
	if (ret < 0) {
		if (w.fd >= 0)
			close(w.fd);
		return ret;
	}
	return w.fd;
}

int dir_open_path(const char *path, bool make, mode_t mode, char *why,
		  size_t len)
{
	return path_walk(path, O_RDONLY | O_DIRECTORY, make, mode, why, len);
}

int path_open_file(const char *path, char *why, size_t len)
{
	int fd = path_walk(path, O_PATH, false, 0, why, len);

	if (fd < 0)
		return fd;
	fd = path_fd_reopen(fd);
	if (fd < 0 && why)
		snprintf(why, len, "%s", beneath_strerror(fd));
	return fd;
}

char *fd_path_new(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf));
	if (n < 0 || n == (ssize_t)sizeof(buf) || buf[0] != '/')
		return NULL;
	return xstrndup(buf, (size_t)n);
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

/* FD read whole (at most MAX bytes) and closed. */
static int read_fd_close(int fd, size_t max, char **out, size_t *len)
{
	char path[64];
	int ret;

	/* read_file() of our own descriptor: no second lookup by name */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = read_file(path, max, out, len);
	close(fd);
	return ret;
}

int read_at_beneath(int dirfd, const char *rel, size_t max, char **out,
		    size_t *len)
{
	int fd;

	*out = NULL;
	fd = openat_file(dirfd, rel);
	return fd < 0 ? fd : read_fd_close(fd, max, out, len);
}

int read_file_beneath(const char *root, const char *rel, size_t max,
		      char **out, size_t *len)
{
	int dfd, ret;

	*out = NULL;
	dfd = dir_open_path(root, false, 0, NULL, 0);
	if (dfd < 0)
		return dfd;
	ret = read_at_beneath(dfd, rel, max, out, len);
	close(dfd);
	return ret;
}

int read_path_file(const char *path, size_t max, char **out, size_t *len,
		   char *why, size_t whylen)
{
	int fd, ret;

	*out = NULL;
	fd = path_open_file(path, why, whylen);
	if (fd < 0)
		return fd;
	ret = read_fd_close(fd, max, out, len);
	if (ret < 0 && why)
		snprintf(why, whylen, "%s", strerror(-ret));
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

bool stat_ours_file(const struct stat *st, char *why, size_t len)
{
	if (!S_ISREG(st->st_mode)) {
		if (why)
			snprintf(why, len, "not a regular file");
		return false;
	}
	if (st->st_nlink != 1) {
		if (why)
			snprintf(why, len,
				 "a hard link (%lu names): its other names "
				 "could be any file",
				 (unsigned long)st->st_nlink);
		return false;
	}
	return stat_ours(st, why, len);
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
