/* SPDX-License-Identifier: MIT */
/*
 * layout.h - where vmtax finds its own files: in a build tree, or installed
 * by 'make install' (and the Debian package).  One lookup serves both; the
 * installed case is one more candidate of guest_bindir_find().
 *
 *   what                 build tree (today)          installed (PREFIX P)
 *   vmtax                T/build/vmtax               P/bin/vmtax
 *   BIN: agent, workloads  EXE_DIR/bin, EXE_DIR/../bin  LIBEXECDIR
 * (P/libexec/vmtax) images               BIN/../images CACHEDIR/images
 *                                                    (/var/cache/vmtax/images)
 *   source sets          BIN/../src                  CACHEDIR/src
 *                        (guest-files.h guest_srcdir_new())
 *   workload INIs        T/configs/workloads         DATADIR/configs/workloads
 *   configs              ./configs                   DATADIR/configs
 *   tiny script          T/guest-image/build/mkinitramfs-tiny.sh
 *                                                    DATADIR/mkinitramfs-tiny.sh
 *   root initrd script   T/guest-image/build/mkinitramfs-root.sh
 *                                                    DATADIR/mkinitramfs-root.sh
 *   host lock, journal   STATEDIR (/var/lib/vmtax), both
 *   workload shell       $BUSYBOX, else LAYOUT_BUSYBOX, both (layout_busybox())
 *   run estimate figures CACHEDIR/timings.json, both (timings.h)
 *
 * (T is the tree of BIN: BIN/../.. or BIN/.., whichever holds the file;
 * "./" the working directory, where neither does, as the build tree always
 * had it; DATADIR is P/share/vmtax.)  The lab image's /opt/vmtax/{vmtax,bin,images} is a
 * build tree.  A config's workload dir stays relative to the config file,
 * so DATADIR/configs/demo.ini finds DATADIR/configs/workloads from any
 * working directory.
 *
 * The installed directories are fixed when vmtax is built: the Makefile
 * writes them into $(B)/gen/install-dirs.h, which only layout.c includes
 * (change PREFIX and that header, and so layout.o, is rebuilt).  A vmtax is
 * installed when its own directory is the configured bindir and LIBEXECDIR
 * holds the agent; a bin directory BIN is the installed one when it is
 * LIBEXECDIR.  The images are kept under /var/cache so libvirt's QEMU
 * (user libvirt-qemu) may read them (0644 files, 0755 directories).
 *
 * Strings returned as const char * are static (borrowed); _new ones are
 * owned by the caller.
 */
#ifndef VMTAX_LAYOUT_H
#define VMTAX_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* The installed directories, as configured (DESTDIR not included). */
struct layout_dirs {
	const char *bindir;	/* P/bin: vmtax */
	const char *libexecdir; /* P/libexec/vmtax: the agent and workloads */
	const char *datadir;	/* P/share/vmtax: configs, workload INIs */
	const char *cachedir;	/* /var/cache/vmtax: images, timings.json */
	const char *statedir;	/* /var/lib/vmtax: host lock and journal */
};

const struct layout_dirs *layout_dirs(void);

/* Whether BIN (a canonical bin directory) is the installed LIBEXECDIR. */
bool layout_installed_bin(const char *bin);

/*
 * The installed bin directory for a vmtax living in EXE_DIR, into BUF: D's
 * libexecdir when EXE_DIR is D's bindir (canonically) and the libexecdir
 * holds vmtax-agent.  Returns 0, or -ENOENT when EXE_DIR is not installed.
 */
int layout_installed_find(const struct layout_dirs *d, const char *exe_dir,
			  char *buf, size_t len);

/*
 * The bin directory of the running vmtax into BUF (canonical in a build
 * tree), and its own path into EXE: the installed LIBEXECDIR, else
 * EXE_DIR/bin, else EXE_DIR/../bin.  Returns 0, -ENOENT when there is none,
 * or another negative errno (/proc/self/exe unreadable); reports nothing.
 */
int layout_bin_find(char *buf, size_t len, char *exe, size_t exe_len);

/*
 * The shell of every workload command, on both sides: a static busybox,
 * whose ash runs "sh -c CMD" (lib/runner.h), so that a script's baseline
 * and its guest cells run the same program (docs/adding-a-workload.md).
 * The tiny image copies layout_busybox() to LAYOUT_BUSYBOX, the debian and
 * lab images carry it there too, and bare-metal cells run it where it is.
 */
#define LAYOUT_BUSYBOX "/bin/busybox"
/* This host's static busybox: $BUSYBOX (lib/env.h), else LAYOUT_BUSYBOX. */
const char *layout_busybox(void);

/* The workload definitions for bin directory BIN (see the table). */
const char *layout_workloads_dir(const char *bin);
/* The tiny image's script for bin directory BIN. */
const char *layout_tiny_script(const char *bin);
/* The initramfs script of the images built from the host's packages. */
const char *layout_root_script(const char *bin);

#endif
