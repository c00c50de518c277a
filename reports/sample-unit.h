/* SPDX-License-Identifier: MIT */
/*
 * sample-unit.h - a cell's unit of replication (docs/sampling.md): the
 * sample, or the mean of one boot's samples.  One rule for the run engine
 * (run-sampling.c: the adaptive plan's intervals and the samples each boot
 * takes; results-file.c: the cell's "sample_unit") and for the reports
 * (sampling.c: the slowdown's interval; fmt-json.c).
 *
 * A guest cell of a run with [run] boots > 1 has the boot as its unit: its
 * REPEAT samples are spread over BOOTS boots and its interval is over the
 * boot means.  Every other cell (bare metal, one boot) has the sample.
 *
 * Pure code: no I/O.
 */
#ifndef VMTAX_SAMPLE_UNIT_H
#define VMTAX_SAMPLE_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

/* results.json's cell "sample_unit" (and the JSON report's "unit"). */
#define SAMPLE_UNIT_BOOT "boot"
#define SAMPLE_UNIT_SAMPLE "sample"

/*
 * Samples per boot of a cell (GUEST: a guest cell) of a run of REPEAT
 * samples over BOOTS boots: ceil(REPEAT / BOOTS) when its unit is the boot,
 * 0 when it is the sample.
 */
long sample_unit_per_boot(bool guest, long repeat, long boots);
/* SAMPLE_UNIT_BOOT or SAMPLE_UNIT_SAMPLE. */
const char *sample_unit_name(bool by_boot);
/* Whether NAME (NULL allowed) is SAMPLE_UNIT_BOOT. */
bool sample_unit_is_boot(const char *name);

/*
 * The units of a cell into S: the metrics X[0..N) of its ok samples, or,
 * when BY_BOOT and every sample has a boot (BOOT[i] >= 0), the mean of each
 * boot's (in order of first appearance).  BOOT may be NULL when !BY_BOOT.
 */
void sample_units_summarize(bool by_boot, const double *x, const long *boot,
			    size_t n, struct stats_summary *s);

#endif
