/* SPDX-License-Identifier: MIT */
/*
 * vmtax run CONFIG: the command line.  It loads and checks everything that
 * can be checked before the host changes (config, matrix, what the run
 * needs of this host: run-preflight.h; accel, guest files, run directory),
 * takes the host (lock, journal, signals), hands the cells to the run
 * engine (run-engine.h), then restores the host and writes the reports.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd-opts.h"
#include "cmds.h"
#include "guest-files.h"
#include "guest-kernel.h"
#include "guest-reach.h"
#include "image.h"
#include "layout.h"
#include "matrix.h"
#include "run-config.h"
#include "host.h"
#include "report.h"
#include "results-file.h"
#include "run-args.h"
#include "run-engine.h"
#include "run-preflight.h"
#include "stop-signals.h"
#include "util.h"
#include "vm.h"
#include "workload-def.h"

static const struct opt run_opts[] = {
	{ 'o', "out", OPT_STRING, offsetof(struct run_args, out), NULL, "DIR",
	  "run directory (default: runs/NAME-TIMESTAMP)", NULL },
	{ 's', "set", OPT_STRINGS, offsetof(struct run_args, sets), NULL,
	  "S.K=V",
	  "override a config key, or a workload\n"
	  "parameter as workload.NAME=VALUE; a list\n"
	  "(V1,V2) makes an axis",
	  NULL },
	{ 0, "host", OPT_STRINGS, offsetof(struct run_args, hosts), NULL,
	  "DEST",
	  "run the matrix on ssh destination DEST (again\n"
	  "for more hosts): --set fleet.hosts=DEST,...\n"
	  "(docs/fleet.md)",
	  NULL },
	{ 'r', "resume", OPT_STRING, offsetof(struct run_args, resume), NULL,
	  "DIR",
	  "continue an interrupted run in DIR: completed\n"
	  "samples are kept, never repeated",
	  NULL },
	{ 'f', "force", OPT_FLAG, offsetof(struct run_args, force), NULL, NULL,
	  "resume even if the config file has changed", NULL },
	{ 'n', "dry-run", OPT_FLAG, offsetof(struct run_args, dry), NULL, NULL,
	  "check CONFIG as a run does before it changes\n"
	  "anything (config, matrix, every missing\n"
	  "requirement of this host at once, accel,\n"
	  "guest files; the tiny image is built on\n"
	  "first use or when stale, a stale debian\n"
	  "image is named), print its cells\n"
	  "and stop: no run directory, no host\n"
	  "change, no guest",
	  NULL },
	OPT_ROW_END,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax run CONFIG [--out DIR] [--set SECTION.KEY=VALUE]...\n"
		"                        [--host DEST]...\n"
		"       vmtax run CONFIG --dry-run [--out DIR] [--set SECTION.KEY=VALUE]...\n"
		"       vmtax run --resume DIR [--force] [--dry-run]\n"
		"\n"
		"Runs the matrix of CONFIG: bare-metal cells for each host THP mode,\n"
		"guest cells for each host THP x guest THP (x paging x backing),\n"
		"crossed with every other setting given a list: [guest] keys\n"
		"(vcpus = 1, 2, 4), workload parameters (JOBS = 2, 4), [host] knobs\n"
		"and [guest] sysctl./mm. knobs (docs/axes.md).\n"
		"Every sample lands in DIR/results.json as soon as it is measured;\n"
		"logs and guest consoles go to DIR/logs/.  The host is restored at the\n"
		"end and on SIGINT/SIGTERM/SIGHUP (press Ctrl-C twice to stop at once).\n"
		"\n");
	opts_help(f, run_opts, 2, 23);
	fprintf(f, "\n"
		   "Config keys:\n");
	run_config_print_help(f);
}

/* ---- set-up ---- */

/*
 * A disk image (debian, lab) a cell boots with kernel and initrd auto,
 * checked as 'vmtax image build --check' checks it (image_status(), with
 * the workloads' packages, as 'vmtax image build' gives them): a stale one
 * is booted as it is (building it takes minutes), said on stderr and kept
 * in G's image_note for results.json's run.notes; a missing one is left to
 * guest_files_resolve(), which refuses it naming the build.
 */
static int disk_image_check(const struct run *r, const struct cell *c,
			    struct run_guest_files *g, enum image_kind kind)
{
	char *packages[WORKLOAD_PACKAGES_MAX];
	struct image_status st = {0};
	struct image_opts o = {
	    .kind = kind,
	    .bindir = r->bindir,
	    .quiet = true,
	};
	size_t n = 0, i;
	int ret;

	if (strcmp(c->kernel, "auto") || strcmp(c->initrd, "auto"))
		return 0;
	ret = workload_packages_all(layout_workloads_dir(r->bindir), packages,
				    WORKLOAD_PACKAGES_MAX, &n);
	o.packages = (const char *const *)packages;
	o.npackages = n;
	if (ret == 0)
		ret = image_status(&o, &st);
	if (ret == 0 && st.state == IMAGE_STALE) {
		g->image_note = xasprintf(
		    "the %s image '%s' is stale (changed since it was built: "
		    "%s): booted as it is; 'vmtax image build --kind %s' "
		    "builds it again",
		    c->image, st.link, st.what, c->image);
		note("%s", g->image_note);
	}
	image_status_release(&st);
	for (i = 0; i < n; i++)
		free(packages[i]);
	return ret;
}

/*
 * The image a cell boots, current or said not to be: vmtax builds the
 * tiny image of a cell's kernel when a run needs it and it is missing
 * (first use) or stale (built from other binaries, script or busybox than
 * those there now: image_status(), the test 'vmtax image build --check'
 * makes), installed or in a build tree (after a plain 'make':
 * build/images), and says which; a debian or lab image is
 * disk_image_check()'s.  Progress goes to stderr; a failure is reported.
 */
static int image_current(const struct run *r, const struct cell *c,
			 struct run_guest_files *g)
{
	char *kernel = NULL, *images = NULL;
	struct image_status st = {0};
	struct image_opts o = {
	    .kind = IMAGE_TINY,
	    .bindir = r->bindir,
	    .quiet = true,
	};
	int ret = 0;

	if (image_kind_parse(c->image, &o.kind) < 0)
		return 0; /* guest_files_resolve() refuses it */
	if (o.kind != IMAGE_TINY)
		return disk_image_check(r, c, g, o.kind);
	if (strcmp(c->initrd, "auto"))
		return 0;
	images = guest_images_dir_new(r->bindir);
	if (!strcmp(c->kernel, "auto")) {
		char *cache = guest_kernel_cache_new(images);

		ret = guest_kernel_find(cache, &kernel, NULL);
		free(cache);
		if (ret < 0) {
			ret = 0; /* guest_files_resolve() says why */
			goto out;
		}
	} else if (access(c->kernel, R_OK) < 0) {
		goto out; /* guest_files_resolve() says it is missing */
	} else {
		kernel = xstrdup(c->kernel);
	}
	o.kver = guest_kernel_version(kernel);
	ret = image_status(&o, &st);
	if (ret < 0 || st.state == IMAGE_CURRENT)
		goto out;
	if (st.state == IMAGE_MISSING)
		note("first use: building the tiny guest image for kernel %s "
		     "in '%s'",
		     o.kver, images);
	else
		note("the tiny guest image '%s' is stale (changed since it was "
		     "built: %s): building it again, as 'vmtax image build "
		     "--kind tiny' does",
		     st.link, st.what);
	ret = image_build(&o);
out:
	image_status_release(&st);
	free(images);
	free(kernel);
	return ret;
}

/*
 * Where this run's wall time went: the samples' own elapsed_s against the
 * rest (boots, setup, warm-up, host changes, quiet waits, shutdowns).
 */
static void time_summary(const struct run *r)
{
	double wall = mono_now() - r->t0, work = 0, boots = 0;
	json_t *s;
	size_t k;
	int i, nboot = 0;

	for (i = 0; i < r->ncells; i++) {
		json_t *b = json_object_get(r->states[i].observed,
					    "boot_to_hello_s");

		json_array_foreach(r->states[i].samples, k, s)
			work += json_number_value(json_object_get(s, "elapsed_s"));
		if (json_is_number(b)) {
			boots += json_number_value(b);
			nboot++;
		}
	}
	note("time: wall %.1f s, samples %.1f s (%.0f%%), the rest %.1f s "
	     "(%d guest boots, %.1f s to hello)",
	     wall, work, wall > 0 ? 100 * work / wall : 0, wall - work, nboot,
	     boots);
}

/*
 * The guest files of every distinct (image, kernel, initrd) the guest cells
 * ask for, each resolved (and checked) once.
 */
static int resolve_guest_files(struct run *r)
{
	int ci;

	for (ci = 0; ci < r->ncells; ci++) {
		const struct cell *c = &r->cells[ci];
		struct run_guest_files *g;

		if (!run_exec_has(r, ci, EXEC_NEEDS_GUEST) ||
		    run_guest_files_find(r, c))
			continue;
		r->gfs = xrealloc(r->gfs, (r->ngfs + 1) * sizeof(*r->gfs));
		g = &r->gfs[r->ngfs];
		memset(g, 0, sizeof(*g));
		g->image = c->image;
		g->kernel = c->kernel;
		g->initrd = c->initrd;
		if (image_current(r, c, g) < 0)
			return -EINVAL;
		if (guest_files_resolve(c->image, c->kernel, c->initrd,
					r->bindir, r->cfg.path, &g->f) < 0)
			return -EINVAL;
		r->ngfs++;
		/* QEMU opens these as its own user: from a private checkout
		 * they are staged where it can (guest-reach.h); a remote
		 * libvirt's are copied there when the run starts (its
		 * executor's begin()). */
		if (!run_exec_has(r, ci, EXEC_REMOTE_LIBVIRT) &&
		    guest_files_reach_for(&g->f, r->cfg.uri) < 0)
			return -EINVAL;
	}
	return 0;
}

/*
 * Everything that can be checked is checked before the host changes: the
 * config and its matrix (against OLD when resuming), what the run needs of
 * this host, all of it at once (run-preflight.h), what each executor
 * checks (its check(): the accelerator; a remote executor's host), the
 * guest files (not a remote executor's), the run directory.
 */
static int run_prepare(struct run *r, const char *config_path, json_t *old,
		       bool force, const char *out, bool dry)
{
	int i;

	if (run_config_load(config_path, r->sets, r->nsets, &r->cfg) < 0)
		return -EINVAL;
	if (matrix_expand(&r->cfg, &r->matrix) < 0)
		return -EINVAL;
	r->cells = r->matrix.cells;
	r->ncells = (int)r->matrix.ncells;
	if (old && results_resume_check(r, old, force) < 0)
		return -EINVAL;
	if (guest_bindir_find(r->bindir, sizeof(r->bindir)) < 0)
		return -EINVAL;
	for (i = 0; i < r->ncells; i++)
		r->need_guest |= run_exec_has(r, i, EXEC_NEEDS_GUEST);
	if (run_preflight(r) < 0)
		return -EINVAL;
	if (run_execs_check(r, dry) < 0)
		return -EINVAL;
	/* Cells on another host: its own run resolves their guest files. */
	if (!run_exec_has(r, 0, EXEC_REMOTE) && resolve_guest_files(r) < 0)
		return -EINVAL;
	if (dry)
		return 0;
	if (results_dir_make(out, r->cfg.name, r->resume, "vmtax run",
			     &r->rundir) < 0)
		return -EINVAL;
	r->results_path = xasprintf("%s/results.json", r->rundir);
	r->journal_path = xasprintf("%s/samples.jsonl", r->rundir);
	return 0;
}

/* Where the cells run: "guests under ACCEL (why)", or where the remote
 * executor's check() said. */
static void run_where(const struct run *r, char *buf, size_t len)
{
	if (r->accel)
		snprintf(buf, len, "guests under %s (%s)", r->accel,
			 r->accel_why);
	else
		snprintf(buf, len, "%s", r->accel_why);
}

/* --dry-run: what the run would do, on stdout. */
static void dry_run_print(const struct run *r)
{
	size_t k;
	int i;

	char where[384];

	run_where(r, where, sizeof(where));
	printf("run '%s': %d cells x %ld samples of '%s', %s\n", r->cfg.name,
	       r->ncells, r->cfg.repeat, r->cfg.wl.name, where);
	for (i = 0; i < r->ncells; i++)
		printf("  %s\n", r->cells[i].id);
	for (k = 0; k < r->ngfs; k++) {
		const struct guest_files *f = &r->gfs[k].f;
		bool pvh = f->vmlinuz && strcmp(f->kernel, f->vmlinuz);

		/* booted through PVH: the ELF, and the image it comes from */
		printf("guest files: kernel %s%s%s%s, initrd %s%s%s\n",
		       f->kernel, pvh ? " (the ELF of " : "",
		       pvh ? f->vmlinuz : "", pvh ? ", booted through PVH)" : "",
		       f->initrd, f->disk ? ", disk " : "",
		       f->disk ? f->disk : "");
		if (r->gfs[k].image_note)
			printf("note: %s\n", r->gfs[k].image_note);
	}
	run_estimate_print(r, stdout);
}

/*
 * Take the host: its lock, a restore of anything a dead run left (both in
 * the state directory, host.h), and the signals that stop the run (the
 * second restores the host from the handler, stop-signals.h).
 */
static int run_take_host(struct run *r)
{
	struct host_opts hopts = { 0 };
	int ret, i;
	bool here = false;

	for (i = 0; i < r->ncells; i++)
		here |= run_exec_has(r, i, EXEC_CHANGES_HOST_KNOBS);
	if (!here) {
		/* nothing of this host's changes: another host's run, which
		 * the first signal stops (its calls restarted, not broken) */
		stop_signals_take("vmtax: second signal: stopping now; 'vmtax "
				  "run --resume DIR' goes on\n",
				  true);
		return 0;
	}
	hopts.list_vms = vm_list_running_str;
	hopts.list_vms_arg = r->cfg.uri;
	hopts.vm_drain_s = HOST_VM_DRAIN_S;
	ret = host_ctx_new(&hopts, &r->host);
	if (ret < 0)
		return ret;
	stop_signals_host(r->host);
	stop_signals_take("vmtax: second signal: host settings restored, "
			  "stopping now\n",
			  false);
	return 0;
}

/*
 * The run directory could not be written: say so, with how much is kept
 * and how to go on.
 */
static void report_unwritable(const struct run *r)
{
	long kept = 0;
	int i;

	for (i = 0; i < r->ncells; i++)
		kept += r->states[i].nsamples;
	err("the run directory '%s' cannot be written (is the disk full?): "
	    "stopped; %ld samples are in samples.jsonl, and 'vmtax run "
	    "--resume %s' continues once there is room",
	    r->rundir, kept, r->rundir);
}

/*
 * The run as the command line asks for it, checked (run_prepare()): with
 * --resume, its directory's results into *OLD and the --set list it ran
 * with into A.
 */
static int run_open(struct run *r, struct run_args *a, json_t **old)
{
	const char *config_path = a->config, *out = a->out;

	if (a->resume) {
		if (results_resume_load(a->resume, old, &a->sets.v,
					&a->sets.n) < 0)
			return -EINVAL;
		config_path = json_string_value(json_object_get(
			json_object_get(*old, "run"), "config_path"));
		out = a->resume;
		r->resume = true;
	}
	r->sets = a->sets.v;
	r->nsets = a->sets.n;
	return run_prepare(r, config_path, *old, a->force, out, a->dry);
}

/* Take the host and write the run's first results.json (OLD's, resumed). */
static int run_start(struct run *r, json_t *old)
{
	char where[384];

	if (run_take_host(r) < 0)
		return -EINVAL;
	if (r->need_guest && vm_conn_open(r->cfg.uri, &r->conn) < 0)
		return -EINVAL;
	if (run_execs_begin(r) < 0)
		return -EINVAL;
	run_where(r, where, sizeof(where));
	note("run '%s': %d cells x %ld samples of '%s', %s", r->cfg.name,
	     r->ncells, r->cfg.repeat, r->cfg.wl.name, where);
	note("run directory: %s", r->rundir);
	if (old) {
		if (results_resume_apply(r, old) < 0)
			return -EINVAL;
	} else {
		r->head = results_head_new(r);
		results_states_init(r);
	}
	run_estimate_begin(r);
	return results_save(r);
}

/*
 * After the engine: the last results.json, the host put back (before
 * rendering: nothing below needs it), the reports.  The exit status.
 */
static int run_finish(struct run *r)
{
	int i, failed = 0;

	results_finish(r);
	for (i = 0; i < r->ncells; i++)
		failed += r->states[i].status == CELL_FAILED;
	if (r->save_failed || results_save(r) < 0) {
		report_unwritable(r);
		return 1;
	}
	stop_signals_host(NULL);
	if (r->host && host_restore(r->host) < 0)
		return 1;
	report_write_rundir(r->rundir, r->results_path);
	time_summary(r);
	run_timings_record(r);
	if (r->failures)
		warn("%ld samples failed; see the reasons in results.json",
		     r->failures);
	return (failed || r->failures || r->stopped) ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct run r;
	json_t *old = NULL;
	int ret;

	ret = run_args_parse(run_opts, usage, argc, argv, &a);
	if (ret < 0)
		return opts_status(ret);
	memset(&r, 0, sizeof(r));
	r.stop_signals = stop_signals_flag();
	ret = EXIT_USAGE;
	if (run_open(&r, &a, &old) < 0)
		goto out;
	if (a.dry) {
		dry_run_print(&r);
		ret = 0;
		goto out;
	}
	ret = 1;
	if (run_start(&r, old) < 0)
		goto out;
	run_engine(&r);
	ret = run_finish(&r);
out:
	stop_signals_host(NULL);
	host_ctx_free(r.host);
	vm_conn_close(r.conn);
	json_decref(old);
	run_args_release(&a);
	run_release(&r); /* the executors' end() too */
	return ret;
}
