/* SPDX-License-Identifier: MIT */
/*
 * exec-fleet.c - the fleet executor ([run] executor = fleet, cell-exec.h,
 * fleet.h, docs/fleet.md): every [fleet] host runs the whole matrix with a
 * vmtax of its own, over ssh.
 *
 * check(): each host answers the probe (fleet-check.c) over its own
 * connection; every host that fails is named on a line of its own, and the
 * run is refused (exit status 2) before anything changes anywhere.  Two
 * entries that are one machine (one machine id) are refused, and so is
 * mode = split: across unlike hosts with what differs named, across like
 * ones because it is not built yet.
 *
 * run_remote(): on each host, its copy of the config and its workload under
 * ~/FLEET_REMOTE_DIR/RUN (RUN: this run directory's name), and 'vmtax run'
 * there (executor = local: the hosts unused there) detached from the
 * connection, its output in run.log there, followed here line by line ("HOST|
 * ") until it ends: a connection that drops leaves the run there going, its
 * host restored by its own vmtax.  All hosts at once.  Then each host's run
 * directory comes back into RUN/hosts/NAME (scp over the same connection),
 * checked to be this run's cells (results_remote_check()), and this run
 * records each cell's outcome on every host and the hosts in "fleet"
 * (fleet-merge.c).  The first stop signal stops the runs there (SIGTERM to
 * each: they restore their hosts and keep their samples).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "beneath.h"
#include "cell-exec.h"
#include "fleet.h"
#include "host-diff.h"
#include "results-file.h"
#include "run-engine.h"
#include "util.h"

#define FLEET_RESULTS_MAX (256u << 20)

struct fleet_host {
	const char *name; /* its [fleet] hosts entry */
	struct fleet_proc proc;
	bool started, running;
	json_t *probe_host; /* run.host as its probe says it, or NULL */
	json_t *doc;	    /* its results, checked, or NULL */
	int rc;		    /* its run's exit status; -1: none */
	char why[512];	    /* why it failed; "" none */
	char last[256];	    /* its last line of output */
};

struct fleet {
	struct run *r;
	struct fleet_ssh ssh;
	struct fleet_host *h;
	size_t n;
	char *rplain; /* FLEET_REMOTE_DIR/RUN: safe characters only */
	char *rdir;   /* the same, sh-quoted */
	bool stopping;
};

static int fleet_open(struct fleet *f, struct run *r)
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

static void fleet_close(struct fleet *f)
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

/* CMD on host K with stdin from IN_FD (-1: none): its output, status. */
static int on_host(struct fleet *f, size_t k, const char *cmd, int in_fd,
		   double timeout_s, char **out, int *status)
{
	size_t n;
	char **v = fleet_ssh_argv_new(&f->ssh, f->h[k].name, cmd, &n);
	int ret = fleet_run_capture(v, in_fd, timeout_s, out, status);

	strv_free(v, n);
	return ret;
}

/* ---- check() ---- */

static void want_init(const struct run *r, struct fleet_want *w, char *build,
		      size_t len)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->version = VMTAX_VERSION;
	if (build_id_read(build, len) < 0)
		snprintf(build, len, "unknown");
	w->build_id = build;
	for (i = 0; i < r->ncells; i++)
		w->libvirt |= r->cells[i].where == WHERE_GUEST;
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

/* mode = split: like hosts only, and then it is not built yet. */
static int split_check(const struct fleet *f)
{
	char diff[1024];
	size_t i;
	int bad = 0;

	for (i = 1; i < f->n; i++) {
		if (!host_diff_text(f->h[0].probe_host, f->h[i].probe_host,
				    diff, sizeof(diff)))
			continue;
		err("fleet: mode = split needs like hosts: '%s' differs from "
		    "'%s' in %s",
		    f->h[i].name, f->h[0].name, diff);
		bad++;
	}
	if (!bad) {
		err("fleet: mode = split (the cells shared across like hosts) "
		    "is not built yet: use mode = each");
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

	if (r->resume)
		return err("fleet: --resume of a fleet run is not built yet: "
			   "each host's run is in its '~/" FLEET_REMOTE_DIR
			   "/' ('vmtax run --resume' there)");
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

/* ---- run_remote() ---- */

/* Where the run goes on each host: ~/FLEET_REMOTE_DIR/<this run's name>,
 * of safe characters only. */
static char *remote_dir_new(const char *rundir)
{
	const char *base = strrchr(rundir, '/');
	char *name = xstrdup(base ? base + 1 : rundir), *d;
	size_t i;

	for (i = 0; name[i]; i++)
		if (!strchr(
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._-",
			name[i]) ||
		    (!i && name[i] == '.'))
			name[i] = '_';
	d = xasprintf(FLEET_REMOTE_DIR "/%s", *name ? name : "run");
	free(name);
	return d;
}

/* PATH here to FILE in host K's run directory there (stdin to cat). */
static int push_file(struct fleet *f, size_t k, const char *path,
		     const char *pre, const char *file)
{
	struct fleet_host *h = &f->h[k];
	char *cmd =
	    xasprintf("%s%scat >%s/%s", pre, *pre ? " && " : "", f->rdir, file);
	char *out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), status = -1, ret;

	if (fd < 0) {
		ret = err_errno("cannot open '%s'", path);
		snprintf(h->why, sizeof(h->why), "cannot open '%s'", path);
		free(cmd);
		return ret;
	}
	ret = on_host(f, k, cmd, fd, FLEET_COPY_TIMEOUT_S, &out, &status);
	if (ret == 0 && status != 0) {
		char *nl = strrchr(out, '\n');

		if (nl && nl == out + strlen(out) - 1)
			*nl = '\0';
		snprintf(h->why, sizeof(h->why),
			 "cannot put %s there (status %d): %s", file, status,
			 out);
		ret = -EIO;
	} else if (ret < 0) {
		snprintf(h->why, sizeof(h->why), "cannot put %s there", file);
	}
	close(fd);
	free(cmd);
	free(out);
	return ret;
}

/* The config and its workload into host K's run directory. */
static int push(struct fleet *f, size_t k)
{
	const struct run_config *c = &f->r->cfg;
	char *wl = xasprintf("workloads/%s.ini", c->workload_name);
	char *pre =
	    xasprintf("rm -rf %s && mkdir -p %s/workloads", f->rdir, f->rdir);
	int ret = push_file(f, k, c->path, pre, "config.ini");

	if (ret == 0)
		ret = push_file(f, k, c->wl.path, "", wl);
	free(wl);
	free(pre);
	return ret;
}

/* Whether --set S is one the hosts' runs must not get (their own are
 * added last). */
static bool set_is_fleets(const char *s)
{
	return !strncmp(s, "run.executor=", 13) || !strncmp(s, "fleet.", 6) ||
	       !strncmp(s, "workload.dir=", 13);
}

/*
 * The command that runs the matrix on a host: 'vmtax run' detached from
 * the connection (its output in run.log, its pid in run.pid, its status in
 * run.rc), and run.log followed until it ends.
 */
static char *run_cmd_new(const struct fleet *f)
{
	static const char *const ours[] = {"run.executor=" CELL_EXEC_LOCAL,
					   "workload.dir=workloads"};
	const struct run *r = f->r;
	char *sets = xstrdup(""), *q, *prev, *vm, *cmd;
	size_t i;

	for (i = 0; i < r->nsets + ARRAY_SIZE(ours); i++) {
		const char *s = i < r->nsets ? r->sets[i] : ours[i - r->nsets];

		if (i < r->nsets && set_is_fleets(s))
			continue;
		q = sh_quote_new(s);
		prev = sets;
		sets = xasprintf("%s --set %s", prev, q);
		free(prev);
		free(q);
	}
	vm = sh_quote_new(r->cfg.fleet_vmtax);
	cmd = xasprintf("cd %s || exit 97; : >run.log; "
			"%s run config.ini --out run%s >run.log 2>&1 "
			"</dev/null & p=$!; echo $p >run.pid; "
			"tail -n +1 -f --pid=$p run.log 2>/dev/null; "
			"wait $p; rc=$?; echo $rc >run.rc; exit $rc",
			f->rdir, vm, sets);
	free(vm);
	free(sets);
	return cmd;
}

static int start(struct fleet *f, size_t k, const char *cmd)
{
	struct fleet_host *h = &f->h[k];
	size_t n;
	char **v = fleet_ssh_argv_new(&f->ssh, h->name, cmd, &n);
	int ret = fleet_proc_start(v, -1, &h->proc);

	strv_free(v, n);
	if (ret < 0)
		snprintf(h->why, sizeof(h->why), "cannot run ssh");
	h->running = ret == 0;
	return ret;
}

static void show_line(void *arg, const char *s)
{
	struct fleet_host *h = arg;

	fprintf(stderr, "%s" FLEET_PREFIX_SEP "%s\n", h->name, s);
	if (*s)
		snprintf(h->last, sizeof(h->last), "%s", s);
}

/* The first stop signal: each run there stops in good order. */
static void stop_all(struct fleet *f)
{
	char *cmd = xasprintf("kill -TERM $(cat %s/run.pid)", f->rdir), *out;
	size_t k;
	int status;

	f->stopping = true;
	note("fleet: stopping the run on every host");
	for (k = 0; k < f->n; k++) {
		if (!f->h[k].running)
			continue;
		out = NULL;
		on_host(f, k, cmd, -1, 30, &out, &status);
		free(out);
	}
	free(cmd);
}

/* Host K's run ended (its ssh exited): its status, and why if lost. */
static void ended(struct fleet_host *h)
{
	fleet_proc_pump(&h->proc, show_line, h);
	h->rc = fleet_proc_wait(&h->proc);
	h->running = false;
	if (h->rc == 255) {
		snprintf(h->why, sizeof(h->why),
			 "the connection was lost (ssh exited 255): %s",
			 h->last);
		h->rc = -1;
	} else if (h->rc == 97) {
		snprintf(h->why, sizeof(h->why),
			 "its run directory is not there");
		h->rc = -1;
	} else if (h->rc != 0) {
		snprintf(h->why, sizeof(h->why),
			 "its vmtax run exited with status %d: %s", h->rc,
			 h->last);
	}
	if (*h->why)
		warn("fleet: host '%s': %s", h->name, h->why);
	else
		note("fleet: host '%s': its run ended with status %d", h->name,
		     h->rc);
}

/* Every host's output, prefixed, until every run there has ended. */
static void follow(struct fleet *f)
{
	struct pollfd pfd[FLEET_HOSTS_MAX];
	size_t k, np;

	for (;;) {
		np = 0;
		for (k = 0; k < f->n; k++) {
			struct fleet_host *h = &f->h[k];

			if (!h->running)
				continue;
			if (!fleet_proc_pump(&h->proc, show_line, h) ||
			    fleet_proc_exited(&h->proc)) {
				ended(h);
				continue;
			}
			pfd[np].fd = h->proc.fd;
			pfd[np++].events = POLLIN;
		}
		if (!np)
			return;
		if (*f->r->stop_signals && !f->stopping)
			stop_all(f);
		poll(pfd, np, 500);
	}
}

/* What came back into RUN/REL: host H's results, checked, or why not. */
static void take_doc(struct fleet *f, struct fleet_host *h, const char *rel)
{
	char *path = xasprintf("%s/results.json", rel), *text = NULL;
	char *what = xasprintf("fleet: host '%s''s results", h->name);
	size_t len = 0;

	if (read_file_beneath(f->r->rundir, path, FLEET_RESULTS_MAX, &text,
			      &len) == 0)
		h->doc = json_loadb(text, len, 0, NULL);
	if (h->doc && results_remote_check(f->r, h->doc, what) < 0) {
		json_decref(h->doc);
		h->doc = NULL;
		if (!*h->why)
			snprintf(h->why, sizeof(h->why),
				 "its results are not this run's");
	} else if (!h->doc && !*h->why) {
		snprintf(h->why, sizeof(h->why),
			 "no results came back ('%s/%s')", f->r->rundir, path);
	}
	free(text);
	free(what);
	free(path);
}

/* Host K's run directory back into RUN/hosts/NAME, and its results. */
static void fetch(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	char *rel = xasprintf(FLEET_SUBDIR "/%s", h->name);
	char *local = xasprintf("%s/%s", f->r->rundir, rel);
	char *remote = xasprintf("%s/run", f->rplain), *out = NULL;
	size_t n;
	char **v = fleet_scp_argv_new(&f->ssh, h->name, remote, local, &n);
	int status = -1;

	if (fleet_run_capture(v, -1, FLEET_COPY_TIMEOUT_S, &out, &status) ==
		0 &&
	    status == 0)
		take_doc(f, h, rel);
	else if (!*h->why)
		snprintf(h->why, sizeof(h->why),
			 "its run directory did not come back (scp status "
			 "%d): %s",
			 status, out ? strtok(out, "\n") ?: "" : "");
	strv_free(v, n);
	free(out);
	free(remote);
	free(local);
	free(rel);
}

/* This run's record: each cell's outcome on every host, the hosts. */
static json_t *merge(struct fleet *f)
{
	struct fleet_host_result *res = xcalloc(f->n, sizeof(*res));
	struct run *r = f->r;
	json_t *label;
	size_t k;
	int i;

	for (k = 0; k < f->n; k++) {
		res[k].name = f->h[k].name;
		res[k].doc = f->h[k].doc;
		res[k].host = f->h[k].probe_host;
		res[k].rc = f->h[k].rc;
		res[k].why = *f->h[k].why ? f->h[k].why : NULL;
	}
	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];
		char *reason = NULL;
		json_t *obs = NULL;
		enum cell_status cs;
		const char *word =
		    fleet_cell_merge(res, f->n, (size_t)i, &reason, &obs);

		if (cell_status_parse(word, &cs) < 0)
			cs = CELL_FAILED;
		cell_set_status(st, cs, reason);
		json_decref(st->observed);
		st->observed = obs;
		free(reason);
	}
	label = fleet_label_new(r->cfg.fleet_mode, res, f->n);
	free(res);
	return label;
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
	f.rplain = remote_dir_new(r->rundir);
	f.rdir = sh_quote_new(f.rplain);
	probe_hosts(&f);
	cmd = xasprintf("%s/" FLEET_SUBDIR, r->rundir);
	if (mkdir_parents(cmd, 0755) < 0)
		warn("fleet: cannot make '%s'", cmd);
	free(cmd);
	cmd = run_cmd_new(&f);
	for (k = 0; k < f.n; k++)
		f.h[k].started =
		    !*f.h[k].why && push(&f, k) == 0 && start(&f, k, cmd) == 0;
	note("fleet: the matrix runs on %zu hosts, each in '~/%s'", f.n,
	     f.rplain);
	follow(&f);
	for (k = 0; k < f.n; k++) {
		if (f.h[k].started)
			fetch(&f, k);
		failed += *f.h[k].why || f.h[k].rc != 0;
	}
	*label = merge(&f);
	/* each host's own status is in the label, its failures in the
	 * cells (which make the run's exit status) */
	*rc = 0;
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
