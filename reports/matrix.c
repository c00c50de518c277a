/* SPDX-License-Identifier: MIT */
/* The compact matrix and the scaling lines, laid out from the axes. */
#include "model.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

long report_lookup_axis(const struct report *r, const char *name)
{
	long k = report_find_axis(r, name);

	/* The names 'vmtax compare --by' took before axes were named. */
	if (k < 0 && !strcmp(name, AXIS_ENV_HOST_THP))
		k = report_find_axis(r, AXIS_NAME_HOST_THP);
	if (k < 0 && !strcmp(name, AXIS_ENV_GUEST_THP))
		k = report_find_axis(r, AXIS_NAME_GUEST_THP);
	return k;
}

static int unknown_axis(const struct report *r, const char *name)
{
	char *names = report_axis_names_new(r, ", ");

	err("unknown axis '%s' (axes of '%s': %s)", name, r->path, names);
	free(names);
	return -EINVAL;
}

static bool has_dim(const size_t *dims, size_t n, size_t axis)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (dims[i] == axis)
			return true;
	return false;
}

/* Parse "a,b,c" into axis indexes appended to DIMS (room for naxes). */
static int parse_dims(const struct report *r, const char *list, size_t *dims,
		      size_t *n, const size_t *other, size_t nother)
{
	char *copy = xstrdup(list), *save = NULL, *name;
	int ret = 0;
	long k;

	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		k = report_lookup_axis(r, name);
		if (k < 0) {
			ret = unknown_axis(r, name);
			goto out;
		}
		if (has_dim(dims, *n, (size_t)k) ||
		    has_dim(other, nother, (size_t)k)) {
			ret = err("axis '%s' is named twice in --rows/--cols",
				  name);
			goto out;
		}
		dims[(*n)++] = (size_t)k;
	}
	if (!*n)
		ret = err("--rows/--cols needs an axis name");
out:
	free(copy);
	return ret;
}

/* Value index of cell C in each of the ND dims, -1 where it has none. */
static void cell_key(const struct report *r, const struct report_cell *c,
		     const size_t *dims, size_t nd, long *key)
{
	size_t k;

	for (k = 0; k < nd; k++)
		key[k] = report_axis_value_index(r, dims[k], c);
}

/* Is A (with none where B has a value) covered by B? */
static bool covered(const long *a, const long *b, size_t nd)
{
	bool less = false;
	size_t k;

	for (k = 0; k < nd; k++) {
		if (a[k] >= 0 && a[k] != b[k])
			return false;
		if (a[k] < 0 && b[k] >= 0)
			less = true;
	}
	return less;
}

/* Compare keys in axis order (the nesting of the ids), none last. */
static int key_cmp(const long *a, const long *b, const size_t *dims, size_t nd)
{
	size_t i, k, best = 0;
	size_t prev = 0;
	bool any = false;

	/* Visit the dims by ascending axis index (they are distinct). */
	for (i = 0; i < nd; i++) {
		bool found = false;

		for (k = 0; k < nd; k++)
			if ((!any || dims[k] > prev) &&
			    (!found || dims[k] < dims[best])) {
				best = k;
				found = true;
			}
		prev = dims[best];
		any = true;
		if (a[best] != b[best]) {
			long x = a[best] < 0 ? LONG_MAX : a[best];
			long y = b[best] < 0 ? LONG_MAX : b[best];

			return x < y ? -1 : 1;
		}
	}
	return 0;
}

/*
 * The distinct keys of the cells over DIMS, those covered by another
 * dropped, sorted in axis order: *KEYS (owned) holds n * ND values.
 */
static size_t collect_keys(const struct report *r, const size_t *dims,
			   size_t nd, long **keys)
{
	size_t stride = nd ? nd : 1, n = 0, i, j;
	long *k = xcalloc((r->ncells + 1) * stride, sizeof(*k)), *t;

	t = xcalloc(stride, sizeof(*t));
	for (i = 0; i < r->ncells; i++) {
		cell_key(r, &r->cells[i], dims, nd, &k[n * stride]);
		for (j = 0; j < n; j++)
			if (!memcmp(&k[j * stride], &k[n * stride],
				    nd * sizeof(*k)))
				break;
		if (j == n)
			n++;
	}
	for (i = 0; i < n;) {
		for (j = 0; j < n; j++)
			if (j != i &&
			    covered(&k[i * stride], &k[j * stride], nd))
				break;
		if (j < n) {
			memmove(&k[i * stride], &k[(i + 1) * stride],
				(n - i - 1) * stride * sizeof(*k));
			n--;
		} else {
			i++;
		}
	}
	for (i = 1; i < n; i++)
		for (j = i;
		     j > 0 && key_cmp(&k[j * stride], &k[(j - 1) * stride],
				      dims, nd) < 0;
		     j--) {
			memcpy(t, &k[j * stride], stride * sizeof(*t));
			memcpy(&k[j * stride], &k[(j - 1) * stride],
			       stride * sizeof(*t));
			memcpy(&k[(j - 1) * stride], t, stride * sizeof(*t));
		}
	free(t);
	*keys = k;
	return n;
}

/* Does cell key C fall in the slot KEY (C lacks an axis: any value)? */
static bool key_match(const long *c, const long *key, size_t nd)
{
	size_t k;

	for (k = 0; k < nd; k++)
		if (c[k] >= 0 && c[k] != key[k])
			return false;
	return true;
}

/* "bare metal" (r->host_word), "vcpus=2", "host-thp=never, vcpus=4"; "-"
 * for none. */
static char *combo_label(const struct report *r, const size_t *dims, size_t nd,
			 const long *key)
{
	char *s = xstrdup(""), *t;
	size_t k;

	for (k = 0; k < nd; k++) {
		const struct report_axis *a = &r->axes[dims[k]];
		const char *v;

		if (key[k] < 0)
			continue;
		v = a->values[key[k]];
		if (!strcmp(a->name, AXIS_NAME_WHERE))
			t = xasprintf("%s%s%s", s, *s ? ", " : "",
				      !strcmp(v, where_name(WHERE_BARE))
					  ? r->host_word
					  : v);
		else
			t = xasprintf("%s%s%s=%s", s, *s ? ", " : "", a->name,
				      v);
		free(s);
		s = t;
	}
	if (!*s) {
		free(s);
		s = xstrdup("-");
	}
	return s;
}

void report_matrix_release(struct report_matrix *m)
{
	size_t i;

	for (i = 0; m->cols && i < m->ncols; i++)
		free(m->cols[i]);
	free(m->cols);
	free(m->row_axes);
	free(m->col_axes);
	free(m->row_val);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

static bool column_axis(const struct report_axis *a)
{
	const struct vocab_axis *v = vocab_axis_find(a->name);

	return v && v->column;
}

static void default_columns(const struct report *r, struct report_matrix *m)
{
	size_t i, j;

	m->cols = xcalloc(r->ncells + 1, sizeof(*m->cols));
	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].bare_metal) {
			m->cols[m->ncols++] = xstrdup(r->host_word);
			break;
		}
	for (i = 0; i < r->ncells; i++) {
		if (r->cells[i].bare_metal)
			continue;
		for (j = 0; j < m->ncols; j++)
			if (!strcmp(m->cols[j], r->cells[i].column))
				break;
		if (j == m->ncols)
			m->cols[m->ncols++] = xstrdup(r->cells[i].column);
	}
}

/*
 * M's row and column axes: as asked (ROWS, COLS), else guest-thp and
 * host-thp as rows; then every other axis that varies and is not a column
 * folded into the row label.
 */
static int matrix_axes(const struct report *r, struct report_matrix *m,
		       const char *rows, const char *cols)
{
	size_t k;
	int ret;

	m->row_axes = xcalloc(r->naxes + 1, sizeof(*m->row_axes));
	m->col_axes = xcalloc(r->naxes + 1, sizeof(*m->col_axes));
	m->default_cols = !cols;
	if (cols) {
		ret = parse_dims(r, cols, m->col_axes, &m->ncol_axes, NULL, 0);
		if (ret < 0)
			return ret;
	}
	if (rows) {
		ret = parse_dims(r, rows, m->row_axes, &m->nrow_axes,
				 m->col_axes, m->ncol_axes);
		if (ret < 0)
			return ret;
	} else {
		static const char *const defaults[] = {AXIS_NAME_GUEST_THP,
						       AXIS_NAME_HOST_THP};

		for (k = 0; k < ARRAY_SIZE(defaults); k++) {
			long a = report_find_axis(r, defaults[k]);

			if (a >= 0 &&
			    !has_dim(m->col_axes, m->ncol_axes, (size_t)a))
				m->row_axes[m->nrow_axes++] = (size_t)a;
		}
	}
	/* The other axes that vary are folded into the row label. */
	for (k = 0; k < r->naxes; k++)
		if (r->axes[k].nvalues > 1 &&
		    !has_dim(m->row_axes, m->nrow_axes, k) &&
		    !has_dim(m->col_axes, m->ncol_axes, k) &&
		    !(m->default_cols && column_axis(&r->axes[k])))
			m->row_axes[m->nrow_axes++] = k;
	return 0;
}

/* The rows: one per combination of the row axes' values (*RKEYS). */
static void matrix_rows(const struct report *r, struct report_matrix *m,
			long **rkeys)
{
	size_t row, k, nr = collect_keys(r, m->row_axes, m->nrow_axes, rkeys);

	m->nrows = nr;
	m->row_val = xcalloc(nr * m->nrow_axes + 1, sizeof(*m->row_val));
	for (row = 0; row < nr; row++)
		for (k = 0; k < m->nrow_axes; k++) {
			long v = (*rkeys)[row * m->nrow_axes + k];

			m->row_val[row * m->nrow_axes + k] =
			    v < 0 ? "" : r->axes[m->row_axes[k]].values[v];
		}
}

/* The columns: the default ones, else one per combination (*CKEYS). */
static void matrix_cols(const struct report *r, struct report_matrix *m,
			long **ckeys)
{
	size_t col, nc;

	if (m->default_cols) {
		default_columns(r, m);
		return;
	}
	nc = collect_keys(r, m->col_axes, m->ncol_axes, ckeys);
	m->ncols = nc;
	m->cols = xcalloc(nc + 1, sizeof(*m->cols));
	for (col = 0; col < nc; col++)
		m->cols[col] = combo_label(r, m->col_axes, m->ncol_axes,
					   &(*ckeys)[col * m->ncol_axes]);
}

/* Each slot of M: the first cell of its row and column, else -1. */
static void matrix_place(const struct report *r, struct report_matrix *m,
			 const long *rkeys, const long *ckeys)
{
	long *rk = xcalloc(m->nrow_axes + 1, sizeof(*rk));
	long *ck = xcalloc(m->ncol_axes + 1, sizeof(*ck));
	size_t i, row, col;

	m->slot = xcalloc(m->nrows * m->ncols + 1, sizeof(*m->slot));
	for (i = 0; i < m->nrows * m->ncols; i++)
		m->slot[i] = -1;
	for (i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		cell_key(r, c, m->row_axes, m->nrow_axes, rk);
		cell_key(r, c, m->col_axes, m->ncol_axes, ck);
		for (row = 0; row < m->nrows; row++) {
			if (!key_match(rk, &rkeys[row * m->nrow_axes],
				       m->nrow_axes))
				continue;
			for (col = 0; col < m->ncols; col++) {
				long *slot = &m->slot[row * m->ncols + col];

				if (m->default_cols
					? strcmp(m->cols[col], c->column)
					: !key_match(ck,
						     &ckeys[col * m->ncol_axes],
						     m->ncol_axes))
					continue;
				if (*slot < 0)
					*slot = (long)i;
			}
		}
	}
	free(rk);
	free(ck);
}

int report_set_matrix(struct report *r, const char *rows, const char *cols)
{
	struct report_matrix m = {0};
	long *rkeys = NULL, *ckeys = NULL;
	int ret;

	ret = matrix_axes(r, &m, rows, cols);
	if (ret < 0)
		goto out;
	matrix_rows(r, &m, &rkeys);
	matrix_cols(r, &m, &ckeys);
	matrix_place(r, &m, rkeys, ckeys);
	report_matrix_release(&r->matrix);
	r->matrix = m;
	memset(&m, 0, sizeof(m));
	ret = 0;
out:
	report_matrix_release(&m);
	free(rkeys);
	free(ckeys);
	return ret;
}

static void line_add(struct report_scaling_line *l, double x, const char *value,
		     long cell)
{
	size_t j;

	l->points = xrealloc(l->points, (l->npoints + 1) * sizeof(*l->points));
	for (j = l->npoints; j > 0 && l->points[j - 1].x > x; j--)
		l->points[j] = l->points[j - 1];
	l->points[j].x = x;
	l->points[j].value = value;
	l->points[j].cell = cell;
	l->npoints++;
}

static void build_one(struct report *r, size_t axis)
{
	const struct report_axis *a = &r->axes[axis];
	struct report_scaling *s;
	size_t *dims = xcalloc(r->naxes, sizeof(*dims)), nd = 0, i, k, n;
	long *keys = NULL, *ck;

	/* The other axes that vary among the cells that have AXIS. */
	for (k = 0; k < r->naxes; k++) {
		long first = -2;
		bool varies = false;

		if (k == axis)
			continue;
		for (i = 0; i < r->ncells; i++) {
			long v;

			if (!r->cells[i].axv[axis])
				continue;
			v = report_axis_value_index(r, k, &r->cells[i]);
			if (first == -2)
				first = v;
			else if (v != first)
				varies = true;
		}
		if (varies)
			dims[nd++] = k;
	}
	ck = xcalloc(nd + 1, sizeof(*ck));
	n = collect_keys(r, dims, nd, &keys);
	r->scaling =
	    xrealloc(r->scaling, (r->nscaling + 1) * sizeof(*r->scaling));
	s = &r->scaling[r->nscaling++];
	memset(s, 0, sizeof(*s));
	s->axis = axis;
	s->lines = xcalloc(n + 1, sizeof(*s->lines));
	for (k = 0; k < n; k++) {
		struct report_scaling_line *l = &s->lines[s->nlines];

		for (i = 0; i < r->ncells; i++) {
			const struct report_cell *c = &r->cells[i];
			long v = report_axis_value_index(r, axis, c);

			cell_key(r, c, dims, nd, ck);
			if (v < 0 || memcmp(ck, &keys[k * (nd ? nd : 1)],
					    nd * sizeof(*ck)))
				continue;
			line_add(l, a->numbers[v], a->values[v], (long)i);
		}
		if (!l->npoints)
			continue;
		l->label = nd ? combo_label(r, dims, nd, &keys[k * nd])
			      : xstrdup("all");
		s->nlines++;
	}
	free(keys);
	free(ck);
	free(dims);
}

void report_build_scaling(struct report *r)
{
	size_t k;

	for (k = 0; k < r->naxes; k++)
		if (r->axes[k].numeric && r->axes[k].nvalues > 1)
			build_one(r, k);
}

void report_scaling_free(struct report *r)
{
	size_t i, j;

	for (i = 0; i < r->nscaling; i++) {
		for (j = 0; j < r->scaling[i].nlines; j++) {
			free(r->scaling[i].lines[j].label);
			free(r->scaling[i].lines[j].points);
		}
		free(r->scaling[i].lines);
	}
	free(r->scaling);
}
