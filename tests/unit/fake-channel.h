/* SPDX-License-Identifier: MIT */
/*
 * fake-channel.h - the agent channel of a fake struct vm, for the unit
 * tests that replace vm.c (test-agent-client, test-vm-life): what the
 * "guest" sends back is queued as protocol frames and read in pieces, and
 * what the host sends is decoded one request at a time.  Include after
 * <cmocka.h>.
 */
#ifndef VMTAX_TEST_FAKE_CHANNEL_H
#define VMTAX_TEST_FAKE_CHANNEL_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

/* Frames the fake guest has sent, and how far the host has read. */
struct fake_rx {
	char *buf;
	size_t len, off;
};

/* Queue MSG (stolen) as one frame. */
static inline void fake_rx_queue(struct fake_rx *rx, json_t *msg)
{
	char *frame;
	size_t len;

	assert_int_equal(proto_encode(msg, &frame, &len), 0);
	json_decref(msg);
	rx->buf = xrealloc(rx->buf, rx->len + len);
	memcpy(rx->buf + rx->len, frame, len);
	rx->len += len;
	free(frame);
}

/* vm_recv(): up to LEN queued bytes into BUF; 0 when none are left. */
static inline int fake_rx_read(struct fake_rx *rx, void *buf, size_t len)
{
	size_t n = rx->len - rx->off < len ? rx->len - rx->off : len;

	memcpy(buf, rx->buf + rx->off, n);
	rx->off += n;
	return (int)n;
}

static inline bool fake_rx_drained(const struct fake_rx *rx)
{
	return rx->off == rx->len;
}

static inline void fake_rx_release(struct fake_rx *rx)
{
	free(rx->buf);
	memset(rx, 0, sizeof(*rx));
}

/* vm_send(): the one request in BUF (the test fails on anything else). */
static inline json_t *fake_request_decode(const void *buf, size_t len)
{
	struct proto_decoder d;
	json_t *req = NULL;
	char err[128];

	proto_decoder_init(&d);
	proto_decoder_feed(&d, buf, len);
	assert_int_equal(proto_decoder_next(&d, &req, err, sizeof(err)), 1);
	proto_decoder_release(&d);
	return req;
}

#endif
