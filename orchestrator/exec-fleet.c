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
 * mode = split across unlike hosts (what differs named), with fewer cells
 * than hosts, or with a [run] target.
 *
 * run_remote(): on each host, its copy of the config and its workload under
 * ~/FLEET_REMOTE_DIR/RUN (RUN: this run directory's name), and 'vmtax run'
 * there (executor = local: the hosts unused there) detached from the
 * connection, its output in run.log there, followed here line by line ("HOST|
 * ") until it ends: a connection that drops leaves the run there going, its
 * host restored by its own vmtax.  All hosts at once.  Mode split: each
 * host runs its share of the cells ([run] cells, fleet_split_host()), and
 * this run's document is each cell from its host (fleet_split_doc_new()).  Then each host's run
 * directory comes back into RUN/hosts/NAME (scp over the same connection),
 * checked to be this run's cells (results_remote_check()), and this run
 * records each cell's outcome on every host and the hosts in "fleet"
 * (fleet-merge.c).  The first stop signal stops the runs there (SIGTERM to
 * each: they restore their hosts and keep their samples).
 *
 * --resume (R->resume): a host that ended ok, its results here, is taken
 * as it is; each other host's run there is taken up (fleet_resume_cmd_new())
 * and its run directory comes back again.  A host whose run did not end
 * leaves this run interrupted (resumable).
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
#include <ftw.h>

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

/* mode = split: like hosts only, a cell for each at least, no target (its
 * plan needs the baseline's samples on every host). */
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

/* ---- run_remote() ---- */

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

static bool split(const struct fleet *f)
{
	return !strcmp(f->r->cfg.fleet_mode, fleet_modes[FLEET_SPLIT]);
}

/* The command that runs the matrix (mode split: host K's share) there. */
static char *run_cmd_new(const struct fleet *f, size_t k)
{
	const struct run *r = f->r;
	char *share = split(f) ? fleet_split_cells_new(k, f->n,
						       (size_t)r->ncells)
			       : NULL;
	char *cmd = fleet_run_cmd_new(f->rplain, r->cfg.fleet_vmtax, r->sets,
				      r->nsets, share);

	free(share);
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

static int remove_cb(const char *path, const struct stat *sb, int flag,
		     struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

/* Host K's run directory back into RUN/hosts/NAME (what an earlier run
 * brought back there goes first: scp -r would copy into it), and its
 * results. */
static void fetch(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	char *rel = xasprintf(FLEET_SUBDIR "/%s", h->name);
	char *local = xasprintf("%s/%s", f->r->rundir, rel);
	char *remote = xasprintf("%s/run", f->rplain), *out = NULL;
	size_t n;
	char **v = fleet_scp_argv_new(&f->ssh, h->name, remote, local, &n);
	int status = -1;

	if (nftw(local, remove_cb, 16, FTW_DEPTH | FTW_PHYS) < 0 &&
	    errno != ENOENT)
		warn("fleet: cannot remove '%s' before its copy", local);
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

/* What came back from each host, for fleet-merge.c (owned: free it). */
static struct fleet_host_result *results_new(const struct fleet *f)
{
	struct fleet_host_result *res = xcalloc(f->n, sizeof(*res));
	size_t k;

	for (k = 0; k < f->n; k++) {
		res[k].name = f->h[k].name;
		res[k].doc = f->h[k].doc;
		res[k].host = f->h[k].probe_host;
		res[k].rc = f->h[k].rc;
		res[k].why = *f->h[k].why ? f->h[k].why : NULL;
	}
	return res;
}

/*
 * This run's record: each cell's outcome on every host (mode split: on the
 * host that ran it), into R's states; the hosts, as the label.
 */
static json_t *merge(struct fleet *f)
{
	struct fleet_host_result *res = results_new(f);
	struct run *r = f->r;
	json_t *label;
	int i;

	for (i = 0; i < r->ncells; i++) {
		struct cell_state *st = &r->states[i];
		char *reason = NULL;
		json_t *obs = NULL;
		enum cell_status cs;
		size_t k = split(f) ? fleet_split_host((size_t)i, f->n) : 0;
		const char *word =
		    fleet_cell_merge(res + k, split(f) ? 1 : f->n, (size_t)i,
				     &reason, &obs);

		if (cell_status_parse(word, &cs) < 0)
			cs = CELL_FAILED;
		cell_set_status(st, cs, reason);
		json_decref(st->observed);
		st->observed = obs;
		free(reason);
	}
	/* mode each: every host's cells, the host their outermost axis */
	json_decref(r->record_cells);
	r->record_cells = NULL;
	if (!split(f)) {
		json_t *own = results_cells_new(r);

		r->record_cells = fleet_each_cells_new(res, f->n, r->head, own);
		json_decref(own);
	}
	label = fleet_label_new(r->cfg.fleet_mode, res, f->n);
	free(res);
	return label;
}

/* Mode split: this run's document, each cell from the host that ran it
 * (NULL when none came back: merge() then says why of each cell). */
static json_t *split_doc(const struct fleet *f)
{
	struct fleet_host_result *res = results_new(f);
	json_t *doc = fleet_split_doc_new(res, f->n, (size_t)f->r->ncells);

	free(res);
	return doc;
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

/*
 * --resume: whether host K's run ended ok with its results here, as this
 * run's "fleet" label says: they are taken as they are, and nothing runs
 * there.
 */
static bool resume_done(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	const json_t *hosts = json_object_get(
	    json_object_get(f->r->head, FLEET_EXEC), "hosts");
	const json_t *e;
	char *rel, probe_why[sizeof(h->why)];
	size_t i;

	json_array_foreach(hosts, i, e)
	{
		const char *name =
		    json_string_value(json_object_get(e, "name"));
		const char *st =
		    json_string_value(json_object_get(e, "status"));

		if (!name || strcmp(name, h->name))
			continue;
		if (!st || strcmp(st, "ok") ||
		    !json_is_integer(json_object_get(e, "exit_status")))
			return false;
		/* its probe's failure (if any) matters only if it runs */
		rel = xasprintf(FLEET_SUBDIR "/%s", h->name);
		snprintf(probe_why, sizeof(probe_why), "%s", h->why);
		*h->why = '\0';
		take_doc(f, h, rel);
		free(rel);
		snprintf(h->why, sizeof(h->why), "%s", h->doc ? "" : probe_why);
		if (!h->doc)
			return false;
		h->rc = (int)json_integer_value(
		    json_object_get(e, "exit_status"));
		return true;
	}
	return false;
}

/*
 * --resume, host K: taken as it is when its run ended ok (resume_done());
 * else its run there taken up (fleet_resume_cmd_new(): followed if it
 * still runs, its status if it ended, begun again if it had not begun,
 * else 'vmtax run --resume' there).
 */
static void resume_start(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	char *cmd, *again;

	if (resume_done(f, k)) {
		note("fleet: host '%s': its run ended ok: its results are "
		     "taken as they are",
		     h->name);
		return;
	}
	if (*h->why)
		return;
	again = run_cmd_new(f, k);
	cmd = fleet_resume_cmd_new(f->rplain, f->r->cfg.fleet_vmtax, again);
	h->started = start(f, k, cmd) == 0;
	free(cmd);
	free(again);
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
	cmd = xasprintf("%s/" FLEET_SUBDIR, r->rundir);
	if (mkdir_parents(cmd, 0755) < 0)
		warn("fleet: cannot make '%s'", cmd);
	free(cmd);
	for (k = 0; k < f.n; k++) {
		if (r->resume)
			resume_start(&f, k);
		else if (!*f.h[k].why && push(&f, k) == 0) {
			cmd = run_cmd_new(&f, k);
			f.h[k].started = start(&f, k, cmd) == 0;
			free(cmd);
		}
	}
	cmd = NULL;
	note("fleet: the matrix runs on %zu hosts, each in '~/%s'", f.n,
	     f.rplain);
	follow(&f);
	*rc = 0;
	for (k = 0; k < f.n; k++) {
		if (f.h[k].started)
			fetch(&f, k);
		failed += *f.h[k].why || f.h[k].rc != 0;
		/* a run there that did not end: this one is interrupted
		 * (resumable), not complete */
		if (f.h[k].rc < 0)
			*rc = -1;
	}
	/* mode split: the document becomes R's states (run_remote()) */
	if (split(&f))
		*doc = split_doc(&f);
	*label = merge(&f);
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
