/* SPDX-License-Identifier: MIT */
/*
 * fuzz-proto - libFuzzer target for the protocol codec (lib/proto.c).
 *
 * Input: byte 0 chooses how the rest is fed to the decoder, the rest is the
 * stream of bytes "received" from the peer.
 *	bits 0-5  chunk size - 1 (1..64), or with bit 6 set a pseudo-random
 *	          size in 1..4096 per feed, seeded by the whole byte
 *	bit 7     feed regardless of proto_decoder_room() (exercises drops)
 *
 * Checked, beyond the sanitizers:
 * - the decoder's buffer never exceeds PROTO_MAX_FRAME + 8 bytes;
 * - every decoded message re-encodes with proto_encode() and decodes again
 *   to an equal message (round trip);
 * - when the feeder respects proto_decoder_room(), nothing is dropped, and
 *   the messages are the same as when the stream is fed one byte at a time:
 *   chunk boundaries must not change what is decoded.
 * Each message's "result" also goes through proto_sample_parse() and
 * guest_obs_check() (the host's checks of a run and an observe reply).
 *
 * The agent's request handlers (guest-image/agent/agent.c) are not fuzzed here:
 * they are static, write to the port and sysfs, and "run" executes a shell
 * command, so they cannot be driven without I/O.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest-obs.h"
#include "proto.h"
#include "runner.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-proto: invariant broken: %s\n", what);
		abort();
	}
}

static void check_sample(const json_t *msg)
{
	const json_t *result = json_object_get(msg, "result");
	struct runner_result r;
	char errbuf[256];

	if (!result)
		return;
	if (proto_sample_parse(result, &r, errbuf, sizeof(errbuf)) == 0)
		runner_result_release(&r);
	else
		check(errbuf[0] != '\0', "sample error without a description");
	if (proto_sample_from_json(result, &r) == 0)
		runner_result_release(&r);
	errbuf[0] = '\0';
	if (guest_obs_check(result, errbuf, sizeof(errbuf)) < 0)
		check(errbuf[0] != '\0',
		      "observation error without a description");
}

/* Encode MSG and decode the frame again: the same message must come back. */
static void round_trip(const json_t *msg)
{
	struct proto_decoder d;
	char *frame = NULL, errbuf[256];
	json_t *again = NULL;
	size_t len;
	int ret;

	ret = proto_encode(msg, &frame, &len);
	if (ret == -EMSGSIZE)
		return; /* escapes can make a frame grow past the limit */
	check(ret == 0, "proto_encode failed on a decoded message");
	proto_decoder_init(&d);
	proto_decoder_feed(&d, frame, len);
	ret = proto_decoder_next(&d, &again, errbuf, sizeof(errbuf));
	if (ret != 1)
		fprintf(stderr, "fuzz-proto: re-decode: %d %s\n", ret, errbuf);
	check(ret == 1, "a re-encoded message does not decode");
	check(json_equal((json_t *)msg, again), "round trip changed a message");
	check(proto_id(again) == proto_id(msg), "round trip changed the id");
	check(!strcmp(proto_type(again), proto_type(msg)),
	      "round trip changed the type");
	json_decref(again);
	ret = proto_decoder_next(&d, &again, errbuf, sizeof(errbuf));
	check(ret == 0 && !again, "bytes left after one encoded frame");
	proto_decoder_release(&d);
	free(frame);
}

/* Drain D; decoded messages are appended to OUT. */
static void drain(struct proto_decoder *d, json_t *out)
{
	char errbuf[256];
	json_t *msg;
	int ret, guard = 0;

	while ((ret = proto_decoder_next(d, &msg, errbuf, sizeof(errbuf)))) {
		check(d->cap <= PROTO_MAX_FRAME + PROTO_HDR_LEN,
		      "decoder buffer grew past its bound");
		check(++guard < 1000000, "decoder does not make progress");
		if (ret < 0) {
			check(ret == -EPROTO || ret == -EMSGSIZE,
			      "unexpected error code");
			check(!msg, "error with a message");
			check(errbuf[0] != '\0', "error without a description");
			continue;
		}
		check(ret == 1 && msg, "success without a message");
		check(proto_type(msg) != NULL, "message without a type");
		check_sample(msg);
		round_trip(msg);
		json_array_append_new(out, msg);
	}
}

static uint32_t next_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

/* Feed DATA to a fresh decoder as MODE says; return the messages. */
static json_t *decode(const uint8_t *data, size_t size, uint8_t mode,
		      bool bytewise)
{
	bool respect_room = bytewise || !(mode & 0x80);
	uint32_t seed = mode;
	struct proto_decoder d;
	json_t *out = json_array();
	size_t off = 0;

	proto_decoder_init(&d);
	while (off < size) {
		size_t n, room = proto_decoder_room(&d);

		if (bytewise)
			n = 1;
		else if (mode & 0x40)
			n = 1 + next_rand(&seed) % 4096;
		else
			n = 1 + (mode & 0x3f);
		if (n > size - off)
			n = size - off;
		if (respect_room) {
			check(room >= 1, "no room after draining");
			if (n > room)
				n = room;
		}
		proto_decoder_feed(&d, data + off, n);
		if (respect_room)
			check(d.dropped == 0, "bytes dropped within the room");
		off += n;
		drain(&d, out);
	}
	drain(&d, out);
	/* A reset decoder is empty and usable again. */
	proto_decoder_reset(&d);
	check(d.len == 0, "reset left bytes behind");
	proto_decoder_release(&d);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *chunked, *bytewise;
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	chunked = decode(data, size, mode, false);
	if (!(mode & 0x80) && size <= 4096) {
		bytewise = decode(data, size, mode, true);
		check(json_equal(chunked, bytewise),
		      "chunk boundaries changed the decoded messages");
		json_decref(bytewise);
	}
	json_decref(chunked);
	return 0;
}
