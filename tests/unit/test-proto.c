/* SPDX-License-Identifier: MIT */
/* Unit tests for the protocol codec (lib/proto.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

/* A frame around an arbitrary payload, bypassing proto_encode's checks. */
static size_t raw_frame(unsigned char *out, const char *magic, uint32_t len,
			const char *payload)
{
	size_t n = strlen(payload);

	memcpy(out, magic, 4);
	out[4] = len >> 24;
	out[5] = len >> 16;
	out[6] = len >> 8;
	out[7] = len;
	memcpy(out + 8, payload, n);
	return 8 + n;
}

static size_t payload_frame(unsigned char *out, const char *payload)
{
	return raw_frame(out, PROTO_MAGIC, strlen(payload), payload);
}

static void encode_req(uint64_t id, const char *type, char **frame, size_t *len)
{
	json_t *m = proto_request_new(id, type);

	assert_non_null(m);
	assert_int_equal(proto_encode(m, frame, len), 0);
	json_decref(m);
}

static void expect_msg(struct proto_decoder *d, uint64_t id, const char *type)
{
	char errbuf[256];
	json_t *m = NULL;

	assert_int_equal(proto_decoder_next(d, &m, errbuf, sizeof(errbuf)), 1);
	assert_non_null(m);
	assert_int_equal(proto_id(m), id);
	assert_string_equal(proto_type(m), type);
	json_decref(m);
}

static void expect_err(struct proto_decoder *d, int code, const char *what)
{
	char errbuf[256];
	json_t *m = NULL;

	assert_int_equal(proto_decoder_next(d, &m, errbuf, sizeof(errbuf)),
			 code);
	assert_null(m);
	if (what && !strstr(errbuf, what))
		fail_msg("error '%s' does not mention '%s'", errbuf, what);
}

static void expect_more(struct proto_decoder *d)
{
	char errbuf[256];
	json_t *m = NULL;

	assert_int_equal(proto_decoder_next(d, &m, errbuf, sizeof(errbuf)), 0);
	assert_null(m);
}

static void test_round_trip(void **state)
{
	struct proto_decoder d;
	char errbuf[256], *frame;
	json_t *m, *got = NULL;
	size_t len;

	(void)state;
	m = proto_request_new(42, "run");
	json_object_set_new(m, "cmd", json_string("echo \"h\u00e9\" <&>"));
	json_object_set_new(m, "timeout_s", json_real(2.5));
	assert_int_equal(proto_encode(m, &frame, &len), 0);
	assert_memory_equal(frame, "VMTX", 4);
	assert_int_equal(len, 8 + ((size_t)(unsigned char)frame[6] << 8 |
				   (unsigned char)frame[7]));

	proto_decoder_init(&d);
	proto_decoder_feed(&d, frame, len);
	assert_int_equal(proto_decoder_next(&d, &got, errbuf, sizeof(errbuf)),
			 1);
	assert_true(json_equal(m, got));
	expect_more(&d);
	assert_int_equal(d.len, 0);

	json_decref(got);
	json_decref(m);
	free(frame);
	proto_decoder_release(&d);
}

static void test_builders(void **state)
{
	json_t *ok, *bad, *ev;

	(void)state;
	ok = proto_reply_ok_new(3, json_pack("{s:i}", "x", 1));
	assert_string_equal(proto_type(ok), "reply");
	assert_int_equal(proto_id(ok), 3);
	assert_true(json_is_true(json_object_get(ok, "ok")));
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(ok, "result"), "x")),
			 1);
	bad = proto_reply_err_new(4, "unknown-type", "no such type 'x'");
	assert_true(json_is_false(json_object_get(bad, "ok")));
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(bad, "error"), "code")),
			    "unknown-type");
	ev = proto_event_new(0, "ready");
	assert_int_equal(json_integer_value(json_object_get(ev, "v")), 1);
	assert_int_equal(proto_id(ev), 0);
	assert_null(proto_type(json_object_get(ev, "nope")));
	json_decref(ok);
	json_decref(bad);
	json_decref(ev);
}

static void test_bytewise(void **state)
{
	struct proto_decoder d;
	char *frame;
	size_t len, i;

	(void)state;
	encode_req(7, "hello", &frame, &len);
	proto_decoder_init(&d);
	for (i = 0; i < len - 1; i++) {
		proto_decoder_feed(&d, frame + i, 1);
		expect_more(&d);
	}
	proto_decoder_feed(&d, frame + len - 1, 1);
	expect_msg(&d, 7, "hello");
	expect_more(&d);
	free(frame);
	proto_decoder_release(&d);
}

static void test_two_frames(void **state)
{
	struct proto_decoder d;
	char *a, *b, *both;
	size_t alen, blen;

	(void)state;
	encode_req(1, "hello", &a, &alen);
	encode_req(2, "shutdown", &b, &blen);
	both = malloc(alen + blen);
	memcpy(both, a, alen);
	memcpy(both + alen, b, blen);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, both, alen + blen);
	expect_msg(&d, 1, "hello");
	expect_msg(&d, 2, "shutdown");
	expect_more(&d);
	free(a);
	free(b);
	free(both);
	proto_decoder_release(&d);
}

static void test_bad_magic_resync(void **state)
{
	struct proto_decoder d;
	unsigned char buf[256];
	char *good;
	size_t glen, n;

	(void)state;
	encode_req(9, "hello", &good, &glen);
	n = raw_frame(buf, "XMTV", 20, "{\"v\":1,\"id\":8,\"type\":\"x\"}");
	memcpy(buf + n, "VMT", 3); /* a false start */
	n += 3;
	memcpy(buf + n, good, glen);
	n += glen;
	proto_decoder_init(&d);
	proto_decoder_feed(&d, buf, n);
	expect_err(&d, -EPROTO, "bad magic");
	expect_msg(&d, 9, "hello");
	expect_more(&d);
	free(good);
	proto_decoder_release(&d);
}

static void test_magic_prefix_kept(void **state)
{
	struct proto_decoder d;
	char *good;
	size_t glen;

	(void)state;
	encode_req(5, "hello", &good, &glen);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, "garbageVM", 9);
	expect_err(&d, -EPROTO, "skipped 7 bytes");
	expect_more(&d);
	assert_int_equal(d.len, 2);
	proto_decoder_feed(&d, good + 2, glen - 2);
	expect_msg(&d, 5, "hello");
	free(good);
	proto_decoder_release(&d);
}

static void test_oversized(void **state)
{
	struct proto_decoder d;
	unsigned char hdr[8];
	char *good, *junk;
	size_t glen, junklen = 200000;

	(void)state;
	encode_req(11, "hello", &good, &glen);
	raw_frame(hdr, PROTO_MAGIC, PROTO_MAX_FRAME + 1, "");
	junk = malloc(junklen);
	memset(junk, '{', junklen);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, hdr, 8);
	expect_err(&d, -EMSGSIZE, "exceeds");
	/* The peer may send the payload anyway: it is skipped quietly. */
	proto_decoder_feed(&d, junk, junklen);
	expect_more(&d);
	proto_decoder_feed(&d, good, glen);
	expect_msg(&d, 11, "hello");
	expect_more(&d);

	/* A length far beyond the limit too. */
	raw_frame(hdr, PROTO_MAGIC, 0xffffffffu, "");
	proto_decoder_feed(&d, hdr, 8);
	proto_decoder_feed(&d, good, glen);
	expect_err(&d, -EMSGSIZE, NULL);
	expect_msg(&d, 11, "hello");
	free(good);
	free(junk);
	proto_decoder_release(&d);
}

static void test_max_frame_fits(void **state)
{
	struct proto_decoder d;
	size_t n = PROTO_MAX_FRAME, len;
	char *frame, *text;
	json_t *m;

	(void)state;
	/* {"v":1,"id":1,"type":"x","p":"aaaa..."} of exactly the limit */
	text = malloc(n);
	memset(text, 'a', n);
	m = proto_request_new(1, "x");
	text[n - 32] = '\0';
	json_object_set_new(m, "p", json_string(text));
	assert_int_equal(proto_encode(m, &frame, &len), 0);
	assert_true(len <= PROTO_MAX_FRAME + 8);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, frame, len);
	expect_msg(&d, 1, "x");
	free(frame);
	json_decref(m);

	/* One past the limit cannot be encoded. */
	m = proto_request_new(1, "x");
	memset(text, 'a', n);
	text[n - 31] = '\0';
	json_object_set_new(m, "p", json_string(text));
	assert_int_equal(proto_encode(m, &frame, &len), -EMSGSIZE);
	assert_null(frame);
	json_decref(m);
	free(text);
	proto_decoder_release(&d);
}

static void test_zero_length(void **state)
{
	struct proto_decoder d;
	unsigned char buf[64];
	char *good;
	size_t glen, n;

	(void)state;
	encode_req(3, "hello", &good, &glen);
	n = raw_frame(buf, PROTO_MAGIC, 0, "");
	memcpy(buf + n, good, glen);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, buf, n + glen);
	expect_err(&d, -EPROTO, "zero-length");
	expect_msg(&d, 3, "hello");
	free(good);
	proto_decoder_release(&d);
}

/* Payloads that are framed correctly but are not valid messages. */
static void test_bad_payloads(void **state)
{
	static const struct {
		const char *payload;
		const char *why;
	} cases[] = {
	    {"{\"v\":1,\"id\":1,", "invalid json"},
	    {"not json at all", "invalid json"},
	    {"{\"v\":1,\"id\":1,\"type\":\"a\"} trailing", "invalid json"},
	    {"{\"v\":1,\"id\":1,\"type\":\"a\",\"type\":\"b\"}",
	     "invalid json"},
	    {"\xff\xfe{}", "invalid json"},
	    {"[1,2,3]", "not a json object"},
	    {"\"string\"", "not a json object"},
	    {"{\"id\":1,\"type\":\"hello\"}", "missing 'v'"},
	    {"{\"v\":2,\"id\":1,\"type\":\"hello\"}", "version"},
	    {"{\"v\":\"1\",\"id\":1,\"type\":\"hello\"}", "version"},
	    {"{\"v\":1,\"type\":\"hello\"}", "missing 'id'"},
	    {"{\"v\":1,\"id\":-1,\"type\":\"hello\"}", "'id'"},
	    {"{\"v\":1,\"id\":1.5,\"type\":\"hello\"}", "'id'"},
	    {"{\"v\":1,\"id\":\"1\",\"type\":\"hello\"}", "'id'"},
	    {"{\"v\":1,\"id\":1}", "missing 'type'"},
	    {"{\"v\":1,\"id\":1,\"type\":7}", "'type'"},
	    {"{\"v\":1,\"id\":1,\"type\":\"\"}", "'type'"},
	};
	struct proto_decoder d;
	unsigned char buf[256];
	char *good;
	size_t glen, i;

	(void)state;
	encode_req(77, "hello", &good, &glen);
	proto_decoder_init(&d);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t n = payload_frame(buf, cases[i].payload);

		memcpy(buf + n, good, glen);
		proto_decoder_feed(&d, buf, n + glen);
		expect_err(&d, -EPROTO, cases[i].why);
		expect_msg(&d, 77, "hello");
		expect_more(&d);
	}
	free(good);
	proto_decoder_release(&d);
}

static void test_truncated(void **state)
{
	struct proto_decoder d;
	char *frame;
	size_t len;

	(void)state;
	encode_req(4, "hello", &frame, &len);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, frame, 3);
	expect_more(&d);
	proto_decoder_feed(&d, frame + 3, 5);
	expect_more(&d);
	proto_decoder_feed(&d, frame + 8, len - 9);
	expect_more(&d);
	expect_more(&d);
	assert_int_equal(d.len, len - 1);
	free(frame);
	proto_decoder_release(&d);
}

static void test_garbage_bounded(void **state)
{
	struct proto_decoder d;
	size_t chunk = 65536, i, errors = 0;
	unsigned char *junk;
	char *good;
	size_t glen;
	uint32_t x = 12345;

	(void)state;
	junk = malloc(chunk);
	proto_decoder_init(&d);
	/* 16 MiB of pseudo-random bytes with no "VMTX" in them. */
	for (i = 0; i < 256; i++) {
		char errbuf[128];
		json_t *m = NULL;
		size_t k;
		int r;

		for (k = 0; k < chunk; k++) {
			x = x * 1103515245 + 12345;
			junk[k] = (x >> 16) & 0xff;
			if (junk[k] == 'V')
				junk[k] = 'v';
		}
		proto_decoder_feed(&d, junk, chunk);
		while ((r = proto_decoder_next(&d, &m, errbuf,
					       sizeof(errbuf))) != 0) {
			assert_true(r < 0);
			errors++;
		}
		assert_true(d.len <= PROTO_MAX_FRAME + 8);
		assert_true(d.cap <= PROTO_MAX_FRAME + 8);
	}
	/* One run of garbage is one error, not one per read. */
	assert_int_equal(errors, 1);

	/* The same in one big feed without draining in between. */
	for (i = 0; i < 40; i++)
		proto_decoder_feed(&d, junk, chunk);
	assert_true(d.len <= PROTO_MAX_FRAME + 8);
	assert_true(d.cap <= PROTO_MAX_FRAME + 8);
	encode_req(12, "hello", &good, &glen);
	proto_decoder_feed(&d, good, glen);
	expect_msg(&d, 12, "hello");
	expect_more(&d);
	free(good);
	free(junk);
	proto_decoder_release(&d);
}

static void test_overfeed_reported(void **state)
{
	struct proto_decoder d;
	size_t len, flen, n, off = 0;
	char *frame, *text, *stream;
	json_t *m;

	(void)state;
	/* Two big frames fed at once do not both fit: the excess is
	 * dropped, reported, and the decoder recovers. */
	text = malloc(PROTO_MAX_FRAME);
	memset(text, 'b', PROTO_MAX_FRAME - 100);
	text[PROTO_MAX_FRAME - 100] = '\0';
	m = proto_request_new(1, "big");
	json_object_set_new(m, "p", json_string(text));
	assert_int_equal(proto_encode(m, &frame, &flen), 0);
	n = 2 * flen;
	stream = malloc(n);
	memcpy(stream, frame, flen);
	memcpy(stream + flen, frame, flen);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, stream, n);
	assert_true(d.len <= PROTO_MAX_FRAME + 8);
	expect_msg(&d, 1, "big");
	expect_err(&d, -EPROTO, "dropped");
	expect_more(&d);
	assert_true(proto_decoder_room(&d) >= 1);
	free(frame);
	encode_req(2, "hello", &frame, &len);
	while (off < len) {
		proto_decoder_feed(&d, frame + off, 1);
		off++;
	}
	/* the tail of the second big frame may or may not error again */
	{
		char errbuf[128];
		json_t *got = NULL;
		int r;

		while ((r = proto_decoder_next(&d, &got, errbuf,
					       sizeof(errbuf))) < 0)
			;
		assert_int_equal(r, 1);
		assert_int_equal(proto_id(got), 2);
		json_decref(got);
	}
	json_decref(m);
	free(frame);
	free(text);
	free(stream);
	proto_decoder_release(&d);
}

static void test_encode_rejects(void **state)
{
	json_t *arr = json_array();
	char *frame = (char *)1;
	size_t len = 1;

	(void)state;
	assert_int_equal(proto_encode(arr, &frame, &len), -EINVAL);
	assert_null(frame);
	assert_int_equal(len, 0);
	json_decref(arr);
}

static void test_sample_round_trip(void **state)
{
	struct runner_result r, back;
	char *frame, errbuf[256];
	struct proto_decoder d;
	json_t *j, *msg = NULL;
	size_t len;
	int i;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.status = RUNNER_TIMEOUT;
	r.exit_status = 128 + 9;
	r.elapsed_s = 1.25;
	r.user_s = 0.5;
	r.sys_s = 0.125;
	r.max_rss_kb = 65536;
	r.minor_faults = 16400;
	r.major_faults = 0;
	for (i = 0; i < RC_NR; i++) {
		r.counters[i].supported = true;
		r.counters[i].counted = true;
		r.counters[i].value = 1000 + i;
	}
	r.counters[RC_DTLB_LOADS].supported = false;
	r.counters[RC_DTLB_LOADS].counted = false;
	r.counters[RC_DTLB_LOADS].value = 0;
	r.counters[RC_CYCLES].counted = false; /* opened, never ran */
	/* [run] events: major-faults counted, dTLB-store-misses refused by
	 * the PMU; LLC-loads was not asked for. */
	i = runner_counter_lookup("major-faults");
	r.counter_set = RUNNER_COUNTERS_DEFAULT | RUNNER_COUNTER_BIT(i) |
			RUNNER_COUNTER_BIT(runner_counter_lookup("dTLB-store-misses"));
	r.counters[i].supported = r.counters[i].counted = true;
	r.counters[i].value = 3;
	r.output = "line one\nbad byte \xff\n";
	r.output_len = strlen(r.output);

	j = proto_sample_to_json(&r, 1);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")),
			    "timeout");
	assert_true(json_is_null(
	    json_object_get(json_object_get(j, "counters"), "dTLB-loads")));
	assert_true(json_is_null(
	    json_object_get(json_object_get(j, "counters"), "cycles")));
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(j, "counters"), "page-faults")),
			 1000 + RC_PAGE_FAULTS);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(j, "counters"), "major-faults")),
			 3);
	assert_true(json_is_null(json_object_get(
	    json_object_get(j, "counters"), "dTLB-store-misses")));
	assert_null(json_object_get(json_object_get(j, "counters"), "LLC-loads"));
	assert_int_equal(json_object_size(json_object_get(j, "counters")),
			 RC_NR + 2);
	assert_string_equal(json_string_value(json_object_get(j, "output")),
			    "line one\nbad byte ?\n");

	/* Through a frame, as it travels in a run reply. */
	msg = proto_reply_ok_new(5, j);
	assert_int_equal(proto_encode(msg, &frame, &len), 0);
	json_decref(msg);
	proto_decoder_init(&d);
	proto_decoder_feed(&d, frame, len);
	assert_int_equal(proto_decoder_next(&d, &msg, errbuf, sizeof(errbuf)),
			 1);
	assert_int_equal(proto_sample_parse(json_object_get(msg, "result"),
					    &back, errbuf, sizeof(errbuf)),
			 0);
	assert_int_equal(back.status, RUNNER_TIMEOUT);
	assert_int_equal(back.exit_status, 137);
	assert_true(back.elapsed_s == 1.25);
	assert_true(back.user_s == 0.5);
	assert_true(back.sys_s == 0.125);
	assert_int_equal(back.max_rss_kb, 65536);
	assert_int_equal(back.minor_faults, 16400);
	assert_int_equal(back.major_faults, 0);
	for (i = 0; i < RC_NR; i++) {
		bool null = i == RC_DTLB_LOADS || i == RC_CYCLES;

		assert_int_equal(back.counters[i].supported, !null);
		if (!null)
			assert_int_equal(back.counters[i].value, 1000 + i);
	}
	assert_true(back.counter_set == r.counter_set);
	assert_int_equal(
	    back.counters[runner_counter_lookup("major-faults")].value, 3);
	assert_false(
	    back.counters[runner_counter_lookup("dTLB-store-misses")].supported);
	assert_string_equal(back.output, "line one\nbad byte ?\n");
	free(back.output);
	/* Without output, no output key. */
	j = proto_sample_to_json(&r, 0);
	assert_null(json_object_get(j, "output"));
	assert_int_equal(proto_sample_from_json(j, &back), 0);
	assert_null(back.output);
	json_decref(j);
	json_decref(msg);
	free(frame);
	proto_decoder_release(&d);
}

static void test_sample_rejects(void **state)
{
	static const char *const bad[] = {
	    "[]",
	    "{}",
	    "{\"status\":\"weird\"}",
	    "{\"status\":\"ok\",\"exit_status\":0,\"elapsed_s\":\"1\","
	    "\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":1,\"minor_faults\":1,"
	    "\"major_faults\":0,\"counters\":{}}",
	    "{\"status\":\"ok\",\"exit_status\":0,\"elapsed_s\":1,"
	    "\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":1,\"minor_faults\":1,"
	    "\"major_faults\":0}",
	    "{\"status\":\"ok\",\"exit_status\":0,\"elapsed_s\":1,"
	    "\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":1,\"minor_faults\":1,"
	    "\"major_faults\":0,\"counters\":{\"cycles\":-5}}",
	    "{\"status\":\"ok\",\"exit_status\":0,\"elapsed_s\":1,"
	    "\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":1,\"minor_faults\":1,"
	    "\"major_faults\":0,\"counters\":{\"cycles\":1.5}}",
	    "{\"status\":\"ok\",\"exit_status\":0,\"elapsed_s\":1,"
	    "\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":1,\"minor_faults\":1,"
	    "\"major_faults\":0,\"counters\":{},\"output\":3}",
	};
	static const char *good =
	    "{\"status\":\"ok\",\"exit_status\":0,\"elapsed_s\":1,"
	    "\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":1,\"minor_faults\":1,"
	    "\"major_faults\":0,\"counters\":{\"cycles\":null,"
	    "\"future-event\":5,\"instructions\":99}}";
	struct runner_result r;
	char errbuf[256];
	json_t *j;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		j = json_loads(bad[i], 0, NULL);
		assert_non_null(j);
		assert_int_equal(
		    proto_sample_parse(j, &r, errbuf, sizeof(errbuf)), -EPROTO);
		assert_true(errbuf[0] != '\0');
		assert_null(r.output);
		json_decref(j);
	}
	j = json_loads(good, 0, NULL);
	assert_int_equal(proto_sample_from_json(j, &r), 0);
	assert_false(r.counters[RC_CYCLES].supported);
	assert_false(r.counters[RC_TASK_CLOCK].supported);
	assert_true(r.counters[RC_INSTRUCTIONS].supported);
	assert_int_equal(r.counters[RC_INSTRUCTIONS].value, 99);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_builders),
	    cmocka_unit_test(test_bytewise),
	    cmocka_unit_test(test_two_frames),
	    cmocka_unit_test(test_bad_magic_resync),
	    cmocka_unit_test(test_magic_prefix_kept),
	    cmocka_unit_test(test_oversized),
	    cmocka_unit_test(test_max_frame_fits),
	    cmocka_unit_test(test_zero_length),
	    cmocka_unit_test(test_bad_payloads),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_garbage_bounded),
	    cmocka_unit_test(test_overfeed_reported),
	    cmocka_unit_test(test_encode_rejects),
	    cmocka_unit_test(test_sample_round_trip),
	    cmocka_unit_test(test_sample_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
