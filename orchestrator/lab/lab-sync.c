/* SPDX-License-Identifier: MIT */
/* The lab's run directory into DIR/lab (lab-sync.h). */
#include "lab-sync.h"

#include <dirent.h>
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

/* What one sync works on. */
struct sync {
	int labfd;
	const char *labdir;
	const struct lab_sync_src *src;
	long long total_max;
	struct lab_sync_stats *st;
};

/* One record of the listing: REL NULL when refused already. */
struct rec {
	char *rel;
	long long size;
	bool keep; /* in DIR/lab after the sync */
};

/*
 * One listing record S (N bytes, "SIZE PATH") into R, or refused (R->rel
 * NULL) when it is malformed, its path breaks the name rule or it claims
 * more than a file may hold.
 */
static void rec_parse(const char *s, size_t n, struct rec *r,
		      struct lab_sync_stats *st)
{
	const char *sp = memchr(s, ' ', n);
	size_t digits = sp ? (size_t)(sp - s) : 0, rn;
	char why[256];

	memset(r, 0, sizeof(*r));
	if (!digits || digits > 15 || strspn(s, "0123456789") < digits) {
		refuse(st, s, n, "a malformed listing record");
		return;
	}
	r->size = atoll(s);
	rn = n - digits - 1;
	/* a NUL inside cannot happen: records end at NUL */
	if (lab_path_check(sp + 1, rn, why, sizeof(why)) < 0) {
		refuse(st, sp + 1, rn, why);
		return;
	}
	if (r->size > LAB_FILE_BYTES_MAX) {
		snprintf(why, sizeof(why),
			 "claims %lld bytes, over the cap of %lld a file "
			 "(LAB_FILE_BYTES_MAX)",
			 r->size, LAB_FILE_BYTES_MAX);
		refuse(st, sp + 1, rn, why);
		return;
	}
	r->rel = xstrndup(sp + 1, rn);
}

/* The lab's results, brought back at every sync and first. */
static bool is_results(const struct rec *r)
{
	return !strcmp(r->rel, "results.json");
}

/* A file here already, the same size as the lab's: kept while it fits. */
static void keep_same(struct sync *y, struct rec *r)
{
	struct stat sb;

	if (fstatat(y->labfd, r->rel, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(sb.st_mode) || sb.st_size != r->size ||
	    y->st->held + r->size > y->total_max)
		return;
	r->keep = true;
	y->st->held += r->size;
	y->st->same++;
}

/*
 * The room left for R: what is left of one sync's bytes and of the
 * total DIR/lab may hold, whichever is less, its name into NAME.
 */
static long long room_left(const struct sync *y, char *name, size_t len)
{
	long long sync = LAB_SYNC_BYTES_MAX - y->st->bytes;
	long long total = y->total_max - y->st->held;

	if (sync < total) {
		snprintf(name, len,
			 "what is left of one sync's LAB_SYNC_BYTES_MAX "
			 "(%lld of %lld bytes brought)",
			 y->st->bytes, LAB_SYNC_BYTES_MAX);
		return sync;
	}
	snprintf(name, len,
		 "what is left of LAB_TOTAL_BYTES_MAX, the cap on the lab's "
		 "files here (%lld of %lld bytes held)",
		 y->st->held, y->total_max);
	return total;
}

/* R brought back from the lab into DIR/lab, or refused. */
static int fetch_one(struct sync *y, struct rec *r)
{
	char why[512], name[256], *data = NULL;
	long long room = room_left(y, name, sizeof(name));
	size_t got, n = strlen(r->rel);
	int ret;

	if (r->size > room) {
		snprintf(why, sizeof(why), "is %lld bytes, over %s", r->size,
			 name);
		refuse(y->st, r->rel, n, why);
		return 0;
	}
	if (parents_make(y->labfd, r->rel) < 0) {
		refuse(y->st, r->rel, n, "a file of this host is in the way");
		return 0;
	}
	ret = lab_fetch(y->src, r->rel, room, name, &data, &got, why,
			sizeof(why));
	if (ret == -EREMOTEIO) { /* gone since the listing: the next sync */
		warn("lab: cannot bring back '%s': %s", r->rel, why);
		ret = 0;
	} else if (ret < 0) {
		err("lab: cannot bring back '%s': %s", r->rel, why);
	} else if (ret > 0) {
		refuse(y->st, r->rel, n, why);
		ret = 0;
	} else {
		ret = write_at_atomic(y->labfd, y->labdir, r->rel,
				      data ? data : "", got, 0644);
		if (ret == 0) {
			r->keep = true;
			y->st->files++;
			y->st->bytes += (long long)got;
			y->st->held += (long long)got;
		}
	}
	free(data);
	return ret;
}

/*
 * Remove what is beneath DIRFD (REL its path in DIR/lab, "" at the top,
 * DEPTH names deep) but the files KEEP (N, sorted): each file the lab no
 * longer lists, or that was refused, and the directories left empty.
 * Nothing is followed: a symlink is removed as itself.
 */
static void prune(struct sync *y, int dirfd, const char *rel, char *const *keep,
		  size_t n, int depth)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		warn("lab: cannot list '%s/%s' to remove the lab's old files",
		     y->labdir, rel);
		return;
	}
	while ((e = readdir(d))) {
		char *path;
		struct stat sb;
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		path = *rel ? xasprintf("%s/%s", rel, e->d_name)
			    : xstrdup(e->d_name);
		if (S_ISDIR(sb.st_mode)) {
			/* deeper than a kept file can be: left alone */
			sub = depth < LAB_DEPTH_MAX
				  ? openat(dirfd, e->d_name,
					   O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					       O_CLOEXEC)
				  : -1;
			if (sub >= 0) {
				prune(y, sub, path, keep, n, depth + 1);
				close(sub);
				unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
			}
		} else if (!n ||
			   !bsearch(&path, keep, n, sizeof(*keep), strv_cmp)) {
			if (unlinkat(dirfd, e->d_name, 0) == 0)
				y->st->removed++;
			else
				warn("lab: cannot remove '%s/%s': %s",
				     y->labdir, path, strerror(errno));
		}
		free(path);
	}
	closedir(d);
}

/* DIR/lab pruned of all but the kept files of RECS (N). */
static void prune_unkept(struct sync *y, const struct rec *recs, size_t n)
{
	char **keep = NULL;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (recs[i].keep) {
			keep = xgrow(keep, k, sizeof(*keep));
			keep[k++] = recs[i].rel;
		}
	if (k)
		qsort(keep, k, sizeof(*keep), strv_cmp);
	prune(y, y->labfd, "", keep, k, 1);
	free(keep);
}

/* LIST's records into *RECS (new): their count. */
static size_t recs_parse(const char *list, size_t len, struct rec **recs,
			 struct lab_sync_stats *st)
{
	size_t at = 0, n = 0;

	*recs = NULL;
	while (at < len) {
		const char *rec = list + at, *end = memchr(rec, '\0', len - at);
		size_t rn = end ? (size_t)(end - rec) : len - at;

		at += rn + 1;
		if (n == LAB_FILES_MAX) {
			warn("lab: the lab lists more than %d files "
			     "(LAB_FILES_MAX): the rest are refused",
			     LAB_FILES_MAX);
			st->refused += 1;
			break;
		}
		*recs = xgrow(*recs, n, sizeof(**recs));
		rec_parse(rec, rn, &(*recs)[n++], st);
	}
	return n;
}

int lab_sync_files(const char *dir, const char *list, size_t len,
		   const struct lab_sync_src *src, long long total_max,
		   struct lab_sync_stats *st)
{
	char *labdir = xasprintf("%s/%s", dir, LAB_SUBDIR);
	struct sync y = {-1, labdir, src, total_max, st};
	struct rec *recs = NULL;
	size_t i, n = 0;
	int dfd, ret;

	memset(st, 0, sizeof(*st));
	dfd = dir_open_nofollow(dir);
	if (dfd < 0) {
		ret = err_code(dfd, "cannot open '%s'", dir);
		goto out;
	}
	ret = mkdirat_beneath(dfd, LAB_SUBDIR, 0755);
	y.labfd = ret < 0 ? ret
			  : openat_beneath(dfd, LAB_SUBDIR,
					   O_RDONLY | O_DIRECTORY, 0);
	if (y.labfd < 0) {
		ret = err_code(y.labfd, "cannot use '%s' (a symbolic link?)",
			       labdir);
		goto out;
	}
	n = recs_parse(list, len, &recs, st);
	/* the room goes to results.json, then to what is here already */
	ret = 0;
	for (i = 0; ret == 0 && i < n; i++)
		if (recs[i].rel && is_results(&recs[i]))
			ret = fetch_one(&y, &recs[i]);
	for (i = 0; ret == 0 && i < n; i++)
		if (recs[i].rel && !is_results(&recs[i]))
			keep_same(&y, &recs[i]);
	for (i = 0; ret == 0 && i < n; i++)
		if (recs[i].rel && !is_results(&recs[i]) && !recs[i].keep)
			ret = fetch_one(&y, &recs[i]);
	if (ret == 0)
		prune_unkept(&y, recs, n);
out:
	for (i = 0; i < n; i++)
		free(recs[i].rel);
	free(recs);
	if (y.labfd >= 0)
		close(y.labfd);
	if (dfd >= 0)
		close(dfd);
	free(labdir);
	return ret;
}
