/* SPDX-License-Identifier: MIT */
/*
 * agent-files.h - the agent's read-file and write-file requests
 * (docs/protocol.md): bytes of files in the guest, base64 in JSON, in
 * chunks of at most AGENT_FILE_CHUNK bytes (proto.h).  `vmtax lab` uses them to put a
 * config into the lab host and to bring a run directory back.
 *
 * Each handler checks REQ and returns the result object (new reference), or
 * NULL with *CODE ("bad-request", "io-error") and MSG set.  LOG gets a line
 * for the agent's own log either way.
 */
#ifndef VMTAX_AGENT_FILES_H
#define VMTAX_AGENT_FILES_H

#include <jansson.h>
#include <stddef.h>

json_t *agent_read_file_new(const json_t *req, const char **code, char *msg,
			    size_t mlen, char *log, size_t llen);
json_t *agent_write_file_new(const json_t *req, const char **code, char *msg,
			     size_t mlen, char *log, size_t llen);

#endif
