/* SPDX-License-Identifier: MIT */
#include "util.h"
#include "untrusted.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The one mutable global here (util.h): main() sets it once. */
static enum verbosity verbosity = VERBOSITY_NORMAL;

void verbosity_set(enum verbosity v)
{
	verbosity = v;
}

enum verbosity verbosity_get(void)
{
	return verbosity;
}

/* KIND NULL: MSG alone, with no program name (err_plain()). */
static void vreport(const char *kind, const char *fmt, va_list ap, int code)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* messages quote what guests, results files and configs say */
	untrusted_scrub(msg, true);
	if (!kind)
		fprintf(stderr, "%s\n", msg);
	else if (code)
		fprintf(stderr, "%s: %s%s: %s\n", program_invocation_short_name,
			kind, msg, strerror(code));
	else
		fprintf(stderr, "%s: %s%s\n", program_invocation_short_name,
			kind, msg);
}

int err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	return -EINVAL;
}

int err_errno(const char *fmt, ...)
{
	int code = errno ? errno : EIO;
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, code);
	va_end(ap);
	return -code;
}

int err_code(int code, const char *fmt, ...)
{
	va_list ap;

	if (code >= 0)
		code = -EIO;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap, -code);
	va_end(ap);
	return code;
}

int err_plain(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(NULL, fmt, ap, 0);
	va_end(ap);
	return -EINVAL;
}

void warn(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < VERBOSITY_NORMAL)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < VERBOSITY_NORMAL)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < VERBOSITY_VERBOSE)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xgrow(void *p, size_t n, size_t size)
{
	if (n & (n - 1)) /* neither 0 nor a power of two: there is room */
		return p;
	return xrealloc(p, (n ? 2 * n : 1) * size);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		abort();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		abort();
	return p;
}

int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

const char *path_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

uint64_t hash_fnv1a_more(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t hash_fnv1a(const char *s, size_t n)
{
	return hash_fnv1a_more(HASH_FNV1A_INIT, s, n);
}

int hash_fnv1a_file(const char *path, uint64_t *h)
{
	char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	*h = HASH_FNV1A_INIT;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		*h = hash_fnv1a_more(*h, buf, (size_t)n);
	}
	close(fd);
	return ret;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		abort();
	va_end(ap);
	return p;
}

double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void iso8601_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = NULL;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += r;
		if (n > max) {
			ret = -EFBIG;
			goto out;
		}
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = n;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int read_line(const char *path, char *buf, size_t len)
{
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	if (r < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	close(fd);
	buf[r] = '\0';
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		buf[--r] = '\0';
	return 0;
}

int write_str(const char *path, const char *s)
{
	size_t n = strlen(s);
	ssize_t w;
	int fd;

	/* O_TRUNC, as the shell's '>': sysfs and procfs ignore it, and a
	 * regular file (a test's fake tree) then holds S alone */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, s, n);
	if (w < 0) {
		w = -errno;
		close(fd);
		return w;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

const char *package_next(const char *p, size_t *n)
{
	if (!p)
		return NULL;
	p += strspn(p, PACKAGE_SEP);
	if (!*p)
		return NULL;
	*n = strcspn(p, PACKAGE_SEP);
	return p;
}

bool debian_package_name(const char *s, size_t n)
{
	size_t i;

	if (n < 2 || !((s[0] >= 'a' && s[0] <= 'z') ||
		       (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("+-.", s[i])))
			return false;
	return true;
}

bool sysfs_list_has(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p = line;

	while (*p) {
		size_t w;

		p += strspn(p, " \t\n[]");
		w = strcspn(p, " \t\n[]");
		if (w && w == n && !strncmp(p, word, n))
			return true;
		p += w;
	}
	return false;
}

int mkdir_parents(const char *path, mode_t mode)
{
	char *copy = xstrdup(path), *p, c;
	int ret = 0;

	for (p = copy + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST) {
			ret = -errno;
			goto out;
		}
		*p = c;
		if (!c)
			break;
	}
out:
	free(copy);
	return ret;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	/* Our own temporary: two processes writing PATH at once each
	 * rename a whole file of their own. */
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	char *dircopy = xstrdup(path);
	int fd = -1, dfd = -1, ret;
	size_t off = 0;

	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		ret = err_errno("cannot create '%s'", tmp);
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			ret = err_errno("cannot write '%s'", tmp);
			goto out;
		}
		off += w;
	}
	if (fsync(fd) < 0) {
		ret = err_errno("cannot fsync '%s'", tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		ret = err_errno("cannot rename '%s' to '%s'", tmp, path);
		goto out;
	}
	dfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fsync(dfd);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	/* A full disk leaves no half-written temporary behind. */
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	free(dircopy);
	return ret;
}

FILE *fopen_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		      0644);
	FILE *f;

	if (fd < 0) {
		err_errno("cannot create '%s'", path);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err_errno("cannot open '%s'", path);
		close(fd);
	}
	return f;
}

char *strstrip(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

bool is_safe_name(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
		if (n >= 64)
			return false;
	}
	return n > 0 && strcmp(s, ".") && strcmp(s, "..");
}

/* One shell word (util.h). */
char *sh_quote_new(const char *s)
{
	size_t n = 2, i;
	char *out, *o;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	out = o = xmalloc(n + 1);
	*o++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = s[i];
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

int build_id_read(char *buf, size_t len)
{
	char *data = NULL;
	size_t n = 0;
	int ret;

	ret = read_file("/proc/self/exe", (size_t)512 << 20, &data, &n);
	if (ret < 0)
		return ret;
	snprintf(buf, len, "fnv1a64:%016llx",
		 (unsigned long long)hash_fnv1a(data, n));
	free(data);
	return 0;
}
