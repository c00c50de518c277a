/* SPDX-License-Identifier: MIT */
/* A cell's unit of replication; see sample-unit.h. */
#include "sample-unit.h"

#include <stdlib.h>
#include <string.h>

#include "stats-robust.h"
#include "util.h"

long sample_unit_per_boot(bool guest, long repeat, long boots)
{
	if (boots <= 1 || !guest)
		return 0;
	return (repeat + boots - 1) / boots;
}

const char *sample_unit_name(bool by_boot)
{
	return by_boot ? SAMPLE_UNIT_BOOT : SAMPLE_UNIT_SAMPLE;
}

bool sample_unit_is_boot(const char *name)
{
	return name && !strcmp(name, SAMPLE_UNIT_BOOT);
}

void sample_units_summarize(bool by_boot, const double *x, const long *boot,
			    size_t n, struct stats_summary *s)
{
	double *means;
	struct stats_groups g;
	size_t i;

	for (i = 0; by_boot && i < n; i++)
		by_boot = boot[i] >= 0;
	if (!by_boot) {
		stats_summarize(x, n, s);
		return;
	}
	means = xcalloc(n ? n : 1, sizeof(*means));
	stats_groups(x, boot, n, &g, means);
	stats_summarize(means, g.ngroups, s);
	free(means);
}
