// SPDX-License-Identifier: MIT
/*
 * The HTML report's flame graphs (format.h, fmt_html_profile): for each
 * profiled cell an inline SVG flame graph of its folded stacks (root at the
 * bottom, width = share of samples) and, against the baseline, the same
 * graph coloured by how much each frame's share (with its children, scaled
 * by the cell's slowdown as in profile-diff.h) grew (red) or shrank (blue).
 * No script: each frame's <title> is its tooltip.  Frames narrower than
 * MIN_PX are not drawn (their samples still count in their parents).
 */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define WIDTH 1000.0
#define ROW 16
#define MIN_PX 0.3
#define MAX_ROWS 64

struct node {
	char *name;
	uint64_t count;
	struct node *kids;
	size_t nkids, cap;
};

/*
 * N's kid NAME (LEN bytes), added when new.  The stacks come in frame
 * order (by_frames()), so a kid already there is the last one added: no
 * search, and a profile of a million distinct stacks builds in linear time.
 */
static struct node *child(struct node *n, const char *name, size_t len)
{
	struct node *last = n->nkids ? &n->kids[n->nkids - 1] : NULL;

	if (last && !strncmp(last->name, name, len) && !last->name[len])
		return last;
	if (n->nkids == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 4;
		n->kids = xrealloc(n->kids, n->cap * sizeof(*n->kids));
	}
	memset(&n->kids[n->nkids], 0, sizeof(*n->kids));
	n->kids[n->nkids].name = xstrndup(name, len);
	return &n->kids[n->nkids++];
}

/* A frame's byte for ordering: ';' (a frame's end) before every other. */
static int frame_byte(unsigned char c)
{
	return c == ';' ? 1 : c ? c + 1 : 0;
}

/*
 * Stacks in frame order: those that share their first K frames are
 * adjacent, and the frames at each depth come in strcmp() order of their
 * names, the order the graph draws them in.
 */
static int by_frames(const void *a, const void *b)
{
	const unsigned char *x =
	    (const unsigned char *)(*(const struct profile_stack *const *)a)
		->stack;
	const unsigned char *y =
	    (const unsigned char *)(*(const struct profile_stack *const *)b)
		->stack;

	for (; *x && *x == *y; x++, y++)
		;
	return frame_byte(*x) - frame_byte(*y);
}

static void tree_build(struct node *root, const struct profile *p)
{
	const struct profile_stack **v = xcalloc(p->nstacks + 1, sizeof(*v));

	memset(root, 0, sizeof(*root));
	root->name = xstrdup("all");
	for (size_t i = 0; i < p->nstacks; i++)
		v[i] = &p->stacks[i];
	qsort(v, p->nstacks, sizeof(*v), by_frames);
	for (size_t i = 0; i < p->nstacks; i++) {
		const char *s = v[i]->stack;
		struct node *n = root;

		root->count += v[i]->count;
		while (*s) {
			const char *e = strchr(s, ';');
			size_t len = e ? (size_t)(e - s) : strlen(s);

			n = child(n, s, len);
			n->count += v[i]->count;
			s = e ? e + 1 : s + len;
		}
	}
	free(v);
}

static void tree_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		tree_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct node *)a)->name,
		      ((const struct node *)b)->name);
}

/* Rows of frames at least MIN samples wide. */
static size_t tree_depth(const struct node *n, double min)
{
	size_t d = 0;

	if ((double)n->count < min)
		return 0;
	for (size_t i = 0; i < n->nkids; i++) {
		size_t k = tree_depth(&n->kids[i], min);

		if (k > d)
			d = k;
	}
	return d + 1;
}

/* N's kid NAME, or NULL: kids are in name order (tree_build()). */
static const struct node *find_kid(const struct node *n, const char *name)
{
	struct node key = {.name = (char *)name};

	if (!n || !n->nkids)
		return NULL;
	return bsearch(&key, n->kids, n->nkids, sizeof(*n->kids), by_name);
}

struct flame {
	FILE *out;
	double total;	   /* the cell's samples */
	double base_total; /* the baseline's, for the diff */
	double k;	   /* 1 + slowdown */
	size_t rows;	   /* drawn rows */
	bool diff;
};

/* A warm colour from the name, as flame graphs do (stable per name). */
static void warm(const char *name, char *buf, size_t len)
{
	unsigned h = 0;

	for (const char *s = name; *s; s++)
		h = h * 31 + (unsigned char)*s;
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50, 80 + (h >> 8) % 130,
		 40 + (h >> 16) % 50);
}

/* Red for a share that grew, blue for one that shrank, by DELTA. */
static void diff_colour(double delta, char *buf, size_t len)
{
	double t = fmin(fabs(delta) / 0.2, 1.0); /* 20 points: full */
	unsigned v = (unsigned)(235 - 175 * t);

	if (delta >= 0)
		snprintf(buf, len, "rgb(245,%u,%u)", v, v);
	else
		snprintf(buf, len, "rgb(%u,%u,245)", v, v);
}

static void frame(struct flame *f, const struct node *n,
		  const struct node *base, size_t depth, double x)
{
	double w = WIDTH * (double)n->count / f->total;
	double share = (double)n->count / f->total, bshare, delta = 0;
	char fill[48];
	double y;

	if (w < MIN_PX || depth >= MAX_ROWS)
		return;
	y = (double)(f->rows - 1 - depth) * ROW;
	bshare = base && f->base_total > 0 ? base->count / f->base_total : 0;
	if (f->diff) {
		delta = share * f->k - bshare;
		diff_colour(delta, fill, sizeof(fill));
	} else {
		warm(n->name, fill, sizeof(fill));
	}
	fprintf(f->out, "<g class=\"frame\"><title>");
	fmt_html_escape(f->out, n->name);
	fprintf(f->out, " (%llu samples, %.2f%%", (unsigned long long)n->count,
		share * 100);
	if (f->diff)
		fprintf(f->out, "; baseline %.2f%%, contribution %+.2f%%",
			bshare * 100, delta * 100);
	fprintf(
	    f->out,
	    ")</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
	    "height=\"%d\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
	    x, y, w, ROW - 1, fill);
	if (w > 24) {
		size_t chars = (size_t)((w - 6) / 6.5), len = strlen(n->name);
		char *label = xstrndup(n->name, chars < len ? chars : len);

		fprintf(f->out,
			"<text x=\"%.2f\" y=\"%.0f\" font-size=\"11\" "
			"font-family=\"monospace\">",
			x + 3, y + ROW - 4);
		fmt_html_escape(f->out, label);
		if (chars < len)
			fprintf(f->out, "..");
		fprintf(f->out, "</text>");
		free(label);
	}
	fprintf(f->out, "</g>\n");
	for (size_t i = 0; i < n->nkids; i++) {
		frame(f, &n->kids[i], find_kid(base, n->kids[i].name),
		      depth + 1, x);
		x += WIDTH * (double)n->kids[i].count / f->total;
	}
}

static void svg(FILE *out, const char *cls, const struct node *root,
		const struct node *base, double k, bool diff)
{
	struct flame f = {
	    out, (double)root->count, base ? (double)base->count : 0, k, 0,
	    diff};

	f.rows = tree_depth(root, f.total * MIN_PX / WIDTH);
	if (f.rows > MAX_ROWS)
		f.rows = MAX_ROWS;
	fprintf(out,
		"<svg class=\"%s\" "
		"width=\"%.0f\" height=\"%zu\" viewBox=\"0 0 %.0f %zu\">\n",
		cls, WIDTH, f.rows * ROW, WIDTH, f.rows * ROW);
	frame(&f, root, base, 0, 0);
	fprintf(out, "</svg>\n");
}

void fmt_html_profile(const struct report *r, const struct report_cell *c,
		      FILE *out)
{
	const struct report_cell *b =
	    r->baseline >= 0 ? &r->cells[r->baseline] : NULL;
	struct node root, base;
	char buf[1024];

	if (!r->has_profile)
		return;
	fprintf(out, "<h3 class=\"profile\" data-id=\"");
	fmt_html_escape(out, c->id);
	fprintf(out, "\">Profile: ");
	fmt_html_escape(out, c->label);
	fprintf(out, "</h3>\n<p>");
	fmt_html_escape(out, fmt_profile_summary(buf, sizeof(buf), c));
	fprintf(out, "</p>\n");
	if (!c->prof.present)
		return;
	tree_build(&root, c->prof.p);
	svg(out, "flame", &root, NULL, 1, false);
	if (c->prof.has_diff && b && b->prof.present) {
		tree_build(&base, b->prof.p);
		fprintf(out, "<p>Against the baseline: ");
		fmt_html_escape(out, fmt_profile_oneline(buf, sizeof(buf), c));
		fprintf(out, " (red grew, blue shrank)</p>\n");
		svg(out, "flame-diff", &root, &base, 1 + c->prof.diff.slowdown,
		    true);
		tree_free(&base);
	}
	tree_free(&root);
}
