/* SPDX-License-Identifier: MIT */
#include "cpuset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpuset_clear(struct cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void cpuset_add(struct cpuset *s, unsigned cpu)
{
	if (cpu < CPUSET_MAX)
		s->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

bool cpuset_has(const struct cpuset *s, unsigned cpu)
{
	return cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cpuset_count(const struct cpuset *s)
{
	unsigned i, n = 0;

	for (i = 0; i < CPUSET_MAX; i++)
		n += cpuset_has(s, i);
	return n;
}

int cpuset_nth(const struct cpuset *s, unsigned n)
{
	unsigned i;

	for (i = 0; i < CPUSET_MAX; i++)
		if (cpuset_has(s, i) && n-- == 0)
			return (int)i;
	return -1;
}

static int parse_cpu(const char **p, unsigned *out, char *msg, size_t len)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9') {
		snprintf(msg, len, "expected a CPU number at '%s'", *p);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= CPUSET_MAX) {
		snprintf(msg, len, "CPU %.*s is past the largest, %d",
			 (int)(end - *p), *p, CPUSET_MAX - 1);
		return -EINVAL;
	}
	*p = end;
	*out = (unsigned)v;
	return 0;
}

int cpuset_parse(const char *text, struct cpuset *s, char *msg, size_t len)
{
	const char *p = text;

	cpuset_clear(s);
	while (*p == ' ')
		p++;
	if (!*p || *p == '\n') {
		snprintf(msg, len, "an empty CPU list");
		return -EINVAL;
	}
	for (;;) {
		unsigned a, b, i;

		if (parse_cpu(&p, &a, msg, len) < 0)
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &b, msg, len) < 0)
				return -EINVAL;
			if (b < a) {
				snprintf(msg, len, "backwards range %u-%u", a,
					 b);
				return -EINVAL;
			}
		}
		for (i = a; i <= b; i++)
			cpuset_add(s, i);
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p) {
			snprintf(msg, len, "unexpected '%c' in CPU list '%s'",
				 *p, text);
			return -EINVAL;
		}
		return 0;
	}
}

void cpuset_format(const struct cpuset *s, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i = 0;

	if (len)
		buf[0] = '\0';
	while (i < CPUSET_MAX) {
		unsigned j;

		if (!cpuset_has(s, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < CPUSET_MAX && cpuset_has(s, j + 1); j++)
			;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off,
						j > i ? "%s%u-%u" : "%s%u",
						off ? "," : "", i, j);
		i = j + 1;
	}
}

int pin_value_check(const char *v, char *msg, size_t len)
{
	struct cpuset s;

	if (!strcmp(v, "none") || !strcmp(v, "auto"))
		return 0;
	if (cpuset_parse(v, &s, msg, len) == 0)
		return 0;
	/* The list's own complaint, then what the key takes. */
	snprintf(msg + strlen(msg), len - strlen(msg),
		 " (pin takes none, auto or a CPU list such as 0-1,3)");
	return -EINVAL;
}

int pin_plan_make(const char *v, unsigned nvcpus, const struct cpuset *online,
		  struct pin_plan *p, char *msg, size_t len)
{
	struct cpuset use;
	char on[256];
	unsigned i, n;

	memset(p, 0, sizeof(*p));
	p->emulator_cpu = -1;
	if (!strcmp(v, "none"))
		return 0;
	if (nvcpus > CPUSET_MAX) {
		snprintf(msg, len, "%u vCPUs: at most %d can be pinned", nvcpus,
			 CPUSET_MAX);
		return -EINVAL;
	}
	if (!strcmp(v, "auto")) {
		use = *online;
	} else {
		if (cpuset_parse(v, &use, msg, len) < 0)
			return -EINVAL;
		for (i = 0; i < CPUSET_MAX; i++)
			if (cpuset_has(&use, i) && !cpuset_has(online, i)) {
				cpuset_format(online, on, sizeof(on));
				snprintf(msg, len,
					 "CPU %u is offline or absent (online: "
					 "%s)",
					 i, on);
				return -EINVAL;
			}
	}
	n = cpuset_count(&use);
	if (!n) {
		snprintf(msg, len, "no online CPU to pin to");
		return -EINVAL;
	}
	p->pinned = true;
	p->nvcpus = nvcpus;
	for (i = 0; i < nvcpus; i++)
		p->vcpu_cpu[i] = cpuset_nth(&use, i % n);
	p->emulator_cpu = cpuset_nth(&use, n - 1);
	return 0;
}
