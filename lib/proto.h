/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the host <-> guest agent protocol codec (see docs/protocol.md).
 *
 * Pure code: no I/O.  The agent and the orchestrator feed it the bytes they
 * read from the virtio-serial port / libvirt stream and get JSON messages
 * (jansson json_t objects) back; they encode messages into frames to write.
 *
 * A frame is the 4 bytes "VMTX", a 4-byte big-endian payload length N with
 * 1 <= N <= PROTO_MAX_FRAME, then N bytes of UTF-8 JSON holding one object:
 *
 *	{"v": 1, "id": 7, "type": "run", ...}
 *
 * The decoder never trusts the peer: a bad magic, an oversized or zero
 * length, invalid JSON, a non-object, a missing or wrong "v"/"id"/"type" all
 * produce an error result instead of a message, and the decoder resyncs by
 * skipping to the next "VMTX".  Its buffer never grows beyond
 * PROTO_MAX_FRAME + 8 bytes.
 *
 * Ownership: messages returned by proto_decoder_next() are owned by the
 * caller (json_decref).  Encoded frames are malloc'd and owned by the caller.
 */
#ifndef VMTAX_PROTO_H
#define VMTAX_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "runner.h"

#define PROTO_VERSION 1
#define PROTO_MAGIC "VMTX"
#define PROTO_HDR_LEN 8
/* The virtio-serial channel the agent listens on: the domain XML's
 * channel target, the guest's /dev/virtio-ports/ name, the unit's device. */
#define PROTO_PORT_NAME "org.vmtax.agent.0"
/* Bytes per read-file reply, or per write-file request, at most
 * (docs/protocol.md): the agent's limit (agent-files.c) and the host's
 * request size (agent-client.c, lab-sync.c, lab-session.c). */
#define AGENT_FILE_CHUNK (256 * 1024)

struct proto_decoder {
	unsigned char *buf;
	size_t len;
	size_t cap;
	size_t skipped;		/* garbage dropped by feed, not yet reported */
	size_t dropped;		/* bytes feed could not hold, not yet reported */
	size_t gap;		/* offset in buf where they were dropped */
	bool resyncing;		/* inside a run of garbage already reported */
};

void proto_decoder_init(struct proto_decoder *d);
void proto_decoder_release(struct proto_decoder *d);
/*
 * Append received bytes.  Never fails; excess garbage is dropped.  Callers
 * that read from a stream should read at most proto_decoder_room() bytes and
 * drain proto_decoder_next() after each feed: then nothing but garbage is
 * ever dropped.  If more is fed than fits behind a complete frame, the excess
 * is dropped and the next call to proto_decoder_next() reports it.
 */
void proto_decoder_feed(struct proto_decoder *d, const void *data, size_t n);
/* Bytes that can be fed now without dropping anything (always >= 1 once
 * proto_decoder_next() has returned 0). */
size_t proto_decoder_room(const struct proto_decoder *d);
/* Forget buffered bytes and state (e.g. when the peer reconnects). */
void proto_decoder_reset(struct proto_decoder *d);
/*
 * Take the next message.  Returns 1 and sets *msg when a valid message was
 * decoded; 0 when more bytes are needed; -EPROTO (or -EMSGSIZE for an
 * oversized frame) when a bad frame was consumed, with a description in
 * errbuf.  Call again after an error: later frames are still decoded.
 */
int proto_decoder_next(struct proto_decoder *d, json_t **msg, char *errbuf,
		       size_t errlen);

/* Encode msg (a JSON object) as one frame.  -EMSGSIZE when too large. */
int proto_encode(const json_t *msg, char **frame, size_t *len);

/* Message builders (all return new references). */
json_t *proto_request_new(uint64_t id, const char *type);
json_t *proto_reply_ok_new(uint64_t id, json_t *result /* stolen */);
json_t *proto_reply_err_new(uint64_t id, const char *code, const char *msg);
json_t *proto_event_new(uint64_t id, const char *type);

/* Accessors; return NULL/0 when absent. */
const char *proto_type(const json_t *msg);
uint64_t proto_id(const json_t *msg);

/*
 * A measured sample as JSON, with the field names results.json uses
 * (docs/results-format.md): status, exit_status, elapsed_s, user_s, sys_s,
 * max_rss_kb, minor_faults, major_faults, counters {name: int|null}; and
 * "output" when with_output.
 */
json_t *proto_sample_to_json(const struct runner_result *r, int with_output);
/*
 * The reverse, for the host reading a guest's run reply.  -EPROTO if bad;
 * reports nothing.  Counters that are null or absent come back with
 * supported=false.  On success r->output is owned by r (runner_result_release).
 */
int proto_sample_from_json(const json_t *j, struct runner_result *r);
/* The same, with a description of what is wrong in errbuf. */
int proto_sample_parse(const json_t *j, struct runner_result *r, char *errbuf,
		       size_t errlen);

#endif
