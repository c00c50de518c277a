/* SPDX-License-Identifier: MIT */
/* agent-run.c - the agent's "run" request (agent-run.h). */
#include "agent-run.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"
#include "profile-sample.h"
#include "runner.h"
#include "util.h"

#define HEARTBEAT_DEFAULT_S 5.0

struct tick_ctx {
	struct agent *a;
	uint64_t id;
	int kmsg_fd;	 /* kmsg.h: the kernel log since the run began */
	char stuck[256]; /* the first record saying a CPU is stuck */
};

/*
 * A heartbeat goes out only if the port is writable now: a host that went
 * away must not stall the runner's timeout handling.  Once the kernel has
 * said a CPU is stuck, every heartbeat says so too ("kernel_stuck").
 */
static int run_tick(void *arg, double elapsed_s)
{
	struct tick_ctx *t = arg;
	struct pollfd pfd = {.fd = t->a->fd, .events = POLLOUT};
	json_t *ev;

	if (!t->stuck[0] &&
	    kmsg_watch_poll(t->kmsg_fd, t->stuck, sizeof(t->stuck)))
		note("#%" PRIu64 " run: the kernel says a CPU is stuck: %s",
		     t->id, t->stuck);
	if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT) ||
	    (pfd.revents & POLLHUP))
		return 0;
	ev = proto_event_new(t->id, "heartbeat");
	json_object_set_new(ev, "elapsed_s", json_real(elapsed_s));
	if (t->stuck[0])
		json_object_set_new(ev, "kernel_stuck", json_string(t->stuck));
	agent_send_msg(t->a, ev);
	return 0;
}

/* Read an optional field of a given JSON kind; false if present but wrong. */
static bool opt_number(const json_t *req, const char *key, double *out)
{
	const json_t *v = json_object_get(req, key);

	if (!v || json_is_null(v))
		return true;
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

static bool opt_bool(const json_t *req, const char *key, bool *out)
{
	const json_t *v = json_object_get(req, key);

	if (!v || json_is_null(v))
		return true;
	if (!json_is_boolean(v))
		return false;
	*out = json_is_true(v);
	return true;
}

/* env {K: V} -> NULL-terminated "K=V" array; NULL with msg if malformed. */
static char **env_from_json(const json_t *env, char *msg, size_t msglen)
{
	size_t n = 0, i = 0;
	const char *key;
	json_t *v;
	char **out;

	if (!env || json_is_null(env))
		return xcalloc(1, sizeof(char *));
	if (!json_is_object(env)) {
		snprintf(msg, msglen, "'env' must be an object of strings");
		return NULL;
	}
	n = json_object_size(env);
	out = xcalloc(n + 1, sizeof(char *));
	json_object_foreach((json_t *)env, key, v)
	{
		if (!*key || strchr(key, '=') || !json_is_string(v)) {
			snprintf(msg, msglen,
				 "'env' entry '%.64s' must be NAME: \"string\"",
				 key);
			for (i = 0; out[i]; i++)
				free(out[i]);
			free(out);
			return NULL;
		}
		out[i++] = xasprintf("%s=%s", key, json_string_value(v));
	}
	return out;
}

/* "events": perf event names (runner.h) into *SET, raw PMU events
 * ("r003c") into *RAW; false if bad. */
static bool run_events(const json_t *req, uint64_t *set,
		       struct runner_raw_events *raw, char *msg, size_t len)
{
	const json_t *ev = json_object_get(req, "events"), *v;
	size_t i;

	*set = 0;
	memset(raw, 0, sizeof(*raw));
	if (!ev || json_is_null(ev))
		return true;
	if (!json_is_array(ev)) {
		snprintf(msg, len, "'events' must be an array of strings");
		return false;
	}
	json_array_foreach(ev, i, v)
	{
		const char *name = json_string_value(v);
		int k = name ? runner_counter_lookup(name) : -1;
		char why[160];

		if (k >= 0) {
			*set |= RUNNER_COUNTER_BIT(k);
			continue;
		}
		if (name && name[0] == 'r') {
			if (runner_raw_add(raw, name, why, sizeof(why)) == 0)
				continue;
			snprintf(msg, len, "'events': %s", why);
			return false;
		}
		snprintf(msg, len, "'events': unknown perf event '%s'",
			 name ? name : "(not a string)");
		return false;
	}
	return true;
}

/*
 * A run request's fields checked into SPEC (all but the tick callback) and
 * *WITH_OUTPUT; its environment, owned, or NULL with the reason in MSG.
 */
static char **run_request(const json_t *req, struct runner_spec *spec,
			  bool *with_output, char *msg, size_t len)
{
	bool counters = true, profile = false;
	uint64_t events = 0;
	struct runner_raw_events raw = {0};
	double timeout_s = 0, heartbeat_s = HEARTBEAT_DEFAULT_S;
	double profile_hz = PROFILE_DEFAULT_HZ;
	const json_t *cwd = json_object_get(req, "cwd");
	const char *cmd = json_string_value(json_object_get(req, "cmd"));
	const json_t *shell = json_object_get(req, "shell");
	char **env = NULL;

	*with_output = false;
	if (!cmd || !*cmd) {
		snprintf(msg, len, "'cmd' must be a non-empty string");
	} else if (shell && !json_is_null(shell) &&
		   (!json_is_string(shell) ||
		    json_string_value(shell)[0] != '/')) {
		snprintf(msg, len, "'shell' must be an absolute path");
	} else if (cwd && !json_is_null(cwd) && !json_is_string(cwd)) {
		snprintf(msg, len, "'cwd' must be a string");
	} else if (!opt_number(req, "timeout_s", &timeout_s) || timeout_s < 0) {
		snprintf(msg, len, "'timeout_s' must be a number >= 0");
	} else if (!opt_number(req, "heartbeat_s", &heartbeat_s) ||
		   heartbeat_s < 0.1 || heartbeat_s > 3600) {
		snprintf(msg, len,
			 "'heartbeat_s' must be a number in 0.1..3600");
	} else if (!opt_bool(req, "counters", &counters) ||
		   !opt_bool(req, "with_output", with_output)) {
		snprintf(msg, len,
			 "'counters' and 'with_output' must be booleans");
	} else if (!run_events(req, &events, &raw, msg, len)) {
		/* msg says why */
	} else if (!opt_bool(req, "profile", &profile)) {
		snprintf(msg, len, "'profile' must be a boolean");
	} else if (!opt_number(req, "profile_hz", &profile_hz) ||
		   profile_hz < 10 || profile_hz > 20000) {
		snprintf(msg, len,
			 "'profile_hz' must be a number in 10..20000");
	} else {
		env = env_from_json(json_object_get(req, "env"), msg, len);
	}
	if (!env)
		return NULL;
	spec->cmd = cmd;
	spec->shell = json_string_value(shell); /* NULL: /bin/sh */
	spec->env = (const char *const *)env;
	spec->cwd = json_string_value(cwd);
	spec->timeout_s = timeout_s;
	spec->counters = counters;
	spec->events = events;
	spec->raw = raw;
	spec->profile = profile; /* docs/profile.md */
	spec->profile_hz = profile_hz;
	spec->tick_s = heartbeat_s;
	return env;
}

void agent_handle_run(struct agent *a, const json_t *req, struct outcome *o)
{
	uint64_t id = proto_id(req);
	struct tick_ctx tick = {.a = a, .id = id, .kmsg_fd = -1};
	struct runner_spec spec = {0};
	struct runner_result res;
	bool with_output;
	char msg[256] = "", **env;
	size_t i;
	int ret;

	memset(&res, 0, sizeof(res));
	env = run_request(req, &spec, &with_output, msg, sizeof(msg));
	if (!env) {
		o->reply = proto_reply_err_new(id, "bad-request", msg);
		snprintf(o->log, sizeof(o->log), "bad-request: %s", msg);
		goto out;
	}
	spec.tick = run_tick;
	spec.tick_arg = &tick;
	note("#%" PRIu64 " run '%.120s' starting", id, spec.cmd);
	tick.kmsg_fd = kmsg_watch_open(); /* none: no such warning, that is all */
	ret = runner_run(&spec, &res);
	if (ret < 0) {
		snprintf(msg, sizeof(msg), "cannot start '%.120s' with '%.60s': %s",
			 spec.cmd, spec.shell ? spec.shell : "/bin/sh",
			 strerror(-ret));
		o->reply = proto_reply_err_new(id, "run-failed", msg);
		snprintf(o->log, sizeof(o->log), "run-failed: %s", msg);
		goto out;
	}
	o->reply =
	    proto_reply_ok_new(id, proto_sample_to_json(&res, with_output));
	if (res.profile)
		json_object_set_new(json_object_get(o->reply, "result"),
				    "profile", profile_to_json(res.profile));
	snprintf(o->log, sizeof(o->log), "%s exit %d in %.3f s",
		 runner_status_name(res.status), res.exit_status,
		 res.elapsed_s);
out:
	if (tick.kmsg_fd >= 0)
		close(tick.kmsg_fd);
	runner_result_release(&res);
	for (i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

