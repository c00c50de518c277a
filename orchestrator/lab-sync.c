/* SPDX-License-Identifier: MIT */
/* The lab's run directory into DIR/lab (lab-sync.h). */
#include "lab-sync.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "lab-session.h"
#include "proto.h"
#include "util.h"

/*
 * Names this host writes itself: the lab cannot send one, at any depth.
 * lab.json held a lab run's resume state before it moved into results.json
 * (run directories of older vmtax have one).
 */
static const char *const lab_reserved[] = { "lab.json", "host-journal" };

int lab_name_check(const char *name, size_t n, char *why, size_t len)
{
	size_t i;

	if (!n) {
		snprintf(why, len, "an empty name");
		return -EINVAL;
	}
	if ((n == 1 && name[0] == '.') ||
	    (n == 2 && name[0] == '.' && name[1] == '.')) {
		snprintf(why, len, "'%.*s' leaves the directory", (int)n, name);
		return -EINVAL;
	}
	if (name[0] == '.') {
		snprintf(why, len, "starts with '.' (a hidden file)");
		return -EINVAL;
	}
	if (n > LAB_NAME_MAX) {
		snprintf(why, len, "longer than %d bytes (%zu)", LAB_NAME_MAX,
			 n);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f) {
			snprintf(why, len, "a control character (0x%02x)", c);
			return -EINVAL;
		}
		if (!c || !strchr(LAB_NAME_CHARS, c)) {
			snprintf(why, len,
				 "a character outside [A-Za-z0-9._,:+=@-] "
				 "(0x%02x)",
				 c);
			return -EINVAL;
		}
	}
	for (i = 0; i < ARRAY_SIZE(lab_reserved); i++)
		if (strlen(lab_reserved[i]) == n &&
		    !memcmp(name, lab_reserved[i], n)) {
			snprintf(why, len,
				 "'%s' is this host's own: the lab cannot "
				 "send one",
				 lab_reserved[i]);
			return -EINVAL;
		}
	return 0;
}

int lab_path_check(const char *rel, size_t n, char *why, size_t len)
{
	size_t at = 0, depth = 0;

	if (n && rel[0] == '/') {
		snprintf(why, len, "an absolute path");
		return -EINVAL;
	}
	do {
		const char *slash = memchr(rel + at, '/', n - at);
		size_t cn = slash ? (size_t)(slash - rel) - at : n - at;

		if (++depth > LAB_DEPTH_MAX) {
			snprintf(why, len, "deeper than %d names",
				 LAB_DEPTH_MAX);
			return -EINVAL;
		}
		if (lab_name_check(rel + at, cn, why, len) < 0)
			return -EINVAL;
		at += cn + 1;
	} while (at <= n);
	return 0;
}

/* NAME as the log shows it: printable ASCII, the rest as \xNN, bounded. */
static void name_show(const char *s, size_t n, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 8 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 64) {
			o += (size_t)snprintf(out + o, len - o, "...");
			break;
		}
		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

static void refuse(struct lab_sync_stats *st, const char *name, size_t n,
		   const char *why)
{
	char shown[300];

	name_show(name, n, shown, sizeof(shown));
	warn("lab: refusing the lab's file '%s'%s: %s", shown,
	     n > 64 ? " (shortened)" : "", why);
	st->refused++;
}

/* The parents of REL beneath LABFD: -ENOTDIR when a file is in the way. */
static int parents_make(int labfd, const char *rel)
{
	char *copy = xstrdup(rel), *p = copy;
	int ret = 0;

	while (ret == 0 && (p = strchr(p, '/'))) {
		*p = '\0';
		ret = mkdirat_beneath(labfd, copy, 0755);
		*p++ = '/';
	}
	free(copy);
	return ret;
}

int lab_fetch(const struct lab_sync_src *src, const char *rel, long long room,
	      const char *room_name, char **buf, size_t *have, char *why,
	      size_t len)
{
	long long size = 0, got;
	char *chunk = NULL;
	size_t n;
	int ret;

	*buf = NULL;
	*have = 0;
	do {
		ret = src->read(src->arg, rel, (long long)*have,
				AGENT_FILE_CHUNK, &chunk, &n, &size, why, len);
		if (ret < 0)
			goto fail;
		got = (long long)(*have + n);
		ret = 1;
		if (size > LAB_FILE_BYTES_MAX || got > LAB_FILE_BYTES_MAX) {
			snprintf(why, len,
				 "is %lld bytes, over the cap of %lld a file "
				 "(LAB_FILE_BYTES_MAX)",
				 size > got ? size : got, LAB_FILE_BYTES_MAX);
			goto fail;
		}
		if (got > room) {
			snprintf(why, len, "would pass %s (%lld bytes)",
				 room_name, room);
			goto fail;
		}
		*buf = xrealloc(*buf, *have + n + 1);
		memcpy(*buf + *have, chunk, n);
		*have += n;
		(*buf)[*have] = '\0';
		free(chunk);
		chunk = NULL;
	} while (n && (long long)*have < size);
	return 0;
fail:
	free(chunk);
	free(*buf);
	*buf = NULL;
	*have = 0;
	return ret;
}

/* One record: SIZE and REL (N bytes, not NUL-terminated inside REL). */
static int sync_one(int labfd, const char *labdir, long long size,
		    const char *rel, size_t n, const struct lab_sync_src *src,
		    struct lab_sync_stats *st)
{
	char why[256], *data = NULL;
	struct stat sb;
	size_t got;
	int ret;

	if (lab_path_check(rel, n, why, sizeof(why)) < 0) {
		refuse(st, rel, n, why);
		return 0;
	}
	if (size > LAB_FILE_BYTES_MAX) {
		snprintf(why, sizeof(why),
			 "claims %lld bytes, over the cap of %lld a file "
			 "(LAB_FILE_BYTES_MAX)",
			 size, LAB_FILE_BYTES_MAX);
		refuse(st, rel, n, why);
		return 0;
	}
	if (strcmp(rel, "results.json") &&
	    fstatat(labfd, rel, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(sb.st_mode) && sb.st_size == size) {
		st->same++;
		return 0;
	}
	if (parents_make(labfd, rel) < 0) {
		refuse(st, rel, n, "a file of this host is in the way");
		return 0;
	}
	ret = lab_fetch(src, rel, LAB_RUN_BYTES_MAX - st->bytes,
			"what is left of one sync's LAB_RUN_BYTES_MAX", &data,
			&got, why, sizeof(why));
	if (ret == -EREMOTEIO) { /* gone since the listing: the next sync */
		warn("lab: cannot bring back '%s': %s", rel, why);
		ret = 0;
	} else if (ret < 0) {
		err("lab: cannot bring back '%s': %s", rel, why);
	} else if (ret > 0) {
		refuse(st, rel, n, why);
		ret = 0;
	} else {
		ret = write_at_atomic(labfd, labdir, rel, data ? data : "", got,
				      0644);
		if (ret == 0) {
			st->files++;
			st->bytes += (long long)got;
		}
	}
	free(data);
	return ret;
}

/*
 * One listing record REC (RN bytes, "SIZE PATH"): the file synced into
 * LABFD, or refused when the record is malformed.
 */
static int sync_record(int labfd, const char *labdir, const char *rec,
		       size_t rn, const struct lab_sync_src *src,
		       struct lab_sync_stats *st)
{
	const char *sp = memchr(rec, ' ', rn);
	char *rel, *num;
	long long size;
	int ret;

	num = sp ? xstrndup(rec, (size_t)(sp - rec)) : NULL;
	if (!num || !*num || strlen(num) > 15 ||
	    strspn(num, "0123456789") != strlen(num)) {
		refuse(st, rec, rn, "a malformed listing record");
		free(num);
		return 0;
	}
	size = atoll(num);
	free(num);
	rel = xstrndup(sp + 1, rn - (size_t)(sp + 1 - rec));
	/* a NUL inside cannot happen: records end at NUL */
	ret = sync_one(labfd, labdir, size, rel, rn - (size_t)(sp + 1 - rec),
		       src, st);
	free(rel);
	return ret;
}

int lab_sync_files(const char *dir, const char *list, size_t len,
		   const struct lab_sync_src *src, struct lab_sync_stats *st)
{
	char *labdir = xasprintf("%s/%s", dir, LAB_SUBDIR);
	size_t at = 0, records = 0;
	int dfd, labfd = -1, ret;

	memset(st, 0, sizeof(*st));
	dfd = dir_open_nofollow(dir);
	if (dfd < 0) {
		ret = err_code(dfd, "cannot open '%s'", dir);
		goto out;
	}
	ret = mkdirat_beneath(dfd, LAB_SUBDIR, 0755);
	labfd = ret < 0 ? ret
			: openat_beneath(dfd, LAB_SUBDIR,
					 O_RDONLY | O_DIRECTORY, 0);
	if (labfd < 0) {
		ret = err_code(labfd, "cannot use '%s' (a symbolic link?)",
			       labdir);
		goto out;
	}
	ret = 0;
	while (ret == 0 && at < len) {
		const char *rec = list + at, *end = memchr(rec, '\0', len - at);
		size_t rn = end ? (size_t)(end - rec) : len - at;

		at += rn + 1;
		if (++records > LAB_FILES_MAX) {
			warn("lab: the lab lists more than %d files "
			     "(LAB_FILES_MAX): the rest are refused",
			     LAB_FILES_MAX);
			st->refused += 1;
			break;
		}
		ret = sync_record(labfd, labdir, rec, rn, src, st);
	}
out:
	if (labfd >= 0)
		close(labfd);
	if (dfd >= 0)
		close(dfd);
	free(labdir);
	return ret;
}
