/* SPDX-License-Identifier: MIT */
#include "matrix.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const where_names[] = {
    [WHERE_BARE] = "bare-metal", [WHERE_GUEST] = "guest", NULL};
const char *const paging_names[] = {
    [PAGING_NONE] = NULL,	[PAGING_AUTO] = "auto", [PAGING_HW] = "hw",
    [PAGING_SHADOW] = "shadow", [PAGING_TCG] = "tcg",	[PAGING_TCG + 1] = NULL,
};
const char *const backing_names[] = {
    [BACKING_NONE] = NULL,
    [BACKING_THP] = "thp",
    [BACKING_HUGETLB_2M] = "hugetlb-2M",
    [BACKING_HUGETLB_1G] = "hugetlb-1G",
    [BACKING_HUGETLB_1G + 1] = NULL,
};

static int parse_name(const char *const *names, int first, int last,
		      const char *s, int *out)
{
	int i;

	for (i = first; i <= last; i++)
		if (names[i] && !strcmp(names[i], s)) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

const char *where_name(enum where w)
{
	return w <= WHERE_GUEST ? where_names[w] : NULL;
}

int where_parse(const char *s, enum where *out)
{
	int v, ret = parse_name(where_names, WHERE_BARE, WHERE_GUEST, s, &v);

	if (!ret)
		*out = v;
	return ret;
}

const char *paging_name(enum paging p)
{
	return p <= PAGING_TCG ? paging_names[p] : NULL;
}

int paging_parse(const char *s, enum paging *out)
{
	int v, ret = parse_name(paging_names, PAGING_AUTO, PAGING_TCG, s, &v);

	if (!ret)
		*out = v;
	return ret;
}

const char *backing_name(enum backing b)
{
	return b <= BACKING_HUGETLB_1G ? backing_names[b] : NULL;
}

int backing_parse(const char *s, enum backing *out)
{
	int v, ret = parse_name(backing_names, BACKING_THP, BACKING_HUGETLB_1G,
				s, &v);

	if (!ret)
		*out = v;
	return ret;
}

/* Which cell field an axis sets. */
enum field {
	F_WHERE,
	F_PAGING,
	F_HOST_KNOB,
	F_HOST_THP,
	F_GUEST_THP,
	F_BACKING,
	F_IMAGE,
	F_KERNEL,
	F_INITRD,
	F_VCPUS,
	F_MEMORY,
	F_CMDLINE,
	F_GUEST_KNOB,
	F_PARAM,
	F_REPLICA,
};

/* What the expansion needs beside each struct axis. */
struct source {
	const struct ini_list *raw; /* the values as the config gives them */
	enum field field;
	size_t index; /* of the knob or parameter */
};

struct build {
	const struct run_config *c;
	struct matrix *m;
	struct source *src;
	struct ini_list where; /* bare-metal first, as ever */
};

static char *id_value(enum field f, const char *v)
{
	const char *slash = strrchr(v, '/');
	char *s, *p;

	if ((f == F_KERNEL || f == F_INITRD) && slash)
		return xstrdup(slash[1] ? slash + 1 : v);
	s = xstrdup(v);
	for (p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	return s;
}

static void add_axis(struct build *b, const char *name, const char *key,
		     enum axis_kind kind, enum axis_applies applies, bool in_id,
		     const struct ini_list *raw, enum field f, size_t index)
{
	struct matrix *m = b->m;
	struct axis *a;
	size_t i;

	m->axes = xrealloc(m->axes, (m->naxes + 1) * sizeof(*m->axes));
	b->src = xrealloc(b->src, (m->naxes + 1) * sizeof(*b->src));
	b->src[m->naxes] = (struct source){raw, f, index};
	a = &m->axes[m->naxes++];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->key = xstrdup(key);
	a->kind = kind;
	a->applies = applies;
	a->in_id = in_id;
	a->nvalues = raw->n;
	a->values = xcalloc(raw->n ? raw->n : 1, sizeof(char *));
	a->numbers = xcalloc(raw->n ? raw->n : 1, sizeof(double));
	a->numeric = raw->n > 0;
	for (i = 0; i < raw->n; i++) {
		a->values[i] = id_value(f, raw->v[i]);
		a->numeric =
		    a->numeric && ini_number(a->values[i], &a->numbers[i]);
	}
	if (!a->numeric) {
		free(a->numbers);
		a->numbers = NULL;
	}
}

static char *replica_v[] = {"a", "b"};
static const struct ini_list replica_values = {replica_v, 2};

static void add_axes(struct build *b)
{
	static const struct {
		const char *name;
		size_t off;
		enum field f;
	} guest_keys[] = {
	    {"image", offsetof(struct run_config, image), F_IMAGE},
	    {"kernel", offsetof(struct run_config, kernel), F_KERNEL},
	    {"initrd", offsetof(struct run_config, initrd), F_INITRD},
	    {"vcpus", offsetof(struct run_config, vcpus), F_VCPUS},
	    {"memory", offsetof(struct run_config, memory), F_MEMORY},
	    {"cmdline", offsetof(struct run_config, cmdline), F_CMDLINE},
	};
	const struct run_config *c = b->c;
	const char *paging_key = "matrix.paging";
	char name[256], key[256];
	size_t i;

	for (i = 0; i < c->where.n; i++)
		if (!strcmp(c->where.v[i], where_name(WHERE_BARE)))
			b->where.v[b->where.n++] = c->where.v[i];
	for (i = 0; i < c->where.n; i++)
		if (!strcmp(c->where.v[i], where_name(WHERE_GUEST)))
			b->where.v[b->where.n++] = c->where.v[i];
	add_axis(b, "where", "matrix.where", AXIS_WHERE, APPLIES_ALL, true,
		 &b->where, F_WHERE, 0);
	if (run_config_is_set(c, "matrix", "ept"))
		paging_key = "matrix.ept";
	else if (run_config_is_set(c, "matrix", "npt"))
		paging_key = "matrix.npt";
	add_axis(b, "paging", paging_key, AXIS_CLASSIC, APPLIES_GUEST,
		 run_config_is_set(c, "matrix", "paging") ||
		     run_config_is_set(c, "matrix", "ept") ||
		     run_config_is_set(c, "matrix", "npt"),
		 &c->paging, F_PAGING, 0);
	for (i = 0; i < c->nhost_knobs; i++) {
		snprintf(name, sizeof(name), "host.%s", c->host_knobs[i].name);
		add_axis(b, name, name, AXIS_HOST_KNOB, APPLIES_ALL,
			 c->host_knobs[i].values.n > 1,
			 &c->host_knobs[i].values, F_HOST_KNOB, i);
	}
	add_axis(b, "host-thp", "matrix.host_thp", AXIS_CLASSIC, APPLIES_ALL,
		 true, &c->host_thp, F_HOST_THP, 0);
	add_axis(b, "guest-thp", "matrix.guest_thp", AXIS_CLASSIC,
		 APPLIES_GUEST, true, &c->guest_thp, F_GUEST_THP, 0);
	add_axis(b, "backing", "matrix.backing", AXIS_CLASSIC, APPLIES_GUEST,
		 run_config_is_set(c, "matrix", "backing"), &c->backing, F_BACKING,
		 0);
	for (i = 0; i < ARRAY_SIZE(guest_keys); i++) {
		const struct ini_list *l =
		    (const struct ini_list *)((const char *)c +
					      guest_keys[i].off);

		snprintf(key, sizeof(key), "guest.%s", guest_keys[i].name);
		add_axis(b, guest_keys[i].name, key, AXIS_GUEST_KEY,
			 APPLIES_GUEST, l->n > 1, l, guest_keys[i].f, 0);
	}
	for (i = 0; i < c->nguest_knobs; i++) {
		snprintf(name, sizeof(name), "guest.%s",
			 c->guest_knobs[i].name);
		add_axis(b, name, name, AXIS_GUEST_KNOB, APPLIES_GUEST,
			 c->guest_knobs[i].values.n > 1,
			 &c->guest_knobs[i].values, F_GUEST_KNOB, i);
	}
	for (i = 0; i < c->wl.nparams; i++) {
		snprintf(key, sizeof(key), "workload.%s", c->wl.params[i].name);
		add_axis(b, c->wl.params[i].name, key, AXIS_PARAM, APPLIES_ALL,
			 c->wl.params[i].values.n > 1, &c->wl.params[i].values,
			 F_PARAM, i);
	}
	/* An A/A run ([run] replicas = 2, vmtax calibrate): every cell twice,
	 * last in the id, so that a replica's ids are the run's plus
	 * "/replica=a". */
	if (c->replicas > 1)
		add_axis(b, MATRIX_REPLICA_AXIS, "run.replicas", AXIS_REPLICA,
			 APPLIES_ALL, true, &replica_values, F_REPLICA, 0);
}

static bool applies(const struct axis *a, enum where w)
{
	return a->applies == APPLIES_ALL || w == WHERE_GUEST;
}

static void cell_free(struct cell *x)
{
	free(x->id);
	free(x->params);
	free(x->host_knobs);
	free(x->guest_knobs);
	free(x->axis_values);
}

/* The cell of where value W at value indexes IDX (one per axis). */
static void make_cell(const struct build *b, enum where w, const size_t *idx,
		      struct cell *x)
{
	const struct run_config *c = b->c;
	const struct matrix *m = b->m;
	size_t a, len = 0, cap = 64;
	char *id = xmalloc(cap);

	memset(x, 0, sizeof(*x));
	x->where = w;
	x->nparams = c->wl.nparams;
	x->params = xcalloc(x->nparams + 1, sizeof(*x->params));
	x->nhost_knobs = c->nhost_knobs;
	x->host_knobs = xcalloc(x->nhost_knobs + 1, sizeof(*x->host_knobs));
	x->nguest_knobs = w == WHERE_GUEST ? c->nguest_knobs : 0;
	x->guest_knobs = xcalloc(x->nguest_knobs + 1, sizeof(*x->guest_knobs));
	x->axis_values = xcalloc(m->naxes, sizeof(*x->axis_values));
	for (a = 0; a < m->naxes; a++) {
		const struct source *s = &b->src[a];
		const char *v;
		enum paging p = PAGING_NONE;
		enum backing bk = BACKING_NONE;
		uint64_t sz = 0;

		if (!applies(&m->axes[a], w))
			continue;
		v = s->raw->v[idx[a]];
		x->axis_values[a] = m->axes[a].values[idx[a]];
		switch (s->field) {
		case F_WHERE:
			break;
		case F_PAGING:
			paging_parse(v, &p);
			x->paging = p;
			break;
		case F_HOST_KNOB:
			x->host_knobs[s->index] =
			    (struct cell_kv){c->host_knobs[s->index].name, v};
			break;
		case F_HOST_THP:
			x->host_thp = v;
			break;
		case F_GUEST_THP:
			x->guest_thp = v;
			break;
		case F_BACKING:
			backing_parse(v, &bk);
			x->backing = bk;
			break;
		case F_IMAGE:
			x->image = v;
			break;
		case F_KERNEL:
			x->kernel = v;
			break;
		case F_INITRD:
			x->initrd = v;
			break;
		case F_VCPUS:
			x->vcpus = strtol(v, NULL, 0);
			break;
		case F_MEMORY:
			ini_parse_size(v, &sz);
			x->memory = sz;
			break;
		case F_CMDLINE:
			x->cmdline = v;
			break;
		case F_GUEST_KNOB:
			x->guest_knobs[s->index] =
			    (struct cell_kv){c->guest_knobs[s->index].name, v};
			break;
		case F_PARAM:
			x->params[s->index] =
			    (struct cell_kv){c->wl.params[s->index].name, v};
			break;
		case F_REPLICA:
			break;
		}
		if (a && !m->axes[a].in_id)
			continue;
		while (len + strlen(m->axes[a].name) +
			   strlen(x->axis_values[a]) + 3 >
		       cap) {
			cap *= 2;
			id = xrealloc(id, cap);
		}
		if (a)
			len += sprintf(id + len, "/%s=", m->axes[a].name);
		len += sprintf(id + len, "%s", x->axis_values[a]);
	}
	x->id = id;
}

/* How many cells before exclude; more than MATRIX_MAX_CELLS stops early. */
static size_t count_cells(const struct build *b)
{
	const struct matrix *m = b->m;
	size_t total = 0, n, w, a;
	enum where wh;

	for (w = 0; w < b->where.n; w++) {
		where_parse(b->where.v[w], &wh);
		n = 1;
		for (a = 1; a < m->naxes; a++)
			if (applies(&m->axes[a], wh)) {
				n *= m->axes[a].nvalues;
				if (n > MATRIX_MAX_CELLS)
					return MATRIX_MAX_CELLS + 1;
			}
		total += n;
		if (total > MATRIX_MAX_CELLS)
			return MATRIX_MAX_CELLS + 1;
	}
	return total;
}

static int by_id(const void *a, const void *b)
{
	return strcmp((*(const struct cell *const *)a)->id,
		      (*(const struct cell *const *)b)->id);
}

static bool excluded(const struct run_config *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->exclude.n; i++)
		if (fnmatch(c->exclude.v[i], id, 0) == 0)
			return true;
	return false;
}

int matrix_expand(const struct run_config *c, struct matrix *m)
{
	struct build b = {.c = c, .m = m};
	struct cell *all = NULL, **sorted = NULL;
	size_t total, n = 0, w, a, i, *idx = NULL;
	int ret = -EINVAL;

	memset(m, 0, sizeof(*m));
	b.where.v = xcalloc(c->where.n + 1, sizeof(char *));
	add_axes(&b);
	total = count_cells(&b);
	if (total > MATRIX_MAX_CELLS) {
		fprintf(stderr, "%s: the matrix has more than %d cells\n",
			c->path, MATRIX_MAX_CELLS);
		goto out;
	}
	all = xcalloc(total + 1, sizeof(*all));
	idx = xcalloc(m->naxes, sizeof(*idx));
	for (w = 0; w < b.where.n; w++) {
		enum where wh = WHERE_BARE;
		bool done = false;

		where_parse(b.where.v[w], &wh);
		memset(idx, 0, m->naxes * sizeof(*idx));
		idx[0] = w;
		while (!done) {
			make_cell(&b, wh, idx, &all[n++]);
			/* the odometer: the last axis turns fastest */
			for (a = m->naxes; a-- > 1;) {
				if (!applies(&m->axes[a], wh))
					continue;
				if (++idx[a] < m->axes[a].nvalues)
					break;
				idx[a] = 0;
			}
			done = a == 0;
		}
	}
	sorted = xcalloc(n + 1, sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = &all[i];
	qsort(sorted, n, sizeof(*sorted), by_id);
	for (i = 1; i < n; i++)
		if (!strcmp(sorted[i - 1]->id, sorted[i]->id)) {
			fprintf(
			    stderr,
			    "%s: two cells have the id '%s' (values that "
			    "differ only in a directory, or in '/' and '_', "
			    "look alike in ids)\n",
			    c->path, sorted[i]->id);
			goto out;
		}
	m->cells = xcalloc(n + 1, sizeof(*m->cells));
	for (i = 0; i < n; i++) {
		if (excluded(c, all[i].id)) {
			cell_free(&all[i]);
			continue;
		}
		m->cells[m->ncells++] = all[i];
	}
	n = 0; /* the cells are the matrix's now */
	if (!m->ncells) {
		run_config_error(c, "matrix", "exclude", "the matrix has no cells");
		goto out;
	}
	m->baseline = m->ncells;
	if (!*c->baseline)
		m->baseline = 0;
	for (i = 0; *c->baseline && i < m->ncells; i++)
		if (!strcmp(m->cells[i].id, c->baseline) ||
		    (c->replicas > 1 &&
		     matrix_is_replica_of(m->cells[i].id, c->baseline, "a")))
			m->baseline = i;
	if (m->baseline == m->ncells) {
		run_config_error(c, "run", "baseline",
			     "baseline '%s' is not a cell of this matrix (name "
			     "one, or set it empty for the first); cells are:",
			     c->baseline);
		for (i = 0; i < m->ncells; i++)
			fprintf(stderr, "    %s\n", m->cells[i].id);
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		cell_free(&all[i]);
	free(all);
	free(sorted);
	free(idx);
	free(b.src);
	free(b.where.v);
	if (ret < 0)
		matrix_release(m);
	return ret;
}

bool matrix_is_replica_of(const char *id, const char *base, const char *rep)
{
	const char *mid = "/" MATRIX_REPLICA_AXIS "=";
	size_t n = strlen(base), k = strlen(mid);

	return !strncmp(id, base, n) && !strncmp(id + n, mid, k) &&
	       !strcmp(id + n + k, rep);
}

void matrix_release(struct matrix *m)
{
	size_t i, j;

	for (i = 0; i < m->ncells; i++)
		cell_free(&m->cells[i]);
	free(m->cells);
	for (i = 0; i < m->naxes; i++) {
		for (j = 0; j < m->axes[i].nvalues; j++)
			free(m->axes[i].values[j]);
		free(m->axes[i].values);
		free(m->axes[i].numbers);
		free(m->axes[i].name);
		free(m->axes[i].key);
	}
	free(m->axes);
	memset(m, 0, sizeof(*m));
}

static json_t *number_json(double d)
{
	if (d == floor(d) && fabs(d) < 9e15)
		return json_integer((json_int_t)d);
	return json_real(d);
}

json_t *matrix_axes_json(const struct matrix *m)
{
	json_t *axes = json_array();
	size_t i, j;

	for (i = 0; i < m->naxes; i++) {
		const struct axis *a = &m->axes[i];
		json_t *o, *v, *nums;

		if (!a->in_id)
			continue;
		v = json_array();
		for (j = 0; j < a->nvalues; j++)
			json_array_append_new(v, json_string(a->values[j]));
		o = json_pack("{ss ss so sb}", "name", a->name, "key", a->key,
			      "values", v, "numeric", a->numeric);
		if (a->numeric) {
			nums = json_array();
			for (j = 0; j < a->nvalues; j++)
				json_array_append_new(
				    nums, number_json(a->numbers[j]));
			json_object_set_new(o, "numbers", nums);
		}
		json_object_set_new(
		    o, "applies",
		    json_string(a->applies == APPLIES_ALL ? "all" : "guest"));
		json_array_append_new(axes, o);
	}
	return axes;
}

json_t *matrix_cell_axes_json(const struct matrix *m, size_t ci)
{
	const struct cell *x = &m->cells[ci];
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < m->naxes; i++)
		if (m->axes[i].in_id && x->axis_values[i])
			json_object_set_new(o, m->axes[i].name,
					    json_string(x->axis_values[i]));
	return o;
}

json_t *cell_kv_json(const struct cell_kv *kv, size_t n)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, kv[i].name, json_string(kv[i].value));
	return o;
}

char **cell_env_new(const struct cell *c)
{
	char **env = xcalloc(c->nparams + 1, sizeof(*env));
	size_t i;

	for (i = 0; i < c->nparams; i++)
		env[i] =
		    xasprintf("%s=%s", c->params[i].name, c->params[i].value);
	return env;
}
