/* SPDX-License-Identifier: MIT */
/*
 * guest-pvh.h - the guest kernel booted through its PVH entry point.
 *
 * A Debian kernel image (vmlinuz, a bzImage) carries the kernel as an
 * xz-compressed ELF.  Booted as it is, the kernel first decompresses itself;
 * under TCG that, with the real-mode set-up and SeaBIOS's copy of the image
 * through fw_cfg, took 7 of a tiny guest's 11-14 s to its init here.  QEMU
 * boots the ELF itself when it has a PVH note (XEN_ELFNOTE_PHYS32_ENTRY:
 * CONFIG_PVH, set in Debian's kernels): no decompression, no real mode, the
 * same kernel; the tiny guest then reached its init in 3-6 s.
 *
 * guest_files_resolve() boots the unpacked ELF for kernel = auto; a kernel
 * path given in the config is booted as it is.  The ELF is made once per
 * kernel image, as IMAGES/GUEST_PVH_PREFIX HASH GUEST_PVH_SUFFIX (HASH: the
 * FNV-1a of the vmlinuz's bytes), written to a temporary name and renamed,
 * so that runs at once share it.  A kernel whose payload is not xz, or that
 * has no PVH note, is booted as a bzImage, and vmtax says so once.
 * Unlike the bzImage, the PVH entry does not randomize the kernel's
 * physical and virtual placement (KASLR is done by the decompressor): every
 * boot puts the kernel at the same addresses.
 *
 * The boot protocol fields read are those of Documentation/x86/boot.rst
 * (setup_sects, "HdrS", version >= 2.08, payload_offset, payload_length).
 */
#ifndef VMTAX_GUEST_PVH_H
#define VMTAX_GUEST_PVH_H

#include <stddef.h>

#define GUEST_PVH_PREFIX "pvh-"
#define GUEST_PVH_SUFFIX ".vmlinux"

/*
 * The ELF kernel inside the bzImage BZ of LEN bytes: *ELF (new, freed by the
 * caller) of *ELF_LEN bytes.  0; -ENOTSUP when it has none that boots
 * through PVH (a payload that is not xz, an ELF without the PVH note);
 * -EINVAL when BZ is not a bzImage or its payload is corrupt.  *WHY says
 * which (static text) on failure.  Pure: reports nothing.
 */
int guest_pvh_unpack(const void *bz, size_t len, char **elf, size_t *elf_len,
		     const char **why);

/*
 * The PVH kernel of kernel image VMLINUZ in directory IMAGES, made when it
 * is missing: *OUT (new).  0; -ENOTSUP when VMLINUZ has none (said in a
 * note: the caller boots VMLINUZ); another negative errno, reported.
 */
int guest_pvh_for(const char *images, const char *vmlinuz, char **out);

#endif
