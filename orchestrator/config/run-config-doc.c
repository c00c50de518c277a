/* SPDX-License-Identifier: MIT */
/*
 * run-config-doc.c - the config's keys described, for 'vmtax run --help'
 * and vmtax-config(5): the key table (run_config_schema()), then the keys that
 * are not in it (knobs and workload parameters), from one table here.
 */
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "ini-schema.h"
#include "run-config.h"
#include "util.h"

#define HOST_KNOBS NULL /* the host knobs of host.h go here */

/* The keys outside the table, each under its section's heading. */
static const struct {
	const char *heading, *name, *help;
	const char *man_see; /* the man page adds "(see MAN_SEE)" */
} extra_keys[] = {
    {.heading = "[guest] knobs",
     .name = "sysctl.A.B",
     .help = "guest sysctl /proc/sys/A/B, set in the guest before the "
	     "samples"},
    {.heading = "[guest] knobs",
     .name = "mm.A.B",
     .help = "guest knob /sys/kernel/mm/A/B"},
    {.heading = "[host]", .name = HOST_KNOBS, .help = "host knob"},
    {.heading = "[host]",
     .name = "sysctl.A.B",
     .help = "host sysctl /proc/sys/A/B"},
    {.heading = "[host]",
     .name = "mm.A.B",
     .help = "host knob /sys/kernel/mm/A/B"},
    {.heading = "[workload] parameters",
     .name = "NAME",
     .help = "override workload parameter NAME",
     .man_see = "WORKLOAD FILES"},
};

/* The host knobs a [host] key may set ([matrix] sets the others). */
static const char *host_knob(size_t *i)
{
	const char *k;
	char why[256];

	while ((k = host_knob_name(*i))) {
		(*i)++;
		if (run_config_host_knob_check(k, why, sizeof(why)) == 0)
			return k;
	}
	return NULL;
}

void run_config_print_help(FILE *f)
{
	const char *heading = NULL, *k, *v;
	size_t i, h;

	fprintf(
	    f,
	    "  A key of type TYPE,.. takes a comma-separated list; an element\n"
	    "  in double quotes may hold a comma or be empty (\"\").  A list "
	    "for\n"
	    "  a [guest] key, a [host] or guest knob or a workload parameter\n"
	    "  makes that setting an axis of the matrix (docs/axes.md).\n");
	ini_print_help(run_config_schema(), f);
	for (i = 0; i < ARRAY_SIZE(extra_keys); i++) {
		if (!heading || strcmp(heading, extra_keys[i].heading))
			fprintf(f, "  %s\n", extra_keys[i].heading);
		heading = extra_keys[i].heading;
		if (extra_keys[i].name) {
			fprintf(f, "    %-18s %-11s %s\n", extra_keys[i].name,
				"string,..", extra_keys[i].help);
			continue;
		}
		for (h = 0; (k = host_knob(&h));) {
			v = host_knob_values(k);
			fprintf(f, "    %-18s %-11s %s%s%s%s\n", k, "string,..",
				extra_keys[i].help, v ? " (" : "", v ? v : "",
				v ? ")" : "");
		}
	}
}

/* One .TP entry of the man page for a key outside the table. */
static void man_entry(FILE *f, const char *name, const char *help,
		      const char *see, const char *values)
{
	fputs(".TP\n.B ", f);
	ini_man_text(f, name);
	fputs("\n\\fI", f);
	ini_man_text(f, "string,..");
	fputs("\\fR: ", f);
	ini_man_text(f, help);
	if (see) {
		fputs(" (see ", f);
		ini_man_text(f, see);
		fputs(")", f);
	}
	fputs(".\n", f);
	if (values) {
		fputs("One of: ", f);
		ini_man_text(f, values);
		fputs(".\n", f);
	}
}

void run_config_print_man(FILE *f)
{
	const char *heading = NULL, *k;
	size_t i, h;

	ini_print_man(run_config_schema(), f);
	for (i = 0; i < ARRAY_SIZE(extra_keys); i++) {
		if (!heading || strcmp(heading, extra_keys[i].heading))
			fprintf(f, ".SS %s\n", extra_keys[i].heading);
		heading = extra_keys[i].heading;
		if (extra_keys[i].name) {
			man_entry(f, extra_keys[i].name, extra_keys[i].help,
				  extra_keys[i].man_see, NULL);
			continue;
		}
		for (h = 0; (k = host_knob(&h));)
			man_entry(f, k, extra_keys[i].help,
				  extra_keys[i].man_see, host_knob_values(k));
	}
}
