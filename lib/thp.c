/* SPDX-License-Identifier: MIT */
/* Transparent huge pages as the kernel shows them; see thp.h. */
#include "thp.h"

#include <errno.h>
#include <string.h>

const char *const thp_enabled_modes[] = {THP_MODE_ALWAYS, THP_MODE_MADVISE,
					 THP_MODE_NEVER, NULL};

int thp_parse_selected(const char *line, char *out, size_t len)
{
	if (!strchr(line, '['))
		return -EINVAL;
	return knob_value_parse(line, out, len) < 0 ? -EINVAL : 0;
}

