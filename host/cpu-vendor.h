/* SPDX-License-Identifier: MIT */
/*
 * cpu-vendor.h - which CPU vendor a host has, and what that vendor's hardware
 * virtualization is called: the one definition (host/cpu.c), asked by host
 * control, the run engine, the lab and the reports alike.  Pure: no I/O.
 *
 *	vendor	vendor_id	flag	ext	module		paging	label
 *	Intel	GenuineIntel	vmx	VT-x	kvm_intel	ept	EPT
 *	AMD	AuthenticAMD	svm	AMD-V	kvm_amd		npt	NPT
 *	Hygon	HygonGenuine	svm	AMD-V	kvm_amd		npt	NPT
 * (Hygon's Dhyana is an AMD derivative: AMD-V, kvm_amd, NPT.)
 *
 * A vendor is known by its vendor_id (/proc/cpuinfo, run.host.cpu_vendor of
 * a results file); where there is none (a results file older than
 * cpu_vendor), by its name as a word of the model name ("AMD EPYC 7763",
 * "Hygon C86 7185 32-core Processor", "Intel(R) Xeon(R) ...").  On a live
 * host a CPU of any other vendor also goes by its flags (host.h,
 * host_virt_vendor()).  How to add a vendor: its row in cpu.c's vendors[]
 * and its enum value here.
 */
#ifndef VMTAX_CPU_VENDOR_H
#define VMTAX_CPU_VENDOR_H

#include <stddef.h>

enum virt_vendor {
	VIRT_VENDOR_NONE,
	VIRT_VENDOR_INTEL,
	VIRT_VENDOR_AMD,
	VIRT_VENDOR_HYGON,
};

/* AMD's KVM module, for text fixed at build time (the lab image's
 * modules-load.d: the lab CPU is AMD's); everything else asks the table. */
#define VIRT_AMD_MODULE "kvm_amd"

/* A vendor's hardware virtualization (the table above). */
struct virt_hw {
	const char *flag;   /* the /proc/cpuinfo flag: "vmx", "svm" */
	const char *ext;    /* its name: "VT-x", "AMD-V" */
	const char *module; /* KVM's vendor module: "kvm_intel", "kvm_amd" */
	const char *paging; /* its paging parameter and name in results:
			       "ept", "npt" */
	const char *label;  /* the paging in reports: "EPT", "NPT" */
	const char *label_on, *label_off; /* "EPT on", "EPT off" */
};

/*
 * The vendor VENDOR_ID names, or, when VENDOR_ID is NULL or "", the one whose
 * name is a word of MODEL (NULL: none); VIRT_VENDOR_NONE when neither says.
 */
enum virt_vendor host_virt_vendor_named(const char *vendor_id,
					const char *model);
/* "Intel", "AMD", "Hygon"; "unknown" for VIRT_VENDOR_NONE. */
const char *host_virt_vendor_name(enum virt_vendor v);
/* V's row of the table above; NULL for VIRT_VENDOR_NONE. */
const struct virt_hw *host_virt_hw(enum virt_vendor v);
/* The row whose paging parameter is PAGING ("ept", "npt"), or NULL. */
const struct virt_hw *host_virt_hw_paging(const char *paging);
/* The known vendor ids, "GenuineIntel, AuthenticAMD, HygonGenuine", into
 * BUF (for messages). */
void host_virt_vendor_ids(char *buf, size_t len);

#endif
