/* SPDX-License-Identifier: MIT */
/*
 * fleet-check.c - what a fleet host must be before anything runs there
 * (fleet.h): its answers to the probe, judged.  Pure: exec-fleet.c asks
 * and reports.
 */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

char *fleet_probe_cmd_new(const char *vmtax)
{
	char *q = sh_quote_new(vmtax);
	char *cmd =
	    xasprintf("echo uid=$(id -u); exec %s host probe --json", q);

	free(q);
	return cmd;
}

void fleet_probe_parse(const char *text, struct fleet_probe *p)
{
	const char *brace = strchr(text, '{');
	json_error_t je;

	p->uid = -1;
	p->doc = NULL;
	if (!strncmp(text, "uid=", 4) && text[4] >= '0' && text[4] <= '9')
		p->uid = strtol(text + 4, NULL, 10);
	if (brace)
		p->doc = json_loads(brace, JSON_DISABLE_EOF_CHECK, &je);
	if (p->doc && !json_is_object(p->doc)) {
		json_decref(p->doc);
		p->doc = NULL;
	}
}

void fleet_probe_release(struct fleet_probe *p)
{
	json_decref(p->doc);
	p->doc = NULL;
}

/* The last non-empty line of TEXT into BUF: what ssh said last. */
static void last_line(const char *text, char *buf, size_t len)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
	if (!*buf)
		snprintf(buf, len, "(it said nothing)");
}

static const char *str_at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

/* ssh's own failure (status 255): which of its messages. */
static int judge_ssh(const char *text, char *why, size_t len)
{
	char said[256];
	const char *msg = said;

	last_line(text, said, sizeof(said));
	if (!strncmp(said, "ssh: ", 5))
		msg += 5; /* said once: "ssh: MSG" */
	if (strstr(text, "Host key verification failed") ||
	    strstr(text, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
		snprintf(why, len,
			 "its host key is not known here or has changed "
			 "(StrictHostKeyChecking=yes: check the key and add it "
			 "to known_hosts): ssh: %s",
			 msg);
	else if (strstr(text, "Permission denied"))
		snprintf(why, len,
			 "ssh cannot log in (BatchMode: a key or agent, no "
			 "password): ssh: %s",
			 msg);
	else
		snprintf(why, len, "unreachable: ssh: %s", msg);
	return -EINVAL;
}

/* The vmtax there: this one's version and build. */
static int judge_vmtax(const json_t *doc, const struct fleet_want *w, char *why,
		       size_t len)
{
	const char *v = str_at(doc, "vmtax", "version");
	const char *b = str_at(doc, "vmtax", "build_id");

	if (!v) {
		snprintf(why, len,
			 "its vmtax is older than %s (its probe has no "
			 "version): install this one",
			 w->version);
		return -EINVAL;
	}
	if (strcmp(v, w->version)) {
		snprintf(why, len, "vmtax %s there, %s here: install this one",
			 v, w->version);
		return -EINVAL;
	}
	if (!b || strcmp(b, w->build_id)) {
		snprintf(why, len,
			 "another build of vmtax %s (build %s there, %s here): "
			 "install this one",
			 v, b ? b : "unknown", w->build_id);
		return -EINVAL;
	}
	return 0;
}

/* Libvirt and KVM, where the matrix needs them. */
static int judge_virt(const json_t *doc, const struct fleet_want *w, char *why,
		      size_t len)
{
	const char *accel = str_at(doc, "accel", "decision");

	if (w->libvirt && !str_at(doc, "versions", "libvirt")) {
		snprintf(why, len,
			 "no libvirt (libvirtd does not answer there) and the "
			 "matrix has guest cells");
		return -EINVAL;
	}
	if (w->kvm && (!accel || strcmp(accel, "kvm"))) {
		snprintf(why, len, "no KVM and [guest] accel = kvm: %s",
			 str_at(doc, "accel", "why") ?: "no probe of it");
		return -EINVAL;
	}
	return 0;
}

/* The largest guest against the host's CPUs and memory, as the preflight
 * of a run there would refuse it (run-preflight.h). */
static int judge_sizes(const json_t *probe, const struct fleet_want *w,
		       char *why, size_t len)
{
	const json_t *h = json_object_get(probe, "host");
	json_int_t cpus = json_integer_value(json_object_get(h, "cpus"));
	json_int_t mem = json_integer_value(json_object_get(h, "mem_bytes"));

	if (w->vcpus > 0 && cpus > 0 && w->vcpus > cpus) {
		snprintf(why, len,
			 "its %lld CPUs are fewer than the %ld vCPUs a guest "
			 "of the matrix asks for: give [guest] vcpus %lld or "
			 "fewer",
			 (long long)cpus, w->vcpus, (long long)cpus);
		return -EINVAL;
	}
	if (w->memory && mem > 0 && w->memory > (unsigned long long)mem) {
		snprintf(why, len,
			 "its %.1f GiB of memory (MemTotal) is less than the "
			 "%.1f GiB a guest of the matrix asks for: lower "
			 "[guest] memory",
			 (double)mem / (1ULL << 30),
			 (double)w->memory / (1ULL << 30));
		return -EINVAL;
	}
	return 0;
}

int fleet_host_judge(const struct fleet_probe *p, int status, const char *text,
		     const struct fleet_want *w, char *why, size_t len)
{
	char said[256];

	if (status == 255)
		return judge_ssh(text, why, len);
	if (p->uid > 0) {
		snprintf(why, len,
			 "not root (uid %ld there): vmtax changes host "
			 "settings; log in as root",
			 p->uid);
		return -EINVAL;
	}
	if (status == 127) {
		snprintf(why, len,
			 "no vmtax there (not found: set [fleet] vmtax to its "
			 "path)");
		return -EINVAL;
	}
	if (!p->doc) {
		last_line(text, said, sizeof(said));
		snprintf(why, len, "its vmtax gave no probe (status %d): %s",
			 status, said);
		return -EINVAL;
	}
	if (p->uid < 0 && !json_is_true(json_object_get(
			      json_object_get(p->doc, "user"), "root"))) {
		snprintf(why, len, "not root: vmtax changes host settings");
		return -EINVAL;
	}
	if (judge_vmtax(p->doc, w, why, len) < 0)
		return -EINVAL;
	if (judge_sizes(p->doc, w, why, len) < 0)
		return -EINVAL;
	return judge_virt(p->doc, w, why, len);
}

json_t *fleet_probe_host_new(const json_t *probe)
{
	json_t *h;

	if (!probe)
		return NULL;
	h = json_deep_copy(json_object_get(probe, "host"));
	if (!json_is_object(h)) {
		json_decref(h);
		h = json_object();
	}
	json_object_del(h, "machine_id");
	json_object_set_new(
	    h, "accel",
	    json_string(str_at(probe, "accel", "decision") ?: "unknown"));
	return h;
}

const char *fleet_probe_machine_id(const json_t *probe)
{
	const char *m = str_at(probe, "host", "machine_id");

	return m ? m : "";
}
