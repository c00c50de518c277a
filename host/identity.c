/* SPDX-License-Identifier: MIT */
/* What the host is, and its fingerprint; see identity.h. */
#include "identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cpuset.h"
#include "host.h"
#include "thp.h"
#include "util.h"

/* The kernel log is at most a few MiB (log_buf_len); this bounds it. */
#define KLOG_MAX (16u << 20)
#define CPUINFO_MAX (16u << 20)

void host_cpuid_read(struct host_cpuid *c)
{
	memset(c, 0, sizeof(*c));
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, cx, d;

	a = 1;
	cx = 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(cx), "=d"(d));
	c->known = true;
	c->hv_bit = (cx >> 31) & 1;
	if (!c->hv_bit)
		return;
	a = 0x40000000;
	cx = 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(cx), "=d"(d));
	memcpy(c->sig, &b, 4);
	memcpy(c->sig + 4, &cx, 4);
	memcpy(c->sig + 8, &d, 4);
	c->sig[12] = '\0';
	/* Signatures are padded with NULs ("KVMKVMKVM\0\0\0"); anything
	 * unprintable is not a name. */
	for (size_t i = 0; c->sig[i]; i++)
		if (c->sig[i] < 0x20 || c->sig[i] > 0x7e)
			c->sig[i] = '?';
#endif
}

static const struct {
	const char *sig, *name;
} cpuid_sigs[] = {
    {"KVMKVMKVM", "KVM"},	   {"Linux KVM Hv", "KVM"},
    {"Microsoft Hv", "Hyper-V"},   {"XenVMMXenVMM", "Xen"},
    {"VMwareVMware", "VMware"},	   {"TCGTCGTCGTCG", "QEMU TCG"},
    {"bhyve bhyve ", "bhyve"},	   {"VBoxVBoxVBox", "VirtualBox"},
    {" lrpepyh  vr", "Parallels"}, {"ACRNACRNACRN", "ACRN"},
    {"QNXQVMBSQG", "QNX"},
};

const char *host_cpuid_sig_name(const char *sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(cpuid_sigs); i++)
		if (!strcmp(sig, cpuid_sigs[i].sig))
			return cpuid_sigs[i].name;
	return NULL;
}

/* DMI strings that only a virtual platform shows. */
static const struct {
	bool product; /* match product_name, else sys_vendor */
	const char *word;
} dmi_virtual[] = {
    {false, "QEMU"},
    {false, "innotek GmbH"},
    {false, "Xen"},
    {false, "Parallels"},
    {false, "Bochs"},
    {true, "KVM"},
    {true, "VirtualBox"},
    {true, "VMware Virtual Platform"},
    {true, "Virtual Machine"},
    {true, "HVM domU"},
    {true, "BHYVE"},
    {true, "Standard PC ("},
};

static bool dmi_says_virtual(const struct host_ident *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(dmi_virtual); i++) {
		const char *s =
		    dmi_virtual[i].product ? id->dmi_product : id->dmi_vendor;

		if (*s && strstr(s, dmi_virtual[i].word))
			return true;
	}
	return false;
}

bool host_kernel_log_hypervisor(const char *text, char *out, size_t len)
{
	static const char mark[] = "Hypervisor detected: ";
	const char *p = strstr(text, mark), *end;

	if (!p)
		return false;
	p += sizeof(mark) - 1;
	end = strchrnul(p, '\n');
	snprintf(out, len, "%.*s", (int)(end - p), p);
	strstrip(out);
	return *out != '\0';
}

/*
 * The kernel log, from ROOT/dev/kmsg: one record per read() from the real
 * device (non-blocking: EAGAIN at its end, EPIPE for a record overwritten
 * meanwhile), a plain file in a fixture tree (0 at its end).
 */
static int read_kernel_log(const char *root, char **text)
{
	char *path = xasprintf("%s/dev/kmsg", root);
	size_t len = 0, cap = 1 << 16;
	char *buf = xmalloc(cap);
	int fd, ret = 0;

	*text = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(path);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 8192 + 1) {
			if (cap >= KLOG_MAX)
				break;
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;
		if (n < 0 && errno != EAGAIN)
			ret = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*text = buf;
	return ret;
}

static void kernel_says(const char *root, struct host_ident *id)
{
	char *log = NULL;
	int ret = read_kernel_log(root, &log);

	if (ret < 0)
		snprintf(id->kernel_why, sizeof(id->kernel_why),
			 "cannot read /dev/kmsg: %s", strerror(-ret));
	else if (!host_kernel_log_hypervisor(log, id->kernel_says,
					     sizeof(id->kernel_says)))
		snprintf(id->kernel_why, sizeof(id->kernel_why),
			 "no 'Hypervisor detected' line in the kernel log "
			 "(none printed, or rotated out)");
	free(log);
}

static void read_one(const char *root, const char *rel, char *buf, size_t len)
{
	char *path = xasprintf("%s%s", root, rel);

	if (read_line(path, buf, len) < 0)
		buf[0] = '\0';
	strstrip(buf);
	free(path);
}

/* The value of the first "KEY<blanks>: value" line of the block at P. */
static void block_value(const char *p, const char *end, const char *key,
			char *out, size_t len)
{
	char *block = xstrndup(p, (size_t)(end - p));

	host_cpuinfo_value(block, key, out, len);
	free(block);
}

/* Whether the pair (A, B) is among the N pairs of V; add it if not. */
static bool pair_new(long (*v)[2], size_t *n, long a, long b)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i][0] == a && v[i][1] == b)
			return false;
	v[*n][0] = a;
	v[(*n)++][1] = b;
	return true;
}

/* Sockets and cores: distinct physical ids and (physical, core) pairs. */
static void count_cores(const char *text, struct host_ident *id)
{
	size_t nblocks = 1, nsock = 0, ncore = 0;
	long(*sock)[2], (*core)[2];
	const char *p;

	for (p = text; (p = strstr(p, "\n\n")); p += 2)
		nblocks++;
	sock = xcalloc(nblocks, sizeof(*sock));
	core = xcalloc(nblocks, sizeof(*core));
	for (p = text; *p;) {
		const char *end = strstr(p, "\n\n");
		char phys[16], cid[16];

		end = end ? end + 2 : p + strlen(p);
		block_value(p, end, "physical id", phys, sizeof(phys));
		block_value(p, end, "core id", cid, sizeof(cid));
		if (*phys && *cid) {
			pair_new(sock, &nsock, atol(phys), 0);
			pair_new(core, &ncore, atol(phys), atol(cid));
		}
		p = end;
	}
	id->sockets = nsock ? (int)nsock : -1;
	id->cores = ncore ? (int)ncore : -1;
	free(sock);
	free(core);
}

static void read_cpuinfo(const char *root, struct host_ident *id)
{
	char *path = xasprintf("%s/proc/cpuinfo", root), *text = NULL;
	char fam[16], model[16], step[16];
	struct host_cpu c;

	id->cpu_flag = -1;
	id->sockets = id->cores = -1;
	if (read_file(path, CPUINFO_MAX, &text, NULL) < 0)
		goto out;
	/* Not host_cpu_read(): that reports, and this must not. */
	memset(&c, 0, sizeof(c));
	host_cpuinfo_value(text, "flags", c.flags, sizeof(c.flags));
	if (*c.flags)
		id->cpu_flag = host_cpu_has(&c, "hypervisor");
	host_cpuinfo_value(text, "vendor_id", c.vendor, sizeof(c.vendor));
	host_cpuinfo_value(text, "cpu family", fam, sizeof(fam));
	host_cpuinfo_value(text, "model", model, sizeof(model));
	host_cpuinfo_value(text, "stepping", step, sizeof(step));
	if (*c.vendor && *fam && *model)
		snprintf(id->cpu_id, sizeof(id->cpu_id),
			 "%s family %s model %s stepping %s", c.vendor, fam,
			 model, *step ? step : "?");
	host_cpuinfo_value(text, "microcode", id->microcode,
			   sizeof(id->microcode));
	count_cores(text, id);
out:
	free(text);
	free(path);
}

static void read_fingerprint(const char *root, struct host_ident *id)
{
	char line[1024], msg[64];
	struct cpuset nodes;

	read_one(root, "/proc/sys/kernel/version", id->kernel_build,
		 sizeof(id->kernel_build));
	read_one(root, THP_ENABLED_FILE, line,
		 sizeof(line));
	if (thp_parse_selected(line, id->thp_enabled, sizeof(id->thp_enabled)) <
	    0)
		id->thp_enabled[0] = '\0';
	read_one(root, THP_DEFRAG_FILE, line,
		 sizeof(line));
	if (thp_parse_selected(line, id->thp_defrag, sizeof(id->thp_defrag)) <
	    0)
		id->thp_defrag[0] = '\0';
	read_one(root, "/sys/devices/system/node/online", line, sizeof(line));
	id->numa_nodes = -1;
	if (*line && cpuset_parse(line, &nodes, msg, sizeof(msg)) == 0)
		id->numa_nodes = (int)cpuset_count(&nodes);
}

void host_ident_judge(struct host_ident *id)
{
	const char *sig = id->cpuid.hv_bit ? id->cpuid.sig : "";
	bool dmi = dmi_says_virtual(id);

	if ((id->cpuid.known && id->cpuid.hv_bit) || id->cpu_flag == 1 ||
	    *id->sys_hypervisor || *id->kernel_says || dmi)
		id->virt = HOST_VIRT_GUEST;
	else if (id->cpuid.known || id->cpu_flag == 0)
		id->virt = HOST_VIRT_PHYSICAL;
	else
		id->virt = HOST_VIRT_UNKNOWN;

	id->name[0] = '\0';
	if (id->virt != HOST_VIRT_GUEST)
		return;
	if (*id->kernel_says)
		snprintf(id->name, sizeof(id->name), "%s", id->kernel_says);
	else if (host_cpuid_sig_name(sig))
		snprintf(id->name, sizeof(id->name), "%s",
			 host_cpuid_sig_name(sig));
	else if (*id->sys_hypervisor)
		snprintf(id->name, sizeof(id->name), "%s", id->sys_hypervisor);
	else if (dmi)
		snprintf(id->name, sizeof(id->name), "%.63s", id->dmi_product);
}

void host_ident_read(const char *root, const struct host_cpuid *cpuid,
		     struct host_ident *id)
{
	if (!root)
		root = "";
	memset(id, 0, sizeof(*id));
	if (cpuid)
		id->cpuid = *cpuid;
	else
		host_cpuid_read(&id->cpuid);
	read_cpuinfo(root, id);
	read_one(root, "/sys/class/dmi/id/sys_vendor", id->dmi_vendor,
		 sizeof(id->dmi_vendor));
	read_one(root, "/sys/class/dmi/id/product_name", id->dmi_product,
		 sizeof(id->dmi_product));
	read_one(root, "/sys/hypervisor/type", id->sys_hypervisor,
		 sizeof(id->sys_hypervisor));
	kernel_says(root, id);
	read_fingerprint(root, id);
	host_ident_judge(id);
}

static json_t *str_or_null(const char *s)
{
	return *s ? json_string(s) : json_null();
}

static json_t *int_or_null(int n)
{
	return n >= 0 ? json_integer(n) : json_null();
}

static json_t *tri(bool known, bool v)
{
	return known ? json_boolean(v) : json_null();
}

void host_ident_json(const struct host_ident *id, json_t *host)
{
	json_t *hv = json_object(), *fp = json_object();

	json_object_set_new(
	    host, "virtualized",
	    tri(id->virt != HOST_VIRT_UNKNOWN, id->virt == HOST_VIRT_GUEST));
	json_object_set_new(hv, "name", str_or_null(id->name));
	json_object_set_new(hv, "cpuid_bit",
			    tri(id->cpuid.known, id->cpuid.hv_bit));
	json_object_set_new(hv, "cpuid", str_or_null(id->cpuid.sig));
	json_object_set_new(hv, "cpu_flag",
			    tri(id->cpu_flag >= 0, id->cpu_flag == 1));
	json_object_set_new(hv, "dmi_vendor", str_or_null(id->dmi_vendor));
	json_object_set_new(hv, "dmi_product", str_or_null(id->dmi_product));
	json_object_set_new(hv, "sys_hypervisor",
			    str_or_null(id->sys_hypervisor));
	json_object_set_new(hv, "kernel_says", str_or_null(id->kernel_says));
	if (!*id->kernel_says)
		json_object_set_new(hv, "kernel_says_why",
				    json_string(id->kernel_why));
	json_object_set_new(host, "hypervisor", hv);

	json_object_set_new(fp, "cpu_id", str_or_null(id->cpu_id));
	json_object_set_new(fp, "microcode", str_or_null(id->microcode));
	json_object_set_new(fp, "sockets", int_or_null(id->sockets));
	json_object_set_new(fp, "cores", int_or_null(id->cores));
	json_object_set_new(fp, "numa_nodes", int_or_null(id->numa_nodes));
	json_object_set_new(fp, "kernel_build", str_or_null(id->kernel_build));
	json_object_set_new(fp, "thp_enabled", str_or_null(id->thp_enabled));
	json_object_set_new(fp, "thp_defrag", str_or_null(id->thp_defrag));
	json_object_set_new(host, "fingerprint", fp);
}

void host_summary_json(json_t *host)
{
	struct host_cpu cpu;
	struct utsname u;
	char hn[256] = "";

	gethostname(hn, sizeof(hn) - 1);
	uname(&u);
	json_object_set_new(host, "hostname", json_string(hn));
	json_object_set_new(host, "kernel", json_string(u.release));
	if (host_cpu_read("", &cpu) == 0) {
		json_object_set_new(host, "cpu_vendor",
				    *cpu.vendor ? json_string(cpu.vendor)
						: json_null());
		json_object_set_new(host, "cpu_model", json_string(cpu.model));
	} else {
		json_object_set_new(host, "cpu_vendor", json_null());
		json_object_set_new(host, "cpu_model", json_null());
	}
	json_object_set_new(host, "cpus",
			    json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(host, "mem_bytes",
			    json_integer((json_int_t)sysconf(_SC_PHYS_PAGES) *
					 sysconf(_SC_PAGESIZE)));
}
