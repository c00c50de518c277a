/* SPDX-License-Identifier: MIT */
/* guest-remote.c - guests on a remote libvirt: the ssh side (guest-remote.h). */
#include "guest-remote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "thp.h"
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

#define PROBE_CMD                                                            \
	"echo thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled "       \
	"2>/dev/null); if test -c /dev/kvm && grep -qwE 'vmx|svm' "         \
	"/proc/cpuinfo; then echo kvm=yes; else echo kvm=no; fi; "          \
	"echo vendor=$(sed -n 's/^vendor_id[[:space:]]*: //p' "             \
	"/proc/cpuinfo | head -n 1); echo hostname=$(uname -n); echo "      \
	"cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null); echo "                \
	"memavail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"

int guest_remote_open(const char *uri, const char *config,
		      struct guest_remote **out)
{
	struct guest_remote *g = xcalloc(1, sizeof(*g));
	const char *env = getenv(ENV_REMOTE_STAGE_DIR);
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
	if (thp_parse_selected(buf, g->thp, sizeof(g->thp)) < 0)
		g->thp[0] = '\0'; /* unknown */
	answer(text, "kvm", buf, sizeof(buf));
	g->kvm = !strcmp(buf, "yes");
	answer(text, "vendor", g->vendor, sizeof(g->vendor));
	answer(text, "hostname", g->hostname, sizeof(g->hostname));
	answer(text, "cpus", buf, sizeof(buf));
	g->cpus = strtol(buf, NULL, 10);
	answer(text, "memavail_kb", buf, sizeof(buf));
	g->memavail = strtoull(buf, NULL, 10) * 1024;
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
	char *remote = NULL, *q = NULL, *cmd = NULL, *text = NULL;
	char line[256];
	uint64_t h;
	int fd = -1, ret;

	/* In blocks: a debian disk is gigabytes. */
	ret = hash_fnv1a_file(*path, &h);
	if (ret < 0) {
		ret = err_code(ret, "cannot read '%s'", *path);
		goto out;
	}
	remote = xasprintf("%s/%016llx-%s", g->stage, (unsigned long long)h,
			   base);
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
	free(remote);
	free(q);
	free(cmd);
	free(text);
	return ret;
}

/* This host's name as a file name's first word (GUEST_REMOTE_OVERLAYS). */
static void here_name(char *buf, size_t len)
{
	char name[256] = "";
	size_t i, o = 0;

	gethostname(name, sizeof(name) - 1);
	for (i = 0; name[i] && o + 1 < len; i++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789.", name[i]))
			buf[o++] = name[i];
	buf[o] = '\0';
	if (!o)
		snprintf(buf, len, "host");
}

/*
 * Remove this host's overlays in DIR on HOST whose vmtax is gone (killed:
 * its PID no longer runs here).  Best effort.
 */
static void overlays_sweep(struct guest_remote *g, const char *dir)
{
	char here[128], *q = sh_quote_new(dir), *cmd, *text = NULL, *p;
	char *out = NULL;
	size_t hl;

	here_name(here, sizeof(here));
	hl = strlen(here);
	cmd = xasprintf("ls -1 %s", q);
	remote_run(g, cmd, -1, &text);
	free(cmd);
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strcspn(p, "\n");
		char *end, *name, *path, *qp;
		long pid;

		if (n <= hl + 1 || strncmp(p, here, hl) || p[hl] != '-')
			continue;
		pid = strtol(p + hl + 1, &end, 10);
		if (pid <= 0 || *end != '-' || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		name = xstrndup(p, n);
		if (strchr(name, '/')) {
			free(name);
			continue;
		}
		path = xasprintf("%s/%s", dir, name);
		qp = sh_quote_new(path);
		cmd = xasprintf("rm -f %s", qp);
		remote_run(g, cmd, -1, &out);
		free(out);
		out = NULL;
		free(cmd);
		free(qp);
		free(path);
		free(name);
	}
	free(text);
	free(q);
}

int guest_remote_stage(struct guest_remote *g, struct guest_files *f)
{
	char *q = sh_quote_new(g->stage), *cmd, *text = NULL, line[256];
	int ret;

	cmd = xasprintf("umask 022 && mkdir -p %s/console %s/"
			GUEST_REMOTE_OVERLAYS,
			q, q);
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
	ret = stage_one(g, &f->kernel);
	if (ret == 0)
		ret = stage_one(g, &f->initrd);
	if (ret < 0 || !f->disk)
		return ret;
	/* A disk image: its overlays are made there, one a guest. */
	ret = stage_one(g, &f->disk);
	if (ret < 0)
		return ret;
	free(f->overlay_dir);
	f->overlay_dir = xasprintf("%s/" GUEST_REMOTE_OVERLAYS, g->stage);
	overlays_sweep(g, f->overlay_dir);
	return 0;
}

int guest_remote_overlay(struct guest_remote *g, const struct guest_files *f,
			 const char *tag, char **path)
{
	char here[128], *qd, *qp, *cmd, *text = NULL, line[256];
	int ret;

	here_name(here, sizeof(here));
	*path = xasprintf("%s/%s-%d-%s.qcow2", f->overlay_dir, here,
			  (int)getpid(), tag);
	qd = sh_quote_new(f->disk);
	qp = sh_quote_new(*path);
	cmd = xasprintf("qemu-img create -q -f qcow2 -F qcow2 -b %s %s", qd,
			qp);
	ret = remote_run(g, cmd, -1, &text);
	if (ret < 0) {
		last_line(text, line, sizeof(line));
		ret = err_code(-EIO, "cannot make the overlay '%s' on '%s': %s",
			       *path, g->dest, line);
	}
	free(text);
	free(cmd);
	free(qp);
	free(qd);
	return ret;
}

void guest_remote_remove(struct guest_remote *g, const char *path)
{
	char *q = sh_quote_new(path), *cmd = xasprintf("rm -f %s", q);
	char *text = NULL;

	if (remote_run(g, cmd, -1, &text) < 0)
		warn("cannot remove '%s' on '%s'", path, g->dest);
	free(text);
	free(cmd);
	free(q);
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
