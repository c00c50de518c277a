/* SPDX-License-Identifier: MIT */
/*
 * fuzz-profile - libFuzzer target for what parses sampled data
 * (docs/profile.md): the perf record decoder (profile_decode() of
 * lib/profile-sample.c, which the runner feeds the kernel's ring buffers
 * and which must never trust them), the folded-stack parser (what the
 * reports read from a run directory and the host from an agent's reply),
 * the symbol table parsers (kallsyms text, ELF files) and the demangler
 * (libiberty's, on names read from ELF files).
 *
 * The input goes whole to each.  The decoder runs with an offline
 * symbolizer (no file is read: a fuzzed mapping names any path).
 *
 * Checked, beyond the sanitizers: the decoded profile's stacks sum to its
 * samples and its folded text parses back to the same samples and stacks;
 * a folded parse that succeeds round-trips the same way and holds no stack
 * deeper than PROFILE_STACK_FRAMES_MAX and no more than PROFILE_STACKS_MAX
 * stacks (lib/caps.h: what the flame graph's recursion relies on; the
 * corpus has stacks at the cap and one frame past it); symbol tables
 * are sorted and every lookup of an entry's address finds a name; a
 * demangled name has no blank between template arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile-sample.h"
#include "profile-symbols.h"
#include "profile.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-profile: invariant broken: %s\n", what);
		abort();
	}
}

static void roundtrip(const struct profile *p)
{
	struct profile *q = profile_new();
	char *text = profile_folded_new(p, (size_t)-1);
	uint64_t sum = 0;
	char why[160];

	for (size_t i = 0; i < p->nstacks; i++)
		sum += p->stacks[i].count;
	check(sum == p->samples, "stacks do not sum to the samples");
	check(profile_folded_parse(q, text, strlen(text), why, sizeof(why)) ==
		  0,
	      "folded text does not parse back");
	check(q->samples == p->samples && q->nstacks == p->nstacks,
	      "folded text parses back to something else");
	free(text);
	profile_free(q);
}

/* The parser's caps hold for what it accepted. */
static void capped(const struct profile *p)
{
	check(p->nstacks <= PROFILE_STACKS_MAX, "more stacks than the cap");
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t frames = 1;

		for (const char *s = p->stacks[i].stack; *s; s++)
			frames += *s == ';';
		check(frames <= PROFILE_STACK_FRAMES_MAX,
		      "a stack deeper than the cap");
	}
}

static void demangle(const char *name)
{
	char *d = symbol_demangle_new(name);

	check(!d || (!strstr(d, ", ") && !strstr(d, "> >")),
	      "a demangled name keeps blanks between template arguments");
	free(d);
}

static void table(const struct symtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		check(i == 0 || t->v[i - 1].addr <= t->v[i].addr,
		      "symbols not sorted");
		check(symtab_lookup(t, t->v[i].addr) != NULL,
		      "a symbol's own address finds nothing");
		if (i < 64)
			demangle(t->v[i].name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolizer *sym = symbolizer_new("", true);
	struct profile *p = profile_new();
	struct symtab t;
	char why[160], name[4096];

	/* the input as one symbol name */
	snprintf(name, sizeof(name), "%.*s", (int)size, (const char *)data);
	demangle(name);

	profile_decode(data, size, sym, p);
	roundtrip(p);
	profile_free(p);
	symbolizer_free(sym);

	p = profile_new();
	if (profile_folded_parse(p, (const char *)data, size, why,
				 sizeof(why)) == 0) {
		roundtrip(p);
		capped(p);
	}
	profile_free(p);

	if (symtab_from_kallsyms(&t, (const char *)data, size, why,
				 sizeof(why)) == 0) {
		table(&t);
		symtab_release(&t);
	}
	if (symtab_from_elf(&t, data, size, why, sizeof(why)) == 0)
		table(&t);
	symtab_release(&t);
	return 0;
}
