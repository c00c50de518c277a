/* SPDX-License-Identifier: MIT */
/*
 * ini-schema.h - the generic, table-driven INI engine (inih underneath).
 * It knows nothing of vmtax: run-config.c and workload-def.c hold the tables.
 *
 * Every key of a config file is declared once, in a const struct ini_key
 * table: its section, name, type, shape (one value, a list, or an axis),
 * where it is stored (offsetof into the caller's struct), default, bounds,
 * allowed values, its own rule (check, finish) and help text.  The same table
 * drives parsing, defaults, bounds checks, 'vmtax run --help' and the
 * resolved config echoed into results.json.  Whether a key was set in the
 * file is tracked explicitly (set_flag, ini_line_at()), never inferred from a
 * value.  Values are parsed once, as they are stored: a list keeps each
 * element as written and as its typed value (struct ini_list .val).
 *
 * Lists.  A list is comma-separated; blanks around an element are dropped.
 * An element that starts with '"' runs to the next '"' and may hold commas or
 * be empty: 'a, "", "b,c"' is three elements, a, the empty string and b,c.
 * A '"' elsewhere in an element is an ordinary character.  Each element is
 * checked as the key's type (bounds, choices, check), and an element may not
 * be listed twice.
 *
 * Rules.  A key's check() sees each value (each element of a list) and
 * writes the whole message when it refuses one; finish() runs once after the
 * file and the --set overrides (ini_finish()), for rules across keys.
 *
 * Errors are compiler-style, "FILE:LINE: message", reported once, and make
 * ini_parse_text() return -EINVAL.  Files must be UTF-8, at most INI_FILE_MAX
 * bytes; a "key = value" line (or a comment) may be of any length within
 * that, any other line (a section header) must be shorter than INI_LINE_MAX
 * - 1 characters, or is refused as "FILE:LINE: line longer than N
 * characters", never cut short; a section may not
 * appear twice, nor a key in a section (one the table names or one the
 * extra callback takes, each checked in O(log n): the reader is not
 * quadratic in a file's sections or keys); an unknown key gets a
 * did-you-mean suggestion.  Messages quoting the file go through
 * err_plain(), which scrubs control characters.
 *
 * Ownership: strings and lists stored into the caller's struct are owned by
 * it; free them with ini_release().
 */
#ifndef VMTAX_INI_SCHEMA_H
#define VMTAX_INI_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INI_FILE_MAX (1024 * 1024)
/* inih's line buffer (ini.h INI_MAX_LINE, compiled into the system
 * libinih: Debian's is 200): with its newline and NUL a line must fit, or
 * it is handed to inih shortened (ini-schema.c reader()). */
#define INI_LINE_MAX 200
#define INI_KEYS_MAX 64

/* The type of a value, or of each element of a list. */
enum ini_type {
	INI_STR,    /* char * */
	INI_INT,    /* long, within [min, max] */
	INI_DOUBLE, /* double, within [min, max] */
	INI_SIZE,   /* uint64_t bytes; "512M", "2G", "1024" (bytes), within [min, max] */
	INI_BOOL,   /* bool; yes/no/true/false/1/0/on/off */
	INI_ENUM,   /* char *, one of choices */
};

enum ini_shape {
	INI_ONE,  /* one value, stored as its type says */
	INI_LIST, /* a struct ini_list of elements as written (unquoted);
		   * echoed as a JSON array */
	INI_AXIS, /* the same, but one value is a setting and a list an axis;
		   * echoed as the typed value when there is one */
};

/* A value parsed as its key's type, once, when it is stored. */
union ini_value {
	long n;	     /* INI_INT; INI_ENUM: the index in choices */
	double d;    /* INI_DOUBLE */
	uint64_t sz; /* INI_SIZE, in bytes */
	bool b;	     /* INI_BOOL */
};

struct ini_list {
	char **v; /* the elements as written (unquoted) */
	size_t n;
	/* each element parsed as the key's type (INI_STR: unused), for a
	 * list stored by the table; NULL for a list built by hand (knob and
	 * parameter values are text) */
	union ini_value *val;
};

struct ini_key;
struct ini_origin;

/* A value's own rule: 0, or -EINVAL with the whole message in MSG. */
typedef int (*ini_check_fn)(const char *value, char *msg, size_t len);
/*
 * A rule across keys, run by ini_finish() for every key that has one (set or
 * not): 0, or -EINVAL with the message in MSG (reported at K's line).  It
 * may rewrite OBJ (ept = on becomes paging = hw).
 */
typedef int (*ini_finish_fn)(const struct ini_key *k, void *obj,
			     const struct ini_origin *o, char *msg, size_t len);

struct ini_key {
	const char *section;
	const char *name;
	enum ini_type type;
	enum ini_shape shape;
	size_t offset;
	const char *def;		 /* default as text; NULL: none */
	double min, max;		 /* for INT, DOUBLE, SIZE (max 0: unbounded) */
	const char *const *choices;	 /* NULL-terminated, for ENUM */
	ini_check_fn check;		 /* NULL: the type's rules only */
	ini_finish_fn finish;		 /* NULL: none */
	const char *help;
	/* INI_FLAG(offsetof a bool in the caller's struct): set true when
	 * the key is set (file or --set); 0: none.  "Was set" as a field. */
	size_t set_flag;
	/* The caller's own facts about the key, opaque here (run-config.c:
	 * a struct axis_spec of matrix.h, the cell field an axis fills);
	 * NULL: none. */
	const void *ext;
	/* Set by vmtax itself, not by hand (a split fleet's [run] cells):
	 * not in --help, the man page or completion, and echoed into
	 * results.json only when set (a list of at least one element). */
	bool hidden;
};
#define INI_FLAG(offset) ((offset) + 1)

struct ini_schema {
	const struct ini_key *keys;
	size_t nkeys;
	/* Sections accepted besides those named by keys; "param.*" style
	 * prefixes end in '*'.  NULL-terminated; may be NULL. */
	const char *const *extra_sections;
};

/* Where each key was set: line numbers, 0 when not set, -1 by --set. */
struct ini_origin {
	const struct ini_schema *s;
	const char *path;
	int line[INI_KEYS_MAX];
};

/*
 * Called for keys in extra sections (and for keys of a declared section that
 * the table does not name, when extra_sections lists that section with a
 * trailing "+": "workload+").  Return 0 when taken, -ENOENT when unknown
 * (the parser reports it with a suggestion), or another negative errno after
 * reporting "path:line: ..." itself.
 */
typedef int (*ini_extra_fn)(void *arg, const char *path, int line,
			    const char *section, const char *name,
			    const char *value);

/*
 * Parse TEXT (the contents of PATH) into OBJ: defaults first, then the file.
 * Returns 0 or -EINVAL after reporting.
 */
int ini_parse_text(const struct ini_schema *s, void *obj, struct ini_origin *o,
		   const char *path, const char *text, ini_extra_fn extra,
		   void *extra_arg);
/*
 * Whether VALUE is a value of K's type (its bounds, choices and check), as
 * the parser checks each value it stores: 0, or -EINVAL/-ERANGE with the
 * reason in WHY ("'abc' is not an integer").  For keys declared outside a
 * table (a workload's typed parameters, workload-def.h).
 */
int ini_value_check(const struct ini_key *k, const char *value, char *why,
		    size_t wlen);
/* Read PATH (bounded) and check it is UTF-8 text; -EINVAL/-errno reported. */
int ini_read_file(const char *path, char **text);
/*
 * Run every key's finish() (table order), after ini_parse_text() and ini_set();
 * the first refusal is reported as "path:line: msg" and gives -EINVAL.
 */
int ini_finish(const struct ini_schema *s, void *obj,
	       const struct ini_origin *o);
/* Set one key from "section.name=value" style overrides (--set). */
int ini_set(const struct ini_schema *s, void *obj, struct ini_origin *o,
	    const char *section, const char *name, const char *value,
	    const char *where);
/* The line the key stored at OFFSET (its field names it) was set on; 0
 * when it was not (or was --set). */
int ini_line_at(const struct ini_schema *s, const struct ini_origin *o,
		size_t offset);
void ini_release(const struct ini_schema *s, void *obj);
/* Print the keys, types, defaults and help (for --help); a list key's type
 * reads "TYPE,..". */
void ini_print_help(const struct ini_schema *s, FILE *f);
/*
 * The same keys as roff for a man page: one ".SS [section]" per section, in
 * the order sections first appear (none for the empty section), with all
 * its keys as ".TP" entries: type, help, choices, bounds and default
 * (vmtax-config(5) is built from this).
 */
void ini_print_man(const struct ini_schema *s, FILE *f);
/* S as roff text: backslashes, '-' and a leading '.' or '\'' escaped. */
void ini_man_text(FILE *f, const char *s);
/* The resolved values as a JSON object {section: {name: value}}. */
json_t *ini_to_json(const struct ini_schema *s, const void *obj);

/* Helpers also used for workload files and --set (ini-values.c). */
int ini_parse_size(const char *s, uint64_t *out);
bool ini_utf8_valid(const char *s, size_t len);
/* Levenshtein distance, capped; for did-you-mean. */
unsigned ini_edit_distance(const char *a, const char *b);
void ini_list_free(struct ini_list *l);
void ini_list_copy(struct ini_list *dst, const struct ini_list *src);
/* Append the N bytes at S to L as an element (a text list: no .val). */
void ini_list_push(struct ini_list *l, const char *s, size_t n);
/*
 * Split S into elements by the list rules above.  An unquoted empty element
 * ("a,,b"), an unterminated quote and text after a closing quote are errors:
 * -EINVAL with the reason in WHY.  An all-blank S is a list of no elements.
 */
int ini_list_parse(const char *s, struct ini_list *out, char *why,
		   size_t wlen);
/* Whether V is a number as a value of some type: a plain number, or a size
 * ("2G", in bytes).  *OUT gets it. */
bool ini_number(const char *v, double *out);

#endif
