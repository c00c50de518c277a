/* SPDX-License-Identifier: MIT */
/* lab-state.c - a lab's saved state: its key and sidecar (lab-state.h). */
#include "lab-state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const struct {
	const char *name, *what;
} lab_state_parts[LAB_STATE_NPARTS] = {
    [LAB_STATE_IMAGE] = {"image", "the lab image"},
    [LAB_STATE_KERNEL] = {"kernel", "the kernel"},
    [LAB_STATE_INITRD] = {"initrd", "the initrd"},
    [LAB_STATE_CMDLINE] = {"cmdline", "the kernel command line"},
    [LAB_STATE_CPU] = {"cpu", "[lab] cpu"},
    [LAB_STATE_FEATURES] = {"cpu_features", "[lab] cpu_features"},
    [LAB_STATE_VCPUS] = {"vcpus", "[lab] vcpus"},
    [LAB_STATE_MEMORY] = {"memory_bytes", "[lab] memory (bytes)"},
    [LAB_STATE_QEMU] = {"qemu", "QEMU"},
    [LAB_STATE_LIBVIRT] = {"libvirt", "libvirt"},
};

const char *lab_state_part_name(enum lab_state_part i)
{
	return lab_state_parts[i].name;
}

const char *lab_state_part_what(enum lab_state_part i)
{
	return lab_state_parts[i].what;
}

void lab_state_key_hash(const struct lab_state_key *k, char *buf)
{
	uint64_t h = 0;
	size_t i;

	/* Each part and its length: "ab"+"c" is not "a"+"bc". */
	for (i = 0; i < LAB_STATE_NPARTS; i++) {
		const char *p = k->part[i] ? k->part[i] : "";
		char len[32];

		snprintf(len, sizeof(len), "%zu:", strlen(p));
		h ^= hash_fnv1a(len, strlen(len)) + (h << 6) + (h >> 2);
		h ^= hash_fnv1a(p, strlen(p)) + (h << 6) + (h >> 2);
	}
	snprintf(buf, 17, "%016" PRIx64, h);
}

json_t *lab_state_sidecar_new(const struct lab_state_key *k,
			      long long state_bytes, const char *disk,
			      const char *saved, double save_s, double ready_s)
{
	json_t *parts = json_object();
	char hash[17];
	size_t i;

	for (i = 0; i < LAB_STATE_NPARTS; i++)
		json_object_set_new(parts, lab_state_parts[i].name,
				    json_string(k->part[i] ? k->part[i] : ""));
	lab_state_key_hash(k, hash);
	return json_pack("{s:i, s:s, s:o, s:I, s:s, s:s, s:f, s:f}", "format",
			 LAB_STATE_FORMAT, "key", hash, "parts", parts,
			 "state_bytes", (json_int_t)state_bytes, "disk", disk,
			 "saved", saved, "save_s", save_s, "ready_s", ready_s);
}

const char *lab_state_disk(const json_t *sidecar)
{
	const char *d = json_string_value(json_object_get(sidecar, "disk"));

	return d && *d && !strchr(d, '/') && d[0] != '.' ? d : NULL;
}

int lab_state_check(const struct lab_state_key *want, const json_t *sidecar,
		    long long file_bytes, char *why, size_t len)
{
	const json_t *parts = json_object_get(sidecar, "parts");
	const json_t *bytes = json_object_get(sidecar, "state_bytes");
	size_t i;

	if (json_integer_value(json_object_get(sidecar, "format")) !=
		LAB_STATE_FORMAT ||
	    !json_is_object(parts) || !json_is_integer(bytes) ||
	    !lab_state_disk(sidecar)) {
		snprintf(why, len,
			 "its record is not a saved state's of "
			 "format %d",
			 LAB_STATE_FORMAT);
		return -EBADMSG;
	}
	for (i = 0; i < LAB_STATE_NPARTS; i++) {
		const char *have = json_string_value(
		    json_object_get(parts, lab_state_parts[i].name));
		const char *w = want->part[i] ? want->part[i] : "";

		if (!have || strcmp(have, w)) {
			snprintf(why, len, "it is for %s %s, this is %s",
				 lab_state_parts[i].what,
				 have ? (*have ? have : "(none)") : "(unknown)",
				 *w ? w : "(none)");
			return -ESTALE;
		}
	}
	if (file_bytes < 0) {
		snprintf(why, len, "its state file is missing");
		return -ENOENT;
	}
	if (file_bytes != json_integer_value(bytes)) {
		snprintf(why, len,
			 "its state file is %lld bytes, %" JSON_INTEGER_FORMAT
			 " when saved (truncated or overwritten)",
			 file_bytes, json_integer_value(bytes));
		return -EMSGSIZE;
	}
	return 0;
}
