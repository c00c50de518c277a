/* SPDX-License-Identifier: MIT */
/* vocab.c - the words results are written in (vocab.h). */
#include "vocab.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knob-path.h"
#include "thp.h"
#include "util.h"

/* One row per fixed axis; docs/axes.md lists them. */
const struct vocab_axis vocab_axes[VAX_NR] = {
    [VAX_WHERE] = {AXIS_NAME_WHERE, "matrix.where", AXIS_ENV_WHERE, NULL,
		   where_names, .classic = true, .in_ids = true,
		   .column = true},
    [VAX_PAGING] = {AXIS_NAME_PAGING, "matrix.paging", AXIS_ENV_PAGING, NULL,
		    paging_names + 1, .classic = true, .guest_only = true,
		    .column = true},
    [VAX_HOST_THP] = {AXIS_NAME_HOST_THP, "matrix." AXIS_ENV_HOST_THP,
		      AXIS_ENV_HOST_THP, "host THP", thp_enabled_modes,
		      .classic = true, .in_ids = true},
    [VAX_GUEST_THP] = {AXIS_NAME_GUEST_THP, "matrix." AXIS_ENV_GUEST_THP,
		       AXIS_ENV_GUEST_THP, "guest THP", thp_enabled_modes,
		       .classic = true, .guest_only = true, .in_ids = true},
    [VAX_BACKING] = {AXIS_NAME_BACKING, "matrix.backing", AXIS_ENV_BACKING,
		     NULL, backing_names + 1, .classic = true,
		     .guest_only = true, .column = true},
    [VAX_IMAGE] = {"image", "guest.image", "image", NULL, NULL,
		   .guest_only = true},
    [VAX_KERNEL] = {"kernel", "guest.kernel", "kernel", NULL, NULL,
		    .guest_only = true},
    [VAX_INITRD] = {"initrd", "guest.initrd", NULL, NULL, NULL,
		    .guest_only = true},
    [VAX_VCPUS] = {"vcpus", "guest.vcpus", "vcpus", NULL, NULL,
		   .guest_only = true},
    [VAX_MEMORY] = {"memory", "guest.memory", "memory_bytes", NULL, NULL,
		    .guest_only = true},
    [VAX_CMDLINE] = {"cmdline", "guest.cmdline", "cmdline", NULL, NULL,
		     .guest_only = true},
    [VAX_REPLICA] = {AXIS_NAME_REPLICA, "run.replicas", NULL, NULL, NULL},
};

const struct vocab_axis *vocab_axis_find(const char *name)
{
	size_t i;

	for (i = 0; i < VAX_NR; i++)
		if (!strcmp(vocab_axes[i].name, name))
			return &vocab_axes[i];
	return NULL;
}

const char *vocab_axis_heading(const char *name)
{
	const struct vocab_axis *a = vocab_axis_find(name);

	return a && a->heading ? a->heading : name;
}

const char *const cell_exec_places[] = {CELL_EXEC_LOCAL, CELL_EXEC_LAB,
					FLEET_EXEC, NULL};
const char *const fleet_modes[] = {"each", "split", NULL};

const char *const where_names[] = {
    [WHERE_BARE] = "bare-metal", [WHERE_GUEST] = "guest", NULL};
const char *const paging_names[] = {
    [PAGING_NONE] = NULL,	[PAGING_AUTO] = "auto", [PAGING_HW] = "hw",
    [PAGING_SHADOW] = "shadow", [PAGING_TCG] = "tcg",	[PAGING_TCG + 1] = NULL,
};
const char *const backing_names[] = {
    [BACKING_NONE] = NULL,
    [BACKING_THP] = "thp",
    [BACKING_HUGETLB_2M] = "hugetlb-2M",
    [BACKING_HUGETLB_1G] = "hugetlb-1G",
    [BACKING_HUGETLB_1G + 1] = NULL,
};

static int parse_name(const char *const *names, int first, int last,
		      const char *s, int *out)
{
	int i;

	for (i = first; i <= last; i++)
		if (names[i] && !strcmp(names[i], s)) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

const char *where_name(enum where w)
{
	return w <= WHERE_GUEST ? where_names[w] : NULL;
}

int where_parse(const char *s, enum where *out)
{
	int v, ret = parse_name(where_names, WHERE_BARE, WHERE_GUEST, s, &v);

	if (!ret)
		*out = v;
	return ret;
}

const char *paging_name(enum paging p)
{
	return p <= PAGING_TCG ? paging_names[p] : NULL;
}

int paging_parse(const char *s, enum paging *out)
{
	int v, ret = parse_name(paging_names, PAGING_AUTO, PAGING_TCG, s, &v);

	if (!ret)
		*out = v;
	return ret;
}

const char *backing_name(enum backing b)
{
	return b <= BACKING_HUGETLB_1G ? backing_names[b] : NULL;
}

int backing_parse(const char *s, enum backing *out)
{
	int v, ret = parse_name(backing_names, BACKING_THP, BACKING_HUGETLB_1G,
				s, &v);

	if (!ret)
		*out = v;
	return ret;
}

static const char *const status_names[] = {
    [CELL_PENDING] = "pending",
    [CELL_OK] = "ok",
    [CELL_FAILED] = "failed",
    [CELL_SKIPPED] = "skipped",
};

const char *cell_status_name(enum cell_status s)
{
	return status_names[s];
}

int cell_status_parse(const char *s, enum cell_status *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(status_names); i++)
		if (!strcmp(s, status_names[i])) {
			*out = (enum cell_status)i;
			return 0;
		}
	return -EINVAL;
}

static const char *const reason_names[] = {
    [STOP_NONE] = "none",
    [STOP_REPEAT] = "repeat",
    [STOP_TARGET] = "target",
    [STOP_MAX_REPEAT] = "max_repeat",
    [STOP_NO_BASELINE] = "no_baseline",
    [STOP_FAILED] = "failed",
    [STOP_SKIPPED] = "skipped",
    [STOP_INTERRUPTED] = "interrupted",
    [STOP_PLAN] = "plan",
};

const char *stop_reason_name(enum stop_reason r)
{
	return r < STOP_NR ? reason_names[r] : "none";
}

int stop_reason_parse(const char *s, enum stop_reason *out)
{
	size_t i;

	for (i = STOP_REPEAT; i < STOP_NR; i++)
		if (!strcmp(s, reason_names[i])) {
			*out = (enum stop_reason)i;
			return 0;
		}
	return -EINVAL;
}

static bool dest_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
	       c == '@';
}

/* Why C may not be in a destination. */
static const char *char_why(char c)
{
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return "white space: one destination is one word";
	if ((unsigned char)c < 0x20 || c == 0x7f)
		return "a control character";
	if ((unsigned char)c >= 0x80)
		return "not ASCII";
	if (c == ':' || c == '/' || c == '[' || c == ']')
		return "ports, ssh:// URIs and IPv6 literals go in your ssh "
		       "config: give its Host alias";
	return "a shell metacharacter or ssh syntax";
}

int fleet_dest_check(const char *dest, char *why, size_t len)
{
	const char *at = strchr(dest, '@');
	size_t i;

	if (!*dest) {
		snprintf(why, len, "an empty destination");
		return -EINVAL;
	}
	if (*dest == '-') {
		snprintf(why, len,
			 "'%s' starts with '-': ssh would take it as an option",
			 dest);
		return -EINVAL;
	}
	for (i = 0; dest[i]; i++) {
		if (dest_char(dest[i]))
			continue;
		snprintf(why, len, "'%s' has the character 0x%02x at %zu: %s",
			 dest, (unsigned char)dest[i], i + 1,
			 char_why(dest[i]));
		return -EINVAL;
	}
	if (i > FLEET_DEST_MAX) {
		snprintf(why, len,
			 "a destination of %zu characters (at most "
			 "%d)",
			 i, FLEET_DEST_MAX);
		return -EINVAL;
	}
	if (at && (at == dest || !at[1] || strchr(at + 1, '@'))) {
		snprintf(why, len,
			 "'%s': want USER@HOST or HOST (one '@', a user "
			 "before it and a host after it)",
			 dest);
		return -EINVAL;
	}
	if (*fleet_dest_host(dest) == '.' || *fleet_dest_host(dest) == '-') {
		snprintf(why, len,
			 "'%s': a host name starts with a letter or "
			 "a digit",
			 dest);
		return -EINVAL;
	}
	return 0;
}

const char *fleet_dest_host(const char *dest)
{
	const char *at = strchr(dest, '@');

	return at ? at + 1 : dest;
}

bool wl_param_name_valid(const char *s)
{
	size_t i;

	if (!isupper((unsigned char)s[0]))
		return false;
	for (i = 0; s[i]; i++)
		if (!isupper((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '_')
			return false;
	return i <= 64;
}

bool run_config_guest_knob_name(const char *name)
{
	return (!strncmp(name, KNOB_PREFIX_SYSCTL,
			 strlen(KNOB_PREFIX_SYSCTL)) ||
		!strncmp(name, KNOB_PREFIX_MM, strlen(KNOB_PREFIX_MM))) &&
	       knob_name_valid(name);
}
