/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the PVH kernel (guest-image/build/guest-pvh.c): a bzImage made here (a
 * set-up header, an xz payload of a small ELF with or without the PVH note,
 * the size the kernel's build appends) unpacks to that ELF; each bad image
 * of the table is refused with its own reason; guest_pvh_for() makes the
 * file once and names it by the image's bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest-pvh.h"
#include "util.h"

#define SETUP_SECTS 3
#define PM_START ((SETUP_SECTS + 1) * 512)
#define PAYLOAD_OFF 0x40

/* A small ELF64 x86-64 with one PT_NOTE: the PVH entry when PVH. */
static size_t elf_make(unsigned char *buf, size_t cap, bool pvh)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	size_t note = sizeof(*eh) + sizeof(*ph);
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(buf + note);
	size_t len = note + sizeof(*nh) + 4 + 4 + 4096;

	assert_true(len <= cap);
	memset(buf, 0, len);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_machine = EM_X86_64;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph->p_type = PT_NOTE;
	ph->p_offset = note;
	ph->p_filesz = sizeof(*nh) + 4 + 4;
	nh->n_namesz = 4;
	nh->n_descsz = 4;
	nh->n_type = pvh ? 18 : 17;
	memcpy(buf + note + sizeof(*nh), "Xen", 4);
	for (size_t i = note + sizeof(*nh) + 8; i < len; i++)
		buf[i] = (unsigned char)(i * 7);
	return len;
}

/* A bzImage of ELF (LEN bytes) compressed with xz into *BZ; its length. */
static size_t bz_make(const unsigned char *elf, size_t len, unsigned char **bz)
{
	size_t cap = len + 65536, n = 0, total;
	unsigned char *xz = xmalloc(cap);

	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL,
						 elf, len, xz, &n, cap),
			 LZMA_OK);
	total = PM_START + PAYLOAD_OFF + n + 4;
	*bz = xcalloc(1, total);
	(*bz)[0x1f1] = SETUP_SECTS;
	memcpy(*bz + 0x202, "HdrS", 4);
	(*bz)[0x206] = 0x0f; /* protocol 2.15 */
	(*bz)[0x207] = 0x02;
	(*bz)[0x248] = PAYLOAD_OFF;
	(*bz)[0x24c] = (unsigned char)((n + 4) & 0xff);
	(*bz)[0x24d] = (unsigned char)((n + 4) >> 8 & 0xff);
	(*bz)[0x24e] = (unsigned char)((n + 4) >> 16 & 0xff);
	memcpy(*bz + PM_START + PAYLOAD_OFF, xz, n);
	for (int i = 0; i < 4; i++)
		(*bz)[PM_START + PAYLOAD_OFF + n + i] =
		    (unsigned char)(len >> (8 * i));
	free(xz);
	return total;
}

static void unpacks_to_the_elf(void **state)
{
	unsigned char elf[8192], *bz;
	size_t len = elf_make(elf, sizeof(elf), true), n, out_len = 0;
	char *out = NULL;
	const char *why = NULL;

	(void)state;
	n = bz_make(elf, len, &bz);
	assert_int_equal(guest_pvh_unpack(bz, n, &out, &out_len, &why), 0);
	assert_int_equal(out_len, len);
	assert_memory_equal(out, elf, len);
	free(out);
	free(bz);
}

enum damage {
	NO_HDRS,
	OLD_PROTOCOL,
	PAYLOAD_OUTSIDE,
	NOT_XZ,
	NO_PVH_NOTE,
	XZ_CORRUPT,
	SIZE_WRONG,
};

static const struct bad_row {
	enum damage d;
	int ret;
	const char *why;
} bad_rows[] = {
    {NO_HDRS, -EINVAL, "not a bzImage"},
    {OLD_PROTOCOL, -EINVAL, "older than 2.08"},
    {PAYLOAD_OUTSIDE, -EINVAL, "outside the file"},
    {NOT_XZ, -ENOTSUP, "not xz-compressed"},
    {NO_PVH_NOTE, -ENOTSUP, "no PVH entry"},
    {XZ_CORRUPT, -EINVAL, "does not unpack"},
    {SIZE_WRONG, -EINVAL, "does not unpack"},
};

static void damage(unsigned char *bz, size_t n, enum damage d)
{
	unsigned char *payload = bz + PM_START + PAYLOAD_OFF;

	switch (d) {
	case NO_HDRS:
		bz[0x202] = 'X';
		break;
	case OLD_PROTOCOL:
		bz[0x206] = 0x06;
		break;
	case PAYLOAD_OUTSIDE:
		bz[0x24f] = 0x10;
		break;
	case NOT_XZ:
		payload[0] = 0x1f;
		payload[1] = 0x8b;
		break;
	case XZ_CORRUPT:
		payload[(n - PM_START - PAYLOAD_OFF) / 2] ^= 0xff;
		break;
	case SIZE_WRONG:
		bz[n - 4] ^= 1;
		break;
	case NO_PVH_NOTE:
		break;
	}
}

static void each_bad_image_its_reason(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_rows); i++) {
		const struct bad_row *r = &bad_rows[i];
		unsigned char elf[8192], *bz;
		size_t len = elf_make(elf, sizeof(elf), r->d != NO_PVH_NOTE);
		size_t n = bz_make(elf, len, &bz), out_len = 0;
		char *out = NULL;
		const char *why = NULL;

		damage(bz, n, r->d);
		assert_int_equal(guest_pvh_unpack(bz, n, &out, &out_len, &why),
				 r->ret);
		assert_null(out);
		assert_non_null(why);
		if (!strstr(why, r->why))
			fail_msg("row %zu: '%s' lacks '%s'", i, why, r->why);
		free(bz);
	}
}

/* DIR/NAME holding N bytes of DATA; its path (new). */
static char *put(const char *dir, const char *name, const void *data,
		 size_t n)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(p, data, n), 0);
	return p;
}

static void made_once_named_by_the_image(void **state)
{
	char dir[] = "/tmp/vmtax-test-pvh.XXXXXX";
	unsigned char elf[8192], *bz;
	size_t len = elf_make(elf, sizeof(elf), true), n = bz_make(elf, len, &bz);
	char *vmlinuz, *out = NULL, *again = NULL, *data = NULL, *plain;
	size_t got = 0;
	struct stat st1, st2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	vmlinuz = put(dir, "vmlinuz-1", bz, n);
	assert_int_equal(guest_pvh_for(dir, vmlinuz, &out), 0);
	assert_non_null(strstr(out, "/" GUEST_PVH_PREFIX));
	assert_int_equal(read_file(out, 1 << 20, &data, &got), 0);
	assert_int_equal(got, len);
	assert_memory_equal(data, elf, len);
	assert_int_equal(stat(out, &st1), 0);
	assert_int_equal(guest_pvh_for(dir, vmlinuz, &again), 0);
	assert_string_equal(out, again);
	assert_int_equal(stat(again, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	/* An image without the note: booted as it is, no file made. */
	free(bz);
	len = elf_make(elf, sizeof(elf), false);
	n = bz_make(elf, len, &bz);
	plain = put(dir, "vmlinuz-2", bz, n);
	free(again);
	again = NULL;
	assert_int_equal(guest_pvh_for(dir, plain, &again), -ENOTSUP);
	assert_null(again);
	unlink(out);
	unlink(vmlinuz);
	unlink(plain);
	assert_int_equal(rmdir(dir), 0);
	free(out);
	free(data);
	free(vmlinuz);
	free(plain);
	free(bz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unpacks_to_the_elf),
	    cmocka_unit_test(each_bad_image_its_reason),
	    cmocka_unit_test(made_once_named_by_the_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
