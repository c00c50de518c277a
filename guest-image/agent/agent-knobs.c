/* SPDX-License-Identifier: MIT */
/* agent-knobs.c - the guest knobs of the agent (agent-knobs.h). */
#include "agent-knobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knob-path.h"
#include "thp.h"
#include "util.h"

/* A knob's file: its directory and a name shorter than KNOB_NAME_MAX. */
#define KNOB_PATH_MAX (KNOB_NAME_MAX + 32)
/* The file of generic knob NAME into PATH, or "bad-knob" with MSG. */
static const char *knob_file(const char *name, char *path, char *msg,
			     size_t msglen)
{
	if (knob_path(name, path, KNOB_PATH_MAX) == 0)
		return NULL;
	snprintf(msg, msglen,
		 "'%.128s' is not a guest knob: sysctl.A.B (/proc/sys) or "
		 "mm.A.B (/sys/kernel/mm), components of [A-Za-z0-9_-]",
		 name);
	return "bad-knob";
}

/*
 * The current value of generic knob NAME into OUT.  Returns NULL, or an
 * error code for a reply with the message in MSG.
 */
const char *agent_knob_get(const char *name, char *out, size_t len,
			    char *msg, size_t msglen)
{
	char path[KNOB_PATH_MAX], *raw = NULL;
	const char *code;
	int ret;

	code = knob_file(name, path, msg, msglen);
	if (code)
		return code;
	ret = read_file(path, KNOB_VALUE_MAX * 64, &raw, NULL);
	if (ret < 0) {
		snprintf(msg, msglen, "cannot read '%s': %s", path,
			 strerror(-ret));
		return "io-error";
	}
	ret = knob_value_parse(raw, out, len);
	if (ret == -ENAMETOOLONG)
		snprintf(msg, msglen, "'%s' holds a value of %zu bytes or more",
			 path, len);
	else if (ret < 0)
		snprintf(msg, msglen, "'%s' holds no value ('%.64s')", path,
			 raw);
	free(raw);
	return ret < 0 ? "io-error" : NULL;
}

/*
 * Write VALUE to generic knob NAME and read it back into GOT.  Returns NULL
 * on success or an error code for the reply, with the message in MSG.
 */
const char *agent_knob_set(const char *name, const char *value, char *got,
			    size_t glen, char *msg, size_t msglen)
{
	char path[KNOB_PATH_MAX];
	const char *code;
	int ret;

	code = knob_file(name, path, msg, msglen);
	if (code)
		return code;
	ret = write_str(path, value);
	if (ret < 0) {
		snprintf(msg, msglen, "cannot write '%s' to '%s': %s", value,
			 path, strerror(-ret));
		return "io-error";
	}
	code = agent_knob_get(name, got, glen, msg, msglen);
	if (code)
		return code;
	if (!knob_value_same(value, got)) {
		snprintf(msg, msglen, "wrote '%s' to '%s' but read back '%s'",
			 value, path, got);
		return "readback-mismatch";
	}
	return NULL;
}

/* Current THP mode of knob ("enabled" or "defrag") as a JSON string/null. */
json_t *agent_thp_current(const char *knob)
{
	char name[64], word[KNOB_VALUE_MAX], msg[256];

	snprintf(name, sizeof(name), THP_KNOB_PREFIX "%s", knob);
	if (agent_knob_get(name, word, sizeof(word), msg, sizeof(msg)))
		return json_null();
	return json_string(word);
}

