/* SPDX-License-Identifier: MIT */
#include "proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define DEC_MAX (PROTO_MAX_FRAME + PROTO_HDR_LEN)
#define DEC_MIN_CAP 4096

static const char *const status_names[] = {
    [RUNNER_OK] = "ok",
    [RUNNER_FAILED] = "failed",
    [RUNNER_TIMEOUT] = "timeout",
    [RUNNER_KILLED] = "killed",
};

static int seterr(char *errbuf, size_t errlen, int code, const char *fmt, ...)
    VMTAX_PRINTF(4, 5);

static int seterr(char *errbuf, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

void proto_decoder_init(struct proto_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

void proto_decoder_release(struct proto_decoder *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

void proto_decoder_reset(struct proto_decoder *d)
{
	d->len = 0;
	d->skipped = 0;
	d->dropped = 0;
	d->gap = 0;
	d->resyncing = false;
}

size_t proto_decoder_room(const struct proto_decoder *d)
{
	return DEC_MAX - d->len;
}

static void consume(struct proto_decoder *d, size_t n)
{
	if (d->dropped)
		d->gap = d->gap > n ? d->gap - n : 0;
	if (n >= d->len) {
		d->len = 0;
		return;
	}
	memmove(d->buf, d->buf + n, d->len - n);
	d->len -= n;
}

/*
 * Offset of the first position that may start a frame: a full "VMTX", or a
 * prefix of it at the very end of the buffer (the rest may still arrive).
 */
static size_t magic_scan(const struct proto_decoder *d)
{
	size_t i;

	for (i = 0; i < d->len; i++) {
		size_t n = d->len - i < 4 ? d->len - i : 4;

		if (!memcmp(d->buf + i, PROTO_MAGIC, n))
			return i;
	}
	return d->len;
}

/* Drop leading garbage so that the buffer starts at a possible frame. */
static size_t skip_garbage(struct proto_decoder *d)
{
	size_t off = magic_scan(d);

	consume(d, off);
	return off;
}

static void grow(struct proto_decoder *d, size_t want)
{
	size_t cap = d->cap ? d->cap : DEC_MIN_CAP;

	if (want <= d->cap)
		return;
	while (cap < want)
		cap *= 2;
	if (cap > DEC_MAX)
		cap = DEC_MAX;
	d->buf = xrealloc(d->buf, cap);
	d->cap = cap;
}

void proto_decoder_feed(struct proto_decoder *d, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n > 0) {
		size_t room = DEC_MAX - d->len, take;

		if (!room) {
			/*
			 * Full: garbage at the front can go now (it is
			 * counted and reported by the next call to next());
			 * a well-formed frame cannot, so the rest is dropped.
			 */
			size_t off = skip_garbage(d);

			if (off) {
				d->skipped += off;
				d->resyncing = true;
			}
			room = DEC_MAX - d->len;
			if (!room) {
				if (!d->dropped)
					d->gap = d->len;
				d->dropped += n;
				return;
			}
		}
		take = n < room ? n : room;
		grow(d, d->len + take);
		memcpy(d->buf + d->len, p, take);
		d->len += take;
		p += take;
		n -= take;
	}
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Check the envelope every message shares: {"v": 1, "id": N, "type": T}. */
static int check_envelope(const json_t *msg, char *errbuf, size_t errlen)
{
	const json_t *v, *id, *type;

	if (!json_is_object(msg))
		return seterr(errbuf, errlen, -EPROTO,
			      "message is not a json object");
	v = json_object_get(msg, "v");
	if (!v)
		return seterr(errbuf, errlen, -EPROTO, "missing 'v'");
	if (!json_is_integer(v) || json_integer_value(v) != PROTO_VERSION)
		return seterr(errbuf, errlen, -EPROTO,
			      "unsupported protocol version (want 'v': %d)",
			      PROTO_VERSION);
	id = json_object_get(msg, "id");
	if (!id)
		return seterr(errbuf, errlen, -EPROTO, "missing 'id'");
	if (!json_is_integer(id) || json_integer_value(id) < 0)
		return seterr(errbuf, errlen, -EPROTO,
			      "'id' is not a non-negative integer");
	type = json_object_get(msg, "type");
	if (!type)
		return seterr(errbuf, errlen, -EPROTO, "missing 'type'");
	if (!json_is_string(type) || !json_string_length(type) ||
	    json_string_length(type) > 64)
		return seterr(errbuf, errlen, -EPROTO,
			      "'type' is not a string of 1..64 bytes");
	return 0;
}

/*
 * Bytes were dropped at offset d->gap and the frame at the front runs into
 * that gap: it can never be completed.  Drop it and resync after the gap.
 */
static int report_drop(struct proto_decoder *d, char *errbuf, size_t errlen)
{
	size_t dropped = d->dropped;

	consume(d, d->gap);
	d->dropped = 0;
	d->gap = 0;
	d->resyncing = true;
	return seterr(errbuf, errlen, -EPROTO,
		      "decoder full: %zu bytes dropped", dropped);
}

/* Garbage before the next magic skipped; reported once per run of it. */
static int decoder_resync(struct proto_decoder *d, char *errbuf,
			  size_t errlen)
{
	size_t off = skip_garbage(d);

	if (off || d->skipped) {
		bool report = !d->resyncing;
		size_t total = off + d->skipped;

		/* One error per run of garbage, not one per read. */
		d->skipped = 0;
		d->resyncing = true;
		if (report)
			return seterr(errbuf, errlen, -EPROTO,
				      "bad magic: skipped %zu bytes", total);
	}
	return 0;
}

/* The whole frame of N payload bytes at the head of D, consumed. */
static int frame_parse(struct proto_decoder *d, uint32_t n, json_t **msg,
		       char *errbuf, size_t errlen)
{
	json_error_t jerr;
	json_t *j;
	int ret;

	j = json_loadb((const char *)d->buf + PROTO_HDR_LEN, n,
		       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	consume(d, PROTO_HDR_LEN + (size_t)n);
	if (!j)
		return seterr(errbuf, errlen, -EPROTO,
			      "invalid json at byte %d: %s", jerr.position,
			      jerr.text);
	ret = check_envelope(j, errbuf, errlen);
	if (ret < 0) {
		json_decref(j);
		return ret;
	}
	*msg = j;
	return 1;
}

int proto_decoder_next(struct proto_decoder *d, json_t **msg, char *errbuf,
		       size_t errlen)
{
	uint32_t n;
	int ret;

	*msg = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (d->dropped && !d->gap)
		return report_drop(d, errbuf, errlen);
	ret = decoder_resync(d, errbuf, errlen);
	if (ret)
		return ret;
	if (d->len < PROTO_HDR_LEN)
		return d->dropped && d->gap < PROTO_HDR_LEN
			   ? report_drop(d, errbuf, errlen)
			   : 0;
	d->resyncing = false;
	n = be32(d->buf + 4);
	if (n == 0) {
		consume(d, PROTO_HDR_LEN);
		return seterr(errbuf, errlen, -EPROTO, "zero-length frame");
	}
	if (n > PROTO_MAX_FRAME) {
		/* The payload, if any was sent, is skipped as garbage. */
		consume(d, PROTO_HDR_LEN);
		d->resyncing = true;
		return seterr(errbuf, errlen, -EMSGSIZE,
			      "frame of %u bytes exceeds the limit of %d",
			      (unsigned)n, PROTO_MAX_FRAME);
	}
	if (d->dropped && d->gap < PROTO_HDR_LEN + (size_t)n)
		return report_drop(d, errbuf, errlen);
	if (d->len < PROTO_HDR_LEN + (size_t)n)
		return 0;
	return frame_parse(d, n, msg, errbuf, errlen);
}

int proto_encode(const json_t *msg, char **frame, size_t *len)
{
	char *text = NULL, *f;
	size_t n;

	*frame = NULL;
	*len = 0;
	if (!json_is_object(msg))
		return -EINVAL;
	text = json_dumps(msg, JSON_COMPACT);
	if (!text)
		return -EINVAL;
	n = strlen(text);
	if (n == 0 || n > PROTO_MAX_FRAME) {
		free(text);
		return -EMSGSIZE;
	}
	f = xmalloc(PROTO_HDR_LEN + n);
	memcpy(f, PROTO_MAGIC, 4);
	f[4] = (char)(n >> 24);
	f[5] = (char)(n >> 16);
	f[6] = (char)(n >> 8);
	f[7] = (char)n;
	memcpy(f + PROTO_HDR_LEN, text, n);
	free(text);
	*frame = f;
	*len = PROTO_HDR_LEN + n;
	return 0;
}

static json_t *envelope_new(uint64_t id, const char *type)
{
	return json_pack("{s:i, s:I, s:s}", "v", PROTO_VERSION, "id",
			 (json_int_t)id, "type", type);
}

json_t *proto_request_new(uint64_t id, const char *type)
{
	return envelope_new(id, type);
}

json_t *proto_event_new(uint64_t id, const char *type)
{
	return envelope_new(id, type);
}

json_t *proto_reply_ok_new(uint64_t id, json_t *result)
{
	json_t *m = envelope_new(id, "reply");

	json_object_set_new(m, "ok", json_true());
	json_object_set_new(m, "result", result ? result : json_object());
	return m;
}

json_t *proto_reply_err_new(uint64_t id, const char *code, const char *msg)
{
	json_t *m = envelope_new(id, "reply");

	json_object_set_new(m, "ok", json_false());
	json_object_set_new(
	    m, "error",
	    json_pack("{s:s, s:s}", "code", code, "message", msg ? msg : ""));
	return m;
}

const char *proto_type(const json_t *msg)
{
	return json_string_value(json_object_get(msg, "type"));
}

uint64_t proto_id(const json_t *msg)
{
	json_int_t id = json_integer_value(json_object_get(msg, "id"));

	return id > 0 ? (uint64_t)id : 0;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return p[0] ? 1 : 0;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * Workload output is arbitrary bytes; JSON strings are UTF-8 without NUL.
 * Invalid bytes and NULs become '?'.
 */
static json_t *json_bytes_new(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *clean = xmalloc(n + 1);
	size_t i = 0;
	json_t *j;

	while (i < n) {
		size_t l = utf8_seq(p + i, n - i);

		if (!l) {
			clean[i++] = '?';
			continue;
		}
		memcpy(clean + i, p + i, l);
		i += l;
	}
	clean[n] = '\0';
	j = json_stringn(clean, n);
	free(clean);
	return j;
}

json_t *proto_sample_to_json(const struct runner_result *r, int with_output)
{
	json_t *j, *counters;
	int i;

	counters = json_object();
	/* The RC_NR always (null when not opened), and the run's events. */
	for (i = 0; i < RUNNER_COUNTER_MAX; i++) {
		const struct runner_counter_value *c = &r->counters[i];
		json_t *v;

		if (!((RUNNER_COUNTERS_DEFAULT | r->counter_set) &
		      RUNNER_COUNTER_BIT(i)))
			continue;
		if (c->supported && c->counted)
			v = json_integer((json_int_t)c->value);
		else
			v = json_null();
		json_object_set_new(counters, runner_counter_name(i), v);
	}
	/* Then its raw PMU events, named as written ("r003c"). */
	for (i = 0; i < r->raw.n; i++) {
		const struct runner_counter_value *c = &r->raw_counters[i];

		json_object_set_new(counters, r->raw.name[i],
				    c->supported && c->counted
					? json_integer((json_int_t)c->value)
					: json_null());
	}
	j = json_pack("{s:s, s:i, s:f, s:f, s:f, s:I, s:I, s:I, s:o}", "status",
		      (unsigned)r->status < ARRAY_SIZE(status_names)
			  ? status_names[r->status]
			  : "failed",
		      "exit_status", r->exit_status, "elapsed_s", r->elapsed_s,
		      "user_s", r->user_s, "sys_s", r->sys_s, "max_rss_kb",
		      (json_int_t)r->max_rss_kb, "minor_faults",
		      (json_int_t)r->minor_faults, "major_faults",
		      (json_int_t)r->major_faults, "counters", counters);
	if (with_output) {
		json_object_set_new(
		    j, "output",
		    json_bytes_new(r->output ? r->output : "",
				   r->output ? r->output_len : 0));
		json_object_set_new(j, "output_truncated",
				    json_boolean(r->output_truncated));
	}
	return j;
}

static int get_number(const json_t *j, const char *key, double *out,
		      char *errbuf, size_t errlen)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_number(v))
		return seterr(errbuf, errlen, -EPROTO,
			      "sample: '%s' is missing or not a number", key);
	*out = json_number_value(v);
	if (*out < 0)
		return seterr(errbuf, errlen, -EPROTO,
			      "sample: '%s' is negative", key);
	return 0;
}

static int get_long(const json_t *j, const char *key, long *out, char *errbuf,
		    size_t errlen)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return seterr(
		    errbuf, errlen, -EPROTO,
		    "sample: '%s' is missing or not a non-negative integer",
		    key);
	*out = (long)json_integer_value(v);
	return 0;
}

/* The sample's status (one of status_names) and exit status. */
static int sample_status_parse(const json_t *j, struct runner_result *r,
			       char *errbuf, size_t errlen)
{
	const char *status = json_string_value(json_object_get(j, "status"));
	const json_t *v;
	size_t i;

	if (!status)
		return seterr(errbuf, errlen, -EPROTO,
			      "sample: 'status' is missing or not a string");
	for (i = 0; i < ARRAY_SIZE(status_names); i++)
		if (!strcmp(status, status_names[i]))
			break;
	if (i == ARRAY_SIZE(status_names))
		return seterr(errbuf, errlen, -EPROTO,
			      "sample: unknown status '%s'", status);
	r->status = (enum runner_status)i;
	v = json_object_get(j, "exit_status");
	if (!json_is_integer(v) || json_integer_value(v) < -1 ||
	    json_integer_value(v) > 255 + 128)
		return seterr(
		    errbuf, errlen, -EPROTO,
		    "sample: 'exit_status' is missing or out of range");
	r->exit_status = (int)json_integer_value(v);
	return 0;
}

/* The counters the sample has: a count, or null for not counted. */
static int sample_counters_parse(const json_t *j, struct runner_result *r,
				 char *errbuf, size_t errlen)
{
	const json_t *counters = json_object_get(j, "counters"), *v;
	const char *key;

	if (!json_is_object(counters))
		return seterr(errbuf, errlen, -EPROTO,
			      "sample: 'counters' is missing or not an object");
	json_object_foreach((json_t *)counters, key, v)
	{
		int c = runner_counter_lookup(key);
		struct runner_counter_value *cv;
		char why[128];

		if (c >= 0) {
			r->counter_set |= RUNNER_COUNTER_BIT(c);
			cv = &r->counters[c];
		} else if (runner_raw_add(&r->raw, key, why, sizeof(why)) == 0) {
			cv = &r->raw_counters[r->raw.n - 1];
		} else {
			continue; /* a newer agent's counter: ignore it */
		}
		if (json_is_null(v))
			continue;
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return seterr(errbuf, errlen, -EPROTO,
				      "sample: counter '%s' is not a "
				      "non-negative integer or null",
				      key);
		cv->supported = true;
		cv->counted = true;
		cv->value = (uint64_t)json_integer_value(v);
	}
	return 0;
}

int proto_sample_parse(const json_t *j, struct runner_result *r, char *errbuf,
		       size_t errlen)
{
	const json_t *out;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(j))
		return seterr(errbuf, errlen, -EPROTO,
			      "sample is not a json object");
	ret = sample_status_parse(j, r, errbuf, errlen);
	if (ret)
		return ret;
	if ((ret = get_number(j, "elapsed_s", &r->elapsed_s, errbuf, errlen)) ||
	    (ret = get_number(j, "user_s", &r->user_s, errbuf, errlen)) ||
	    (ret = get_number(j, "sys_s", &r->sys_s, errbuf, errlen)) ||
	    (ret = get_long(j, "max_rss_kb", &r->max_rss_kb, errbuf, errlen)) ||
	    (ret = get_long(j, "minor_faults", &r->minor_faults, errbuf,
			    errlen)) ||
	    (ret =
		 get_long(j, "major_faults", &r->major_faults, errbuf, errlen)))
		return ret;
	ret = sample_counters_parse(j, r, errbuf, errlen);
	if (ret)
		return ret;
	out = json_object_get(j, "output");
	if (out && !json_is_null(out)) {
		if (!json_is_string(out))
			return seterr(errbuf, errlen, -EPROTO,
				      "sample: 'output' is not a string");
		r->output_len = json_string_length(out);
		r->output = xstrndup(json_string_value(out), r->output_len);
		r->output_truncated =
		    json_is_true(json_object_get(j, "output_truncated"));
	}
	return 0;
}

int proto_sample_from_json(const json_t *j, struct runner_result *r)
{
	return proto_sample_parse(j, r, NULL, 0);
}
