/* SPDX-License-Identifier: MIT */
/* CPU and KVM module facts from ROOT/proc and ROOT/sys (host.h), and the
 * CPU vendors' table (cpu-vendor.h). */
#include "host.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* Flags that say something about hardware virtualization and page sizes. */
static const char *const virt_flags[] = {
    "vmx", "svm",	"ept",	"vpid",	   "ept_ad",
    "npt", "nrip_save", "avic", "pdpe1gb", "hypervisor",
};

/* See host.h. */
void host_cpuinfo_value(const char *text, const char *key, char *out,
			size_t len)
{
	size_t klen = strlen(key);
	const char *line = text;

	out[0] = '\0';
	while (line && *line) {
		const char *end = strchrnul(line, '\n');

		if (!strncmp(line, key, klen) &&
		    strspn(line + klen, " \t") + klen < (size_t)(end - line) &&
		    line[klen + strspn(line + klen, " \t")] == ':') {
			const char *v =
			    line + klen + strspn(line + klen, " \t") + 1;

			v += strspn(v, " \t");
			snprintf(out, len, "%.*s", (int)(end - v), v);
			return;
		}
		line = *end ? end + 1 : NULL;
	}
}

void host_cpu_parse(const char *text, struct host_cpu *cpu)
{
	size_t i, n = 0;

	memset(cpu, 0, sizeof(*cpu));
	host_cpuinfo_value(text, "vendor_id", cpu->vendor, sizeof(cpu->vendor));
	host_cpuinfo_value(text, "model name", cpu->model, sizeof(cpu->model));
	host_cpuinfo_value(text, "flags", cpu->flags, sizeof(cpu->flags));
	for (i = 0; i < ARRAY_SIZE(virt_flags); i++) {
		if (!host_cpu_has(cpu, virt_flags[i]))
			continue;
		n += snprintf(cpu->virt_flags + n, sizeof(cpu->virt_flags) - n,
			      "%s%s", n ? " " : "", virt_flags[i]);
	}
}

int host_cpu_read(const char *root, struct host_cpu *cpu)
{
	char *path = xasprintf("%s/proc/cpuinfo", root ? root : "");
	char *text = NULL;
	int ret;

	memset(cpu, 0, sizeof(*cpu));
	ret = read_file(path, 16 << 20, &text, NULL);
	if (ret < 0) {
		err_code(ret, "cannot read '/proc/cpuinfo'");
		goto out;
	}
	host_cpu_parse(text, cpu);
	ret = 0;
out:
	free(text);
	free(path);
	return ret;
}

bool host_cpu_has(const struct host_cpu *cpu, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = cpu->flags;

	while (*p) {
		size_t w;

		p += strspn(p, " \t");
		w = strcspn(p, " \t");
		if (w == n && !strncmp(p, flag, n))
			return true;
		p += w;
	}
	return false;
}

/* The rows of cpu-vendor.h's table: a label's words are made from it. */
#define VIRT_HW(flag, ext, module, paging, label)                            \
	{flag, ext, module, paging, label, label " on", label " off"}
static const struct virt_hw virt_intel =
    VIRT_HW("vmx", "VT-x", "kvm_intel", "ept", "EPT");
static const struct virt_hw virt_amd =
    VIRT_HW("svm", "AMD-V", VIRT_AMD_MODULE, "npt", "NPT");

static const struct {
	enum virt_vendor v;
	const char *vendor_id; /* cpuinfo's vendor_id */
	const char *name;      /* the word in its model names */
	const struct virt_hw *hw;
} vendors[] = {
    {VIRT_VENDOR_INTEL, "GenuineIntel", "Intel", &virt_intel},
    {VIRT_VENDOR_AMD, "AuthenticAMD", "AMD", &virt_amd},
    {VIRT_VENDOR_HYGON, "HygonGenuine", "Hygon", &virt_amd},
};

/* Whether WORD is a word of TEXT: not inside a longer run of letters and
 * digits ("AMD" of "AMD EPYC", not of "XAMDY"). */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = text; (p = strstr(p, word)); p++)
		if ((p == text || !isalnum((unsigned char)p[-1])) &&
		    !isalnum((unsigned char)p[n]))
			return true;
	return false;
}

/* See cpu-vendor.h. */
enum virt_vendor host_virt_vendor_named(const char *vendor_id,
					const char *model)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vendors); i++) {
		if (vendor_id && *vendor_id
			? !strcmp(vendor_id, vendors[i].vendor_id)
			: model && has_word(model, vendors[i].name))
			return vendors[i].v;
	}
	return VIRT_VENDOR_NONE;
}

const char *host_virt_vendor_name(enum virt_vendor v)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vendors); i++)
		if (vendors[i].v == v)
			return vendors[i].name;
	return "unknown";
}

const struct virt_hw *host_virt_hw(enum virt_vendor v)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vendors); i++)
		if (vendors[i].v == v)
			return vendors[i].hw;
	return NULL;
}

const struct virt_hw *host_virt_hw_paging(const char *paging)
{
	size_t i;

	for (i = 0; paging && i < ARRAY_SIZE(vendors); i++)
		if (!strcmp(paging, vendors[i].hw->paging))
			return vendors[i].hw;
	return NULL;
}

void host_virt_vendor_ids(char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(vendors) && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i ? ", " : "", vendors[i].vendor_id);
}

/* See host.h: the vendor_id, else the flags. */
enum virt_vendor host_virt_vendor(const struct host_cpu *cpu)
{
	enum virt_vendor v = host_virt_vendor_named(cpu->vendor, NULL);

	if (v != VIRT_VENDOR_NONE)
		return v;
	if (host_cpu_has(cpu, virt_intel.flag))
		return VIRT_VENDOR_INTEL;
	if (host_cpu_has(cpu, virt_amd.flag))
		return VIRT_VENDOR_AMD;
	return VIRT_VENDOR_NONE;
}

const struct virt_hw *host_virt_usable(const struct host_cpu *cpu)
{
	const struct virt_hw *hv = host_virt_hw(host_virt_vendor(cpu));

	return hv && host_cpu_has(cpu, hv->flag) ? hv : NULL;
}

/*
 * A loadable module has /sys/module/NAME/initstate; a built-in one that has
 * parameters has /sys/module/NAME without it.
 */
enum host_module_state host_module_state(const char *root, const char *name)
{
	char *dir = xasprintf("%s/sys/module/%s", root ? root : "", name);
	char *init = xasprintf("%s/initstate", dir);
	enum host_module_state s = HOST_MODULE_ABSENT;
	struct stat st;

	if (!stat(dir, &st))
		s = stat(init, &st) ? HOST_MODULE_BUILTIN : HOST_MODULE_LOADED;
	free(init);
	free(dir);
	return s;
}

const char *host_module_state_name(enum host_module_state s)
{
	switch (s) {
	case HOST_MODULE_LOADED:
		return "loaded";
	case HOST_MODULE_BUILTIN:
		return "built-in";
	case HOST_MODULE_ABSENT:
		break;
	}
	return "absent";
}
