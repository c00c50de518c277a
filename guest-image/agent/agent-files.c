/* SPDX-License-Identifier: MIT */
/* The agent's read-file and write-file requests (agent-files.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent-files.h"
#include "base64.h"
#include "proto.h"
#include "util.h"

/* An absolute path of printable characters, no "..", or NULL. */
static const char *req_path(const json_t *req, char *msg, size_t mlen)
{
	const char *p = json_string_value(json_object_get(req, "path"));
	const char *c;

	if (!p || p[0] != '/' || strlen(p) >= 4096) {
		snprintf(msg, mlen, "'path' must be an absolute path");
		return NULL;
	}
	for (c = p; *c; c++)
		if ((unsigned char)*c < 0x20) {
			snprintf(msg, mlen, "'path' has a control character");
			return NULL;
		}
	return p;
}

/* An optional non-negative integer member; false if present but wrong. */
static bool opt_uint(const json_t *req, const char *key, long long max,
		     long long *out)
{
	const json_t *v = json_object_get(req, key);

	if (!v || json_is_null(v))
		return true;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > max)
		return false;
	*out = json_integer_value(v);
	return true;
}

/* Up to LENGTH bytes of FD (PATH) at OFFSET into BUF: how many, or -1. */
static ssize_t read_range(int fd, unsigned char *buf, long long length,
			  long long offset, const char *path, char *msg,
			  size_t mlen)
{
	ssize_t n = 0;

	while (n < length) {
		ssize_t k = pread(fd, buf + n, (size_t)(length - n),
				  (off_t)(offset + n));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(msg, mlen, "cannot read '%.200s': %s", path,
				 strerror(errno));
			return -1;
		}
		if (!k)
			break;
		n += k;
	}
	return n;
}

json_t *agent_read_file_new(const json_t *req, const char **code, char *msg,
			    size_t mlen, char *log, size_t llen)
{
	long long offset = 0, length = AGENT_FILE_CHUNK;
	unsigned char *buf = NULL;
	json_t *res = NULL;
	const char *path;
	struct stat st;
	ssize_t n = 0;
	char *data;
	int fd = -1;

	*code = "bad-request";
	path = req_path(req, msg, mlen);
	if (!path)
		goto out;
	if (!opt_uint(req, "offset", (long long)1 << 50, &offset) ||
	    !opt_uint(req, "length", AGENT_FILE_CHUNK, &length)) {
		snprintf(msg, mlen,
			 "'offset' must be an integer >= 0 and 'length' one "
			 "in 0..%d",
			 AGENT_FILE_CHUNK);
		goto out;
	}
	*code = "io-error";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(msg, mlen, "cannot open '%.200s': %s", path,
			 strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, mlen, "'%.200s' is not a regular file", path);
		goto out;
	}
	buf = xmalloc((size_t)length + 1);
	n = read_range(fd, buf, length, offset, path, msg, mlen);
	if (n < 0)
		goto out;
	data = base64_encode_new(buf, (size_t)n);
	res = json_pack("{s:s%, s:I, s:I, s:b}", "data", data,
			strlen(data), "size", (json_int_t)st.st_size, "offset",
			(json_int_t)offset,
			"eof", offset + n >= (long long)st.st_size);
	free(data);
	snprintf(log, llen, "%.120s: %zd bytes at %lld", path, n, offset);
out:
	if (!res)
		snprintf(log, llen, "%s: %s", *code, msg);
	if (fd >= 0)
		close(fd);
	free(buf);
	return res;
}

/* A write-file request's mode, append flag and data (decoded into *BUF). */
static bool write_request(const json_t *req, long long *mode,
			  unsigned char **buf, size_t *len, char *msg,
			  size_t mlen)
{
	const char *data = json_string_value(json_object_get(req, "data"));
	const json_t *app = json_object_get(req, "append");

	if (!opt_uint(req, "mode", 07777, mode) ||
	    (app && !json_is_boolean(app))) {
		snprintf(msg, mlen,
			 "'mode' must be an integer in 0..07777 and 'append' "
			 "a boolean");
		return false;
	}
	if (!data || base64_decode_new(data, buf, len) < 0 ||
	    *len > AGENT_FILE_CHUNK) {
		snprintf(msg, mlen, "'data' must be base64 of at most %d bytes",
			 AGENT_FILE_CHUNK);
		return false;
	}
	return true;
}

/* LEN bytes of BUF into FD (PATH), synced; its size then into *ST. */
static bool write_all_sync(int fd, const unsigned char *buf, size_t len,
			   const char *path, struct stat *st, char *msg,
			   size_t mlen)
{
	size_t off = 0;

	while (off < len) {
		ssize_t k = write(fd, buf + off, len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(msg, mlen, "cannot write '%.200s': %s", path,
				 strerror(errno));
			return false;
		}
		off += (size_t)k;
	}
	if (fsync(fd) < 0 || fstat(fd, st) < 0) {
		snprintf(msg, mlen, "cannot sync '%.200s': %s", path,
			 strerror(errno));
		return false;
	}
	return true;
}

json_t *agent_write_file_new(const json_t *req, const char **code, char *msg,
			     size_t mlen, char *log, size_t llen)
{
	bool append = json_is_true(json_object_get(req, "append"));
	long long mode = 0644;
	unsigned char *buf = NULL;
	json_t *res = NULL;
	const char *path;
	struct stat st;
	size_t len = 0;
	int fd = -1;

	*code = "bad-request";
	path = req_path(req, msg, mlen);
	if (!path || !write_request(req, &mode, &buf, &len, msg, mlen))
		goto out;
	*code = "io-error";
	fd = open(path,
		  O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
		  (mode_t)mode);
	if (fd < 0) {
		snprintf(msg, mlen, "cannot open '%.200s': %s", path,
			 strerror(errno));
		goto out;
	}
	if (!write_all_sync(fd, buf, len, path, &st, msg, mlen))
		goto out;
	res = json_pack("{s:I}", "size", (json_int_t)st.st_size);
	snprintf(log, llen, "%.120s: %zu bytes%s", path, len,
		 append ? " appended" : "");
out:
	if (!res)
		snprintf(log, llen, "%s: %s", *code, msg);
	if (fd >= 0)
		close(fd);
	free(buf);
	return res;
}
