/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers shared by every vmtax program (host and guest).
 *
 * Errors: functions return 0 (or a count) on success and a negative errno on
 * failure.  The place that detects a failure reports it once, with context,
 * through err()/err_errno(), and returns what they return:
 *
 *	if (fd < 0)
 *		return err_errno("cannot open '%s'", path);
 *
 * Messages are lowercase, have no full stop and quote their subject.  They go
 * to stderr prefixed with the program name.  Nothing here allocates global
 * state; the only process-wide state is stderr itself and how much goes to
 * it: the verbosity, which main() sets once from --quiet / --verbose before
 * anything runs (quiet: errors only; normal: and warnings and progress;
 * verbose: and info(), the details of what is done and where).
 *
 * Memory: X_new, X_dup and X_detach return memory the caller frees; a const char *
 * return is borrowed.  xmalloc-style helpers abort on out-of-memory, because
 * there is no useful recovery from it in a measuring tool.
 */
#ifndef VMTAX_UTIL_H
#define VMTAX_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VMTAX_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Report "prog: error: MSG" and return -EINVAL. */
int err(const char *fmt, ...) VMTAX_PRINTF(1, 2);
/* Report "prog: error: MSG: strerror(errno)" and return -errno (never 0). */
int err_errno(const char *fmt, ...) VMTAX_PRINTF(1, 2);
/* Report "prog: error: MSG: strerror(-code)" and return code (code < 0). */
int err_code(int code, const char *fmt, ...) VMTAX_PRINTF(2, 3);
/*
 * Report MSG as it is, with no program name before it: a config's
 * compiler-style "FILE:LINE: message" (STYLE.md 8).  Its control
 * characters are scrubbed as err()'s are: it quotes the file.  Returns
 * -EINVAL.
 */
int err_plain(const char *fmt, ...) VMTAX_PRINTF(1, 2);
/* Report "prog: warning: MSG" (not when quiet). */
void warn(const char *fmt, ...) VMTAX_PRINTF(1, 2);
/* Progress and notes on stderr: "prog: MSG" (not when quiet). */
void note(const char *fmt, ...) VMTAX_PRINTF(1, 2);
/* Details on stderr, "prog: MSG", only when verbose: which file, which
 * domain, which figures. */
void info(const char *fmt, ...) VMTAX_PRINTF(1, 2);

enum verbosity {
	VERBOSITY_QUIET = -1,	/* --quiet: errors only */
	VERBOSITY_NORMAL = 0,
	VERBOSITY_VERBOSE = 1,	/* --verbose: info() too */
};
/* Set once, by main(), before anything is reported. */
void verbosity_set(enum verbosity v);
enum verbosity verbosity_get(void);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/*
 * Room for element N of the array P of SIZE-byte elements (N its count)
 * that only ever grows through this call: doubled when N is 0 or a power
 * of two, so N appends cost O(N).  Returns the array (it may move).
 */
void *xgrow(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) VMTAX_PRINTF(1, 2);
/* FNV-1a over the N bytes at S: for hash tables, not for security. */
uint64_t hash_fnv1a(const char *s, size_t n);
/* The same, going on from H (hash_fnv1a() starts at HASH_FNV1A_INIT). */
#define HASH_FNV1A_INIT 1469598103934665603ull
uint64_t hash_fnv1a_more(uint64_t h, const char *s, size_t n);
/* hash_fnv1a() of the bytes of file PATH, read in blocks, into *H: 0, or
 * a negative errno (not reported). */
int hash_fnv1a_file(const char *path, uint64_t *h);
/* qsort() comparator of strings (char * elements), by strcmp(). */
int strv_cmp(const void *a, const void *b);
/* Free the N strings of V, then V. */
void strv_free(char **v, size_t n);

/* Seconds from CLOCK_MONOTONIC. */
double mono_now(void);
/* Current UTC time as ISO 8601 ("2026-12-02T10:41:00Z") into buf (>= 21). */
void iso8601_now(char *buf, size_t len);

/*
 * Read a whole file (at most max bytes; -EFBIG beyond) into a NUL-terminated
 * buffer the caller frees.  *len gets the length when len is non-NULL.
 */
int read_file(const char *path, size_t max, char **out, size_t *len);
/*
 * Read a one-line sysfs-style file, stripping the trailing newline.
 * Returns 0 or a negative errno; reports nothing (callers add context).
 */
int read_line(const char *path, char *buf, size_t len);
/* Write a string to an existing file (sysfs), truncated first as the
 * shell's '>' does.  Reports nothing. */
int write_str(const char *path, const char *s);
/*
 * Write a file atomically: PATH.tmp.PID, fsync, rename, fsync the
 * directory (writers at once: the last rename wins, each file whole).
 * Created with O_NOFOLLOW and mode 0644.  Reports its own errors.
 */
int write_file_atomic(const char *path, const char *data, size_t len);

/* mkdir -p: PATH and its missing parents, each with MODE.  0 or -errno. */
int mkdir_parents(const char *path, mode_t mode);
/*
 * Whether WORD is one of the choices of a sysfs list LINE: words between
 * blanks, the current one bracketed ("always [madvise] never", THP's) or
 * not ("performance powersave", a cpufreq policy's governors).
 */
bool sysfs_list_has(const char *line, const char *word);

/* Package lists ("packages =") are separated by any of these. */
#define PACKAGE_SEP " \t,"
/*
 * Walk a package list: package_next(LIST, &n) gives the first name, then
 * package_next(p + n, &n) the next; each is N bytes at the pointer returned
 * (not NUL-terminated), NULL after the last (or for a NULL LIST).
 */
const char *package_next(const char *p, size_t *n);
/* Debian policy's package name: [a-z0-9][a-z0-9+.-]+; N bytes of S. */
bool debian_package_name(const char *s, size_t n);

/*
 * Create (or truncate) PATH for writing, mode 0644, without following a
 * symlink at its last component.  Returns a stream or NULL after reporting.
 */
FILE *fopen_new(const char *path);

/* Strip leading and trailing white space in place; returns s. */
char *strstrip(char *s);
/* What follows PATH's last '/' (PATH itself without one): borrowed. */
const char *path_base(const char *path);
/* true if s is a valid, bounded identifier: [A-Za-z0-9_.-]+, 1..64 chars. */
bool is_safe_name(const char *s);
/* 'S' with every ' as '\'' : one shell word (owned). */
char *sh_quote_new(const char *s);
/*
 * What this executable is, "fnv1a64:HEX" of /proc/self/exe, into BUF: two
 * vmtax programs with one build id are one build (the fleet checks its
 * hosts').  0 or a negative errno; reports nothing.
 */
int build_id_read(char *buf, size_t len);

#endif
