/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal cell executor: the workload runs on this host under the
 * measuring runner, with the guests' shell (layout.h layout_busybox()), in
 * a fresh work directory per cell of the workload's scratch kind.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "guest-files.h"
#include "layout.h"
#include "proto.h"
#include "run-engine.h"
#include "util.h"

/* Where a tmpfs scratch directory goes (workload-def.h 'scratch'). */
#define BARE_SCRATCH_TMPFS "/dev/shm"

struct bare {
	char workdir[PATH_MAX];
	char **env;
};

static int rm_cb(const char *p, const struct stat *s, int flag, struct FTW *f)
{
	(void)s;
	(void)flag;
	(void)f;
	return remove(p);
}

/*
 * The cell's workload parameters, PATH with the workloads, the work dir and
 * the source sets (workload-def.h).
 */
static char **bare_env_new(const struct run *r, const struct cell *c,
			   const char *workdir)
{
	char **env = cell_env_new(c), *src = guest_srcdir_new(r->bindir);
	size_t n = 0;

	while (env[n])
		n++;
	env = xrealloc(env, (n + 4) * sizeof(*env));
	env[n] = xasprintf("PATH=%s:%s", r->bindir,
			   getenv("PATH") ?: "/usr/bin:/bin");
	env[n + 1] = xasprintf(WL_ENV_WORKDIR "=%s", workdir);
	env[n + 2] = xasprintf(WL_ENV_SRCDIR "=%s", src);
	env[n + 3] = NULL;
	free(src);
	return env;
}

/* The file system type of magic M, for observed.scratch.fs. */
static const char *fs_name(unsigned long m, char *buf, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} names[] = {
	    {TMPFS_MAGIC, "tmpfs"},	  {RAMFS_MAGIC, "ramfs"},
	    {EXT4_SUPER_MAGIC, "ext4"}, {XFS_SUPER_MAGIC, "xfs"},
	    {BTRFS_SUPER_MAGIC, "btrfs"}, {OVERLAYFS_SUPER_MAGIC, "overlay"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].magic == m)
			return names[i].name;
	snprintf(buf, len, "0x%lx", m);
	return buf;
}

/*
 * The cell's scratch working directory, of the workload's kind: a fresh
 * directory on /dev/shm (tmpfs) or in the run directory (disk), checked to
 * be that kind, recorded as observed.scratch.  -1 with WHY.
 */
static int bare_workdir(struct run *r, struct cell_run *cr, struct bare *b,
			char *why, size_t len)
{
	const char *kind = r->cfg.wl.scratch;
	bool tmpfs = !strcmp(kind, WL_SCRATCH_TMPFS);
	struct statfs fs;
	char hex[32];
	bool mem;

	snprintf(b->workdir, sizeof(b->workdir), "%s/vmtax-work-XXXXXX",
		 tmpfs ? BARE_SCRATCH_TMPFS : r->rundir);
	if (!mkdtemp(b->workdir)) {
		err_errno("cannot create a work directory in '%s'",
			  tmpfs ? BARE_SCRATCH_TMPFS : r->rundir);
		b->workdir[0] = '\0';
		snprintf(why, len, "cannot create a %s work directory", kind);
		return -1;
	}
	if (statfs(b->workdir, &fs) < 0) {
		err_errno("cannot statfs '%s'", b->workdir);
		snprintf(why, len, "cannot tell the work directory's file system");
		return -1;
	}
	mem = (unsigned long)fs.f_type == TMPFS_MAGIC ||
	      (unsigned long)fs.f_type == RAMFS_MAGIC;
	json_object_set_new(
	    cr->st->observed, "scratch",
	    json_pack("{ssssss}", "kind", kind, "path", b->workdir, "fs",
		      fs_name((unsigned long)fs.f_type, hex, sizeof(hex))));
	if (mem != tmpfs) {
		snprintf(why, len,
			 "scratch = %s, but '%.300s' is on %s", kind, b->workdir,
			 fs_name((unsigned long)fs.f_type, hex, sizeof(hex)));
		return -1;
	}
	return 0;
}

static int bare_phase(struct run *r, struct bare *b, const char *cmd,
		      bool counters, struct runner_result *res)
{
	struct runner_spec spec = {
		.cmd = cmd,
		.shell = layout_busybox(),
		.env = (const char *const *)b->env,
		.cwd = b->workdir,
		.timeout_s = run_sample_timeout(r),
		.counters = counters,
		.events = r->cfg.events,
		.raw = r->cfg.raw_events,
	};

	memset(res, 0, sizeof(*res));
	return runner_run(&spec, res);
}

/* Warm-up run IDX (run_warmup()): one that cannot start is not the cell's
 * failure, and leaves no output. */
static int bare_warmup(struct run *r, struct cell_run *cr, long idx, void *arg,
		       char *why, size_t len)
{
	struct runner_result res;

	(void)why;
	(void)len;
	if (bare_phase(r, arg, r->cfg.wl.run, false, &res) == 0) {
		run_save_output(r, cr->slug, "warmup", idx, res.output);
		runner_result_release(&res);
	}
	return 0;
}

static int bare_start(struct run *r, struct cell_run *cr)
{
	struct bare *b = xcalloc(1, sizeof(*b));
	struct runner_result res;
	char why[512];

	cr->priv = b;
	if (bare_workdir(r, cr, b, why, sizeof(why)) < 0) {
		cell_fail(cr->st, why);
		return -1;
	}
	b->env = bare_env_new(r, cr->cell, b->workdir);
	json_object_set_new(cr->st->observed, "shell",
			    json_string(layout_busybox()));
	if (*r->cfg.wl.setup) {
		run_progress(r, cr->ci, "setup");
		if (bare_phase(r, b, r->cfg.wl.setup, false, &res) < 0 ||
		    res.status != RUNNER_OK) {
			run_save_output(r, cr->slug, "setup", 0, res.output);
			snprintf(why, sizeof(why),
				 "setup failed (exit status %d); see logs/%s.setup-0.out",
				 res.exit_status, cr->slug);
			cell_fail(cr->st, why);
			runner_result_release(&res);
			return -1;
		}
		runner_result_release(&res);
	}
	run_warmup(r, cr, bare_warmup, b, why, sizeof(why)); /* never fails */
	return 0;
}

static int bare_sample(struct run *r, struct cell_run *cr, long idx,
		       json_t **sj, struct runner_result *res, char *why,
		       size_t len)
{
	struct bare *b = cr->priv;
	int ret;

	(void)idx;
	ret = bare_phase(r, b, r->cfg.wl.run, true, res);
	if (ret < 0) {
		snprintf(why, len, "cannot start the run command: %s",
			 strerror(-ret));
		return ret == -EPIPE || ret == -ETIMEDOUT ? -EIO : ret;
	}
	*sj = proto_sample_to_json(res, 1);
	return 0;
}

/* The profiled run (docs/profile.md): sampled and symbolized right here. */
static int bare_profile(struct run *r, struct cell_run *cr,
			struct runner_result *res, char *why, size_t len)
{
	struct bare *b = cr->priv;
	struct runner_spec spec = {
		.cmd = r->cfg.wl.run,
		.shell = layout_busybox(),
		.env = (const char *const *)b->env,
		.cwd = b->workdir,
		.timeout_s = run_sample_timeout(r),
		.counters = true, /* task-clock: the overhead on CPU */
		.profile = true,
		.profile_hz = r->cfg.profile_hz,
	};
	int ret;

	memset(res, 0, sizeof(*res));
	ret = runner_run(&spec, res);
	if (ret < 0)
		snprintf(why, len, "cannot start the run command: %s",
			 strerror(-ret));
	return ret;
}

static void bare_stop(struct run *r, struct cell_run *cr)
{
	struct bare *b = cr->priv;
	struct runner_result res;

	if (!b)
		return;
	if (b->env && *r->cfg.wl.clean && cr->st->status == CELL_PENDING &&
	    bare_phase(r, b, r->cfg.wl.clean, false, &res) == 0)
		runner_result_release(&res);
	free_strv(b->env);
	if (*b->workdir)
		nftw(b->workdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(b);
	cr->priv = NULL;
}

/* The workload runs on this host: its accelerator and paging are the
 * run's (said where the run starts, and recorded). */
static int bare_check(struct run *r, bool dry)
{
	(void)dry;
	return run_accel_here(r);
}

const struct cell_exec_ops cell_exec_bare = {
	.name = "bare-metal",
	.flags = EXEC_CHANGES_HOST_KNOBS | EXEC_CAN_PROFILE,
	.check = bare_check,
	.start = bare_start,
	.sample = bare_sample,
	.restart = NULL,
	.profile = bare_profile,
	.stop = bare_stop,
};
