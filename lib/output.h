/* SPDX-License-Identifier: MIT */
/*
 * output.h - writing where the user pointed -o: a report, a comparison, an
 * image's stable link.  vmtax runs as root, and a path given on the command
 * line may name anything; what is there decides how it is written (the rule
 * of git's lockfile.c: decide what the target really is before writing):
 *
 *   "-", /dev/stdout, /dev/stderr   the process's own descriptor 1 or 2
 *   absent, or a regular file       atomically: PATH.tmp.PID, fsync, rename
 *   a character device, a FIFO      a plain write to what is there, never
 *                                   replaced (-o /dev/null stays a device)
 *   a socket (AF_UNIX)              connected to and written
 *   a directory, a symbolic link,   refused with the reason, nothing written
 *   a block device, anything else
 *
 * A symbolic link is refused whoever made it: the user names its target
 * instead.  output_check() says up front whether output_write() would
 * refuse, so a command can refuse before it does any work; it opens
 * nothing.  Both return 0 or a negative errno (-EISDIR, -ELOOP, -ENOTBLK
 * for a block device...) and report once, naming the path and the reason.
 */
#ifndef VMTAX_OUTPUT_H
#define VMTAX_OUTPUT_H

#include <stddef.h>

/* What -o does, for --help and the man pages (22 columns in). */
#define OUTPUT_HELP                                                        \
	"write FILE instead of stdout: a new or regular file\n"          \
	"atomically, a device, FIFO or socket written to as it\n"        \
	"is; a directory, symlink or block device refused; - is\n"       \
	"stdout"

int output_check(const char *path);
int output_write(const char *path, const void *data, size_t len);

/*
 * For -o of a symbolic link vmtax keeps (image build's stable link): PATH
 * may be absent or a symbolic link (it is replaced); anything else is
 * refused as output_check() refuses, with the reason.
 */
int output_check_link(const char *path);

#endif
