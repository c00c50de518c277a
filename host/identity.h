/* SPDX-License-Identifier: MIT */
/*
 * identity.h - what the host is: a physical machine, or itself a virtual
 * machine and under which hypervisor; and a fingerprint of its CPU, memory
 * topology, kernel and THP defaults.  Read once at the start of a run into
 * results.json's run.host (docs/results-format.md), so that reports call
 * the baseline "bare metal" only where it was.  Read-only: nothing here
 * changes the host.
 *
 * The evidence, each recorded as read so a reader can judge it (ROOT is ""
 * on the real host, a fixture tree in tests, e.g. tests/fixtures/ident/):
 *	CPUID		leaf 1 ECX bit 31 (the hypervisor bit) and the vendor
 *			signature of leaf 0x40000000 ("KVMKVMKVM", "Microsoft
 *			Hv", "XenVMMXenVMM", "VMwareVMware", "TCGTCGTCGTCG",
 *			"bhyve bhyve ").  Injectable: tests pass a struct
 *			host_cpuid; NULL reads the real one (x86 only).  The
 *			raw instruction is answered by the outermost
 *			hypervisor that intercepts it: under PVM (a guest of a
 *			guest, in ring 3) it is the cloud's, not PVM.
 *	cpu flag	the word "hypervisor" in ROOT/proc/cpuinfo's flags
 *	DMI		ROOT/sys/class/dmi/id/sys_vendor and product_name
 *	sys_hypervisor	ROOT/sys/hypervisor/type ("xen")
 *	kernel_says	X of the kernel log's "Hypervisor detected: X" (ROOT/
 *			dev/kmsg).  The log is a ring: on a host up for long
 *			the line may have rotated out, and then this is
 *			unknown (NULL with why), never taken for "physical".
 *
 * The verdict, one rule (host_ident_judge()): virtualized when the CPUID
 * bit, the cpu flag, sys_hypervisor or kernel_says says so, or DMI names a
 * virtual platform ("QEMU", "VMware", "VirtualBox", "Virtual Machine",
 * "HVM domU", "BHYVE", ...); physical when the CPUID bit or the cpu flag
 * could be read and nothing says so; unknown otherwise (no CPUID and no
 * flags line: not x86).  The hypervisor's name: kernel_says, else the
 * CPUID signature's name ("KVM", "Hyper-V", "Xen", ...), else
 * sys_hypervisor, else the DMI product; NULL when none says.
 *
 * The fingerprint holds only what run.host does not already hold: the
 * model name (cpu_model), online CPUs (cpus: the threads), memory
 * (mem_bytes), kernel release (kernel) are there; governor and boost are
 * in every sample's host_quiet; libvirt and QEMU in run.versions.
 *
 * Nothing here reports: what cannot be read is unknown ("" or -1), with a
 * why where the reason matters.
 */
#ifndef VMTAX_IDENTITY_H
#define VMTAX_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* What CPUID said: known false on a CPU without it (not x86). */
struct host_cpuid {
	bool known;
	bool hv_bit;  /* leaf 1 ECX bit 31 */
	char sig[13]; /* leaf 0x40000000 EBX ECX EDX, "" when !hv_bit */
};

/* The real CPUID of this CPU (known false where there is none). */
void host_cpuid_read(struct host_cpuid *c);
/* "KVM" for "KVMKVMKVM", "Hyper-V" for "Microsoft Hv", ...; NULL unknown. */
const char *host_cpuid_sig_name(const char *sig);

enum host_virt {
	HOST_VIRT_UNKNOWN = -1,
	HOST_VIRT_PHYSICAL = 0,
	HOST_VIRT_GUEST = 1,
};

struct host_ident {
	struct host_cpuid cpuid;
	int cpu_flag;		 /* 1, 0, -1: no flags line */
	char dmi_vendor[128];	 /* "" absent */
	char dmi_product[128];	 /* "" absent */
	char sys_hypervisor[32]; /* "" absent */
	char kernel_says[64];	 /* "" unknown, with kernel_why */
	char kernel_why[128];
	enum host_virt virt; /* host_ident_judge() */
	char name[64];	     /* the hypervisor's name, "" none */

	/* the fingerprint */
	char cpu_id[128];   /* "AuthenticAMD family 25 model 1 stepping 1" */
	char microcode[32]; /* "0xa0011d1"; "" not shown (often in guests) */
	int sockets, cores; /* distinct physical ids, core ids; -1 */
	int numa_nodes;	    /* ROOT/sys/devices/system/node/online; -1 */
	char kernel_build[160]; /* ROOT/proc/sys/kernel/version */
	char thp_enabled[16];	/* the bracketed word; "" unknown */
	char thp_defrag[16];
};

/*
 * Read everything above from ROOT, CPUID from CPUID (NULL: this CPU's), and
 * judge.  Never fails: what cannot be read stays unknown.
 */
void host_ident_read(const char *root, const struct host_cpuid *cpuid,
		     struct host_ident *id);
/* Set id->virt and id->name from the evidence (the rule above). */
void host_ident_judge(struct host_ident *id);

/*
 * Into run.host (the JSON object HOST): "virtualized" (true, false, null),
 * "hypervisor" {name, cpuid, cpuid_bit, cpu_flag, dmi_vendor, dmi_product,
 * sys_hypervisor, kernel_says, kernel_says_why} and "fingerprint" {cpu_id,
 * microcode, sockets, cores, numa_nodes, kernel_build, thp_enabled,
 * thp_defrag}; unknowns are null.
 */
void host_ident_json(const struct host_ident *id, json_t *host);

/*
 * What run.host records first: "hostname", "kernel" (the release),
 * "cpu_vendor" (vendor_id; null when there is none) and "cpu_model" (null
 * when /proc/cpuinfo cannot be read), "cpus" (online)
 * and "mem_bytes", into HOST in that order.  Of this host: no ROOT.
 */
void host_summary_json(json_t *host);

/*
 * X of the first "Hypervisor detected: X" line of TEXT (a kernel log:
 * /dev/kmsg records or dmesg lines) into OUT; false when there is none.
 */
bool host_kernel_log_hypervisor(const char *text, char *out, size_t len);

#endif
