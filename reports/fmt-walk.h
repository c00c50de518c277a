/* SPDX-License-Identifier: MIT */
/*
 * fmt-walk.h - one view of a report's tables, built from the model once
 * and written by each format in its own syntax.
 *
 * The text, Markdown and HTML reports show the same tables: the slowdown
 * matrix, a scaling table per numeric axis, the cells, how they sampled,
 * their counters, and a guest cell's exits by reason.  fmt_walk_*_new()
 * walks the model for one of them and returns a struct fmt_table: its
 * column headings and alignment, and its rows of cells, each cell's text
 * already formatted (fmt_num(), fmt_pct(), ... of format.h) with what it
 * is (a number of vmtax's own, a value the PMU lacks, a cell not
 * measured).  A format then writes the table - md_table() in fmt-md.c,
 * html_table() in fmt-html.c, text_table() in fmt-text.c - and decides
 * nothing but its syntax, so a new format that shows these tables writes
 * one such function and walks no cell itself.
 *
 * Strings in a table are owned by it and not escaped: a format writes
 * every one through its own escape (format.h, "Escaping"), but for a cell
 * marked FMT_CELL_RAW, which it may write as it is.  The tables own their
 * strings; fmt_table_free(NULL) does nothing.
 */
#ifndef VMTAX_FMT_WALK_H
#define VMTAX_FMT_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "util.h"

/* What a cell is; a cell without flags is text from the results file. */
enum {
	/*
	 * vmtax's own: made from numbers and fixed words, never from the
	 * results file ("12.71%", "<0.0001", "<not supported>"), so a format
	 * may write it without its escape (HTML writes "<0.0001" as it is,
	 * but an FMT_CELL_NA one escaped).
	 */
	FMT_CELL_RAW = 1 << 0,
	/* No value: "<not supported>", "<not counted>" (Markdown writes it
	 * as code, HTML with class "na"). */
	FMT_CELL_NA = 1 << 1,
	/*
	 * Not measured: the cells after it in its row are empty.  A format
	 * that can span cells shows it across them, with its note after ": "
	 * ("failed: boot timed out"); the others show its text alone.
	 */
	FMT_CELL_SKIP = 1 << 2,
};

struct fmt_cell {
	char *text; /* "" when empty, never NULL */
	/* NULL, or what follows the text: perf stat's figure after a
	 * counter ("0.998 CPUs utilized"), a skipped cell's reason */
	char *note;
	unsigned flags;
};

struct fmt_table {
	size_t ncols, nrows;
	char **head;   /* ncols headings; NULL: a column without one */
	bool *right;   /* ncols: right-aligned (numbers) */
	char **row_id; /* nrows: the row's cell id (HTML data-id), or NULL */
	struct fmt_cell *cells; /* nrows * ncols, row by row */
};

/* An empty table of NCOLS columns; fmt_table_free() frees it. */
struct fmt_table *fmt_table_new(size_t ncols);
void fmt_table_free(struct fmt_table *t);
/* Column COL's heading (NULL: none) and alignment. */
void fmt_table_col(struct fmt_table *t, size_t col, const char *head,
		   bool right);
/* A new row, every cell "", with the cell id ID (or NULL); its index. */
size_t fmt_table_row(struct fmt_table *t, const char *id);
/* Cell ROW, COL: FLAGS and the text FMT ...; fmt_table_note() its note. */
void fmt_table_set(struct fmt_table *t, size_t row, size_t col, unsigned flags,
		   const char *fmt, ...) VMTAX_PRINTF(5, 6);
void fmt_table_note(struct fmt_table *t, size_t row, size_t col,
		    const char *note);
const struct fmt_cell *fmt_table_cell(const struct fmt_table *t, size_t row,
				      size_t col);

/*
 * The tables of report R (owned; each is the same for every format):
 * - matrix: a column per row axis (its heading, left), then one per
 *   matrix column (right), fmt_row_value() and fmt_matrix_slot();
 * - scaling S: "line" then "AXIS=VALUE" per value, fmt_scaling_entry();
 * - cells: cell, n, METRIC (UNIT), ±, 95% CI, real, user, sys (s),
 *   slowdown, 95% interval, p and the significance mark, a row per cell
 *   with its id; a cell without ok samples has its status as a
 *   FMT_CELL_SKIP with fmt_reason() as note;
 * - sampling: cell, stopped, boots, outliers, trend, a row per cell with
 *   fmt_sampling_shown(), or NULL when none has;
 * - counters: cell, perf stat's value of each counter ("V" or "V (±S%)",
 *   its figure as note, FMT_CELL_NA for one without), IPC and the dTLB
 *   miss rate, a row per cell with ok samples;
 * - kvm K: exit reason, per sample, share of the FMT_KVM_TOP first.
 */
struct fmt_table *fmt_walk_matrix_new(const struct report *r);
struct fmt_table *fmt_walk_scaling_new(const struct report *r,
				       const struct report_scaling *s);
struct fmt_table *fmt_walk_cells_new(const struct report *r);
struct fmt_table *fmt_walk_sampling_new(const struct report *r);
struct fmt_table *fmt_walk_counters_new(const struct report *r);
struct fmt_table *fmt_walk_kvm_new(const struct report_kvm *k);

#endif
