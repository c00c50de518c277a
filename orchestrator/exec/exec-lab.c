/* SPDX-License-Identifier: MIT */
/*
 * exec-lab.c - the lab executor ([run] executor = lab, cell-exec.h): every
 * cell of the matrix runs inside a lab host (lab.h, docs/lab.md).
 *
 * This host only boots the lab (a TCG guest whose CPU offers svm and npt)
 * and talks to its agent (lab-session.c): it puts this vmtax into the lab
 * (GUEST_LAB_VMTAX), and the config and its workload file at the same paths
 * they have here, starts 'vmtax run' there detached from the agent, shows
 * that run's output as it comes ("lab| "), and copies the lab's run
 * directory back into DIR/LAB_SUBDIR (every LAB_SYNC_S and at the end).
 * What the run inside recorded then becomes this run's results.json
 * (results_remote_take(): checked against this matrix), labelled "lab".
 * Nothing on this host changes but the lab's domain, which dies with vmtax
 * (AUTODESTROY when booted; a restored one is destroyed by vmtax, and one
 * left by a killed vmtax by the next lab run), its saved state
 * (lab-restore.c), and its disk overlay, one per run directory (its name from
 * DIR's path), kept until the run inside is done so that 'vmtax run
 * --resume DIR' boots the same disk and resumes the same run: the resume
 * state is results.json's, as for every run.
 *
 * Interrupting: the first SIGINT/SIGTERM/SIGHUP stops the run inside (it
 * restores the lab host's settings and keeps its samples), then its files
 * are copied back; a second one stops at once.  After SIGKILL the lab dies
 * with the libvirt connection, and '--resume DIR' goes on.  A lab that dies
 * or hangs is booted again on its disk and resumed (lab_drive()).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "beneath.h"
#include "cell-exec.h"
#include "guest-files.h"
#include "host.h"
#include "image.h"
#include "lab.h"
#include "lab-session.h"
#include "lab-sync.h"
#include "profile-sample.h"
#include "results-doc.h"
#include "run-engine.h"
#include "util.h"
#include "vm.h"

static void host_facts_read(struct lab_host_facts *h)
{
	long kb;

	memset(h, 0, sizeof(*h));
	if (host_meminfo_kb("", "MemAvailable", &kb) == 0 && kb > 0)
		h->mem_available = (uint64_t)kb * 1024;
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * Before anything boots: what the lab cannot run of the matrix is refused
 * (lab_config_check()); this vmtax's agent and workloads must be found,
 * and the debian image its guests boot, if any (lab_carrier_find()); with
 * DRY, whether the lab image is up to date is said, and what it carries.
 */
static int lab_check(struct run *r, bool dry)
{
	struct lab_host_facts facts;
	struct guest_files carrier;
	struct image_opts o;
	int ret;

	host_facts_read(&facts);
	if (lab_config_check(&r->cfg, &r->matrix, &facts) < 0)
		return -EINVAL;
	/* A debian image for its guests is this host's, built already. */
	ret = lab_carrier_find(&r->matrix, r->bindir, r->cfg.path, &carrier);
	if (ret < 0)
		return ret;
	if (!r->resume && r->cfg.profile && !r->cfg.profile_hz_set)
		note("lab: every cell runs on emulated hardware: the profile "
		     "samples at %g Hz unless run.profile_hz is set",
		     PROFILE_TCG_HZ);
	snprintf(r->accel_why, sizeof(r->accel_why),
		 "inside a lab host (executor = lab: TCG-emulated %s %s, "
		 "its guests under its KVM)",
		 r->cfg.lab_cpu, r->cfg.lab_cpu_features);
	if (dry) {
		lab_image_opts(&r->cfg, r->bindir, &o);
		o.check = true;
		o.would = &r->lab_image_would;
		ret = image_build(&o) < 0 ? -EIO : 0;
	}
	if (dry && ret == 0)
		printf("lab host: %s %s, %ld vCPUs, %.1f GiB, TCG on this "
		       "host\n",
		       r->cfg.lab_cpu, r->cfg.lab_cpu_features,
		       r->cfg.lab_vcpus, (double)r->cfg.lab_memory / (1 << 30));
	if (dry && ret == 0 && carrier.disk)
		printf("lab carries: '%s', read-only: the debian image its "
		       "guests boot\n",
		       carrier.disk);
	guest_files_release(&carrier);
	return ret;
}

/*
 * The lab session of run R: its config at the same absolute path in the
 * lab, its --set list, then what the run inside must add: it runs its
 * cells itself (executor = local there, whatever the config says), and at
 * the lab's profile rate when none is set.  This host's run records what
 * it was given.
 */
static int lab_init(struct lab *l, struct run *r)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	l->ready_s = -1; /* not ready (yet) */
	l->cfg = &r->cfg;
	l->m = &r->matrix;
	l->dir = r->rundir;
	l->resume = r->resume;
	l->stop_signals = r->stop_signals;
	snprintf(l->bindir, sizeof(l->bindir), "%s", r->bindir);
	l->config_path = realpath(r->cfg.path, NULL);
	if (!l->config_path)
		return err_errno("cannot resolve '%s'", r->cfg.path);
	l->sets = xcalloc(r->nsets + 2, sizeof(*l->sets));
	for (i = 0; i < r->nsets; i++)
		l->sets[l->nsets++] = r->sets[i];
	l->sets[l->nsets++] = "run.executor=" CELL_EXEC_LOCAL;
	/* Every cell of a lab run runs on TCG-emulated hardware, the lab's
	 * own "bare metal" and its KVM guests alike, where a sample costs 10
	 * to 20 times what it costs a real CPU (docs/profile.md, Cost). */
	if (r->cfg.profile && !r->cfg.profile_hz_set) {
		l->tcg_hz = xasprintf("run.profile_hz=%g", PROFILE_TCG_HZ);
		l->sets[l->nsets++] = l->tcg_hz;
	}
	return 0;
}

/*
 * Boot the lab and follow the run inside to its end (*RC, its status).
 * The lab itself can die (emulated nested virtualization is not bug-free:
 * its kernel can crash in KVM's vCPU thread), or hang: still running, its
 * agent silent.  Its disk holds the run: boot it again and resume, a
 * bounded number of times.  A lab whose agent still answers failed for a
 * reason of its own, reported: that ends the run.
 */
static int lab_drive(struct lab *l, int *rc)
{
	bool inner_resume = false, hung;

	for (;;) {
		if (lab_boot(l) == 0 && lab_push(l, &inner_resume) == 0 &&
		    lab_start_run(l, inner_resume) == 0 &&
		    lab_follow(l, rc) == 0)
			return 0;
		if (!l->life.vm || *l->stop_signals || l->boots > LAB_RESTARTS)
			return -EINTR;
		hung = vm_running(l->life.vm);
		if (hung && lab_answers(l))
			return -EIO;
		if (hung)
			warn("lab: the lab host hung (running, but its agent "
			     "did not answer for %.0f s; its console is in "
			     "'%s/logs'): destroying it, booting it again on "
			     "the same disk and resuming the run (%d of %d)",
			     LAB_PROBE_S, l->dir, l->boots, LAB_RESTARTS);
		else
			warn("lab: the lab host died (%s; its console is in "
			     "'%s/logs'): booting it again on the same disk "
			     "and resuming the run (%d of %d)",
			     vm_stop_reason(l->life.vm), l->dir, l->boots,
			     LAB_RESTARTS);
		lab_down(l);
		l->resume = true;
	}
}

/*
 * What the run inside recorded, as far as it came back
 * (DIR/LAB_SUBDIR/results.json), or NULL (said why).  Each profile's folded
 * file is named under LAB_SUBDIR, or dropped when its name is not one a lab
 * file can have (lab-sync.h).
 */
static json_t *lab_doc_read(const struct lab *l)
{
	char *text = NULL, why[RESULTS_DOC_WHY_MAX];
	json_t *doc, *c;
	size_t len = 0, i;
	int ret;

	ret = read_file_beneath(l->dir, LAB_SUBDIR "/results.json",
				(size_t)LAB_FILE_BYTES_MAX, &text, &len);
	if (ret < 0) {
		err("lab: no results came back: '%s/" LAB_SUBDIR
		    "/results.json': %s",
		    l->dir, beneath_strerror(ret));
		return NULL;
	}
	ret = results_doc_decode(text, len, 0, &doc, why, sizeof(why));
	free(text);
	if (ret == 0 && !json_is_object(doc))
		snprintf(why, sizeof(why), "not an object");
	if (!json_is_object(doc)) {
		err("lab: '%s/" LAB_SUBDIR "/results.json': %s", l->dir, why);
		json_decref(doc);
		return NULL;
	}
	json_array_foreach(json_object_get(doc, "cells"), i, c)
	{
		json_t *p = json_object_get(json_object_get(c, "observed"),
					    "profile");
		const char *f = json_string_value(json_object_get(p, "folded"));

		if (!f)
			continue;
		if (lab_path_check(f, strlen(f), why, sizeof(why)) == 0) {
			json_object_set_new(p, "folded",
					    json_sprintf(LAB_SUBDIR "/%s", f));
		} else {
			warn("lab: cell %zu: its profile's file is refused: %s",
			     i, why);
			json_object_del(p, "folded");
		}
	}
	return doc;
}

/* What this host knows of the lab: results.json "lab". */
static json_t *lab_label_new(const struct lab *l)
{
	char lv[64] = "", qv[64] = "", hn[256] = "";
	struct utsname u;
	json_t *label;

	uname(&u);
	gethostname(hn, sizeof(hn) - 1);
	vm_versions(l->cfg->uri, lv, sizeof(lv), qv, sizeof(qv));
	label = json_pack(
	    "{s:b, s:s, s:s, s:s, s:I, s:I, s:O, s:O, s:s?, s:s?, s:f, s:f, "
	    "s:i, s:{s:s, s:s, s:s, s:s}}",
	    "emulated", 1, "accel", "tcg", "cpu_model", l->cfg->lab_cpu,
	    "cpu_features", l->cfg->lab_cpu_features, "vcpus",
	    (json_int_t)l->cfg->lab_vcpus, "memory_bytes",
	    (json_int_t)l->cfg->lab_memory, "kernel",
	    json_object_get(l->hello, "kernel") ?: json_null(), "mem_total_kb",
	    json_object_get(l->hello, "mem_total_kb") ?: json_null(), "image",
	    l->gf.disk ? path_base(l->gf.disk) : NULL, "disk",
	    l->overlay, "boot_to_hello_s", l->boot_to_hello_s,
	    "boot_to_ready_s", l->boot_to_ready_s, "boots", l->boots,
	    "outer_host", "hostname", hn, "kernel", u.release, "libvirt", lv,
	    "qemu", qv);
	/* How it became ready: restored from a saved state, or booted. */
	json_object_set_new(label, "restored", json_boolean(l->restored));
	json_object_set_new(label, "state_saved",
			    json_boolean(l->state_saved));
	/* The debian image its guests booted, carried in (lab-carrier.c). */
	json_object_set_new(label, "carries",
			    l->carrier.disk
				? json_string(path_base(l->carrier.disk))
				: json_null());
	json_object_set_new(label, "ready_s",
			    l->ready_s >= 0 ? json_real(l->ready_s)
					    : json_null());
	return label;
}

/* After the lab's run (*RC inside; -1: it did not end): put it away. */
static void lab_end(struct lab *l, int rc)
{
	lab_down(l);
	if (l->overlay) {
		if (rc == 0)
			unlink(l->overlay);
		else
			note("lab: the lab's disk is kept for 'vmtax run "
			     "--resume %s'",
			     l->dir);
	}
	if (l->alog)
		fclose(l->alog);
	vm_conn_close(l->conn);
	json_decref(l->hello);
	guest_files_release(&l->gf);
	guest_files_release(&l->carrier);
	free(l->overlay);
	free(l->config_path);
	free(l->tcg_hz);
	free(l->sets);
}

static int lab_run_remote(struct run *r, json_t **doc, json_t **label,
			  int *rc)
{
	struct lab l;
	int ret;

	*doc = *label = NULL;
	*rc = -1;
	ret = lab_init(&l, r);
	if (ret == 0)
		ret = lab_image(&l);
	if (ret == 0)
		ret = lab_drive(&l, rc);
	if (ret == 0) {
		note("lab: the run inside ended with status %d", *rc);
		ret = lab_sync(&l, false);
	} else if (l.life.vm && l.life.client) {
		lab_sync(&l, false); /* whatever there is */
	}
	*doc = lab_doc_read(&l);
	if (ret == 0 && !*doc)
		ret = -EIO;
	*label = lab_label_new(&l);
	lab_end(&l, *rc);
	return ret;
}

const struct cell_exec_ops cell_exec_lab = {
	.name = "lab",
	.flags = EXEC_REMOTE,
	.check = lab_check,
	.run_remote = lab_run_remote,
};
