/* SPDX-License-Identifier: MIT */
/* Which of a workload's Debian packages this host lacks; see host.h. */
#include "host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "util.h"

/* Does OUT (dpkg-query's lines) say NAME (N bytes) is installed? */
static bool is_installed(const char *out, const char *name, size_t n)
{
	static const char ok[] = "install ok installed ";
	const size_t k = sizeof(ok) - 1;
	size_t m;

	for (; *out; out += m + (out[m] == '\n')) {
		m = strcspn(out, "\n");
		if (m == k + n && !strncmp(out, ok, k) &&
		    !memcmp(out + k, name, n))
			return true;
	}
	return false;
}

int host_missing_packages(const char *packages, char *missing, size_t len)
{
	char *cmd = xstrdup("dpkg-query -W -f='${Status} ${Package}\\n' --"),
	     *t;
	struct runner_spec spec = {.timeout_s = 60};
	struct runner_result res;
	const char *p;
	size_t n, used = 0;
	int ret;

	missing[0] = '\0';
	for (p = package_next(packages, &n); p; p = package_next(p + n, &n)) {
		/* The names go to sh -c: only package names may. */
		if (!debian_package_name(p, n)) {
			ret = -EINVAL; /* the config loader said so */
			goto out;
		}
		t = xasprintf("%s %.*s", cmd, (int)n, p);
		free(cmd);
		cmd = t;
	}
	spec.cmd = cmd;
	ret = runner_run(&spec, &res);
	if (ret < 0)
		goto out;
	/* Exit 1 with "no packages found" on stderr for unknown names; the
	 * installed ones are on stdout either way.  127: no dpkg-query. */
	if (res.status != RUNNER_OK && res.exit_status == 127) {
		ret = -ENOENT;
	} else {
		for (p = package_next(packages, &n); p;
		     p = package_next(p + n, &n)) {
			if (is_installed(res.output ? res.output : "", p, n) ||
			    used + n + 2 > len)
				continue;
			used += (size_t)snprintf(missing + used, len - used,
						 "%s%.*s", used ? " " : "",
						 (int)n, p);
		}
	}
	runner_result_release(&res);
out:
	free(cmd);
	return ret;
}
