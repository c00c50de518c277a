/* SPDX-License-Identifier: MIT */
/*
 * lab-up.c - 'vmtax lab up': a lab host kept up, reached over ssh on a
 * port of 127.0.0.1 only, until a signal takes it down (docs/lab.md, "A lab
 * on 127.0.0.1").  A test's second host for the fleet (docs/fleet.md).
 *
 * The lab boots on a fresh overlay of the lab image (swept if this vmtax is
 * killed) with a NIC on QEMU's user network whose one way in is
 * 127.0.0.1:PORT (domxml.c); this vmtax goes in as GUEST_LAB_VMTAX, on the
 * lab's PATH; the key given is root's only authorized key; the lab makes its
 * own ssh host keys and starts sshd (root by key only, the image's
 * sshd_config); its ed25519 key is written to DIR/known_hosts as
 * "[127.0.0.1]:PORT KEY" once the lab is ready.  The domain is a transient
 * AUTODESTROY one named vmtax-lab-PID-up: it dies with this process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "guest-files.h"
#include "lab-session.h"
#include "run-config.h"
#include "stop-signals.h"
#include "util.h"

#define LAB_UP_KEY_MAX 4096 /* an authorized key file, at most */
#define LAB_UP_POLL_S 1.0

struct lab_up_args {
	const char *dir;
	const char *port;
	const char *key;
	struct opt_strings sets;
	unsigned ssh_port;
	char *key_text;
	char *dir_abs; /* dir, made absolute */
};

static const struct opt lab_up_opts[] = {
    {0, "dir", OPT_STRING, offsetof(struct lab_up_args, dir), NULL, "DIR",
     "the lab's logs (console.log, agent.log) and, once it is\n"
     "ready, its known_hosts line (made if missing)",
     NULL},
    {0, "ssh-port", OPT_STRING, offsetof(struct lab_up_args, port), NULL,
     "PORT", "127.0.0.1:PORT on this host is the lab's port 22", NULL},
    {0, "authorized-key", OPT_STRING, offsetof(struct lab_up_args, key), NULL,
     "FILE", "a public key file: root's one authorized key there", NULL},
    {0, "set", OPT_STRINGS, offsetof(struct lab_up_args, sets), NULL,
     "SECTION.KEY=VALUE", "as 'vmtax run --set' ([lab] vcpus, memory, ...)",
     NULL},
    OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax lab up CONFIG --dir DIR --ssh-port PORT "
		"--authorized-key FILE [--set SECTION.KEY=VALUE]...\n"
		"\n"
		"Boots a lab host (CONFIG's [lab] keys) with sshd reached only\n"
		"through 127.0.0.1:PORT on this host, and keeps it up until\n"
		"SIGINT, SIGTERM or SIGHUP (then the lab is destroyed) or until\n"
		"it dies.  Root logs in there with the key given, by key only;\n"
		"this vmtax is 'vmtax' on its PATH.  When it is ready the lab's\n"
		"host key is in DIR/known_hosts (docs/lab.md).\n"
		"\n");
	opts_help(f, lab_up_opts, 2, 30);
}

/* The authorized key: one line "TYPE BASE64 [COMMENT]" of printable ASCII. */
static int key_read(struct lab_up_args *a)
{
	size_t len, i;
	int ret = read_file(a->key, LAB_UP_KEY_MAX, &a->key_text, &len);

	if (ret < 0)
		return err_code(ret, "lab up: cannot read '%s'", a->key);
	while (len && a->key_text[len - 1] == '\n')
		a->key_text[--len] = '\0';
	for (i = 0; i < len; i++)
		if (a->key_text[i] < ' ' || a->key_text[i] > '~')
			return err("lab up: '%s' is not one public key line",
				   a->key);
	if (strncmp(a->key_text, "ssh-", 4) && strncmp(a->key_text, "ecdsa-", 6))
		return err("lab up: '%s' is not an ssh public key (ssh-... or "
			   "ecdsa-...)",
			   a->key);
	return 0;
}

static int args_check(struct lab_up_args *a)
{
	char *end;
	unsigned long p;

	if (!a->dir || !a->port || !a->key)
		return err("lab up: --dir, --ssh-port and --authorized-key "
			   "are needed");
	errno = 0;
	p = strtoul(a->port, &end, 10);
	if (errno || end == a->port || *end || p < VM_SSH_PORT_MIN ||
	    p > 65535)
		return err("lab up: --ssh-port '%s': want a port in [%d, "
			   "65535]",
			   a->port, VM_SSH_PORT_MIN);
	a->ssh_port = (unsigned)p;
	if (mkdir_parents(a->dir, 0755) < 0)
		return err_errno("lab up: cannot make '%s'", a->dir);
	/* libvirt opens the console log: an absolute path */
	a->dir_abs = realpath(a->dir, NULL);
	if (!a->dir_abs)
		return err_errno("lab up: cannot resolve '%s'", a->dir);
	a->dir = a->dir_abs;
	return key_read(a);
}

/*
 * Inside the lab, before root's key goes in: the NIC at VM_USERNET_GUEST,
 * vmtax on PATH, root's .ssh, the lab's own host keys.
 */
static const char lab_up_prepare[] =
    "set -e\n"
    "modprobe virtio_net 2>/dev/null || true\n"
    "n=0; dev=\n"
    "while [ -z \"$dev\" ]; do\n"
    "  dev=$(ls /sys/class/net | grep -vx lo | head -n 1)\n"
    "  [ -n \"$dev\" ] && break\n"
    "  n=$((n+1)); [ $n -lt 30 ] || { echo 'no network interface'; exit 1; }\n"
    "  sleep 1\n"
    "done\n"
    "ip link set lo up\n"
    "ip addr add " VM_USERNET_GUEST "/" VM_USERNET_PREFIX " dev \"$dev\"\n"
    "ip link set \"$dev\" up\n"
    "ln -sf " GUEST_LAB_VMTAX " /usr/local/bin/vmtax\n"
    "mkdir -p -m 0700 /root/.ssh\n"
    "rm -f /etc/ssh/ssh_host_*\n"
    "ssh-keygen -A >/dev/null\n"
    "mkdir -p -m 0755 /run/sshd\n";

static const char lab_up_sshd[] =
    "set -e\n"
    "/usr/sbin/sshd -t\n"
    "/usr/sbin/sshd -E /var/log/vmtax-sshd.log </dev/null >/dev/null 2>&1\n"
    "cat /etc/ssh/ssh_host_ed25519_key.pub\n";

/* KEYOUT's "ssh-ed25519 BASE64" line (untrusted: the lab's), or NULL. */
static char *host_key_new(const char *out)
{
	const char *p = strstr(out, "ssh-ed25519 "), *b;
	size_t n;

	if (!p)
		return NULL;
	b = p + strlen("ssh-ed25519 ");
	n = strspn(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789+/=");
	if (n < 16 || n > 256)
		return NULL;
	return xstrndup(p, (size_t)(b - p) + n);
}

/* The lab's sshd up, root's key in; DIR/known_hosts written. */
static int lab_up_ssh(struct lab *l, const struct lab_up_args *a)
{
	char *out = NULL, *key = NULL, *line = NULL, *path, why[512];
	int ret;

	ret = lab_sh(l, "preparing sshd", lab_up_prepare, 120, &out);
	if (ret > 0)
		ret = err("lab up: preparing sshd failed (%d): %s", ret, out);
	free(out);
	out = NULL;
	if (ret == 0 &&
	    agent_put_file(&l->life.a, "/root/.ssh/authorized_keys",
			   a->key_text, strlen(a->key_text), 0600, why,
			   sizeof(why)) < 0)
		ret = err("lab up: cannot put root's key: %s", why);
	if (ret == 0)
		ret = lab_sh(l, "starting sshd", lab_up_sshd, 60, &out);
	if (ret > 0)
		ret = err("lab up: sshd did not start (%d): %s", ret, out);
	if (ret == 0 && !(key = host_key_new(out)))
		ret = err("lab up: no ed25519 host key from the lab");
	if (ret < 0)
		goto out;
	path = xasprintf("%s/known_hosts", a->dir);
	line = xasprintf("[127.0.0.1]:%u %s\n", a->ssh_port, key);
	ret = write_file_atomic(path, line, strlen(line));
	free(path);
out:
	free(out);
	free(key);
	free(line);
	return ret;
}

/* Boot the lab on the overlay DISK to libvirtd ready inside. */
static int lab_up_boot(struct lab *l, const struct lab_up_args *a,
		       const char *disk)
{
	char name[64], *console = xasprintf("%s/console.log", a->dir), why[512];
	struct vm_spec spec;
	json_t *hello = NULL;
	double t0 = mono_now();
	int ret;

	snprintf(name, sizeof(name), "vmtax-lab-%d-up", (int)getpid());
	lab_spec_fill(l, &spec, name, disk, console);
	spec.ssh_port = a->ssh_port;
	note("lab up: booting %s: TCG, %ld vCPUs, %.1f GiB, ssh on "
	     "127.0.0.1:%u",
	     name, l->cfg->lab_vcpus, (double)l->cfg->lab_memory / (1 << 30),
	     a->ssh_port);
	ret = vm_life_boot(&l->life, l->conn, &spec, l->alog, 0);
	if (ret == 0 && vm_life_hello(&l->life, LAB_BOOT_TIMEOUT_S, &hello,
				      why, sizeof(why)) < 0)
		ret = err("lab up: no hello from the lab's agent: %s; "
			  "console: %s",
			  why, console);
	json_decref(hello);
	if (ret == 0)
		ret = lab_wait_libvirtd(l, console);
	if (ret == 0)
		note("lab up: ready %.0f s after its start", mono_now() - t0);
	free(console);
	return ret;
}

/* Until a stop signal, or the lab stops on its own (-EPIPE). */
static int lab_up_wait(struct lab *l)
{
	volatile sig_atomic_t *stop = stop_signals_flag();

	while (!*stop) {
		if (!vm_running(l->life.vm))
			return err("lab up: the lab stopped: %s",
				   vm_stop_reason(l->life.vm));
		usleep((useconds_t)(LAB_UP_POLL_S * 1e6));
	}
	note("lab up: stopping the lab");
	return 0;
}

/* The lab of A from config C: up, its sshd, kept until told. */
static int lab_up_run(struct lab *l, const struct lab_up_args *a)
{
	char *disk = NULL, *tag = xasprintf("labup-%u", a->ssh_port);
	char *alog = xasprintf("%s/agent.log", a->dir);
	int ret;

	ret = lab_image(l);
	if (ret == 0)
		ret = guest_overlay_create(&l->gf, tag, &disk);
	if (ret == 0) {
		l->alog = fopen(alog, "w");
		ret = vm_conn_open(l->cfg->uri, &l->conn);
	}
	if (ret == 0)
		ret = lab_up_boot(l, a, disk);
	if (ret == 0)
		ret = lab_put_vmtax(l);
	if (ret == 0)
		ret = lab_up_ssh(l, a);
	if (ret == 0) {
		printf("lab up: ready: ssh -p %u root@127.0.0.1 (host key in "
		       "%s/known_hosts)\n",
		       a->ssh_port, a->dir);
		fflush(stdout);
		ret = lab_up_wait(l);
	}
	/* destroyed at once: nothing of it is kept */
	l->life.agent_dead = true;
	vm_life_down(&l->life, 0, 0, NULL);
	if (l->conn)
		vm_conn_close(l->conn);
	if (disk)
		unlink(disk);
	if (l->alog)
		fclose(l->alog);
	free(disk);
	free(tag);
	free(alog);
	return ret;
}

int cmd_lab_up(int argc, char **argv)
{
	struct lab_up_args a = {0};
	struct run_config cfg;
	struct lab l;
	int ret, first = opts_parse(lab_up_opts, usage, &a, argc, argv);

	if (first < 0)
		return opts_status(first);
	if (first != argc - 1) {
		free(a.sets.v);
		return opts_usage_error(usage);
	}
	memset(&cfg, 0, sizeof(cfg));
	memset(&l, 0, sizeof(l));
	ret = args_check(&a);
	if (ret == 0)
		ret = run_config_load(argv[first], a.sets.v, a.sets.n, &cfg);
	if (ret == 0 && guest_bindir_find(l.bindir, sizeof(l.bindir)) < 0)
		ret = -ENOENT;
	if (ret == 0) {
		l.cfg = &cfg;
		l.config_path = realpath(argv[first], NULL);
		l.ready_s = -1;
		stop_signals_take("vmtax: second signal: the lab is destroyed "
				  "with this process\n",
				  true);
		ret = lab_up_run(&l, &a);
	}
	guest_files_release(&l.gf);
	free(l.config_path);
	run_config_release(&cfg);
	free(a.sets.v);
	free(a.key_text);
	free(a.dir_abs);
	return ret < 0 ? 1 : 0;
}
