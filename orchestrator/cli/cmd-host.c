/* SPDX-License-Identifier: MIT */
/*
 * vmtax host probe [--json] | vmtax host restore: what this host can do for
 * a matrix, and the by-hand undo of a run that died.  The probe builds one
 * JSON model and renders it as JSON or text; every "no" carries a why.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "layout.h"
#include "host.h"
#include "identity.h"
#include "runner.h"
#include "thp.h"
#include "util.h"
#include "vm.h"

#define DEFAULT_URI "qemu:///system"

struct host_args {
	const char *uri;
	const char *state_dir;
	bool as_json;
};

static const char *statedir(void)
{
	return layout_dirs()->statedir;
}

static const struct opt host_opts[] = {
	{ 0, "json", OPT_FLAG, offsetof(struct host_args, as_json), NULL, NULL,
	  "probe: print JSON instead of text", NULL },
	{ 0, "uri", OPT_STRING, offsetof(struct host_args, uri), NULL, "URI",
	  "libvirt URI (default " DEFAULT_URI ")", NULL },
	{ 0, "state-dir", OPT_STRING, offsetof(struct host_args, state_dir),
	  NULL, "DIR", "lock and journal link (default %s)", statedir },
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: vmtax host probe [--json] [--uri URI]\n"
	    "       vmtax host restore [--state-dir DIR] [--uri URI]\n"
	    "\n"
	    "probe    report what this host offers a matrix: cpu and its\n"
	    "         virtualization flags, kvm modules and paging, the accel\n"
	    "         decision, thp, hugetlb pools, perf counters, libvirt\n"
	    "         and qemu versions; every \"no\" says why\n"
	    "restore  put back host settings a vmtax run changed and did not\n"
	    "         restore (it was killed, or the machine went down)\n"
	    "\n");
	opts_help(f, host_opts, 3, 21);
}

/* {"supported": false, "why": WHY} or {"supported": true}. */
static json_t *yes_no(bool yes, const char *why)
{
	json_t *o = json_object();

	json_object_set_new(o, "supported", json_boolean(yes));
	if (!yes)
		json_object_set_new(o, "why", json_string(why));
	return o;
}

static json_t *probe_cpu(void)
{
	struct host_cpu cpu;
	json_t *o = json_object();

	if (host_cpu_read("", &cpu) < 0) {
		json_object_set_new(o, "why",
				    json_string("cannot read /proc/cpuinfo"));
		return o;
	}
	json_object_set_new(o, "vendor", json_string(cpu.vendor));
	json_object_set_new(o, "model", json_string(cpu.model));
	json_object_set_new(o, "virt_flags", json_string(cpu.virt_flags));
	if (!host_virt_usable(&cpu))
		json_object_set_new(
		    o, "why",
		    json_string("no vmx or svm flag: no hardware "
				"virtualization visible"));
	return o;
}

/*
 * What results.json's run.host records (host/identity.h) but accel, and
 * the machine id (/etc/machine-id: the fleet refuses two entries that
 * name one machine).
 */
static json_t *probe_identity(void)
{
	struct host_ident id;
	json_t *o = json_object();
	char mid[64];

	host_summary_json(o);
	json_object_set_new(o, "machine_id",
			    read_line("/etc/machine-id", mid, sizeof(mid)) == 0
				? json_string(mid)
				: json_null());
	host_ident_read("", NULL, &id);
	host_ident_json(&id, o);
	return o;
}

/* This vmtax: {"version", "build_id"} (null when unreadable). */
static json_t *probe_vmtax(void)
{
	char id[64];

	return json_pack("{s:s, s:o}", "version", VMTAX_VERSION, "build_id",
			 build_id_read(id, sizeof(id)) == 0 ? json_string(id)
							     : json_null());
}

static json_t *probe_modules(struct host_ctx *ctx)
{
	const struct virt_hw *intel = host_virt_hw(VIRT_VENDOR_INTEL);
	const struct virt_hw *amd = host_virt_hw(VIRT_VENDOR_AMD);
	const struct {
		const char *name, *param;
	} mods[] = {
	    {"kvm", NULL},
	    {intel->module, intel->paging},
	    {amd->module, amd->paging},
	    {"kvm_pvm", NULL},
	};
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		enum host_module_state s = host_module_state("", mods[i].name);
		json_t *o = json_object();
		char path[128], val[32];

		json_object_set_new(o, "name", json_string(mods[i].name));
		json_object_set_new(o, "state",
				    json_string(host_module_state_name(s)));
		if (mods[i].param && s != HOST_MODULE_ABSENT) {
			snprintf(path, sizeof(path),
				 "/sys/module/%s/parameters/%s", mods[i].name,
				 mods[i].param);
			json_object_set_new(
			    o, mods[i].param,
			    host_read(ctx, path, val, sizeof(val)) == 0
				? json_string(val)
				: json_null());
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* A knob's value and support: {"value": V, "supported": B, "why": W}. */
static json_t *probe_knob(struct host_ctx *ctx, const char *knob)
{
	char why[512], val[64];
	bool ok = host_supported(ctx, knob, NULL, why, sizeof(why));
	json_t *o = yes_no(ok, why);

	if (ok && host_get(ctx, knob, val, sizeof(val)) == 0)
		json_object_set_new(o, "value", json_string(val));
	return o;
}

static json_t *probe_thp(struct host_ctx *ctx)
{
	json_t *o = json_object();
	char val[64];

	json_object_set_new(o, "enabled", probe_knob(ctx, "thp.enabled"));
	json_object_set_new(o, "defrag", probe_knob(ctx, "thp.defrag"));
	json_object_set_new(
	    o, "khugepaged_defrag",
	    host_read(ctx,
		      THP_DIR "/khugepaged/defrag",
		      val, sizeof(val)) == 0
		? json_string(val)
		: json_null());
	return o;
}

/* The string at KEY of O, or "". */
static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static json_t *probe_pool(struct host_ctx *ctx, const char *knob,
			  const char *dir)
{
	json_t *o = probe_knob(ctx, knob);
	char path[128], val[32];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/%s/free_hugepages", dir);
	if (host_read(ctx, path, val, sizeof(val)) == 0)
		json_object_set_new(o, "free", json_integer(atoll(val)));
	if (json_object_get(o, "value")) {
		json_object_set_new(o, "nr",
				    json_integer(atoll(str(o, "value"))));
		json_object_del(o, "value");
	}
	return o;
}

/* Why perf_event_open refused a counter, in words. */
static void counter_why(int e, char *why, size_t len)
{
	const char *hint = "";

	if (e == ENOENT)
		hint =
		    "the pmu has no such event; no hardware pmu visible here";
	else if (e == EACCES || e == EPERM)
		hint = "not permitted; see kernel.perf_event_paranoid";
	else if (e == EOPNOTSUPP)
		hint = "the pmu does not support it";
	snprintf(why, len, "perf_event_open: %s%s%s", strerror(e),
		 *hint ? ": " : "", hint);
}

static json_t *probe_counters(void)
{
	int errs[RC_NR];
	json_t *a = json_array();
	int i;

	runner_probe_counters(errs);
	for (i = 0; i < RC_NR; i++) {
		json_t *o = json_object(), *yn;
		char why[256];

		json_object_set_new(o, "name",
				    json_string(runner_counter_name(i)));
		counter_why(errs[i], why, sizeof(why));
		yn = yes_no(!errs[i], why);
		json_object_update(o, yn);
		json_decref(yn);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *probe_versions(const char *uri)
{
	char lv[64] = "", qv[64] = "", why[256];
	json_t *o = json_object();
	int ret;

	ret = vm_versions(uri, lv, sizeof(lv), qv, sizeof(qv));
	json_object_set_new(o, "uri", json_string(uri));
	json_object_set_new(o, "libvirt", *lv ? json_string(lv) : json_null());
	json_object_set_new(o, "qemu", *qv ? json_string(qv) : json_null());
	if (ret < 0 || !*qv) {
		snprintf(why, sizeof(why),
			 ret < 0 ? "cannot connect to '%s': %s"
				 : "'%s' did not report a hypervisor version%s",
			 uri, ret < 0 ? strerror(-ret) : "");
		json_object_set_new(o, "why", json_string(why));
	}
	return o;
}

static json_t *probe_model(struct host_ctx *ctx, const char *uri)
{
	json_t *m = json_object(), *o;
	char why[512];
	const char *accel;

	o = json_object();
	json_object_set_new(o, "root", json_boolean(geteuid() == 0));
	if (geteuid() != 0) {
		snprintf(why, sizeof(why),
			 "running as uid %ld: host settings cannot be changed",
			 (long)geteuid());
		json_object_set_new(o, "why", json_string(why));
	}
	json_object_set_new(m, "user", o);
	json_object_set_new(m, "cpu", probe_cpu());
	json_object_set_new(m, "host", probe_identity());
	json_object_set_new(m, "kvm_modules", probe_modules(ctx));
	accel = host_accel_decide("", why, sizeof(why));
	o = json_object();
	json_object_set_new(o, "decision", json_string(accel));
	json_object_set_new(o, "why", json_string(why));
	json_object_set_new(m, "accel", o);
	json_object_set_new(m, KNOB_PAGING, probe_knob(ctx, KNOB_PAGING));
	json_object_set_new(m, "thp", probe_thp(ctx));
	o = json_object();
	json_object_set_new(o, "2M",
			    probe_pool(ctx, "hugetlb.2M", "hugepages-2048kB"));
	json_object_set_new(
	    o, "1G", probe_pool(ctx, "hugetlb.1G", "hugepages-1048576kB"));
	json_object_set_new(m, "hugetlb", o);
	json_object_set_new(m, "kvm_nx_huge_pages",
			    probe_knob(ctx, "kvm.nx_huge_pages"));
	json_object_set_new(m, "counters", probe_counters());
	json_object_set_new(m, "versions", probe_versions(uri));
	json_object_set_new(m, "vmtax", probe_vmtax());
	return m;
}

static void print_knob(const char *label, json_t *k, const char *key)
{
	if (json_is_true(json_object_get(k, "supported")))
		printf("%-18s %s\n", label, str(k, key));
	else
		printf("%-18s unsupported (%s)\n", label, str(k, "why"));
}

static void render_text(json_t *m)
{
	const char *hv;
	enum virt_vendor k;
	json_t *o, *v;
	size_t i;

	o = json_object_get(m, "user");
	printf("%-18s %s%s%s%s\n", "root",
	       json_is_true(json_object_get(o, "root")) ? "yes" : "no",
	       *str(o, "why") ? " (" : "", str(o, "why"),
	       *str(o, "why") ? ")" : "");
	o = json_object_get(m, "host");
	v = json_object_get(o, "virtualized");
	hv = str(json_object_get(o, "hypervisor"), "name");
	if (json_is_true(v))
		printf("%-18s a virtual machine%s%s%s\n", "host",
		       *hv ? " (" : "", hv, *hv ? ")" : "");
	else
		printf("%-18s %s\n", "host",
		       json_is_false(v) ? "physical"
					: "physical or virtual: unknown");
	o = json_object_get(m, "cpu");
	printf("%-18s %s, %s\n", "cpu", str(o, "vendor"), str(o, "model"));
	printf("%-18s %s%s%s%s\n", "virt flags",
	       *str(o, "virt_flags") ? str(o, "virt_flags") : "none",
	       *str(o, "why") ? " (" : "", str(o, "why"),
	       *str(o, "why") ? ")" : "");
	json_array_foreach(json_object_get(m, "kvm_modules"), i, v)
	{
		char label[32];

		snprintf(label, sizeof(label), "module %s", str(v, "name"));
		printf("%-18s %s", label, str(v, "state"));
		/* each paging parameter (ept, npt) its module has */
		for (k = VIRT_VENDOR_INTEL; k <= VIRT_VENDOR_AMD; k++) {
			const char *p = host_virt_hw(k)->paging;

			if (json_object_get(v, p))
				printf(", %s=%s", p,
				       json_is_null(json_object_get(v, p))
					   ? "?"
					   : str(v, p));
		}
		printf("\n");
	}
	o = json_object_get(m, "accel");
	printf("%-18s %s (%s)\n", "accel", str(o, "decision"), str(o, "why"));
	print_knob(KNOB_PAGING, json_object_get(m, KNOB_PAGING), "value");
	o = json_object_get(m, "thp");
	print_knob("thp enabled", json_object_get(o, "enabled"), "value");
	print_knob("thp defrag", json_object_get(o, "defrag"), "value");
	printf("%-18s %s\n", "khugepaged defrag",
	       json_is_null(json_object_get(o, "khugepaged_defrag"))
		   ? "unknown (cannot read it)"
		   : str(o, "khugepaged_defrag"));
	o = json_object_get(m, "hugetlb");
	{
		static const char *const sizes[] = {"2M", "1G"};

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			char label[32];

			v = json_object_get(o, sizes[i]);
			snprintf(label, sizeof(label), "hugetlb %s", sizes[i]);
			if (json_is_true(json_object_get(v, "supported")))
				printf("%-18s nr %lld, free %lld\n", label,
				       json_integer_value(
					   json_object_get(v, "nr")),
				       json_integer_value(
					   json_object_get(v, "free")));
			else
				printf("%-18s unsupported (%s)\n", label,
				       str(v, "why"));
		}
	}
	print_knob("kvm.nx_huge_pages", json_object_get(m, "kvm_nx_huge_pages"),
		   "value");
	json_array_foreach(json_object_get(m, "counters"), i, v)
	{
		char label[40];

		snprintf(label, sizeof(label), "counter %s", str(v, "name"));
		if (json_is_true(json_object_get(v, "supported")))
			printf("%-18s yes\n", label);
		else
			printf("%-18s no (%s)\n", label, str(v, "why"));
	}
	o = json_object_get(m, "versions");
	printf("%-18s %s\n", "libvirt",
	       *str(o, "libvirt") ? str(o, "libvirt") : "unknown");
	printf("%-18s %s%s%s%s\n", "qemu",
	       *str(o, "qemu") ? str(o, "qemu") : "unknown",
	       *str(o, "why") ? " (" : "", str(o, "why"),
	       *str(o, "why") ? ")" : "");
}

static int probe(bool as_json, const char *uri)
{
	struct host_opts opts = {.readonly = true};
	struct host_ctx *ctx = NULL;
	json_t *m = NULL;
	int ret = 1;

	if (host_ctx_new(&opts, &ctx) < 0)
		goto out;
	m = probe_model(ctx, uri);
	if (as_json) {
		if (json_dumpf(m, stdout,
			       JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
			goto out;
		printf("\n");
	} else {
		render_text(m);
	}
	ret = 0;
out:
	json_decref(m);
	host_ctx_free(ctx);
	return ret;
}

/* How many of the N names of DEAD still run (LIVE: running names). */
static size_t still_running(char *const *dead, size_t n, char *const *live)
{
	size_t i, j, left = 0;

	for (i = 0; i < n; i++)
		for (j = 0; live && live[j]; j++)
			if (!strcmp(dead[i], live[j])) {
				left++;
				break;
			}
	return left;
}

/*
 * Whether domain NAME is a vmtax domain of a run that is gone, once the
 * host lock was free.  A lab host (vmtax-lab-PID-N) is a run's that does
 * not hold the host lock: its PID says; a restored one (vmtax-lab-saved-*)
 * has no AUTODESTROY, the next lab run ends it, and is not waited for.
 * Any other vmtax-* domain is a local run's guest, and every such run
 * holds the lock while its guests run.
 */
static bool of_dead_run(const char *name)
{
	const char *lab = "vmtax-lab-";
	char *end;
	long pid;

	if (strncmp(name, "vmtax-", 6))
		return false;
	if (strncmp(name, lab, strlen(lab)))
		return true;
	pid = strtol(name + strlen(lab), &end, 10);
	if (end == name + strlen(lab) || *end != '-')
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/*
 * The vmtax-* domains running once the host lock was free (so no run is
 * alive: they are a dead run's, libvirt still finishing a start it will
 * autodestroy) waited for, polling every 250 ms, for at most
 * HOST_VM_DRAIN_S: 'vmtax host restore' returns when they are gone, or
 * fails naming them.  0, or 1 with them named.
 */
static int wait_dead_domains(const char *uri)
{
	const struct timespec tick = { 0, 250 * 1000 * 1000 };
	char **live = NULL, **dead = NULL;
	size_t n = 0, left = 0, i;
	double t0 = mono_now();
	int ret = 0, k;

	if (vm_list_running(uri, &live) < 0)
		return 0; /* no libvirt: nothing of ours can run */
	for (k = 0; live && live[k]; k++)
		if (of_dead_run(live[k])) {
			dead = xrealloc(dead, (n + 1) * sizeof(*dead));
			dead[n++] = xstrdup(live[k]);
		}
	vm_names_free(live);
	live = NULL;
	if (n)
		note("waiting up to %d s for %zu domain%s of a run that is "
		     "gone (libvirt ends them)",
		     HOST_VM_DRAIN_S, n, n == 1 ? "" : "s");
	while (n) {
		if (vm_list_running(uri, &live) < 0)
			break;
		left = still_running(dead, n, live);
		vm_names_free(live);
		live = NULL;
		if (!left || mono_now() - t0 >= HOST_VM_DRAIN_S)
			break;
		nanosleep(&tick, NULL);
	}
	if (left) {
		for (i = 0; i < n; i++)
			err("domain '%s' of a run that is gone still runs "
			    "after %d s: 'virsh destroy %s'",
			    dead[i], HOST_VM_DRAIN_S, dead[i]);
		ret = 1;
	} else if (n) {
		note("they are gone after %.1f s", mono_now() - t0);
	}
	for (i = 0; i < n; i++)
		free(dead[i]);
	free(dead);
	return ret;
}

static int restore(const char *state_dir, const char *uri)
{
	struct host_opts opts = {
	    .state_dir = state_dir,
	    .list_vms = vm_list_running_str,
	    .list_vms_arg = (void *)uri,
	    .vm_drain_s = HOST_VM_DRAIN_S,
	};
	int n;

	n = host_restore_stale(&opts);
	if (n < 0)
		return 1;
	if (n == 0)
		note("nothing to restore: no journal from an unfinished run");
	else
		note("restored %d host setting%s", n, n == 1 ? "" : "s");
	return wait_dead_domains(uri);
}

int cmd_host(int argc, char **argv)
{
	struct host_args a = {.uri = DEFAULT_URI};
	const char *sub;
	int ret;

	/* Options before the subcommand and after it, alike. */
	ret = opts_parse(host_opts, usage, &a, argc, argv);
	if (ret < 0)
		return opts_status(ret);
	if (ret >= argc)
		return opts_usage_error(usage);
	sub = argv[ret];
	if (ret + 1 != argc) {
		err("unexpected argument '%s'", argv[ret + 1]);
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "probe")) {
		if (a.state_dir) {
			err("'--state-dir' is for 'vmtax host restore'");
			return EXIT_USAGE;
		}
		return probe(a.as_json, a.uri);
	}
	if (!strcmp(sub, "restore")) {
		if (a.as_json) {
			err("'--json' is for 'vmtax host probe'");
			return EXIT_USAGE;
		}
		return restore(a.state_dir, a.uri);
	}
	err("'%s' is not a 'vmtax host' command; see 'vmtax host --help'", sub);
	return EXIT_USAGE;
}
