/* SPDX-License-Identifier: MIT */
/* CPU and KVM module facts from ROOT/proc and ROOT/sys; see host.h. */
#include "host.h"

#include <errno.h>
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

int host_cpu_read(const char *root, struct host_cpu *cpu)
{
	char *path = xasprintf("%s/proc/cpuinfo", root ? root : "");
	char *text = NULL;
	size_t i, n = 0;
	int ret;

	memset(cpu, 0, sizeof(*cpu));
	ret = read_file(path, 16 << 20, &text, NULL);
	if (ret < 0) {
		err_code(ret, "cannot read '/proc/cpuinfo'");
		goto out;
	}
	host_cpuinfo_value(text, "vendor_id", cpu->vendor, sizeof(cpu->vendor));
	host_cpuinfo_value(text, "model name", cpu->model, sizeof(cpu->model));
	host_cpuinfo_value(text, "flags", cpu->flags, sizeof(cpu->flags));
	for (i = 0; i < ARRAY_SIZE(virt_flags); i++) {
		if (!host_cpu_has(cpu, virt_flags[i]))
			continue;
		n += snprintf(cpu->virt_flags + n, sizeof(cpu->virt_flags) - n,
			      "%s%s", n ? " " : "", virt_flags[i]);
	}
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
