/* SPDX-License-Identifier: MIT */
/*
 * untrusted.h - text that did not come from vmtax, made safe for a
 * terminal (docs/security.md, "Reports").
 *
 * Strings from a guest, the lab or a results file reach the user's
 * terminal: a guest's console, "lab|" lines, agent errors, reports in
 * text form, error messages quoting a bad value.  Any of them can hold an
 * escape sequence that moves the cursor, rewrites the window title or
 * worse.  These helpers are the one rule for all of them: a control
 * character is every C0 byte (0x00..0x1f) but the tab, DEL (0x7f) and the C1 range
 * U+0080..U+009F in its UTF-8 form (0xc2 0x80..0x9f; some terminals take
 * U+009B as CSI).  Everything else, UTF-8 included, passes unchanged.
 *
 * Pure code: no I/O but the stream given.  Linked into the guest agent.
 */
#ifndef VMTAX_UNTRUSTED_H
#define VMTAX_UNTRUSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The length of the control character at S (N bytes left): 1 for C0 and
 * DEL, 2 for C1, 0 when S does not start with one.
 */
size_t untrusted_ctrl_len(const char *s, size_t n);
/*
 * Write N bytes of S to OUT with each control character written as
 * "\xNN" (the byte, or the C1 code point: "\x9b"); a '\n' passes as is
 * when KEEP_NL (multi-line text: a console's last lines).
 */
void untrusted_fwrite(FILE *out, const char *s, size_t n, bool keep_nl);
/* The same for a NUL-terminated S, newlines escaped too. */
void untrusted_fputs(FILE *out, const char *s);
/*
 * In place, for a fixed buffer (an error's "why"): each byte of a control
 * character becomes '?', '\n' too unless KEEP_NL.  Returns S.
 */
char *untrusted_scrub(char *s, bool keep_nl);

#endif
