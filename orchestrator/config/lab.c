/* SPDX-License-Identifier: MIT */
/* What a config may ask of the lab host (lab.h). */
#include <errno.h>
#include <string.h>

#include "guest-files.h"
#include "lab.h"
#include "util.h"

/*
 * The models [lab] cpu offers.  EPYC is the one TCG emulates with svm and
 * npt here (QEMU 7.2, docs/lab.md); its CPUID has pdpe1gb.
 */
const char *const lab_cpu_names[] = {LAB_CPU_DEFAULT, NULL};
/* What each of lab_cpu_names offers, in that order. */
static const struct lab_cpu_model lab_cpu_models[] = {
	{ .vendor = VIRT_VENDOR_AMD, .pdpe1gb = true }, /* EPYC */
};
_Static_assert(ARRAY_SIZE(lab_cpu_models) + 1 == ARRAY_SIZE(lab_cpu_names),
	       "one lab_cpu_models row per lab_cpu_names name");

const struct lab_cpu_model *lab_cpu_model_find(const char *name)
{
	size_t i;

	for (i = 0; lab_cpu_names[i]; i++)
		if (!strcmp(name, lab_cpu_names[i]))
			return &lab_cpu_models[i];
	return NULL;
}

int lab_feature(const char *features, const char *name)
{
	const char *p = features ? features : "";
	size_t len = strlen(name);
	int got = 0;

	while (*(p += strspn(p, " ,"))) {
		size_t n = strcspn(p, " ,");

		if ((*p == '+' || *p == '-') && n == len + 1 &&
		    !strncmp(p + 1, name, len))
			got = *p == '+' ? 1 : -1;
		p += n;
	}
	return got;
}

static double gib(uint64_t b)
{
	return (double)b / (1ULL << 30);
}

/*
 * The lab CPU's features: a KVM host (its vendor's flag and paging: svm,
 * npt), and no Intel ept axis (every lab CPU model is AMD's).
 */
static int lab_cpu_check(const struct run_config *c,
			 const struct lab_cpu_model *cpu)
{
	const struct virt_hw *hw = host_virt_hw(cpu->vendor);
	const struct virt_hw *intel = host_virt_hw(VIRT_VENDOR_INTEL);
	int bad = 0;

	if (lab_feature(c->lab_cpu_features, hw->flag) != 1 ||
	    lab_feature(c->lab_cpu_features, hw->paging) != 1) {
		run_config_error(
		    c, RUN_CONFIG_KEY(lab_cpu_features),
		    "a lab host needs '+%s +%s' (%s with nested "
		    "paging) to be a KVM host; got '%s'",
		    hw->flag, hw->paging, hw->ext, c->lab_cpu_features);
		bad = 1;
	}
	if (c->ept_set) {
		run_config_error(c, RUN_CONFIG_KEY(ept),
			     "%s is %s's %s parameter, and a lab host is %s "
			     "(%s with %s): use '%s = on, off' or 'paging = "
			     "hw, shadow'",
			     intel->paging,
			     host_virt_vendor_name(VIRT_VENDOR_INTEL),
			     intel->module, host_virt_vendor_name(cpu->vendor),
			     c->lab_cpu, hw->flag, hw->paging);
		bad = 1;
	}
	return bad;
}

/* The biggest guest cells (memory, vCPUs) and one with 1G pages fit. */
static int lab_cells_check(const struct run_config *c, const struct matrix *m,
			   const struct lab_cpu_model *cpu)
{
	const struct cell *big_mem = NULL, *big_cpu = NULL, *one_g = NULL;
	bool pdpe1gb = lab_feature(c->lab_cpu_features, "pdpe1gb") == 1 ||
		       (cpu->pdpe1gb &&
			lab_feature(c->lab_cpu_features, "pdpe1gb") != -1);
	int bad = 0;
	size_t i;

	for (i = 0; i < m->ncells; i++) {
		const struct cell *x = &m->cells[i];

		if (x->where != WHERE_GUEST)
			continue;
		if (!big_mem || x->memory > big_mem->memory)
			big_mem = x;
		if (!big_cpu || x->vcpus > big_cpu->vcpus)
			big_cpu = x;
		if (x->backing == BACKING_HUGETLB_1G && !one_g)
			one_g = x;
	}
	if (one_g && !pdpe1gb) {
		run_config_error(c, RUN_CONFIG_KEY(backing),
			     "cell '%s' asks for 1G hugetlb backing, but the "
			     "lab CPU (%s %s) has no pdpe1gb: the lab kernel "
			     "cannot have 1G pages",
			     one_g->id, c->lab_cpu, c->lab_cpu_features);
		bad = 1;
	}
	if (big_mem && big_mem->memory + LAB_RESERVE_BYTES > c->lab_memory) {
		run_config_error(
		    c, RUN_CONFIG_KEY(memory),
		    "cell '%s' asks for a %.1f GiB guest, which does "
		    "not fit in a %.1f GiB lab host (it keeps %.1f "
		    "GiB for itself): raise [lab] memory or lower "
		    "[guest] memory",
		    big_mem->id, gib(big_mem->memory), gib(c->lab_memory),
		    gib(LAB_RESERVE_BYTES));
		bad = 1;
	}
	if (big_cpu && big_cpu->vcpus > c->lab_vcpus) {
		run_config_error(
		    c, RUN_CONFIG_KEY(vcpus),
		    "cell '%s' asks for %ld vCPUs, more than the lab "
		    "host's %ld: raise [lab] vcpus or lower [guest] "
		    "vcpus",
		    big_cpu->id, big_cpu->vcpus, c->lab_vcpus);
		bad = 1;
	}
	return bad;
}

bool lab_carries(const struct matrix *m)
{
	size_t i;

	for (i = 0; i < m->ncells; i++)
		if (m->cells[i].where == WHERE_GUEST &&
		    !strcmp(m->cells[i].image, GUEST_IMAGE_DEBIAN))
			return true;
	return false;
}

/*
 * A debian guest in the lab boots the kernel and initrd the lab copies
 * from the image it carries: a path of this host's is not in the lab.
 */
static int lab_files_check(const struct run_config *c, const struct matrix *m)
{
	size_t i;

	for (i = 0; i < m->ncells; i++) {
		const struct cell *x = &m->cells[i];
		bool k;

		if (x->where != WHERE_GUEST ||
		    strcmp(x->image, GUEST_IMAGE_DEBIAN))
			continue;
		k = strcmp(x->kernel, "auto") != 0;
		if (!k && !strcmp(x->initrd, "auto"))
			continue;
		run_config_error(c, k ? RUN_CONFIG_KEY(kernel)
				      : RUN_CONFIG_KEY(initrd),
				 "cell '%s' boots the %s '%s', but a lab's "
				 "debian guests boot the kernel and initrd "
				 "of the image it carries: set %s = auto",
				 x->id, k ? "kernel" : "initrd",
				 k ? x->kernel : x->initrd,
				 k ? "kernel" : "initrd");
		return 1;
	}
	return 0;
}

/* The lab host itself fits in this host's memory and CPUs. */
static int lab_host_check(const struct run_config *c,
			  const struct lab_host_facts *h)
{
	int bad = 0;

	if (h->mem_available &&
	    c->lab_memory + LAB_HOST_RESERVE_BYTES > h->mem_available) {
		run_config_error(
		    c, RUN_CONFIG_KEY(lab_memory),
		    "a %.1f GiB lab host does not fit in this host's "
		    "%.1f GiB of available memory (%.1f GiB kept for "
		    "the lab's QEMU)",
		    gib(c->lab_memory), gib(h->mem_available),
		    gib(LAB_HOST_RESERVE_BYTES));
		bad = 1;
	}
	if (h->cpus > 0 && c->lab_vcpus > h->cpus) {
		run_config_error(
		    c, RUN_CONFIG_KEY(lab_vcpus),
		    "%ld lab vCPUs, but this host has %ld CPUs online",
		    c->lab_vcpus, h->cpus);
		bad = 1;
	}
	return bad;
}

int lab_config_check(const struct run_config *c, const struct matrix *m,
		     const struct lab_host_facts *h)
{
	const struct lab_cpu_model *cpu = lab_cpu_model_find(c->lab_cpu);
	int bad;

	if (!cpu) {
		run_config_error(c, RUN_CONFIG_KEY(lab_cpu), "'%s' is not a lab CPU model",
			     c->lab_cpu);
		return -EINVAL;
	}
	bad = lab_cpu_check(c, cpu);
	bad |= lab_cells_check(c, m, cpu);
	bad |= lab_host_check(c, h);
	bad |= lab_files_check(c, m);
	return bad ? -EINVAL : 0;
}

void lab_image_opts(const struct run_config *c, const char *bindir,
		    struct image_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = IMAGE_LAB;
	o->bindir = bindir;
	/* the key's choices are image_from_names: it parses */
	if (c->lab_image_from &&
	    image_from_parse(c->lab_image_from, &o->from) < 0)
		o->from = IMAGE_FROM_AUTO;
}
