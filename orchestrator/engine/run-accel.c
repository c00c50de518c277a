/* SPDX-License-Identifier: MIT */
/*
 * run-accel.c - where a run's guests run, as the executors' check()
 * decide it before the run (run-engine.h): the accelerator and why, and
 * the paging name of the CPU under them.
 */
#include "run-engine.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "util.h"

int run_vendor_paging_set(struct run *r, const struct host_cpu *cpu,
			  const char *where)
{
	const struct virt_hw *hv = host_virt_hw(host_virt_vendor(cpu));
	char ids[64];

	snprintf(r->vendor_paging, sizeof(r->vendor_paging), "%s",
		 hv ? hv->paging : "");
	if (hv || strcmp(r->accel, "kvm"))
		return 0;
	host_virt_vendor_ids(ids, sizeof(ids));
	err_plain("%s: cannot tell which paging KVM guests get on %s: its CPU "
		  "vendor '%s' is none of %s",
		  r->cfg.path, where, cpu->vendor, ids);
	return -ENODEV;
}

int run_accel_here(struct run *r)
{
	struct host_cpu cpu;

	if (r->accel)
		return 0; /* decided by this run's other executor */
	/* accel = kvm where KVM is unusable: run_preflight() refused it */
	r->accel = host_accel_decide("", r->accel_why, sizeof(r->accel_why));
	if (!strcmp(r->cfg.accel, "tcg")) {
		r->accel = "tcg";
		snprintf(r->accel_why, sizeof(r->accel_why),
			 "accel = tcg in the config");
	}
	if (host_cpu_read("", &cpu) < 0)
		memset(&cpu, 0, sizeof(cpu));
	return run_vendor_paging_set(r, &cpu, "this host");
}
