/* SPDX-License-Identifier: MIT */
/*
 * host-diff.h - whether two runs' hosts are alike: the fields of two
 * run.host objects (docs/results-format.md: hostname aside, what the host
 * is and its fingerprint) that differ, by name.
 *
 * The fields compared, in this order (host_diff_fields[]): cpu_model,
 * cpu_id, microcode, cpus, sockets, cores, numa_nodes, mem_bytes, kernel,
 * kernel_build, accel, virtualized, hypervisor (its name).  A field absent
 * or null on either side is unknown there and never a difference (an older
 * results.json has no fingerprint; many guests show no microcode).  The
 * hostname is not compared (two like machines have two names), nor the
 * THP settings the run began with (cells set their own), nor libvirt and
 * QEMU (run.versions).
 *
 * Used by 'vmtax compare' (a note naming what differs between the runs'
 * hosts) and by the fleet (split mode refuses hosts that differ).  Pure.
 */
#ifndef VMTAX_HOST_DIFF_H
#define VMTAX_HOST_DIFF_H

#include <jansson.h>
#include <stddef.h>

#define HOST_DIFF_MAX 16

/* One compared field: its name, and where it is in run.host. */
struct host_diff_field {
	const char *name;
	const char *obj; /* NULL: run.host itself; else a member object */
	const char *key;
};
extern const struct host_diff_field host_diff_fields[];
extern const size_t host_diff_nfields;

/*
 * The fields where run.host objects A and B differ: their names into
 * OUT[0..max) (static storage), in host_diff_fields[] order; returns how
 * many differ (at most HOST_DIFF_MAX).  NULL A or B: none.
 */
size_t host_diff(const json_t *a, const json_t *b, const char **out,
		 size_t max);

/*
 * "cpu_model ('X' vs 'Y'), kernel ('6.1' vs '6.12')" for the fields that
 * differ, into BUF; "" when none.  Returns how many differ.
 */
size_t host_diff_text(const json_t *a, const json_t *b, char *buf, size_t len);

#endif
