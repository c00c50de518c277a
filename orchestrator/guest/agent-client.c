/* SPDX-License-Identifier: MIT */
#include "agent-client.h"
#include "base64.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "caps.h"
#include "guest-obs.h"
#include "kmsg.h"
#include "proto.h"
#include "untrusted.h"
#include "util.h"

/* How often a call that watches the console reads it. */
#define CONSOLE_POLL_S 1.0

void agent_client_init(struct agent_client *a, struct vm *vm, FILE *log)
{
	memset(a, 0, sizeof(*a));
	a->vm = vm;
	a->log = log;
	a->next_id = 1;
	a->max_msgs = AGENT_CALL_MSGS_MAX;
	a->max_log = AGENT_TRANSCRIPT_MAX;
	a->max_file = AGENT_FILE_MAX;
	proto_decoder_init(&a->dec);
}

void agent_client_release(struct agent_client *a)
{
	proto_decoder_release(&a->dec);
}

void agent_client_watch_console(struct agent_client *a, const char *path,
				double silent_s)
{
	struct stat st;

	a->console = path;
	a->console_silent_s = silent_s;
	a->console_off = path && stat(path, &st) == 0 ? (long long)st.st_size
						      : 0;
	a->console_line[0] = '\0';
	a->console_trouble = KMSG_FINE;
}

/*
 * Read the console's new lines for trouble (kept until the agent is heard);
 * true when there is some and the agent has been silent since, for
 * console_silent_s: WHY says which line.
 */
static bool console_says_lost(struct agent_client *a, double last_heard,
			      char *why, size_t len)
{
	char line[sizeof(a->console_line)];
	int t;

	if (!a->console)
		return false;
	if (a->console_trouble == KMSG_FINE) {
		t = kmsg_console_poll(a->console, &a->console_off, line,
				      sizeof(line));
		if (t > KMSG_FINE) {
			memcpy(a->console_line, line, sizeof(line));
			a->console_trouble = t;
			a->console_seen_s = mono_now();
		}
	}
	if (a->console_trouble == KMSG_FINE ||
	    mono_now() - last_heard < a->console_silent_s ||
	    mono_now() - a->console_seen_s < CONSOLE_POLL_S ||
	    !vm_running(a->vm))
		return false;
	snprintf(why, len, "the guest's kernel says %s: %s (its console; "
		 "the agent silent for %.0f s)",
		 a->console_trouble == KMSG_STUCK ? "a CPU is stuck"
						  : "it oopsed",
		 a->console_line, mono_now() - last_heard);
	return true;
}

/*
 * Append a line to the transcript, or -EMSGSIZE once it would pass
 * AGENT_TRANSCRIPT_MAX: the line that says so is the last one written.
 */
static int log_line(struct agent_client *a, const char *fmt, ...)
    VMTAX_PRINTF(2, 3);

static int log_line(struct agent_client *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!a->log)
		return 0;
	if (a->logged > a->max_log)
		return -EMSGSIZE;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (a->logged + n > a->max_log) {
		fprintf(a->log,
			"transcript cap reached: %lld bytes written, the next "
			"line has %d (AGENT_TRANSCRIPT_MAX %lld)\n",
			a->logged, n, a->max_log);
		fflush(a->log);
		a->logged = a->max_log + 1;
		return -EMSGSIZE;
	}
	va_start(ap, fmt);
	vfprintf(a->log, fmt, ap);
	va_end(ap);
	fflush(a->log);
	a->logged += n;
	return 0;
}

static int log_msg(struct agent_client *a, const char *dir, const json_t *m)
{
	char ts[32], *s;
	int ret;

	if (!a->log)
		return 0;
	iso8601_now(ts, sizeof(ts));
	s = json_dumps(m, JSON_COMPACT);
	ret = log_line(a, "%s %s %s\n", ts, dir, s ? s : "?");
	free(s);
	return ret;
}

static int handle(struct agent_client *a, json_t *msg, unsigned long long id,
		  double *idle_deadline, double idle_s, json_t **result,
		  char *why, size_t len)
{
	const char *type = proto_type(msg);
	json_t *e;

	if (log_msg(a, "<", msg) < 0) {
		snprintf(why, len,
			 "the agent's transcript passed %lld bytes "
			 "(AGENT_TRANSCRIPT_MAX)",
			 a->max_log);
		return -EMSGSIZE;
	}
	if (proto_id(msg) != id) {
		/* "ready", or stale replies of an earlier, timed-out call. */
		return 0;
	}
	if (!strcmp(type, "heartbeat")) {
		const char *stuck = json_string_value(
		    json_object_get(msg, "kernel_stuck"));

		/* A task looping in the guest's kernel cannot be killed:
		 * waiting out the sample's timeout would only end in
		 * silence, so give the guest up now (docs/protocol.md). */
		if (stuck) {
			snprintf(why, len,
				 "the guest's kernel says a CPU is stuck: %s",
				 stuck);
			return -ETIMEDOUT;
		}
		*idle_deadline = mono_now() + idle_s;
		return 0;
	}
	if (strcmp(type, "reply"))
		return 0;
	if (json_is_true(json_object_get(msg, "ok"))) {
		*result = json_incref(json_object_get(msg, "result"));
		if (!*result)
			*result = json_object();
		return 1;
	}
	e = json_object_get(msg, "error");
	snprintf(why, len, "agent error %s: %s",
		 json_string_value(json_object_get(e, "code")) ?: "?",
		 json_string_value(json_object_get(e, "message")) ?: "?");
	return -EREMOTEIO;
}

/* One agent_call(): the request's id, its deadlines and where it reports. */
struct call {
	struct agent_client *a;
	const char *type;
	unsigned long long id;
	double idle_s, total_s;
	double idle_deadline, deadline, last_heard;
	long nmsgs;
	json_t **result;
	char *why;
	size_t len;
};

/* The request REQ encoded, logged and sent. */
static int call_send(struct call *c, json_t *req)
{
	struct agent_client *a = c->a;
	char *frame = NULL;
	size_t flen;
	int ret;

	ret = proto_encode(req, &frame, &flen);
	if (ret < 0) {
		snprintf(c->why, c->len, "cannot encode '%s' request", c->type);
		goto out;
	}
	ret = log_msg(a, ">", req);
	if (ret < 0) {
		snprintf(c->why, c->len,
			 "the agent's transcript passed %lld bytes "
			 "(AGENT_TRANSCRIPT_MAX)",
			 a->max_log);
		goto out;
	}
	ret = vm_send(a->vm, frame, flen,
		      c->idle_s < c->total_s ? c->idle_s : c->total_s);
	if (ret < 0)
		snprintf(c->why, c->len, "cannot send '%s' to the agent: %s",
			 c->type,
			 ret == -EPIPE ? vm_stop_reason(a->vm) : "timed out");
out:
	free(frame);
	return ret;
}

/*
 * Every whole message received so far handled: 0 to wait on, 1 when the
 * call is answered, or a negative errno.
 */
static int call_drain(struct call *c)
{
	struct agent_client *a = c->a;
	json_t *msg = NULL;
	char perr[256];
	int n, ret;

	for (;;) {
		n = proto_decoder_next(&a->dec, &msg, perr, sizeof(perr));
		if (n == 0)
			return 0;
		if (++c->nmsgs > a->max_msgs) {
			json_decref(msg);
			snprintf(c->why, c->len,
				 "the agent sent more than %ld "
				 "messages while '%s' waited for its "
				 "reply (AGENT_CALL_MSGS_MAX)",
				 a->max_msgs, c->type);
			log_line(a, "%s\n", c->why);
			return -EMSGSIZE;
		}
		if (n < 0) {
			log_line(a, "bad frame: %s\n", perr);
			continue;
		}
		ret = handle(a, msg, c->id, &c->idle_deadline, c->idle_s,
			     c->result, c->why, c->len);
		json_decref(msg);
		msg = NULL;
		if (ret != 0)
			return ret > 0 ? 1 : ret;
	}
}

/* Wait for more from the agent, up to a deadline; -errno past it. */
static int call_wait(struct call *c, char *buf, size_t size)
{
	struct agent_client *a = c->a;
	double now, wait;
	int n;

	if (console_says_lost(a, c->last_heard, c->why, c->len))
		return -ETIMEDOUT;
	now = mono_now();
	if (now >= c->idle_deadline || now >= c->deadline) {
		snprintf(c->why, c->len,
			 "no answer from the agent to '%s' for %.0f s", c->type,
			 now >= c->deadline ? c->total_s : c->idle_s);
		return -ETIMEDOUT;
	}
	wait =
	    (c->idle_deadline < c->deadline ? c->idle_deadline : c->deadline) -
	    now;
	if (a->console && wait > CONSOLE_POLL_S)
		wait = CONSOLE_POLL_S;
	n = vm_recv(a->vm, buf, size, wait);
	if (n < 0) {
		snprintf(c->why, c->len, "%s while waiting for '%s'",
			 vm_stop_reason(a->vm), c->type);
		return -EPIPE;
	}
	if (n > 0) {
		proto_decoder_feed(&a->dec, buf, n);
		/* The agent is alive: a line seen before is past. */
		c->last_heard = mono_now();
		a->console_trouble = KMSG_FINE;
	}
	return 0;
}

int agent_call(struct agent_client *a, const char *type, json_t *args,
	       double idle_s, double total_s, json_t **result, char *why,
	       size_t len)
{
	double now = mono_now();
	struct call c = {
	    .a = a,
	    .type = type,
	    .id = a->next_id++,
	    .idle_s = idle_s,
	    .total_s = total_s,
	    .idle_deadline = now + idle_s,
	    .deadline = now + total_s,
	    .last_heard = now,
	    .result = result,
	    .why = why,
	    .len = len,
	};
	json_t *req = proto_request_new(c.id, type);
	char buf[65536];
	int ret;

	*result = NULL;
	why[0] = '\0';
	if (args)
		json_object_update(req, args);
	ret = call_send(&c, req);
	while (ret == 0) {
		ret = call_drain(&c);
		if (ret == 0)
			ret = call_wait(&c, buf, sizeof(buf));
	}
	if (ret > 0)
		ret = 0;
	untrusted_scrub(why, false); /* it may quote the guest */
	json_decref(req);
	return ret;
}

int agent_set_knob(struct agent_client *a, const char *name,
		   const char *value, char *got, size_t glen, char *why,
		   size_t wlen)
{
	json_t *args = json_pack("{s:s, s:s}", "name", name, "value", value);
	json_t *res = NULL;
	const char *v;
	int ret;

	got[0] = '\0';
	ret = agent_call(a, "set-knob", args, AGENT_QUICK_IDLE_S,
			 AGENT_QUICK_TOTAL_S, &res, why, wlen);
	if (ret < 0)
		goto out;
	v = json_string_value(json_object_get(res, "value"));
	if (!v) {
		snprintf(why, wlen, "the set-knob reply for '%s' has no value",
			 name);
		ret = -EPROTO;
		goto out;
	}
	snprintf(got, glen, "%s", v);
out:
	json_decref(args);
	json_decref(res);
	return ret;
}

int agent_observe(struct agent_client *a, json_t **obs, char *why,
		  size_t len)
{
	char bad[200];
	int ret;

	ret = agent_call(a, "observe", NULL, AGENT_QUICK_IDLE_S,
			 AGENT_QUICK_TOTAL_S, obs, why, len);
	if (ret < 0)
		return ret;
	if (guest_obs_check(*obs, bad, sizeof(bad)) < 0) {
		snprintf(why, len, "bad observe reply: %s", bad);
		untrusted_scrub(why, false);
		json_decref(*obs);
		*obs = NULL;
		return -EPROTO;
	}
	return 0;
}

/* agent_call() without copying the request and reply into the log. */
static int call_unlogged(struct agent_client *a, const char *type,
			 json_t *args, json_t **res, char *why, size_t len)
{
	FILE *log = a->log;
	int ret;

	ret = log_line(a, "%s %s (not logged)\n", type,
		       json_string_value(json_object_get(args, "path")));
	if (ret < 0) {
		snprintf(why, len,
			 "the agent's transcript passed %lld bytes "
			 "(AGENT_TRANSCRIPT_MAX)",
			 a->max_log);
		return ret;
	}
	a->log = NULL;
	ret = agent_call(a, type, args, AGENT_QUICK_IDLE_S,
			 AGENT_QUICK_TOTAL_S, res, why, len);
	a->log = log;
	return ret;
}

int agent_read_chunk(struct agent_client *a, const char *remote,
		     long long offset, size_t max, char **buf, size_t *n,
		     long long *size, char *why, size_t len)
{
	json_t *args, *res = NULL;
	const char *data;
	unsigned char *bytes;
	int ret;

	*buf = NULL;
	*n = 0;
	if (max > AGENT_FILE_CHUNK)
		max = AGENT_FILE_CHUNK;
	args = json_pack("{s:s, s:I, s:I}", "path", remote, "offset",
			 (json_int_t)offset, "length", (json_int_t)max);
	ret = call_unlogged(a, "read-file", args, &res, why, len);
	json_decref(args);
	if (ret < 0)
		return ret;
	data = json_string_value(json_object_get(res, "data"));
	if (!data || !json_is_integer(json_object_get(res, "size")) ||
	    base64_decode_new(data, &bytes, n) < 0 || *n > max) {
		snprintf(why, len, "a malformed read-file reply for '%s'",
			 remote);
		json_decref(res);
		return -EPROTO;
	}
	*buf = (char *)bytes;
	*size = json_integer_value(json_object_get(res, "size"));
	json_decref(res);
	return 0;
}

int agent_get_file(struct agent_client *a, const char *remote,
		   const char *local, long long *size, char *why, size_t len)
{
	char *all = NULL, *chunk = NULL;
	size_t have = 0, n;
	long long total = 0;
	int ret;

	do {
		ret = agent_read_chunk(a, remote, (long long)have,
				       AGENT_FILE_CHUNK, &chunk, &n, &total,
				       why, len);
		if (ret < 0)
			goto out;
		if (total > a->max_file ||
		    (long long)(have + n) > a->max_file) {
			snprintf(why, len,
				 "'%s' is larger than %lld bytes "
				 "(AGENT_FILE_MAX): the guest says %lld",
				 remote, a->max_file, total);
			ret = -EFBIG;
			goto out;
		}
		all = xrealloc(all, have + n + 1);
		memcpy(all + have, chunk, n);
		have += n;
		free(chunk);
		chunk = NULL;
	} while (n && (long long)have < total);
	ret = write_file_atomic(local, all ? all : "", have);
	if (ret < 0) {
		snprintf(why, len, "cannot write '%s'", local);
		goto out;
	}
	if (size)
		*size = (long long)have;
out:
	free(chunk);
	free(all);
	return ret;
}

int agent_put_file(struct agent_client *a, const char *remote,
		   const void *data, size_t dlen, int mode, char *why,
		   size_t len)
{
	const char *p = data;
	size_t off = 0;
	int ret = 0;

	do {
		size_t n = dlen - off < AGENT_FILE_CHUNK ? dlen - off
							 : AGENT_FILE_CHUNK;
		char *b64 = base64_encode_new(p + off, n);
		json_t *args = json_pack("{s:s, s:s, s:i, s:b}", "path", remote,
					 "data", b64, "mode", mode, "append",
					 off > 0);
		json_t *res = NULL;

		free(b64);
		ret = call_unlogged(a, "write-file", args, &res, why, len);
		json_decref(args);
		json_decref(res);
		off += n;
	} while (ret == 0 && off < dlen);
	return ret;
}
