/* SPDX-License-Identifier: MIT */
/*
 * profile-symbols.h - addresses to symbol names for the profiler.
 *
 * Kernel addresses go through /proc/kallsyms (the guest's own in a guest
 * cell: the agent symbolizes where the kernel runs), user addresses through
 * the ELF symbol table (.symtab, else .dynsym) of the file that was mapped
 * there, found by the mappings the sampler saw (PERF_RECORD_MMAP), read
 * with elfutils' libelf (linked statically into the agent); a file without
 * .symtab gets the one of its separate debug file, found by build ID.
 *
 * Two layers:
 *   - pure parsers, unit tested and fuzzed: symtab_from_kallsyms() on the
 *     text of /proc/kallsyms, symtab_from_elf() on the bytes of an ELF file;
 *     symtab_lookup() finds the function holding an address;
 *   - struct symbolizer, which reads /proc/kallsyms and the ELF files once
 *     each (a cache by path) and says in a profile's "missing" what it could
 *     not resolve: "kernel: /proc/kallsyms shows no addresses
 *     (kptr_restrict)", "/bin/busybox: no symbol table (stripped)".
 *
 * An address that resolves to nothing is PROFILE_UNKNOWN ("[unknown]"),
 * never dropped.  Names returned are borrowed from the symbolizer.
 *
 * C++ (and Rust) names are demangled by libiberty's cplus_demangle, as
 * perf shows them: without parameters, so "_Z10HONOR_NANS12machine_mode"
 * is "HONOR_NANS" (overloads and clones such as ".isra.0" share a frame),
 * and template arguments are joined without blanks ("a<b,c<d>>").
 * The symbolizer demangles a symbol when an address first resolves to it,
 * not when a file is read: cc1 exports some 27000 mangled names, and the
 * guest agent symbolizes under emulation.
 */
#ifndef VMTAX_PROFILE_SYMBOLS_H
#define VMTAX_PROFILE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;

struct symtab_entry {
	uint64_t addr;
	uint64_t size;	  /* 0: unknown, up to the next symbol */
	const char *name; /* into the table's names */
};

/* One PT_LOAD segment: file offsets [offset, offset+filesz) at vaddr. */
struct symtab_load {
	uint64_t offset, vaddr, filesz;
};

/* A GNU build ID in hex, NUL included (IDs are 20 bytes; notes allow 64). */
#define SYMTAB_BUILD_ID_MAX 129
/* Where separate debug files are looked for: DIR/.build-id/xx/rest.debug. */
#define SYMBOLIZER_DEBUG_DIR "/usr/lib/debug"

struct symtab {
	struct symtab_entry *v; /* sorted by addr */
	size_t n;
	char *names; /* owned storage for the names */
	struct symtab_load *loads;
	size_t nloads;
	bool dynamic_only; /* from .dynsym: exported functions only */
	char build_id[SYMTAB_BUILD_ID_MAX]; /* hex, "" none (ELF only) */
	/* demangled names by entry index, filled as they are looked up
	 * (symbolizer_user; NULL until then, owned) */
	char **demangled;
};

void symtab_release(struct symtab *t);
/*
 * Parse /proc/kallsyms text ("ffffffff81000000 T _stext [module]" lines):
 * the text symbols (t, T, w, W).  Returns 0; -ENOENT with WHY when no line
 * has a non-zero address (addresses hidden by kptr_restrict); -EINVAL for
 * text with no symbol line at all.
 */
int symtab_from_kallsyms(struct symtab *t, const char *text, size_t len,
			 char *why, size_t wlen);
/*
 * Parse an ELF file's function symbols (.symtab, else .dynsym), its
 * PT_LOAD segments and its GNU build ID (its note section), through
 * elfutils' libelf (either class and byte order; libelf checks that what
 * it hands out lies in the file).  Returns 0,
 * -ENOEXEC with WHY for what is not an ELF file or is malformed, -ENOENT
 * with WHY when it has no function symbols (stripped).  The table stays
 * usable for offsets either way after -ENOENT (loads are filled).
 */
int symtab_from_elf(struct symtab *t, const void *data, size_t len, char *why,
		    size_t wlen);
/* The symbol holding ADDR, or NULL. */
const char *symtab_lookup(const struct symtab *t, uint64_t addr);
/* The same, as its entry in T->v (its index is the pointer minus T->v). */
const struct symtab_entry *symtab_find(const struct symtab *t, uint64_t addr);
/*
 * The demangled form of NAME without parameters and without the blanks
 * between template arguments (owned), or NULL when NAME is not a mangled
 * C++ ("_Z") or Rust ("_R") name libiberty can read.
 */
char *symbol_demangle_new(const char *name);
/* The virtual address of file offset OFF through the loads; false if none. */
bool symtab_offset_to_vaddr(const struct symtab *t, uint64_t off,
			    uint64_t *vaddr);

struct symbolizer;

/*
 * A symbolizer over this system's /proc/kallsyms and files.  KALLSYMS
 * names the kallsyms file (NULL: /proc/kallsyms; "" for none: every
 * kernel address is [unknown]).  With OFFLINE no file is read at all.
 */
struct symbolizer *symbolizer_new(const char *kallsyms, bool offline);
void symbolizer_free(struct symbolizer *s);
/*
 * Where a file without .symtab (stripped, or .dynsym only) has its symbols
 * looked for by build ID: DIR/.build-id/xx/rest.debug, the layout of
 * Debian's -dbgsym packages (default SYMBOLIZER_DEBUG_DIR; "" none).  Found,
 * its .symtab names the file's frames; not found, "missing" names the path.
 */
void symbolizer_set_debug_dir(struct symbolizer *s, const char *dir);
/* The name of kernel address ADDR, or PROFILE_UNKNOWN (noted in P). */
const char *symbolizer_kernel(struct symbolizer *s, struct profile *p,
			      uint64_t addr);
/*
 * The name at file offset OFF of the file PATH (as the kernel named the
 * mapping: "/usr/bin/x", "[vdso]", "//anon"), or PROFILE_UNKNOWN.
 */
const char *symbolizer_user(struct symbolizer *s, struct profile *p,
			    const char *path, uint64_t off);

#endif
