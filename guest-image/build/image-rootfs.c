/* SPDX-License-Identifier: MIT */
/* image-rootfs.c - the Debian images' root file system (image-rootfs.h). */
#include "image-rootfs.h"

#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image-step.h"
#include "util.h"

#define DEFAULT_MIRROR "http://deb.debian.org/debian"

/* The Debian image's own packages; workloads add theirs. */
static const char *const debian_packages[] = {
    "systemd",
    "systemd-sysv",
    "udev",
    "kmod",
    "build-essential",
    "bc",
    "bison",
    "flex",
    "libelf-dev",
    "libssl-dev",
    "linux-image-amd64",
    "linux-perf",
    "linux-source",
    "cpio",
    "xz-utils",
    "procps",
};

/* VERSION_CODENAME of /etc/os-release into BUF. */
int image_host_suite(char *buf, size_t len)
{
	char *text = NULL, *line, *save = NULL;
	int ret;

	ret = read_file("/etc/os-release", 64 * 1024, &text, NULL);
	if (ret < 0)
		return err_code(ret, "image: cannot read '/etc/os-release'");
	ret = -ENOENT;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "VERSION_CODENAME=", 17))
			continue;
		line += 17 + strspn(line + 17, "\"'");
		line[strcspn(line, "\"'")] = '\0';
		snprintf(buf, len, "%s", line);
		ret = 0;
		break;
	}
	free(text);
	if (ret < 0)
		return err("image: no VERSION_CODENAME in '/etc/os-release' "
			   "(give --suite)");
	return 0;
}

static bool word_in(const char *words, const char *w)
{
	size_t n = strlen(w);
	const char *p = words;

	while ((p = strstr(p, w))) {
		if ((p == words || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ||
		     p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

/*
 * The first "deb" URI for SUITE in an apt sources file: one-line format
 * ("deb [opts] URI SUITE COMP...") or deb822 (.sources stanzas).
 */
static bool mirror_in(const char *path, const char *suite, char *buf,
		      size_t len)
{
	char *text = NULL, *line, *save = NULL;
	char uri[512] = "";
	bool deb822 = strstr(path, ".sources") != NULL, found = false;
	bool is_deb = false, has_suite = false;

	if (read_file(path, 1 << 20, &text, NULL) < 0)
		return false;
	/* A blank line ends a deb822 stanza, so append one. */
	for (line = strtok_r(text, "\n", &save); !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *s = line ? strstrip(line) : NULL;

		if (deb822 && (!s || !*s)) {
			if (is_deb && has_suite && *uri) {
				snprintf(buf, len, "%s", uri);
				found = true;
			}
			is_deb = has_suite = false;
			uri[0] = '\0';
			if (!s)
				break;
			continue;
		}
		if (!s)
			break;
		if (*s == '#')
			continue;
		if (deb822) {
			if (!strncasecmp(s, "Types:", 6))
				is_deb = word_in(s + 6, "deb");
			else if (!strncasecmp(s, "Suites:", 7))
				has_suite = word_in(s + 7, suite);
			else if (!strncasecmp(s, "URIs:", 5))
				sscanf(s + 5, " %511s", uri);
		} else if (!strncmp(s, "deb ", 4) || !strncmp(s, "deb\t", 4)) {
			char u[512], st[128];

			s += 4;
			if (*(s += strspn(s, " \t")) == '[')
				s = strchr(s, ']') ? strchr(s, ']') + 1 : s;
			if (sscanf(s, " %511s %127s", u, st) == 2 &&
			    !strcmp(st, suite)) {
				snprintf(buf, len, "%s", u);
				found = true;
			}
		}
	}
	free(text);
	return found;
}

void image_host_mirror(const char *suite, char *buf, size_t len)
{
	static const char *const lists[] = {
	    "/etc/apt/sources.list.d/*.list",
	    "/etc/apt/sources.list.d/*.sources",
	};
	bool found = mirror_in("/etc/apt/sources.list", suite, buf, len);
	size_t k, i;

	for (k = 0; !found && k < ARRAY_SIZE(lists); k++) {
		glob_t gl;

		if (glob(lists[k], 0, NULL, &gl) != 0)
			continue;
		for (i = 0; !found && i < gl.gl_pathc; i++)
			found = mirror_in(gl.gl_pathv[i], suite, buf, len);
		globfree(&gl);
	}
	if (!found)
		snprintf(buf, len, "%s", DEFAULT_MIRROR);
}

static bool package_name_ok(const char *p)
{
	size_t i;

	if (!*p || strlen(p) > 100)
		return false;
	for (i = 0; p[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789+-.", p[i]))
			return false;
	return true;
}

/* The sorted, unique package list joined with commas (debootstrap's form). */
int image_package_list(const struct image_opts *o, char **out)
{
	size_t n = ARRAY_SIZE(debian_packages) + o->npackages, i, k = 0,
	       len = 1;
	const char **all = xcalloc(n, sizeof(*all));
	char *s;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(debian_packages); i++)
		all[k++] = debian_packages[i];
	for (i = 0; i < o->npackages; i++) {
		if (!package_name_ok(o->packages[i])) {
			ret = err("image: debian: bad package name '%s'",
				  o->packages[i]);
			goto out;
		}
		all[k++] = o->packages[i];
	}
	qsort(all, k, sizeof(*all), strv_cmp);
	for (i = 0; i < k; i++)
		len += strlen(all[i]) + 1;
	s = xcalloc(1, len);
	for (i = 0; i < k; i++) {
		if (i && !strcmp(all[i], all[i - 1]))
			continue;
		if (*s)
			strcat(s, ",");
		strcat(s, all[i]);
	}
	*out = s;
out:
	free(all);
	return ret;
}

/*
 * The shell run in the chroot to add APT (space-separated packages): no
 * daemon started (policy-rc.d), /proc for the maintainer scripts, and no
 * ssh host key left behind.
 */
static char *apt_script_new(const char *apt)
{
	return xasprintf(
	    "set -e\n"
	    "printf '#!/bin/sh\\nexit 101\\n' >/usr/sbin/policy-rc.d\n"
	    "chmod 755 /usr/sbin/policy-rc.d\n"
	    "mount -t proc proc /proc\n"
	    "trap 'umount /proc; rm -f /usr/sbin/policy-rc.d' EXIT\n"
	    "DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
	    "--no-install-recommends %s\n"
	    /* openssh-server's postinst makes host keys: every boot of
	     * the image makes its own (vmtax lab up), none is shared */
	    "rm -f /etc/ssh/ssh_host_*\n",
	    apt);
}

int image_debootstrap(const char *rootfs, const char *suite,
		      const char *mirror, const char *packages, const char *apt)
{
	char *tmp = xasprintf("%s.tmp", rootfs);
	char *log = xasprintf("%s.log", rootfs);
	char *include = xasprintf("--include=%s", packages);
	char *initrd_glob = xasprintf("%s/boot/initrd.img-*", tmp);
	double t0 = mono_now();
	glob_t gl;
	int ret;

	ret = image_remove_tree(tmp);
	if (ret < 0)
		goto out;
	unlink(log);
	note("image: debootstrap %s from %s (this takes minutes; log '%s')...",
	     suite, mirror, log);
	{
		char *const argv[] = {
		    "debootstrap",	 "--variant=" DEBOOTSTRAP_VARIANT,
		    "--components=main", include,
		    (char *)suite,	 tmp,
		    (char *)mirror,	 NULL};

		ret = image_step_run("debootstrap", argv, log);
		if (ret < 0) {
			image_log_tail(log, 5);
			image_remove_tree(tmp);
			goto out;
		}
	}
	note("image: debootstrap done in %.0f s", mono_now() - t0);
	if (apt) {
		char *script = apt_script_new(apt);
		char *const argv[] = {"chroot", tmp, "sh", "-c", script, NULL};

		t0 = mono_now();
		note("image: apt-get install %s...", apt);
		ret = image_step_run("apt-get install", argv, log);
		free(script);
		if (ret < 0) {
			image_log_tail(log, 5);
			goto out;
		}
		note("image: apt-get install done in %.0f s", mono_now() - t0);
	}

	/* The kernel's postinst normally made it; make sure it exists. */
	if (glob(initrd_glob, 0, NULL, &gl) != 0) {
		char *const argv[] = {
		    "chroot", tmp, "update-initramfs", "-c", "-k", "all", NULL};

		note("image: update-initramfs in the root file system...");
		ret = image_step_run("update-initramfs", argv, log);
		if (ret < 0)
			goto out;
	} else {
		globfree(&gl);
	}
	{
		char *const argv[] = {"chroot", tmp, "apt-get", "clean", NULL};

		ret = image_step_run("apt-get clean", argv, log);
		if (ret < 0)
			goto out;
	}
	if (rename(tmp, rootfs) < 0) {
		ret =
		    err_errno("image: debootstrap: cannot rename '%s' to '%s'",
			      tmp, rootfs);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	free(log);
	free(include);
	free(initrd_glob);
	return ret;
}
