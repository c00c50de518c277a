/* SPDX-License-Identifier: MIT */
#include "matrix.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Where an axis's values go in a cell. */
enum source_kind {
	S_KEY, /* a key of the table: its struct axis_spec says */
	S_HOST_KNOB,
	S_GUEST_KNOB,
	S_PARAM,
	S_REPLICA,
};

/* What the expansion needs beside each struct axis. */
struct source {
	const struct ini_list *raw; /* the values: as written, and typed */
	enum source_kind kind;
	const struct axis_spec *spec; /* S_KEY */
	size_t index;		      /* of the knob or parameter */
};

struct build {
	const struct run_config *c;
	struct matrix *m;
	struct source *src;
	struct ini_list where; /* bare-metal first (order_where()) */
};

static char *id_value(bool base_name, const char *v)
{
	const char *slash = strrchr(v, '/');
	char *s, *p;

	if (base_name && slash)
		return xstrdup(slash[1] ? slash + 1 : v);
	s = xstrdup(v);
	for (p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	return s;
}

static void add_axis(struct build *b, const char *name, const char *key,
		     enum axis_kind kind, enum axis_applies applies, bool in_id,
		     struct source src)
{
	const struct ini_list *raw = src.raw;
	struct matrix *m = b->m;
	struct axis *a;
	size_t i;

	m->axes = xrealloc(m->axes, (m->naxes + 1) * sizeof(*m->axes));
	b->src = xrealloc(b->src, (m->naxes + 1) * sizeof(*b->src));
	b->src[m->naxes] = src;
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
		a->values[i] =
		    id_value(src.spec && src.spec->base_name, raw->v[i]);
		a->numeric =
		    a->numeric && ini_number(a->values[i], &a->numbers[i]);
	}
	if (!a->numeric) {
		free(a->numbers);
		a->numbers = NULL;
	}
}

static char *replica_v[] = {"a", "b"};
static const struct ini_list replica_values = {replica_v, 2, NULL};

/* The axis of table key K (its .ext a struct axis_spec). */
static void add_key_axis(struct build *b, const struct ini_key *k)
{
	const struct axis_spec *sp = k->ext;
	const struct run_config *c = b->c;
	const struct ini_list *l =
	    (const struct ini_list *)((const char *)c + k->offset);
	const struct ini_key *kk = k;
	char key[256];
	bool in_id = k->shape == INI_LIST || l->n > 1;

	if (sp->slot == SLOT_WHERE)
		l = &b->where;
	if (sp->in_id)
		in_id = *(const bool *)((const char *)c + sp->in_id - 1);
	if (sp->slot == SLOT_PAGING && c->paging_by)
		kk = c->paging_by;
	snprintf(key, sizeof(key), "%s.%s", kk->section, kk->name);
	add_axis(b, sp->name ? sp->name : k->name, key, sp->kind, sp->applies,
		 in_id, (struct source){l, S_KEY, sp, 0});
}

/* The [host] (HOST) or [guest] knobs' axes, config order. */
static void add_knob_axes(struct build *b, bool host)
{
	const struct run_config *c = b->c;
	const struct knob_setting *ks = host ? c->host_knobs : c->guest_knobs;
	size_t i, n = host ? c->nhost_knobs : c->nguest_knobs;
	char name[256];

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.%s", host ? "host" : "guest",
			 ks[i].name);
		add_axis(b, name, name, host ? AXIS_HOST_KNOB : AXIS_GUEST_KNOB,
			 host ? APPLIES_ALL : APPLIES_GUEST, ks[i].values.n > 1,
			 (struct source){&ks[i].values,
					 host ? S_HOST_KNOB : S_GUEST_KNOB,
					 NULL, i});
	}
}

/* The workload parameters' axes, in the workload file's order. */
static void add_param_axes(struct build *b)
{
	const struct wl_param *p = b->c->wl.params;
	size_t i;
	char key[256];

	for (i = 0; i < b->c->wl.nparams; i++) {
		snprintf(key, sizeof(key), "workload.%s", p[i].name);
		add_axis(b, p[i].name, key, AXIS_PARAM, APPLIES_ALL,
			 p[i].values.n > 1,
			 (struct source){&p[i].values, S_PARAM, NULL, i});
	}
}

/* The where values, bare-metal first, as ever. */
static void order_where(struct build *b)
{
	const struct ini_list *w = &b->c->where;
	int pass[] = {WHERE_BARE, WHERE_GUEST};
	size_t i, p;

	for (p = 0; p < ARRAY_SIZE(pass); p++)
		for (i = 0; i < w->n; i++)
			if (w->val[i].n == pass[p]) {
				b->where.v[b->where.n] = w->v[i];
				b->where.val[b->where.n++] = w->val[i];
			}
}

/* Every axis, slot by slot: the keys the table marks, then the knobs,
 * parameters and replicas. */
static void add_axes(struct build *b)
{
	const struct ini_schema *s = run_config_schema();
	const struct run_config *c = b->c;
	enum axis_slot slot;
	size_t i;

	order_where(b);
	for (slot = SLOT_WHERE; slot < SLOT_END; slot++) {
		for (i = 0; i < s->nkeys; i++)
			if (s->keys[i].ext &&
			    ((const struct axis_spec *)s->keys[i].ext)->slot ==
				slot)
				add_key_axis(b, &s->keys[i]);
		if (slot == SLOT_HOST_KNOBS || slot == SLOT_GUEST_KNOBS)
			add_knob_axes(b, slot == SLOT_HOST_KNOBS);
		if (slot == SLOT_PARAMS)
			add_param_axes(b);
		/* An A/A run ([run] replicas = 2, vmtax calibrate): every
		 * cell twice, last in the id, so that a replica's ids are the
		 * run's plus "/replica=a". */
		if (slot == SLOT_REPLICA && c->replicas > 1)
			add_axis(b, MATRIX_REPLICA_AXIS, "run.replicas",
				 AXIS_REPLICA, APPLIES_ALL, true,
				 (struct source){&replica_values, S_REPLICA,
						 NULL, 0});
	}
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

/* Value V (typed: VAL) of a table key's axis into its cell field. */
static void set_field(struct cell *x, const struct axis_spec *sp, const char *v,
		      const union ini_value *val)
{
	char *f = (char *)x + sp->cell;

	switch (sp->as) {
	case CELL_SET_BY_MATRIX:
		break;
	case CELL_TEXT:
		*(const char **)f = v;
		break;
	case CELL_LONG:
		*(long *)f = val->n;
		break;
	case CELL_U64:
		*(uint64_t *)f = val->sz;
		break;
	case CELL_ENUM: /* the choices are the enum's names + 1 */
		*(int *)f = (int)val->n + 1;
		break;
	}
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

		if (!applies(&m->axes[a], w))
			continue;
		v = s->raw->v[idx[a]];
		x->axis_values[a] = m->axes[a].values[idx[a]];
		if (s->kind == S_KEY)
			set_field(x, s->spec, v, &s->raw->val[idx[a]]);
		else if (s->kind == S_HOST_KNOB)
			x->host_knobs[s->index] =
			    (struct cell_kv){c->host_knobs[s->index].name, v};
		else if (s->kind == S_GUEST_KNOB)
			x->guest_knobs[s->index] =
			    (struct cell_kv){c->guest_knobs[s->index].name, v};
		else if (s->kind == S_PARAM)
			x->params[s->index] =
			    (struct cell_kv){c->wl.params[s->index].name, v};
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
		wh = b->where.val[w].n;
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
	b.where.val = xcalloc(c->where.n + 1, sizeof(*b.where.val));
	add_axes(&b);
	total = count_cells(&b);
	if (total > MATRIX_MAX_CELLS) {
		err_plain("%s: the matrix has more than %d cells", c->path,
			  MATRIX_MAX_CELLS);
		goto out;
	}
	all = xcalloc(total + 1, sizeof(*all));
	idx = xcalloc(m->naxes, sizeof(*idx));
	for (w = 0; w < b.where.n; w++) {
		enum where wh = b.where.val[w].n;
		bool done = false;

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
		run_config_error(c, RUN_CONFIG_KEY(exclude),
				 "the matrix has no cells");
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
		run_config_error(
		    c, RUN_CONFIG_KEY(baseline),
		    "baseline '%s' is not a cell of this matrix (name "
		    "one, or set it empty for the first); cells are:",
		    c->baseline);
		for (i = 0; i < m->ncells; i++)
			err_plain("    %s", m->cells[i].id);
		goto out;
	}
	for (i = 0; i < c->cells.n; i++)
		if ((size_t)c->cells.val[i].n >= m->ncells) {
			run_config_error(c, RUN_CONFIG_KEY(cells),
					 "cell %ld: the matrix has %zu cells "
					 "(0 to %zu)",
					 c->cells.val[i].n, m->ncells,
					 m->ncells - 1);
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
	free(b.where.val);
	if (ret < 0)
		matrix_release(m);
	return ret;
}

bool matrix_cell_listed(const struct run_config *c, size_t ci)
{
	size_t i;

	for (i = 0; i < c->cells.n; i++)
		if ((size_t)c->cells.val[i].n == ci)
			return true;
	return !c->cells.n;
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
