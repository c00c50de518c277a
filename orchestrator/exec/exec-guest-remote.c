/* SPDX-License-Identifier: MIT */
/*
 * exec-guest-remote.c - the per-run ops of the guests on a remote libvirt
 * (exec-guest.h): its connection in the executor's slot of the run, from
 * check() to end().
 */
#include "exec-guest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest-remote.h"
#include "host.h"
#include "run-engine.h"
#include "util.h"
#include "vm.h"
#include "vocab.h"

struct guest_remote *exec_guest_remote(const struct run *r)
{
	return run_exec_state(r, &cell_exec_guest_remote);
}

/*
 * The remote libvirt's guests against its host's CPUs and available memory
 * (as run-preflight.h checks this host's): the largest refused with the
 * figures; a figure the host did not give is said to be unchecked.
 */
static int remote_sizes(const struct run *r, const struct guest_remote *g)
{
	const struct cell *cpus = NULL, *mem = NULL;
	int ci, ret = 0;

	for (ci = 0; ci < r->ncells; ci++) {
		const struct cell *c = &r->cells[ci];

		if (!run_exec_has(r, ci, EXEC_NEEDS_GUEST))
			continue;
		if (!cpus || c->vcpus > cpus->vcpus)
			cpus = c;
		if (!mem || c->memory > mem->memory)
			mem = c;
	}
	if (!cpus)
		return 0;
	if (g->cpus <= 0 || !g->memavail)
		note("%s: '%s' (the remote libvirt's host) did not say its %s: "
		     "its guests' size is not checked against it",
		     r->cfg.path, g->d.host,
		     g->cpus <= 0 ? "CPUs" : "available memory");
	if (g->cpus > 0 && cpus->vcpus > g->cpus)
		ret = err_plain("%s: cell '%s' asks for %ld vCPUs, and '%s' "
				"(the remote libvirt's host) has %ld CPUs "
				"online: give [guest] vcpus %ld or fewer",
				r->cfg.path, cpus->id, cpus->vcpus, g->d.host,
				g->cpus, g->cpus);
	if (g->memavail && mem->memory > g->memavail)
		ret = err_plain("%s: cell '%s' asks for a %.1f GiB guest, and "
				"'%s' (the remote libvirt's host) has %.1f GiB "
				"available (MemAvailable): lower [guest] memory",
				r->cfg.path, mem->id,
				(double)mem->memory / (1ULL << 30), g->d.host,
				(double)g->memavail / (1ULL << 30));
	return ret < 0 ? -EINVAL : 0;
}

/*
 * What the remote libvirt's host says (guest-remote.h) decides the
 * accelerator and the paging's name, and its THP must be the config's one
 * host_thp (it is not set from here).
 */
int exec_guest_remote_check(struct run *r, bool dry)
{
	struct guest_remote *g = NULL;
	struct host_cpu cpu = { 0 };
	char *where;
	int ret;

	(void)dry;
	if (guest_remote_open(r->cfg.uri, r->cfg.path, &g) < 0)
		return -EINVAL;
	run_exec_state_set(r, &cell_exec_guest_remote, g);
	if (*g->thp && strcmp(g->thp, r->cfg.host_thp.v[0])) {
		err_plain(
		    "%s: host_thp = %s, but '%s' (the remote libvirt's "
		    "host) runs THP %s: its THP is not set from here (that "
		    "needs [fleet]); give host_thp = %s",
		    r->cfg.path, r->cfg.host_thp.v[0], g->d.host, g->thp,
		    g->thp);
		return -EINVAL;
	}
	r->accel = strcmp(r->cfg.accel, "tcg") && g->kvm ? "kvm" : "tcg";
	snprintf(r->accel_why, sizeof(r->accel_why),
		 "on the remote libvirt of '%.64s' (%.64s), which %s",
		 g->d.host, g->hostname,
		 g->kvm ? "has /dev/kvm and vmx or svm"
			: "has no /dev/kvm, or no vmx or svm flag");
	if (!strcmp(r->cfg.accel, "kvm") && !g->kvm) {
		err_plain("%s: accel = kvm, but '%s' has no /dev/kvm, or no "
			  "vmx or svm flag in its /proc/cpuinfo",
			  r->cfg.path, g->d.host);
		return -EINVAL;
	}
	if (remote_sizes(r, g) < 0)
		return -EINVAL;
	snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", g->vendor);
	where = xasprintf("'%s' (the remote libvirt's host)", g->d.host);
	ret = run_vendor_paging_set(r, &cpu, where);
	free(where);
	return ret;
}

/* The guest files are copied there (or found there already). */
int exec_guest_remote_begin(struct run *r)
{
	struct guest_remote *g = exec_guest_remote(r);
	size_t k;

	for (k = 0; k < r->ngfs; k++)
		if (guest_remote_stage(g, &r->gfs[k].f) < 0)
			return -EINVAL;
	return 0;
}

/*
 * The run: run.remote_libvirt, where the guest cells ran (run.host is
 * this machine, which drove them).  Cell CI: observed.host_thp, the
 * remote host's THP as it said before the run.
 */
void exec_guest_remote_describe(const struct run *r, int ci, json_t *into)
{
	const struct guest_remote *g = exec_guest_remote(r);
	char name[256] = "";

	if (ci >= 0) {
		if (*g->thp)
			json_object_set_new(into, AXIS_ENV_HOST_THP,
					    json_string(g->thp));
		return;
	}
	if (r->conn)
		vm_conn_hostname(r->conn, name, sizeof(name));
	json_object_set_new(
	    into, "remote_libvirt",
	    json_pack("{s:s, s:s, s:s, s:s?, s:s, s:I, s:I, s:s}", "uri",
		      r->cfg.uri, "host", g->d.host, "ssh", g->dest,
		      "hostname", *name ? name : NULL, "thp", g->thp,
		      "files_copied", (json_int_t)g->copied, "files_reused",
		      (json_int_t)g->reused, "note",
		      "the guest cells ran on this libvirt's host; run.host "
		      "is the machine that drove them"));
}

void exec_guest_remote_end(struct run *r)
{
	guest_remote_free(exec_guest_remote(r));
}
