/* SPDX-License-Identifier: MIT */
/* Which fields of two hosts differ; see host-diff.h. */
#include "host-diff.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const struct host_diff_field host_diff_fields[] = {
    {"cpu_model", NULL, "cpu_model"},
    {"cpu_id", "fingerprint", "cpu_id"},
    {"microcode", "fingerprint", "microcode"},
    {"cpus", NULL, "cpus"},
    {"sockets", "fingerprint", "sockets"},
    {"cores", "fingerprint", "cores"},
    {"numa_nodes", "fingerprint", "numa_nodes"},
    {"mem_bytes", NULL, "mem_bytes"},
    {"kernel", NULL, "kernel"},
    {"kernel_build", "fingerprint", "kernel_build"},
    {"accel", NULL, "accel"},
    {"virtualized", NULL, "virtualized"},
    {"hypervisor", "hypervisor", "name"},
};
const size_t host_diff_nfields = ARRAY_SIZE(host_diff_fields);

static const json_t *field_get(const json_t *host,
			       const struct host_diff_field *f)
{
	const json_t *o = f->obj ? json_object_get(host, f->obj) : host;
	const json_t *v = json_object_get(o, f->key);

	return json_is_null(v) ? NULL : v;
}

/* Whether field F is known on both sides and differs. */
static bool field_differs(const json_t *a, const json_t *b,
			  const struct host_diff_field *f)
{
	const json_t *va = field_get(a, f), *vb = field_get(b, f);

	return va && vb && !json_equal(va, vb);
}

size_t host_diff(const json_t *a, const json_t *b, const char **out, size_t max)
{
	size_t i, n = 0;

	if (!a || !b)
		return 0;
	for (i = 0; i < host_diff_nfields && n < max; i++)
		if (field_differs(a, b, &host_diff_fields[i]))
			out[n++] = host_diff_fields[i].name;
	return n;
}

/* V as text: a string as it is, anything else as JSON. */
static void value_text(const json_t *v, char *buf, size_t len)
{
	char *s;

	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
		return;
	}
	s = json_dumps(v, JSON_ENCODE_ANY);
	snprintf(buf, len, "%s", s ? s : "?");
	free(s);
}

size_t host_diff_text(const json_t *a, const json_t *b, char *buf, size_t len)
{
	char va[160], vb[160];
	size_t i, n = 0, used = 0;
	bool full = !len;

	if (len)
		*buf = '\0';
	for (i = 0; a && b && i < host_diff_nfields; i++) {
		const struct host_diff_field *f = &host_diff_fields[i];
		int w;

		if (!field_differs(a, b, f))
			continue;
		if (!full) {
			value_text(field_get(a, f), va, sizeof(va));
			value_text(field_get(b, f), vb, sizeof(vb));
			w = snprintf(buf + used, len - used,
				     "%s%s ('%s' vs '%s')", n ? ", " : "",
				     f->name, va, vb);
			if (w < 0 || (size_t)w >= len - used)
				full = true; /* truncated; still counted */
			else
				used += (size_t)w;
		}
		n++;
	}
	return n;
}
