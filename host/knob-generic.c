/* SPDX-License-Identifier: MIT */
/*
 * Generic knobs: sysctl.A.B (/proc/sys/A/B) and mm.A.B (/sys/kernel/mm/A/B),
 * named and located by lib/knob-path.h.  One ops serves them all; the name
 * and the file come with the resolved knob.
 *
 * The value is knob_value_parse() of the file (the bracketed word, or the
 * first line trimmed) with each run of blanks made one space: sysctl files
 * such as kernel.printk separate their fields with tabs, and the journal line
 * is "KNOB<TAB>ORIGINAL".  The kernel takes the fields back space-separated.
 *
 * A value asked for is one line of printable text, without blanks at either
 * end, shorter than HOST_VALUE_MAX.  What the kernel accepts is the kernel's
 * business: a refused write (EINVAL) is an error naming the knob, the file
 * and the value; an accepted one must read back as written.
 */
#include "knob.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* Parse RAW into BUF as described above.  0, -EINVAL, -ENAMETOOLONG. */
static int generic_value(const char *raw, char *buf, size_t len)
{
	char *r, *w;
	int ret;

	ret = knob_value_parse(raw, buf, len);
	if (ret < 0)
		return ret;
	for (r = w = buf; *r; r++) {
		if (isspace((unsigned char)*r)) {
			if (w > buf && w[-1] == ' ')
				continue;
			*w++ = ' ';
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return 0;
}

/* Read and parse K's file; reports nothing.  0 or a negative errno. */
static int generic_try_read(const struct host_knob *k, struct host_ctx *ctx,
			    char *buf, size_t len)
{
	char raw[4096];
	int ret;

	ret = host_read(ctx, k->file, raw, sizeof(raw));
	if (ret < 0)
		return ret;
	return generic_value(raw, buf, len);
}

static int generic_read(const struct host_knob *k, struct host_ctx *ctx,
			char *buf, size_t len)
{
	int ret = generic_try_read(k, ctx, buf, len);

	if (ret == -EINVAL)
		return err("'%s' (%s) holds no value", k->file, k->name);
	if (ret == -ENAMETOOLONG)
		return err_code(-EOVERFLOW,
				"'%s' (%s) holds a value longer than %d "
				"characters",
				k->file, k->name, HOST_VALUE_MAX - 1);
	if (ret < 0)
		return err_code(ret, "cannot read '%s' (%s)", k->file, k->name);
	return 0;
}

const char *host_generic_value_problem(const char *value)
{
	const char *p;

	if (!*value)
		return "is empty";
	if (strlen(value) >= HOST_VALUE_MAX)
		return "is too long (a value has fewer than 64 characters)";
	for (p = value; *p; p++)
		if (iscntrl((unsigned char)*p))
			return "has a control character (a value is one line "
			       "of printable text)";
	if (isspace((unsigned char)value[0]) || isspace((unsigned char)p[-1]))
		return "starts or ends with a blank";
	return NULL;
}

static bool generic_supported(const struct host_knob *k, struct host_ctx *ctx,
			      const char *value, char *why, size_t len)
{
	char *path = host_path_new(ctx, k->file);
	char cur[HOST_VALUE_MAX];
	const char *problem;
	struct stat st;
	bool ok = false;
	int ret;

	if (value && (problem = host_generic_value_problem(value))) {
		snprintf(why, len, "the value '%s' %s", value, problem);
		goto out;
	}
	if (stat(path, &st) < 0) {
		snprintf(why, len, "no '%s': %s (not a knob of this kernel)",
			 k->file, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, len,
			 "'%s' is a directory: name a file in it (%s.NAME)",
			 k->file, k->name);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "'%s' is not a regular file", k->file);
		goto out;
	}
	/* procfs and sysfs show a read-only knob without the owner's w bit;
	 * access(W_OK) would say yes to root regardless on most filesystems. */
	if (!(st.st_mode & S_IWUSR)) {
		snprintf(why, len, "'%s' is read-only", k->file);
		goto out;
	}
	ret = generic_try_read(k, ctx, cur, sizeof(cur));
	if (ret < 0) {
		snprintf(why, len, "cannot read '%s': %s", k->file,
			 ret == -EINVAL		? "it holds no value"
			 : ret == -ENAMETOOLONG ? "its value is too long"
						: strerror(-ret));
		goto out;
	}
	ok = true;
out:
	free(path);
	return ok;
}

static int generic_apply(const struct host_knob *k, struct host_ctx *ctx,
			 const char *value)
{
	char *path = host_path_new(ctx, k->file);
	char got[HOST_VALUE_MAX];
	const char *problem = host_generic_value_problem(value);
	int ret;

	if (problem) {
		ret = err("cannot set '%s': the value '%s' %s", k->name, value,
			  problem);
		goto out;
	}
	ret = write_str(path, value);
	if (ret == -EINVAL) {
		err_code(ret,
			 "cannot set '%s' to '%s': the kernel refuses the "
			 "value (writing '%s')",
			 k->name, value, k->file);
		goto out;
	}
	if (ret < 0) {
		err_code(ret, "cannot set '%s' to '%s' (writing '%s')", k->name,
			 value, k->file);
		goto out;
	}
	ret = generic_read(k, ctx, got, sizeof(got));
	if (ret < 0)
		goto out;
	if (strcmp(got, value))
		ret = err_code(-EIO, "'%s' (%s) reads back '%s', expected '%s'",
			       k->file, k->name, got, value);
out:
	free(path);
	return ret;
}

const struct host_knob_ops host_knob_generic = {
    .name = NULL,
    .values = "a value its file takes (one line)",
    .file = NULL, /* per knob: struct host_knob.file */
    .read = generic_read,
    .supported = generic_supported,
    .apply = generic_apply,
};
