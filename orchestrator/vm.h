/* SPDX-License-Identifier: MIT */
/*
 * vm.h - guests through libvirt.  orchestrator/vm.c is the only file in
 * vmtax that includes libvirt; everything else sees these plain functions.
 *
 * A struct vm is one transient domain named "vmtax-..." started with
 * VIR_DOMAIN_START_AUTODESTROY, so it dies with the libvirt connection (and
 * so with vmtax).  The agent channel is opened with virDomainOpenChannel() on
 * a non-blocking virStream, which also works over remote URIs.
 */
#ifndef VMTAX_VM_H
#define VMTAX_VM_H

#include <stddef.h>

/*
 * Versions of libvirt and of the hypervisor (QEMU) as "9.0.0" strings.
 * Either may be set to "" when unknown.  Returns 0 or a negative errno.
 */
int vm_versions(const char *uri, char *libvirt, size_t llen, char *qemu,
		size_t qlen);

/*
 * Names of the running domains on URI (all of them, not only vmtax-*), as a
 * NULL-terminated array the caller frees with vm_names_free().  Returns the
 * count or a negative errno.
 */
int vm_list_running(const char *uri, char ***names);
void vm_names_free(char **names);

#endif
