/* SPDX-License-Identifier: MIT */
/* Domain XML, built with libxml2's writer: no string pasting, all escaped. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <libxml/parser.h>
#include <libxml/xmlwriter.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"
#include "vm.h"

/* xmlTextWriter calls return < 0 on error; chain them through W(). */
#define W(call)                                                               \
	do {                                                                  \
		if ((call) < 0)                                               \
			goto out;                                             \
	} while (0)

static int elem_text(xmlTextWriterPtr w, const char *name, const char *text)
{
	return xmlTextWriterWriteElement(w, BAD_CAST name, BAD_CAST text);
}

static int attr(xmlTextWriterPtr w, const char *name, const char *value)
{
	return xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST value);
}

static int start(xmlTextWriterPtr w, const char *name)
{
	return xmlTextWriterStartElement(w, BAD_CAST name);
}

static int end(xmlTextWriterPtr w)
{
	return xmlTextWriterEndElement(w);
}

/* Whether FEATURES is a list of +name / -name with CPU feature names. */
bool vm_cpu_features_valid(const char *features)
{
	const char *p = features;

	while (*p) {
		size_t n;

		p += strspn(p, " ,");
		if (!*p)
			break;
		if (*p != '+' && *p != '-')
			return false;
		p++;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_.-");
		if (!n || (p[n] && !strchr(" ,", p[n])))
			return false;
		p += n;
	}
	return true;
}

/*
 * <cpu>: the host's CPU under KVM (as in the seed's setup), QEMU's default
 * under TCG unless features are asked for; then the features.
 */
static int cpu_elem(xmlTextWriterPtr w, const struct vm_spec *s)
{
	const char *p = s->cpu_features ? s->cpu_features : "";
	bool kvm = !strcmp(s->type, "kvm");
	char name[64];

	if (!kvm && !p[strspn(p, " ,")] && !s->cpu_model)
		return 0;
	if (start(w, "cpu") < 0)
		return -1;
	if (kvm) {
		if (attr(w, "mode", "host-passthrough") < 0)
			return -1;
	} else if (attr(w, "mode", "custom") < 0 ||
		   attr(w, "match", "exact") < 0 || start(w, "model") < 0 ||
		   attr(w, "fallback", "forbid") < 0 ||
		   xmlTextWriterWriteString(
			  w, BAD_CAST(s->cpu_model ? s->cpu_model
						   : "qemu64")) < 0 ||
		   end(w) < 0) {
		return -1;
	}
	while (*(p += strspn(p, " ,"))) {
		size_t n = strcspn(p + 1, " ,");

		snprintf(name, sizeof(name), "%.*s", (int)n, p + 1);
		if (start(w, "feature") < 0 ||
		    attr(w, "policy", *p == '+' ? "require" : "disable") < 0 ||
		    attr(w, "name", name) < 0 || end(w) < 0)
			return -1;
		p += n + 1;
	}
	return end(w);
}

/* <cputune>: one vcpupin per vCPU and an emulatorpin, when pinned. */
static int cputune_elem(xmlTextWriterPtr w, const struct pin_plan *p)
{
	char num[16];
	unsigned i;

	if (!p || !p->pinned)
		return 0;
	if (start(w, "cputune") < 0)
		return -1;
	for (i = 0; i < p->nvcpus; i++) {
		if (start(w, "vcpupin") < 0)
			return -1;
		snprintf(num, sizeof(num), "%u", i);
		if (attr(w, "vcpu", num) < 0)
			return -1;
		snprintf(num, sizeof(num), "%d", p->vcpu_cpu[i]);
		if (attr(w, "cpuset", num) < 0 || end(w) < 0)
			return -1;
	}
	snprintf(num, sizeof(num), "%d", p->emulator_cpu);
	if (start(w, "emulatorpin") < 0 || attr(w, "cpuset", num) < 0 ||
	    end(w) < 0)
		return -1;
	return end(w);
}

/*
 * S checked before any XML: a safe name, a known type, CPU model and
 * features, the pin plan's vCPUs; the huge page size of its backing into
 * *PAGE_KIB (NULL for thp or none).  -1 once reported.
 */
static int domain_check(const struct vm_spec *s, const char **page_kib)
{
	*page_kib = NULL;
	if (!is_safe_name(s->name))
		return err("unsafe domain name '%s'", s->name);
	if (strcmp(s->type, "kvm") && strcmp(s->type, "qemu"))
		return err("unknown domain type '%s'", s->type);
	if (s->cpu_features && !vm_cpu_features_valid(s->cpu_features))
		return err("bad CPU features '%s' (want +name or -name, e.g. "
			   "+pdpe1gb)",
			   s->cpu_features);
	if (s->cpu_model && !is_safe_name(s->cpu_model))
		return err("bad CPU model '%s'", s->cpu_model);
	if (s->ssh_port && (s->ssh_port < VM_SSH_PORT_MIN ||
			    s->ssh_port > 65535))
		return err("ssh port %u out of range [%d, 65535]",
			   s->ssh_port, VM_SSH_PORT_MIN);
	if (s->pin && s->pin->pinned && s->pin->nvcpus != s->vcpus)
		return err("a pin plan for %u vCPUs given to a guest with %u",
			   s->pin->nvcpus, s->vcpus);
	if ((s->numa_cpus && !s->numa_node) ||
	    (s->numa_node &&
	     (!*s->numa_node || strspn(s->numa_node, "0123456789") !=
				    strlen(s->numa_node))) ||
	    (s->numa_cpus &&
	     (!*s->numa_cpus || strspn(s->numa_cpus, "0123456789,-") !=
				    strlen(s->numa_cpus))))
		return err("bad NUMA binding: node '%s', CPUs '%s'",
			   s->numa_node ? s->numa_node : "(none)",
			   s->numa_cpus ? s->numa_cpus : "(none)");
	if (s->backing && !strcmp(s->backing, "hugetlb-2M"))
		*page_kib = "2048";
	else if (s->backing && !strcmp(s->backing, "hugetlb-1G"))
		*page_kib = "1048576";
	else if (s->backing && strcmp(s->backing, "thp"))
		return err("unknown memory backing '%s'", s->backing);
	return 0;
}

/*
 * <memory>, <vcpu> (with the NUMA node's CPUs), <cputune>, <numatune> and,
 * for huge pages, <memoryBacking>.
 */
static int memory_elems(xmlTextWriterPtr w, const struct vm_spec *s,
			const char *page_kib)
{
	char num[32];
	int ret = -1;

	W(start(w, "memory"));
	W(attr(w, "unit", "KiB"));
	snprintf(num, sizeof(num), "%llu", s->memory_bytes / 1024);
	W(xmlTextWriterWriteString(w, BAD_CAST num));
	W(end(w));
	snprintf(num, sizeof(num), "%u", s->vcpus);
	if (s->numa_cpus) {
		W(start(w, "vcpu"));
		W(attr(w, "placement", "static"));
		W(attr(w, "cpuset", s->numa_cpus));
		W(xmlTextWriterWriteString(w, BAD_CAST num));
		W(end(w));
	} else {
		W(elem_text(w, "vcpu", num));
	}
	W(cputune_elem(w, s->pin));
	if (s->numa_node) {
		W(start(w, "numatune"));
		W(start(w, "memory"));
		W(attr(w, "mode", "strict"));
		W(attr(w, "nodeset", s->numa_node));
		W(end(w));
		W(end(w));
	}
	if (page_kib) {
		W(start(w, "memoryBacking"));
		W(start(w, "hugepages"));
		W(start(w, "page"));
		W(attr(w, "size", page_kib));
		W(attr(w, "unit", "KiB"));
		W(end(w));
		W(end(w));
		W(end(w));
	}
	ret = 0;
out:
	return ret;
}

/* <os> for direct kernel boot, and <features>. */
static int os_elems(xmlTextWriterPtr w, const struct vm_spec *s)
{
	int ret = -1;

	W(start(w, "os"));
	W(start(w, "type"));
	W(attr(w, "arch", "x86_64"));
	W(attr(w, "machine", "q35"));
	W(xmlTextWriterWriteString(w, BAD_CAST "hvm"));
	W(end(w));
	W(elem_text(w, "kernel", s->kernel));
	W(elem_text(w, "initrd", s->initrd));
	W(elem_text(w, "cmdline", s->cmdline));
	W(end(w));
	/* ACPI as plain QEMU has it (libvirt leaves it off unless asked):
	 * the isa pvpanic device is found through ACPI, and the guest's
	 * power-off uses it. */
	W(start(w, "features"));
	W(start(w, "acpi"));
	W(end(w));
	W(end(w));
	ret = 0;
out:
	return ret;
}

/*
 * The qcow2 DISK as virtio DEV; READONLY: QEMU opens it read-only, and
 * SERIAL (may be NULL) names it inside.
 */
static int disk_elem(xmlTextWriterPtr w, const char *disk, const char *dev,
		     bool readonly, const char *serial)
{
	int ret = -1;

	W(start(w, "disk"));
	W(attr(w, "type", "file"));
	W(attr(w, "device", "disk"));
	W(start(w, "driver"));
	W(attr(w, "name", "qemu"));
	W(attr(w, "type", "qcow2"));
	W(end(w));
	W(start(w, "source"));
	W(attr(w, "file", disk));
	W(end(w));
	W(start(w, "target"));
	W(attr(w, "dev", dev));
	W(attr(w, "bus", "virtio"));
	W(end(w));
	if (serial)
		W(elem_text(w, "serial", serial));
	if (readonly) {
		W(start(w, "readonly"));
		W(end(w));
	}
	W(end(w));
	ret = 0;
out:
	return ret;
}

/* The console into CONSOLE_LOG, and the agent's virtio-serial channel. */
static int serial_elems(xmlTextWriterPtr w, const char *console_log)
{
	int ret = -1;

	/* The agent channel's controller on the root bus, as plain QEMU
	 * places devices, rather than behind a pcie-root-port. */
	W(start(w, "controller"));
	W(attr(w, "type", "virtio-serial"));
	W(attr(w, "index", "0"));
	W(start(w, "address"));
	W(attr(w, "type", "pci"));
	W(attr(w, "domain", "0"));
	W(attr(w, "bus", "0"));
	W(attr(w, "slot", "2"));
	W(attr(w, "function", "0"));
	W(end(w));
	W(end(w));
	W(start(w, "serial"));
	W(attr(w, "type", "file"));
	W(start(w, "source"));
	W(attr(w, "path", console_log));
	W(attr(w, "append", "on"));
	W(end(w));
	W(start(w, "target"));
	W(attr(w, "port", "0"));
	W(end(w));
	W(end(w));
	W(start(w, "channel"));
	W(attr(w, "type", "unix"));
	W(start(w, "target"));
	W(attr(w, "type", "virtio"));
	W(attr(w, "name", PROTO_PORT_NAME));
	W(end(w));
	W(end(w));
	ret = 0;
out:
	return ret;
}

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"

/*
 * The NIC of SPEC->ssh_port as QEMU arguments: libvirt 9.0 forwards ports
 * of <interface type='user'> only with the passt backend (another
 * package); QEMU's own slirp binds the forward to 127.0.0.1 alone.  The
 * NIC's slot is fixed (16 on pcie.0): QEMU would give it slot 1, which
 * libvirt's first pcie-root-port takes.
 */
static int usernet_elem(xmlTextWriterPtr w, unsigned port)
{
	char netdev[160];
	const char *args[] = {"-netdev", netdev, "-device",
			      "virtio-net-pci,netdev=vmtaxnet0,bus=pcie.0,addr=0x10"};
	size_t i;
	int ret = -1;

	snprintf(netdev, sizeof(netdev),
		 "user,id=vmtaxnet0,restrict=on,"
		 "hostfwd=tcp:127.0.0.1:%u-" VM_USERNET_GUEST ":22",
		 port);
	W(start(w, "qemu:commandline"));
	for (i = 0; i < ARRAY_SIZE(args); i++) {
		W(start(w, "qemu:arg"));
		W(attr(w, "value", args[i]));
		W(end(w));
	}
	W(end(w));
	ret = 0;
out:
	return ret;
}

static int devices_elem(xmlTextWriterPtr w, const struct vm_spec *s)
{
	int ret = -1;

	W(start(w, "devices"));
	/* No USB controller (libvirt's default on q35 is a qemu-xhci behind
	 * its own root port): plain QEMU has none and no guest uses one. */
	W(start(w, "controller"));
	W(attr(w, "type", "usb"));
	W(attr(w, "model", "none"));
	W(end(w));
	if (s->disk)
		W(disk_elem(w, s->disk, "vda", false, NULL));
	if (s->carrier)
		W(disk_elem(w, s->carrier, "vdb", true, VM_CARRIER_SERIAL));
	W(serial_elems(w, s->console_log));
	/* A guest panic is reported (pvpanic) instead of waited out. */
	W(start(w, "panic"));
	W(attr(w, "model", "isa"));
	W(end(w));
	W(start(w, "memballoon"));
	W(attr(w, "model", "none"));
	W(end(w));
	W(end(w)); /* devices */
	ret = 0;
out:
	return ret;
}

char *vm_domain_xml_new(const struct vm_spec *s)
{
	xmlTextWriterPtr w = NULL;
	xmlBufferPtr buf = NULL;
	char *ret = NULL;
	const char *page_kib;

	if (domain_check(s, &page_kib) < 0)
		return NULL;
	buf = xmlBufferCreate();
	if (!buf)
		goto out;
	w = xmlNewTextWriterMemory(buf, 0);
	if (!w)
		goto out;
	W(xmlTextWriterSetIndent(w, 1));
	W(xmlTextWriterStartDocument(w, NULL, NULL, NULL));
	W(start(w, "domain"));
	W(attr(w, "type", s->type));
	if (s->ssh_port)
		W(attr(w, "xmlns:qemu", QEMU_NS));
	W(elem_text(w, "name", s->name));
	W(memory_elems(w, s, page_kib));
	W(os_elems(w, s));
	W(cpu_elem(w, s));
	W(elem_text(w, "on_poweroff", "destroy"));
	W(elem_text(w, "on_reboot", "destroy"));
	W(elem_text(w, "on_crash", "destroy"));
	W(devices_elem(w, s));
	if (s->ssh_port)
		W(usernet_elem(w, s->ssh_port));
	W(end(w)); /* domain */
	W(xmlTextWriterEndDocument(w));
	xmlFreeTextWriter(w);
	w = NULL;
	ret = xstrdup((const char *)xmlBufferContent(buf));
out:
	if (!ret)
		err("cannot build the domain XML for '%s'", s->name);
	if (w)
		xmlFreeTextWriter(w);
	if (buf)
		xmlBufferFree(buf);
	return ret;
}

/* The first child element of N named NAME, or NULL. */
static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    !xmlStrcmp(n->name, BAD_CAST name))
			return n;
	return NULL;
}

/* The device DEVS/KIND whose target has ATTR = VALUE (NULL: the first). */
static xmlNodePtr device(xmlNodePtr devs, const char *kind, const char *attr,
			 const char *value)
{
	xmlNodePtr n;

	for (n = devs ? devs->children : NULL; n; n = n->next) {
		xmlChar *v;
		bool hit;

		if (n->type != XML_ELEMENT_NODE ||
		    xmlStrcmp(n->name, BAD_CAST kind))
			continue;
		if (!attr)
			return n;
		v = xmlGetProp(child(n, "target"), BAD_CAST attr);
		hit = v && !xmlStrcmp(v, BAD_CAST value);
		xmlFree(v);
		if (hit)
			return n;
	}
	return NULL;
}

/* N's text into BUF (LEN bytes; "" when none). */
static void get_text(xmlNodePtr n, char *buf, size_t len)
{
	xmlChar *t = xmlNodeGetContent(n);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
	xmlFree(t);
}

char *vm_domain_xml_retarget_new(const char *xml, const char *disk,
				 const char *console_log, char *name,
				 char *uuid, char *why, size_t len)
{
	xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "saved.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR |
					  XML_PARSE_NOWARNING);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL, devs, n;
	xmlChar *out = NULL;
	char *ret = NULL;
	int size = 0;

	if (!root || xmlStrcmp(root->name, BAD_CAST "domain")) {
		snprintf(why, len, "its XML is not a domain");
		goto out;
	}
	devs = child(root, "devices");
	if (!child(root, "name") || !child(root, "uuid")) {
		snprintf(why, len, "its XML has no name or no UUID");
		goto out;
	}
	get_text(child(root, "name"), name, VM_NAME_MAX);
	get_text(child(root, "uuid"), uuid, 37);
	n = child(device(devs, "disk", "dev", "vda"), "source");
	if (!n) {
		snprintf(why, len, "its XML has no vda disk with a source");
		goto out;
	}
	xmlSetProp(n, BAD_CAST "file", BAD_CAST disk);
	n = child(device(devs, "serial", NULL, NULL), "source");
	if (!n) {
		snprintf(why, len, "its XML has no serial console with a log");
		goto out;
	}
	xmlSetProp(n, BAD_CAST "path", BAD_CAST console_log);
	/* libvirt writes the serial console twice, as <console> too. */
	n = child(device(devs, "console", "type", "serial"), "source");
	if (n)
		xmlSetProp(n, BAD_CAST "path", BAD_CAST console_log);
	xmlDocDumpMemory(doc, &out, &size);
	if (!out) {
		snprintf(why, len, "cannot write its XML");
		goto out;
	}
	ret = xstrdup((const char *)out);
out:
	xmlFree(out);
	xmlFreeDoc(doc);
	return ret;
}
