/* SPDX-License-Identifier: MIT */
/*
 * The guest cell executor: a fresh libvirt guest per cell (and a fresh one
 * in place of a guest that died or hung, while retries remain), its agent
 * running the workload under the same runner as bare metal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent-client.h"
#include "beneath.h"
#include "cpuset.h"
#include "exec-guest.h"
#include "guest-files.h"
#include "guest-remote.h"
#include "host.h"
#include "quiet.h"
#include "kvm-stats.h"
#include "layout.h"
#include "profile-sample.h"
#include "proto.h"
#include "run-engine.h"
#include "runner.h"
#include "util.h"
#include "vm-life.h"
#include "vm.h"

/* One booted guest of a cell: its domain, agent client and disk overlay. */
struct guest {
	struct vm_life life; /* its domain and agent client */
	char *overlay;
	char *console;	/* in the run directory */
	char *remote_console; /* on a remote libvirt's host, or NULL */
	FILE *log;	 /* the cell's agent transcript, across boots */
	struct kvm_sampler *kvm; /* what KVM saw of this guest, per sample */
	int boot;	 /* the cell's guest count (st->boots) at its boot */
	struct pin_plan pin; /* [guest] pin resolved for this cell */
	char numa_cpus[256]; /* [guest] numa: the node's CPUs, or "" */
};

/*
 * The cell's [guest] pin as a plan (lib/cpuset.h has the rule) and as
 * observed.pin: {policy, vcpu_cpus: [CPU of vCPU i], emulator_cpu}, both
 * null when nothing is pinned.  -1 with *REASON (owned).
 */
static int guest_pin(struct run *r, struct cell_run *cr, struct guest *g,
		     char **reason)
{
	struct cpuset online;
	char msg[256];
	json_t *pin = json_object(), *v = json_null();
	unsigned i;

	if (host_cpus_online("", &online) < 0 ||
	    pin_plan_make(r->cfg.pin, (unsigned)cr->cell->vcpus, &online,
			  &g->pin, msg, sizeof(msg)) < 0) {
		*reason = xasprintf("cannot pin the guest to '%s': %s",
				    r->cfg.pin, msg);
		json_decref(pin);
		return -1;
	}
	if (g->pin.pinned) {
		v = json_array();
		for (i = 0; i < g->pin.nvcpus; i++)
			json_array_append_new(v, json_integer(g->pin.vcpu_cpu[i]));
	}
	json_object_set_new(pin, "policy", json_string(r->cfg.pin));
	json_object_set_new(pin, "vcpu_cpus", v);
	json_object_set_new(pin, "emulator_cpu",
			    g->pin.pinned ? json_integer(g->pin.emulator_cpu)
					  : json_null());
	json_object_set_new(cr->st->observed, "pin", pin);
	return 0;
}

/* The guest's scratch directory of the workload's kind (guest-files.h). */
static const char *guest_scratch(const struct run *r)
{
	return !strcmp(r->cfg.wl.scratch, WL_SCRATCH_DISK) ? GUEST_SCRATCH_DISK
							     : GUEST_SCRATCH_TMPFS;
}

/*
 * The cell's [guest] numa into SPEC (the node and its CPUs) and
 * observed.numa: {node, cpus}, both null for none.  -1 with *REASON
 * (owned): a node this host lacks (preflight said so first).
 */
static int guest_numa(struct run *r, struct cell_run *cr, struct guest *g,
		      struct vm_spec *spec, char **reason)
{
	const char *node = r->cfg.numa;
	struct cpuset cpus;
	int ret;

	g->numa_cpus[0] = '\0';
	if (!strcmp(node, "none")) {
		json_object_set_new(cr->st->observed, "numa",
				    json_pack("{snsn}", "node", "cpus"));
		return 0;
	}
	ret = host_numa_node_cpus("", atoi(node), &cpus);
	if (ret < 0) {
		*reason = xasprintf("cannot bind the guest to NUMA node %s: %s",
				    node, ret == -ENOENT ? "no such node here"
							 : strerror(-ret));
		return -1;
	}
	cpuset_format(&cpus, g->numa_cpus, sizeof(g->numa_cpus));
	spec->numa_node = node;
	spec->numa_cpus = *g->numa_cpus ? g->numa_cpus : NULL;
	json_object_set_new(cr->st->observed, "numa",
			    json_pack("{siss}", "node", atoi(node), "cpus",
				      g->numa_cpus));
	return 0;
}

static json_t *guest_run_args(const struct run *r, const struct cell *c,
			      const char *cmd, bool counters)
{
	json_t *a = json_object(), *env = cell_kv_json(c->params, c->nparams);

	json_object_set_new(env, WL_ENV_WORKDIR, json_string(guest_scratch(r)));
	json_object_set_new(env, WL_ENV_SRCDIR, json_string(GUEST_SRCDIR));
	json_object_set_new(a, "cmd", json_string(cmd));
	json_object_set_new(a, "shell", json_string(LAYOUT_BUSYBOX));
	json_object_set_new(a, "env", env);
	json_object_set_new(a, "cwd", json_string(guest_scratch(r)));
	json_object_set_new(a, "timeout_s", json_real(run_sample_timeout(r)));
	json_object_set_new(a, "counters", json_boolean(counters));
	/* [run] events: the agent opens them as the runner does here. */
	if (counters && (r->cfg.events || r->cfg.raw_events.n)) {
		json_t *ev = json_array();

		for (int k = 0; k < RUNNER_COUNTER_MAX; k++)
			if (r->cfg.events & RUNNER_COUNTER_BIT(k))
				json_array_append_new(
				    ev, json_string(runner_counter_name(k)));
		for (int j = 0; j < r->cfg.raw_events.n; j++)
			json_array_append_new(
			    ev, json_string(r->cfg.raw_events.name[j]));
		json_object_set_new(a, "events", ev);
	}
	json_object_set_new(a, "with_output", json_true());
	json_object_set_new(a, "heartbeat_s", json_real(r->cfg.heartbeat_s));
	return a;
}

static int guest_call_run(struct run *r, const struct cell *c,
			  struct agent_client *a, const char *cmd,
			  bool counters, json_t **result, char *why, size_t len)
{
	json_t *args = guest_run_args(r, c, cmd, counters);
	int ret;

	/* Silence longer than a few heartbeats means a hang, not a slow run. */
	ret = agent_call(a, "run", args, r->cfg.silence_s,
			 run_sample_timeout(r) + 120, result, why, len);
	json_decref(args);
	return ret;
}

/*
 * The cell's [guest] knobs, written and read back by the agent into
 * observed.guest_knobs.  -1 with *REASON (owned) when one cannot be set.
 */
static int guest_knobs_set(struct cell_run *cr, struct guest *g,
			   char **reason)
{
	const struct cell *c = cr->cell;
	json_t *got = json_object();
	char val[128], why[512];
	size_t i;
	int ret = 0;

	for (i = 0; i < c->nguest_knobs && ret == 0; i++) {
		const struct cell_kv *k = &c->guest_knobs[i];

		if (agent_set_knob(&g->life.a, k->name, k->value, val, sizeof(val),
				   why, sizeof(why)) < 0) {
			*reason = xasprintf("cannot set guest knob '%s' to '%s': %s",
					    k->name, k->value, why);
			ret = -1;
		} else {
			json_object_set_new(got, k->name, json_string(val));
		}
	}
	if (c->nguest_knobs)
		json_object_set_new(cr->st->observed, "guest_knobs", got);
	else
		json_decref(got);
	return ret;
}

/*
 * The guest's own settings for the cell: its THP mode and its [guest]
 * knobs, each read back into observed.  -1 with *REASON (owned).
 */
static int guest_settings(struct cell_run *cr, struct guest *g, char **reason)
{
	const struct cell *c = cr->cell;
	json_t *res = NULL, *args = json_pack("{ss}", "enabled", c->guest_thp);
	char why[512];
	int ret;

	ret = agent_call(&g->life.a, "set-thp", args, 30, 60, &res, why, sizeof(why));
	json_decref(args);
	if (ret < 0) {
		*reason = xasprintf("cannot set guest THP to '%s': %s",
				    c->guest_thp, why);
		return -1;
	}
	json_object_set(cr->st->observed, AXIS_ENV_GUEST_THP,
			json_object_get(res, "enabled"));
	/* false only in a guest without THP (docs/protocol.md, set-thp) */
	if (json_is_false(json_object_get(res, "available")))
		json_object_set_new(cr->st->observed, "guest_thp_available",
				    json_false());
	json_decref(res);
	return guest_knobs_set(cr, g, reason);
}

/* Warm-up run IDX (run_warmup()): a guest that does not answer fails the
 * cell's start. */
static int guest_warmup(struct run *r, struct cell_run *cr, long idx,
			void *arg, char *why, size_t len)
{
	struct guest *g = arg;
	json_t *res = NULL;
	int ret;

	ret = guest_call_run(r, cr->cell, &g->life.a, r->cfg.wl.run, false,
			     &res, why, len);
	if (ret < 0)
		return ret;
	run_save_output(r, cr->slug, "warmup", idx,
			json_string_value(json_object_get(res, "output")));
	json_decref(res);
	return 0;
}

/*
 * The workload's setup and warm-up runs in guest G: -1 with the cell failed
 * (a setup that failed) or with *REASON (owned; the guest went away).
 */
static int guest_setup(struct run *r, struct cell_run *cr, struct guest *g,
		       char **reason)
{
	const struct cell *c = cr->cell;
	json_t *res = NULL;
	char why[512];
	int ret;

	if (*r->cfg.wl.setup) {
		run_progress(r, cr->ci, "setup");
		ret = guest_call_run(r, c, &g->life.a, r->cfg.wl.setup, false, &res,
				     why, sizeof(why));
		if (ret == 0 && json_is_string(json_object_get(res, "status")) &&
		    strcmp(json_string_value(json_object_get(res, "status")),
			   "ok")) {
			run_save_output(r, cr->slug, "setup", g->boot,
					json_string_value(
						json_object_get(res, "output")));
			snprintf(why, sizeof(why),
				 "setup failed; see logs/%s.setup-%d.out",
				 cr->slug, g->boot);
			ret = -EIO;
		}
		json_decref(res);
		res = NULL;
		if (ret < 0) {
			cell_fail(cr->st, why);
			return -1;
		}
	}
	if (run_warmup(r, cr, guest_warmup, g, why, sizeof(why)) < 0) {
		*reason = xasprintf("warm-up run: %s", why);
		return -1;
	}
	return 0;
}

/* A fresh overlay of GF->disk for a guest of cell TAG, here or on the
 * remote libvirt's host (guest-remote.h): *PATH, owned, set even on
 * failure. */
static int guest_overlay_new(struct run *r, const struct guest_files *gf,
			     const char *tag, char **path)
{
	struct guest_remote *rem = exec_guest_remote(r);

	if (rem)
		return guest_remote_overlay(rem, gf, tag, path);
	return guest_overlay_create(gf, tag, path);
}

/*
 * The spec of guest number G->boot of the cell (a fresh guest after one
 * died gets its own name and console log, so the dead one's is kept):
 * NAME, *CMDLINE (owned) and its disk overlay.  -1 with the cell failed or
 * with *REASON (owned).
 */
static int guest_spec(struct run *r, struct cell_run *cr, struct guest *g,
		      struct vm_spec *spec, char *name, size_t nlen,
		      char **cmdline, char **reason)
{
	struct guest_remote *rem = exec_guest_remote(r);
	const struct cell *c = cr->cell;
	const struct guest_files *gf = run_guest_files(r, c);
	int boot = g->boot;
	char sfx[16] = "";

	/* A replaced guest may linger a moment while libvirt tears it down:
	 * every boot has a name (and a console log) of its own. */
	if (boot)
		snprintf(sfx, sizeof(sfx), "%d", boot);
	snprintf(name, nlen, "vmtax-%s-%d-%d%s%s", r->cfg.name, cr->ci,
		 (int)getpid(), boot ? "-" : "", sfx);
	g->console = xasprintf("%s/logs/%s%s%s.console.log", r->rundir,
			       cr->slug, boot ? ".boot" : "", sfx);
	/* a remote host's virtlogd writes it there; fetched after the guest */
	if (rem)
		g->remote_console = guest_remote_console_new(rem, name);
	*cmdline = xasprintf(VM_CMDLINE_BASE " %s%s",
			     gf->disk ? "root=/dev/vda rw " : "", c->cmdline);
	memset(spec, 0, sizeof(*spec));
	spec->name = name;
	spec->type = c->paging == PAGING_TCG || !strcmp(r->accel, "tcg")
			     ? "qemu"
			     : "kvm";
	spec->vcpus = (unsigned)c->vcpus;
	spec->memory_bytes = c->memory;
	spec->kernel = gf->kernel;
	spec->initrd = gf->initrd;
	spec->cmdline = *cmdline;
	spec->console_log = g->remote_console ? g->remote_console : g->console;
	spec->backing = backing_name(c->backing);
	spec->cpu_features = r->cfg.cpu_features;
	if (guest_pin(r, cr, g, reason) < 0)
		return -1;
	spec->pin = &g->pin;
	if (guest_numa(r, cr, g, spec, reason) < 0)
		return -1;
	if (gf->disk) {
		/* Each guest boots a fresh overlay: the cached image stays
		 * clean, and one cell's build tree cannot leak into the next.
		 * It lives beside the image, where QEMU (libvirt-qemu) can
		 * reach it as it must reach the image; a run directory may
		 * sit under a private one.  On a remote libvirt, there. */
		if (guest_overlay_new(r, gf, cr->slug, &g->overlay) < 0) {
			cell_fail(cr->st, "cannot create the disk overlay");
			return -1;
		}
		spec->disk = g->overlay;
	}
	return 0;
}

/* What the agent's hello RES says of the guest, into observed. */
static void hello_observed(struct run *r, struct cell_run *cr,
			   struct guest *g, json_t *res)
{
	const struct guest_files *gf = run_guest_files(r, cr->cell);
	json_t *obs = cr->st->observed;
	double t_start = g->life.t_start;

	json_object_set_new(obs, "boot_to_hello_s",
			    json_real(mono_now() - t_start));
	json_object_set_new(obs, "boot_breakdown",
			    guest_boot_breakdown(res, g->life.libvirt_s,
					   mono_now() - t_start));
	json_object_set_new(obs, "guest_boots", json_integer(g->boot + 1));
	json_object_set(obs, "guest_kernel", json_object_get(res, "kernel"));
	/* The file QEMU booted: pvh-HASH.vmlinux through the kernel's PVH
	 * entry (guest-pvh.h), else the kernel image itself. */
	json_object_set_new(obs, "guest_boot_kernel",
			    json_string(path_base(gf->kernel)));
	/* Which cached image (its recipe hash is in the name) booted. */
	if (gf->disk)
		json_object_set_new(obs, "guest_image",
				    json_string(path_base(gf->disk)));
	json_object_set(obs, "guest_cpus",
			json_object_get(res, json_object_get(res, "cpus_online")
						     ? "cpus_online"
						     : "cpus"));
	json_object_set(obs, "guest_mem_bytes", json_object_get(res, "mem_bytes"));
	/* The workloads' shell, as bare metal's (layout.h), and scratch */
	json_object_set_new(obs, "shell", json_string(LAYOUT_BUSYBOX));
	json_object_set_new(obs, "scratch",
			    json_pack("{ssss}", "kind", r->cfg.wl.scratch,
				      "path", guest_scratch(r)));
	guest_observed(obs, res, "");
	guest_note_userland(r, res);
}

/*
 * The agent's hello, within [guest] boot_timeout: 0 with what it says in
 * observed, or -1 with *REASON (owned) and the console's last lines shown.
 */
static int guest_hello(struct run *r, struct cell_run *cr, struct guest *g,
		       char **reason)
{
	const char *rel = g->console + strlen(r->rundir) + 1;
	json_t *res = NULL;
	char why[512];
	int ret;

	ret = vm_life_hello(&g->life, r->cfg.boot_timeout_s, &res, why,
			    sizeof(why));
	if (ret < 0) {
		*reason = ret == -EPIPE
				  ? xasprintf("the guest ended %.0f s after its "
					      "start, before its agent said "
					      "hello: %s; console: %s",
					      mono_now() - g->life.t_start, why,
					      rel)
			  : g->life.a.console_trouble
			      ? xasprintf("no hello from the guest agent: %s; "
					  "console: %s",
					  why, rel)
				  : xasprintf("no hello from the guest agent "
					      "within %.0f s: %s; console: %s",
					      r->cfg.boot_timeout_s, why, rel);
		g->life.agent_dead = true;
		console_tail(g->console);
		json_decref(res);
		return -1;
	}
	hello_observed(r, cr, g, res);
	json_decref(res);
	return 0;
}

/*
 * Boot guest number G->boot of the cell, say hello, set the guest THP and
 * knobs, run the setup and the warm-up runs.  On failure the cell is failed
 * with the reason and -1 is returned; guest_down() cleans up either way.
 */
static int guest_up(struct run *r, struct cell_run *cr, struct guest *g)
{
	char name[128], *cmdline = NULL, *reason = NULL;
	struct vm_spec spec;
	double silent_s;
	int ret = -1;

	/* Every guest of the cell, across rounds and replacements, counts. */
	cr->st->boots = g->boot + 1;
	if (guest_spec(r, cr, g, &spec, name, sizeof(name), &cmdline,
		       &reason) < 0)
		goto out;
	run_progress(r, cr->ci,
		     g->boot ? "booting a fresh guest" : "booting guest");
	/* Silent for two heartbeats beside a kernel line in the console: the
	 * guest is lost, whatever its heartbeats could have said.  A remote
	 * host's console is not here to watch. */
	silent_s = exec_guest_remote(r) ? 0 : 2 * r->cfg.heartbeat_s + 1;
	if (vm_life_boot(&g->life, r->conn, &spec, g->log, silent_s) < 0) {
		cell_fail(cr->st, "cannot start the guest (see above)");
		goto out;
	}
	cr->own_pid = vm_qemu_pid(g->life.vm);
	if (guest_hello(r, cr, g, &reason) < 0 ||
	    guest_settings(cr, g, &reason) < 0 ||
	    guest_setup(r, cr, g, &reason) < 0)
		goto out;
	/* What KVM sees of this guest, per sample (unavailable under TCG
	 * and on a remote libvirt: each sample then says why). */
	if (run_exec_has(r, cr->ci, EXEC_HAS_KVM_STATS) &&
	    kvm_sampler_new("", vm_qemu_pid(g->life.vm), &g->kvm) < 0) {
		warn("%s: cannot follow the guest's KVM stats; its samples "
		     "record none",
		     cr->cell->id);
		g->kvm = NULL;
	}
	ret = 0;
out:
	if (reason) {
		err("%s: %s", cr->cell->id, reason);
		cell_fail(cr->st, reason);
		free(reason);
	}
	free(cmdline);
	return ret;
}

/* Power the guest off (politely when its agent still answers) and free it;
 * a remote host's console log comes into the run directory. */
static void guest_down(struct run *r, struct cell_run *cr, struct guest *g)
{
	struct guest_remote *rem = exec_guest_remote(r);
	json_t *bye = NULL;

	kvm_sampler_free(g->kvm);
	g->kvm = NULL;
	/* The agent powers off once it sees the channel closed, which
	 * vm_life_down() does first (see vm_close_channel()), half a second
	 * after its reply at most. */
	vm_life_down(&g->life, 0.5, 20, &bye);
	if (bye)
		json_object_set(cr->st->observed, "agent_max_rss_kb",
				json_object_get(bye, "agent_max_rss_kb"));
	json_decref(bye);
	if (g->overlay) {
		if (rem)
			guest_remote_remove(rem, g->overlay);
		else
			unlink(g->overlay);
		free(g->overlay);
		g->overlay = NULL;
	}
	if (g->remote_console && rem)
		guest_remote_fetch(rem, g->remote_console, g->console);
	free(g->remote_console);
	g->remote_console = NULL;
	free(g->console);
	g->console = NULL;
}

static int guest_start(struct run *r, struct cell_run *cr)
{
	struct guest *g = xcalloc(1, sizeof(*g));
	char *rel = xasprintf("logs/%s.agent.log", cr->slug);

	cr->priv = g;
	/* A later guest of the cell (a round, [run] boots) goes on from the
	 * cell's count and adds to its transcript. */
	g->boot = (int)cr->st->boots;
	g->log = fopen_beneath(r->rundir, rel, g->boot > 0);
	free(rel);
	return guest_up(r, cr, g);
}

static int guest_sample(struct run *r, struct cell_run *cr, long idx,
			json_t **sj, struct runner_result *res, char *why,
			size_t len)
{
	struct guest *g = cr->priv;
	json_t *j = NULL;
	bool kvm_begun = false;
	long anon_kb;
	int ret;

	(void)idx;
	/* The guest's backing as the sample begins: a guest kept up across
	 * interleaved rounds must keep what its boot gave it (run-rounds.c). */
	if (host_anon_huge_kb("", vm_qemu_pid(g->life.vm), &anon_kb) < 0)
		anon_kb = -1;
	kvm_begun = g->kvm && kvm_sampler_begin(g->kvm) == 0;
	ret = guest_call_run(r, cr->cell, &g->life.a, r->cfg.wl.run, true, &j, why, len);
	if (ret < 0) {
		if (ret == -EPIPE || ret == -ETIMEDOUT) {
			console_tail(g->console);
			g->life.agent_dead = true;
		}
		return ret;
	}
	if (proto_sample_from_json(j, res) < 0) {
		json_decref(j);
		snprintf(why, len, "bad sample from the agent");
		return -EPROTO;
	}
	/* What KVM saw during the sample ("kvm": null with "kvm_why" where
	 * it cannot be seen, as under TCG). */
	if (!kvm_begun || kvm_sampler_end(g->kvm, j) < 0) {
		json_object_set_new(j, "kvm", json_null());
		const struct guest_remote *rem = exec_guest_remote(r);

		json_object_set_new(
			j, "kvm_why",
			rem ? json_sprintf("the guest runs on the KVM of '%s', "
					   "a remote libvirt",
					   rem->d.host)
			    : json_string("cannot follow this guest's KVM "
					  "stats"));
	}
	json_object_set_new(j, "qemu_anon_huge_kb_before",
			    anon_kb >= 0 ? json_integer(anon_kb) : json_null());
	*sj = j;
	return 0;
}

/* The profiled run (docs/profile.md): the agent samples and symbolizes. */
static int guest_profile(struct run *r, struct cell_run *cr,
			 struct runner_result *res, char *why, size_t len)
{
	struct guest *g = cr->priv;
	json_t *args = guest_run_args(r, cr->cell, r->cfg.wl.run, true);
	json_t *j = NULL, *pj;
	int ret;

	if (g->life.agent_dead) {
		snprintf(why, len, "the guest's agent is gone");
		return -EPIPE;
	}
	json_object_set_new(args, "profile", json_true());
	/* Under TCG a sample costs 100 us or more of emulation
	 * (docs/profile.md): unless profile_hz was set, sample a TCG guest
	 * at PROFILE_TCG_HZ. */
	json_object_set_new(
		args, "profile_hz",
		json_real(!r->cfg.profile_hz_set &&
				  (cr->cell->paging == PAGING_TCG ||
				   !strcmp(r->accel, "tcg"))
			  ? PROFILE_TCG_HZ
			  : r->cfg.profile_hz));
	ret = agent_call(&g->life.a, "run", args, r->cfg.silence_s,
			 run_sample_timeout(r) + 120, &j, why, len);
	json_decref(args);
	if (ret < 0) {
		if (ret == -EPIPE || ret == -ETIMEDOUT)
			g->life.agent_dead = true;
		return ret;
	}
	ret = proto_sample_parse(j, res, why, len);
	pj = json_object_get(j, "profile");
	if (ret == 0 && !pj) {
		snprintf(why, len, "the agent did not profile (an older agent)");
		ret = -EPROTO;
	} else if (ret == 0 && !(res->profile = profile_from_json(pj, why,
								  len))) {
		ret = -EPROTO;
	}
	json_decref(j);
	return ret;
}

/*
 * The guest died or hung in a sample, for REASON: note it in the cell's
 * observed.guest_restarts, stop it and boot the next one in its place (setup
 * and warm-up again).
 */
static int guest_restart(struct run *r, struct cell_run *cr, const char *reason)
{
	struct guest *g = cr->priv;
	json_t *list = json_object_get(cr->st->observed, "guest_restarts");

	if (!list) {
		list = json_array();
		json_object_set_new(cr->st->observed, "guest_restarts", list);
	}
	json_array_append_new(list, json_string(reason));
	guest_down(r, cr, g);
	g->boot++;
	return guest_up(r, cr, g);
}

static void guest_stop(struct run *r, struct cell_run *cr)
{
	struct guest *g = cr->priv;
	char why[512];
	json_t *res = NULL;

	if (!g)
		return;
	if (g->life.vm && cr->st->status == CELL_PENDING && !g->life.agent_dead) {
		if (!exec_guest_remote(r)) /* its QEMU is not a process here */
			guest_observe_qemu(g->life.vm, cr->cell, cr->st->observed);
		if (agent_observe(&g->life.a, &res, why, sizeof(why)) == 0) {
			guest_observed(cr->st->observed, res, "_end");
			json_decref(res);
			res = NULL;
		}
		if (*r->cfg.wl.clean &&
		    guest_call_run(r, cr->cell, &g->life.a, r->cfg.wl.clean, false, &res, why,
				   sizeof(why)) == 0)
			json_decref(res);
	}
	guest_down(r, cr, g);
	if (g->log)
		fclose(g->log);
	free(g);
	cr->priv = NULL;
}

/* Guests of this host's KVM or TCG: its accelerator and paging. */
static int guest_check(struct run *r, bool dry)
{
	(void)dry;
	return run_accel_here(r);
}

const struct cell_exec_ops cell_exec_guest = {
	.name = "guest",
	.flags = EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS |
		 EXEC_HAS_KVM_STATS | EXEC_CAN_PROFILE,
	.check = guest_check,
	.start = guest_start,
	.sample = guest_sample,
	.restart = guest_restart,
	.profile = guest_profile,
	.stop = guest_stop,
};

/* The same guests on a remote libvirt: that host's settings, KVM and QEMU
 * are not this host's (run-config-remote.c refuses what would need them);
 * its connection is the executor's per-run state (exec-guest-remote.c). */
const struct cell_exec_ops cell_exec_guest_remote = {
	.name = "guest-remote",
	.flags = EXEC_NEEDS_GUEST | EXEC_REMOTE_LIBVIRT | EXEC_CAN_PROFILE,
	.check = exec_guest_remote_check,
	.begin = exec_guest_remote_begin,
	.describe = exec_guest_remote_describe,
	.end = exec_guest_remote_end,
	.start = guest_start,
	.sample = guest_sample,
	.restart = guest_restart,
	.profile = guest_profile,
	.stop = guest_stop,
};
