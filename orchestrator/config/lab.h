/* SPDX-License-Identifier: MIT */
/*
 * lab.h - the lab host of 'vmtax lab run' (docs/lab.md): what it is, and
 * what a config may ask of it.
 *
 * A lab host is a TCG guest of this machine whose CPU QEMU emulates with
 * AMD-V and nested paging (svm, npt).  It boots the lab image (image.h,
 * kind lab): Debian with libvirt, QEMU and vmtax.  Inside it KVM works, so
 * the config's matrix runs there for real: kvm_amd reloaded with npt=0/1,
 * THP in the lab and in its guests, hugetlbfs backing.  Its absolute
 * numbers describe emulated hardware.
 *
 * Its size and CPU come from the config's [lab] section (run-config.h).
 * lab_config_check() refuses, before anything boots, what the lab cannot
 * do: Intel's ept (the lab is AMD), 1G backing without pdpe1gb, guests
 * bigger than the lab, a lab bigger than this host, a debian guest with a
 * kernel or initrd of this host's (the lab has the image's own).  It is pure: the host's
 * facts come in struct lab_host_facts.
 */
#ifndef VMTAX_LAB_H
#define VMTAX_LAB_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "image.h"
#include "matrix.h"
#include "run-config.h"

/* What the lab host itself needs beside its guests: its kernel, libvirtd,
 * QEMU and page cache. */
#define LAB_RESERVE_BYTES (1ULL << 30)
/* What this host keeps for itself beside the lab (the lab's QEMU, TCG's
 * translation cache, libvirtd). */
#define LAB_HOST_RESERVE_BYTES (1ULL << 30)

/*
 * The lab CPU models: lab_cpu_names, NULL-terminated, are QEMU's names and
 * [lab] cpu's choices (run-config.c); lab.c says what each offers.  How to
 * add one: its name in lab_cpu_names, its row in lab.c's lab_cpu_models.
 */
#define LAB_CPU_DEFAULT "EPYC"
extern const char *const lab_cpu_names[];

/* What a lab CPU model offers. */
struct lab_cpu_model {
	enum virt_vendor vendor; /* its paging: host_virt_hw() of host.h */
	bool pdpe1gb;		 /* 1G pages without +pdpe1gb */
};

/* The model named NAME, or NULL. */
const struct lab_cpu_model *lab_cpu_model_find(const char *name);

/*
 * How FEATURES (a vm_spec cpu_features list: "+svm +npt -pdpe1gb") treats
 * NAME: 1 required, -1 disabled, 0 not named (the last mention wins).
 */
int lab_feature(const char *features, const char *name);

/* This host, as far as sizing a lab goes. */
struct lab_host_facts {
	uint64_t mem_available; /* MemAvailable, bytes */
	long cpus;		/* online CPUs */
};

/*
 * Refuse what the lab of C cannot run of M on a host with H: each reason is
 * reported as "file:line: message" at the key that asks for it
 * (run_config_error()).  Returns 0, or -EINVAL after reporting every reason.
 */
/*
 * The lab image's build options for config C and bin directory BINDIR (the
 * agent and workloads it carries): kind lab, from [lab] image_from; the
 * rest zero.  BINDIR is borrowed.
 */
void lab_image_opts(const struct run_config *c, const char *bindir,
		    struct image_opts *o);

int lab_config_check(const struct run_config *c, const struct matrix *m,
		     const struct lab_host_facts *h);

/*
 * Whether a guest cell of M boots the debian image: the lab then carries
 * it (lab-session.h, docs/lab.md "Debian inner guests").
 */
bool lab_carries(const struct matrix *m);

#endif
