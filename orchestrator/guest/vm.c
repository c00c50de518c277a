/* SPDX-License-Identifier: MIT */
/*
 * The only file in vmtax that includes libvirt.
 *
 * libvirt's remote driver only moves stream data and delivers events while
 * an event loop runs, so one thread runs the default event implementation
 * for the life of the process.  It is started once (pthread_once), which is
 * the one piece of process-wide state here: libvirt's event implementation
 * is itself process-wide and may be registered only once.
 */
#include <errno.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "util.h"
#include "vm.h"

struct vm_conn {
	virConnectPtr conn;
	char *uri;	/* as checked */
	char *open_uri; /* as libvirt opens it (no_tty=1 added over ssh) */
	bool remote;	/* qemu+ssh: QEMU is not a process of this host */
	atomic_int dead;
	/* domains whose QEMU has exited, libvirt still tearing them down */
	char **draining;
	size_t ndraining;
};

struct vm {
	struct vm_conn *c;
	virConnectPtr conn;	/* c->conn at start (a reference): dom's own */
	virDomainPtr dom;
	virStreamPtr st;
	char *name;
	int event_id;
	int qemu_pid;		/* read at start; to tell a dead QEMU apart */
	bool qemu_exited;	/* vm_stop() saw its process end */
	atomic_int stopped;	/* a STOPPED/CRASHED event arrived */
	atomic_int stop_detail;	/* which one, see stop_reason_name() */
	char reason[64];
};

enum {
	STOP_NONE,
	STOP_SHUTDOWN,
	STOP_DESTROYED,
	STOP_CRASHED,
	STOP_FAILED,
	STOP_OTHER,
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static pthread_once_t event_once = PTHREAD_ONCE_INIT;
static int event_ok;

static void silent_error(void *arg, virErrorPtr e)
{
	(void)arg;
	(void)e;
	/* vmtax reports libvirt errors itself, once, with context. */
}

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			usleep(100000);
	return NULL;
}

static void sigpipe_noop(int sig)
{
	(void)sig;
}

/*
 * libvirt's client writes its socket with write(): a libvirtd that dies
 * in the middle of a call would end vmtax with SIGPIPE (exit 141, seen in
 * t0200's libvirtd-SIGTERM case on a loaded host) instead of the cell
 * failing "naming libvirt" and the run going on.  The write gets EPIPE
 * instead, which libvirt reports as a lost connection.  A handler that
 * does nothing rather than SIG_IGN: exec() puts a caught signal back to
 * its default, so workloads, qemu-img and ssh still get SIGPIPE as usual.
 */
static void sigpipe_catch(void)
{
	struct sigaction sa, old;

	if (sigaction(SIGPIPE, NULL, &old) < 0 || old.sa_handler != SIG_DFL)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigpipe_noop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}

static void event_init(void)
{
	pthread_t t;

	sigpipe_catch();
	virSetErrorFunc(NULL, silent_error);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
		return;
	if (pthread_create(&t, NULL, event_loop, NULL) != 0)
		return;
	pthread_detach(t);
	event_ok = 1;
}

static const char *lv_err(void)
{
	const char *m = virGetLastErrorMessage();

	return m ? m : "unknown libvirt error";
}

static void close_cb(virConnectPtr conn, int reason, void *opaque)
{
	struct vm_conn *c = opaque;

	(void)conn;
	(void)reason;
	atomic_store(&c->dead, 1);
}

static int conn_connect(struct vm_conn *c)
{
	c->conn = virConnectOpen(c->open_uri);
	if (!c->conn)
		return -ECONNREFUSED;
	/* Notice a dead libvirtd within ~15 s rather than hanging forever. */
	if (virConnectSetKeepAlive(c->conn, 5, 3) < 0)
		warn("cannot enable libvirt keepalive: %s", lv_err());
	virConnectRegisterCloseCallback(c->conn, close_cb, c, NULL);
	return 0;
}

/*
 * After libvirtd went away (restarted, crashed), open a new connection in
 * place of the dead one, waiting up to TIMEOUT_S for the daemon to be back.
 * Domains keep their own reference to the old connection.
 */
static int conn_reopen(struct vm_conn *c, double timeout_s)
{
	double deadline = mono_now() + timeout_s;

	if (vm_conn_alive(c))
		return 0;
	if (c->conn) {
		virConnectUnregisterCloseCallback(c->conn, close_cb);
		virConnectClose(c->conn);
		c->conn = NULL;
	}
	atomic_store(&c->dead, 0);
	while (conn_connect(c) < 0) {
		if (mono_now() >= deadline)
			return err_code(-ECONNREFUSED,
					"the connection to libvirt at '%s' was lost "
					"and cannot be opened again: %s",
					c->uri, lv_err());
		usleep(500000);
	}
	note("reconnected to libvirt at '%s'", c->uri);
	return 0;
}

int vm_conn_open(const char *uri, struct vm_conn **out)
{
	struct vm_uri_dest d;
	struct vm_conn *c = NULL;
	char why[256];
	int ret = -EIO;

	if (vm_uri_check(uri, why, sizeof(why)) < 0)
		return err("refusing libvirt URI '%s': %s", uri, why);
	pthread_once(&event_once, event_init);
	if (!event_ok)
		return err("cannot start the libvirt event loop: %s", lv_err());
	c = xcalloc(1, sizeof(*c));
	c->uri = xstrdup(uri);
	c->remote = vm_uri_remote(uri, &d);
	/* no_tty=1: libvirt's ssh gets -T -o BatchMode=yes -e none, so a
	 * host that would ask for a password fails instead of waiting */
	c->open_uri = c->remote ? xasprintf("%s?no_tty=1", uri) : xstrdup(uri);
	if (conn_connect(c) < 0) {
		ret = err_code(-ECONNREFUSED,
			       "cannot connect to libvirt at '%s': %s "
			       "(is libvirtd running? 'make deps' starts it)",
			       uri, lv_err());
		goto out;
	}
	*out = c;
	c = NULL;
	ret = 0;
out:
	vm_conn_close(c);
	return ret;
}

/*
 * The domains C let go of while libvirt was still tearing them down
 * (vm_stop()): gone, or given up on after VM_DRAIN_S, before C closes, so
 * that a run leaves no domain behind it.
 */
static void conn_drain(struct vm_conn *c)
{
	double deadline = mono_now() + VM_DRAIN_S;
	size_t i;

	for (i = 0; i < c->ndraining; i++) {
		while (c->conn && !atomic_load(&c->dead) &&
		       mono_now() < deadline) {
			virDomainPtr d =
			    virDomainLookupByName(c->conn, c->draining[i]);
			int active = d ? virDomainIsActive(d) : 0;

			if (d)
				virDomainFree(d);
			if (active != 1)
				break;
			sleep_ms(50);
		}
		free(c->draining[i]);
	}
	free(c->draining);
	c->draining = NULL;
	c->ndraining = 0;
}

void vm_conn_close(struct vm_conn *c)
{
	if (!c)
		return;
	conn_drain(c);
	if (c->conn) {
		virConnectUnregisterCloseCallback(c->conn, close_cb);
		virConnectClose(c->conn);
	}
	free(c->uri);
	free(c->open_uri);
	free(c);
}

int vm_conn_hostname(struct vm_conn *c, char *buf, size_t len)
{
	char *h = c->conn ? virConnectGetHostname(c->conn) : NULL;

	buf[0] = '\0';
	if (!h)
		return err("cannot ask libvirt at '%s' for its host's name: %s",
			   c->uri, lv_err());
	snprintf(buf, len, "%s", h);
	free(h);
	return 0;
}

int vm_conn_alive(struct vm_conn *c)
{
	return c->conn && !atomic_load(&c->dead) &&
	       virConnectIsAlive(c->conn) == 1;
}

static void fmt_version(unsigned long v, char *buf, size_t len)
{
	snprintf(buf, len, "%lu.%lu.%lu", v / 1000000, (v / 1000) % 1000,
		 v % 1000);
}

int vm_versions(const char *uri, char *libvirt, size_t llen, char *qemu,
		size_t qlen)
{
	struct vm_conn *c = NULL;
	unsigned long v;
	int ret;

	libvirt[0] = qemu[0] = '\0';
	if (virGetVersion(&v, NULL, NULL) == 0)
		fmt_version(v, libvirt, llen);
	ret = vm_conn_open(uri, &c);
	if (ret < 0)
		return ret;
	if (virConnectGetLibVersion(c->conn, &v) == 0)
		fmt_version(v, libvirt, llen);
	if (virConnectGetVersion(c->conn, &v) == 0)
		fmt_version(v, qemu, qlen);
	vm_conn_close(c);
	return 0;
}

int vm_list_running(const char *uri, char ***names)
{
	virDomainPtr *doms = NULL;
	struct vm_conn *c = NULL;
	char **v = NULL;
	int n, i, ret;

	*names = NULL;
	ret = vm_conn_open(uri, &c);
	if (ret < 0)
		return ret;
	n = virConnectListAllDomains(c->conn, &doms,
				     VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		ret = err("cannot list domains on '%s': %s", uri, lv_err());
		goto out;
	}
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		v[i] = xstrdup(virDomainGetName(doms[i]));
		virDomainFree(doms[i]);
	}
	*names = v;
	ret = n;
out:
	free(doms);
	vm_conn_close(c);
	return ret;
}

int vm_list_running_str(void *uri, char *buf, size_t len)
{
	char **names = NULL;
	size_t off = 0;
	int n, i;

	buf[0] = '\0';
	n = vm_list_running(uri, &names);
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				names[i]);
	vm_names_free(names);
	return n;
}

void vm_names_free(char **names)
{
	size_t i;

	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

/* Whether the domain's own connection is still alive. */
static int vm_conn_ok(struct vm *vm)
{
	return vm->conn == vm->c->conn && vm_conn_alive(vm->c);
}

static int lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event,
			int detail, void *opaque)
{
	struct vm *vm = opaque;
	int why = STOP_NONE;

	(void)conn;
	(void)dom;
	if (event == VIR_DOMAIN_EVENT_CRASHED)
		why = STOP_CRASHED;
	else if (event == VIR_DOMAIN_EVENT_STOPPED) {
		switch (detail) {
		case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN:
			why = STOP_SHUTDOWN;
			break;
		case VIR_DOMAIN_EVENT_STOPPED_DESTROYED:
			why = STOP_DESTROYED;
			break;
		case VIR_DOMAIN_EVENT_STOPPED_CRASHED:
			why = STOP_CRASHED;
			break;
		case VIR_DOMAIN_EVENT_STOPPED_FAILED:
			why = STOP_FAILED;
			break;
		default:
			why = STOP_OTHER;
		}
	}
	if (why != STOP_NONE) {
		/* A crash (pvpanic) is followed by STOPPED/DESTROYED; keep it. */
		if (atomic_load(&vm->stop_detail) != STOP_CRASHED)
			atomic_store(&vm->stop_detail, why);
		atomic_store(&vm->stopped, 1);
	}
	return 0;
}

/* A new struct vm named NAME on C's connection, not yet a domain. */
static struct vm *vm_new(struct vm_conn *c, const char *name)
{
	struct vm *vm = xcalloc(1, sizeof(*vm));

	vm->c = c;
	vm->conn = c->conn;
	virConnectRef(vm->conn);
	vm->name = xstrdup(name);
	vm->event_id = -1;
	return vm;
}

/* VM->dom has started: watch its life and open the agent channel. */
static int vm_attach(struct vm *vm)
{
	vm->event_id = virConnectDomainEventRegisterAny(
		vm->conn, vm->dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
		VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), vm, NULL);
	vm->st = virStreamNew(vm->conn, VIR_STREAM_NONBLOCK);
	if (!vm->st)
		return err("cannot create a stream for '%s': %s", vm->name,
			   lv_err());
	if (virDomainOpenChannel(vm->dom, PROTO_PORT_NAME, vm->st, 0) < 0)
		return err("cannot open channel '%s' of '%s': %s",
			   PROTO_PORT_NAME, vm->name, lv_err());
	vm->qemu_pid = vm_qemu_pid(vm);
	return 0;
}

int vm_start(struct vm_conn *c, const struct vm_spec *spec, struct vm **out)
{
	struct vm *vm = NULL;
	char *xml = NULL;
	int ret = -EIO;

	xml = vm_domain_xml_new(spec);
	if (!xml)
		return -EINVAL;
	ret = conn_reopen(c, 30);
	if (ret < 0)
		goto out;
	ret = -EIO;
	vm = vm_new(c, spec->name);
	info("starting domain '%s' at '%s'", spec->name, c->uri);
	vm->dom = virDomainCreateXML(c->conn, xml,
				     VIR_DOMAIN_START_AUTODESTROY);
	if (!vm->dom) {
		ret = err("cannot start domain '%s': %s", spec->name, lv_err());
		goto out;
	}
	if (vm_attach(vm) < 0)
		goto out;
	*out = vm;
	vm = NULL;
	ret = 0;
out:
	vm_free(vm);
	free(xml);
	return ret;
}

int vm_save(struct vm *vm, const char *path)
{
	vm_close_channel(vm);
	if (virDomainSaveFlags(vm->dom, path, NULL, 0) < 0)
		return err("cannot save domain '%s' to '%s': %s", vm->name,
			   path, lv_err());
	return 0;
}

/* Whether a domain of UUID runs on C (its name into NAME). */
static bool uuid_running(struct vm_conn *c, const char *uuid, char *name,
			 size_t len)
{
	virDomainPtr d = virDomainLookupByUUIDString(c->conn, uuid);
	bool on;

	if (!d)
		return false;
	on = virDomainIsActive(d) == 1;
	snprintf(name, len, "%s", virDomainGetName(d) ?: "?");
	virDomainFree(d);
	return on;
}

/* The live metadata of a restored domain: its owner, for the sweep. */
#define OWNER_NS "https://vmtax.invalid/owner"
#define OWNER_KEY "vmtax"

static void owner_set(struct vm *vm)
{
	char xml[64];

	snprintf(xml, sizeof(xml), "<owner pid='%d'/>", (int)getpid());
	if (virDomainSetMetadata(vm->dom, VIR_DOMAIN_METADATA_ELEMENT, xml,
				 OWNER_KEY, OWNER_NS,
				 VIR_DOMAIN_AFFECT_LIVE) < 0)
		warn("cannot mark '%s' as this vmtax's (%s): if vmtax is "
		     "killed, 'virsh destroy %s'",
		     vm->name, lv_err(), vm->name);
}

/* The owner PID of D (owner_set()), or 0. */
static long owner_get(virDomainPtr d)
{
	char *xml = virDomainGetMetadata(d, VIR_DOMAIN_METADATA_ELEMENT,
					 OWNER_NS, VIR_DOMAIN_AFFECT_LIVE);
	const char *p = xml ? strstr(xml, "pid=") : NULL;
	long pid = p ? strtol(p + 5, NULL, 10) : 0;

	free(xml);
	return pid;
}

int vm_restore(struct vm_conn *c, const char *state,
	       const struct vm_spec *spec, struct vm **out)
{
	char *saved = NULL, *xml = NULL, uuid[37] = "", why[256], other[128];
	char name[VM_NAME_MAX];
	struct vm *vm = NULL;
	int ret;

	ret = conn_reopen(c, 30);
	if (ret < 0)
		return ret;
	ret = -EBADMSG;
	saved = virDomainSaveImageGetXMLDesc(c->conn, state, 0);
	if (!saved) {
		err("cannot read the saved state '%s': %s", state, lv_err());
		goto out;
	}
	xml = vm_domain_xml_retarget_new(saved, spec->disk, spec->console_log,
					 name, uuid, why, sizeof(why));
	if (!xml) {
		err("the saved state '%s': %s", state, why);
		goto out;
	}
	if (uuid_running(c, uuid, other, sizeof(other))) {
		ret = err_code(-EBUSY,
			       "the saved state '%s' runs already, as '%s'",
			       state, other);
		goto out;
	}
	if (virDomainRestoreFlags(c->conn, state, xml,
				  VIR_DOMAIN_SAVE_RUNNING) < 0) {
		err("cannot restore '%s' from '%s': %s", name, state, lv_err());
		goto out;
	}
	ret = -EIO;
	vm = vm_new(c, name);
	vm->dom = virDomainLookupByName(c->conn, name);
	if (!vm->dom) {
		ret = err("the restored domain '%s' is gone: %s", name,
			  lv_err());
		goto out;
	}
	owner_set(vm);
	if (vm_attach(vm) < 0)
		goto out;
	*out = vm;
	vm = NULL;
	ret = 0;
out:
	vm_free(vm);
	free(xml);
	free(saved);
	return ret;
}

/*
 * Whether the vmtax that owns D (named PREFIX-...) is gone: the owner in
 * its metadata (a restored domain keeps the name it was saved with), else
 * the PID in PREFIX-PID-....
 */
static bool orphan(virDomainPtr d, const char *name, size_t plen)
{
	long pid = owner_get(d);
	char *end;

	if (pid <= 0) {
		pid = strtol(name + plen + 1, &end, 10);
		if (*end != '-')
			pid = 0;
	}
	return pid > 0 && pid != getpid() && kill((pid_t)pid, 0) < 0 &&
	       errno == ESRCH;
}

int vm_sweep_orphans(struct vm_conn *c, const char *prefix)
{
	virDomainPtr *doms = NULL;
	size_t plen = strlen(prefix);
	int n, i, gone = 0;

	if (conn_reopen(c, 30) < 0)
		return 0;
	n = virConnectListAllDomains(c->conn, &doms,
				     VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, prefix, plen) &&
		    name[plen] == '-' && orphan(doms[i], name, plen) &&
		    virDomainDestroy(doms[i]) == 0) {
			note("destroyed domain '%s', left by a vmtax that was "
			     "killed",
			     name);
			gone++;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	return gone;
}

int vm_running(struct vm *vm)
{
	int state, reason;

	if (atomic_load(&vm->stopped))
		return 0;
	if (!vm->dom || virDomainGetState(vm->dom, &state, &reason, 0) < 0)
		return 0;
	return state == VIR_DOMAIN_RUNNING || state == VIR_DOMAIN_PAUSED ||
	       state == VIR_DOMAIN_BLOCKED;
}

const char *vm_stop_reason(struct vm *vm)
{
	double deadline = mono_now() + 5;

	/*
	 * The agent channel ends (EOF) before libvirt's lifecycle event says
	 * why; give the event a moment to arrive.
	 */
	while (atomic_load(&vm->stop_detail) == STOP_NONE && vm_conn_ok(vm) &&
	       mono_now() < deadline)
		sleep_ms(20);
	switch (atomic_load(&vm->stop_detail)) {
	case STOP_SHUTDOWN:
		return "the guest powered off or rebooted";
	case STOP_DESTROYED:
		return "the domain was destroyed";
	case STOP_CRASHED:
		return "the guest crashed (panic)";
	case STOP_FAILED:
		return "QEMU failed (its process ended: killed or crashed)";
	case STOP_OTHER:
		return "the domain stopped";
	}
	if (!vm_conn_ok(vm))
		return "the connection to libvirt was lost";
	/* No event (a loaded host can be slow to deliver it): ask the kernel. */
	if (vm->qemu_pid > 0 && kill(vm->qemu_pid, 0) < 0 && errno == ESRCH)
		return "QEMU's process ended (killed or crashed)";
	return "the domain is gone";
}

int vm_send(struct vm *vm, const void *buf, size_t len, double timeout_s)
{
	double deadline = mono_now() + timeout_s;
	size_t off = 0;

	if (!vm->st)
		return -EPIPE;
	while (off < len) {
		int n = virStreamSend(vm->st, (const char *)buf + off,
				      len - off);

		if (n > 0) {
			off += n;
			continue;
		}
		if (n == -1 || !vm_running(vm))
			return -EPIPE;
		if (mono_now() > deadline)
			return -ETIMEDOUT;
		sleep_ms(5);
	}
	return 0;
}

int vm_recv(struct vm *vm, void *buf, size_t len, double timeout_s)
{
	double deadline = mono_now() + timeout_s, next_check = 0;

	if (!vm->st)
		return -EPIPE;
	for (;;) {
		int n = virStreamRecv(vm->st, buf, len);

		if (n > 0)
			return n;
		if (n == 0 || n == -1)
			return -EPIPE;
		/* n == -2: nothing yet.  Check on the domain now and then. */
		if (mono_now() >= next_check) {
			if (!vm_running(vm) || !vm_conn_ok(vm))
				return -EPIPE;
			next_check = mono_now() + 0.25;
		}
		if (mono_now() >= deadline)
			return 0;
		sleep_ms(5);
	}
}

int vm_qemu_pid(struct vm *vm)
{
	char path[256], line[32];
	int ret;

	if (vm->c->remote)
		return -ENOENT; /* its QEMU runs on another host */
	snprintf(path, sizeof(path), "/run/libvirt/qemu/%s.pid", vm->name);
	ret = read_line(path, line, sizeof(line));
	if (ret < 0)
		return ret;
	return atoi(line) > 0 ? atoi(line) : -ENOENT;
}

/*
 * Whether libvirt still counts the domain as active: a guest that powered
 * off is in state "shutdown" (not running) while QEMU exits and libvirt
 * cleans up, and it still appears in the running list until then.  A gone
 * transient domain or a dead connection is inactive.
 */
static int vm_active(struct vm *vm)
{
	return vm->dom && virDomainIsActive(vm->dom) == 1;
}

int vm_stop(struct vm *vm, double timeout_s)
{
	double deadline = mono_now() + timeout_s;

	/* A QEMU of this host: its end, by the kernel (vm_proc_ended());
	 * libvirt finishes with the domain meanwhile, and vm_free() leaves
	 * it to vm_conn_close() to see it gone. */
	if (vm->qemu_pid > 0 && !vm->c->remote) {
		while (!vm_proc_ended(vm->qemu_pid, VM_QEMU_COMM) &&
		       mono_now() < deadline)
			sleep_ms(20);
		if (vm_proc_ended(vm->qemu_pid, VM_QEMU_COMM)) {
			vm->qemu_exited = true;
			return 0;
		}
	}
	while (vm_active(vm) && mono_now() < deadline)
		sleep_ms(50);
	if (vm_active(vm)) {
		if (virDomainDestroy(vm->dom) < 0 && vm_running(vm))
			return err("cannot destroy domain '%s': %s", vm->name,
				   lv_err());
		return -ETIMEDOUT;
	}
	return 0;
}

/*
 * The domain's connection died with libvirtd, so its state is unknown: a
 * libvirtd that was killed leaves QEMU running and forgets that the domain
 * was to be destroyed with our connection.  Find it by name on a new
 * connection and destroy it.
 */
static void destroy_orphan(struct vm *vm)
{
	virDomainPtr d;

	if (conn_reopen(vm->c, 30) < 0) {
		warn("domain '%s' may still be running: destroy it with "
		     "'virsh destroy %s'", vm->name, vm->name);
		return;
	}
	d = virDomainLookupByName(vm->c->conn, vm->name);
	if (!d)
		return;
	if (virDomainIsActive(d) == 1 && virDomainDestroy(d) < 0)
		err("cannot destroy domain '%s': %s", vm->name, lv_err());
	virDomainFree(d);
}

void vm_close_channel(struct vm *vm)
{
	if (!vm->st)
		return;
	virStreamAbort(vm->st);
	virStreamFree(vm->st);
	vm->st = NULL;
}

void vm_free(struct vm *vm)
{
	if (!vm)
		return;
	/*
	 * libvirt 9.0 deadlocks (virChrdevFree against a stream abort) when
	 * the channel is closed while the domain object is being freed.  A
	 * domain that ended by itself is torn down by libvirt right now: let
	 * that finish first.  A running one is destroyed only after the
	 * channel is closed.
	 */
	if (vm->st && !vm_running(vm))
		sleep_ms(1000);
	vm_close_channel(vm);
	if (vm->event_id >= 0)
		virConnectDomainEventDeregisterAny(vm->conn, vm->event_id);
	if (vm->dom && vm->qemu_exited && vm->conn == vm->c->conn) {
		/* libvirt is still tearing it down (vm_stop()): not waited
		 * for here, but before the connection closes */
		vm->c->draining = xrealloc(vm->c->draining,
					   (vm->c->ndraining + 1) *
					       sizeof(*vm->c->draining));
		vm->c->draining[vm->c->ndraining++] = xstrdup(vm->name);
		virDomainFree(vm->dom);
	} else if (vm->dom) {
		if (vm_running(vm))
			virDomainDestroy(vm->dom);
		else if (!atomic_load(&vm->stopped) && !vm_conn_ok(vm))
			destroy_orphan(vm);
		virDomainFree(vm->dom);
	}
	if (vm->conn)
		virConnectClose(vm->conn);
	free(vm->name);
	free(vm);
}
