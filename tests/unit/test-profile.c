/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the profiler: folded stacks (lib/profile-fold.c), the
 * symbolizer (lib/profile-symbols.c) on a recorded kallsyms excerpt, a
 * hand-made ELF file and recorded C++ names, the record decoder (lib/profile-sample.c) on
 * hand-made perf records, and the differ (reports/profile-diff.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile-diff.h"
#include "profile-sample.h"
#include "profile-symbols.h"
#include "profile.h"
#include "util.h"

/* ---- folded stacks ---- */

static void test_folded_parse(void **state)
{
	static const struct {
		const char *text;
		int ret;
		const char *why;
		uint64_t samples;
		size_t nstacks;
	} rows[] = {
	    {"a;b;c 3\na;b 2\n", 0, NULL, 5, 2},
	    {"a;b;c 3\na;b;c 2", 0, NULL, 5, 1}, /* merged, no final \n */
	    {"\n\na 1\r\n", 0, NULL, 1, 1},	 /* blank lines, CRLF */
	    {"with space;x 4\n", 0, NULL, 4, 1}, /* the last blank splits */
	    {"a;b\n", -EINVAL, "line 1: no count", 0, 0},
	    {"a;b \n", -EINVAL, "line 1: no count", 0, 0},
	    {"ok 1\na;b 0\n", -EINVAL, "line 2: count 0", 1, 1},
	    {"a;b 1x\n", -EINVAL, "line 1: bad count '1x'", 0, 0},
	    {"a;b -3\n", -EINVAL, "line 1: bad count '-3'", 0, 0},
	    {"a;b 99999999999999999999999\n", -EINVAL,
	     "line 1: bad count '99999999999999999999999'", 0, 0},
	    {" 7\n", -EINVAL, "line 1: empty stack", 0, 0},
	    {"a;;b 1\n", -EINVAL, "line 1: empty frame or NUL", 0, 0},
	    {";a 1\n", -EINVAL, "line 1: empty frame or NUL", 0, 0},
	    {"a; 1\n", -EINVAL, "line 1: empty frame or NUL", 0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct profile *p = profile_new();
		char why[160] = "";
		int ret = profile_folded_parse(
		    p, rows[i].text, strlen(rows[i].text), why, sizeof(why));

		if (ret != rows[i].ret || p->samples != rows[i].samples ||
		    p->nstacks != rows[i].nstacks ||
		    (rows[i].why && strcmp(why, rows[i].why)))
			fail_msg("row %zu: ret %d, samples %llu, stacks %zu, "
				 "why '%s'",
				 i, ret, (unsigned long long)p->samples,
				 p->nstacks, why);
		profile_free(p);
	}
}

static void test_folded_write(void **state)
{
	struct profile *p = profile_new(), *q;
	const char *f1[] = {"randwalk", "main", "clear page;x\n\xc3\xa9"};
	const char *f2[] = {"randwalk", "", "main"};
	char *text, why[160];
	json_t *j;

	(void)state;
	profile_add(p, f1, 3, 5);
	profile_add(p, f2, 3, 2);
	profile_add(p, f2, 3, 1);
	profile_add(p, NULL, 0, 1);
	text = profile_folded_new(p, (size_t)-1);
	/* sanitized frames, by count, [unknown] for an empty frame */
	assert_string_equal(text, "randwalk;main;clear_page_x_?? 5\n"
				  "randwalk;[unknown];main 3\n"
				  "[unknown] 1\n");
	free(text);
	/* a cap: the smallest stacks are summed, never dropped */
	text = profile_folded_new(p, 100);
	assert_string_equal(text, "randwalk;main;clear_page_x_?? 5\n"
				  "[other stacks] 4\n");
	free(text);

	p->event = xstrdup("cpu-clock");
	p->unknown = 4;
	profile_note_missing(p, "/bin/busybox: %s", "no symbol table");
	profile_note_missing(p, "/bin/busybox: no symbol table");
	assert_int_equal(p->nmissing, 1);
	j = profile_to_json(p);
	q = profile_from_json(j, why, sizeof(why));
	assert_non_null(q);
	assert_string_equal(q->event, "cpu-clock");
	assert_int_equal(q->samples, 9);
	assert_int_equal(q->nstacks, 3);
	assert_int_equal(q->unknown, 4);
	assert_int_equal(q->nmissing, 1);
	profile_free(q);
	/* counts that disagree with the stacks */
	json_object_set_new(j, "samples", json_integer(10));
	assert_null(profile_from_json(j, why, sizeof(why)));
	assert_string_equal(why,
			    "profile counts 10 samples but its stacks hold 9");
	json_object_set_new(j, "folded", json_string("a;b x\n"));
	assert_null(profile_from_json(j, why, sizeof(why)));
	assert_string_equal(why, "line 1: bad count 'x'");
	json_object_del(j, "folded");
	assert_null(profile_from_json(j, why, sizeof(why)));
	json_decref(j);
	profile_free(p);
}

/* ---- symbols ---- */

/* Recorded from a 6.1 guest's /proc/kallsyms (abridged). */
static const char kallsyms[] = "ffffffff81000000 T clear_page_erms\n"
			       "ffffffff81000100 T handle_mm_fault\n"
			       "ffffffff81000200 t asm_exc_page_fault\n"
			       "ffffffff81000300 D some_data\n"
			       "ffffffffc0000000 t virtio_probe\t[virtio]\n";
/* The same with kptr_restrict hiding the addresses. */
static const char kallsyms_hidden[] = "0000000000000000 T clear_page_erms\n"
				      "0000000000000000 T handle_mm_fault\n";

static void test_kallsyms(void **state)
{
	struct symtab t;
	char why[160];

	(void)state;
	assert_int_equal(symtab_from_kallsyms(&t, kallsyms, strlen(kallsyms),
					      why, sizeof(why)),
			 0);
	assert_int_equal(t.n, 4); /* the data symbol is not text */
	assert_string_equal(symtab_lookup(&t, 0xffffffff81000010),
			    "clear_page_erms");
	assert_string_equal(symtab_lookup(&t, 0xffffffff81000100),
			    "handle_mm_fault");
	assert_string_equal(symtab_lookup(&t, 0xffffffffc0000040),
			    "virtio_probe");
	assert_null(symtab_lookup(&t, 0xffffffff80000000));
	symtab_release(&t);
	assert_int_equal(symtab_from_kallsyms(&t, kallsyms_hidden,
					      strlen(kallsyms_hidden), why,
					      sizeof(why)),
			 -ENOENT);
	assert_string_equal(why, "it shows no addresses (kptr_restrict)");
	assert_int_equal(
	    symtab_from_kallsyms(&t, "garbage\n", 8, why, sizeof(why)),
	    -EINVAL);
}

/*
 * A minimal ELF64 executable: one PT_LOAD (file 0..0x1000 at 0x400000), a
 * .symtab with walk (0x400100, 0x100 bytes) and main (0x400200, 0x80) and
 * a data object; without sections when STRIPPED.
 */
static size_t mini_elf(unsigned char *buf, bool stripped)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + 64);
	Elf64_Sym *sym = (Elf64_Sym *)(buf + 0x200);
	Elf64_Shdr *sh = (Elf64_Shdr *)(buf + 0x400);
	static const char strtab[] = "\0walk\0main\0table";

	memset(buf, 0, 0x1000);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_phoff = 64;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	ph->p_type = PT_LOAD;
	ph->p_offset = 0;
	ph->p_vaddr = 0x400000;
	ph->p_filesz = 0x1000;
	sym[1] = (Elf64_Sym){.st_name = 1,
			     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			     .st_shndx = 1,
			     .st_value = 0x400100,
			     .st_size = 0x100};
	sym[2] = (Elf64_Sym){.st_name = 6,
			     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			     .st_shndx = 1,
			     .st_value = 0x400200,
			     .st_size = 0x80};
	sym[3] = (Elf64_Sym){.st_name = 11,
			     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			     .st_shndx = 1,
			     .st_value = 0x400300,
			     .st_size = 0x10};
	memcpy(buf + 0x300, strtab, sizeof(strtab));
	if (stripped)
		return 0x1000;
	eh->e_shoff = 0x400;
	eh->e_shnum = 3;
	sh[1] = (Elf64_Shdr){.sh_type = SHT_SYMTAB,
			     .sh_offset = 0x200,
			     .sh_size = 4 * sizeof(Elf64_Sym),
			     .sh_link = 2,
			     .sh_entsize = sizeof(Elf64_Sym)};
	sh[2] = (Elf64_Shdr){.sh_type = SHT_STRTAB,
			     .sh_offset = 0x300,
			     .sh_size = sizeof(strtab)};
	return 0x1000;
}

static void test_elf(void **state)
{
	unsigned char buf[0x1000];
	struct symtab t;
	uint64_t va;
	char why[160];

	(void)state;
	mini_elf(buf, false);
	assert_int_equal(
	    symtab_from_elf(&t, buf, sizeof(buf), why, sizeof(why)), 0);
	assert_int_equal(t.n, 2);
	assert_true(symtab_offset_to_vaddr(&t, 0x150, &va));
	assert_int_equal(va, 0x400150);
	assert_string_equal(symtab_lookup(&t, va), "walk");
	assert_string_equal(symtab_lookup(&t, 0x40027f), "main");
	assert_null(symtab_lookup(&t, 0x400280)); /* past main's size */
	assert_false(symtab_offset_to_vaddr(&t, 0x2000, &va));
	assert_false(t.dynamic_only);
	symtab_release(&t);

	/* only .dynsym (Debian's libc, cc1): used, and said */
	((Elf64_Shdr *)(buf + 0x400))[1].sh_type = SHT_DYNSYM;
	assert_int_equal(
	    symtab_from_elf(&t, buf, sizeof(buf), why, sizeof(why)), 0);
	assert_true(t.dynamic_only);
	assert_string_equal(symtab_lookup(&t, 0x400100), "walk");
	symtab_release(&t);

	mini_elf(buf, true);
	assert_int_equal(
	    symtab_from_elf(&t, buf, sizeof(buf), why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no symbol table (stripped)");
	symtab_release(&t);

	mini_elf(buf, false);
	assert_int_equal(symtab_from_elf(&t, buf, 0x300, why, sizeof(why)),
			 -ENOEXEC); /* truncated: sections past the end */
	assert_string_equal(why, "bad section headers");
	assert_int_equal(
	    symtab_from_elf(&t, "#!/bin/sh\n", 10, why, sizeof(why)), -ENOEXEC);
	assert_string_equal(why, "not an ELF file");
}

/* ---- records ---- */

struct rbuf {
	unsigned char b[4096];
	size_t n;
};

static void put(struct rbuf *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put64(struct rbuf *r, uint64_t v)
{
	put(r, &v, 8);
}

static void put32(struct rbuf *r, uint32_t v)
{
	put(r, &v, 4);
}

static size_t begin(struct rbuf *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {type, misc, 0};
	size_t at = r->n;

	put(r, &h, sizeof(h));
	return at;
}

static void end(struct rbuf *r, size_t at)
{
	uint16_t size = (uint16_t)(r->n - at);

	memcpy(r->b + at + 6, &size, 2);
}

static void put_str(struct rbuf *r, const char *s)
{
	size_t n = strlen(s) + 1, pad = (8 - n % 8) % 8;

	put(r, s, n);
	memset(r->b + r->n, 0, pad);
	r->n += pad;
}

static void sample_id(struct rbuf *r, uint32_t pid, uint64_t time)
{
	put32(r, pid);
	put32(r, pid);
	put64(r, time);
}

/* Process 100 execs "randwalk": its comm, and PROG mapped at 0x400000. */
static void exec_randwalk(struct rbuf *r, const char *prog)
{
	size_t at;

	at = begin(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(r, 100);
	put32(r, 100);
	put_str(r, "randwalk");
	sample_id(r, 100, 10);
	end(r, at);
	at = begin(r, PERF_RECORD_MMAP, 0);
	put32(r, 100);
	put32(r, 100);
	put64(r, 0x400000);
	put64(r, 0x1000);
	put64(r, 0);
	put_str(r, prog);
	sample_id(r, 100, 20);
	end(r, at);
}

/* A sample with a kernel and a user chain, then (later in the buffer, as
 * from another CPU's ring) the exec's comm and the mapping it needs. */
static void records(struct rbuf *r, const char *prog)
{
	size_t at;

	at = begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(r, 0xffffffff81000010);
	put32(r, 100);
	put32(r, 100);
	put64(r, 30);
	put64(r, 6);
	put64(r, (uint64_t)PERF_CONTEXT_KERNEL);
	put64(r, 0xffffffff81000010); /* clear_page_erms */
	put64(r, 0xffffffff81000105); /* returns into handle_mm_fault */
	put64(r, (uint64_t)PERF_CONTEXT_USER);
	put64(r, 0x400150); /* walk */
	put64(r, 0x400210); /* returns into main */
	end(r, at);
	at = begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(r, 0x7000);
	put32(r, 100);
	put32(r, 100);
	put64(r, 31);
	put64(r, 0); /* no chain: the ip, outside any mapping */
	end(r, at);
	exec_randwalk(r, prog);
	at = begin(r, PERF_RECORD_LOST, 0);
	put64(r, 1);
	put64(r, 7);
	sample_id(r, 100, 40);
	end(r, at);
}

static char *write_tmp(const char *name, const void *data, size_t len)
{
	char *path =
	    xasprintf("/tmp/vmtax-test-profile-%d-%s", (int)getpid(), name);

	assert_int_equal(write_file_atomic(path, data, len), 0);
	return path;
}

static void test_decode(void **state)
{
	static const struct {
		bool stripped, hidden, no_kallsyms;
		const char *folded, *missing;
	} rows[] = {
	    {false, false, false,
	     "randwalk;[unknown] 1\n"
	     "randwalk;main;walk;handle_mm_fault;clear_page_erms 1\n",
	     NULL},
	    {true, false, false,
	     "randwalk;[unknown] 1\n"
	     "randwalk;[unknown];[unknown];handle_mm_fault;clear_page_erms 1\n",
	     "prog: no symbol table (stripped)"},
	    {false, true, false,
	     "randwalk;[unknown] 1\n"
	     "randwalk;main;walk;[unknown];[unknown] 1\n",
	     "it shows no addresses (kptr_restrict)"},
	    {false, false, true,
	     "randwalk;[unknown] 1\n"
	     "randwalk;main;walk;[unknown];[unknown] 1\n",
	     "cannot read"},
	};
	unsigned char elf[0x1000];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *prog, *ks, *text, all[1024] = "";
		struct rbuf *r = xcalloc(1, sizeof(*r));
		struct symbolizer *sym;
		struct profile *p = profile_new();

		mini_elf(elf, rows[i].stripped);
		prog = write_tmp("prog", elf, sizeof(elf));
		ks = rows[i].hidden
			 ? write_tmp("kallsyms", kallsyms_hidden,
				     strlen(kallsyms_hidden))
			 : write_tmp("kallsyms", kallsyms, strlen(kallsyms));
		if (rows[i].no_kallsyms)
			unlink(ks);
		records(r, prog);
		sym = symbolizer_new(ks, false);
		profile_decode(r->b, r->n, sym, p);
		text = profile_folded_new(p, (size_t)-1);
		for (size_t k = 0; k < p->nmissing; k++)
			snprintf(all + strlen(all), sizeof(all) - strlen(all),
				 "%s|", p->missing[k]);
		if (strcmp(text, rows[i].folded) ||
		    (rows[i].missing && !strstr(all, rows[i].missing)) ||
		    p->samples != 2 || p->lost != 7 ||
		    !strstr(all, "user addresses outside any mapping seen"))
			fail_msg("row %zu: folded\n%s missing %s", i, text,
				 all);
		/* every unresolved sample still counts */
		assert_int_equal(p->unknown, i == 0 ? 1 : 2);
		free(text);
		symbolizer_free(sym);
		profile_free(p);
		unlink(prog);
		unlink(ks);
		free(prog);
		free(ks);
		free(r);
	}
}

/*
 * Demangling (docs/profile.md): names recorded from Debian 12's cc1
 * (nm -D /usr/lib/gcc/x86_64-linux-gnu/12/cc1) and libstdc++, shown as
 * perf shows them, without parameters.
 */
static void test_demangle(void **state)
{
	static const struct {
		const char *mangled, *want; /* want NULL: not demangled */
	} rows[] = {
	    {"_Z10HONOR_NANS12machine_mode", "HONOR_NANS"},
	    {"_Z10bitmap_andP11bitmap_headPKS_S2_", "bitmap_and"},
	    {"_ZN10dom_walker30propagate_unreachable_to_edgesEP15basic_"
	     "block_defP8_IO_FILE9dump_flag",
	     "dom_walker::propagate_unreachable_to_edges"},
	    {"_ZN10hash_tableI10pre_expr_dLb0E11xcallocatorE19find_slot_with_"
	     "hashERKPS0_j13insert_option",
	     "hash_table<pre_expr_d,false,xcallocator>::find_slot_with_hash"},
	    {"_ZN10access_ref10add_offsetERK16generic_wide_intI22fixed_wide_"
	     "int_storageILi128EEES5_",
	     "access_ref::add_offset"},
	    {"_ZNKSt8ios_base7failure4whatEv", "std::ios_base::failure::what"},
	    {"_ZN3std6vectorIiSaIiEE9push_backERKi",
	     "std::vector<int,std::allocator<int>>::push_back"},
	    /* a clone GCC made: the function's frame */
	    {"_Z3fooi.isra.0", "foo"},
	    {"main", NULL},
	    {"walk", NULL},
	    {"_Zfoo", NULL},
	    {"_Z", NULL},
	    {"", NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *got = symbol_demangle_new(rows[i].mangled);

		if (rows[i].want ? !got || strcmp(got, rows[i].want) : !!got)
			fail_msg("row %zu: '%s' gave '%s', want '%s'", i,
				 rows[i].mangled, got ? got : "(null)",
				 rows[i].want ? rows[i].want : "(null)");
		free(got);
	}
}

/* MINI's sections plus a fourth: a GNU build ID note 01 02 .. 14. */
static void add_build_id(unsigned char *buf)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *sh = (Elf64_Shdr *)(buf + 0x400);
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(buf + 0x600);

	nh->n_namesz = 4;
	nh->n_descsz = 20;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(buf + 0x600 + sizeof(*nh), "GNU", 4);
	for (int i = 0; i < 20; i++)
		buf[0x600 + sizeof(*nh) + 4 + i] = (unsigned char)(i + 1);
	sh[3] = (Elf64_Shdr){.sh_type = SHT_NOTE,
			     .sh_offset = 0x600,
			     .sh_size = sizeof(*nh) + 4 + 20,
			     .sh_addralign = 4};
	eh->e_shnum = 4;
}

/*
 * A file with only .dynsym (main not exported) gets the .symtab of its
 * separate debug file, found by build ID; without one, "missing" names the
 * path looked for.
 */
static void test_symbolizer_debug_file(void **state)
{
	static const char id[] = "0102030405060708090a0b0c0d0e0f1011121314";
	unsigned char lib[0x1000], dbg[0x1000];
	struct profile *p = profile_new();
	struct symbolizer *s = symbolizer_new("", false);
	char *dir =
	    xasprintf("/tmp/vmtax-test-profile-%d-debug", (int)getpid());
	char *sub = xasprintf("%s/.build-id/01", dir);
	char *dpath = xasprintf("%s/%s.debug", sub, id + 2), *prog, *cmd;
	struct symtab t;
	char why[160];

	(void)state;
	mini_elf(lib, false);
	add_build_id(lib);
	((Elf64_Shdr *)(lib + 0x400))[1].sh_type = SHT_DYNSYM;
	((Elf64_Sym *)(lib + 0x200))[2].st_info =
	    ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE); /* main: not exported */
	assert_int_equal(
	    symtab_from_elf(&t, lib, sizeof(lib), why, sizeof(why)), 0);
	assert_string_equal(t.build_id, id);
	assert_true(t.dynamic_only);
	symtab_release(&t);
	mini_elf(dbg, false);
	add_build_id(dbg);
	prog = write_tmp("lib", lib, sizeof(lib));

	/* no debug file: main's frames [unknown], and where we looked */
	symbolizer_set_debug_dir(s, dir);
	assert_string_equal(symbolizer_user(s, p, prog, 0x150), "walk");
	assert_string_equal(symbolizer_user(s, p, prog, 0x210),
			    PROFILE_UNKNOWN);
	assert_int_equal(p->nmissing, 1);
	assert_non_null(strstr(p->missing[0], "only its dynamic symbols"));
	assert_non_null(strstr(p->missing[0], dpath));
	symbolizer_free(s);
	profile_free(p);

	/* the debug file there: main named, nothing missing */
	assert_int_equal(mkdir_parents(sub, 0755), 0);
	assert_int_equal(
	    write_file_atomic(dpath, (const char *)dbg, sizeof(dbg)), 0);
	s = symbolizer_new("", false);
	p = profile_new();
	symbolizer_set_debug_dir(s, dir);
	assert_string_equal(symbolizer_user(s, p, prog, 0x210), "main");
	assert_string_equal(symbolizer_user(s, p, prog, 0x150), "walk");
	assert_int_equal(p->nmissing, 0);
	symbolizer_free(s);
	profile_free(p);

	/* "" looks nowhere */
	s = symbolizer_new("", false);
	p = profile_new();
	symbolizer_set_debug_dir(s, "");
	assert_string_equal(symbolizer_user(s, p, prog, 0x210),
			    PROFILE_UNKNOWN);
	assert_null(strstr(p->missing[0], dpath));
	symbolizer_free(s);
	profile_free(p);

	cmd = xasprintf("rm -r '%s'", dir);
	assert_int_equal(system(cmd), 0);
	unlink(prog);
	free(cmd);
	free(prog);
	free(dpath);
	free(sub);
	free(dir);
}

/* The symbolizer demangles what it resolves; the symbol table keeps the
 * mangled names. */
static void test_symbolizer_demangles(void **state)
{
	static const char strtab[] = "\0_Z10HONOR_NANS12machine_mode\0main";
	unsigned char elf[0x1000];
	Elf64_Sym *sym = (Elf64_Sym *)(elf + 0x200);
	Elf64_Shdr *sh = (Elf64_Shdr *)(elf + 0x400);
	struct profile *p = profile_new();
	struct symbolizer *s = symbolizer_new("", false);
	struct symtab t;
	char why[160], *prog;
	const char *a, *b;

	(void)state;
	mini_elf(elf, false);
	memcpy(elf + 0x300, strtab, sizeof(strtab));
	sym[1].st_name = 1;			/* walk: a C++ function now */
	sym[2].st_name = sizeof(strtab) - 5;	/* main */
	sym[3].st_name = 0;
	sh[2].sh_size = sizeof(strtab);
	assert_int_equal(symtab_from_elf(&t, elf, sizeof(elf), why,
					 sizeof(why)),
			 0);
	assert_string_equal(symtab_lookup(&t, 0x400100),
			    "_Z10HONOR_NANS12machine_mode");
	symtab_release(&t);
	prog = write_tmp("cxx", elf, sizeof(elf));
	a = symbolizer_user(s, p, prog, 0x150);
	assert_string_equal(a, "HONOR_NANS");
	b = symbolizer_user(s, p, prog, 0x110);
	assert_ptr_equal(a, b); /* demangled once */
	assert_string_equal(symbolizer_user(s, p, prog, 0x210), "main");
	assert_int_equal(p->nmissing, 0);
	unlink(prog);
	free(prog);
	symbolizer_free(s);
	profile_free(p);
}

/*
 * A static workload built with frame pointers: the kernel's walk goes on
 * through glibc's start code, which has none, and finds garbage above it.
 * The stack ends at __libc_start_call_main (only _start is above it).
 */
static void test_decode_libc_start(void **state)
{
	static const char strtab[] = "\0main\0__libc_start_call_main";
	unsigned char elf[0x1000];
	Elf64_Sym *sym = (Elf64_Sym *)(elf + 0x200);
	Elf64_Shdr *sh = (Elf64_Shdr *)(elf + 0x400);
	struct rbuf *r = xcalloc(1, sizeof(*r));
	struct symbolizer *s = symbolizer_new("", false);
	struct profile *p = profile_new();
	char *prog, *text;
	size_t at;

	(void)state;
	mini_elf(elf, false);
	memcpy(elf + 0x300, strtab, sizeof(strtab));
	sym[1].st_name = 1; /* 0x400100: main */
	sym[2].st_name = 6; /* 0x400200: __libc_start_call_main */
	sym[3].st_name = 0;
	sh[2].sh_size = sizeof(strtab);
	prog = write_tmp("fp", elf, sizeof(elf));
	exec_randwalk(r, prog);
	at = begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(r, 0x400150);
	put32(r, 100);
	put32(r, 100);
	put64(r, 30);
	put64(r, 5);
	put64(r, (uint64_t)PERF_CONTEXT_USER);
	put64(r, 0x400150); /* main */
	put64(r, 0x400210); /* returns into __libc_start_call_main */
	put64(r, 0x400121); /* garbage: glibc's frame has no pointer */
	put64(r, 0x7000);   /* garbage, outside any mapping */
	end(r, at);
	profile_decode(r->b, r->n, s, p);
	text = profile_folded_new(p, (size_t)-1);
	assert_string_equal(text, "randwalk;__libc_start_call_main;main 1\n");
	assert_int_equal(p->unknown, 0);
	free(text);
	profile_free(p);
	symbolizer_free(s);
	unlink(prog);
	free(prog);
	free(r);
}

static void test_decode_bad(void **state)
{
	struct rbuf *r = xcalloc(1, sizeof(*r));
	struct symbolizer *sym = symbolizer_new("", true);
	struct profile *p = profile_new();
	uint16_t bad = 12; /* not a multiple of 8 */

	(void)state;
	records(r, "/nonexistent");
	memcpy(r->b + 6, &bad, 2);
	profile_decode(r->b, r->n, sym, p);
	assert_int_equal(p->samples, 0);
	assert_int_equal(p->nmissing, 1);
	assert_string_equal(p->missing[0], "malformed record at byte 0: the "
					   "rest is not decoded");
	profile_free(p);
	p = profile_new();
	profile_decode(r->b, 5, sym, p);
	assert_int_equal(p->samples, 0);
	assert_string_equal(p->missing[0], "5 trailing bytes not decoded");
	profile_free(p);
	symbolizer_free(sym);
	free(r);
}

/* ---- the differ ---- */

/* Recorded (abridged) from the bare-metal THP always cell and the guest
 * THP never cell of a demo run. */
static const char base_folded[] =
    "randwalk;main 70\n"
    "randwalk;main;asm_exc_page_fault;handle_mm_fault;clear_page_erms 30\n";
static const char cell_folded[] =
    "randwalk;main 50\n"
    "randwalk;main;asm_exc_page_fault;do_user_addr_fault 30\n"
    "randwalk;main;asm_exc_page_fault;handle_mm_fault;clear_page_rep 20\n";

static const struct profile_diff_entry *entry(const struct profile_diff *d,
					      const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].name, name))
			return &d->v[i];
	fail_msg("no entry %s", name);
	return NULL;
}

static void test_diff(void **state)
{
	struct profile *b = profile_new(), *c = profile_new(),
		       *empty = profile_new();
	struct profile_diff d;
	const struct profile_diff_entry *e;
	const char *pf[] = {"handle_mm_fault", "do_user_addr_fault", NULL};
	double sum = 0;
	char why[64];

	(void)state;
	assert_int_equal(profile_folded_parse(b, base_folded,
					      strlen(base_folded), why,
					      sizeof(why)),
			 0);
	assert_int_equal(profile_folded_parse(c, cell_folded,
					      strlen(cell_folded), why,
					      sizeof(why)),
			 0);
	assert_int_equal(profile_diff_build(b, c, 1.0, &d), 0);
	assert_true(d.scaled);
	/* the self contributions add up to the slowdown */
	for (size_t i = 0; i < d.n; i++)
		sum += d.v[i].self_delta;
	assert_true(fabs(sum - 1.0) < 1e-9);
	/* biggest first: do_user_addr_fault 0.3*2-0 = +0.6 */
	assert_string_equal(d.v[0].name, "do_user_addr_fault");
	assert_true(fabs(d.v[0].self_delta - 0.6) < 1e-9);
	e = entry(&d, "main");
	assert_true(fabs(e->self_delta - (0.5 * 2 - 0.7)) < 1e-9);
	e = entry(&d, "clear_page_erms");
	assert_true(fabs(e->self_delta + 0.3) < 1e-9);
	/* with children: asm_exc_page_fault 0.5*2 - 0.3 */
	e = &d.v[d.by_total[0]]; /* main and randwalk: 1*2 - 1, by name */
	assert_string_equal(e->name, "main");
	assert_true(fabs(e->total_delta - 1.0) < 1e-9);
	e = entry(&d, "asm_exc_page_fault");
	assert_true(fabs(e->total_delta - 0.7) < 1e-9);
	assert_true(fabs(e->total_base - 0.3) < 1e-9);
	profile_diff_release(&d);
	/* no slowdown: plain differences of shares */
	assert_int_equal(profile_diff_build(b, c, NAN, &d), 0);
	assert_false(d.scaled);
	assert_true(fabs(entry(&d, "main")->self_delta + 0.2) < 1e-9);
	profile_diff_release(&d);
	assert_int_equal(profile_diff_build(b, empty, 0.1, &d), -EINVAL);
	/* the page-fault share the shell test compares */
	assert_true(fabs(profile_share_of(b, pf) - 0.3) < 1e-9);
	assert_true(fabs(profile_share_of(c, pf) - 0.5) < 1e-9);
	assert_true(isnan(profile_share_of(empty, pf)));
	profile_free(b);
	profile_free(c);
	profile_free(empty);
}

/*
 * PROFILE_DIFF_SYMBOLS_MAX distinct frames in the two profiles compare;
 * one more is refused (-E2BIG) and leaves nothing to release.
 */
static void test_diff_symbols_cap(void **state)
{
	struct profile *b = profile_new(), *c = profile_new();
	struct profile_diff d;
	char frame[32];

	(void)state;
	/* b: "main" only; c: main;fN for N < MAX - 1: MAX names in all */
	profile_add_folded(b, "main", 4, 1);
	for (size_t i = 0; i + 1 < PROFILE_DIFF_SYMBOLS_MAX; i++) {
		int n = snprintf(frame, sizeof(frame), "main;f%zu", i);

		profile_add_folded(c, frame, (size_t)n, 1);
	}
	assert_int_equal(profile_diff_build(b, c, 0.5, &d), 0);
	assert_int_equal(d.n, PROFILE_DIFF_SYMBOLS_MAX);
	profile_diff_release(&d);
	profile_add_folded(c, "main;one_more", 13, 1);
	assert_int_equal(profile_diff_build(b, c, 0.5, &d), -E2BIG);
	assert_int_equal(d.n, 0);
	assert_null(d.v);
	/* the same from the baseline's side */
	assert_int_equal(profile_diff_build(c, b, 0.5, &d), -E2BIG);
	profile_free(b);
	profile_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_folded_parse),
	    cmocka_unit_test(test_folded_write),
	    cmocka_unit_test(test_kallsyms),
	    cmocka_unit_test(test_elf),
	    cmocka_unit_test(test_decode),
	    cmocka_unit_test(test_decode_libc_start),
	    cmocka_unit_test(test_decode_bad),
	    cmocka_unit_test(test_demangle),
	    cmocka_unit_test(test_symbolizer_demangles),
	    cmocka_unit_test(test_symbolizer_debug_file),
	    cmocka_unit_test(test_diff),
	    cmocka_unit_test(test_diff_symbols_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
