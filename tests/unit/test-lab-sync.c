/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the lab's files coming back (orchestrator/lab/lab-sync.c):
 * the name rule, table-driven, and a hostile lab -- a fake lab directory
 * and a listing as a root process inside the lab could write it -- synced
 * into a run directory whose own files must stay byte-identical.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab-sync.h"
#include "util.h"

static void test_names(void **state)
{
	static const char *const good[] = {
		"results.json",
		"samples.jsonl",
		"report.html",
		"logs/guest_host-thp_always_guest-thp_never.console.log",
		"logs/bare-metal_host.split_3:1.sample-0.out",
		"profiles/guest_paging_shadow.folded",
		"a/b/c/d",
		"x+y,z@w=v",
	};
	static const struct {
		const char *rel, *why;
	} bad[] = {
		{ "lab.json",
		  "'lab.json' is this host's own: the lab cannot send one" },
		{ "logs/lab.json",
		  "'lab.json' is this host's own: the lab cannot send one" },
		{ "host-journal",
		  "'host-journal' is this host's own: the lab cannot send one" },
		{ "../x", "'..' leaves the directory" },
		{ "logs/../../x", "'..' leaves the directory" },
		{ "./x", "'.' leaves the directory" },
		{ ".hidden", "starts with '.' (a hidden file)" },
		{ "logs/.x", "starts with '.' (a hidden file)" },
		{ "/etc/passwd", "an absolute path" },
		{ "", "an empty name" },
		{ "a//b", "an empty name" },
		{ "logs/", "an empty name" },
		{ "a\nb", "a control character (0x0a)" },
		{ "a\033[2Jb", "a control character (0x1b)" },
		{ "a b", "a character outside [A-Za-z0-9._,:+=@-] (0x20)" },
		{ "a*b", "a character outside [A-Za-z0-9._,:+=@-] (0x2a)" },
		{ "a\\b", "a character outside [A-Za-z0-9._,:+=@-] (0x5c)" },
		{ "\xc3\xa9t\xc3\xa9",
		  "a character outside [A-Za-z0-9._,:+=@-] (0xc3)" },
		{ "a/b/c/d/e", "deeper than 4 names" },
	};
	char why[256], longname[LAB_NAME_MAX + 2];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		why[0] = '\0';
		if (lab_path_check(good[i], strlen(good[i]), why,
				   sizeof(why)) < 0)
			fail_msg("'%s' refused: %s", good[i], why);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(lab_path_check(bad[i].rel, strlen(bad[i].rel),
						why, sizeof(why)),
				 -EINVAL);
		if (strcmp(why, bad[i].why))
			fail_msg("'%s': '%s', want '%s'", bad[i].rel, why,
				 bad[i].why);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(lab_path_check(longname, LAB_NAME_MAX, why,
					sizeof(why)),
			 0);
	assert_int_equal(lab_path_check(longname, LAB_NAME_MAX + 1, why,
					sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "longer than 128 bytes (129)");
	/* a NUL inside a name (a listing cannot carry one, but N can) */
	assert_int_equal(lab_name_check("a\0b", 3, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a control character (0x00)");
}

/* ---- a hostile lab ---- */

static char top[PATH_MAX];	 /* scratch: run/, fakelab/, outside/ */
static char rundir[PATH_MAX + 8];
static char fakelab[PATH_MAX + 16];

/* The fake lab: files of FAKELAB; "liar" says it is 3 GiB when read. */
static int fake_read(void *arg, const char *rel, long long off, size_t max,
		     char **buf, size_t *n, long long *size, char *why,
		     size_t len)
{
	char path[PATH_MAX * 2];
	struct stat st;
	ssize_t r;
	int fd;

	(void)arg;
	snprintf(path, sizeof(path), "%s/%s", fakelab, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "agent error io-error: cannot open '%s'",
			 rel);
		return -EREMOTEIO;
	}
	fstat(fd, &st);
	*buf = xmalloc(max + 1);
	r = pread(fd, *buf, max, off);
	close(fd);
	*n = r > 0 ? (size_t)r : 0;
	*size = strcmp(rel, "liar") ? st.st_size : 3LL << 30;
	return 0;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static char *slurp(const char *path)
{
	char *s = NULL;

	if (read_file(path, 1 << 20, &s, NULL) < 0)
		return NULL;
	return s;
}

/* Every path under DIR with its bytes, one line each, sorted. */
static char *tree(const char *dir)
{
	char cmd[PATH_MAX + 128], *out = NULL;
	FILE *p;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && find . -path ./lab -prune -o -print | sort | "
		 "while read f; do echo \"$f $(test -f \"$f\" && md5sum <\"$f\")\"; done",
		 dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_true(getdelim(&out, &n, '\0', p) >= 0);
	pclose(p);
	return out;
}

static int saved_stderr = -1;
static char errpath[PATH_MAX + 16];

static void capture_begin(void)
{
	int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	return slurp(errpath);
}

static int setup(void **state)
{
	char path[PATH_MAX * 2];

	(void)state;
	snprintf(top, sizeof(top), "/tmp/vmtax-test-lab-sync.XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(rundir, sizeof(rundir), "%s/run", top);
	snprintf(fakelab, sizeof(fakelab), "%s/fakelab", top);
	snprintf(errpath, sizeof(errpath), "%s/stderr", top);
	mkdir(rundir, 0755);
	mkdir(fakelab, 0755);
	snprintf(path, sizeof(path), "%s/logs", rundir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/outside", top);
	mkdir(path, 0755);
	/* the run's own files */
	snprintf(path, sizeof(path), "%s/lab.json", rundir);
	put(path, "{\"config_path\": \"/host/config.ini\", \"sets\": []}\n");
	snprintf(path, sizeof(path), "%s/results.json", rundir);
	put(path, "{\"host\": \"labelled\"}\n");
	snprintf(path, sizeof(path), "%s/logs/lab.agent.log", rundir);
	put(path, "transcript\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* LIST gets "SIZE NAME\0" for each of NAMES (N), sizes from SIZES. */
static size_t listing(char *list, size_t cap, const char *const *names,
		      const long long *sizes, size_t n)
{
	size_t at = 0, i;

	for (i = 0; i < n; i++) {
		int w = snprintf(list + at, cap - at, "%lld %s", sizes[i],
				 names[i]);

		at += (size_t)w + 1; /* the NUL snprintf wrote ends it */
	}
	return at;
}

static void test_hostile_lab(void **state)
{
	char longname[301], path[PATH_MAX * 2], list[8192];
	const char *names[] = {
		"results.json", "samples.jsonl", "logs/cell.console.log",
		"lab.json", "../x", ".hidden", longname, "a\nb",
		"big", "/etc/x", "liar", "logs/lab.json",
	};
	const long long sizes[] = { 14, 6, 8, 40, 1, 1, 1, 1,
				    2LL << 30, 1, 1, 1 };
	struct lab_sync_src src = { fake_read, NULL };
	struct lab_sync_stats st;
	char *before, *after, *msg, *s;
	size_t len;

	(void)state;
	memset(longname, 'n', 300);
	longname[300] = '\0';
	snprintf(path, sizeof(path), "%s/results.json", fakelab);
	put(path, "{\"lab\": true}\n");
	snprintf(path, sizeof(path), "%s/samples.jsonl", fakelab);
	put(path, "{}\n{}\n");
	snprintf(path, sizeof(path), "%s/logs", fakelab);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs/cell.console.log", fakelab);
	put(path, "console\n");
	snprintf(path, sizeof(path), "%s/lab.json", fakelab);
	put(path, "{\"config_path\": \"/tmp/evil.ini\", \"sets\": []}\n");
	snprintf(path, sizeof(path), "%s/liar", fakelab);
	put(path, "x");
	len = listing(list, sizeof(list), names, sizes, ARRAY_SIZE(names));

	before = tree(rundir);
	capture_begin();
	assert_int_equal(
	    lab_sync_files(rundir, list, len, &src, LAB_TOTAL_BYTES_MAX, &st),
	    0);
	msg = capture_end();
	after = tree(rundir);

	/* the run's own files: byte-identical, nothing new beside lab/ */
	assert_string_equal(before, after);
	/* the good ones came back, under lab/ */
	assert_int_equal(st.files, 3);
	assert_int_equal(st.refused, 9);
	assert_int_equal(st.bytes, 14 + 6 + 8);
	snprintf(path, sizeof(path), "%s/lab/results.json", rundir);
	s = slurp(path);
	assert_string_equal(s, "{\"lab\": true}\n");
	free(s);
	snprintf(path, sizeof(path), "%s/lab/logs/cell.console.log", rundir);
	assert_int_equal(access(path, F_OK), 0);
	/* nothing the lab named outside lab/ exists */
	snprintf(path, sizeof(path), "%s/lab/lab.json", rundir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/x", rundir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/lab/.hidden", rundir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/lab/big", rundir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/lab/liar", rundir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/outside", top);
	s = tree(path);
	assert_string_equal(s, ". \n"); /* empty */
	free(s);

	/* each refused with its own reason, its name shown escaped */
	{
		static const char *const want[] = {
			"refusing the lab's file 'lab.json': 'lab.json' is "
			"this host's own: the lab cannot send one",
			"refusing the lab's file '../x': '..' leaves the "
			"directory",
			"refusing the lab's file '.hidden': starts with '.' "
			"(a hidden file)",
			"(shortened): longer than 128 bytes (300)",
			"refusing the lab's file 'a\\x0ab': a control "
			"character (0x0a)",
			"refusing the lab's file 'big': claims 2147483648 "
			"bytes, over the cap of 268435456 a file "
			"(LAB_FILE_BYTES_MAX)",
			"refusing the lab's file '/etc/x': an absolute path",
			"refusing the lab's file 'liar': is 3221225472 bytes, "
			"over the cap of 268435456 a file "
			"(LAB_FILE_BYTES_MAX)",
			"refusing the lab's file 'logs/lab.json': 'lab.json' "
			"is this host's own",
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(want); i++)
			if (!strstr(msg, want[i]))
				fail_msg("no '%s' in:\n%s", want[i], msg);
		/* no raw control character reached the log */
		for (i = 0; msg[i]; i++)
			if ((unsigned char)msg[i] < 0x20 && msg[i] != '\n')
				fail_msg("control character 0x%02x in the log",
					 msg[i]);
	}
	free(msg);
	free(before);
	free(after);

	/* a second sync brings back only what changed (results.json always) */
	capture_begin();
	assert_int_equal(
	    lab_sync_files(rundir, list, len, &src, LAB_TOTAL_BYTES_MAX, &st),
	    0);
	free(capture_end());
	assert_int_equal(st.files, 1);
	assert_int_equal(st.same, 2);
}

/*
 * The listing as the lab makes it (lab-session.c: find -printf
 * '%s %P\0'), of a fake lab directory holding hostile names for real.
 */
static void test_real_listing(void **state)
{
	static const char *const files[] = {
		"results.json", ".hidden", "a\nb", "star*", "logs/ok.log",
	};
	char path[PATH_MAX * 2], cmd[PATH_MAX + 64], list[4096], *msg;
	struct lab_sync_src src = { fake_read, NULL };
	struct lab_sync_stats st;
	size_t i, len;
	FILE *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/logs", fakelab);
	mkdir(path, 0755);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", fakelab, files[i]);
		put(path, "bytes\n");
	}
	snprintf(path, sizeof(path), "%s/sym", fakelab);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && find . -type f -printf '%%s %%P\\0'", fakelab);
	p = popen(cmd, "r");
	assert_non_null(p);
	len = fread(list, 1, sizeof(list), p);
	pclose(p);
	capture_begin();
	assert_int_equal(
	    lab_sync_files(rundir, list, len, &src, LAB_TOTAL_BYTES_MAX, &st),
	    0);
	msg = capture_end();
	assert_int_equal(st.files, 2); /* results.json, logs/ok.log */
	assert_int_equal(st.refused, 3);
	assert_non_null(strstr(msg, "'.hidden': starts with '.'"));
	assert_non_null(strstr(msg, "'a\\x0ab': a control character (0x0a)"));
	assert_non_null(strstr(msg, "'star*': a character outside"));
	free(msg);
	snprintf(path, sizeof(path), "%s/lab/sym", rundir);
	assert_int_equal(access(path, F_OK), -1); /* links are not listed */
}

/* A symlink in lab/ (only root could plant one: DIR is root's) is not
 * followed: the file is refused and nothing lands where it points. */
static void test_symlink_in_lab(void **state)
{
	char path[PATH_MAX * 2], target[PATH_MAX + 16], list[256];
	const char *names[] = { "logs/cell.console.log" };
	const long long sizes[] = { 8 };
	struct lab_sync_src src = { fake_read, NULL };
	struct lab_sync_stats st;
	char *msg, *s;
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/logs", fakelab);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs/cell.console.log", fakelab);
	put(path, "console\n");
	snprintf(path, sizeof(path), "%s/lab", rundir);
	mkdir(path, 0755);
	snprintf(target, sizeof(target), "%s/outside", top);
	snprintf(path, sizeof(path), "%s/lab/logs", rundir);
	assert_int_equal(symlink(target, path), 0);
	len = listing(list, sizeof(list), names, sizes, 1);
	capture_begin();
	assert_int_equal(
	    lab_sync_files(rundir, list, len, &src, LAB_TOTAL_BYTES_MAX, &st),
	    0);
	msg = capture_end();
	assert_int_equal(st.refused, 1);
	assert_non_null(strstr(msg, "a file of this host is in the way"));
	free(msg);
	s = tree(target);
	assert_string_equal(s, ". \n"); /* empty */
	free(s);

	/* and lab/ itself a symlink: the sync fails, nothing written there */
	snprintf(path, sizeof(path), "rm -rf '%s/lab'", rundir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/lab", rundir);
	assert_int_equal(symlink(target, path), 0);
	capture_begin();
	assert_true(lab_sync_files(rundir, list, len, &src, LAB_TOTAL_BYTES_MAX,
				   &st) < 0);
	msg = capture_end();
	assert_non_null(strstr(msg, "/lab' (a symbolic link?)"));
	free(msg);
	s = tree(target);
	assert_string_equal(s, ". \n"); /* empty */
	free(s);
}

/* FAKELAB/REL holds TEXT (its directories made). */
static void lab_put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2], *slash;

	snprintf(path, sizeof(path), "%s/%s", fakelab, rel);
	for (slash = path + strlen(fakelab) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	put(path, text);
}

/*
 * Sync the lab's files NAMES (N; their sizes as they are in FAKELAB, or
 * CLAIM when not 0) with TOTAL_MAX: 0 or the error, the log into *MSG.
 */
static int sync_names(const char *const *names, size_t n, long long claim,
		      long long total_max, struct lab_sync_stats *st,
		      char **msg)
{
	long long sizes[16];
	char path[PATH_MAX * 2], list[4096];
	struct lab_sync_src src = {fake_read, NULL};
	struct stat sb;
	size_t i, len;
	int ret;

	assert_true(n <= 16);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", fakelab, names[i]);
		sizes[i] = claim		  ? claim
			   : stat(path, &sb) == 0 ? (long long)sb.st_size
						  : 1;
	}
	len = listing(list, sizeof(list), names, sizes, n);
	capture_begin();
	ret = lab_sync_files(rundir, list, len, &src, total_max, st);
	*msg = capture_end();
	return ret;
}

/* Bytes of the regular files under DIR/lab, and (into *FILES) how many. */
static long long lab_bytes(int *files)
{
	char cmd[PATH_MAX + 128], line[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "find '%s/lab' -type f -printf '%%s\\n' | "
		 "awk '{ n++; s += $1 } END { print n + 0, s + 0 }'",
		 rundir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	*files = atoi(line);
	return atoll(strchr(line, ' ') + 1);
}

static bool in_lab(const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/lab/%s", rundir, rel);
	return access(path, F_OK) == 0;
}

/*
 * A sync replaces the last one: a file the lab no longer lists is removed
 * from DIR/lab (and a directory left empty), and so is anything else there
 * (a stale temporary, a symlink, which is removed as itself).
 */
static void test_old_syncs_replaced(void **state)
{
	static const char *const first[] = {"results.json", "a", "b", "old/x"};
	static const char *const second[] = {"results.json", "c", "logs/d"};
	char path[PATH_MAX * 4], target[PATH_MAX + 16], *msg;
	struct lab_sync_stats st;
	size_t i;
	int files;

	(void)state;
	lab_put("results.json", "{}\n");
	lab_put("a", "aaaa");
	lab_put("b", "bbbb");
	lab_put("old/x", "xxxx");
	assert_int_equal(
	    sync_names(first, 4, 0, LAB_TOTAL_BYTES_MAX, &st, &msg), 0);
	free(msg);
	for (i = 0; i < 4; i++)
		assert_true(in_lab(first[i]));
	/* the lab moves on: a, b and old/ are gone there, c and logs/d new */
	snprintf(path, sizeof(path), "rm -r '%s/a' '%s/b' '%s/old'", fakelab,
		 fakelab, fakelab);
	assert_int_equal(system(path), 0);
	lab_put("c", "cccc");
	lab_put("logs/d", "dddd");
	/* and something in DIR/lab the lab never sent */
	snprintf(path, sizeof(path), "%s/lab/a.tmp", rundir);
	put(path, "stale");
	snprintf(target, sizeof(target), "%s/outside/keep", top);
	put(target, "the host's own");
	snprintf(path, sizeof(path), "%s/lab/link", rundir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(
	    sync_names(second, 3, 0, LAB_TOTAL_BYTES_MAX, &st, &msg), 0);
	free(msg);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.removed, 5); /* a, b, old/x, a.tmp, link */
	for (i = 0; i < 3; i++)
		assert_true(in_lab(second[i]));
	assert_false(in_lab("a"));
	assert_false(in_lab("b"));
	assert_false(in_lab("old"));
	assert_false(in_lab("a.tmp"));
	assert_false(in_lab("link"));
	msg = slurp(target);
	assert_string_equal(msg, "the host's own"); /* not followed */
	free(msg);
	assert_int_equal(lab_bytes(&files), 3 + 4 + 4);
	assert_int_equal(files, 3);
	assert_int_equal(st.held, 3 + 4 + 4);
}

/*
 * What DIR/lab holds in all is capped: results.json has room first, then
 * the files already here, and a file past the cap is refused with its
 * size and the cap; a lab that sends new names at every sync never makes
 * DIR/lab grow past it.
 */
static void test_total_cap(void **state)
{
	static const char *const first[] = {"results.json", "x", "y", "z"};
	static const char *const later[] = {"w", "x", "y", "results.json"};
	char name[2][32], *msg;
	const char *names[3];
	struct lab_sync_stats st;
	int k, files;

	(void)state;
	lab_put("results.json", "{}\n");
	lab_put("w", "wwwwwwww");
	lab_put("x", "xxxxxxxx");
	lab_put("y", "yyyyyyyy");
	lab_put("z", "zzzzzzzz");
	assert_int_equal(sync_names(first, 4, 0, 20, &st, &msg), 0);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.refused, 1);
	assert_int_equal(st.held, 19);
	if (!strstr(msg, "lab: refusing the lab's file 'z': is 8 bytes, over "
			 "what is left of LAB_TOTAL_BYTES_MAX, the cap on "
			 "the lab's files here (19 of 20 bytes held)"))
		fail_msg("no refusal of 'z' in:\n%s", msg);
	free(msg);
	assert_false(in_lab("z"));

	/* a new file listed first does not push out those already here */
	assert_int_equal(sync_names(later, 4, 0, 20, &st, &msg), 0);
	assert_int_equal(st.same, 2);
	assert_int_equal(st.files, 1); /* results.json */
	assert_non_null(strstr(msg, "refusing the lab's file 'w': is 8 "
				    "bytes, over what is left of "
				    "LAB_TOTAL_BYTES_MAX"));
	free(msg);
	assert_true(in_lab("x") && in_lab("y") && !in_lab("w"));

	/* ten syncs, each with two new files of 8 bytes and the old gone */
	for (k = 0; k < 10; k++) {
		snprintf(name[0], sizeof(name[0]), "n%da", k);
		snprintf(name[1], sizeof(name[1]), "n%db", k);
		lab_put(name[0], "nnnnnnnn");
		lab_put(name[1], "nnnnnnnn");
		names[0] = "results.json";
		names[1] = name[0];
		names[2] = name[1];
		assert_int_equal(sync_names(names, 3, 0, 20, &st, &msg), 0);
		free(msg);
		assert_true(lab_bytes(&files) <= 20);
		assert_int_equal(files, 3);
		assert_true(in_lab(name[0]) && in_lab(name[1]));
	}

	/* a file that claims less than it holds stops at the cap as read */
	lab_put("grows", "0123456789012345678901234567890123456789");
	names[0] = "grows";
	assert_int_equal(sync_names(names, 1, 1, 20, &st, &msg), 0);
	assert_non_null(strstr(msg, "refusing the lab's file 'grows': would "
				    "pass what is left of "
				    "LAB_TOTAL_BYTES_MAX"));
	free(msg);
	assert_false(in_lab("grows"));
	assert_true(lab_bytes(&files) <= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test_setup_teardown(test_hostile_lab, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_symlink_in_lab, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_real_listing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_old_syncs_replaced, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_total_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
