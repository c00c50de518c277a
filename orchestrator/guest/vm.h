/* SPDX-License-Identifier: MIT */
/*
 * vm.h - guests through libvirt.  orchestrator/guest/vm.c is the only file in
 * vmtax that includes libvirt; everything else sees these plain functions.
 *
 * A struct vm is one transient domain named "vmtax-..." started with
 * VIR_DOMAIN_START_AUTODESTROY, so it dies with the libvirt connection (and
 * so with vmtax).  The agent channel is opened with virDomainOpenChannel() on
 * a non-blocking virStream, which also works over remote URIs.
 *
 * libvirtd going away.  A struct vm_conn outlives its libvirtd: once the
 * connection is dead, the next vm_start() opens a new one (waiting up to
 * 30 s for the daemon), so a run goes on after a libvirtd restart.  A
 * domain started on the dead connection keeps it; its calls fail with
 * -EPIPE ("the connection to libvirt was lost").  A libvirtd that is killed
 * outright leaves QEMU running and forgets AUTODESTROY, so vm_free() of
 * such a domain finds it by name on a new connection and destroys it.
 */
#ifndef VMTAX_VM_H
#define VMTAX_VM_H

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"

/*
 * Versions of libvirt and of the hypervisor (QEMU) as "9.0.0" strings.
 * Either may be set to "" when unknown.  Returns 0 or a negative errno.
 */
int vm_versions(const char *uri, char *libvirt, size_t llen, char *qemu,
		size_t qlen);

/*
 * Names of the running domains on URI (all of them, not only vmtax-*), as a
 * NULL-terminated array the caller frees with vm_names_free().  Returns the
 * count or a negative errno.
 */
int vm_list_running(const char *uri, char ***names);
void vm_names_free(char **names);
/*
 * The same as one "a, b, c" string in BUF; ARG is the URI (const char *).
 * Has the shape of host_list_vms_fn, for host/ (which has no libvirt).
 */
int vm_list_running_str(void *uri, char *buf, size_t len);

/* ---- guests ---- */

struct vm_conn;
struct vm;

/*
 * The start of every kernel command line vmtax boots (test guests and the
 * lab host; [guest] cmdline is appended, and a later loglevel= wins): the
 * console on the serial port, which the domain writes to its console log;
 * a panic reboots at once (the domain then stops, and the run sees it);
 * and the console gets KERN_WARNING and worse, not the boot's hundreds of
 * KERN_INFO lines.  Each byte on an emulated serial port is a trap to QEMU,
 * and inside a lab a nested one: measured in a lab (TCG, EPYC +svm +npt),
 * a tiny guest's boot to hello took 19.8 s with every line and 13.7 s
 * with loglevel=5 (docs/lab.md; on this host's TCG guests, no difference).
 * Warnings, oopses, panics, soft lockups and vmtax-init's own lines still
 * reach the log.  The boot's two longest initcalls under TCG are crypto
 * self-tests (initcall_debug, 6.1 tiny guest: crypto_algapi_init 0.21 s,
 * which runs the crypto manager's tests, and crypto_kdf108_init 0.15 s, a
 * KDF self-test): cryptomgr.notests and an initcall_blacklist skip them,
 * the kernel's own switches for this; they only test the kernel's crypto
 * code at boot, and the guest's kernel to the agent went 2.05 s -> 1.83 s
 * (3 pairs, docs/guest-image.md).  [guest] cmdline = cryptomgr.notests=0
 * runs the manager's tests again.
 */
#define VM_CMDLINE_BASE                                                        \
	"console=ttyS0 panic=-1 loglevel=5 cryptomgr.notests "                 \
	"initcall_blacklist=crypto_kdf108_init"
/* How long vm_conn_close() waits for libvirt to finish with the domains
 * whose QEMU had ended when they were let go (vm_stop()). */
#define VM_DRAIN_S 15
/* What QEMU's process calls itself (/proc/PID/stat), "qemu-system-x86". */
#define VM_QEMU_COMM "qemu"

/*
 * Process PID, named COMM... (its comm starts so), has ended: gone, a
 * zombie (its memory is free) or another process under a reused PID.
 * QEMU runs with -no-shutdown: a guest that powers off leaves it paused,
 * and libvirt then ends it with SIGTERM and polls every 200 ms for the
 * process to be gone; where PID 1 reaps orphans late (here) that took
 * 1.5-2.2 s for a QEMU that exited in 20 ms, libvirt answering nothing of
 * the domain meanwhile.  The kernel says it at once (vm-proc.c; no
 * libvirt).  False for PID <= 0.
 */
bool vm_proc_ended(int pid, const char *comm);

struct vm_spec {
	const char *name;	/* "vmtax-..."; must satisfy is_safe_name() */
	const char *type;	/* "kvm" or "qemu" (TCG) */
	unsigned vcpus;
	unsigned long long memory_bytes;
	const char *kernel;	/* direct kernel boot */
	const char *initrd;
	const char *cmdline;
	const char *console_log; /* serial console goes to this file */
	const char *disk;	/* a qcow2 as /dev/vda (virtio), or NULL */
	/*
	 * A qcow2 attached read-only as the second virtio disk (vdb, serial
	 * VM_CARRIER_SERIAL), or NULL: the debian image a lab host carries
	 * for its own guests (docs/lab.md, "Debian inner guests").  QEMU
	 * opens it read-only; nothing in the guest can write it.
	 */
	const char *carrier;
	/* "thp" (ordinary anonymous memory), "hugetlb-2M", "hugetlb-1G" */
	const char *backing;
	/*
	 * CPU features to add or remove ("+pdpe1gb -la57", blank or comma
	 * separated; NULL or "": none) on top of the CPU the guest gets
	 * anyway: the host's (host-passthrough) under KVM, QEMU's qemu64
	 * under TCG.
	 */
	const char *cpu_features;
	/*
	 * QEMU's CPU model under TCG ("EPYC" for a lab host with svm and
	 * npt); NULL: qemu64.  Ignored under KVM (host-passthrough).
	 */
	const char *cpu_model;
	/* Where vCPUs and the emulator threads run (<cputune>); NULL or
	 * !pinned: nowhere in particular.  The rule: lib/cpuset.h. */
	const struct pin_plan *pin;
	/*
	 * [guest] numa: the host NUMA node the guest's memory is bound to
	 * (<numatune> strict) as a number, and that node's CPUs (a CPU list,
	 * "0-7,16-23"), where its vCPUs run unless pinned (<vcpu cpuset>;
	 * NULL for a node without CPUs); both NULL: nowhere in particular.
	 */
	const char *numa_node;
	const char *numa_cpus;
	/*
	 * Nonzero: a NIC on QEMU's user network (slirp, restrict=on: the
	 * guest reaches nothing beyond it) whose only way in is TCP
	 * 127.0.0.1:SSH_PORT on this host, forwarded to VM_USERNET_GUEST
	 * port 22 ('vmtax lab up', docs/lab.md).  0: no NIC, as every
	 * measured guest and lab run has.
	 */
	unsigned ssh_port;
};

/* The serial of vm_spec.carrier's disk: /sys/block/vdX/serial inside. */
#define VM_CARRIER_SERIAL "vmtax-carrier"

/* The guest's address on QEMU's user network (slirp's first DHCP lease;
 * the guest sets it itself: it has no DHCP client), and its prefix. */
#define VM_USERNET_GUEST "10.0.2.15"
#define VM_USERNET_PREFIX "24"
#define VM_SSH_PORT_MIN 1024 /* a forwarded port: unprivileged ones only */

/*
 * Domain XML for SPEC, written with libxml2's xmlTextWriter (so every value
 * is escaped).  Returns a new string or NULL after reporting.
 */
char *vm_domain_xml_new(const struct vm_spec *spec);
/*
 * A saved domain's XML (XML, from its state file) for a restore: its vda
 * disk's source DISK and its serial console's log CONSOLE_LOG; the guest's
 * ABI (devices, CPU, memory) and its name and UUID unchanged (libvirt 9.0
 * refuses another name: "Target domain name ... does not match source").
 * NAME (VM_NAME_MAX bytes) and UUID (37 bytes) get the domain's.  Returns
 * a new string, or NULL with the reason in WHY.  Pure (libxml2's tree).
 */
#define VM_NAME_MAX 128
char *vm_domain_xml_retarget_new(const char *xml, const char *disk,
				 const char *console_log, char *name,
				 char *uuid, char *why, size_t len);
/* Whether FEATURES is a vm_spec cpu_features list ("+a -b", "" too). */
bool vm_cpu_features_valid(const char *features);

/*
 * Whether vmtax opens URI (docs/security.md, "libvirt URIs"): this host's
 * libvirtd, DRIVER[+unix]:///PATH with no host, no parameters and no
 * escapes (qemu:///system, qemu:///session, test:///default), or a remote
 * one through the user's ssh, qemu+ssh://USER@HOST[:PORT]/system: USER and
 * HOST of [A-Za-z0-9._-] not starting with '-', PORT 1-65535, /system only,
 * no parameters.  Every other transport (+ext runs a command; +libssh,
 * +libssh2, +tcp, +tls), a host without +ssh and every parameter
 * (command=, socket=, netcat=, keyfile=, proxy=, no_verify=, ...) is
 * refused with its reason in WHY: -EINVAL.  Pure; the config's guest.uri
 * key and vm_conn_open() both use it, so a URI from any source (a config,
 * --set, lab.json, results.json on resume, --uri) passes here.
 */
#define VM_URI_MAX 256
#define VM_URI_USER_MAX 32
#define VM_URI_HOST_MAX 253
int vm_uri_check(const char *uri, char *why, size_t len);

/* The parts of a remote URI (qemu+ssh://USER@HOST[:PORT]/system). */
struct vm_uri_dest {
	char user[VM_URI_USER_MAX + 1];
	char host[VM_URI_HOST_MAX + 1];
	unsigned port; /* 0: ssh's default */
};
/*
 * Whether URI is a remote libvirt vm_uri_check() accepts: true with its
 * parts in D (may be NULL); false (D zeroed) for a local or refused one.
 * Pure.
 */
bool vm_uri_remote(const char *uri, struct vm_uri_dest *d);

/* Open URI (e.g. "qemu:///system") with an event loop thread running;
 * one vm_uri_check() refuses is reported and not opened (-EINVAL). */
int vm_conn_open(const char *uri, struct vm_conn **out);
void vm_conn_close(struct vm_conn *c);
/* The name of the host C's libvirtd runs on (virConnectGetHostname()),
 * into BUF.  0 or a negative errno (reported). */
int vm_conn_hostname(struct vm_conn *c, char *buf, size_t len);
/*
 * true while the connection is alive (false after libvirtd went away, until
 * vm_start() reconnects).
 */
int vm_conn_alive(struct vm_conn *c);

/*
 * Create a transient domain with VIR_DOMAIN_START_AUTODESTROY and open the
 * agent channel (PROTO_PORT_NAME) as a non-blocking stream.  Reconnects C
 * first if libvirtd went away (see above).
 */
int vm_start(struct vm_conn *c, const struct vm_spec *spec, struct vm **out);
/*
 * Save the running domain's state (its RAM and devices) to PATH; the domain
 * stops.  The agent channel is closed first.  Returns 0 or a negative
 * errno (reported).
 */
int vm_save(struct vm *vm, const char *path);
/*
 * Start a domain from the state file STATE (vm_save()), its disk
 * SPEC->disk and console log SPEC->console_log (the rest of SPEC is not
 * used: the state has it, its name too), running, and open its agent
 * channel as vm_start() does.  libvirt 9.0 has no AUTODESTROY for a
 * restore: the domain is destroyed by vm_free() and vm_stop(), and one left
 * by a vmtax that was killed by vm_sweep_orphans() (its owner's PID is in
 * its live metadata).  Returns 0, -EBUSY when a domain of the same UUID
 * (restored from the same state) runs, -EBADMSG when libvirt or QEMU
 * refused the state (its reason reported), or another negative errno
 * (reported).
 */
int vm_restore(struct vm_conn *c, const char *state,
	       const struct vm_spec *spec, struct vm **out);
/*
 * Destroy the running domains named PREFIX-... whose vmtax is gone: the
 * PID in PREFIX-PID-..., or the owner in a restored domain's metadata
 * (restored domains have no AUTODESTROY).  Returns how many.
 */
int vm_sweep_orphans(struct vm_conn *c, const char *prefix);
/*
 * Send all of BUF within TIMEOUT_S.  Returns 0, -ETIMEDOUT, or -EPIPE when
 * the domain is gone.
 */
int vm_send(struct vm *vm, const void *buf, size_t len, double timeout_s);
/*
 * Receive up to LEN bytes, waiting at most TIMEOUT_S.  Returns the byte
 * count, 0 on timeout, -EPIPE when the domain stopped (reason in
 * vm_stop_reason()), or another negative errno.
 */
int vm_recv(struct vm *vm, void *buf, size_t len, double timeout_s);
/* true while the domain runs. */
int vm_running(struct vm *vm);
/* Why the domain stopped ("shutdown", "crashed", "destroyed", ...). */
const char *vm_stop_reason(struct vm *vm);
/* PID of the QEMU process, or a negative errno (-ENOENT on a remote
 * libvirt: its QEMU is not a process of this host). */
int vm_qemu_pid(struct vm *vm);
/* Wait up to TIMEOUT_S for the domain to power off; then destroy it. */
int vm_stop(struct vm *vm, double timeout_s);
/*
 * Close the agent channel now (later vm_send/vm_recv fail with -EPIPE).
 * Call it before the guest powers off: libvirt 9.0 can deadlock when a
 * channel stream is closed while its domain is being torn down.
 */
void vm_close_channel(struct vm *vm);
/*
 * Destroy (if running, or if its libvirtd died and it may be: by name, on a
 * new connection) and free; NULL does nothing.
 */
void vm_free(struct vm *vm);

#endif
