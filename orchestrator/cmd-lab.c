/* SPDX-License-Identifier: MIT */
/*
 * vmtax lab run CONFIG: the config's matrix, run inside a lab host (lab.h,
 * docs/lab.md).
 *
 * This host only boots the lab (a TCG guest whose CPU offers svm and npt)
 * and talks to its agent: it puts this vmtax into the lab
 * (GUEST_LAB_VMTAX), and the config and its workload file at the same
 * paths they have here, starts 'vmtax run' there
 * detached from the agent (LAB_SCRIPT), shows that run's output as it
 * comes, and copies the lab's run directory back into DIR (every
 * LAB_SYNC_S and at the end).  Nothing on this host changes but the lab's
 * domain, which dies with vmtax (AUTODESTROY), and its disk overlay, which
 * is kept until the run inside is done so that '--resume DIR' can boot the
 * same disk and resume the same run.
 *
 * Interrupting: the first SIGINT/SIGTERM/SIGHUP stops the run inside (it
 * restores the lab host's settings and keeps its samples), then its files
 * are copied back; a second one stops at once.  After SIGKILL the lab dies
 * with the libvirt connection, and '--resume DIR' goes on.
 *
 * This file is the command: its options, the restart of a lab that dies or
 * hangs, and the labels of the results; lab-session.c talks to the lab.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent-client.h"
#include "beneath.h"
#include "cmd-opts.h"
#include "cmds.h"
#include "guest-files.h"
#include "host.h"
#include "image.h"
#include "lab.h"
#include "lab-session.h"
#include "lab-sync.h"
#include "matrix.h"
#include "profile-sample.h"
#include "report.h"
#include "results-file.h"
#include "run-args.h"
#include "run-config.h"
#include "stop-signals.h"
#include "util.h"
#include "vm.h"

static const struct opt lab_opts[] = {
	{ 'o', "out", OPT_STRING, offsetof(struct run_args, out), NULL, "DIR",
	  "run directory (default: runs/NAME-lab-TIMESTAMP)", NULL },
	{ 's', "set", OPT_STRINGS, offsetof(struct run_args, sets), NULL,
	  "S.K=V", "override a config key (as vmtax run --set)", NULL },
	{ 'r', "resume", OPT_STRING, offsetof(struct run_args, resume), NULL,
	  "DIR", "boot DIR's lab disk again and resume its run", NULL },
	{ 'n', "dry-run", OPT_FLAG, offsetof(struct run_args, dry), NULL, NULL,
	  "check CONFIG and what the lab image needs,\n"
	  "say whether the image is up to date or\n"
	  "would be built, and stop: nothing boots",
	  NULL },
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax lab run CONFIG [--out DIR] [--set SECTION.KEY=VALUE]...\n"
		"       vmtax lab run --resume DIR\n"
		"       vmtax lab run CONFIG --dry-run [--set SECTION.KEY=VALUE]...\n"
		"\n"
		"Runs CONFIG's matrix inside a lab host: a TCG guest of this host\n"
		"whose emulated CPU offers AMD-V with nested paging (svm, npt), so\n"
		"that KVM runs inside it for real: npt = on, off reloads kvm_amd\n"
		"there, its guests are KVM guests, and what KVM saw is recorded.\n"
		"The lab boots the lab image (built on first use: 'vmtax image\n"
		"build --kind lab', minutes); its size and CPU are the config's\n"
		"[lab] keys.  The run's output shows here as it goes, and its\n"
		"results, reports and logs come back into DIR, labelled as\n"
		"measured on emulated hardware.  This host's settings are never\n"
		"changed.  Ctrl-C stops the run inside (it keeps its samples);\n"
		"'--resume DIR' goes on after an interruption or a crash.\n"
		"\n");
	opts_help(f, lab_opts, 2, 23);
	fprintf(f,
		"\n"
		"[lab] keys (see 'vmtax run --help'): cpu, cpu_features, vcpus,\n"
		"memory.  Refused before anything boots: ept (the lab is AMD), 1G\n"
		"backing without pdpe1gb, guests larger than the lab, a lab larger\n"
		"than this host.\n");
}

static void host_facts_read(struct lab_host_facts *h)
{
	long kb;

	memset(h, 0, sizeof(*h));
	if (host_meminfo_kb("", "MemAvailable", &kb) == 0 && kb > 0)
		h->mem_available = (uint64_t)kb * 1024;
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * What this host knows of the run, over what the lab says: the config path
 * and --set list are this host's, and each profile's folded file is named
 * under LAB_SUBDIR, or dropped when its name is not one a lab file can
 * have (lab-sync.h).
 */
static void lab_doc_own(const struct lab *l, json_t *doc)
{
	json_t *run = json_object_get(doc, "run"), *sets = json_array(), *c;
	char why[256];
	size_t i;

	for (i = 0; i < l->nsets; i++)
		json_array_append_new(sets, json_string(l->sets[i]));
	if (json_is_object(run)) {
		json_object_set_new(run, "config_path",
				    json_string(l->config_path));
		json_object_set_new(run, "sets", sets);
	} else {
		json_decref(sets);
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
}

/*
 * The lab's results (DIR/LAB_SUBDIR/results.json) into DIR/results.json,
 * labelled ("lab": what the cells ran on), then the reports rendered from
 * it, every format saying so.  CUT_OFF: the run inside was not followed to
 * its end (the lab stopped answering, or a stopped run did not end in
 * time): what came back was saved mid-run ("running"), and nothing runs
 * now, so it is labelled "interrupted" (--resume continues it).
 */
static int lab_label(struct lab *l, bool cut_off)
{
	char *path = xasprintf("%s/results.json", l->dir), *s = NULL;
	char lv[64] = "", qv[64] = "", hn[256] = "", *text = NULL;
	struct utsname u;
	json_error_t je;
	json_t *doc = NULL, *lab;
	size_t len = 0;
	int ret;

	ret = read_file_beneath(l->dir, LAB_SUBDIR "/results.json",
				(size_t)LAB_FILE_BYTES_MAX, &text, &len);
	if (ret < 0) {
		err_code(ret, "lab: no results came back: '%s/" LAB_SUBDIR
			      "/results.json'",
			 l->dir);
		goto out;
	}
	doc = json_loadb(text, len, 0, &je);
	if (!json_is_object(doc)) {
		ret = err("lab: '%s/" LAB_SUBDIR "/results.json': %s", l->dir,
			  doc ? "not an object" : je.text);
		goto out;
	}
	lab_doc_own(l, doc);
	if (cut_off)
		results_doc_cut_off(doc);
	uname(&u);
	gethostname(hn, sizeof(hn) - 1);
	vm_versions(l->cfg.uri, lv, sizeof(lv), qv, sizeof(qv));
	lab = json_pack(
	    "{s:b, s:s, s:s, s:s, s:I, s:I, s:O, s:O, s:s, s:f, s:f, "
	    "s:{s:s, s:s, s:s, s:s}}",
	    "emulated", 1, "accel", "tcg", "cpu_model", l->cfg.lab_cpu,
	    "cpu_features", l->cfg.lab_cpu_features, "vcpus",
	    (json_int_t)l->cfg.lab_vcpus, "memory_bytes",
	    (json_int_t)l->cfg.lab_memory, "kernel",
	    json_object_get(l->hello, "kernel") ?: json_null(), "mem_total_kb",
	    json_object_get(l->hello, "mem_total_kb") ?: json_null(), "image",
	    strrchr(l->gf.disk, '/') + 1, "boot_to_hello_s",
	    l->boot_to_hello_s, "boot_to_ready_s", l->boot_to_ready_s,
	    "outer_host", "hostname", hn, "kernel", u.release, "libvirt", lv,
	    "qemu", qv);
	json_object_set_new(doc, "lab", lab);
	s = json_dumps(doc, JSON_INDENT(2));
	ret = s ? write_file_beneath(l->dir, "results.json", s, strlen(s))
		: -ENOMEM;
	if (ret == 0)
		report_write_rundir(l->dir, path);
out:
	json_decref(doc);
	free(text);
	free(s);
	free(path);
	return ret;
}

/*
 * The lab's directory and config as the command line names them: with
 * --resume, what DIR's lab state says (*STATE keeps it); else CONFIG,
 * resolved into *ABS (owned), the path it has in the lab too.
 */
static int lab_open(struct lab *l, const struct run_args *a, json_t **state,
		    char **abs)
{
	if (a->resume) {
		l->resume = true;
		l->dir = realpath(a->resume, NULL);
		if (!l->dir)
			return err_errno("cannot resolve '%s'", a->resume);
		if (lab_state_read(l, state) < 0)
			return -EINVAL;
		l->config_arg = l->config_path;
		return 0;
	}
	*abs = realpath(a->config, NULL);
	if (!*abs)
		return err_errno("cannot read config '%s'", a->config);
	l->config_path = *abs;
	l->config_arg = a->config;
	return 0;
}

/*
 * Everything that can be refused is refused before anything boots.  Every
 * cell of a lab run runs on TCG-emulated hardware, the lab's own "bare
 * metal" and its KVM guests alike, where a sample costs 10 to 20 times
 * what it costs a real CPU (docs/profile.md, Cost): a new run's profile
 * samples at PROFILE_TCG_HZ unless told otherwise (*TCG_HZ, owned, its
 * --set).
 */
static int lab_check(struct lab *l, char **tcg_hz)
{
	struct lab_host_facts facts;

	if (run_config_load(l->config_arg, l->sets, l->nsets, &l->cfg) < 0 ||
	    matrix_expand(&l->cfg, &l->m) < 0)
		return -EINVAL;
	host_facts_read(&facts);
	if (lab_config_check(&l->cfg, &l->m, &facts) < 0)
		return -EINVAL;
	if (!l->resume && l->cfg.profile &&
	    !l->cfg.profile_hz_set) {
		*tcg_hz = xasprintf("run.profile_hz=%g", PROFILE_TCG_HZ);
		l->sets = xrealloc(l->sets, (l->nsets + 1) * sizeof(*l->sets));
		l->sets[l->nsets++] = *tcg_hz;
		note("lab: every cell runs on emulated hardware: the profile "
		     "samples at %g Hz unless run.profile_hz is set",
		     PROFILE_TCG_HZ);
	}
	return guest_bindir_find(l->bindir, sizeof(l->bindir));
}

/* --dry-run: is the lab image up to date, and what would run.  Status. */
static int lab_dry_run(const struct lab *l)
{
	struct image_opts o = {
	    .kind = IMAGE_LAB, .bindir = l->bindir, .check = true};

	if (image_build(&o) < 0)
		return 1;
	printf("lab run '%s': %zu cells of '%s' inside a lab host (%s %s, "
	       "%ld vCPUs)\n",
	       l->cfg.name, l->m.ncells, l->cfg.wl.name, l->cfg.lab_cpu,
	       l->cfg.lab_cpu_features, l->cfg.lab_vcpus);
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
 * The lab run proper, once checked: its run directory, the signals, the
 * lab image, the run inside, its results back and labelled.  The exit
 * status; *RC is the run inside's (-1 until it ended).
 */
static int lab_go(struct lab *l, const char *out, int *rc)
{
	if (!l->resume) {
		char *name = xasprintf("%s-lab", l->cfg.name);
		int made = results_dir_make(out, name, false, "vmtax lab run",
					    &l->dir);

		free(name);
		if (made < 0)
			return EXIT_USAGE;
	}
	/* The lab dies with the libvirt connection (AUTODESTROY). */
	stop_signals_take("vmtax: lab: second signal: stopping now; the "
			  "lab's disk is kept for --resume\n",
			  true);
	note("lab run '%s': %zu cells of '%s' inside a lab host; run "
	     "directory %s",
	     l->cfg.name, l->m.ncells, l->cfg.wl.name, l->dir);
	if (lab_image(l) < 0 || lab_drive(l, rc) < 0)
		return 1;
	note("lab: the run inside ended with status %d", *rc);
	if (lab_sync(l, false) < 0 || lab_label(l, false) < 0)
		return 1;
	return *rc == 0 ? 0 : 1;
}

/* After a lab run that ended with status RET (*RC inside): put it away. */
static void lab_end(struct lab *l, int ret, int rc)
{
	if (l->life.vm && ret != EXIT_USAGE && rc < 0 && l->life.client &&
	    lab_sync(l, false) == 0) /* whatever there is */
		lab_label(l, true);
	lab_down(l);
	if (l->overlay) {
		if (rc == 0) {
			unlink(l->overlay);
		} else if (ret != EXIT_USAGE) {
			note("lab: the lab's disk is kept for 'vmtax lab run "
			     "--resume %s'",
			     l->dir);
		}
	}
	if (l->alog)
		fclose(l->alog);
	vm_conn_close(l->conn);
	json_decref(l->hello);
	guest_files_release(&l->gf);
	matrix_release(&l->m);
	run_config_release(&l->cfg);
	free(l->overlay);
	free(l->dir);
	free(l->sets);
}

static int lab_run(int argc, char **argv)
{
	struct run_args a;
	struct lab l;
	json_t *state = NULL;
	char *abs = NULL, *tcg_hz = NULL;
	int ret, rc = -1;

	ret = run_args_parse(lab_opts, usage, argc, argv, &a);
	if (ret < 0)
		return opts_status(ret);
	memset(&l, 0, sizeof(l));
	l.stop_signals = stop_signals_flag();
	l.sets = a.sets.v; /* l owns them now */
	l.nsets = a.sets.n;
	ret = EXIT_USAGE;
	if (lab_open(&l, &a, &state, &abs) < 0 || lab_check(&l, &tcg_hz) < 0)
		goto out;
	if (a.dry)
		ret = lab_dry_run(&l);
	else
		ret = lab_go(&l, a.out, &rc);
out:
	lab_end(&l, ret, rc);
	free(abs);
	free(tcg_hz);
	json_decref(state);
	return ret;
}

int cmd_lab(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return lab_run(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return EXIT_USAGE;
}
