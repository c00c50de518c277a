/* SPDX-License-Identifier: MIT */
/*
 * timings.c - this host's figures for the run estimate (timings.h).
 */
#include "timings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "env.h"
#include "layout.h"
#include "util.h"

/* ---- pure ---- */

struct kv {
	const char *name, *value;
};

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->name,
		      ((const struct kv *)b)->name);
}

void timings_params_key(const char *const *names, const char *const *values,
			size_t n, char *buf)
{
	struct kv *kv = xcalloc(n ? n : 1, sizeof(*kv));
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		kv[i].name = names[i];
		kv[i].value = values[i];
	}
	qsort(kv, n, sizeof(*kv), kv_cmp);
	for (i = 0; i < n; i++) {
		char *line = xasprintf("%s=%s\n", kv[i].name, kv[i].value);
		const unsigned char *p;

		/* FNV-1a, continued over every line */
		for (p = (const unsigned char *)line; *p; p++) {
			h ^= *p;
			h *= 0x100000001b3ULL;
		}
		free(line);
	}
	snprintf(buf, 17, "%016llx", (unsigned long long)h);
	free(kv);
}

bool timings_find(const json_t *t, const char *section, const char *key,
		  struct est_figure *f)
{
	json_t *fig = json_object_get(json_object_get(t, section), key);
	json_t *s = json_object_get(fig, "s");
	const char *date = json_string_value(json_object_get(fig, "date"));

	if (!json_is_number(s) || !(json_number_value(s) >= 0))
		return false;
	memset(f, 0, sizeof(*f));
	f->s = json_number_value(s);
	f->src = EST_MEASURED;
	snprintf(f->date, sizeof(f->date), "%.10s", date ? date : "?");
	return true;
}

/* A mean being summed: into ACC[KEY] = {sum, n}. */
static void acc_add(json_t *acc, const char *key, double x, long n)
{
	json_t *a = json_object_get(acc, key);

	if (!a) {
		a = json_pack("{s:f, s:I}", "sum", 0.0, "n", (json_int_t)0);
		json_object_set_new(acc, key, a);
	}
	json_object_set_new(a, "sum",
			    json_real(json_number_value(json_object_get(a, "sum")) +
				      x));
	json_object_set_new(
	    a, "n",
	    json_integer(json_integer_value(json_object_get(a, "n")) + n));
}

static double acc_mean(const json_t *acc, const char *key)
{
	json_t *a = json_object_get(acc, key);
	json_int_t n = json_integer_value(json_object_get(a, "n"));

	return n > 0 ? json_number_value(json_object_get(a, "sum")) / (double)n
		     : 0;
}

/* T[SECTION][KEY] = {s, n, date}; EXTRA's members added (may be NULL). */
static void fig_put(json_t *t, const char *section, const char *key,
		    double s, json_int_t n, const char *date, json_t *extra)
{
	json_t *sec = json_object_get(t, section);
	json_t *fig = json_pack("{s:f, s:I, s:s}", "s", s, "n", n, "date",
				date);

	if (!json_is_object(sec)) {
		sec = json_object();
		json_object_set_new(t, section, sec);
	}
	if (extra)
		json_object_update(fig, extra);
	json_decref(extra);
	json_object_set_new(sec, key, fig);
}

/* A cell's parameters from its env.params: the key, and "A=1 B=2". */
static void cell_params(const json_t *params, char *key, char *text,
			size_t tlen)
{
	size_t n = json_object_size(params), i = 0, off = 0;
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	const char **values = xcalloc(n ? n : 1, sizeof(*values));
	const char *k;
	json_t *v;

	text[0] = '\0';
	json_object_foreach((json_t *)params, k, v)
	{
		names[i] = k;
		values[i] = json_is_string(v) ? json_string_value(v) : "";
		if (off < tlen)
			off += (size_t)snprintf(text + off, tlen - off, "%s%s=%s",
						i ? " " : "", k, values[i]);
		i++;
	}
	timings_params_key(names, values, i, key);
	free(names);
	free(values);
}

/* How many interleaved groups cell ID was in (schedule.groups), else 1. */
static long bare_starts(const json_t *doc, const char *id)
{
	json_t *g, *c;
	size_t i, j;
	long n = 0;

	json_array_foreach(json_object_get(json_object_get(doc, "schedule"),
					   "groups"),
			   i, g)
	{
		json_array_foreach(json_object_get(g, "cells"), j, c)
		    n += json_is_string(c) && !strcmp(json_string_value(c), id);
	}
	return n ? n : 1;
}

/* The guests cell C booted: observed.guest_boots, else its samples'. */
static long guest_boots(const json_t *c)
{
	json_t *b = json_object_get(json_object_get(c, "observed"),
				    "guest_boots"),
	       *s;
	long n = 0;
	size_t i;

	if (json_is_integer(b) && json_integer_value(b) > 0)
		return (long)json_integer_value(b);
	json_array_foreach(json_object_get(c, "samples"), i, s)
	{
		json_t *k = json_object_get(s, "boot");

		if (json_is_integer(k) && json_integer_value(k) + 1 > n)
			n = (long)json_integer_value(k) + 1;
	}
	return n ? n : 1;
}

/* A run's totals, for its rest per start. */
struct run_sums {
	double elapsed;	 /* every sample's, ok or not */
	double boots_s;	 /* every boot's, at the cell's boot to hello */
	double warm_s;	 /* the warm-up runs, at the cell's sample mean */
	long starts;
};

/* The sums of a run: sample means and boot means by key, and the
 * parameters of each sample key. */
struct run_accs {
	json_t *samples, *boots, *params;
};

static void cell_sums(const json_t *doc, const json_t *c, bool lab,
		      const char *accel, const char *wl, long warmup,
		      const struct run_accs *a, struct run_sums *rs)
{
	const json_t *env = json_object_get(c, "env");
	const char *where =
	    json_string_value(json_object_get(env, AXIS_ENV_WHERE));
	const char *paging =
	    json_string_value(json_object_get(env, AXIS_ENV_PAGING));
	const char *image = json_string_value(json_object_get(env, "image"));
	const char *id = json_string_value(json_object_get(c, "id"));
	bool guest = where && !strcmp(where, "guest");
	bool tcg = (paging && !strcmp(paging, "tcg")) ||
		   (!paging && accel && !strcmp(accel, "tcg"));
	enum est_place p = est_place_of(lab, guest, tcg);
	json_t *hello = json_object_get(json_object_get(c, "observed"),
					"boot_to_hello_s"),
	       *s;
	char pkey[17], ptext[512], *key;
	double sum = 0;
	long n = 0, starts;
	size_t i;

	cell_params(json_object_get(env, "params"), pkey, ptext,
		    sizeof(ptext));
	json_array_foreach(json_object_get(c, "samples"), i, s)
	{
		json_t *e = json_object_get(s, "elapsed_s");
		const char *st = json_string_value(json_object_get(s, "status"));

		if (!json_is_number(e))
			continue;
		rs->elapsed += json_number_value(e);
		if (st && !strcmp(st, "ok")) {
			sum += json_number_value(e);
			n++;
		}
	}
	if (n) {
		key = xasprintf("%s/%s/%s", wl, pkey, est_place_name(p));
		acc_add(a->samples, key, sum, n);
		json_object_set_new(a->params, key, json_string(ptext));
		free(key);
	}
	starts = guest ? guest_boots(c) : bare_starts(doc, id ? id : "");
	if (guest && json_is_number(hello)) {
		key = xasprintf("%s/%s", image ? image : "tiny",
				est_place_name(p));
		acc_add(a->boots, key, json_number_value(hello), 1);
		free(key);
		rs->boots_s += (double)starts * json_number_value(hello);
	}
	if (n)
		rs->warm_s += (double)(warmup * starts) * sum / (double)n;
	/* a cell that never started (skipped) cost nothing to speak of */
	if (n || json_is_number(hello))
		rs->starts += starts;
}

/* SECTION of T cut to TIMINGS_KEYS_MAX figures, the oldest dropped. */
static void prune(json_t *t, const char *section)
{
	json_t *sec = json_object_get(t, section), *v;
	const char *k;

	while (json_object_size(sec) > TIMINGS_KEYS_MAX) {
		const char *oldest = NULL;
		char *drop = NULL;

		json_object_foreach(sec, k, v)
		{
			const char *d =
			    json_string_value(json_object_get(v, "date"));

			d = d ? d : "";
			if (!oldest || strcmp(d, oldest) < 0) {
				oldest = d;
				free(drop);
				drop = xstrdup(k);
			}
		}
		json_object_del(sec, drop);
		free(drop);
	}
}

int timings_update(json_t *t, const json_t *doc, double wall, bool whole,
		   const char *date)
{
	const json_t *run = json_object_get(doc, "run");
	const json_t *lab = json_object_get(doc, "lab");
	const char *wl = json_string_value(
	    json_object_get(json_object_get(doc, "workload"), "name"));
	const char *accel = json_string_value(
	    json_object_get(json_object_get(run, "host"), "accel"));
	json_t *cfg = json_object_get(json_object_get(run, "config"), "run");
	long warmup = (long)json_integer_value(json_object_get(cfg, "warmup"));
	struct run_accs a = {json_object(), json_object(), json_object()};
	json_t *c, *v, *ready;
	struct run_sums rs = {0};
	const char *k;
	size_t i;
	int n = 0;

	if (!wl || json_object_get(run, "remote_libvirt") ||
	    json_object_get(doc, "fleet"))
		goto out;
	json_object_set_new(t, "schema", json_string(TIMINGS_SCHEMA));
	json_array_foreach(json_object_get(doc, "cells"), i, c)
	    cell_sums(doc, c, lab != NULL, accel, wl, warmup, &a, &rs);
	json_object_foreach(a.samples, k, v)
	{
		fig_put(t, "sample", k, acc_mean(a.samples, k),
			json_integer_value(json_object_get(v, "n")), date,
			json_pack("{s:O}", "params",
				  json_object_get(a.params, k)));
		n++;
	}
	json_object_foreach(a.boots, k, v)
	{
		fig_put(t, "boot", k, acc_mean(a.boots, k),
			json_integer_value(json_object_get(v, "n")), date,
			NULL);
		n++;
	}
	ready = json_object_get(lab, "ready_s");
	if (json_is_number(ready)) {
		fig_put(t, "lab",
			json_is_true(json_object_get(lab, "restored"))
			    ? "restored"
			    : "booted",
			json_number_value(ready), 1, date, NULL);
		n++;
	}
	/* a lab that died or hung and was booted again: its wall holds the
	 * probe, the boots and the work done twice, no start's cost */
	if (json_integer_value(json_object_get(lab, "boots")) > 1)
		whole = false;
	if (whole && wall > 0 && rs.starts > 0) {
		double rest = wall - rs.elapsed - rs.boots_s - rs.warm_s -
			      (json_is_number(ready) ? json_number_value(ready)
						     : 0);

		char pkey[17], ptext[512], *key;

		/* the run's parameters as its first cell has them */
		cell_params(json_object_get(
				json_object_get(json_array_get(
						    json_object_get(doc, "cells"), 0),
						"env"),
				"params"),
			    pkey, ptext, sizeof(ptext));
		key = xasprintf("%s/%s", wl, pkey);
		fig_put(t, "rest", key,
			rest > 0 ? rest / (double)rs.starts : 0, rs.starts,
			date, json_pack("{s:s}", "params", ptext));
		free(key);
		n++;
	}
	prune(t, "sample");
	prune(t, "boot");
	prune(t, "rest");
out:
	json_decref(a.samples);
	json_decref(a.boots);
	json_decref(a.params);
	return n;
}

/* ---- the file ---- */

char *timings_dir_new(void)
{
	const char *env = getenv(ENV_TIMINGS_DIR);

	return xstrdup(env && *env ? env : layout_dirs()->cachedir);
}

/* Whether ST may be trusted: root's, writable by no one else. */
static bool root_only(const struct stat *st, char *why, size_t len)
{
	if (st->st_uid != 0) {
		snprintf(why, len, "owned by uid %u, not by root",
			 (unsigned)st->st_uid);
		return false;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "writable by %s (mode %04o)",
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

int timings_load(const char *dir, json_t **out, char *why, size_t len)
{
	int dfd = -1, fd = -1, ret;
	struct stat st;
	json_error_t je;
	char *text = NULL;
	json_t *doc = NULL;
	ssize_t got;

	*out = json_object();
	why[0] = '\0';
	dfd = dir_open_nofollow(dir);
	if (dfd < 0) {
		ret = dfd == -ENOENT ? 0 : dfd;
		if (ret)
			snprintf(why, len, "'%s': %s", dir, strerror(-ret));
		goto out;
	}
	ret = -EPERM;
	if (fstat(dfd, &st) < 0 || !root_only(&st, why, len))
		goto out;
	fd = openat_beneath(dfd, TIMINGS_FILE, O_RDONLY, 0);
	if (fd < 0) {
		ret = fd == -ENOENT ? 0 : fd;
		if (ret)
			snprintf(why, len, "%s", fd == -ELOOP
						     ? "a symbolic link"
						     : strerror(-fd));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file");
		goto out;
	}
	if (!root_only(&st, why, len))
		goto out;
	ret = -EFBIG;
	if (st.st_size > TIMINGS_BYTES_MAX) {
		snprintf(why, len, "larger than %d bytes", TIMINGS_BYTES_MAX);
		goto out;
	}
	text = xmalloc((size_t)st.st_size + 1);
	got = read(fd, text, (size_t)st.st_size);
	ret = -EIO;
	if (got != st.st_size) {
		snprintf(why, len, "cannot read it");
		goto out;
	}
	text[got] = '\0';
	doc = json_loads(text, 0, &je);
	ret = -EINVAL;
	if (!json_is_object(doc) ||
	    !json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")),
		   TIMINGS_SCHEMA)) {
		snprintf(why, len, "%s",
			 !doc ? je.text : "not a " TIMINGS_SCHEMA " object");
		goto out;
	}
	json_decref(*out);
	*out = doc;
	doc = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	json_decref(doc);
	free(text);
	return ret;
}

int timings_save(const char *dir, json_t *t)
{
	char *text;
	int ret;

	if (mkdir_parents(dir, 0755) < 0)
		return err_errno("cannot create '%s'", dir);
	text = json_dumps(t, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text)
		return err("cannot format '%s/%s'", dir, TIMINGS_FILE);
	ret = write_file_beneath(dir, TIMINGS_FILE, text, strlen(text));
	free(text);
	return ret;
}
