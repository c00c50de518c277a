/* SPDX-License-Identifier: MIT */
/*
 * host.h - host control: the only code that writes /sys or loads modules.
 *
 * What it is for.  A vmtax matrix toggles host settings (THP, hugetlb pools,
 * EPT/NPT, kvm.nx_huge_pages) between cells.  Every change is verified (read
 * back after writing) and every change is undone, whatever happens: normal
 * exit, a signal, a crash, or a power cut.
 *
 * Knobs.  A setting is a named knob with string values.  Registered knobs:
 *	thp.enabled	  always | madvise | never	(the bracketed word)
 *	thp.defrag	  always | defer | defer+madvise | madvise | never
 *	paging		  hw | shadow	(kvm_intel ept / kvm_amd npt; a reload)
 *	hugetlb.2M	  a page count (nr_hugepages of hugepages-2048kB)
 *	hugetlb.1G	  a page count (nr_hugepages of hugepages-1048576kB)
 *	kvm.nx_huge_pages Y | N | auto | force | off | never
 * and one per cpufreq policy, set all at once (host_governor_set() below):
 *	cpufreq.policyN.governor  a governor the policy offers
 * host_knob_name(i) lists them; knob.h says how to add one.  Generic knobs:
 * every name knob_name_valid() of lib/knob-path.h accepts,
 *	sysctl.A.B	  /proc/sys/A/B		(sysctl.vm.swappiness)
 *	mm.A.B		  /sys/kernel/mm/A/B	(mm.ksm.run)
 * nothing outside those two trees.  Their value is the bracketed word or the
 * first line, trimmed, each run of blanks one space (knob-generic.c); a value
 * asked for is one line of printable text.  supported() says no, with why,
 * when the file is missing, a directory, read-only (no owner w bit) or
 * unreadable.  A generic name for a file a registered knob owns is refused,
 * naming the knob to use instead: mm.transparent_hugepage.enabled (use
 * thp.enabled), mm.transparent_hugepage.defrag (thp.defrag), and every
 * hugetlb pool size -- mm.hugepages.hugepages-*.nr_hugepages{,_mempolicy},
 * sysctl.vm.nr_hugepages{,_mempolicy} (use hugetlb.2M/1G, which check what
 * was allocated).  Other files of those trees (mm.transparent_hugepage.
 * khugepaged.defrag, mm.hugepages.hugepages-2048kB.nr_overcommit_hugepages)
 * are ordinary generic knobs.
 *
 * The context.  host_ctx_new() makes a struct host_ctx that owns:
 *   - the lock: STATE/lock, held with flock(LOCK_EX) for the context's life
 *     and holding the owner's pid.  A second vmtax fails fast with -EBUSY and
 *     "another vmtax (pid N) holds '/var/lib/vmtax/lock'".  The lock file is
 *     never unlinked (unlinking a flock file races with the next locker).
 *   - the journal: STATE/host-journal, created (0600) on the first change.
 *     One line per knob, in the order the knobs were first changed:
 *     "KNOB<TAB>ORIGINAL\n" (KNOB registered or generic: a stale journal
 *     resolves both by name).  The line is written and fsynced BEFORE the
 *     knob is changed, so a crash at any point leaves enough on disk to put
 *     the host back.
 * STATE is root's only (0700, created so, made so again on every start;
 * one owned by someone else is refused), and so are the lock and the
 * journal (0600): whoever can write the journal can set any knob.
 * Since the lock dies with its process, a journal found by a context that got
 * the lock belongs to a dead run: host_ctx_new() restores it first (a note on
 * stderr says so) and fails if it cannot.  A journal this vmtax did not
 * write (another owner, writable by group or others, a link, a hard link)
 * is refused, never replayed, and so is an older vmtax's STATE/journal
 * link to a journal in a run directory (docs/security.md): host_ctx_new()
 * fails, naming the fix.  host_restore_stale() does only that, for
 * 'vmtax host restore'.
 *
 * Undo.  host_restore() puts every changed knob back in reverse order, reads
 * each back, then removes the journal and the STATE/journal link.
 * host_ctx_free() restores and releases the lock.  host_restore_async() is
 * for a signal handler (the second Ctrl-C): it only calls open/write/close/
 * unlink on paths and values formatted when each knob was first changed.  It
 * cannot reload a module, so a changed paging knob keeps the journal on disk
 * for the next start (or 'vmtax host restore') to finish.
 *
 * Read-only contexts (opts.readonly, for 'vmtax host probe') take no lock,
 * restore nothing and refuse host_set().
 *
 * Errors: every function returns 0 or a negative errno and reports once
 * through err() with context; the *_supported() calls report nothing and
 * put the reason in WHY instead.
 */
#ifndef VMTAX_HOST_H
#define VMTAX_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "cpu-vendor.h"

/*
 * The accel decision for accel=auto: "kvm" only when ROOT/dev/kvm can be
 * opened read-write and ROOT/proc/cpuinfo shows vmx or svm (the flag of
 * its vendor: host_virt_usable() below); otherwise "tcg".
 * WHY receives a one-line reason either way.  ROOT is "" on the real host and
 * a fake tree in tests.  Returns a static string ("kvm" or "tcg").
 */
const char *host_accel_decide(const char *root, char *why, size_t len);

/*
 * Loading and removing kernel modules.  host_kmod_ops uses libkmod (with the
 * options of /etc/modprobe.d, plus OPTIONS); tests pass a fake.  Both return
 * 0 or a negative errno and report nothing: the caller adds context.
 */
struct host_module_ops {
	int (*remove)(void *arg, const char *name);
	int (*insert)(void *arg, const char *name, const char *options);
};
extern const struct host_module_ops host_kmod_ops;

/*
 * Lists the running domains on the host: writes their names, separated by
 * ", ", into BUF (truncated to LEN) and returns their count, or a negative
 * errno.  host/ does not include libvirt; the orchestrator passes one built
 * on vm_list_running().
 */
typedef int (*host_list_vms_fn)(void *arg, char *buf, size_t len);

/* host_opts.vm_drain_s of vmtax run and vmtax host (seconds). */
#define HOST_VM_DRAIN_S 60

struct host_opts {
	/* "": the real host; a fake tree in tests; NULL: $VMTAX_HOST_ROOT
	 * (lib/env.h: a fake tree for the shell tests), else the real host */
	const char *root;
	const char *state_dir; /* NULL: layout.h STATEDIR (not under root) */
	const struct host_module_ops *modules; /* NULL: host_kmod_ops */
	void *modules_arg;
	host_list_vms_fn list_vms; /* NULL: paging changes are refused */
	void *list_vms_arg;
	/*
	 * Before a paging change, how long to wait for running domains to go
	 * (a cell's guest that libvirt is still tearing down, say), polling
	 * list_vms, before refusing: 0 refuses at once; HOST_VM_DRAIN_S is
	 * what vmtax run and vmtax host pass.
	 */
	double vm_drain_s;
	bool readonly; /* no lock, no restore, host_set() refused */
};

struct host_ctx;

int host_ctx_new(const struct host_opts *o, struct host_ctx **out);
/* Restore (warn if that fails: the journal stays), unlock, free; NULL ok. */
void host_ctx_free(struct host_ctx *ctx);

/* The name of registered knob I in registry order, or NULL past the last. */
const char *host_knob_name(size_t i);
/* The accepted values of KNOB for --help ("hw, shadow"), or NULL. */
const char *host_knob_values(const char *knob);
/*
 * Whether NAME is a host knob: registered, or a well-formed generic name
 * that no registered knob owns.  Touches nothing on the host (for the config
 * loader's [host] keys).  host_knob_name_check() also puts the reason in WHY
 * (NULL allowed) when not, e.g. "'sysctl.vm.' ends with a dot" or
 * "'mm.transparent_hugepage.enabled' is '/sys/kernel/mm/transparent_hugepage/
 * enabled', the file of the host knob 'thp.enabled': use 'thp.enabled'".
 */
bool host_knob_name_known(const char *name);
bool host_knob_name_check(const char *name, char *why, size_t len);
/*
 * Whether VALUE is well-formed for KNOB, without touching the host: for a
 * generic knob one line of printable text without blanks at either end,
 * shorter than 64 characters; for a registered knob nothing is checked here
 * (its values depend on the host: host_supported()).  WHY gets the reason.
 */
bool host_knob_value_check(const char *knob, const char *value, char *why,
			   size_t len);

/*
 * Whether KNOB can be set to VALUE here (VALUE NULL: whether the knob can be
 * read and set at all).  WHY gets the reason when not.  Reports nothing.
 */
bool host_supported(struct host_ctx *ctx, const char *knob, const char *value,
		    char *why, size_t len);
/* The current value of KNOB, e.g. "madvise", "hw", "512". */
int host_get(struct host_ctx *ctx, const char *knob, char *buf, size_t len);
/*
 * Set KNOB to VALUE: journal the original (first change of KNOB in this
 * context), apply, read back.  -EOPNOTSUPP when not supported (with the
 * why), -EBUSY when VMs block a module reload, -EIO on a read-back mismatch
 * (the message names the expected and the read-back values).  Setting the
 * value the knob already has changes nothing and journals nothing.
 */
int host_set(struct host_ctx *ctx, const char *knob, const char *value);
/*
 * The cpufreq governor ([run] governor).  Every cpufreq policy of the
 * host, ROOT/sys/devices/system/cpu/cpufreq/policyN, is the knob
 * cpufreq.policyN.governor (its scaling_governor): one journal line per
 * policy, restored like every knob (host_restore(), a stale journal, the
 * signal handler).  These names are not [host] keys.
 * host_governor_check: whether every policy offers GOVERNOR (its
 * scaling_available_governors).  1 when they all do; 0 when there is no
 * cpufreq here (no such directory or no policy: WHY says "no cpufreq:
 * ..."); -EOPNOTSUPP when a policy does not offer it, cannot be read, or
 * there are more than HOST_GOVERNOR_POLICIES_MAX (WHY names it).  Reports
 * nothing, changes nothing.
 * host_governor_set: every policy set to GOVERNOR (those already so are
 * left and not journalled), each read back.  1 when set, 0 when there is no
 * cpufreq (WHY as above, nothing changed), or a negative errno, reported.
 */
int host_governor_check(struct host_ctx *ctx, const char *governor, char *why,
			size_t len);
int host_governor_set(struct host_ctx *ctx, const char *governor, char *why,
		      size_t len);
/* Undo every change of this context; see above. */
int host_restore(struct host_ctx *ctx);
/* Async-signal-safe partial undo; see above.  Returns 0 or -1. */
int host_restore_async(struct host_ctx *ctx);
/*
 * Take the lock, restore a stale journal if any, release the lock.  Returns
 * the number of settings found in the stale journal (0: there was none).
 */
int host_restore_stale(const struct host_opts *o);

/*
 * Read-only helpers for 'vmtax host probe'.
 */
struct host_cpu {
	char vendor[32];      /* "GenuineIntel", "AuthenticAMD", ... or "" */
	char model[128];      /* "model name" */
	char virt_flags[256]; /* the virtualization flags present, e.g. "svm
				 npt" */
	char flags[4096];     /* the whole first "flags" line */
};
int host_cpu_read(const char *root, struct host_cpu *cpu);
/* The same from the text of a /proc/cpuinfo; reports nothing. */
void host_cpu_parse(const char *cpuinfo, struct host_cpu *cpu);
/*
 * The value of the first "KEY<blanks>: value" line of TEXT (a /proc/cpuinfo)
 * into OUT ("" when there is none): "model" does not match "model name".
 */
void host_cpuinfo_value(const char *text, const char *key, char *out,
			size_t len);
bool host_cpu_has(const struct host_cpu *cpu, const char *flag);

/*
 * The CPU's vendor and its hardware virtualization (cpu-vendor.h): by
 * vendor_id; a CPU of any other vendor by its flags (vmx: VT-x, e.g.
 * Zhaoxin; svm: AMD-V); VIRT_VENDOR_NONE when neither says.  A vendor does not
 * mean the flag is there (a guest without nested virtualization):
 * host_virt_usable() is both.
 */
enum virt_vendor host_virt_vendor(const struct host_cpu *cpu);
/* The row of CPU when it has its vendor's flag, else NULL. */
const struct virt_hw *host_virt_usable(const struct host_cpu *cpu);

enum host_module_state {
	HOST_MODULE_ABSENT,
	HOST_MODULE_LOADED,  /* a loadable module, loaded */
	HOST_MODULE_BUILTIN, /* built into the kernel */
};
enum host_module_state host_module_state(const char *root, const char *name);
const char *host_module_state_name(enum host_module_state s);

/*
 * Read the one-line file ROOT/PATH (PATH absolute, e.g. "/sys/...") of the
 * context.  Reports nothing; returns 0 or a negative errno.
 */
int host_read(struct host_ctx *ctx, const char *path, char *buf, size_t len);

/*
 * Read-only observations for a cell's "observed" (ROOT as above: "" on the
 * real host, a fake tree in tests).  Each returns 0 (or 1, see below) or a
 * negative errno and reports nothing; what cannot be known is an error
 * (-ENOENT: no such file or field, -ESRCH: no such process), never 0.
 *
 * host_hugetlbfs_mounted: 1 when ROOT/proc/mounts has a hugetlbfs mount
 * whose pages are KIB kB (2048, 1048576), 0 when none has.  The page size is
 * the mount's pagesize= option ("2M", "1G", "1024M", "2048K", or bytes); a
 * mount without it has the default huge page size, Hugepagesize of
 * ROOT/proc/meminfo (2M when that cannot be read).
 *
 * host_anon_huge_kb: AnonHugePages of process PID (QEMU's, for THP-backed
 * guest RAM) from ROOT/proc/PID/smaps_rollup, in kB.
 *
 * host_hugetlb_in_use: the pages of the KIB kB hugetlb pool in use,
 * nr_hugepages - free_hugepages of ROOT/sys/kernel/mm/hugepages/
 * hugepages-KIBkB (/proc/meminfo counts only the default size); -ENOENT when
 * there is no such pool.
 */
int host_hugetlbfs_mounted(const char *root, unsigned long kib);
/* The kB of field KEY ("MemAvailable") of ROOT/proc/meminfo: 0, -ENOENT
 * when it has none, or a read error. */
int host_meminfo_kb(const char *root, const char *key, long *kb);
int host_anon_huge_kb(const char *root, int pid, long *kb);
int host_hugetlb_in_use(const char *root, unsigned long kib, long *pages);

/*
 * Which of PACKAGES (Debian package names separated by blanks or commas)
 * are not installed here, by dpkg-query: written to MISSING blank separated,
 * "" when none.  -ENOENT when there is no dpkg-query (not Debian: the caller
 * cannot tell), -EINVAL for a name that is not a package name (not
 * reported: the config loader checks names with debian_package_name() of
 * util.h).
 */
int host_missing_packages(const char *packages, char *missing, size_t len);

#endif
