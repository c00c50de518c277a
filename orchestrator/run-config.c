/* SPDX-License-Identifier: MIT */
#include "run-config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define C(f) offsetof(struct config, f)
#define W(f) offsetof(struct workload, f)
#define GIB (1024.0 * 1024 * 1024)

static const char *const images[] = { "tiny", "debian", NULL };
static const char *const accels[] = { "auto", "kvm", "tcg", NULL };
static const char *const wheres[] = { "bare-metal", "guest", NULL };
static const char *const thp_modes[] = { "always", "madvise", "never", NULL };
static const char *const pagings[] = { "auto", "hw", "shadow", "tcg", NULL };
static const char *const onoff[] = { "on", "off", NULL };
static const char *const backings[] = { "thp", "hugetlb-2M", "hugetlb-1G",
					NULL };
static const char *const metrics[] = { "elapsed", "regex", NULL };
static const char *const betters[] = { "lower", "higher", NULL };

static const struct cfg_key run_keys[] = {
	{ "run", "name", CFG_STR, C(name), "run", 0, 0, NULL,
	  "run name (letters, digits, '.', '_', '-')" },
	{ "run", "repeat", CFG_INT, C(repeat), "3", 1, 1000, NULL,
	  "measured samples per cell" },
	{ "run", "warmup", CFG_INT, C(warmup), "0", 0, 100, NULL,
	  "unrecorded runs per cell before the samples (fault-in, caches)" },
	{ "run", "baseline", CFG_STR, C(baseline), "", 0, 0, NULL,
	  "cell id slowdowns are relative to (default: first cell)" },
	{ "run", "timeout", CFG_DOUBLE, C(timeout_s), "3600", 1, 7 * 86400,
	  NULL, "seconds one sample may take" },
	{ "run", "boot_timeout", CFG_DOUBLE, C(boot_timeout_s), "300", 1, 3600,
	  NULL, "seconds from domain start to the agent's hello" },
	{ "run", "heartbeat", CFG_DOUBLE, C(heartbeat_s), "5", 0.5, 600, NULL,
	  "seconds between agent heartbeats during a sample" },
	{ "run", "retries", CFG_INT, C(retries), "0", 0, 10, NULL,
	  "extra attempts for a failed sample (a dead or hung guest is replaced by a fresh one)" },
	{ "run", "max_failures", CFG_INT, C(max_failures), "10", 1, 10000, NULL,
	  "failed samples after which the run stops" },
	{ "guest", "image", CFG_ENUM, C(image), "tiny", 0, 0, images,
	  "guest image kind" },
	{ "guest", "vcpus", CFG_INT, C(vcpus), "2", 1, 512, NULL,
	  "virtual CPUs" },
	{ "guest", "memory", CFG_SIZE, C(memory), "2G", 512.0 * 1024 * 1024,
	  4096 * GIB, NULL, "guest memory (guests under 512M start with THP off)" },
	{ "guest", "accel", CFG_ENUM, C(accel), "auto", 0, 0, accels,
	  "kvm needs vmx or svm; auto falls back to tcg" },
	{ "guest", "kernel", CFG_STR, C(kernel), "auto", 0, 0, NULL,
	  "guest kernel (auto: newest /boot/vmlinuz-*)" },
	{ "guest", "initrd", CFG_STR, C(initrd), "auto", 0, 0, NULL,
	  "guest initramfs (auto: the tiny image for that kernel)" },
	{ "guest", "uri", CFG_STR, C(uri), "qemu:///system", 0, 0, NULL,
	  "libvirt connection URI" },
	{ "guest", "cmdline", CFG_STR, C(cmdline), "", 0, 0, NULL,
	  "extra guest kernel command line" },
	{ "matrix", "where", CFG_LIST, C(where), "bare-metal, guest", 0, 0,
	  wheres, "where cells run" },
	{ "matrix", "host_thp", CFG_LIST, C(host_thp), "always, never", 0, 0,
	  thp_modes, "host THP modes" },
	{ "matrix", "guest_thp", CFG_LIST, C(guest_thp), "always, never", 0, 0,
	  thp_modes, "guest THP modes" },
	{ "matrix", "paging", CFG_LIST, C(paging), "auto", 0, 0, pagings,
	  "guest paging: hw (EPT/NPT), shadow, tcg, auto (what accel gives)" },
	{ "matrix", "ept", CFG_LIST, C(ept), NULL, 0, 0, onoff,
	  "Intel spelling of paging: on = hw, off = shadow" },
	{ "matrix", "npt", CFG_LIST, C(npt), NULL, 0, 0, onoff,
	  "AMD spelling of paging: on = hw, off = shadow" },
	{ "matrix", "backing", CFG_LIST, C(backing), "thp", 0, 0, backings,
	  "guest RAM backing" },
	{ "matrix", "exclude", CFG_LIST, C(exclude), NULL, 0, 0, NULL,
	  "cell ids to leave out (fnmatch patterns)" },
	{ "workload", "name", CFG_STR, C(workload_name), NULL, 0, 0, NULL,
	  "workload (configs/workloads/NAME.ini)" },
	{ "workload", "dir", CFG_STR, C(workload_dir), "workloads", 0, 0, NULL,
	  "workload directory, relative to the config file" },
};

static const char *const run_extra[] = { "workload+", NULL };
static const struct cfg_schema run_schema = {
	run_keys, ARRAY_SIZE(run_keys), run_extra,
};

static const struct cfg_key workload_keys[] = {
	{ "workload", "description", CFG_STR, W(description), "", 0, 0, NULL,
	  "one line" },
	{ "workload", "setup", CFG_STR, W(setup), "", 0, 0, NULL,
	  "shell command run once per cell before the samples (not measured)" },
	{ "workload", "run", CFG_STR, W(run), NULL, 0, 0, NULL,
	  "the measured shell command" },
	{ "workload", "clean", CFG_STR, W(clean), "", 0, 0, NULL,
	  "shell command run once per cell after the samples" },
	{ "workload", "metric", CFG_ENUM, W(metric), "elapsed", 0, 0, metrics,
	  "elapsed time, or a regex over the output" },
	{ "workload", "metric_regex", CFG_STR, W(metric_regex), "", 0, 0, NULL,
	  "POSIX ERE; the first group is the value" },
	{ "workload", "series_regex", CFG_STR, W(series_regex), "", 0, 0, NULL,
	  "POSIX ERE applied to every output line; groups 1 and 2 are x, y" },
	{ "workload", "unit", CFG_STR, W(unit), "s", 0, 0, NULL,
	  "unit of the metric" },
	{ "workload", "better", CFG_ENUM, W(better), "lower", 0, 0, betters,
	  "which way is better" },
	{ "workload", "packages", CFG_STR, W(packages), "", 0, 0, NULL,
	  "Debian packages the guest image needs" },
	{ "workload", "timeout", CFG_DOUBLE, W(timeout_s), "0", 0, 7 * 86400,
	  NULL, "seconds one sample may take (0: the run's timeout)" },
};

static const char *const workload_extra[] = { "param.*", NULL };
static const struct cfg_schema workload_schema = {
	workload_keys, ARRAY_SIZE(workload_keys), workload_extra,
};

void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static bool is_param_name(const char *s)
{
	size_t i;

	if (!isupper((unsigned char)s[0]))
		return false;
	for (i = 0; s[i]; i++)
		if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    s[i] != '_')
			return false;
	return i <= 64;
}

static struct wl_param *param_find(struct wl_param *p, size_t n,
				   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

static struct wl_param *param_add(struct wl_param **p, size_t *n,
				  const char *name)
{
	struct wl_param *q;

	*p = xrealloc(*p, (*n + 1) * sizeof(**p));
	q = &(*p)[(*n)++];
	memset(q, 0, sizeof(*q));
	q->name = xstrdup(name);
	return q;
}

static void params_free(struct wl_param *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].value);
		free(p[i].description);
	}
	free(p);
}

static int workload_extra_key(void *arg, const char *path, int line,
			      const char *section, const char *name,
			      const char *value)
{
	struct workload *w = arg;
	const char *pname = section + strlen("param.");
	struct wl_param *p;

	if (!is_param_name(pname)) {
		fprintf(stderr,
			"%s:%d: parameter name '%s' must be upper case "
			"letters, digits and '_'\n",
			path, line, pname);
		return -EINVAL;
	}
	p = param_find(w->params, w->nparams, pname);
	if (!p) {
		p = param_add(&w->params, &w->nparams, pname);
		p->line = line;
	}
	if (!strcmp(name, "default")) {
		free(p->value);
		p->value = xstrdup(value);
	} else if (!strcmp(name, "description")) {
		free(p->description);
		p->description = xstrdup(value);
	} else {
		return -ENOENT;
	}
	return 0;
}

static int wl_line(const struct workload *w, const char *name)
{
	return cfg_line(&workload_schema, &w->origin, "workload", name);
}

int workload_load(const char *path, struct workload *w)
{
	char *text = NULL, *base;
	const char *p;
	size_t i, n;
	int ret;

	memset(w, 0, sizeof(*w));
	w->path = xstrdup(path);
	base = xstrdup(basename(w->path));
	if (strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".ini"))
		base[strlen(base) - 4] = '\0';
	w->name = base;
	ret = cfg_read_file(path, &text);
	if (ret < 0)
		goto out;
	ret = cfg_parse(&workload_schema, w, &w->origin, w->path, text,
			workload_extra_key, w);
	if (ret < 0)
		goto out;
	ret = -EINVAL;
	if (!w->run || !*w->run) {
		fprintf(stderr, "%s: [workload] has no 'run' command\n", path);
		goto out;
	}
	if (!strcmp(w->metric, "regex")) {
		regex_t re;

		if (!*w->metric_regex) {
			fprintf(stderr,
				"%s:%d: metric = regex needs 'metric_regex'\n",
				path, wl_line(w, "metric"));
			goto out;
		}
		if (regcomp(&re, w->metric_regex, REG_EXTENDED) != 0 ||
		    re.re_nsub < 1) {
			if (re.re_nsub < 1)
				regfree(&re);
			fprintf(stderr,
				"%s:%d: metric_regex '%s' is not a POSIX ERE "
				"with a capture group\n",
				path, wl_line(w, "metric_regex"),
				w->metric_regex);
			goto out;
		}
		regfree(&re);
	}
	if (*w->series_regex) {
		regex_t re;
		bool two = false;

		if (regcomp(&re, w->series_regex, REG_EXTENDED) == 0) {
			two = re.re_nsub >= 2;
			regfree(&re);
		}
		if (!two) {
			fprintf(stderr,
				"%s:%d: series_regex '%s' is not a POSIX ERE "
				"with two capture groups\n",
				path, wl_line(w, "series_regex"),
				w->series_regex);
			goto out;
		}
	}
	for (p = package_next(w->packages, &n); p; p = package_next(p + n, &n))
		if (!debian_package_name(p, n)) {
			fprintf(stderr,
				"%s:%d: packages: '%.*s' is not a Debian "
				"package name\n",
				path, wl_line(w, "packages"), (int)n, p);
			goto out;
		}
	for (i = 0; i < w->nparams; i++)
		if (!w->params[i].value) {
			fprintf(stderr, "%s:%d: [param.%s] has no default\n",
				path, w->params[i].line, w->params[i].name);
			goto out;
		}
	ret = 0;
out:
	free(text);
	if (ret < 0)
		workload_release(w);
	return ret;
}

void workload_release(struct workload *w)
{
	cfg_release(&workload_schema, w);
	params_free(w->params, w->nparams);
	free(w->name);
	free(w->path);
	memset(w, 0, sizeof(*w));
}

char **workload_env_new(const struct workload *w)
{
	char **env = xcalloc(w->nparams + 1, sizeof(*env));
	size_t i;

	for (i = 0; i < w->nparams; i++)
		env[i] = xasprintf("%s=%s", w->params[i].name,
				   w->params[i].value);
	return env;
}

/* [workload] keys other than name/dir are parameter overrides. */
static int run_extra_key(void *arg, const char *path, int line,
			 const char *section, const char *name,
			 const char *value)
{
	struct config *c = arg;
	struct wl_param *p;

	(void)section;
	if (!is_param_name(name))
		return -ENOENT;
	if (param_find(c->overrides, c->noverrides, name)) {
		fprintf(stderr, "%s:%d: parameter '%s' is set twice\n", path,
			line, name);
		return -EINVAL;
	}
	p = param_add(&c->overrides, &c->noverrides, name);
	p->value = xstrdup(value);
	p->override_line = line;
	return 0;
}

static int key_line(const struct config *c, const char *section,
		    const char *name)
{
	return cfg_line(&run_schema, &c->origin, section, name);
}

static void cerr(const struct config *c, const char *section,
		 const char *name, const char *fmt, ...) VMTAX_PRINTF(4, 5);
static void cerr(const struct config *c, const char *section,
		 const char *name, const char *fmt, ...)
{
	int line = key_line(c, section, name);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		fprintf(stderr, "%s:%d: %s\n", c->path, line, msg);
	else
		fprintf(stderr, "%s: %s\n", c->path, msg);
}

static int apply_set(struct config *c, const char *set)
{
	char *copy = xstrdup(set), *eq, *dot, *where;
	int ret = -EINVAL;

	where = xasprintf("--set '%s'", set);
	eq = strchr(copy, '=');
	dot = strchr(copy, '.');
	if (!eq || !dot || dot > eq) {
		fprintf(stderr, "%s: expected SECTION.KEY=VALUE\n", where);
		goto out;
	}
	*eq = '\0';
	*dot = '\0';
	if (!strcmp(copy, "workload") && is_param_name(dot + 1)) {
		struct wl_param *p =
			param_find(c->overrides, c->noverrides, dot + 1);

		if (!p)
			p = param_add(&c->overrides, &c->noverrides, dot + 1);
		free(p->value);
		p->value = xstrdup(eq + 1);
		p->override_line = -1;
		ret = 0;
		goto out;
	}
	ret = cfg_set(&run_schema, c, &c->origin, copy, dot + 1, eq + 1, where);
out:
	free(where);
	free(copy);
	return ret;
}

static int resolve_workload(struct config *c)
{
	char *dircopy = xstrdup(c->path), *dir, *path = NULL;
	size_t i;
	int ret = -EINVAL;

	if (!c->workload_name || !*c->workload_name) {
		fprintf(stderr, "%s: [workload] name is missing\n", c->path);
		goto out;
	}
	if (!is_safe_name(c->workload_name)) {
		cerr(c, "workload", "name", "bad workload name '%s'",
		     c->workload_name);
		goto out;
	}
	dir = dirname(dircopy);
	if (c->workload_dir[0] == '/')
		path = xasprintf("%s/%s.ini", c->workload_dir,
				 c->workload_name);
	else
		path = xasprintf("%s/%s/%s.ini", dir, c->workload_dir,
				 c->workload_name);
	if (access(path, R_OK) < 0) {
		cerr(c, "workload", "name", "unknown workload '%s' (no '%s')",
		     c->workload_name, path);
		goto out;
	}
	if (workload_load(path, &c->wl) < 0)
		goto out;
	for (i = 0; i < c->noverrides; i++) {
		struct wl_param *o = &c->overrides[i];
		struct wl_param *p =
			param_find(c->wl.params, c->wl.nparams, o->name);

		if (!p) {
			if (o->override_line > 0)
				fprintf(stderr,
					"%s:%d: workload '%s' has no parameter '%s'\n",
					c->path, o->override_line,
					c->workload_name, o->name);
			else
				fprintf(stderr,
					"--set: workload '%s' has no parameter '%s'\n",
					c->workload_name, o->name);
			goto out;
		}
		free(p->value);
		p->value = xstrdup(o->value);
		p->override_line = o->override_line;
	}
	ret = 0;
out:
	free(path);
	free(dircopy);
	return ret;
}

int config_load(const char *path, const char *const *sets, size_t nsets,
		struct config *c)
{
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	ret = cfg_read_file(path, &c->text);
	if (ret < 0)
		return ret;
	ret = cfg_parse(&run_schema, c, &c->origin, c->path, c->text,
			run_extra_key, c);
	if (ret < 0)
		return ret;
	for (i = 0; i < nsets; i++)
		if (apply_set(c, sets[i]) < 0)
			return -EINVAL;
	if (!is_safe_name(c->name)) {
		cerr(c, "run", "name",
		     "bad run name '%s' (use letters, digits, '.', '_', '-')",
		     c->name);
		return -EINVAL;
	}
	if ((c->ept.n || c->npt.n) && cfg_is_set(&run_schema, &c->origin,
						 "matrix", "paging")) {
		cerr(c, "matrix", "paging",
		     "give the paging axis once: 'paging', 'ept' or 'npt'");
		return -EINVAL;
	}
	if (c->ept.n && c->npt.n) {
		cerr(c, "matrix", "npt", "give either 'ept' or 'npt', not both");
		return -EINVAL;
	}
	if (c->ept.n || c->npt.n) {
		struct cfg_list *l = c->ept.n ? &c->ept : &c->npt;

		cfg_list_free(&c->paging);
		c->paging.v = xcalloc(l->n, sizeof(char *));
		for (i = 0; i < l->n; i++)
			c->paging.v[i] = xstrdup(
				!strcmp(l->v[i], "on") ? "hw" : "shadow");
		c->paging.n = l->n;
	}
	return resolve_workload(c);
}

void config_release(struct config *c)
{
	cfg_release(&run_schema, c);
	params_free(c->overrides, c->noverrides);
	workload_release(&c->wl);
	free(c->path);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

void config_print_help(FILE *f)
{
	cfg_print_help(&run_schema, f);
	fprintf(f, "    %-14s %-8s %s\n", "NAME", "string",
		"in [workload]: override workload parameter NAME");
}

json_t *config_to_json(const struct config *c)
{
	json_t *j = cfg_to_json(&run_schema, c), *params = json_object();
	size_t i;

	for (i = 0; i < c->wl.nparams; i++)
		json_object_set_new(params, c->wl.params[i].name,
				    json_string(c->wl.params[i].value));
	json_object_set_new(json_object_get(j, "workload"), "params", params);
	return j;
}

static bool excluded(const struct config *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->exclude.n; i++)
		if (fnmatch(c->exclude.v[i], id, 0) == 0)
			return true;
	return false;
}

static bool has_axis(const struct config *c, const char *name)
{
	return cfg_is_set(&run_schema, &c->origin, "matrix", name);
}

static int push(const struct config *c, struct cell **cells, int *n,
		const struct cell *x)
{
	if (excluded(c, x->id))
		return 0;
	*cells = xrealloc(*cells, (*n + 1) * sizeof(**cells));
	(*cells)[(*n)++] = *x;
	return 0;
}

int matrix_expand(const struct config *c, struct cell **out)
{
	bool bare = false, guest = false, paging_axis, backing_axis;
	struct cell *cells = NULL, x;
	size_t i, h, g, p, b;
	int n = 0, base = -1;

	for (i = 0; i < c->where.n; i++) {
		bare |= !strcmp(c->where.v[i], "bare-metal");
		guest |= !strcmp(c->where.v[i], "guest");
	}
	paging_axis = has_axis(c, "paging") || has_axis(c, "ept") ||
		      has_axis(c, "npt");
	backing_axis = has_axis(c, "backing");
	for (h = 0; bare && h < c->host_thp.n; h++) {
		memset(&x, 0, sizeof(x));
		x.where = WHERE_BARE;
		x.host_thp = c->host_thp.v[h];
		snprintf(x.id, sizeof(x.id), "bare-metal/host-thp=%s",
			 x.host_thp);
		push(c, &cells, &n, &x);
	}
	for (p = 0; guest && p < c->paging.n; p++)
		for (h = 0; h < c->host_thp.n; h++)
			for (g = 0; g < c->guest_thp.n; g++)
				for (b = 0; b < c->backing.n; b++) {
					int off = 0;

					memset(&x, 0, sizeof(x));
					x.where = WHERE_GUEST;
					x.paging = c->paging.v[p];
					x.host_thp = c->host_thp.v[h];
					x.guest_thp = c->guest_thp.v[g];
					x.backing = c->backing.v[b];
					off = snprintf(x.id, sizeof(x.id),
						       "guest");
					if (paging_axis)
						off += snprintf(x.id + off,
								sizeof(x.id) - off,
								"/paging=%s",
								x.paging);
					off += snprintf(x.id + off,
							sizeof(x.id) - off,
							"/host-thp=%s/guest-thp=%s",
							x.host_thp, x.guest_thp);
					if (backing_axis)
						snprintf(x.id + off,
							 sizeof(x.id) - off,
							 "/backing=%s",
							 x.backing);
					push(c, &cells, &n, &x);
				}
	if (!n) {
		cerr(c, "matrix", "exclude", "the matrix has no cells");
		free(cells);
		return -EINVAL;
	}
	if (!*c->baseline) {
		base = 0;
	} else {
		for (i = 0; i < (size_t)n; i++)
			if (!strcmp(cells[i].id, c->baseline))
				base = i;
	}
	if (base < 0) {
		cerr(c, "run", "baseline",
		     "baseline '%s' is not a cell of this matrix (name one, "
		     "or set it empty for the first); cells are:",
		     c->baseline);
		for (i = 0; i < (size_t)n; i++)
			fprintf(stderr, "    %s\n", cells[i].id);
		free(cells);
		return -EINVAL;
	}
	*out = cells;
	return n;
}
