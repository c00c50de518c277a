// SPDX-License-Identifier: MIT
/* guest-pvh.c - the guest kernel's ELF, booted through PVH (guest-pvh.h). */
#include "guest-pvh.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Documentation/x86/boot.rst: offsets in the bzImage's set-up header. */
#define BZ_SETUP_SECTS 0x1f1
#define BZ_HEADER 0x202 /* "HdrS" */
#define BZ_VERSION 0x206
#define BZ_PAYLOAD_OFFSET 0x248
#define BZ_PAYLOAD_LENGTH 0x24c
#define BZ_VERSION_PAYLOAD 0x0208 /* the first with payload_offset */
/* XEN_ELFNOTE_PHYS32_ENTRY (xen/include/public/elfnote.h): the PVH entry. */
#define PVH_NOTE_TYPE 18
/* A kernel bigger than this unpacked is not one vmtax boots. */
#define PVH_ELF_MAX (512u << 20)
#define BZIMAGE_MAX (256u << 20)

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The compressed payload of bzImage BZ: *P, *N.  0 or -EINVAL (*WHY). */
static int bz_payload(const unsigned char *bz, size_t len,
		      const unsigned char **p, size_t *n, const char **why)
{
	size_t setup, off, plen;

	if (len < BZ_PAYLOAD_LENGTH + 4 || memcmp(bz + BZ_HEADER, "HdrS", 4)) {
		*why = "not a bzImage (no \"HdrS\" set-up header)";
		return -EINVAL;
	}
	if ((bz[BZ_VERSION] | bz[BZ_VERSION + 1] << 8) < BZ_VERSION_PAYLOAD) {
		*why = "boot protocol older than 2.08 (no payload offset)";
		return -EINVAL;
	}
	setup = bz[BZ_SETUP_SECTS] ? bz[BZ_SETUP_SECTS] : 4;
	setup = (setup + 1) * 512;
	off = le32(bz + BZ_PAYLOAD_OFFSET);
	plen = le32(bz + BZ_PAYLOAD_LENGTH);
	if (setup > len || off > len - setup || plen > len - setup - off ||
	    plen < 4) {
		*why = "its payload lies outside the file";
		return -EINVAL;
	}
	*p = bz + setup + off;
	*n = plen;
	return 0;
}

/* ELF64 x86-64 IMG of LEN bytes has a PVH entry note. */
static bool elf_has_pvh(const unsigned char *img, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	size_t i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > len ||
	    eh->e_phnum > (len - eh->e_phoff) / sizeof(Elf64_Phdr))
		return false;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph =
		    (const Elf64_Phdr *)(img + eh->e_phoff) + i;
		size_t at, end;

		if (ph->p_type != PT_NOTE || ph->p_offset > len ||
		    ph->p_filesz > len - ph->p_offset)
			continue;
		at = ph->p_offset;
		end = at + ph->p_filesz;
		while (end - at >= sizeof(Elf64_Nhdr)) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(img + at);
			size_t name = (nh->n_namesz + 3) & ~(size_t)3;
			size_t desc = (nh->n_descsz + 3) & ~(size_t)3;

			at += sizeof(*nh);
			if (name > end - at || desc > end - at - name)
				break;
			if (nh->n_type == PVH_NOTE_TYPE && nh->n_namesz == 4 &&
			    !memcmp(img + at, "Xen", 4))
				return true;
			at += name + desc;
		}
	}
	return false;
}

/* xz stream P of N bytes into *OUT, exactly SIZE bytes.  0 or -EINVAL. */
static int xz_unpack(const unsigned char *p, size_t n, size_t size,
		     char **out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;
	char *buf = xmalloc(size ? size : 1);

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) {
		free(buf);
		return -ENOMEM;
	}
	s.next_in = p;
	s.avail_in = n;
	s.next_out = (uint8_t *)buf;
	s.avail_out = size;
	r = lzma_code(&s, LZMA_FINISH);
	if (r != LZMA_STREAM_END || s.total_out != size) {
		lzma_end(&s);
		free(buf);
		return -EINVAL;
	}
	lzma_end(&s);
	*out = buf;
	return 0;
}

int guest_pvh_unpack(const void *bz, size_t len, char **elf, size_t *elf_len,
		     const char **why)
{
	static const unsigned char xz_magic[] = {0xfd, '7', 'z', 'X', 'Z', 0};
	const unsigned char *p;
	size_t n, size;
	int ret = bz_payload(bz, len, &p, &n, why);

	if (ret < 0)
		return ret;
	if (n < sizeof(xz_magic) + 4 || memcmp(p, xz_magic, sizeof(xz_magic))) {
		*why = "its payload is not xz-compressed";
		return -ENOTSUP;
	}
	/* The kernel's build appends the unpacked size (size_append). */
	size = le32(p + n - 4);
	if (size > PVH_ELF_MAX) {
		*why = "its payload's unpacked size is out of range";
		return -EINVAL;
	}
	if (xz_unpack(p, n - 4, size, elf) < 0) {
		*why = "its xz payload does not unpack";
		return -EINVAL;
	}
	if (!elf_has_pvh((const unsigned char *)*elf, size)) {
		free(*elf);
		*elf = NULL;
		*why = "its kernel has no PVH entry (CONFIG_PVH)";
		return -ENOTSUP;
	}
	*elf_len = size;
	return 0;
}

int guest_pvh_for(const char *images, const char *vmlinuz, char **out)
{
	char *bz = NULL, *elf = NULL, *path = NULL;
	const char *why = NULL;
	size_t len, elf_len;
	int ret = read_file(vmlinuz, BZIMAGE_MAX, &bz, &len);

	if (ret < 0) {
		err_code(ret, "cannot read the guest kernel '%s'", vmlinuz);
		goto out;
	}
	path = xasprintf("%s/" GUEST_PVH_PREFIX "%016" PRIx64 GUEST_PVH_SUFFIX,
			 images, hash_fnv1a(bz, len));
	if (access(path, R_OK) == 0)
		goto out;
	ret = guest_pvh_unpack(bz, len, &elf, &elf_len, &why);
	if (ret < 0) {
		note("guest kernel '%s': booted as a bzImage, not through "
		     "PVH: %s",
		     vmlinuz, why);
		ret = -ENOTSUP;
		goto out;
	}
	ret = write_file_atomic(path, elf, elf_len);
out:
	if (ret == 0) {
		*out = path;
		path = NULL;
	}
	free(path);
	free(elf);
	free(bz);
	return ret;
}
