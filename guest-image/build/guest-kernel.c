// SPDX-License-Identifier: MIT
#include "guest-kernel.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *guest_kernel_pick(char *const *paths, size_t n)
{
	const char *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!best || strverscmp(guest_kernel_version(paths[i]),
					guest_kernel_version(best)) > 0)
			best = paths[i];
	return best;
}

int guest_kernel_newest(const char *root, char **path, char **kver)
{
	char *pattern =
	    xasprintf("%s/boot/" GUEST_KERNEL_PREFIX "*",
		      root && *root && strcmp(root, "/") ? root : "");
	const char *best;
	glob_t gl = {0};
	int ret = -ENOENT;

	if (glob(pattern, 0, NULL, &gl) != 0 || !gl.gl_pathc)
		goto out;
	best = guest_kernel_pick(gl.gl_pathv, gl.gl_pathc);
	if (path)
		*path = xstrdup(best);
	if (kver)
		*kver = xstrdup(guest_kernel_version(best));
	ret = 0;
out:
	globfree(&gl);
	free(pattern);
	return ret;
}

char *guest_kernel_cache_new(const char *images)
{
	const char *slash = strrchr(images, '/');

	if (!slash)
		return xstrdup("kernel");
	return xasprintf("%.*s/kernel", (int)(slash - images), images);
}

int guest_kernel_find(const char *cache, char **path, char **kver)
{
	if (cache && guest_kernel_newest(cache, path, kver) == 0)
		return 0;
	return guest_kernel_newest(NULL, path, kver);
}

char *guest_kernel_moddir_new(const char *cache, const char *kver)
{
	char *k, *dir = NULL;

	if (!cache)
		return NULL;
	k = xasprintf("%s/boot/" GUEST_KERNEL_PREFIX "%s", cache, kver);
	if (access(k, R_OK) == 0)
		dir = xasprintf("%s/lib/modules/%s", cache, kver);
	free(k);
	return dir;
}

const char *guest_kernel_version(const char *path)
{
	const char *base = path_base(path);

	if (!strncmp(base, GUEST_KERNEL_PREFIX, strlen(GUEST_KERNEL_PREFIX)))
		base += strlen(GUEST_KERNEL_PREFIX);
	return base;
}
