/* SPDX-License-Identifier: MIT */
/* guest-remote.c - guests on a remote libvirt: the ssh side (guest-remote.h). */
#include "guest-remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "untrusted.h"
#include "util.h"

/* ssh's (or scp's) argv to HOST: fleet-ssh.c's, with "-o Port=N" first. */
static char **remote_argv(const struct guest_remote *g, const char *cmd,
			  const char *from, const char *to, size_t *n)
{
	char **v = from ? fleet_scp_argv_new(&g->ssh, g->dest, from, to, n)
			: fleet_ssh_argv_new(&g->ssh, g->dest, cmd, n);

	if (g->d.port) {
		memmove(v + 3, v + 1, (*n - 1) * sizeof(*v));
		v[1] = xstrdup("-o");
		v[2] = xasprintf("Port=%u", g->d.port);
		*n += 2;
	}
	return v;
}

/* Run CMD on HOST, stdin from IN_FD: 0 with its output in *OUT (owned),
 * or -EIO with it (ssh's message) when it failed. */
static int remote_run(struct guest_remote *g, const char *cmd, int in_fd,
		      char **out)
{
	size_t n;
	char **v = remote_argv(g, cmd, NULL, NULL, &n);
	int status = -1, ret;

	*out = NULL;
	ret = fleet_run_capture(v, in_fd, GUEST_REMOTE_TIMEOUT_S, out, &status);
	strv_free(v, n);
	if (!*out)
		*out = xstrdup("");
	if (ret == 0 && status != 0)
		ret = -EIO;
	return ret;
}

/* The last line of TEXT, made safe to print, into BUF. */
static void last_line(const char *text, char *buf, size_t len)
{
	size_t n = strlen(text);
	const char *s;

	while (n && text[n - 1] == '\n')
		n--;
	for (s = text + n; s > text && s[-1] != '\n'; s--)
		;
	snprintf(buf, len, "%.*s", (int)(text + n - s), s);
	untrusted_scrub(buf, false);
}

/* VALUE of "KEY=VALUE" in TEXT, only [A-Za-z0-9._-] kept, into BUF. */
static void answer(const char *text, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key), o = 0;
	const char *p;

	buf[0] = '\0';
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, k) || p[k] != '=')
			continue;
		for (p += k + 1; *p && *p != '\n' && o + 1 < len; p++)
			if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				   "opqrstuvwxyz0123456789._-[] ", *p))
				buf[o++] = *p;
		buf[o] = '\0';
		return;
	}
}

/* "always [madvise] never" -> "madvise". */
static void thp_mode(const char *line, char *buf, size_t len)
{
	const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;

	snprintf(buf, len, "%.*s", a && b ? (int)(b - a - 1) : 0,
		 a ? a + 1 : "");
}

#define PROBE_CMD                                                            \
	"echo thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled "       \
	"2>/dev/null); if test -c /dev/kvm; then echo kvm=yes; else echo "  \
	"kvm=no; fi; echo vendor=$(sed -n 's/^vendor_id[[:space:]]*: //p' " \
	"/proc/cpuinfo | head -n 1); echo hostname=$(uname -n)"

int guest_remote_open(const char *uri, const char *config,
		      struct guest_remote **out)
{
	struct guest_remote *g = xcalloc(1, sizeof(*g));
	const char *env = getenv("VMTAX_REMOTE_STAGE_DIR");
	char *text = NULL, line[256], buf[128];
	int ret = -EINVAL;

	if (!vm_uri_remote(uri, &g->d))
		goto out;
	snprintf(g->dest, sizeof(g->dest), "%s@%s", g->d.user, g->d.host);
	g->stage = xstrdup(env && *env ? env : GUEST_REMOTE_STAGE_DIR);
	if (fleet_ssh_init(&g->ssh, GUEST_REMOTE_CONNECT_TIMEOUT_S, NULL) < 0)
		goto out;
	if (remote_run(g, PROBE_CMD, -1, &text) < 0) {
		last_line(text, line, sizeof(line));
		err_plain("%s: cannot reach '%s', the remote libvirt's host, "
			  "over ssh: %s",
			  config, g->dest, *line ? line : "no answer");
		goto out;
	}
	answer(text, "thp", buf, sizeof(buf));
	thp_mode(buf, g->thp, sizeof(g->thp));
	answer(text, "kvm", buf, sizeof(buf));
	g->kvm = !strcmp(buf, "yes");
	answer(text, "vendor", g->vendor, sizeof(g->vendor));
	answer(text, "hostname", g->hostname, sizeof(g->hostname));
	*out = g;
	g = NULL;
	ret = 0;
out:
	free(text);
	guest_remote_free(g);
	return ret;
}

void guest_remote_free(struct guest_remote *g)
{
	char *dests[1];

	if (!g)
		return;
	dests[0] = g->dest;
	fleet_ssh_release(&g->ssh, dests, *g->ssh.dir ? 1 : 0);
	free(g->stage);
	free(g);
}

/* Copy *PATH to HOST as STAGE/HASH-NAME (reused when there). */
static int stage_one(struct guest_remote *g, char **path)
{
	const char *base = path_base(*path);
	char *data = NULL, *remote = NULL, *q = NULL, *cmd = NULL, *text = NULL;
	char line[256];
	size_t len = 0;
	int fd = -1, ret;

	ret = read_file(*path, 1UL << 30, &data, &len);
	if (ret < 0) {
		ret = err_code(ret, "cannot read '%s'", *path);
		goto out;
	}
	remote = xasprintf("%s/%016llx-%s", g->stage,
			   (unsigned long long)hash_fnv1a(data, len), base);
	q = sh_quote_new(remote);
	cmd = xasprintf("test -s %s && echo vmtax-have", q);
	remote_run(g, cmd, -1, &text);
	if (strstr(text, "vmtax-have")) {
		g->reused++;
		goto done;
	}
	free(cmd);
	free(text);
	text = NULL;
	fd = open(*path, O_RDONLY | O_CLOEXEC);
	cmd = xasprintf("umask 022 && cat >%s.tmp.$$ && mv -f %s.tmp.$$ %s",
			q, q, q);
	if (fd < 0 || remote_run(g, cmd, fd, &text) < 0) {
		last_line(text ? text : "", line, sizeof(line));
		ret = err_code(-EIO, "cannot copy '%s' to '%s' on '%s': %s",
			       *path, remote, g->dest, line);
		goto out;
	}
	note("copied '%s' to '%s' on '%s'", *path, remote, g->dest);
	g->copied++;
done:
	free(*path);
	*path = remote;
	remote = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(data);
	free(remote);
	free(q);
	free(cmd);
	free(text);
	return ret;
}

int guest_remote_stage(struct guest_remote *g, struct guest_files *f)
{
	char *q = sh_quote_new(g->stage), *cmd, *text = NULL, line[256];
	int ret;

	cmd = xasprintf("umask 022 && mkdir -p %s/console", q);
	ret = remote_run(g, cmd, -1, &text);
	if (ret < 0) {
		last_line(text, line, sizeof(line));
		err("cannot make '%s/console' on '%s': %s", g->stage, g->dest,
		    line);
	}
	free(q);
	free(cmd);
	free(text);
	if (ret < 0)
		return ret;
	if (f->disk)
		return err_code(-EOPNOTSUPP,
				"'%s': a disk image is not copied to a remote "
				"libvirt",
				f->disk);
	ret = stage_one(g, &f->kernel);
	return ret < 0 ? ret : stage_one(g, &f->initrd);
}

char *guest_remote_console_new(const struct guest_remote *g, const char *name)
{
	return xasprintf("%s/console/%s.log", g->stage, name);
}

int guest_remote_fetch(struct guest_remote *g, const char *remote,
		       const char *local)
{
	size_t n;
	char **v = remote_argv(g, NULL, remote, local, &n);
	char *text = NULL, *q = NULL, *cmd = NULL, line[256];
	int status = -1, ret;

	ret = fleet_run_capture(v, -1, GUEST_REMOTE_TIMEOUT_S, &text, &status);
	strv_free(v, n);
	if (ret == 0 && status != 0) {
		last_line(text ? text : "", line, sizeof(line));
		warn("cannot bring the console '%s' back from '%s': %s", remote,
		     g->dest, line);
		ret = -EIO;
	}
	free(text);
	q = sh_quote_new(remote);
	cmd = xasprintf("rm -f %s", q);
	remote_run(g, cmd, -1, &text);
	free(text);
	free(cmd);
	free(q);
	return ret;
}
