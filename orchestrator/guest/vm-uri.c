/* SPDX-License-Identifier: MIT */
/*
 * vm-uri.c - which libvirt URIs vmtax opens (vm.h, vm_uri_check();
 * docs/security.md, "libvirt URIs").  Pure: no libvirt here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "util.h"
#include "vm.h"

/* Transports after "DRIVER+": why each but unix and ssh is refused. */
static const struct {
	const char *name;
	const char *why; /* NULL: accepted */
} uri_transports[] = {
	{ "unix", NULL },
	{ "ssh", NULL }, /* the user's ssh: vm_uri_check_remote() */
	{ "ext", "transport 'ext' makes libvirt run an external command "
		 "(as root, here)" },
	{ "libssh", "transport 'libssh' is libvirt's own ssh client, which "
		    "reads neither your ssh config nor its known_hosts rules: "
		    "use qemu+ssh://USER@HOST/system" },
	{ "libssh2", "transport 'libssh2' is libvirt's own ssh client, which "
		     "reads neither your ssh config nor its known_hosts rules: "
		     "use qemu+ssh://USER@HOST/system" },
	{ "tcp", "transport 'tcp' is unencrypted and unauthenticated: use "
		 "qemu+ssh://USER@HOST/system" },
	{ "tls", "transport 'tls' needs libvirt's own certificates, which "
		 "vmtax does not check: use qemu+ssh://USER@HOST/system" },
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
	{ "no_verify", "turns off libvirt's host and certificate checks" },
	{ "sshauth", "chooses how libvirt's own ssh client logs in" },
};

/* DRIVER:///PATH that vmtax opens. */
static const struct {
	const char *driver, *path;
} uri_local[] = {
	{ "qemu", "/system" },
	{ "qemu", "/session" },
	{ "test", "/default" },
};

#define URI_NAME_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

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

/* A query or a fragment after PATH: refused, with its reason; 0: none. */
static int uri_check_tail(const char *path, char *why, size_t len)
{
	const char *q = strpbrk(path, "?#");

	if (!q)
		return 0;
	if (*q == '#')
		return why_set(why, len, "a fragment ('%s')", q);
	return uri_check_query(q + 1, why, len);
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

/* A user or host name of an ssh URI: [A-Za-z0-9._-], not starting with
 * '-' (ssh would take it as an option). */
static int uri_check_name(const char *what, const char *s, size_t n,
			  size_t max, char *why, size_t len)
{
	size_t i;

	if (!n)
		return why_set(why, len,
			       "no %s: a remote libvirt is "
			       "qemu+ssh://USER@HOST[:PORT]/system",
			       what);
	if (n > max)
		return why_set(why, len, "%s longer than %zu characters", what,
			       max);
	if (s[0] == '-')
		return why_set(why, len,
			       "%s '%.*s' starts with '-' (ssh would take it "
			       "as an option)",
			       what, (int)n, s);
	for (i = 0; i < n; i++)
		if (!strchr(URI_NAME_CHARS, s[i]) || !s[i])
			return why_set(why, len,
				       "%s '%.*s' has '%c', which is not one "
				       "of [A-Za-z0-9._-] (an IPv6 address or "
				       "ssh options belong in your ssh config, "
				       "under a Host alias)",
				       what, (int)n, s, s[i]);
	return 0;
}

/* The authority of a qemu+ssh URI (N bytes at A): USER@HOST[:PORT]. */
static int uri_check_authority(const char *a, size_t n,
			       struct vm_uri_dest *d, char *why, size_t len)
{
	const char *at = memchr(a, '@', n), *host, *colon;
	size_t hn;
	int ret;

	memset(d, 0, sizeof(*d));
	if (!at)
		return why_set(why, len,
			       "names no user ('%.*s'): write "
			       "qemu+ssh://USER@HOST[:PORT]/system",
			       (int)n, a);
	ret = uri_check_name("user", a, (size_t)(at - a), VM_URI_USER_MAX,
			     why, len);
	if (ret)
		return ret;
	host = at + 1;
	hn = n - (size_t)(host - a);
	/* "[::1]" is an IPv6 literal, not a port: refused whole below */
	colon = memchr(host, '[', hn) ? NULL : memchr(host, ':', hn);
	ret = uri_check_name("host", host,
			     colon ? (size_t)(colon - host) : hn,
			     VM_URI_HOST_MAX, why, len);
	if (ret)
		return ret;
	if (colon) {
		const char *p = colon + 1;
		size_t pn = hn - (size_t)(p - host), i;
		unsigned long port = 0;

		for (i = 0; i < pn && i < 6; i++) {
			if (p[i] < '0' || p[i] > '9')
				break;
			port = port * 10 + (unsigned long)(p[i] - '0');
		}
		if (!pn || i != pn || port < 1 || port > 65535)
			return why_set(why, len,
				       "port '%.*s' is not a number from 1 to "
				       "65535",
				       (int)pn, p);
		d->port = (unsigned)port;
		hn = (size_t)(colon - host);
	}
	snprintf(d->user, sizeof(d->user), "%.*s", (int)(at - a), a);
	snprintf(d->host, sizeof(d->host), "%.*s", (int)hn, host);
	return 0;
}

/*
 * A URI with a host (REST, after "://"; PATH its '/', or NULL): only
 * qemu+ssh://USER@HOST[:PORT]/system, no query, into D.
 */
static int uri_check_remote(const char *driver, bool ssh, const char *rest,
			    const char *path, struct vm_uri_dest *d,
			    char *why, size_t len)
{
	size_t n = path ? (size_t)(path - rest) : strlen(rest);
	int ret;

	if (!ssh)
		return why_set(why, len,
			       "names a host ('%.*s') without the ssh "
			       "transport: only this host's libvirtd, or "
			       "qemu+ssh://USER@HOST[:PORT]/system",
			       (int)n, rest);
	ret = uri_check_authority(rest, n, d, why, len);
	if (ret)
		return ret;
	if (strcmp(driver, "qemu"))
		return why_set(why, len,
			       "driver '%s' over ssh: only qemu+ssh is "
			       "supported",
			       driver);
	if (!path)
		return why_set(why, len,
			       "no path: write "
			       "qemu+ssh://USER@HOST[:PORT]/system");
	ret = uri_check_tail(path, why, len);
	if (ret)
		return ret;
	if (!strcmp(path, "/session"))
		return why_set(why, len,
			       "a remote '/session' is the ssh user's own "
			       "libvirtd, which vmtax does not drive: use "
			       "/system");
	if (strcmp(path, "/system"))
		return why_set(why, len,
			       "path '%s' over ssh: only /system is "
			       "supported",
			       path);
	return 0;
}

/* vm_uri_check(), and the remote's parts into D (zeroed: local). */
static int uri_check(const char *uri, struct vm_uri_dest *d, char *why,
		     size_t len)
{
	const char *sep, *plus, *rest, *path;
	char driver[32];
	bool ssh = false;
	size_t i, n, dn;
	int ret;

	memset(d, 0, sizeof(*d));
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
		ssh = !strncmp(plus + 1, "ssh", 3) && plus + 4 == sep;
	}
	rest = sep + 3;
	path = strchr(rest, '/');
	if (path != rest)
		return uri_check_remote(driver, ssh, rest, path, d, why, len);
	if (ssh)
		return why_set(why, len,
			       "the ssh transport with no host: write "
			       "qemu+ssh://USER@HOST[:PORT]/system");
	ret = uri_check_tail(path, why, len);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(uri_local); i++)
		if (!strcmp(driver, uri_local[i].driver) &&
		    !strcmp(path, uri_local[i].path))
			return 0;
	return why_set(why, len,
		       "'%s' is not a local libvirt (qemu:///system, "
		       "qemu:///session, qemu+unix:///system, "
		       "test:///default) nor qemu+ssh://USER@HOST/system",
		       uri);
}

int vm_uri_check(const char *uri, char *why, size_t len)
{
	struct vm_uri_dest d;

	return uri_check(uri, &d, why, len);
}

bool vm_uri_remote(const char *uri, struct vm_uri_dest *d)
{
	struct vm_uri_dest own;
	char why[256];

	if (!d)
		d = &own;
	memset(d, 0, sizeof(*d));
	return uri && uri_check(uri, d, why, sizeof(why)) == 0 && d->host[0];
}
