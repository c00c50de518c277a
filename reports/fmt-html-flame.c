// SPDX-License-Identifier: MIT
/*
 * The HTML report's flame graphs (format.h, fmt_html_profile): for each
 * profiled cell an inline SVG flame graph of its folded stacks (root at the
 * bottom, width = share of samples) and, against the baseline, the same
 * graph coloured by how much each frame's share (with its children, scaled
 * by the cell's slowdown as in profile-diff.h) grew (red) or shrank (blue).
 * No script: each frame's <title> is its tooltip.
 *
 * The tree holds only what is drawn (caps.h, FLAME_MIN_SHARE_PPM and
 * FLAME_ROWS_MAX): a frame under FLAME_MIN_SHARE_PPM of the samples (0.3 px
 * of the 1000 px graph) is never made, nor anything under it or below row
 * FLAME_ROWS_MAX; its samples still count in its parents' widths, and a
 * note under the graph says how many frames were left out.  So a tree has
 * at most FLAME_ROWS_MAX * 1e6 / FLAME_MIN_SHARE_PPM nodes (213,333)
 * whatever the profile: 30,000 stacks of 1,022 frames no longer make 30
 * million.  The report's graphs draw at most FLAME_REPORT_FRAMES_MAX
 * frames in all (every cell can name the same profile); a graph past it
 * is a note.  A baseline's tree, for the differential graph, is built
 * only where the cell's has frames, whatever their width there.
 */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "util.h"

#define WIDTH 1000.0
#define ROW 16

struct node {
	char *name;
	uint64_t count;
	uint64_t skip; /* the samples of the kids left out just before it */
	struct node *kids;
	size_t nkids, cap;
};

/* Whether COUNT of TOTAL samples is wide enough to draw. */
static bool drawn(uint64_t count, uint64_t total)
{
	return (double)count * 1e6 >= (double)total * FLAME_MIN_SHARE_PPM;
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

/* The frames of Y that X shares (X and Y distinct stacks), and Y's own. */
static size_t frames_shared(const char *x, const char *y, size_t *own)
{
	size_t shared = 0, n = 1;

	for (const char *s = y; *s; s++)
		n += *s == ';';
	*own = n;
	for (; *x && *x == *y; x++, y++)
		if (*y == ';')
			shared++;
	/* the frame they were in ends here in both: shared too */
	if ((*x == ';' || !*x) && (*y == ';' || !*y))
		shared++;
	return shared;
}

/* N's kid NAME (LEN bytes), or NULL: kids are in name order. */
static const struct node *find_kid(const struct node *n, const char *name,
				   size_t len)
{
	size_t lo = 0, hi = n ? n->nkids : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *k = n->kids[mid].name;
		int c = strncmp(k, name, len);

		if (!c)
			c = k[len] ? 1 : 0;
		if (!c)
			return &n->kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The profile's stacks in frame order, as tree_add() walks them. */
struct walk {
	const struct profile_stack **v;
	const char **at; /* each stack's next frame ("": it has no more) */
	uint64_t *sum;	 /* sum[i]: the samples of v[0..i-1] */
	uint64_t total;
};

/*
 * Under N (at DEPTH, the stacks LO..HI-1 of W), a kid for each next frame
 * that is drawn, and recursively under it; with GUIDE (the same place in
 * another tree), the kids GUIDE has instead, however narrow.
 */
static void tree_add(struct walk *w, struct node *n, size_t lo, size_t hi,
		     size_t depth, const struct node *guide)
{
	size_t i = lo, j, len;
	uint64_t skip = 0;

	/* the stacks that end at N come first (frame_byte('\0') is least) */
	while (i < hi && !*w->at[i])
		i++;
	for (; i < hi; i = j) {
		const char *f = w->at[i];
		const struct node *g = NULL;
		struct node *k;

		len = strcspn(f, ";");
		for (j = i + 1; j < hi && !strncmp(w->at[j], f, len) &&
				(w->at[j][len] == ';' || !w->at[j][len]);
		     j++)
			;
		if (guide ? !(g = find_kid(guide, f, len))
			  : depth + 1 >= FLAME_ROWS_MAX ||
				!drawn(w->sum[j] - w->sum[i], w->total)) {
			skip += w->sum[j] - w->sum[i];
			continue;
		}
		if (n->nkids == n->cap) {
			n->cap = n->cap ? n->cap * 2 : 4;
			n->kids = xrealloc(n->kids, n->cap * sizeof(*n->kids));
		}
		k = &n->kids[n->nkids++];
		memset(k, 0, sizeof(*k));
		k->name = xstrndup(f, len);
		k->count = w->sum[j] - w->sum[i];
		k->skip = skip;
		skip = 0;
		for (size_t s = i; s < j; s++)
			w->at[s] += len + (w->at[s][len] == ';');
		tree_add(w, k, i, j, depth + 1, g);
	}
}

/*
 * P's tree of what is drawn into ROOT (only where GUIDE, when not NULL,
 * has a frame: a baseline's tree to compare with), and how many of the
 * profile's frames (the distinct places in its call tree) there are into
 * *FRAMES.  Linear in the frames it keeps, after a sort.
 */
static void tree_build(struct node *root, const struct profile *p,
		       const struct node *guide, size_t *frames)
{
	struct walk w = {xcalloc(p->nstacks + 1, sizeof(*w.v)),
			 xcalloc(p->nstacks + 1, sizeof(*w.at)),
			 xcalloc(p->nstacks + 1, sizeof(*w.sum)), 0};

	memset(root, 0, sizeof(*root));
	root->name = xstrdup("all");
	for (size_t i = 0; i < p->nstacks; i++)
		w.v[i] = &p->stacks[i];
	qsort(w.v, p->nstacks, sizeof(*w.v), by_frames);
	*frames = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t own = 0,
		       shared = i ? frames_shared(w.v[i - 1]->stack,
						  w.v[i]->stack, &own)
				  : frames_shared("", w.v[i]->stack, &own);

		*frames += own - shared;
		w.at[i] = w.v[i]->stack;
		w.sum[i + 1] = w.sum[i] + w.v[i]->count;
	}
	w.total = root->count = w.sum[p->nstacks];
	tree_add(&w, root, 0, p->nstacks, 0, guide);
	free(w.v);
	free(w.at);
	free(w.sum);
}

/* The nodes of N's tree, N's own excepted. */
static size_t tree_size(const struct node *n)
{
	size_t k = n->nkids;

	for (size_t i = 0; i < n->nkids; i++)
		k += tree_size(&n->kids[i]);
	return k;
}

static void tree_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		tree_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

/* Rows of the tree (every node of which is drawn). */
static size_t tree_depth(const struct node *n)
{
	size_t d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		size_t k = tree_depth(&n->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
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
		const struct node *k = &n->kids[i];

		x += WIDTH * (double)k->skip / f->total;
		frame(f, k, find_kid(base, k->name, strlen(k->name)), depth + 1,
		      x);
		x += WIDTH * (double)k->count / f->total;
	}
}

static void svg(FILE *out, const char *cls, const struct node *root,
		const struct node *base, double k, bool diff)
{
	struct flame f = {
	    out, (double)root->count, base ? (double)base->count : 0, k, 0,
	    diff};

	f.rows = tree_depth(root);
	fprintf(out,
		"<svg class=\"%s\" "
		"width=\"%.0f\" height=\"%zu\" viewBox=\"0 0 %.0f %zu\">\n",
		cls, WIDTH, f.rows * ROW, WIDTH, f.rows * ROW);
	frame(&f, root, base, 0, 0);
	fprintf(out, "</svg>\n");
}

/* What the graph of ROOT, of FRAMES frames in all, leaves out. */
static void pruned_note(FILE *out, const struct node *root, size_t frames)
{
	size_t kept = tree_size(root);

	if (kept >= frames)
		return;
	fprintf(out,
		"<p class=\"na flame-pruned\">%zu of %zu frames are not "
		"drawn (each under %.2f%% of the samples, or deeper than %d "
		"rows): their samples are in their callers' widths.</p>\n",
		frames - kept, frames, FLAME_MIN_SHARE_PPM / 1e4,
		FLAME_ROWS_MAX);
}

/*
 * ROOT's graph (CLS; against BASE when DIFF) when *LEFT frames may still
 * be drawn, else a note.  Whether it was drawn.
 */
static bool svg_within(FILE *out, const char *cls, const struct node *root,
		       const struct node *base, double k, bool diff,
		       size_t *left)
{
	size_t n = tree_size(root) + 1;

	if (n > *left) {
		fprintf(out,
			"<p class=\"na flame-budget\">Graph not drawn: its %zu "
			"frames would take the report's graphs over %d frames "
			"(FLAME_REPORT_FRAMES_MAX).</p>\n",
			n, FLAME_REPORT_FRAMES_MAX);
		return false;
	}
	*left -= n;
	svg(out, cls, root, base, k, diff);
	return true;
}

void fmt_html_profile(const struct report *r, const struct report_cell *c,
		      size_t *left, FILE *out)
{
	const struct report_cell *b =
	    r->baseline >= 0 ? &r->cells[r->baseline] : NULL;
	struct node root, base;
	size_t frames, base_frames;
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
	tree_build(&root, c->prof.p, NULL, &frames);
	if (svg_within(out, "flame", &root, NULL, 1, false, left))
		pruned_note(out, &root, frames);
	if (c->prof.has_diff && b && b->prof.present) {
		tree_build(&base, b->prof.p, &root, &base_frames);
		fprintf(out, "<p>Against the baseline: ");
		fmt_html_escape(out, fmt_profile_oneline(buf, sizeof(buf), c));
		fprintf(out, " (red grew, blue shrank)</p>\n");
		svg_within(out, "flame-diff", &root, &base,
			   1 + c->prof.diff.slowdown, true, left);
		tree_free(&base);
	}
	tree_free(&root);
}
