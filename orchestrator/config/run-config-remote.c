/* SPDX-License-Identifier: MIT */
/*
 * run-config-remote.c - what a config may ask of guests on a remote
 * libvirt ([guest] uri = qemu+ssh://USER@HOST/system; run-config.h,
 * docs/fleet.md "Guests on a remote libvirt").  Pure: the config only.
 *
 * This host drives the guests and changes nothing on HOST: what a cell
 * needs set on HOST itself (its THP, [host] knobs, the kvm module's
 * paging, a hugetlb pool) or run there (bare-metal cells) needs a vmtax
 * of HOST's own, which is [fleet].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "matrix.h"
#include "run-config.h"
#include "vm.h"

#define NEEDS_FLEET "that needs [fleet] (a vmtax of its own there; " \
		    "docs/fleet.md)"

/* The first refused value of list L of key KEY: 0, or -EINVAL reported. */
static int refuse_value(const struct run_config *c, size_t key,
			const struct ini_list *l, const char *const *bad,
			const char *host, const char *why)
{
	size_t i, k;

	for (i = 0; i < l->n; i++)
		for (k = 0; bad[k]; k++)
			if (!strcmp(l->v[i], bad[k])) {
				run_config_error(c, key,
						 "'%s' with guests on the "
						 "remote libvirt of '%s': %s",
						 l->v[i], host, why);
				return -EINVAL;
			}
	return 0;
}

/* Host settings the matrix would change on HOST: each refused. */
static int remote_host_settings(const struct run_config *c, const char *host)
{
	static const char *const paging_bad[] = { "hw", "shadow", NULL };
	static const char *const backing_bad[] = { "hugetlb-2M", "hugetlb-1G",
						   NULL };

	if (c->host_thp.n > 1) {
		run_config_error(c, RUN_CONFIG_KEY(host_thp),
				 "host_thp is an axis (%zu modes) with guests "
				 "on the remote libvirt of '%s': its THP is "
				 "not set from here; %s, or give the one mode "
				 "'%s' has",
				 c->host_thp.n, host, NEEDS_FLEET, host);
		return -EINVAL;
	}
	if (c->nhost_knobs) {
		const struct knob_setting *k = &c->host_knobs[0];

		char line[16] = "";

		if (k->line > 0)
			snprintf(line, sizeof(line), "%d:", k->line);
		return err_plain("%s:%s [host] %s with guests on the remote "
				 "libvirt of '%s': its knobs are not set from "
				 "here; %s",
				 c->path, line, k->name, host, NEEDS_FLEET);
	}
	if (c->ept_set || c->npt_set) {
		run_config_error(c, RUN_CONFIG_KEY(ept),
				 "%s with guests on the remote libvirt of "
				 "'%s': it reloads the kvm module there; %s",
				 c->ept_set ? "ept" : "npt", host, NEEDS_FLEET);
		return -EINVAL;
	}
	if (refuse_value(c, RUN_CONFIG_KEY(paging), &c->paging, paging_bad,
			 host,
			 "paging is set by reloading the kvm module there; "
			 NEEDS_FLEET) < 0)
		return -EINVAL;
	return refuse_value(c, RUN_CONFIG_KEY(backing), &c->backing,
			    backing_bad, host,
			    "its hugetlbfs pool is not reserved from here; "
			    NEEDS_FLEET);
}

int run_config_remote_check(const struct run_config *c)
{
	static const char *const bare[] = { "bare-metal", NULL };
	struct vm_uri_dest d;

	if (!vm_uri_remote(c->uri, &d))
		return 0;
	if (strcmp(c->executor, CELL_EXEC_LOCAL)) {
		run_config_error(c, RUN_CONFIG_KEY(executor),
				 "executor = %s with guests on the remote "
				 "libvirt of '%s': a remote libvirt is driven "
				 "from this host (executor = local)",
				 c->executor, d.host);
		return -EINVAL;
	}
	if (refuse_value(c, RUN_CONFIG_KEY(where), &c->where, bare, d.host,
			 "bare-metal cells would run on this host, not there; "
			 NEEDS_FLEET ", or set where = guest") < 0)
		return -EINVAL;
	if (strcmp(c->pin, "none")) {
		run_config_error(c, RUN_CONFIG_KEY(pin),
				 "pin = %s with guests on the remote libvirt "
				 "of '%s': it names this host's CPUs, not "
				 "its",
				 c->pin, d.host);
		return -EINVAL;
	}
	return remote_host_settings(c, d.host);
}
