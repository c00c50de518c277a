/* SPDX-License-Identifier: MIT */
/*
 * host-packages.c - the closure of installed packages and their files
 * (host-packages.h).
 */
#include "host-packages.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define DPKG_INFO "/var/lib/dpkg/info"
#define QUERY_MAX (64u << 20)

enum {
	F_NAME,
	F_VERSION,
	F_ARCH,
	F_STATUS,
	F_ESSENTIAL,
	F_DEPENDS,
	F_PROVIDES,
	F_N
};

static int pkg_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hostpkg *)a)->name,
		      ((const struct hostpkg *)b)->name);
}

static void pkg_free(struct hostpkg *p)
{
	free(p->name);
	free(p->version);
	free(p->arch);
	free(p->depends);
	free(p->provides);
}

/* One line's fields into P; false when it has not F_N of them. */
static bool pkg_from_line(char *line, struct hostpkg *p)
{
	char *f[F_N];
	size_t i;

	for (i = 0; i < F_N; i++) {
		f[i] = strsep(&line, "\t");
		if (!f[i])
			return false;
	}
	*p = (struct hostpkg){
	    .name = xstrdup(f[F_NAME]),
	    .version = xstrdup(f[F_VERSION]),
	    .arch = xstrdup(f[F_ARCH]),
	    .depends = xstrdup(f[F_DEPENDS]),
	    .provides = xstrdup(f[F_PROVIDES]),
	    .essential = !strcmp(f[F_ESSENTIAL], "yes"),
	    .installed = strlen(f[F_STATUS]) >= 2 && f[F_STATUS][1] == 'i',
	};
	return true;
}

/* Of two packages of one name, keep the installed native (or "all") one. */
static bool pkg_better(const struct hostpkg *a, const struct hostpkg *b,
		       const char *native)
{
	bool an = !strcmp(a->arch, native) || !strcmp(a->arch, "all");
	bool bn = !strcmp(b->arch, native) || !strcmp(b->arch, "all");

	if (a->installed != b->installed)
		return a->installed;
	return an && !bn;
}

int hostpkg_parse(const char *text, const char *native, struct hostpkg_set *s)
{
	char *copy = xstrdup(text), *line, *rest = copy;
	size_t cap = 0, i, k;

	s->p = NULL;
	s->n = 0;
	while ((line = strsep(&rest, "\n"))) {
		struct hostpkg p;

		if (!*line)
			continue;
		if (!pkg_from_line(line, &p)) {
			int ret = err("image: host packages: bad dpkg-query "
				      "line '%.80s'",
				      line);

			free(copy);
			hostpkg_release(s);
			return ret;
		}
		if (s->n == cap) {
			cap = cap ? 2 * cap : 1024;
			s->p = xrealloc(s->p, cap * sizeof(*s->p));
		}
		s->p[s->n++] = p;
	}
	free(copy);
	if (!s->n)
		return 0;
	qsort(s->p, s->n, sizeof(*s->p), pkg_cmp);
	for (i = 1, k = 0; i < s->n; i++) {
		if (strcmp(s->p[i].name, s->p[k].name)) {
			s->p[++k] = s->p[i];
			continue;
		}
		if (pkg_better(&s->p[i], &s->p[k], native)) {
			pkg_free(&s->p[k]);
			s->p[k] = s->p[i];
		} else {
			pkg_free(&s->p[i]);
		}
	}
	s->n = k + 1;
	return 0;
}

static struct hostpkg *pkg_find(struct hostpkg_set *s, const char *name)
{
	struct hostpkg key = {.name = (char *)name};
	struct hostpkg *p = bsearch(&key, s->p, s->n, sizeof(*s->p), pkg_cmp);

	return p && p->installed ? p : NULL;
}

/* The package name at the start of a relation ("foo:any (>= 1)" -> foo). */
static void rel_name(const char *rel, char *buf, size_t len)
{
	size_t n;

	rel += strspn(rel, " \t");
	n = strcspn(rel, " \t(:[<|,");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), rel);
}

/* Whether P's Provides name NAME. */
static bool provides(const struct hostpkg *p, const char *name)
{
	const char *q = p->provides;
	char got[128];

	while (*q) {
		rel_name(q, got, sizeof(got));
		if (!strcmp(got, name))
			return true;
		q += strcspn(q, ",");
		q += *q == ',';
	}
	return false;
}

/* The installed package that satisfies NAME: itself, else a provider. */
static struct hostpkg *pkg_satisfy(struct hostpkg_set *s, const char *name)
{
	struct hostpkg *p = pkg_find(s, name);
	size_t i;

	for (i = 0; !p && i < s->n; i++)
		if (s->p[i].installed && provides(&s->p[i], name))
			p = &s->p[i];
	return p;
}

/* One group ("a | b (>= 1) | c"): its first satisfiable alternative. */
static struct hostpkg *group_pick(struct hostpkg_set *s, const char *group,
				  size_t len, char *first, size_t flen)
{
	const char *alt = group, *end = group + len;
	struct hostpkg *p = NULL;
	char name[128];

	*first = '\0';
	while (!p && alt < end) {
		rel_name(alt, name, sizeof(name));
		if (!*first)
			snprintf(first, flen, "%s", name);
		if (*name)
			p = pkg_satisfy(s, name);
		alt = memchr(alt, '|', (size_t)(end - alt));
		if (!alt)
			break;
		alt++;
	}
	return p;
}

/* P's dependencies onto STACK (LIBS: those named lib* only). */
static void push_deps(struct hostpkg_set *s, const struct hostpkg *p, bool libs,
		      size_t *stack, size_t *n)
{
	const char *g = p->depends;

	while (*g) {
		size_t len = strcspn(g, ",");
		char first[128];
		struct hostpkg *d = NULL;

		if (len > strspn(g, " \t"))
			d = group_pick(s, g, len, first, sizeof(first));
		if (d && !d->in && (!libs || !strncmp(first, "lib", 3))) {
			d->in = true;
			stack[(*n)++] = (size_t)(d - s->p);
		}
		g += len + (g[len] == ',');
	}
}

int hostpkg_mark(struct hostpkg_set *s, const struct hostpkg_root *roots,
		 size_t n, const char **missing)
{
	size_t *stack = xcalloc(s->n + 1, sizeof(*stack));
	size_t top = 0, i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct hostpkg *p = pkg_find(s, roots[i].name);

		if (!p) {
			*missing = roots[i].name;
			ret = -ENOENT;
			goto out;
		}
		if (p->in)
			continue;
		p->in = true;
		/* a libs_only root: its own deps now, filtered */
		if (roots[i].libs_only)
			push_deps(s, p, true, stack, &top);
		else
			stack[top++] = (size_t)(p - s->p);
	}
	for (i = 0; i < s->n; i++)
		if (s->p[i].installed && s->p[i].essential && !s->p[i].in) {
			s->p[i].in = true;
			stack[top++] = i;
		}
	while (top)
		push_deps(s, &s->p[stack[--top]], false, stack, &top);
out:
	free(stack);
	return ret;
}

/* This host's dpkg architecture into BUF. */
static int native_arch(char *buf, size_t len)
{
	FILE *f = popen("dpkg --print-architecture", "r");
	int ret = 0;

	if (!f)
		return err_errno("image: host packages: cannot run dpkg");
	if (!fgets(buf, (int)len, f))
		ret = err("image: host packages: no output from 'dpkg "
			  "--print-architecture'");
	if (pclose(f) != 0 && ret == 0)
		ret = err("image: host packages: 'dpkg --print-architecture' "
			  "failed");
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/* dpkg-query -W's output for every package into *OUT (owned). */
static int dpkg_query(char **out)
{
	FILE *f = popen("dpkg-query -W -f='" HOSTPKG_QUERY_FORMAT "'", "r");
	size_t cap = 1 << 20, n = 0, got;
	char *buf;

	if (!f)
		return err_errno("image: host packages: cannot run dpkg-query");
	buf = xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap && cap < QUERY_MAX)
			buf = xrealloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	if (pclose(f) != 0) {
		free(buf);
		return err("image: host packages: 'dpkg-query -W' failed");
	}
	*out = buf;
	return 0;
}

int hostpkg_load(struct hostpkg_set *s)
{
	char native[64], *text = NULL;
	int ret;

	s->p = NULL;
	s->n = 0;
	ret = native_arch(native, sizeof(native));
	if (ret == 0)
		ret = dpkg_query(&text);
	if (ret == 0)
		ret = hostpkg_parse(text, native, s);
	free(text);
	return ret;
}

size_t hostpkg_count(const struct hostpkg_set *s)
{
	size_t i, k = 0;

	for (i = 0; i < s->n; i++)
		k += s->p[i].in;
	return k;
}

void hostpkg_recipe(const struct hostpkg_set *s, struct recipe *r)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->p[i].in)
			recipe_add(r, "host-package %s %s %s\n", s->p[i].name,
				   s->p[i].version, s->p[i].arch);
}

/* Field NAME's value in STANZA (LEN bytes) into BUF; false when absent. */
static bool stanza_field(const char *stanza, size_t len, const char *name,
			 char *buf, size_t size)
{
	size_t n = strlen(name);
	const char *p = stanza, *end = stanza + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t m = (size_t)((eol ? eol : end) - p);

		if (m > n + 1 && !strncmp(p, name, n) && p[n] == ':') {
			const char *v = p + n + 1;

			while (v < p + m && *v == ' ')
				v++;
			snprintf(buf, size, "%.*s", (int)(p + m - v), v);
			return true;
		}
		p += m + 1;
	}
	return false;
}

/* Whether STANZA is an installed package of S's closure, as S has it. */
static bool stanza_in(const struct hostpkg_set *s, const char *stanza,
		      size_t len)
{
	char name[256], arch[64], status[64];
	struct hostpkg key = {.name = name}, *p;

	if (!stanza_field(stanza, len, "Package", name, sizeof(name)) ||
	    !stanza_field(stanza, len, "Architecture", arch, sizeof(arch)) ||
	    !stanza_field(stanza, len, "Status", status, sizeof(status)) ||
	    strcmp(status, "install ok installed"))
		return false;
	p = bsearch(&key, s->p, s->n, sizeof(*s->p), pkg_cmp);
	return p && p->in && !strcmp(p->arch, arch);
}

char *hostpkg_status_new(const struct hostpkg_set *s, const char *status)
{
	const char *p = status;
	char *out = xcalloc(1, strlen(status) + 3);
	size_t used = 0;

	while (*p) {
		const char *end = strstr(p, "\n\n");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && stanza_in(s, p, len)) {
			/* at most STATUS's bytes, and one stanza's ending */
			memcpy(out + used, p, len);
			memcpy(out + used + len, "\n\n", 2);
			used += len + 2;
		}
		p += len;
		while (*p == '\n')
			p++;
	}
	out[used] = '\0';
	return out;
}

void hostpkg_release(struct hostpkg_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		pkg_free(&s->p[i]);
	free(s->p);
	s->p = NULL;
	s->n = 0;
}

/* --- staging ------------------------------------------------------------ */

/* DIR + PATH made as the host has PATH: a directory or a symlink. */
static int stage_dir_or_link(const char *dir, const char *path,
			     const struct stat *st)
{
	char *to = xasprintf("%s%s", dir, path);
	char target[PATH_MAX];
	ssize_t n;
	int ret = 0;

	if (S_ISLNK(st->st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0) {
			ret = err_errno("image: host packages: cannot read "
					"link '%s'",
					path);
			goto out;
		}
		target[n] = '\0';
		if (symlink(target, to) < 0 && errno != EEXIST)
			ret = err_errno("image: host packages: cannot make "
					"link '%s'",
					to);
		goto out;
	}
	if (mkdir(to, 0700) < 0) {
		if (errno != EEXIST)
			ret = err_errno("image: host packages: cannot make "
					"'%s'",
					to);
		goto out;
	}
	if (lchown(to, st->st_uid, st->st_gid) < 0 ||
	    chmod(to, st->st_mode & 07777) < 0)
		ret = err_errno("image: host packages: cannot set the owner "
				"and mode of '%s'",
				to);
out:
	free(to);
	return ret;
}

/* The directories of canonical host path DIRPATH, each as the host has it. */
static int stage_parents(const char *dir, const char *dirpath)
{
	char *p = xstrdup(dirpath), *slash = p;
	struct stat st;
	int ret = 0;

	while (ret == 0 && slash) {
		slash = strchr(slash + 1, '/');
		if (slash)
			*slash = '\0';
		if (lstat(p, &st) < 0)
			ret = err_errno("image: host packages: cannot stat "
					"'%s'",
					p);
		else
			ret = stage_dir_or_link(dir, p, &st);
		if (slash)
			*slash = '/';
	}
	free(p);
	return ret;
}

/* FROM copied to TO with ST's mode and owner (TO must not exist). */
static int copy_file(const char *from, const char *to, const struct stat *st)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
	ssize_t n;

	if (in < 0)
		return err_errno("image: host packages: cannot open '%s'",
				 from);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		ret = err_errno("image: host packages: cannot create '%s'", to);
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n != 0 || fchown(out, st->st_uid, st->st_gid) < 0 ||
	    fchmod(out, st->st_mode & 07777) < 0)
		ret = err_errno("image: host packages: cannot copy '%s' to "
				"'%s'",
				from, to);
out:
	if (out >= 0 && close(out) < 0 && ret == 0)
		ret = err_errno("image: host packages: cannot write '%s'", to);
	close(in);
	return ret;
}

static bool skipped(const char *path)
{
	static const char *const skip[] = {HOSTPKG_SKIP};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(skip); i++)
		if (!strncmp(path, skip[i], strlen(skip[i])))
			return true;
	return false;
}

/*
 * One listed PATH into DIR, at its canonical place (the host's real
 * directories, so no symlink of the tree is ever followed out of it);
 * PARENT is PATH_MAX bytes of scratch.
 */
static int stage_one(const char *dir, const char *path, char *parent)
{
	const char *base = strrchr(path, '/');
	char *host = NULL, *to = NULL;
	struct stat st;
	int ret = 0;

	if (!base || !base[1] || skipped(path) || lstat(path, &st) < 0)
		return 0; /* "/.", or absent here (dpkg's path-exclude) */
	{
		char *d = xstrndup(path, (size_t)(base - path));

		if (!realpath(*d ? d : "/", parent))
			ret = err_errno("image: host packages: cannot resolve "
					"'%s'",
					*d ? d : "/");
		free(d);
	}
	if (ret == 0 && strcmp(parent, "/"))
		ret = stage_parents(dir, parent);
	if (ret < 0)
		return ret;
	host = xasprintf("%s%s", strcmp(parent, "/") ? parent : "", base);
	to = xasprintf("%s%s", dir, host);
	if (!S_ISREG(st.st_mode))
		ret = S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)
			  ? stage_dir_or_link(dir, host, &st)
			  : 0;
	else if (link(host, to) < 0 && errno != EEXIST)
		ret = errno == EXDEV || errno == EPERM
			  ? copy_file(host, to, &st)
			  : err_errno("image: host packages: cannot link '%s' "
				      "to '%s'",
				      host, to);
	free(host);
	free(to);
	return ret;
}

/* Every path of dpkg's list of P into DIR. */
static int stage_package(const char *dir, const struct hostpkg *p)
{
	char *list = xasprintf(DPKG_INFO "/%s.list", p->name);
	char *text = NULL, *line, *rest;
	char parent[PATH_MAX];
	int ret;

	if (access(list, F_OK) < 0) {
		free(list);
		list = xasprintf(DPKG_INFO "/%s:%s.list", p->name, p->arch);
	}
	ret = read_file(list, QUERY_MAX, &text, NULL);
	if (ret < 0) {
		ret = err_code(ret, "image: host packages: cannot read '%s'",
			       list);
		goto out;
	}
	rest = text;
	while (ret == 0 && (line = strsep(&rest, "\n")))
		if (*line == '/')
			ret = stage_one(dir, line, parent);
out:
	free(list);
	free(text);
	return ret;
}

int hostpkg_stage(const struct hostpkg_set *s, const char *dir)
{
	/* merged /usr: the ELF interpreter is /lib64/ld-linux-x86-64.so.2 */
	static const char *const top[] = {"/bin",   "/sbin",  "/lib",
					  "/lib32", "/lib64", "/libx32"};
	struct stat st;
	size_t i;
	int ret = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_errno("image: host packages: cannot make '%s'", dir);
	for (i = 0; i < ARRAY_SIZE(top) && ret == 0; i++)
		if (lstat(top[i], &st) == 0 && S_ISLNK(st.st_mode))
			ret = stage_dir_or_link(dir, top[i], &st);
	for (i = 0; i < s->n && ret == 0; i++)
		if (s->p[i].in)
			ret = stage_package(dir, &s->p[i]);
	return ret;
}
