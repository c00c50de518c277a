/* SPDX-License-Identifier: MIT */
/*
 * kvm-stats.h - what KVM saw of one guest: its debugfs counters and its VM
 * exits by reason, per sample.  Works on any KVM host (Intel or AMD, bare
 * metal or the nested lab host); reads only, except the kvm_exit trigger.
 *
 * Sources.
 *   debugfs	ROOT/sys/kernel/debug/kvm/<pid>-<fd>/, one directory per VM a
 *		process created (QEMU makes one).  Every regular file at its top
 *		holds one decimal number: the VM's stats (pages_4k, pages_2m,
 *		pages_1g, mmu_*, remote_tlb_flush, ...) and its vCPUs' stats
 *		summed (exits, pf_fixed, pf_taken, tlb_flush, halt_*, ...).
 *		Empty files and files of more than one line are tables, not
 *		counters, and are skipped (6.1 has one, mmu_rmaps_stat: empty
 *		with NPT/EPT, a table with shadow paging); so are the vcpuN/
 *		subdirectories.  A snapshot holds every counter found, summed
 *		over the process's VM directories.
 *   tracefs	ROOT/sys/kernel/tracing (or ROOT/sys/kernel/debug/tracing)
 *		events/kvm/kvm_exit: a hist trigger
 *		    hist:keys=exit_reason:vals=hitcount if common_pid==T1||...
 *		counts the exits of the guest's QEMU only.  kvm_exit fires in a
 *		vCPU thread, so common_pid is a thread id: the filter lists
 *		every task of ROOT/proc/<pid>/task when the trigger starts
 *		(start it after the guest's vCPUs exist).  Several VMs can each
 *		have their own trigger: the hist file then holds one table per
 *		trigger, and the parser picks the one whose filter is ours.
 *		The trigger file is opened O_APPEND, never O_TRUNC: opening it
 *		with O_TRUNC (a shell's '>') removes every trigger of the event,
 *		other runs' included.  In the lab host the filtered table's
 *		total equals the debugfs exits delta of the same sample.
 *		Under TCG (this machine) there is neither: null with the why.
 *
 * Counter kinds.  kvm_counter_cumulative() says which counters only grow
 * (a sample reports their delta) and which are levels (pages_*, mmu_unsync,
 * nx_lpage_splits, max_mmu_*, blocking, guest_mode: a sample reports their
 * value at its end).  The *_hist files are the first bucket of a
 * histogram and are reported as deltas.
 *
 * Exit reasons.  Codes are named from the kernel's own tables
 * (SVM_EXIT_REASONS of <asm/svm.h>, VMX_EXIT_REASONS of <asm/vmx.h>), with
 * the kernel's spelling ("npf", "io", "EPT_VIOLATION").  The vendor comes
 * from which of kvm_amd and kvm_intel is loaded.
 *
 * Unavailable is not an error.  A TCG guest has no debugfs directory, a
 * kernel without CONFIG_HIST_TRIGGERS takes no hist trigger, a non-root
 * reader cannot open debugfs: each of these leaves a struct with
 * available = false and a one-line why, and the function returns 0.  In
 * results.json that becomes null and a reason, never 0:
 *	"kvm": null, "kvm_why": "..."
 *	"kvm": {..., "exits_by_reason": null, "exits_by_reason_why": "..."}
 *
 * Errors: every function returns 0 or a negative errno and reports once
 * through err() with context (a file that does not hold a number, a hist
 * file that does not parse, a counter that went backwards).
 *
 * Ownership: kvm_snap and kvm_exits are embedded objects: X_init() then
 * X_release() (NULL-safe, idempotent); a read into one releases what it
 * held first.  kvm_sampler is a heap object: kvm_sampler_new()/_free().
 */
#ifndef VMTAX_KVM_STATS_H
#define VMTAX_KVM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "cpu-vendor.h"

#define KVM_WHY_MAX 256
#define KVM_COUNTER_NAME_MAX 64

/* Every ROOT below: a prefix for /sys and /proc (tests), NULL or "" none. */
static inline const char *kvm_root(const char *root)
{
	return root ? root : "";
}

/*
 * Which exit-reason table applies: the loaded KVM module's, as the vendor
 * whose module it is (cpu-vendor.h): VIRT_VENDOR_AMD for kvm_amd (a Hygon
 * host's too: the module cannot tell), VIRT_VENDOR_INTEL for kvm_intel,
 * VIRT_VENDOR_NONE when neither is loaded.  From ROOT/sys/module ("" ROOT:
 * the real host).
 */
enum virt_vendor kvm_vendor_detect(const char *root);
/* The vendor's cpuinfo flag, "svm" or "vmx", or "none". */
const char *kvm_vendor_name(enum virt_vendor v);
/*
 * The kernel's name of exit reason CODE ("npf", "EPT_VIOLATION"), or NULL
 * when the vendor's table has none.  VMX codes with flag bits (failed
 * VM-entry, SGX enclave mode) are named by their basic reason (low 16 bits).
 */
const char *kvm_exit_reason_name(enum virt_vendor v, uint32_t code);

/* Whether counter NAME only grows (reported as a delta per sample). */
bool kvm_counter_cumulative(const char *name);

struct kvm_counter {
	char name[KVM_COUNTER_NAME_MAX];
	uint64_t value;
};

struct kvm_snap {
	bool available;
	char why[KVM_WHY_MAX]; /* when !available */
	size_t ndirs;	       /* VM directories summed */
	size_t n;	       /* counters, sorted by name */
	struct kvm_counter *c;
};

void kvm_snap_init(struct kvm_snap *s);
void kvm_snap_release(struct kvm_snap *s);

/*
 * The debugfs directories of PID's VMs, ROOT/sys/kernel/debug/kvm/PID-*,
 * sorted: *DIRS (paths, owned, free each and the array) and *N.  No
 * directory is *N = 0 and 0.  -ENOENT when ROOT/sys/kernel/debug/kvm does
 * not exist and -EACCES/-EPERM when it cannot be opened are not reported
 * (kvm_snap_read() makes them reasons); other errors are.
 */
int kvm_stats_dirs(const char *root, pid_t pid, char ***dirs, size_t *n);

/*
 * Snapshot every counter of PID's VMs into S.  No VM directory (a TCG
 * guest, a QEMU that exited), no debugfs, no permission: S->available false
 * with the why, returns 0.  A counter file that is not one decimal number
 * is an error (-EINVAL); an unreadable file is skipped.
 */
int kvm_snap_read(const char *root, pid_t pid, struct kvm_snap *s);
/* The value of counter NAME: 0, or -ENOENT (not reported) if S lacks it. */
int kvm_snap_get(const struct kvm_snap *s, const char *name, uint64_t *v);
/*
 * D = B - A for the cumulative counters in both A and B (both available).
 * -ERANGE if one went backwards (the VM was replaced), reported.
 */
int kvm_snap_delta(const struct kvm_snap *a, const struct kvm_snap *b,
		   struct kvm_snap *d);

struct kvm_exit_count {
	uint32_t code;
	uint64_t count;
};

struct kvm_exits {
	bool available;
	char why[KVM_WHY_MAX];
	enum virt_vendor vendor;
	size_t n; /* reasons, sorted by code */
	struct kvm_exit_count *e;
	uint64_t total; /* sum of the counts */
	uint64_t
	    dropped; /* the table's "Dropped:" (entries it had no room for) */
};

void kvm_exits_init(struct kvm_exits *x);
void kvm_exits_release(struct kvm_exits *x);

/*
 * Parse a kvm_exit hist file (pure).  TEXT holds one table per trigger,
 * each headed by "# trigger info: hist:keys=...".  The table used is the
 * first whose keys are exactly exit_reason and whose filter is FILTER
 * (blanks ignored; NULL: the first exit_reason table, any filter).  No such
 * table: X->available false with the why, 0.  A malformed line, a table
 * without Totals, or entries that sum to more than its Hits (Hits may be
 * ahead: exits that came while the kernel printed): -EINVAL, reported with
 * the line number.  X->total is the entries' sum.  X->vendor is left as
 * it was.
 */
int kvm_exits_parse(const char *text, const char *filter, struct kvm_exits *x);
/* D = B - A per reason (both available); -ERANGE if a count went down. */
int kvm_exits_delta(const struct kvm_exits *a, const struct kvm_exits *b,
		    struct kvm_exits *d);

/* A kvm_exit hist trigger for one QEMU process. */
struct kvm_exit_hist {
	bool active; /* the trigger is ours and installed */
	char why[KVM_WHY_MAX];
	enum virt_vendor vendor;
	char *trigger; /* ROOT/.../events/kvm/kvm_exit/trigger */
	char *hist;    /* ROOT/.../events/kvm/kvm_exit/hist */
	char *filter;  /* "common_pid==T1||common_pid==T2" */
	char *spec;    /* the whole trigger command */
};

/*
 * Install the trigger for PID's tasks.  No tracefs, no kvm_exit event, no
 * hist trigger support, no permission, no such process: H->active false
 * with the why, 0.  An identical trigger already there (a crashed run's,
 * same task ids) is adopted.  Other failures are reported errors.
 */
int kvm_exit_hist_start(const char *root, pid_t pid, struct kvm_exit_hist *h);
/* Read and parse the hist file into X (cumulative since start). */
int kvm_exit_hist_read(const struct kvm_exit_hist *h, struct kvm_exits *x);
/* Remove the trigger (if active) and free H's strings; safe to repeat. */
int kvm_exit_hist_stop(struct kvm_exit_hist *h);

/*
 * One sample's "kvm" member of observed: B minus A (snapshots at the start
 * and end of the sample) and EB minus EA (hist reads at the same moments;
 * either NULL: exits not collected).  Sets OBSERVED["kvm"] to
 *	{"vms": 1, "pages_4k": n, "pages_2m": n, "pages_1g": n,
 *	 "at_end": {"mmu_unsync": n, ...}, "delta": {"exits": n, ...},
 *	 "exits_vendor": "svm", "exits_total": n, "exits_dropped": n,
 *	 "exits_by_reason": [{"reason": "npf", "code": 1024, "count": n}, ...]}
 * (reasons by count, highest first; a pages_* the kernel lacks is null) or
 * to null with OBSERVED["kvm_why"].  Exits unavailable: "exits_by_reason"
 * null and "exits_by_reason_why".
 */
int kvm_sample_json(const struct kvm_snap *a, const struct kvm_snap *b,
		    const struct kvm_exits *ea, const struct kvm_exits *eb,
		    json_t *observed);

/*
 * The whole cycle for the run engine, for one guest's QEMU process:
 *	kvm_sampler_new(root, qemu_pid, &k);   after the guest booted
 *	for each sample:
 *		kvm_sampler_begin(k);           right before the workload
 *		kvm_sampler_end(k, observed);   right after; sets "kvm"
 *	kvm_sampler_free(k);                   removes the trigger
 * Unavailability ends in observed (null and why), never in a failure.
 */
struct kvm_sampler;
int kvm_sampler_new(const char *root, pid_t pid, struct kvm_sampler **out);
int kvm_sampler_begin(struct kvm_sampler *k);
int kvm_sampler_end(struct kvm_sampler *k, json_t *observed);
/* Stops the trigger (a failure is warned about), frees; NULL ok. */
void kvm_sampler_free(struct kvm_sampler *k);

#endif
