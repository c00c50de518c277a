/* SPDX-License-Identifier: MIT */
/*
 * vmtax-agent - the guest side of docs/protocol.md.
 *
 * Runs in the tiny guest (started by /init) or any guest with a virtio-serial
 * port named org.vmtax.agent.0.  It answers one request at a time, in order:
 * hello, observe, set-knob, set-thp, run (through lib/runner.c, with
 * heartbeats) and shutdown; built with -DVMTAX_AGENT_TEST it also takes
 * test-hang and test-panic.
 *
 * The test build also runs on the host for tests: "vmtax-agent-test --fd N"
 * serves the protocol on inherited descriptor N (one end of a socketpair)
 * instead of a virtio port, and exits at its end of file.  It then never
 * powers off or crashes the machine: shutdown only ends the agent, and
 * test-panic is refused.
 *
 * Guest knobs are the generic knobs of lib/knob-path.h: a name outside
 * /proc/sys and /sys/kernel/mm is refused before any file is touched.
 * set-thp is the knobs mm.transparent_hugepage.{enabled,defrag} through the
 * same code, with its own request and reply kept for older hosts.
 *
 * It has no network listener and runs only what arrives on its own port.
 * Memory is bounded: the decoder holds at most one frame, replies are built
 * one at a time, and run output is capped by the runner.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/sysinfo.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent-files.h"
#include "agent-knobs.h"
#include "agent-observe.h"
#include "agent-run.h"
#include "guest-obs.h"
#include "knob-path.h"
#include "profile-sample.h"
#include "proto.h"
#include "runner.h"
#include "thp.h"
#include "util.h"

#define PORT_DIR "/sys/class/virtio-ports"
#define PORT_WAIT_S 30.0
/* The longest the agent waits on its port without looking again. */
#define PORT_POLL_MS 1000

#ifdef VMTAX_AGENT_TEST
#define AGENT_FLAVOUR "test"
#else
#define AGENT_FLAVOUR "normal"
#endif


/* Seconds since the guest booted (/proc/uptime), or -1. */
static double uptime_now(void)
{
	char line[64];

	if (read_line("/proc/uptime", line, sizeof(line)) < 0)
		return -1;
	return strtod(line, NULL);
}


static int write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		/* virtio-serial takes at most 32 KiB per write */
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += w;
	}
	return 0;
}

int agent_send_msg(struct agent *a, json_t *msg)
{
	char *frame = NULL;
	size_t len;
	int ret;

	ret = proto_encode(msg, &frame, &len);
	if (ret == -EMSGSIZE) {
		uint64_t id = proto_id(msg);

		json_decref(msg);
		msg = proto_reply_err_new(id, "reply-too-large",
					  "the reply exceeds the frame limit");
		ret = proto_encode(msg, &frame, &len);
	}
	if (ret < 0) {
		ret = err_code(ret, "cannot encode a '%s' message",
			       proto_type(msg));
		goto out;
	}
	ret = write_all(a->fd, frame, len);
	if (ret < 0)
		ret = err_code(ret, "cannot write to '%s'", a->port);
out:
	free(frame);
	json_decref(msg);
	return ret;
}

/* The /dev node of the virtio port named PROTO_PORT_NAME, or -ENOENT. */
static int find_port_once(char *path, size_t len)
{
	struct dirent *de;
	int ret = -ENOENT;
	DIR *dir;

	dir = opendir(PORT_DIR);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char file[PATH_MAX], name[128];

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), PORT_DIR "/%s/name", de->d_name);
		if (read_line(file, name, sizeof(name)) < 0 ||
		    strcmp(name, PROTO_PORT_NAME))
			continue;
		snprintf(path, len, "/dev/%s", de->d_name);
		if (access(path, F_OK) == 0) {
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

static int find_port(char *path, size_t len)
{
	double deadline = mono_now() + PORT_WAIT_S;
	/* Short: every pause here delays the hello, so the boot. */
	const struct timespec pause_ts = {0, 10 * 1000 * 1000};

	for (;;) {
		if (find_port_once(path, len) == 0)
			return 0;
		if (mono_now() >= deadline)
			return err(
			    "no virtio port named '%s' under '%s' after %.0f s",
			    PROTO_PORT_NAME, PORT_DIR, PORT_WAIT_S);
		nanosleep(&pause_ts, NULL);
	}
}

static void handle_hello(struct agent *a, const json_t *req, struct outcome *o)
{
	uint64_t id = proto_id(req);
	struct utsname u;
	struct sysinfo si;
	json_t *res;

	uname(&u);
	if (sysinfo(&si) < 0)
		memset(&si, 0, sizeof(si));
	res = json_pack("{s:s, s:i, s:s, s:I, s:I, s:o, s:o, s:s}",
			"agent_version", VMTAX_VERSION, "proto_version",
			PROTO_VERSION, "kernel", u.release, "cpus",
			(json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "mem_bytes",
			(json_int_t)((uint64_t)si.totalram * si.mem_unit),
			"thp_enabled", agent_thp_current("enabled"), "thp_defrag",
			agent_thp_current("defrag"), "flavour", AGENT_FLAVOUR);
	/* Where the boot went (docs/protocol.md, hello): the host splits its
	 * boot-to-hello time with these. */
	if (a->started_s >= 0) {
		json_object_set_new(res, "agent_started_s",
				    json_real(a->started_s));
		json_object_set_new(res, "uptime_s", json_real(uptime_now()));
	}
	json_object_update_missing_new(res, agent_observe_new());
	o->reply = proto_reply_ok_new(id, res);
	snprintf(o->log, sizeof(o->log), "kernel %s", u.release);
}

/*
 * Check one THP mode against the words the kernel offers.  Returns NULL when
 * it is one of them, or an error code for the reply with the message in MSG.
 */
static const char *thp_check_one(const char *knob, const char *value,
				 char *msg, size_t msglen)
{
	char path[128], line[256];
	int ret;

	snprintf(path, sizeof(path), THP_DIR "/%s", knob);
	ret = read_line(path, line, sizeof(line));
	if (ret < 0) {
		snprintf(msg, msglen, "cannot read '%s': %s", path,
			 strerror(-ret));
		return "io-error";
	}
	if (!sysfs_list_has(line, value)) {
		snprintf(msg, msglen, "'%s' is not one of '%s' for '%s'", value,
			 line, knob);
		return "bad-value";
	}
	return NULL;
}

/* Write and read back one THP knob, as the generic knob it is. */
static const char *thp_set_one(const char *knob, const char *value, char *msg,
			       size_t msglen)
{
	char name[64], got[KNOB_VALUE_MAX];

	snprintf(name, sizeof(name), THP_KNOB_PREFIX "%s", knob);
	return agent_knob_set(name, value, got, sizeof(got), msg, msglen);
}

static void handle_observe(struct agent *a, const json_t *req,
			   struct outcome *o)
{
	json_t *res = agent_observe_new();

	(void)a;
	snprintf(o->log, sizeof(o->log), "cpus %" JSON_INTEGER_FORMAT
		 ", MemTotal %" JSON_INTEGER_FORMAT " kB",
		 json_integer_value(json_object_get(res, "cpus_online")),
		 json_integer_value(json_object_get(res, "mem_total_kb")));
	o->reply = proto_reply_ok_new(proto_id(req), res);
}

/* A value a knob file may take: printable ASCII, 1..KNOB_VALUE_MAX-1 bytes. */
static bool knob_value_ok(const char *v)
{
	size_t n = strlen(v), i;

	if (!n || n >= KNOB_VALUE_MAX)
		return false;
	for (i = 0; i < n; i++)
		if ((v[i] < 0x20 || v[i] > 0x7e) && v[i] != '\t')
			return false;
	return true;
}

static void handle_set_knob(struct agent *a, const json_t *req,
			    struct outcome *o)
{
	const char *name = json_string_value(json_object_get(req, "name"));
	const char *value = json_string_value(json_object_get(req, "value"));
	uint64_t id = proto_id(req);
	char msg[512] = "", got[KNOB_VALUE_MAX] = "";
	const char *code = NULL;

	(void)a;
	if (!name) {
		snprintf(msg, sizeof(msg), "'name' must be a string");
		code = "bad-request";
	} else if (!value || !knob_value_ok(value)) {
		snprintf(msg, sizeof(msg),
			 "'value' must be a string of 1..%d printable "
			 "characters",
			 KNOB_VALUE_MAX - 1);
		code = "bad-request";
	} else {
		code = agent_knob_set(name, value, got, sizeof(got), msg,
				sizeof(msg));
	}
	if (code) {
		o->reply = proto_reply_err_new(id, code, msg);
		snprintf(o->log, sizeof(o->log), "%s: %.160s", code, msg);
		return;
	}
	o->reply = proto_reply_ok_new(
	    id, json_pack("{s:s, s:s}", "name", name, "value", got));
	snprintf(o->log, sizeof(o->log), "%.100s = %.64s", name, got);
}

/* The THP files set-thp sets, in the order it checks and sets them. */
static const char *const knobs[] = {"enabled", "defrag"};

/*
 * set-thp in a guest without THP (no THP_DIR: a kernel without
 * CONFIG_TRANSPARENT_HUGEPAGE, or a CPU without PSE, e.g. booted with
 * clearcpuid=pse).  THP is then never used, so "never" is what was asked for
 * and succeeds with "available": false; any other mode is "unavailable".
 */
static void thp_set_absent(const json_t *req, uint64_t id, struct outcome *o)
{
	char msg[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		const char *v =
		    json_string_value(json_object_get(req, knobs[i]));

		if (v && strcmp(v, THP_MODE_NEVER)) {
			snprintf(msg, sizeof(msg),
				 "cannot set THP %s to '%s': this guest has no "
				 "THP ('%s' does not exist: a kernel without "
				 "CONFIG_TRANSPARENT_HUGEPAGE or a CPU without "
				 "PSE); only \"never\" is possible",
				 knobs[i], v, THP_DIR);
			o->reply = proto_reply_err_new(id, "unavailable", msg);
			snprintf(o->log, sizeof(o->log), "unavailable: %.160s",
				 msg);
			return;
		}
	}
	o->reply = proto_reply_ok_new(
	    id, json_pack("{s:s, s:s, s:b}", "enabled", THP_MODE_NEVER, "defrag",
			  THP_MODE_NEVER, "available", 0));
	snprintf(o->log, sizeof(o->log),
		 "enabled=never defrag=never (no THP in this guest)");
}

static void handle_set_thp(struct agent *a, const json_t *req,
			   struct outcome *o)
{
	uint64_t id = proto_id(req);
	const char *code = NULL;
	char msg[512] = "";
	size_t i;

	(void)a;
	for (i = 0; i < ARRAY_SIZE(knobs) && !code; i++) {
		const json_t *v = json_object_get(req, knobs[i]);

		if (v && !json_is_null(v) &&
		    (!json_is_string(v) ||
		     !is_safe_name(json_string_value(v)))) {
			snprintf(msg, sizeof(msg),
				 "'%s' must be a THP mode such as \"never\"",
				 knobs[i]);
			code = "bad-request";
		}
	}
	if (!code && access(THP_DIR, F_OK) < 0 && errno == ENOENT) {
		thp_set_absent(req, id, o);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(knobs) && !code; i++) {
		const char *v =
		    json_string_value(json_object_get(req, knobs[i]));

		if (v)
			code = thp_check_one(knobs[i], v, msg, sizeof(msg));
	}
	for (i = 0; i < ARRAY_SIZE(knobs) && !code; i++) {
		const char *v =
		    json_string_value(json_object_get(req, knobs[i]));

		if (v)
			code = thp_set_one(knobs[i], v, msg, sizeof(msg));
	}
	if (code) {
		o->reply = proto_reply_err_new(id, code, msg);
		snprintf(o->log, sizeof(o->log), "%s: %s", code, msg);
		return;
	}
	o->reply = proto_reply_ok_new(
	    id, json_pack("{s:o, s:o}", "enabled", agent_thp_current("enabled"),
			  "defrag", agent_thp_current("defrag")));
	snprintf(o->log, sizeof(o->log), "enabled=%s defrag=%s",
		 json_string_value(json_object_get(
		     json_object_get(o->reply, "result"), "enabled")),
		 json_string_value(json_object_get(
		     json_object_get(o->reply, "result"), "defrag")));
}

static void handle_shutdown(struct agent *a, const json_t *req,
			    struct outcome *o)
{
	json_t *d = json_object_get(req, "delay_s");
	struct rusage ru;

	a->shutdown = true;
	/*
	 * The host closes its end of the channel before QEMU exits: libvirt
	 * 9.0 can deadlock when a channel stream is closed while its domain
	 * is being torn down.  The agent powers off when it sees that close,
	 * or after the delay at most (wait_host_closed()).
	 */
	a->shutdown_delay_s = json_is_number(d) ? json_number_value(d) : 0;
	if (a->shutdown_delay_s < 0 || a->shutdown_delay_s > 60)
		a->shutdown_delay_s = 0;
	/* The agent's own peak RSS, for 'make bench'. */
	getrusage(RUSAGE_SELF, &ru);
	o->reply = proto_reply_ok_new(proto_id(req),
				      json_pack("{s:I}", "agent_max_rss_kb",
						(json_int_t)ru.ru_maxrss));
	snprintf(o->log, sizeof(o->log), "powering off");
}

/* read-file and write-file: agent-files.c. */
static void file_reply(const json_t *req, struct outcome *o, json_t *res,
		       const char *code, const char *msg)
{
	o->reply = res ? proto_reply_ok_new(proto_id(req), res)
		       : proto_reply_err_new(proto_id(req), code, msg);
}

/* The file requests of agent-files.h, as replies. */
typedef json_t *file_op_fn(const json_t *req, const char **code, char *msg,
			   size_t mlen, char *log, size_t llen);

static void file_request(const json_t *req, struct outcome *o,
			 file_op_fn *op)
{
	const char *code = NULL;
	char msg[320];
	json_t *res;

	res = op(req, &code, msg, sizeof(msg), o->log, sizeof(o->log));
	file_reply(req, o, res, code, msg);
}

static void handle_read_file(struct agent *a, const json_t *req,
			     struct outcome *o)
{
	(void)a;
	file_request(req, o, agent_read_file_new);
}

static void handle_write_file(struct agent *a, const json_t *req,
			      struct outcome *o)
{
	(void)a;
	file_request(req, o, agent_write_file_new);
}

#ifdef VMTAX_AGENT_TEST
static void handle_test_hang(struct agent *a, const json_t *req,
			     struct outcome *o)
{
	(void)a;
	(void)o;
	note("#%" PRIu64 " test-hang: no longer reading or answering",
	     proto_id(req));
	for (;;)
		pause();
}

static void handle_test_panic(struct agent *a, const json_t *req,
			      struct outcome *o)
{
	if (a->hosted) {
		o->reply = proto_reply_err_new(proto_id(req), "bad-request",
					       "test-panic is refused outside "
					       "a guest");
		snprintf(o->log, sizeof(o->log), "refused on a host");
		return;
	}
	a->panic = true;
	o->reply = proto_reply_ok_new(proto_id(req), NULL);
	snprintf(o->log, sizeof(o->log), "crashing the kernel through sysrq");
}
#endif

static const struct request_handler {
	const char *type;
	void (*fn)(struct agent *a, const json_t *req, struct outcome *o);
} handlers[] = {
    {"hello", handle_hello},
    {"observe", handle_observe},
    {"set-knob", handle_set_knob},
    {"set-thp", handle_set_thp},
    {"run", agent_handle_run},
    {"read-file", handle_read_file},
    {"write-file", handle_write_file},
    {"shutdown", handle_shutdown},
#ifdef VMTAX_AGENT_TEST
    {"test-hang", handle_test_hang},
    {"test-panic", handle_test_panic},
#endif
};

static void handle(struct agent *a, const json_t *req)
{
	const char *type = proto_type(req);
	uint64_t id = proto_id(req);
	struct outcome o = {NULL, ""};
	double t0 = mono_now();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(handlers); i++) {
		if (!strcmp(type, handlers[i].type)) {
			handlers[i].fn(a, req, &o);
			break;
		}
	}
	if (i == ARRAY_SIZE(handlers)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "unknown request type '%.64s'",
			 type);
		o.reply = proto_reply_err_new(id, "unknown-type", msg);
		snprintf(o.log, sizeof(o.log), "unknown-type");
	}
	note("#%" PRIu64 " %.64s: %s (%.3f s)", id, type, o.log,
	     mono_now() - t0);
	agent_send_msg(a, o.reply);
}

static void power_off(void)
{
	sync();
	if (reboot(RB_POWER_OFF) < 0)
		err_errno("cannot power off");
}

static void crash_kernel(void)
{
	sync();
	if (write_str("/proc/sys/kernel/sysrq", "1") < 0)
		warn("cannot enable sysrq");
	if (write_str("/proc/sysrq-trigger", "c") < 0)
		err_errno("cannot write 'c' to '/proc/sysrq-trigger'");
}

static int send_ready(struct agent *a)
{
	json_t *ev = proto_event_new(0, "ready");

	json_object_set_new(ev, "agent_version", json_string(VMTAX_VERSION));
	json_object_set_new(ev, "proto_version", json_integer(PROTO_VERSION));
	return agent_send_msg(a, ev);
}

/*
 * The host closed its end.  Wait for it to come back and greet it with a
 * ready, without blocking in write(): virtio-serial reports the host's state
 * as POLLHUP, and a host that reconnects quickly may never be seen as gone.
 */
static int wait_host(struct agent *a)
{
	const struct timespec pause_ts = {0, 100 * 1000 * 1000};

	for (;;) {
		struct pollfd pfd = {.fd = a->fd, .events = POLLIN | POLLOUT};

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return err_errno("cannot poll '%s'", a->port);
		}
		if (pfd.revents & POLLERR)
			return err("'%s' reports an error", a->port);
		if (!(pfd.revents & POLLHUP)) {
			note("host connected on '%s'", a->port);
			return send_ready(a);
		}
		nanosleep(&pause_ts, NULL);
	}
}

/*
 * Read what the port has into the decoder: 1 when something was fed.
 * *DONE when a hosted agent's host went away; an agent in a guest waits
 * for its host to come back.
 */
static int serve_read(struct agent *a, bool *done)
{
	size_t room = proto_decoder_room(&a->dec);
	struct pollfd p = {.fd = a->fd, .events = POLLIN};
	ssize_t r;
	int n;

	/*
	 * A bounded wait, not a blocking read: virtio_console's poll
	 * looks at the virtqueue itself, so a notification the
	 * (emulated) device lost costs PORT_POLL_MS, not the session.
	 * A guest of CI's once sat in read() with the next request
	 * already sent.
	 */
	n = poll(&p, 1, PORT_POLL_MS);
	if (n < 0 && errno != EINTR)
		return err_errno("cannot poll '%s'", a->port);
	if (n <= 0)
		return 0;
	r = read(a->fd, a->rbuf,
		 room < sizeof(a->rbuf) ? room : sizeof(a->rbuf));
	if (r < 0) {
		if (errno == EINTR)
			return 0;
		return err_errno("cannot read '%s'", a->port);
	}
	if (r == 0) {
		note("host disconnected from '%s'", a->port);
		if (a->hosted) {
			*done = true;
			return 0;
		}
		proto_decoder_reset(&a->dec);
		return wait_host(a);
	}
	proto_decoder_feed(&a->dec, a->rbuf, r);
	return 1;
}

/*
 * After the shutdown reply: until the host has closed its end of the port,
 * or shutdown_delay_s at most.  The host closes it before QEMU exits
 * (libvirt 9.0 can deadlock when a channel stream is closed while its
 * domain is being torn down); its close is complete in libvirtd before the
 * guest sees the port hang up, so powering off then is safe, and sooner
 * than the whole delay (0.5 s a guest).
 */
static void wait_host_closed(struct agent *a)
{
	double end = mono_now() + a->shutdown_delay_s, left;

	while ((left = end - mono_now()) > 0) {
		struct pollfd p = {.fd = a->fd, .events = POLLIN};
		int ms = left * 1000 < PORT_POLL_MS ? (int)(left * 1000) + 1
						    : PORT_POLL_MS;
		int n = poll(&p, 1, ms);

		if (n < 0 && errno != EINTR)
			return;
		if (n <= 0)
			continue;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
		/* whatever the host still sends is dropped; 0 is its close */
		if (read(a->fd, a->rbuf, sizeof(a->rbuf)) == 0)
			return;
	}
}

/*
 * Answer every whole message decoded; *DONE after a shutdown or a panic
 * (-EIO), which in a guest powers it off or crashes its kernel.
 */
static int serve_messages(struct agent *a, bool *done)
{
	char errbuf[256];
	json_t *msg;
	int ret;

	while ((ret = proto_decoder_next(&a->dec, &msg, errbuf,
					 sizeof(errbuf))) != 0) {
		if (ret < 0) {
			note("#0 bad frame: %s", errbuf);
			agent_send_msg(
			    a, proto_reply_err_new(0, "bad-frame", errbuf));
			continue;
		}
		handle(a, msg);
		json_decref(msg);
		if (!a->shutdown && !a->panic)
			continue;
		*done = true;
		if (a->hosted)
			return a->shutdown ? 0 : -EIO;
		if (a->shutdown) {
			wait_host_closed(a);
			power_off();
			return 0;
		}
		crash_kernel();
		return -EIO;
	}
	return 0;
}

/* Read, decode and answer until shutdown or a fatal port error. */
static int serve(struct agent *a)
{
	bool done = false;
	int ret;

	ret = send_ready(a);
	if (ret < 0)
		return ret;
	note("host connected on '%s' (uptime %.2f s)", a->port, uptime_now());
	while (!done) {
		ret = serve_read(a, &done);
		if (ret < 0 || done)
			return ret;
		if (ret > 0)
			ret = serve_messages(a, &done);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct agent a = {.fd = -1, .started_s = uptime_now()};
	int ret = 1, hold[RUNNER_COUNTER_MAX];

	signal(SIGPIPE, SIG_IGN);
	/*
	 * Seed jansson's hash ourselves.  Left to itself it reads
	 * /dev/urandom on the first object, and a freshly booted guest
	 * without a hardware RNG (TCG's qemu64 has no RDRAND) waits there for
	 * the kernel's CRNG: about a second of every boot.  The agent parses
	 * only its host's requests, so hash flooding is no concern.
	 */
	json_object_seed(0x766d746178u);
	proto_decoder_init(&a.dec);
	note("vmtax-agent %s (%s build, protocol %d) starting", VMTAX_VERSION,
	     AGENT_FLAVOUR, PROTO_VERSION);
#ifdef VMTAX_AGENT_TEST
	if (argc == 3 && !strcmp(argv[1], "--fd")) {
		a.hosted = true;
		a.fd = atoi(argv[2]);
		snprintf(a.port, sizeof(a.port), "descriptor %d", a.fd);
		if (a.fd < 3 || fcntl(a.fd, F_GETFD) < 0) {
			err("'%s' is not an open descriptor above 2", argv[2]);
			a.fd = -1;
			goto out;
		}
		if (serve(&a) == 0)
			ret = 0;
		goto out;
	}
#else
	(void)argc;
	(void)argv;
#endif
	if (find_port(a.port, sizeof(a.port)) < 0)
		goto out;
	a.fd = open(a.port, O_RDWR | O_CLOEXEC);
	if (a.fd < 0) {
		err_errno("cannot open '%s'", a.port);
		goto out;
	}
	/* The perf switches stay on from here: no run patches kernel text
	 * while the other vCPUs run it (runner.h, docs/tcg-lockup.md). */
	runner_counters_hold(hold);
	note("waiting for the host on '%s' (uptime %.2f s)", a.port,
	     uptime_now());
	if (serve(&a) == 0)
		ret = 0;
	for (int i = 0; i < RUNNER_COUNTER_MAX; i++)
		if (hold[i] >= 0)
			close(hold[i]);
out:
	if (a.fd >= 0)
		close(a.fd);
	proto_decoder_release(&a.dec);
	return ret;
}
