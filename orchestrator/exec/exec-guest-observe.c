/* SPDX-License-Identifier: MIT */
/*
 * exec-guest-observe.c - what a guest cell's host and guest show, into its
 * observed (exec-guest.h).
 */
#include "exec-guest.h"

#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "matrix.h"
#include "run-engine.h"
#include "util.h"
#include "vm.h"

void guest_observe_qemu(struct vm *vm, const struct cell *c, json_t *obs)
{
	static const unsigned long pools[] = { 2048, 1048576 };
	long anon_kb = -1, in_use = -1, n;
	size_t k;

	if (host_anon_huge_kb("", vm_qemu_pid(vm), &anon_kb) < 0)
		anon_kb = -1;
	for (k = 0; k < ARRAY_SIZE(pools); k++) {
		if (c->backing == BACKING_HUGETLB_2M ? pools[k] != 2048
		    : c->backing == BACKING_HUGETLB_1G ? pools[k] != 1048576
							: false)
			continue;
		if (host_hugetlb_in_use("", pools[k], &n) == 0)
			in_use = (in_use < 0 ? 0 : in_use) + n;
	}
	json_object_set_new(obs, "qemu_anon_huge_kb",
			    anon_kb >= 0 ? json_integer(anon_kb) : json_null());
	json_object_set_new(obs, "hugetlb_pages_in_use",
			    in_use >= 0 ? json_integer(in_use) : json_null());
	if (!strcmp(c->host_thp, "never") && anon_kb > 0 &&
	    c->backing == BACKING_THP)
		json_object_set_new(
			obs, "contradiction",
			json_sprintf("host THP is never but QEMU has %ld kB of AnonHugePages",
				     anon_kb));
}

void guest_observed(json_t *obs, json_t *res, const char *suffix)
{
	static const char *const fields[][2] = {
		{ "cmdline", "guest_cmdline" },
		{ "mem_total_kb", "guest_mem_total_kb" },
		{ "directmap_kb", "guest_directmap_kb" },
		{ "userland", "guest_userland" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		json_t *v = json_object_get(res, fields[i][0]);
		char *name;

		if (!v)
			continue;
		name = xasprintf("%s%s", fields[i][1], suffix);
		json_object_set(obs, name, v);
		free(name);
	}
}

void guest_note_userland(struct run *r, json_t *hello)
{
	const char *u = json_string_value(json_object_get(hello, "userland"));

	if (r->userland_noted || !u)
		return;
	r->userland_noted = true;
	note("the guest's userland is %s%s", u,
	     strcmp(u, "gnu") ? "; bare-metal cells run this host's GNU tools "
				"(and the same busybox sh)"
			      : "");
}

json_t *guest_boot_breakdown(json_t *res, double libvirt_s, double hello_s)
{
	json_t *up = json_object_get(res, "uptime_s"),
	       *st = json_object_get(res, "agent_started_s");
	bool known = json_is_number(up) && json_is_number(st) &&
		     json_number_value(up) >= 0;
	double u = json_number_value(up), a = json_number_value(st);

	return json_pack("{s:f, s:o, s:o, s:o, s:f}", "libvirt_start_s",
			 libvirt_s, "firmware_s",
			 known ? json_real(hello_s - u - libvirt_s) : json_null(),
			 "kernel_to_agent_s", known ? json_real(a) : json_null(),
			 "agent_to_hello_s",
			 known ? json_real(u - a) : json_null(), "total_s",
			 hello_s);
}
