/* SPDX-License-Identifier: MIT */
/*
 * exec-fleet.c - the fleet executor ([run] executor = fleet, cell-exec.h,
 * fleet.h, docs/fleet.md): every [fleet] host runs the whole matrix with a
 * vmtax of its own, over ssh.  Its state (struct fleet) and the two ops.
 *
 * check(): each host answers the probe (fleet-check.c) over its own
 * connection; every host that fails is named on a line of its own, and the
 * run is refused (exit status 2) before anything changes anywhere.  Two
 * entries that are one machine (one machine id) are refused, and so is
 * mode = split across unlike hosts (what differs named; [fleet]
 * allow_unlike = on: a warning), with fewer cells than hosts, or with a
 * [run] target.
 *
 * run_remote(): the hosts probed again, then on each host its run there
 * started (fleet-follow.c: pushed and begun, or taken up on --resume) and
 * followed until every one has ended; then each host's run directory comes
 * back and this run's record is made of them (fleet-collect.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "cell-exec.h"
#include "exec-fleet.h"
#include "host-diff.h"
#include "run-engine.h"
#include "util.h"

int fleet_open(struct fleet *f, struct run *r)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->r = r;
	f->n = r->cfg.fleet_hosts.n;
	f->h = xcalloc(f->n, sizeof(*f->h));
	for (i = 0; i < f->n; i++) {
		f->h[i].name = r->cfg.fleet_hosts.v[i];
		f->h[i].rc = -1;
		f->h[i].proc.fd = -1;
	}
	return fleet_ssh_init(&f->ssh, r->cfg.fleet_connect_timeout_s,
			      r->cfg.fleet_ssh_config);
}

void fleet_close(struct fleet *f)
{
	size_t i;

	fleet_ssh_release(&f->ssh, f->r->cfg.fleet_hosts.v, f->n);
	for (i = 0; i < f->n; i++) {
		json_decref(f->h[i].probe_host);
		json_decref(f->h[i].doc);
	}
	free(f->h);
	free(f->rplain);
	free(f->rdir);
}

int fleet_on_host(struct fleet *f, size_t k, const char *cmd, int in_fd,
		  double timeout_s, char **out, int *status)
{
	size_t n;
	char **v = fleet_ssh_argv_new(&f->ssh, f->h[k].name, cmd, &n);
	int ret = fleet_run_capture(v, in_fd, timeout_s, out, status);

	strv_free(v, n);
	return ret;
}

bool fleet_is_split(const struct fleet *f)
{
	return !strcmp(f->r->cfg.fleet_mode, fleet_modes[FLEET_SPLIT]);
}

static void want_init(const struct run *r, struct fleet_want *w, char *build,
		      size_t len)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->version = VMTAX_VERSION;
	if (build_id_read(build, len) < 0)
		snprintf(build, len, "unknown");
	w->build_id = build;
	for (i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->where != WHERE_GUEST)
			continue;
		w->libvirt = true;
		w->vcpus = c->vcpus > w->vcpus ? c->vcpus : w->vcpus;
		w->memory = c->memory > w->memory ? c->memory : w->memory;
	}
	w->kvm = w->libvirt && !strcmp(r->cfg.accel, "kvm");
}

/* Host K's answers (OUT, STATUS; RET from running it), judged; its
 * machine id into MID.  0 or -EINVAL, the host named. */
static int probe_judge(struct fleet *f, size_t k, const struct fleet_want *w,
		       const char *out, int status, int ret, char *mid,
		       size_t len)
{
	struct fleet_host *h = &f->h[k];
	struct fleet_probe p = {-1, NULL};

	if (ret == -ETIMEDOUT)
		snprintf(h->why, sizeof(h->why),
			 "its probe did not answer in %.0f s",
			 FLEET_CHECK_TIMEOUT_S);
	else if (ret < 0)
		snprintf(h->why, sizeof(h->why), "cannot run ssh");
	if (ret == 0) {
		fleet_probe_parse(out, &p);
		ret = fleet_host_judge(&p, status, out, w, h->why,
				       sizeof(h->why));
	}
	if (ret == 0) {
		h->probe_host = fleet_probe_host_new(p.doc);
		snprintf(mid, len, "%s", fleet_probe_machine_id(p.doc));
	} else {
		err("fleet: host '%s': %s", h->name, h->why);
	}
	fleet_probe_release(&p);
	return ret < 0 ? -EINVAL : 0;
}

/*
 * Every host's probe, all at once, judged: the machine ids into MID[k].
 * How many hosts failed, each named on a line of its own.
 */
static int probe_all(struct fleet *f, const struct fleet_want *w,
		     char (*mid)[64])
{
	char *cmd = fleet_probe_cmd_new(f->r->cfg.fleet_vmtax);
	char ***argvs = xcalloc(f->n, sizeof(*argvs)), **outs;
	size_t *nargs = xcalloc(f->n, sizeof(*nargs)), k;
	int *statuses = xcalloc(f->n, sizeof(int));
	int *rets = xcalloc(f->n, sizeof(int)), bad = 0;

	outs = xcalloc(f->n, sizeof(*outs));
	for (k = 0; k < f->n; k++)
		argvs[k] =
		    fleet_ssh_argv_new(&f->ssh, f->h[k].name, cmd, &nargs[k]);
	fleet_run_capture_all((char *const *const *)argvs, f->n,
			      FLEET_CHECK_TIMEOUT_S, outs, statuses, rets);
	for (k = 0; k < f->n; k++) {
		bad += probe_judge(f, k, w, outs[k], statuses[k], rets[k],
				   mid[k], sizeof(mid[k])) < 0;
		strv_free(argvs[k], nargs[k]);
		free(outs[k]);
	}
	free(argvs);
	free(nargs);
	free(outs);
	free(statuses);
	free(rets);
	free(cmd);
	return bad;
}

/* Two entries that are one machine (one machine id). */
static int same_machine(const struct fleet *f, char (*mid)[64])
{
	size_t i, j;
	int bad = 0;

	for (i = 0; i < f->n; i++)
		for (j = 0; j < i; j++)
			if (*mid[i] && !strcmp(mid[i], mid[j])) {
				err("fleet: host '%s': the same machine as "
				    "'%s' (machine id %s)",
				    f->h[i].name, f->h[j].name, mid[i]);
				bad++;
			}
	return bad;
}

/* mode = split: like hosts only (unless [fleet] allow_unlike: each
 * difference a warning), a cell for each at least, no target (its plan
 * needs the baseline's samples on every host). */
static int split_check(const struct fleet *f)
{
	char diff[1024];
	size_t i;
	int bad = 0;

	for (i = 1; i < f->n; i++) {
		if (!host_diff_text(f->h[0].probe_host, f->h[i].probe_host,
				    diff, sizeof(diff)))
			continue;
		if (f->r->cfg.fleet_allow_unlike) {
			warn("fleet: mode = split needs like hosts: '%s' "
			     "differs from '%s' in %s ([fleet] allow_unlike = "
			     "on: it runs anyway)",
			     f->h[i].name, f->h[0].name, diff);
			continue;
		}
		err("fleet: mode = split needs like hosts: '%s' differs from "
		    "'%s' in %s (set [fleet] allow_unlike = on to run anyway)",
		    f->h[i].name, f->h[0].name, diff);
		bad++;
	}
	if ((size_t)f->r->ncells < f->n) {
		err("fleet: mode = split: %d cells for %zu hosts (each host "
		    "runs one at least: fewer hosts, or mode = each)",
		    f->r->ncells, f->n);
		bad++;
	}
	if (f->r->cfg.target > 0) {
		err("fleet: mode = split with [run] target: a host's plan "
		    "needs the baseline's samples, which are on one host (use "
		    "repeat, or mode = each)");
		bad++;
	}
	return bad;
}

static int fleet_check(struct run *r, bool dry)
{
	struct fleet_want w;
	struct fleet f;
	char build[64], (*mid)[64];
	size_t i;
	int bad = 0;

	if (fleet_open(&f, r) < 0) {
		fleet_close(&f);
		return -EIO;
	}
	want_init(r, &w, build, sizeof(build));
	mid = xcalloc(f.n, sizeof(*mid));
	bad = probe_all(&f, &w, mid);
	if (!bad)
		bad += same_machine(&f, mid);
	if (!bad && !strcmp(r->cfg.fleet_mode, fleet_modes[FLEET_SPLIT]))
		bad += split_check(&f);
	snprintf(r->accel_why, sizeof(r->accel_why),
		 "on %zu hosts over ssh (executor = " FLEET_EXEC ", mode = %s)",
		 f.n, r->cfg.fleet_mode);
	for (i = 0; !bad && dry && i < f.n; i++)
		printf("fleet host '%s': ready (root, vmtax %s build %s)\n",
		       f.h[i].name, w.version, w.build_id);
	free(mid);
	fleet_close(&f);
	return bad ? -EINVAL : 0;
}

/* The probes again: a host lost since check() is not started, and each
 * host's run.host is known even when its results do not come back. */
static void probe_hosts(struct fleet *f)
{
	struct fleet_want w;
	char build[64], (*mid)[64] = xcalloc(f->n, sizeof(*mid));

	want_init(f->r, &w, build, sizeof(build));
	probe_all(f, &w, mid);
	free(mid);
}

/* RUN/hosts, beneath the run directory (beneath.h). */
static void hosts_dir_make(const struct run *r)
{
	int dfd = dir_open_nofollow(r->rundir);

	if (dfd < 0 || mkdirat_beneath(dfd, FLEET_SUBDIR, 0755) < 0)
		warn("fleet: cannot make '%s/" FLEET_SUBDIR "'", r->rundir);
	if (dfd >= 0)
		close(dfd);
}

static int fleet_run_remote(struct run *r, json_t **doc, json_t **label,
			    int *rc)
{
	struct fleet f;
	char *cmd = NULL;
	size_t k, failed = 0;

	*doc = *label = NULL;
	*rc = -1;
	if (fleet_open(&f, r) < 0) {
		fleet_close(&f);
		return -EIO;
	}
	f.rplain = fleet_remote_dir_new(r->rundir);
	f.rdir = sh_quote_new(f.rplain);
	probe_hosts(&f);
	hosts_dir_make(r);
	for (k = 0; k < f.n; k++) {
		if (r->resume)
			fleet_take_up(&f, k);
		else if (!*f.h[k].why && fleet_push(&f, k) == 0) {
			cmd = fleet_host_cmd_new(&f, k);
			f.h[k].started = fleet_start(&f, k, cmd) == 0;
			free(cmd);
		}
	}
	cmd = NULL;
	note("fleet: the matrix runs on %zu hosts, each in '~/%s'", f.n,
	     f.rplain);
	fleet_follow(&f);
	*rc = 0;
	for (k = 0; k < f.n; k++) {
		if (f.h[k].started)
			fleet_fetch(&f, k);
		failed += *f.h[k].why || f.h[k].rc != 0;
		/* a run there that did not end: this one is interrupted
		 * (resumable), not complete */
		if (f.h[k].rc < 0)
			*rc = -1;
	}
	/* mode split: the document becomes R's states (run_remote()) */
	if (fleet_is_split(&f))
		*doc = fleet_split_record_new(&f);
	*label = fleet_record_new(&f);
	/* each host's own status is in the label, its failures in the
	 * cells (which make the run's exit status) */
	if (failed)
		warn("fleet: %zu of %zu hosts failed: see \"fleet\" in "
		     "'%s/results.json'",
		     failed, f.n, r->rundir);
	r->stopped |= f.stopping;
	free(cmd);
	fleet_close(&f);
	return 0;
}

const struct cell_exec_ops cell_exec_fleet = {
    .name = FLEET_EXEC,
    .flags = EXEC_REMOTE,
    .check = fleet_check,
    .run_remote = fleet_run_remote,
};
