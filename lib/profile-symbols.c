// SPDX-License-Identifier: MIT
#include "profile-symbols.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* /proc/kallsyms is ~12 MB with CONFIG_KALLSYMS_ALL; ELF files up to: */
#define KALLSYMS_MAX (256u << 20)
#define ELF_MAX (1024ull << 20)

void symtab_release(struct symtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->demangled && i < t->n; i++)
		free(t->demangled[i]);
	free(t->demangled);
	free(t->v);
	free(t->names);
	free(t->loads);
	memset(t, 0, sizeof(*t));
}

static int by_addr(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* of aliases at one address keep the one with a size first */
	return x->size > y->size ? -1 : x->size < y->size;
}

/* Sort, then point the names into the final storage. */
static void symtab_finish(struct symtab *t, size_t *offs)
{
	for (size_t i = 0; i < t->n; i++)
		t->v[i].name = (const char *)(uintptr_t)offs[i];
	qsort(t->v, t->n, sizeof(*t->v), by_addr);
	for (size_t i = 0; i < t->n; i++)
		t->v[i].name = t->names + (uintptr_t)t->v[i].name;
}

int symtab_from_kallsyms(struct symtab *t, const char *text, size_t len,
			 char *why, size_t wlen)
{
	size_t pos = 0, cap = 0, ncap = 0, nlen = 0, *offs = NULL;
	size_t lines = 0;

	memset(t, 0, sizeof(*t));
	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		unsigned long long addr = 0;
		char type, name[256];
		char buf[320];

		pos += n + (nl ? 1 : 0);
		if (n >= sizeof(buf))
			continue;
		memcpy(buf, l, n);
		buf[n] = '\0';
		if (sscanf(buf, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		lines++;
		if (!addr || !strchr("tTwW", type))
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 4096;
			t->v = xrealloc(t->v, cap * sizeof(*t->v));
			offs = xrealloc(offs, cap * sizeof(*offs));
		}
		n = strlen(name) + 1;
		if (nlen + n > ncap) {
			ncap = ncap ? ncap * 2 : 65536;
			while (nlen + n > ncap)
				ncap *= 2;
			t->names = xrealloc(t->names, ncap);
		}
		memcpy(t->names + nlen, name, n);
		t->v[t->n].addr = addr;
		t->v[t->n].size = 0;
		offs[t->n++] = nlen;
		nlen += n;
	}
	if (!lines) {
		snprintf(why, wlen, "no symbol lines");
		free(offs);
		symtab_release(t);
		return -EINVAL;
	}
	if (!t->n) {
		snprintf(why, wlen, "it shows no addresses (kptr_restrict)");
		free(offs);
		symtab_release(t);
		return -ENOENT;
	}
	symtab_finish(t, offs);
	free(offs);
	return 0;
}

/* E's PT_LOAD segments into T. */
static int elf_loads(struct symtab *t, Elf *e, char *why, size_t wlen)
{
	size_t n;

	if (elf_getphdrnum(e, &n) < 0) {
		snprintf(why, wlen, "bad program headers: %s", elf_errmsg(-1));
		return -ENOEXEC;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph)) {
			snprintf(why, wlen, "bad program headers: %s",
				 elf_errmsg(-1));
			return -ENOEXEC;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		t->loads =
		    xrealloc(t->loads, (t->nloads + 1) * sizeof(*t->loads));
		t->loads[t->nloads++] =
		    (struct symtab_load){ph.p_offset, ph.p_vaddr, ph.p_filesz};
	}
	return 0;
}

/* E's GNU build ID (the NT_GNU_BUILD_ID note) into T->build_id as hex,
 * or "".  (libdw's dwelf_elf_gnu_build_id would pull libdwfl into the
 * static agent: 680 KB for these lines.) */
static void elf_build_id(struct symtab *t, Elf *e)
{
	t->build_id[0] = '\0';
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn;
	     scn = elf_nextscn(e, scn)) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name, &desc))) {
			const unsigned char *id =
			    (const unsigned char *)data->d_buf + desc;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name, "GNU",
				   4) ||
			    2 * nh.n_descsz >= SYMTAB_BUILD_ID_MAX)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(t->build_id + 2 * i, 3, "%02x", id[i]);
			return;
		}
	}
}

/* E's symbol table: .symtab, else .dynsym, else NULL. */
static Elf_Scn *elf_symtab(Elf *e, GElf_Shdr *sh)
{
	Elf_Scn *found = NULL;

	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn;
	     scn = elf_nextscn(e, scn)) {
		GElf_Shdr h;

		if (!gelf_getshdr(scn, &h))
			continue;
		if (h.sh_type == SHT_SYMTAB ||
		    (h.sh_type == SHT_DYNSYM && !found)) {
			found = scn;
			*sh = h;
		}
		if (h.sh_type == SHT_SYMTAB)
			break;
	}
	return found;
}

/* The named, defined function symbols of SCN into T; their names'
 * offsets into T->names into *OFFS.  -ENOEXEC when the table is not in
 * the file. */
static int elf_add_funcs(struct symtab *t, Elf *e, Elf_Scn *scn,
			 const GElf_Shdr *sh, size_t **offs, char *why,
			 size_t wlen)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t cap = 0, nlen = 0;
	GElf_Sym s;

	if (!data) {
		snprintf(why, wlen, "bad symbol table: %s", elf_errmsg(-1));
		return -ENOEXEC;
	}
	for (int i = 0; gelf_getsym(data, i, &s); i++) {
		const char *name;
		size_t n;

		if ((GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		n = strlen(name) + 1;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 1024;
			t->v = xrealloc(t->v, cap * sizeof(*t->v));
			*offs = xrealloc(*offs, cap * sizeof(**offs));
		}
		t->names = xrealloc(t->names, nlen + n);
		memcpy(t->names + nlen, name, n);
		t->v[t->n].addr = s.st_value;
		t->v[t->n].size = s.st_size;
		(*offs)[t->n++] = nlen;
		nlen += n;
	}
	return 0;
}

int symtab_from_elf(struct symtab *t, const void *data, size_t len, char *why,
		    size_t wlen)
{
	Elf *e = NULL;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t *offs = NULL, nsec;
	int ret;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	/* libelf only reads an image it did not allocate (ELF_C_READ_MMAP) */
	e = elf_memory((char *)(uintptr_t)data, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(why, wlen, "not an ELF file%s%s", e ? "" : ": ",
			 e ? "" : elf_errmsg(-1));
		ret = -ENOEXEC;
		goto out;
	}
	ret = elf_loads(t, e, why, wlen);
	if (ret < 0)
		goto out;
	elf_build_id(t, e);
	/* libelf takes section headers past the end for none at all */
	if (gelf_getehdr(e, &eh) && eh.e_shoff &&
	    (elf_getshdrnum(e, &nsec) < 0 || !nsec)) {
		snprintf(why, wlen, "bad section headers");
		ret = -ENOEXEC;
		goto out;
	}
	scn = elf_symtab(e, &sh);
	if (!scn) {
		snprintf(why, wlen, "no symbol table (stripped)");
		ret = -ENOENT;
		goto out;
	}
	t->dynamic_only = sh.sh_type == SHT_DYNSYM;
	ret = elf_add_funcs(t, e, scn, &sh, &offs, why, wlen);
	if (ret < 0)
		goto out;
	if (!t->n) {
		snprintf(why, wlen, "no function symbols (stripped)");
		ret = -ENOENT;
		goto out;
	}
	symtab_finish(t, offs);
	ret = 0;
out:
	elf_end(e);
	free(offs);
	if (ret == -ENOEXEC)
		symtab_release(t);
	return ret;
}

const struct symtab_entry *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	const struct symtab_entry *e;

	/* the last entry with e->addr <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &t->v[lo - 1];
	/* aliases: the first of equal addresses has the largest size */
	while (e > t->v && e[-1].addr == e->addr)
		e--;
	if (e->size && addr - e->addr >= e->size)
		return NULL;
	return e;
}

const char *symtab_lookup(const struct symtab *t, uint64_t addr)
{
	const struct symtab_entry *e = symtab_find(t, addr);

	return e ? e->name : NULL;
}

char *symbol_demangle_new(const char *name)
{
	char *d, *w;

	if (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2))
		return NULL;
	/* DMGL_PARAMS left out, as perf does: "f", not "f(int) const" */
	d = cplus_demangle(name, DMGL_AUTO | DMGL_ANSI);
	if (!d)
		return NULL;
	/* a frame has no blanks (profile_add makes them '_'): drop those
	 * that only separate template arguments, "a<b, c<d> >"; the char
	 * before is the one kept (W), so that ",  >" loses both blanks */
	w = d;
	for (const char *r = d; *r; r++)
		if (!(*r == ' ' && w > d &&
		      (w[-1] == ',' || (w[-1] == '>' && r[1] == '>'))))
			*w++ = *r;
	*w = '\0';
	return d;
}

/* E's name in T, demangled once (kept in T->demangled) where mangled. */
static const char *entry_name(struct symtab *t, const struct symtab_entry *e)
{
	size_t i = (size_t)(e - t->v);
	char *d;

	if (strncmp(e->name, "_Z", 2) && strncmp(e->name, "_R", 2))
		return e->name;
	if (!t->demangled)
		t->demangled = xcalloc(t->n, sizeof(*t->demangled));
	if (!t->demangled[i]) {
		d = symbol_demangle_new(e->name);
		t->demangled[i] = d ? d : xstrdup(e->name);
	}
	return t->demangled[i];
}

bool symtab_offset_to_vaddr(const struct symtab *t, uint64_t off,
			    uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nloads; i++) {
		const struct symtab_load *l = &t->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

/* ---- the symbolizer: files read once ---- */

struct dso {
	char *path;
	struct symtab t;
	int state;   /* 0 ok, -ENOENT no symbols, else unreadable */
	char *why;   /* when state != 0 */
	char *debug; /* the debug file looked for, when the file lacks
			.symtab: found (its symbols are in T) or not */
};

struct symbolizer {
	char *kallsyms;
	char *debug_dir;
	bool offline;
	bool kernel_loaded;
	int kernel_state;
	char kernel_why[160];
	struct symtab kernel;
	struct dso *dsos;
	size_t ndsos;
};

struct symbolizer *symbolizer_new(const char *kallsyms, bool offline)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));

	s->kallsyms = xstrdup(kallsyms ? kallsyms : "/proc/kallsyms");
	s->debug_dir = xstrdup(SYMBOLIZER_DEBUG_DIR);
	s->offline = offline;
	return s;
}

void symbolizer_set_debug_dir(struct symbolizer *s, const char *dir)
{
	free(s->debug_dir);
	s->debug_dir = xstrdup(dir ? dir : "");
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	symtab_release(&s->kernel);
	for (size_t i = 0; i < s->ndsos; i++) {
		free(s->dsos[i].path);
		free(s->dsos[i].why);
		free(s->dsos[i].debug);
		symtab_release(&s->dsos[i].t);
	}
	free(s->dsos);
	free(s->kallsyms);
	free(s->debug_dir);
	free(s);
}

static void kernel_load(struct symbolizer *s)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	s->kernel_loaded = true;
	if (s->offline || !*s->kallsyms) {
		snprintf(s->kernel_why, sizeof(s->kernel_why),
			 "no kallsyms given");
		s->kernel_state = -ENOENT;
		return;
	}
	ret = read_file(s->kallsyms, KALLSYMS_MAX, &text, &len);
	if (ret < 0) {
		snprintf(s->kernel_why, sizeof(s->kernel_why),
			 "cannot read %s: %s", s->kallsyms, strerror(-ret));
		s->kernel_state = ret;
		return;
	}
	s->kernel_state = symtab_from_kallsyms(
	    &s->kernel, text, len, s->kernel_why, sizeof(s->kernel_why));
	free(text);
}

const char *symbolizer_kernel(struct symbolizer *s, struct profile *p,
			      uint64_t addr)
{
	const char *name;

	if (!s->kernel_loaded)
		kernel_load(s);
	if (s->kernel_state < 0) {
		profile_note_missing(p, "kernel symbols: %s: %s", s->kallsyms,
				     s->kernel_why);
		return PROFILE_UNKNOWN;
	}
	name = symtab_lookup(&s->kernel, addr);
	return name ? name : PROFILE_UNKNOWN;
}

/* The symbol table of the file PATH into T: 0, or negative with WHY. */
static int file_symtab(const char *path, struct symtab *t, char *why,
		       size_t wlen)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	memset(t, 0, sizeof(*t));
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
	} else if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
		   (unsigned long long)st.st_size > ELF_MAX) {
		ret = -ENOEXEC;
	} else {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			ret = -errno;
		} else {
			ret = symtab_from_elf(t, map, st.st_size, why, wlen);
			munmap(map, st.st_size);
		}
	}
	if (fd >= 0)
		close(fd);
	if (ret < 0 && !*why)
		snprintf(why, wlen, "%s", strerror(-ret));
	return ret;
}

/*
 * D lacks .symtab (stripped, or .dynsym only): its separate debug file by
 * build ID, DEBUG_DIR/.build-id/xx/rest.debug (Debian's -dbgsym and -dbg
 * packages), if there, gives D its symbols; D keeps its own segments.
 */
static void dso_debug(struct symbolizer *s, struct dso *d)
{
	struct symtab dt;
	char why[160] = "";

	if (s->offline || !*s->debug_dir || strlen(d->t.build_id) < 4)
		return;
	d->debug = xasprintf("%s/.build-id/%.2s/%s.debug", s->debug_dir,
			     d->t.build_id, d->t.build_id + 2);
	if (file_symtab(d->debug, &dt, why, sizeof(why)) < 0 ||
	    dt.dynamic_only) {
		symtab_release(&dt);
		return;
	}
	free(dt.loads);
	dt.loads = d->t.loads;
	dt.nloads = d->t.nloads;
	d->t.loads = NULL;
	symtab_release(&d->t);
	d->t = dt;
	d->state = 0;
}

static struct dso *dso_get(struct symbolizer *s, const char *path)
{
	struct dso *d;
	char why[160] = "";

	for (size_t i = 0; i < s->ndsos; i++)
		if (!strcmp(s->dsos[i].path, path))
			return &s->dsos[i];
	s->dsos = xrealloc(s->dsos, (s->ndsos + 1) * sizeof(*s->dsos));
	d = &s->dsos[s->ndsos++];
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	if (s->offline) {
		d->state = -ENOENT;
		snprintf(why, sizeof(why), "%s", strerror(ENOENT));
	} else {
		d->state = file_symtab(path, &d->t, why, sizeof(why));
	}
	if (d->state == -ENOENT || (!d->state && d->t.dynamic_only))
		dso_debug(s, d);
	if (d->state)
		d->why = d->debug ? xasprintf("%s; nor %s", why, d->debug)
				  : xstrdup(why);
	return d;
}

const char *symbolizer_user(struct symbolizer *s, struct profile *p,
			    const char *path, uint64_t off)
{
	struct dso *d;
	uint64_t vaddr;
	const struct symtab_entry *e;

	if (!path || !*path)
		return PROFILE_UNKNOWN;
	if (path[0] == '[') /* [vdso], [vsyscall], [stack], [heap] */
		return path;
	if (path[0] != '/') {
		profile_note_missing(p, "%s: anonymous or JIT code", path);
		return PROFILE_UNKNOWN;
	}
	d = dso_get(s, path);
	if (d->state) {
		profile_note_missing(p, "%s: %s", path, d->why);
		return PROFILE_UNKNOWN;
	}
	if (!symtab_offset_to_vaddr(&d->t, off, &vaddr))
		return PROFILE_UNKNOWN;
	e = symtab_find(&d->t, vaddr);
	if (!e && d->t.dynamic_only)
		profile_note_missing(p,
				     "%s: only its dynamic symbols "
				     "(.dynsym; no debug symbols%s%s)",
				     path, d->debug ? " in " : "",
				     d->debug ? d->debug : "");
	return e ? entry_name(&d->t, e) : PROFILE_UNKNOWN;
}
