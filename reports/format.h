/* SPDX-License-Identifier: MIT */
/*
 * format.h - the report formatters and the helpers they share.
 *
 * A format is a const struct report_format in its own file (fmt-NAME.c),
 * named once in REPORT_FORMATS below, the list that declares it, fills the
 * registry report_formats[] (reports/report.c), and gives 'vmtax report
 * --help', the unknown-format error, the shell completion ('vmtax
 * --complete formats') and the man pages (the Makefile's @FORMATS@) their
 * list.  It renders a finished model (struct report, struct compare) and
 * computes nothing but presentation: every number and label comes from the
 * model, so all formats agree.  The tables most formats show (matrix,
 * scaling, cells, sampling, counters, exits by reason) come already
 * formatted from one view of the model (fmt-walk.h); a format writes that
 * view in its own syntax.  render_compare may be NULL when a format cannot
 * show comparisons.
 *
 * How to add one (docs/reports.md, "Adding a format"): write fmt-NAME.c
 * defining
 *	const struct report_format report_format_NAME = { "NAME", ... };
 * and add X(NAME) to REPORT_FORMATS (the Makefile builds every .c file of
 * reports/).
 */
#ifndef VMTAX_FORMAT_H
#define VMTAX_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

#include "compare.h"
#include "model.h"
#include "util.h"

struct report_format {
	const char *name;
	int (*render)(const struct report *r, FILE *out);
	int (*render_compare)(const struct compare *c, FILE *out);
};

/* Every format, in --help order (X(NAME): report_format_NAME); on one
 * line, which the Makefile reads for the man pages. */
#define REPORT_FORMATS(X) X(text) X(md) X(csv) X(json) X(html)

#define REPORT_FORMAT_DECLARE(NAME)                                            \
	extern const struct report_format report_format_##NAME;
REPORT_FORMATS(REPORT_FORMAT_DECLARE)
#undef REPORT_FORMAT_DECLARE

/* The registry, in REPORT_FORMATS order; report_format_find() returns NULL. */
extern const struct report_format *const report_formats[];
extern const size_t report_nformats;
const struct report_format *report_format_find(const char *name);
/* "text|md|csv|json|html" for --help and errors (static storage). */
const char *report_format_names(void);

/*
 * Shared presentation (fmt-common.c).  Each writes into BUF (>= 64 bytes
 * suggested) and returns BUF.  NaN prints as "n/a".
 */
#define FMT_BUF 96
/* "%.3f" or "n/a". */
/* A measurement: "%.3f" below FMT_NUM_FIXED_MAX in magnitude, "%.6g"
 * above (a median of 1e300 is not a 300-digit number). */
#define FMT_NUM_FIXED_MAX 1e12
char *fmt_num(char *buf, size_t len, double x);
/*
 * Counters as perf stat shows them (slot K of r->counter_id[], model.h):
 * fmt_counter_name() is perf's name; fmt_counter_value() the mean, a
 * clock in msec ("1910.90 msec"), a count as it is ("1311"), or
 * "<not supported>" / "<not counted>", never 0; fmt_counter_note() what
 * perf prints after its '#', or "": a clock's "0.998 CPUs utilized", a
 * software event's rate per second of task-clock ("686.060 /sec",
 * "1.234 K/sec"), cycles' "3.123 GHz", instructions' "0.609 IPC",
 * dTLB-load-misses' "0.43% of dTLB-loads".  Raw values stay in csv and
 * json.
 */
const char *fmt_counter_name(const struct report *r, size_t k);
char *fmt_counter_value(char *buf, size_t len, const struct report *r,
			const struct report_cell *c, size_t k);
char *fmt_counter_note(char *buf, size_t len, const struct report *r,
		       const struct report_cell *c, size_t k);
/* A fraction as a percentage with 2 decimals: 0.1271 -> "12.71%". */
char *fmt_pct(char *buf, size_t len, double x);
/* Same, signed: "+12.71%" / "-3.10%". */
char *fmt_spct(char *buf, size_t len, double x);
/* A delta's interval: "[+12.31%, +13.11%]" or "unbounded". */
char *fmt_interval(char *buf, size_t len, const struct stats_delta *d);
/* The same, and where there is none why: "unbounded: too few samples to
 * judge (under 3, no spread)" (a report's own cells; compare rows keep
 * the short form). */
char *fmt_interval_why(char *buf, size_t len, const struct stats_delta *d);
/*
 * Half the interval width, what [run] target measures: "half-width
 * 0.40%", "half-width unbounded", or "" when no delta.  Intervals print as
 * intervals ("[+12.31%, +13.11%]"), never as "±": Fieller's and the paired
 * (log-scale) intervals are asymmetric; "±" is only a standard deviation.
 */
char *fmt_halfwidth(char *buf, size_t len, const struct stats_delta *d);
/* A p value: "0.0312", "<0.0001", or "n/a". */
char *fmt_p(char *buf, size_t len, double p);
/* "*" if significant, "within noise" if a test ran and was not, else "". */
const char *fmt_signif(const struct stats_delta *d);
/*
 * The heading suffix of a cell: "baseline", "slowdown +12.71% [+12.31%,
 * +13.11%] *" (* p < 0.05), "slowdown +0.00%, interval unbounded",
 * "skipped: REASON", "failed: REASON", "no ok samples".
 */
char *fmt_cell_note(char *buf, size_t len, const struct report_cell *c);
/*
 * Sampling (model.h, docs/sampling.md).  fmt_sampling_shown(): the cell
 * has something to say: a stop reason, samples from more than one boot, an
 * outlier or a significant trend (files without these print as before).
 * fmt_stop(): "target met (half-width 1.20%, 12 samples)", "max_repeat
 * reached (half-width 3.10%, 20 samples)", "repeat (3 samples)", ... or ""
 * without one.
 * fmt_outliers(): "samples 3, 7" or "none".  fmt_trend(): "rising, p
 * 0.0210" or "none".  fmt_boots(): "3 boots, sd of the samples within
 * a boot 0.0123, sd of the boot means 0.0345; interval over boot means"
 * (of the metric: the square roots of S1^2, pooled about each boot's mean,
 * and S2^2, which is not the between-boot component T2^2) or "" for one
 * boot.
 */
bool fmt_sampling_shown(const struct report_cell *c);
/* How a paired or bridged interval was made (""): units, df, variance
 * components, the bootstrap's interval. */
char *fmt_iv(char *buf, size_t len, const struct report *r,
	     const struct report_cell *c);
char *fmt_stop(char *buf, size_t len, const struct report_cell *c);
/*
 * A paired or bridged cell that had rounds left out of its pairing for a
 * metric of 0 (docs/sampling.md, "A mean of 0"): "3 of 4 shared rounds
 * paired (1 left out: a metric of 0)", beside the samples counted; ""
 * when none was.
 */
char *fmt_rounds_paired(char *buf, size_t len, const struct report_cell *c);
char *fmt_outliers(char *buf, size_t len, const struct report_cell *c);
char *fmt_trend(char *buf, size_t len, const struct report_cell *c);
char *fmt_boots(char *buf, size_t len, const struct report_cell *c);
/* Why a cell has no data: its reason, "not run yet", or "no reason given". */
const char *fmt_reason(const struct report_cell *c);
/* A matrix entry: "baseline", "12.71%*", "skipped", "failed", "n/a". */
char *fmt_matrix_entry(char *buf, size_t len, const struct report *r,
		       long cell);
/*
 * The matrix table's entry at ROW, COL: the matrix entry with the
 * slowdown's 95% interval in percent, "24.86%* [22.63, 27.09]"
 * (FMT_MATRIX_KEY; "unbounded" when Fieller's is not), or
 * "" where the slot holds the cell of the row above: a cell that fills
 * several rows (bare metal has no guest THP) is shown once, in the first.
 */
char *fmt_matrix_slot(char *buf, size_t len, const struct report *r,
		      size_t row, size_t col);
/* What the matrix's heading says of its entries. */
#define FMT_MATRIX_KEY                                                         \
	"* significant, p < 0.05; [95% interval, in %]; blank: the cell of "  \
	"the row above"
/* What the matrix's closing lines say of a column. */
#define FMT_COLGEO_TITLE                                                       \
	"Geometric mean of (1 + slowdown), minus 1, per column (each cell "    \
	"with a slowdown once, the baseline not)"
/* A column's geometric mean: "24.86% over 3 cells", or "none (...)". */
char *fmt_colgeo(char *buf, size_t len, const struct report_colgeo *g);
/*
 * A scaling point: the slowdown with its interval, "+273.04% [+270.00%,
 * +276.10%]*", or the matrix entry "baseline", "failed", "-" (CELL < 0).
 */
char *fmt_scaling_entry(char *buf, size_t len, const struct report *r,
			long cell);
/* The cell of line L at the axis value VALUE, or -1. */
long fmt_scaling_cell(const struct report_scaling_line *l, const char *value);
/*
 * The run's axes for a header, "where=bare-metal|guest, vcpus=1|2|4"
 * (owned), or NULL for a file without axes of its own (its header stays as
 * it was).
 */
char *fmt_axes_new(const struct report *r);
/* Matrix row ROW's value of its K-th row axis, "-" for none. */
const char *fmt_row_value(const struct report_matrix *m, size_t row, size_t k);
/*
 * For a run inside a lab host (r->lab), the one line every format shows:
 * "TCG-emulated EPYC +svm +npt, 2 vCPUs, 3.0 GiB, kernel K, on HOST (QEMU
 * V): absolute numbers describe emulated hardware" (owned); NULL otherwise.
 */
char *fmt_lab_new(const struct report *r);
/*
 * For guest cells on a remote libvirt (r->remote_libvirt), the one line
 * every format shows (text, md, the html run table, a csv row of kind
 * remote_libvirt, json's remote_libvirt.summary): "guest cells ran on
 * HOSTNAME ('HOST',
 * URI); the host above is the machine that drove them" (owned); NULL
 * otherwise.
 */
char *fmt_remote_libvirt_new(const struct report *r);
/*
 * For a split fleet run on unlike hosts (r->fleet_unlike), the one line the
 * text, Markdown and HTML reports show: "the cells ran on hosts that differ
 * ([fleet] allow_unlike = on): a difference between cells of two hosts is
 * theirs too: 'b' differs from 'a' in cpu_model ('X' vs 'Y'); ..."
 * (owned); NULL otherwise.
 */
char *fmt_fleet_unlike_new(const struct report *r);
/* "lower is better" / "higher is better". */
const char *fmt_better(const struct report *r);
/*
 * Effect compares (compare.h, "Effects"), shared by every format:
 * FMT_EFFECT_TITLE and FMT_EFFECT_LEGEND head it; fmt_effect_run(): "run
 * 'NAME' (PATH): workload W, metric M in U, lower is better, baseline ID"
 * and " (by --baseline; the file's is ID)" when it was moved;
 * fmt_effect_side(): one side's slowdown, "+345.83%", or "baseline (0 by
 * definition)"; fmt_effect_points(): "-225.83 points", "0 by definition"
 * (both baselines) or "n/a"; fmt_effect_ratio(): the same for the ratio,
 * "+1060.76%".  fmt_compare_label(), for any comparison across runs: the
 * row's heading, the label of its cell(s), "A LABEL / B LABEL" when paired
 * cells (--pair) have different labels.
 */
#define FMT_EFFECT_TITLE                                                       \
	"each run's slowdown against its own baseline "                        \
	"(positive = slower, whatever the metric's direction)"
#define FMT_EFFECT_LEGEND                                                      \
	"difference = B - A in percentage points; ratio = (1 + B) / (1 + A) "  \
	"- 1; intervals: 95% by Fieller, each against its run's baseline"
char *fmt_effect_run(char *buf, size_t len, const struct report *r);
char *fmt_effect_side(char *buf, size_t len, bool baseline, double s);
char *fmt_effect_points(char *buf, size_t len, const struct compare_row *row);
char *fmt_effect_ratio(char *buf, size_t len, const struct compare_row *row);
char *fmt_compare_label(char *buf, size_t len, const struct compare_row *row);
/* The line colours of the HTML charts, fmt_ncolors of them. */
extern const char *const fmt_colors[];
extern const size_t fmt_ncolors;
/*
 * The HTML chart of scaling S (fmt-html-scaling.c): slowdown against the
 * axis's value, a polyline per line, a dot and interval whisker per point.
 */
void fmt_html_scaling(const struct report *r, const struct report_scaling *s,
		      FILE *out);
/*
 * The HTML charts of the run (fmt-html-charts.c): the heatmap of the
 * matrix, a bar per cell with a slowdown, and a line per cell with a
 * series (nothing if none has one).
 */
void fmt_html_heatmap(const struct report *r, FILE *out);
void fmt_html_bars(const struct report *r, FILE *out);
void fmt_html_series(const struct report *r, FILE *out);
/*
 * KVM evidence (model.h struct report_kvm).  A format shows it for cell C
 * when fmt_kvm_shown(): the run has evidence somewhere (r->has_kvm), C is
 * a guest cell with ok samples; C then has either evidence or a why.
 * FMT_KVM_TOP exit reasons are listed, and the delta counters
 * fmt_kvm_counters[] per sample.
 */
#define FMT_KVM_TOP 5
extern const char *const fmt_kvm_counters[];
extern const size_t fmt_kvm_ncounters;
bool fmt_kvm_shown(const struct report *r, const struct report_cell *c);
/*
 * "1944.3 exits per sample (svm, 3 samples); at the end 2M pages map
 * 92.13% and 1G pages 0.00% of what KVM mapped (476 4K, 175 2M, 0 1G)";
 * "; mappings n/a" when the page counts are absent.
 */
char *fmt_kvm_summary(char *buf, size_t len, const struct report_kvm *k);
/* "pf_fixed 121.3, pf_taken 121.3, tlb_flush 0.0, invlpg 0.0" or "". */
char *fmt_kvm_counter_list(char *buf, size_t len, const struct report_kvm *k);
/*
 * A comparison's KVM deltas (compare.h struct compare_kvm): "exits per
 * sample 1913.3 -> 3599.0 (+88.10%); 2M share 99.46% -> 90.27% (-9.19
 * points); most changed: PF excp 0.0 -> 1807.0 (+1807.0), ...".
 */
char *fmt_kvm_compare(char *buf, size_t len, const struct compare_kvm *k);
/* A per-sample count: "%.1f", or "n/a". */
char *fmt_count(char *buf, size_t len, double x);
/*
 * The start of an HTML page (fmt-html.c): doctype, title and <h1> TITLE1
 * TITLE2 (escaped), the shared style.  fmt_html_compare() renders a
 * comparison (fmt-html-compare.c).
 */
void fmt_html_begin(FILE *out, const char *title1, const char *title2);
int fmt_html_compare(const struct compare *c, FILE *out);
/*
 * Escaping (fmt-escape.c; docs/security.md, "Reports").  A results file
 * is untrusted: every string from it reaches the output through the one
 * escaping function of the format, and so do the strings we compose from
 * them (labels, reasons, axis values); numbers we format need none.  JSON
 * needs none of ours: jansson escapes every string it writes.
 *
 * fmt_html_escape(): < > & " ' as entities, for text and attributes alike.
 * fmt_md_escape(): a backslash before \ < > & | and backquotes (no tag, no
 * entity, no table cell boundary, no code span can start inside), a
 * newline as a blank, other control characters as "\xNN".
 * fmt_csv_field(): one RFC 4180 field, quoted when it holds , " CR or LF;
 * a field that starts with = + - @ tab or CR gets a leading ' so that no
 * spreadsheet takes it as a formula.  Numbers are never written through it
 * (fmt-csv.c's num()), so "-3.5" stays a number; NULL writes nothing.
 * fmt_text_escape(): control characters as "\xNN" (lib/untrusted.h), so a
 * terminal never runs an escape sequence from a results file.
 */
typedef void (*fmt_escape_fn)(FILE *out, const char *s);
void fmt_html_escape(FILE *out, const char *s);
void fmt_md_escape(FILE *out, const char *s);
void fmt_csv_field(FILE *out, const char *s);
void fmt_text_escape(FILE *out, const char *s);
/*
 * printf to OUT with every %s argument written through ESC (a precision
 * cuts the string before it is escaped; a width pads what was written).
 * The text and Markdown formats print through it, so no string argument
 * can miss its escaping.  Supports what printf does but %n.
 */
void fmt_printf(FILE *out, fmt_escape_fn esc, const char *fmt, ...)
    VMTAX_PRINTF(3, 4);
void fmt_vprintf(FILE *out, fmt_escape_fn esc, const char *fmt, va_list ap);

/*
 * Profiles (fmt-profile.c, fmt-html-flame.c): nothing at all for a run
 * without profiles (r->has_profile false), so older reports stay as they
 * were.  fmt_profile_top() is the K-th of the REPORT_PROFILE_TOP entries of
 * C's differential profile by self (or total) contribution, or NULL.
 */
const struct profile_diff_entry *fmt_profile_top(const struct report_cell *c,
						 bool total, size_t k);
/* "cpu-clock, 2041 samples (17 with [unknown] frames), ..." or "no
 * profile: WHY". */
char *fmt_profile_summary(char *buf, size_t len, const struct report_cell *c);
/* "+24.80% = +9.0% clear_page_erms, +6.1% handle_mm_fault, ..." */
char *fmt_profile_oneline(char *buf, size_t len, const struct report_cell *c);
void fmt_profile_text(const struct report *r, const struct report_cell *c,
		      FILE *out);
void fmt_profile_md(const struct report *r, FILE *out);
json_t *fmt_profile_json(const struct report_cell *c);
/* Rows of kind "profile" (label self:SYM or total:SYM, n the samples,
 * metric the contribution); NCOLS columns in all. */
void fmt_profile_csv(const struct report *r, FILE *out, size_t ncols);
/*
 * A flame graph of C's profile and a differential one vs the baseline
 * (inline SVG, no script).  *LEFT: how many more frames the report's
 * graphs may draw (FLAME_REPORT_FRAMES_MAX at first); a graph that would
 * draw more is left out with a note, and what is drawn is taken from it.
 */
void fmt_html_profile(const struct report *r, const struct report_cell *c,
		      size_t *left, FILE *out);

#endif
