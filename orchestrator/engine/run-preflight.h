/* SPDX-License-Identifier: MIT */
/*
 * run-preflight.h - what a run needs of this host, every requirement
 * checked before anything changes, and every one that is missing named at
 * once with how to get it (vmtax run, and --dry-run).
 *
 * The requirements are one table (preflight_rows[] in run-preflight.c),
 * in the order they are listed; each row has a name, a check and the
 * remedy said when its check gives none of its own:
 *	VT-x/AMD-V	  [guest] accel = kvm: the vmx or svm flag of
 *			  /proc/cpuinfo (a PVM /dev/kvm is no KVM host)
 *	/dev/kvm	  accel = kvm: /dev/kvm opens read-write
 *	EPT/NPT paging	  paging = hw, shadow cells: KVM, and its vendor
 *			  module (kvm_intel, kvm_amd) loaded, not built in,
 *			  with its parameter /sys/module/MOD/parameters/ept
 *			  or npt (vmtax reloads it to toggle paging)
 *	CPUs		  each guest's vCPUs, at most the online CPUs
 *			  (/sys/devices/system/cpu/online)
 *	memory		  each guest's memory, at most MemAvailable (its
 *			  MemTotal said too); a hugetlb-backed guest's too,
 *			  its pages said: the run grows the pool by them
 *			  from available memory
 *	(the guests of a remote libvirt are checked against its host's
 *	online CPUs and MemAvailable when it is asked, its executor's
 *	check(), exec-guest-remote.c; a lab's against the lab host's [lab] vcpus and
 *	memory, exec-lab.c; a fleet host's against its probe's CPUs and
 *	MemTotal, fleet-check.c, then by its own run)
 *	hugepages	  hugetlb-backed guests: the pool of their page size
 *			  and a hugetlbfs mount of it
 *	host knobs	  each [host] knob a cell sets, settable here
 *	cpufreq governor  [run] governor (not keep): every cpufreq policy
 *			  offers it (scaling_available_governors); a host
 *			  without cpufreq passes (the run records it)
 *	guest image	  the files every guest cell boots (guest-files.h):
 *			  a debian image that is not built is missing; a
 *			  tiny one is built on first use
 *	image build	  the Debian packages building an image that is to be
 *			  built runs (image.h), and /lib/modules for debian
 *	workload packages the 'packages =' of the workload's INI, for
 *			  bare-metal cells (the workload runs on this host)
 *	disk space	  the images directory's file system: the images to
 *			  build and one overlay for each disk guest up at once
 * Each check asks what the code that later does the thing asks: host/'s
 * readers (cpu.c, accel.c, kvm module state, meminfo, hugetlbfs mounts,
 * online CPUs), host_supported() of a read-only host context for paging,
 * hugetlb pools and knobs (run_cell_*_unsupported() of run-engine.h, the
 * very checks that skip a cell during the run), guest_files_check(),
 * host_missing_packages().  So a preflight that passes is not contradicted
 * by the run's own checks later, and one that fails names what they would
 * have stopped at, one at a time.
 *
 * Two verdicts.  A requirement the run cannot do without is missing: the
 * run is refused (exit 2), before the host changes.  One that only some
 * cells need, where the run skips those cells with the reason and runs the
 * others (paging, hugepages, host knobs: run-engine.h step 2), is listed as
 * skipping cells, and the run goes on.
 *
 * Cells count as the executors say (cell-exec.h): guests of this host
 * (EXEC_NEEDS_GUEST and EXEC_CHANGES_HOST_KNOBS, not on a remote libvirt
 * [guest] uri), bare-metal cells (this host's knobs, no guest).  A run
 * whose executor is remote (lab, fleet) is checked by its executor's
 * check() on the host that runs it: run_preflight() checks nothing then.
 *
 * The host is read under a root (struct preflight_host): "" on this host,
 * a fake /proc and /sys tree in tests (tests/fixtures/preflight/), where
 * the package query and the free disk space are the test's too.
 *
 * Errors: preflight_check() reports nothing (its findings are the list);
 * run_preflight() prints the list and returns -EINVAL when something is
 * missing.
 */
#ifndef VMTAX_RUN_PREFLIGHT_H
#define VMTAX_RUN_PREFLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct run;

struct preflight_host {
	const char *root; /* "" or NULL: this host; a fake tree in tests */
	/* host_missing_packages() of host.h when NULL */
	int (*missing_packages)(const char *packages, char *missing,
				size_t len);
	/* The free bytes of the file system PATH (a directory that exists)
	 * is on; NULL: statvfs(3).  0 or a negative errno. */
	int (*disk_free)(const char *path, uint64_t *bytes);
};

enum preflight_verdict {
	PREFLIGHT_OK,
	PREFLIGHT_MISSING, /* the run is refused */
	PREFLIGHT_SKIPS,   /* the cells that need it are skipped */
};

#define PREFLIGHT_TEXT_MAX 1024

/* One requirement that is not met. */
struct preflight_item {
	const char *name; /* its row's: "VT-x/AMD-V" */
	enum preflight_verdict verdict;
	char what[PREFLIGHT_TEXT_MAX]; /* what is missing here */
	char fix[PREFLIGHT_TEXT_MAX];  /* how to get it */
	int ncells;		       /* PREFLIGHT_SKIPS: the cells skipped */
};

#define PREFLIGHT_MAX_ITEMS 16

struct preflight {
	struct preflight_item items[PREFLIGHT_MAX_ITEMS]; /* table order */
	size_t n;
	size_t nmissing, nskips;
};

/*
 * Check every row for run R (its config, matrix and bindir loaded; its
 * remote and host not opened yet) against host H into P: the rows that
 * are not met, in table order.  Changes nothing on the host.
 */
void preflight_check(const struct run *r, const struct preflight_host *h,
		     struct preflight *p);
/*
 * P as the user sees it, on F: for what is missing "vmtax: preflight: N
 * requirements missing for CONFIG:" and a line "  - NAME: WHAT: FIX" for
 * each; then those that skip cells, headed likewise.  Nothing when P is
 * empty.
 */
void preflight_print(const struct preflight *p, const char *config_path,
		     FILE *f);
/* The item of row NAME in P, or NULL when that row is met. */
const struct preflight_item *preflight_find(const struct preflight *p,
					    const char *name);
/*
 * vmtax run's preflight: preflight_check() of this host (nothing for a
 * remote executor), printed on stderr.  0, or -EINVAL when a requirement
 * is missing.
 */
int run_preflight(const struct run *r);

#endif
