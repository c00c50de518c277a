/* SPDX-License-Identifier: MIT */
/* Which of a workload's Debian packages this host lacks; see host.h. */
#include "host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "util.h"

/* Is NAME (N bytes) a whole word of the blank separated LIST? */
static bool word_in(const char *list, const char *name, size_t n)
{
	const char *p = list, *end = list + strlen(list);

	while ((p = memmem(p, (size_t)(end - p), name, n))) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

int host_missing_packages(const char *packages, char *missing, size_t len)
{
	char *cmd = xstrdup("dpkg-query -W -f='${Status} ${Package}\\n' --"),
	     *t;
	struct runner_spec spec = {.timeout_s = 60};
	struct runner_result res;
	char *installed = NULL;
	const char *p;
	size_t n, used = 0;
	int ret;

	missing[0] = '\0';
	for (p = packages + strspn(packages, PACKAGE_SEP); *p;
	     p += n + strspn(p + n, PACKAGE_SEP)) {
		n = strcspn(p, PACKAGE_SEP);
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
		runner_result_release(&res);
		goto out;
	}
	installed = xstrdup("");
	for (p = res.output; p && *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		if (!strncmp(p, "install ok installed ", 21)) {
			t = xasprintf("%s %.*s", installed, (int)(n - 21),
				      p + 21);
			free(installed);
			installed = t;
		}
	}
	runner_result_release(&res);
	for (p = packages + strspn(packages, PACKAGE_SEP); *p;
	     p += n + strspn(p + n, PACKAGE_SEP)) {
		n = strcspn(p, PACKAGE_SEP);
		if (word_in(installed, p, n) || used + n + 2 > len)
			continue;
		used += (size_t)snprintf(missing + used, len - used, "%s%.*s",
					 used ? " " : "", (int)n, p);
	}
	ret = 0;
out:
	free(installed);
	free(cmd);
	return ret;
}
