/* SPDX-License-Identifier: MIT */
/*
 * vm-uri.c - which libvirt URIs vmtax opens (vm.h, vm_uri_check();
 * docs/security.md, "libvirt URIs").  Pure: no libvirt here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "vm.h"

/* Transports after "DRIVER+": why each but unix is refused. */
static const struct {
	const char *name;
	const char *why; /* NULL: accepted */
} uri_transports[] = {
	{ "unix", NULL },
	{ "ext", "transport 'ext' makes libvirt run an external command "
		 "(as root, here)" },
	{ "ssh", "transport 'ssh' reaches another host: remote libvirt is "
		 "not supported yet" },
	{ "libssh", "transport 'libssh' reaches another host: remote libvirt "
		    "is not supported yet" },
	{ "libssh2", "transport 'libssh2' reaches another host: remote "
		     "libvirt is not supported yet" },
	{ "tcp", "transport 'tcp' reaches another host: remote libvirt is not "
		 "supported yet" },
	{ "tls", "transport 'tls' reaches another host: remote libvirt is not "
		 "supported yet" },
};

/* Query parameters whose danger has a name; any other is refused too. */
static const struct {
	const char *name;
	const char *why;
} uri_params[] = {
	{ "command", "names a program for libvirt to run" },
	{ "socket", "points libvirt at another socket than its daemon's" },
	{ "netcat", "names a program to run on the far side" },
	{ "keyfile", "names a private key file for libvirt to read" },
	{ "proxy", "makes libvirt start a proxy program" },
	{ "mode", "selects another daemon than the system's" },
	{ "root", "starts an embedded driver rooted elsewhere" },
	{ "pkipath", "names a certificate directory for libvirt to read" },
	{ "known_hosts", "names a file for libvirt to read" },
};

/* DRIVER:///PATH that vmtax opens. */
static const struct {
	const char *driver, *path;
} uri_local[] = {
	{ "qemu", "/system" },
	{ "qemu", "/session" },
	{ "test", "/default" },
};

static int why_set(char *why, size_t len, const char *fmt, ...)
	VMTAX_PRINTF(3, 4);

static int why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The query part Q (after '?'): every parameter is refused. */
static int uri_check_query(const char *q, char *why, size_t len)
{
	char name[64];
	size_t n = strcspn(q, "=&;"), i;

	snprintf(name, sizeof(name), "%.*s", (int)(n < 63 ? n : 63), q);
	for (i = 0; i < ARRAY_SIZE(uri_params); i++)
		if (!strcmp(name, uri_params[i].name))
			return why_set(why, len, "parameter '%s=' %s", name,
				       uri_params[i].why);
	return why_set(why, len,
		       "parameter '%s=' is not accepted (vmtax takes no URI "
		       "parameters)",
		       name);
}

/* URI's characters: some, not too many, no space, control or escape. */
static int uri_check_chars(const char *uri, char *why, size_t len)
{
	size_t i;

	if (!*uri)
		return why_set(why, len, "an empty URI");
	if (strlen(uri) > VM_URI_MAX)
		return why_set(why, len, "longer than %d characters",
			       VM_URI_MAX);
	for (i = 0; uri[i]; i++)
		if ((unsigned char)uri[i] <= ' ' || uri[i] == 0x7f)
			return why_set(why, len,
				       "a space or control character");
	if (strchr(uri, '%'))
		return why_set(why, len,
			       "a '%%' escape (libvirt would decode it): "
			       "write the URI plainly");
	return 0;
}

/* The transport after DRIVER+ (TN bytes at T): known and local. */
static int uri_check_transport(const char *t, size_t tn, char *why,
			       size_t len)
{
	char transport[32];
	size_t i;

	snprintf(transport, sizeof(transport), "%.*s",
		 (int)(tn < 31 ? tn : 31), t);
	for (i = 0; i < ARRAY_SIZE(uri_transports); i++)
		if (!strcmp(transport, uri_transports[i].name))
			break;
	if (i == ARRAY_SIZE(uri_transports))
		return why_set(why, len, "unknown transport '%s'", transport);
	if (uri_transports[i].why)
		return why_set(why, len, "%s", uri_transports[i].why);
	return 0;
}

int vm_uri_check(const char *uri, char *why, size_t len)
{
	const char *sep, *plus, *rest, *path, *q;
	char driver[32];
	size_t i, n, dn;
	int ret;

	ret = uri_check_chars(uri, why, len);
	if (ret)
		return ret;
	sep = strstr(uri, "://");
	if (!sep)
		return why_set(why, len,
			       "not DRIVER:///PATH (e.g. qemu:///system)");
	n = (size_t)(sep - uri);
	plus = memchr(uri, '+', n);
	dn = plus ? (size_t)(plus - uri) : n;
	snprintf(driver, sizeof(driver), "%.*s", (int)(dn < 31 ? dn : 31),
		 uri);
	if (plus) {
		ret = uri_check_transport(
		    plus + 1, n - (size_t)(plus + 1 - uri), why, len);
		if (ret)
			return ret;
	}
	rest = sep + 3;
	path = strchr(rest, '/');
	if (path != rest)
		return why_set(why, len,
			       "names a host ('%.*s'): only this host's "
			       "libvirtd is supported",
			       (int)(path ? (size_t)(path - rest)
					  : strlen(rest)),
			       rest);
	q = strpbrk(path, "?#");
	if (q && *q == '#')
		return why_set(why, len, "a fragment ('%s')", q);
	if (q)
		return uri_check_query(q + 1, why, len);
	for (i = 0; i < ARRAY_SIZE(uri_local); i++)
		if (!strcmp(driver, uri_local[i].driver) &&
		    !strcmp(path, uri_local[i].path))
			return 0;
	return why_set(why, len,
		       "'%s' is not a local libvirt (qemu:///system, "
		       "qemu:///session, qemu+unix:///system, "
		       "test:///default)",
		       uri);
}
