/* SPDX-License-Identifier: MIT */
/*
 * base64.h - RFC 4648 base64 (standard alphabet, '=' padding, no line
 * breaks), for the bytes of files that travel in the agent protocol's JSON
 * (read-file, write-file: docs/protocol.md).  Pure code, shared by the host
 * and the agent.
 */
#ifndef VMTAX_BASE64_H
#define VMTAX_BASE64_H

#include <stddef.h>

/* The encoded length of N bytes, without the NUL. */
#define BASE64_LEN(n) (((n) + 2) / 3 * 4)

/* Encode LEN bytes of IN into a new NUL-terminated string. */
char *base64_encode_new(const void *in, size_t len);
/*
 * Decode the NUL-terminated S into a new buffer (*OUT, NUL-terminated for
 * convenience; *LEN bytes).  Returns 0, or -EINVAL when S is not canonical
 * base64 (a length that is not a multiple of 4, a character outside the
 * alphabet, padding anywhere but at the end).
 */
int base64_decode_new(const char *s, unsigned char **out, size_t *len);

#endif
