/* SPDX-License-Identifier: MIT */
/* The preflight's list, printed and searched; see run-preflight.h. */
#include "run-preflight.h"

#include <stdio.h>
#include <string.h>

#include "untrusted.h"

static void print_items(const struct preflight *p, enum preflight_verdict v,
			FILE *f)
{
	char line[3 * PREFLIGHT_TEXT_MAX];
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct preflight_item *it = &p->items[i];

		if (it->verdict != v)
			continue;
		snprintf(line, sizeof(line), "  - %s: %s: %s", it->name,
			 it->what, it->fix);
		/* paths and ids come from the config and the host */
		untrusted_scrub(line, false);
		fprintf(f, "%s\n", line);
	}
}

void preflight_print(const struct preflight *p, const char *config_path,
		     FILE *f)
{
	if (p->nmissing) {
		fprintf(f, "vmtax: preflight: %zu requirement%s missing for "
			   "%s:\n",
			p->nmissing, p->nmissing == 1 ? "" : "s", config_path);
		print_items(p, PREFLIGHT_MISSING, f);
	}
	if (p->nskips) {
		fprintf(f, "vmtax: preflight: %zu requirement%s of some cells "
			   "missing for %s (the run skips them):\n",
			p->nskips, p->nskips == 1 ? "" : "s", config_path);
		print_items(p, PREFLIGHT_SKIPS, f);
	}
}

const struct preflight_item *preflight_find(const struct preflight *p,
					    const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->items[i].name, name))
			return &p->items[i];
	return NULL;
}
