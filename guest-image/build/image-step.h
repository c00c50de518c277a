/* SPDX-License-Identifier: MIT */
/*
 * image-step.h - the steps of an image build (image.c, image-disk.c,
 * image-rootfs.c): external programs run with progress, their logs, our
 * temporary trees.
 */
#ifndef VMTAX_IMAGE_STEP_H
#define VMTAX_IMAGE_STEP_H

#include <stdbool.h>

#define HEARTBEAT_S 30.0 /* a step's progress line, this often */

bool image_exists(const char *path);
/*
 * Run ARGV, its output appended to LOG (NULL: to our stderr), and wait,
 * with a progress line every HEARTBEAT_S.  STEP names it in messages.
 * 0, or a negative errno, reported.
 */
int image_step_run(const char *step, char *const argv[], const char *log);
/* Show the last LINES lines of LOG after a failed step. */
void image_log_tail(const char *log, int lines);
/* rm -rf PATH, for our own temporary trees under the image directory. */
int image_remove_tree(const char *path);

#endif
