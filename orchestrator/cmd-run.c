/* SPDX-License-Identifier: MIT */
/*
 * vmtax run CONFIG: expand the matrix, then for every cell set the host,
 * run the samples on bare metal or in a fresh guest, and record every sample
 * in RUNDIR/results.json as soon as it is measured.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-client.h"
#include "cmds.h"
#include "host.h"
#include "matrix.h"
#include "report.h"
#include "runner.h"
#include "util.h"
#include "vm.h"

#define RESULTS_SCHEMA "vmtax-results/1"

/*
 * The signal state: the one flag (how many stop signals arrived) and the
 * host context the second signal must restore from its handler.
 */
static volatile sig_atomic_t stop_signals;
static struct host_ctx *volatile signal_host;

struct run {
	struct config cfg;
	struct matrix matrix;
	struct cell *cells;	/* matrix.cells */
	int ncells;
	char *rundir;
	char *results_path;
	json_t *doc;		/* the results document, written after each sample */
	struct host_ctx *host;
	struct vm_conn *conn;
	const char *accel;
	char accel_why[256];
	char *kernel;
	char *initrd;
	char *disk;		/* image = debian: the cached qcow2 (read-only base) */
	char *overlay_dir;	/* where the cells' qcow2 overlays go */
	char bindir[PATH_MAX];
	char vendor_paging[8];	/* "ept" or "npt" */
	char **wl_env;
	bool need_guest;
	long failures;
	double t0;
	long samples_done;
	long samples_total;
	bool stopped;		/* stop requested or max_failures reached */
	bool resume;		/* continuing an interrupted run */
	const char *const *sets; /* --set overrides, kept for --resume */
	size_t nsets;
};

static void on_signal(int sig)
{
	static const char msg[] =
		"vmtax: second signal: host settings restored, stopping now\n";

	if (++stop_signals >= 2) {
		if (signal_host)
			host_restore_async(signal_host);
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nothing to do */
		}
		_exit(128 + sig);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax run CONFIG [--out DIR] [--set SECTION.KEY=VALUE]...\n"
		"       vmtax run --resume DIR [--force]\n"
		"\n"
		"Runs the matrix of CONFIG: bare-metal cells for each host THP mode,\n"
		"guest cells for each host THP x guest THP (x paging x backing).\n"
		"Every sample lands in DIR/results.json as soon as it is measured;\n"
		"logs and guest consoles go to DIR/logs/.  The host is restored at the\n"
		"end and on SIGINT/SIGTERM/SIGHUP (press Ctrl-C twice to stop at once).\n"
		"\n"
		"  -o, --out DIR        run directory (default: runs/NAME-TIMESTAMP)\n"
		"  -s, --set S.K=V      override a config key, or a workload\n"
		"                       parameter as workload.NAME=VALUE\n"
		"  -r, --resume DIR     continue an interrupted run in DIR: completed\n"
		"                       samples are kept, never repeated\n"
		"  -f, --force          resume even if the config file has changed\n"
		"  -h, --help           this text\n"
		"\n"
		"Config keys:\n");
	config_print_help(f);
}

/* ---- results document ---- */

static json_t *cell_json(const struct run *r, const struct cell *c)
{
	json_t *env = json_object(), *j = json_object();

	(void)r;
	json_object_set_new(env, "where",
			    json_string(c->where == WHERE_BARE ? "bare-metal"
							       : "guest"));
	json_object_set_new(env, "host_thp", json_string(c->host_thp));
	if (c->where == WHERE_GUEST) {
		json_object_set_new(env, "guest_thp", json_string(c->guest_thp));
		json_object_set_new(env, "vcpus", json_integer(c->vcpus));
		json_object_set_new(env, "memory_bytes",
				    json_integer(c->memory));
		json_object_set_new(env, "backing", json_string(backing_name(c->backing)));
	} else {
		json_object_set_new(env, "guest_thp", json_null());
		json_object_set_new(env, "vcpus", json_null());
		json_object_set_new(env, "memory_bytes", json_null());
		json_object_set_new(env, "backing", json_null());
	}
	json_object_set_new(env, "paging", json_null());
	json_object_set_new(j, "id", json_string(c->id));
	json_object_set_new(j, "env", env);
	json_object_set_new(j, "status", json_string("pending"));
	json_object_set_new(j, "reason", json_null());
	json_object_set_new(j, "observed", json_object());
	json_object_set_new(j, "samples", json_array());
	return j;
}

static void host_info(json_t *host, const struct run *r)
{
	struct host_cpu cpu;
	struct utsname u;
	char hn[256] = "";

	gethostname(hn, sizeof(hn) - 1);
	uname(&u);
	json_object_set_new(host, "hostname", json_string(hn));
	json_object_set_new(host, "kernel", json_string(u.release));
	if (host_cpu_read("", &cpu) == 0)
		json_object_set_new(host, "cpu_model", json_string(cpu.model));
	else
		json_object_set_new(host, "cpu_model", json_null());
	json_object_set_new(host, "cpus",
			    json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(host, "mem_bytes",
			    json_integer((json_int_t)sysconf(_SC_PHYS_PAGES) *
					 sysconf(_SC_PAGESIZE)));
	json_object_set_new(host, "accel", json_string(r->accel));
	json_object_set_new(host, "accel_reason", json_string(r->accel_why));
}

static json_t *doc_new(const struct run *r)
{
	json_t *doc = json_object(), *run = json_object(), *wl = json_object();
	json_t *host = json_object(), *ver = json_object(), *cells, *params;
	char ts[32], lv[64] = "", qv[64] = "";
	size_t i;

	iso8601_now(ts, sizeof(ts));
	json_object_set_new(run, "name", json_string(r->cfg.name));
	json_object_set_new(run, "config_path", json_string(r->cfg.path));
	json_object_set_new(run, "config_text", json_string(r->cfg.text));
	json_object_set_new(run, "config", config_to_json(&r->cfg));
	{
		json_t *sets = json_array();

		for (i = 0; i < r->nsets; i++)
			json_array_append_new(sets, json_string(r->sets[i]));
		json_object_set_new(run, "sets", sets);
	}
	json_object_set_new(run, "started", json_string(ts));
	json_object_set_new(run, "finished", json_null());
	json_object_set_new(run, "status", json_string("running"));
	host_info(host, r);
	json_object_set_new(run, "host", host);
	json_object_set_new(ver, "vmtax", json_string(VMTAX_VERSION));
	if (r->need_guest)
		vm_versions(r->cfg.uri, lv, sizeof(lv), qv, sizeof(qv));
	json_object_set_new(ver, "libvirt", *lv ? json_string(lv) : json_null());
	json_object_set_new(ver, "qemu", *qv ? json_string(qv) : json_null());
	json_object_set_new(run, "versions", ver);
	json_object_set_new(doc, "schema", json_string(RESULTS_SCHEMA));
	json_object_set_new(doc, "run", run);

	json_object_set_new(wl, "name", json_string(r->cfg.wl.name));
	json_object_set_new(wl, "description",
			    json_string(r->cfg.wl.description));
	json_object_set_new(wl, "metric", json_string(r->cfg.wl.metric));
	json_object_set_new(wl, "unit", json_string(r->cfg.wl.unit));
	json_object_set_new(wl, "better", json_string(r->cfg.wl.better));
	params = json_object();
	for (i = 0; i < r->cfg.wl.nparams; i++)
		json_object_set_new(params, r->cfg.wl.params[i].name,
				    json_string(r->cfg.wl.params[i].value));
	json_object_set_new(wl, "params", params);
	json_object_set_new(doc, "workload", wl);
	json_object_set_new(doc, "baseline",
			    json_string(*r->cfg.baseline ? r->cfg.baseline
							 : r->cells[0].id));
	cells = json_array();
	for (i = 0; i < (size_t)r->ncells; i++)
		json_array_append_new(cells, cell_json(r, &r->cells[i]));
	json_object_set_new(doc, "cells", cells);
	return doc;
}

static int doc_save(struct run *r)
{
	char *s = json_dumps(r->doc, JSON_INDENT(2));
	int ret;

	if (!s)
		return err("cannot serialise the results");
	ret = write_file_atomic(r->results_path, s, strlen(s));
	free(s);
	return ret;
}

static void cell_status(json_t *cj, const char *status, const char *reason)
{
	json_object_set_new(cj, "status", json_string(status));
	json_object_set_new(cj, "reason",
			    reason ? json_string(reason) : json_null());
}

/* ---- helpers ---- */

static void slug(const char *id, char *out, size_t len)
{
	size_t i;

	for (i = 0; id[i] && i + 1 < len; i++)
		out[i] = (id[i] == '/' || id[i] == '=') ? '_' : id[i];
	out[i] = '\0';
}

static void progress(struct run *r, int ci, const char *what)
{
	double el = mono_now() - r->t0;
	char eta[32] = "?";

	if (r->samples_done > 0) {
		double per = el / r->samples_done;
		long left = r->samples_total - r->samples_done;

		snprintf(eta, sizeof(eta), "%ld:%02ld",
			 (long)(per * left) / 60, (long)(per * left) % 60);
	}
	note("[%d/%d] %s: %s (elapsed %ld:%02ld, ETA %s)", ci + 1, r->ncells,
	     r->cells[ci].id, what, (long)el / 60, (long)el % 60, eta);
}

/* The metric of one sample; false when it cannot be had. */
static bool sample_metric(const struct run *r, const struct runner_result *res,
			  double *value, char *why, size_t len)
{
	regmatch_t m[2];
	regex_t re;
	bool ok = false;

	if (!strcmp(r->cfg.wl.metric, "elapsed")) {
		*value = res->elapsed_s;
		return true;
	}
	if (regcomp(&re, r->cfg.wl.metric_regex, REG_EXTENDED | REG_NEWLINE))
		return false;
	if (res->output &&
	    regexec(&re, res->output, 2, m, 0) == 0 && m[1].rm_so >= 0) {
		char *v = xstrndup(res->output + m[1].rm_so,
				   m[1].rm_eo - m[1].rm_so), *end;

		*value = strtod(v, &end);
		ok = end != v;
		free(v);
	}
	regfree(&re);
	if (!ok)
		snprintf(why, len, "metric_regex '%s' did not match the output",
			 r->cfg.wl.metric_regex);
	return ok;
}

/*
 * The series of one sample: {"x": [...], "y": [...]} from every output line
 * series_regex matches (groups 1 and 2), or NULL when the workload has no
 * series_regex.  A line whose groups are not numbers is left out.
 */
static json_t *sample_series_new(const struct run *r,
				 const struct runner_result *res)
{
	const char *p = res->output;
	json_t *xs, *ys;
	regmatch_t m[3];
	regex_t re;

	if (!*r->cfg.wl.series_regex ||
	    regcomp(&re, r->cfg.wl.series_regex, REG_EXTENDED | REG_NEWLINE))
		return NULL;
	xs = json_array();
	ys = json_array();
	/* P is always at the start of a line: one point per line at most. */
	while (p && *p && regexec(&re, p, 3, m, 0) == 0) {
		char *x, *y, *xe, *ye;
		double xv, yv;

		if (m[1].rm_so >= 0 && m[2].rm_so >= 0) {
			x = xstrndup(p + m[1].rm_so, m[1].rm_eo - m[1].rm_so);
			y = xstrndup(p + m[2].rm_so, m[2].rm_eo - m[2].rm_so);
			xv = strtod(x, &xe);
			yv = strtod(y, &ye);
			if (xe != x && !*xe && ye != y && !*ye) {
				json_array_append_new(xs, json_real(xv));
				json_array_append_new(ys, json_real(yv));
			}
			free(x);
			free(y);
		}
		p += m[0].rm_eo;
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	regfree(&re);
	return json_pack("{s:o, s:o}", "x", xs, "y", ys);
}

static void save_output(struct run *r, const char *cslug, const char *phase,
			long idx, const char *out)
{
	char *path = xasprintf("%s/logs/%s.%s-%ld.out", r->rundir, cslug, phase,
			       idx);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		      0644);

	if (fd >= 0) {
		if (out && write(fd, out, strlen(out)) < 0)
			warn("cannot write '%s'", path);
		close(fd);
	}
	free(path);
}

/*
 * Append a sample to RUNDIR/samples.jsonl and fsync it, before results.json
 * is rewritten: whatever happens next, a measured sample is on disk.
 */
static void journal_sample(struct run *r, const char *cell_id, json_t *sj)
{
	json_t *line = json_pack("{s:s, s:O}", "cell", cell_id, "sample", sj);
	char *path = xasprintf("%s/samples.jsonl", r->rundir);
	char *text = json_dumps(line, JSON_COMPACT);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0 || !text || write(fd, text, strlen(text)) < 0 ||
	    write(fd, "\n", 1) < 0 || fsync(fd) < 0)
		warn("cannot append to '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	json_decref(line);
}

/*
 * Record a measured sample into the cell; returns true when it is ok.
 * SJ is the sample's JSON (stolen), RES the same as a struct.
 */
static bool record_sample(struct run *r, json_t *cj, long idx, json_t *sj,
			  const struct runner_result *res, const char *cslug)
{
	char why[512] = "";
	double metric;
	json_t *series;
	bool ok = res->status == RUNNER_OK;

	save_output(r, cslug, "sample", idx, res->output);
	json_object_del(sj, "output");
	json_object_set_new(sj, "index", json_integer(idx));
	if (ok && sample_metric(r, res, &metric, why, sizeof(why))) {
		json_object_set_new(sj, "metric", json_real(metric));
	} else {
		json_object_set_new(sj, "metric", json_null());
		if (ok) {
			ok = false;
			json_object_set_new(sj, "status", json_string("failed"));
		} else if (res->status == RUNNER_TIMEOUT) {
			snprintf(why, sizeof(why), "timed out after %.0f s",
				 res->elapsed_s);
		} else {
			snprintf(why, sizeof(why),
				 "the run command exited with status %d",
				 res->exit_status);
		}
	}
	json_object_set_new(sj, "reason", *why ? json_string(why) : json_null());
	if ((series = sample_series_new(r, res)))
		json_object_set_new(sj, "series", series);
	journal_sample(r, json_string_value(json_object_get(cj, "id")), sj);
	json_array_append_new(json_object_get(cj, "samples"), sj);
	r->samples_done++;
	if (!ok) {
		r->failures++;
		warn("%s: sample %ld failed: %s", json_string_value(
			     json_object_get(cj, "id")), idx, why);
	}
	doc_save(r);
	return ok;
}

/* A failed sample that will be retried leaves results.json (not the log). */
static void drop_for_retry(struct run *r, json_t *cj)
{
	json_t *samples = json_object_get(cj, "samples");

	json_array_remove(samples, json_array_size(samples) - 1);
	r->samples_done--;
}

static double sample_timeout(const struct run *r)
{
	return r->cfg.wl.timeout_s > 0 ? r->cfg.wl.timeout_s : r->cfg.timeout_s;
}

static bool should_stop(struct run *r)
{
	if (stop_signals && !r->stopped) {
		note("stop requested: finishing here; the run can be resumed");
		r->stopped = true;
	}
	if (r->failures >= r->cfg.max_failures && !r->stopped) {
		warn("%ld samples failed (max_failures = %ld): stopping the run",
		     r->failures, r->cfg.max_failures);
		r->stopped = true;
	}
	return r->stopped;
}

/* ---- bare metal ---- */

static int rm_cb(const char *p, const struct stat *s, int flag, struct FTW *f)
{
	(void)s;
	(void)flag;
	(void)f;
	return remove(p);
}

static char **bare_env_new(const struct run *r, const char *workdir)
{
	size_t n = 0, i;
	char **env;

	while (r->wl_env[n])
		n++;
	env = xcalloc(n + 3, sizeof(*env));
	for (i = 0; i < n; i++)
		env[i] = xstrdup(r->wl_env[i]);
	env[n] = xasprintf("PATH=%s:%s", r->bindir,
			   getenv("PATH") ?: "/usr/bin:/bin");
	env[n + 1] = xasprintf("VMTAX_WORKDIR=%s", workdir);
	return env;
}

static int bare_phase(struct run *r, char **env, const char *workdir,
		      const char *cmd, bool counters,
		      struct runner_result *res)
{
	struct runner_spec spec = {
		.cmd = cmd,
		.env = (const char *const *)env,
		.cwd = workdir,
		.timeout_s = sample_timeout(r),
		.counters = counters,
	};

	memset(res, 0, sizeof(*res));
	return runner_run(&spec, res);
}

static void run_bare_cell(struct run *r, int ci, json_t *cj)
{
	const struct cell *c = &r->cells[ci];
	char workdir[] = "/tmp/vmtax-work-XXXXXX", cslug[256], why[512];
	struct runner_result res;
	char **env = NULL;
	long i, attempt;

	slug(c->id, cslug, sizeof(cslug));
	if (!mkdtemp(workdir)) {
		err_errno("cannot create a work directory");
		cell_status(cj, "failed", "cannot create a work directory");
		return;
	}
	env = bare_env_new(r, workdir);
	if (*r->cfg.wl.setup) {
		progress(r, ci, "setup");
		if (bare_phase(r, env, workdir, r->cfg.wl.setup, false, &res) < 0 ||
		    res.status != RUNNER_OK) {
			save_output(r, cslug, "setup", 0, res.output);
			snprintf(why, sizeof(why),
				 "setup failed (exit status %d); see logs/%s.setup-0.out",
				 res.exit_status, cslug);
			cell_status(cj, "failed", why);
			runner_result_release(&res);
			goto out;
		}
		runner_result_release(&res);
	}
	for (i = 0; i < r->cfg.warmup && !should_stop(r); i++) {
		progress(r, ci, "warm-up run");
		if (bare_phase(r, env, workdir, r->cfg.wl.run, false, &res) == 0) {
			save_output(r, cslug, "warmup", i, res.output);
			runner_result_release(&res);
		}
	}
	for (i = json_array_size(json_object_get(cj, "samples"));
	     i < r->cfg.repeat && !should_stop(r); i++) {
		for (attempt = 0; attempt <= r->cfg.retries; attempt++) {
			char what[64];
			json_t *sj;
			bool ok;

			snprintf(what, sizeof(what), "sample %ld/%ld", i + 1,
				 r->cfg.repeat);
			progress(r, ci, what);
			if (bare_phase(r, env, workdir, r->cfg.wl.run, true,
				       &res) < 0) {
				cell_status(cj, "failed",
					    "cannot start the run command");
				goto out;
			}
			sj = proto_sample_to_json(&res, 1);
			ok = record_sample(r, cj, i, sj, &res, cslug);
			runner_result_release(&res);
			if (ok)
				break;
			if (attempt < r->cfg.retries)
				drop_for_retry(r, cj);
		}
	}
	if (*r->cfg.wl.clean) {
		if (bare_phase(r, env, workdir, r->cfg.wl.clean, false, &res) == 0)
			runner_result_release(&res);
	}
	cell_status(cj, "ok", NULL);
out:
	free_strv(env);
	nftw(workdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- guests ---- */

static void console_tail(const char *path)
{
	char *text = NULL, *p;
	size_t len;
	int lines = 0;

	if (read_file(path, 16 << 20, &text, &len) < 0)
		return;
	/* Back to the start of the 15th line from the end. */
	for (p = text + len; p > text; p--)
		if (p[-1] == '\n' && p != text + len && ++lines == 15)
			break;
	fprintf(stderr, "--- last lines of %s ---\n%s--- end ---\n", path, p);
	free(text);
}

static json_t *guest_run_args(const struct run *r, const char *cmd,
			      bool counters)
{
	json_t *a = json_object(), *env = json_object();
	size_t i;

	for (i = 0; i < r->cfg.wl.nparams; i++)
		json_object_set_new(env, r->cfg.wl.params[i].name,
				    json_string(r->cfg.wl.params[i].value));
	json_object_set_new(env, "VMTAX_WORKDIR", json_string("/tmp"));
	json_object_set_new(a, "cmd", json_string(cmd));
	json_object_set_new(a, "env", env);
	json_object_set_new(a, "cwd", json_string("/tmp"));
	json_object_set_new(a, "timeout_s", json_real(sample_timeout(r)));
	json_object_set_new(a, "counters", json_boolean(counters));
	json_object_set_new(a, "with_output", json_true());
	json_object_set_new(a, "heartbeat_s", json_real(r->cfg.heartbeat_s));
	return a;
}

static int guest_call_run(struct run *r, struct agent_client *a,
			  const char *cmd, bool counters, json_t **result,
			  char *why, size_t len)
{
	json_t *args = guest_run_args(r, cmd, counters);
	/* Silence longer than a few heartbeats means a hang, not a slow run. */
	double idle = r->cfg.heartbeat_s * 4 + 30;
	int ret;

	ret = agent_call(a, "run", args, idle, sample_timeout(r) + 120, result,
			 why, len);
	json_decref(args);
	return ret;
}

static void observe_qemu(struct run *r, struct vm *vm, const struct cell *c,
			 json_t *obs)
{
	char path[64], *text = NULL, *p;
	long anon_kb = -1, hp_total = -1, hp_free = -1;
	int pid = vm_qemu_pid(vm);

	(void)r;
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
		if (read_file(path, 1 << 20, &text, NULL) == 0) {
			p = strstr(text, "AnonHugePages:");
			if (p)
				anon_kb = strtol(p + 14, NULL, 10);
			free(text);
			text = NULL;
		}
	}
	/* /proc/meminfo counts only the default page size: read each pool. */
	{
		static const char *const pools[] = { "hugepages-2048kB",
						     "hugepages-1048576kB" };
		size_t k;

		for (k = 0; k < ARRAY_SIZE(pools); k++) {
			char nr[32], fr[32], *pn, *pf;

			if (c->backing == BACKING_HUGETLB_2M ? k != 0
			    : c->backing == BACKING_HUGETLB_1G ? k != 1
								 : false)
				continue;
			pn = xasprintf("/sys/kernel/mm/hugepages/%s/nr_hugepages",
				       pools[k]);
			pf = xasprintf("/sys/kernel/mm/hugepages/%s/free_hugepages",
				       pools[k]);
			if (read_line(pn, nr, sizeof(nr)) == 0 &&
			    read_line(pf, fr, sizeof(fr)) == 0) {
				hp_total = (hp_total < 0 ? 0 : hp_total) +
					   strtol(nr, NULL, 10);
				hp_free = (hp_free < 0 ? 0 : hp_free) +
					  strtol(fr, NULL, 10);
			}
			free(pn);
			free(pf);
		}
	}
	json_object_set_new(obs, "qemu_anon_huge_kb",
			    anon_kb >= 0 ? json_integer(anon_kb) : json_null());
	json_object_set_new(obs, "hugetlb_pages_in_use",
			    hp_total >= 0 && hp_free >= 0
				    ? json_integer(hp_total - hp_free)
				    : json_null());
	if (!strcmp(c->host_thp, "never") && anon_kb > 0 &&
	    c->backing == BACKING_THP)
		json_object_set_new(
			obs, "contradiction",
			json_sprintf("host THP is never but QEMU has %ld kB of AnonHugePages",
				     anon_kb));
}

/* qemu-img create -f qcow2 -F qcow2 -b BASE OVERLAY */
static int make_overlay(const char *base, const char *overlay)
{
	const char *const argv[] = { "qemu-img", "create", "-q", "-f", "qcow2",
				     "-F", "qcow2", "-b", base, overlay, NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return err_errno("cannot fork qemu-img");
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return err_errno("cannot wait for qemu-img");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return err("qemu-img could not create '%s' on '%s'", overlay,
			   base);
	return 0;
}

/* One booted guest of a cell: its domain, agent client and disk overlay. */
struct guest {
	struct vm *vm;
	struct agent_client a;
	bool client;	 /* a is initialized */
	bool agent_dead; /* no request may be sent any more */
	char *overlay;
	char *console;
};

/*
 * Boot guest number BOOT of cell CI (0 first; a fresh guest after one died
 * gets its own console log, so the dead one's is kept), say hello, set the
 * guest THP, run the setup and the warm-up runs.  On failure the cell is
 * marked failed with the reason and -1 is returned; guest_stop() cleans up
 * either way.
 */
static int guest_start(struct run *r, int ci, json_t *cj, int boot, FILE *log,
		       struct guest *g)
{
	const struct cell *c = &r->cells[ci];
	char name[128], cslug[256], why[512], sfx[16] = "", *cmdline;
	char *reason = NULL;
	const char *rel;
	json_t *res = NULL, *obs = json_object_get(cj, "observed"), *args;
	struct vm_spec spec;
	double t_start;
	long i;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	slug(c->id, cslug, sizeof(cslug));
	/* A replaced guest may linger a moment while libvirt tears it down:
	 * every boot has a name (and a console log) of its own. */
	if (boot)
		snprintf(sfx, sizeof(sfx), "%d", boot);
	snprintf(name, sizeof(name), "vmtax-%s-%d-%d%s%s", r->cfg.name, ci,
		 (int)getpid(), boot ? "-" : "", sfx);
	g->console = xasprintf("%s/logs/%s%s%s.console.log", r->rundir, cslug,
			       boot ? ".boot" : "", sfx);
	rel = g->console + strlen(r->rundir) + 1;
	cmdline = xasprintf("console=ttyS0 panic=-1 %s%s",
			    r->disk ? "root=/dev/vda rw " : "", c->cmdline);
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.type = c->paging == PAGING_TCG || !strcmp(r->accel, "tcg")
			    ? "qemu"
			    : "kvm";
	spec.vcpus = c->vcpus;
	spec.memory_bytes = c->memory;
	spec.kernel = r->kernel;
	spec.initrd = r->initrd;
	spec.cmdline = cmdline;
	spec.console_log = g->console;
	spec.backing = backing_name(c->backing);
	if (r->disk) {
		/* Each guest boots a fresh overlay: the cached image stays
		 * clean, and one cell's build tree cannot leak into the next.
		 * It lives beside the image, where QEMU (libvirt-qemu) can
		 * reach it as it must reach the image; a run directory may
		 * sit under a private one. */
		g->overlay = xasprintf("%s/%d-%s.qcow2", r->overlay_dir,
				       (int)getpid(), cslug);
		unlink(g->overlay);
		if (make_overlay(r->disk, g->overlay) < 0) {
			cell_status(cj, "failed", "cannot create the disk overlay");
			goto out;
		}
		spec.disk = g->overlay;
	}

	progress(r, ci, boot ? "booting a fresh guest" : "booting guest");
	t_start = mono_now();
	if (vm_start(r->conn, &spec, &g->vm) < 0) {
		cell_status(cj, "failed", "cannot start the guest (see above)");
		goto out;
	}
	agent_client_init(&g->a, g->vm, log);
	g->client = true;
	ret = agent_call(&g->a, "hello", NULL, r->cfg.boot_timeout_s,
			 r->cfg.boot_timeout_s, &res, why, sizeof(why));
	if (ret < 0) {
		reason = ret == -EPIPE
				 ? xasprintf("the guest ended %.0f s after its "
					     "start, before its agent said "
					     "hello: %s; console: %s",
					     mono_now() - t_start, why, rel)
				 : xasprintf("no hello from the guest agent "
					     "within %.0f s: %s; console: %s",
					     r->cfg.boot_timeout_s, why, rel);
		g->agent_dead = true;
		console_tail(g->console);
		goto out;
	}
	json_object_set_new(obs, "boot_to_hello_s",
			    json_real(mono_now() - t_start));
	json_object_set_new(obs, "guest_boots", json_integer(boot + 1));
	json_object_set(obs, "guest_kernel", json_object_get(res, "kernel"));
	/* Which cached image (its recipe hash is in the name) booted. */
	if (r->disk)
		json_object_set_new(obs, "guest_image",
				    json_string(strrchr(r->disk, '/') + 1));
	json_object_set(obs, "guest_cpus", json_object_get(res, "cpus"));
	json_object_set(obs, "guest_mem_bytes", json_object_get(res, "mem_bytes"));
	json_decref(res);
	res = NULL;

	args = json_pack("{ss}", "enabled", c->guest_thp);
	ret = agent_call(&g->a, "set-thp", args, 30, 60, &res, why, sizeof(why));
	json_decref(args);
	if (ret < 0) {
		reason = xasprintf("cannot set guest THP to '%s': %s",
				   c->guest_thp, why);
		goto out;
	}
	json_object_set(obs, "guest_thp", json_object_get(res, "enabled"));
	json_decref(res);
	res = NULL;

	if (*r->cfg.wl.setup) {
		progress(r, ci, "setup");
		ret = guest_call_run(r, &g->a, r->cfg.wl.setup, false, &res,
				     why, sizeof(why));
		if (ret == 0 && json_is_string(json_object_get(res, "status")) &&
		    strcmp(json_string_value(json_object_get(res, "status")),
			   "ok")) {
			save_output(r, cslug, "setup", boot,
				    json_string_value(json_object_get(res, "output")));
			snprintf(why, sizeof(why),
				 "setup failed; see logs/%s.setup-%d.out", cslug,
				 boot);
			ret = -EIO;
		}
		json_decref(res);
		res = NULL;
		if (ret < 0) {
			cell_status(cj, "failed", why);
			goto out;
		}
	}
	for (i = 0; i < r->cfg.warmup && !should_stop(r); i++) {
		progress(r, ci, "warm-up run");
		ret = guest_call_run(r, &g->a, r->cfg.wl.run, false, &res, why,
				     sizeof(why));
		if (ret < 0) {
			reason = xasprintf("warm-up run: %s", why);
			goto out;
		}
		save_output(r, cslug, "warmup", i,
			    json_string_value(json_object_get(res, "output")));
		json_decref(res);
		res = NULL;
	}
	ret = 0;
out:
	if (reason) {
		err("%s: %s", c->id, reason);
		cell_status(cj, "failed", reason);
		free(reason);
	}
	free(cmdline);
	return ret < 0 ? -1 : 0;
}

/* Power the guest off (politely when its agent still answers) and free it. */
static void guest_stop(struct run *r, json_t *obs, struct guest *g)
{
	char why[512];
	json_t *res = NULL;

	if (g->vm) {
		if (vm_running(g->vm)) {
			/* Without a shutdown reply, nothing will power it off;
			 * a hung or gone agent gets no shutdown request. */
			json_t *sargs = json_pack("{s:f}", "delay_s", 2.0);

			/* The channel is closed before the guest powers off
			 * (see vm_close_channel()); hence the agent's delay. */
			if (g->client && !g->agent_dead &&
			    agent_call(&g->a, "shutdown", sargs, 5, 5, &res,
				       why, sizeof(why)) == 0) {
				json_object_set(obs, "agent_max_rss_kb",
						json_object_get(res,
								"agent_max_rss_kb"));
				json_decref(res);
				doc_save(r);
				vm_close_channel(g->vm);
				vm_stop(g->vm, 20);
			} else {
				vm_close_channel(g->vm);
				vm_stop(g->vm, 0);
			}
			json_decref(sargs);
		}
		vm_free(g->vm);
	}
	if (g->client)
		agent_client_release(&g->a);
	if (g->overlay) {
		unlink(g->overlay);
		free(g->overlay);
	}
	free(g->console);
	memset(g, 0, sizeof(*g));
}

/*
 * The guest G died or hung in a sample, for REASON: note it in the cell's
 * observed.guest_restarts, stop G and boot guest number BOOT in its place
 * (setup and warm-up again).  0, or -1 with the cell failed.
 */
static int guest_replace(struct run *r, int ci, json_t *cj, int boot,
			 FILE *log, const char *reason, struct guest *g)
{
	json_t *obs = json_object_get(cj, "observed");
	json_t *list = json_object_get(obs, "guest_restarts");

	if (!list) {
		list = json_array();
		json_object_set_new(obs, "guest_restarts", list);
	}
	json_array_append_new(list, json_string(reason));
	guest_stop(r, obs, g);
	return guest_start(r, ci, cj, boot, log, g);
}

static void run_guest_cell(struct run *r, int ci, json_t *cj)
{
	const struct cell *c = &r->cells[ci];
	char cslug[256], why[512], *logpath;
	json_t *res = NULL, *obs = json_object_get(cj, "observed");
	struct guest g;
	FILE *log;
	long i, attempt;
	int boot = 0, ret;

	slug(c->id, cslug, sizeof(cslug));
	logpath = xasprintf("%s/logs/%s.agent.log", r->rundir, cslug);
	log = fopen_new(logpath);
	if (guest_start(r, ci, cj, boot, log, &g) < 0)
		goto out;
	for (i = json_array_size(json_object_get(cj, "samples"));
	     i < r->cfg.repeat && !should_stop(r); i++) {
		for (attempt = 0; attempt <= r->cfg.retries; attempt++) {
			struct runner_result rr;
			char what[64];
			bool ok;

			snprintf(what, sizeof(what), "sample %ld/%ld", i + 1,
				 r->cfg.repeat);
			progress(r, ci, what);
			ret = guest_call_run(r, &g.a, r->cfg.wl.run, true, &res,
					     why, sizeof(why));
			memset(&rr, 0, sizeof(rr));
			if (ret < 0 || proto_sample_from_json(res, &rr) < 0) {
				char *reason = xasprintf(
					"sample %ld: %s", i,
					ret < 0 ? why : "bad sample from the agent");

				runner_result_release(&rr);
				json_decref(res);
				res = NULL;
				err("%s: %s", c->id, reason);
				if (ret == -EPIPE || ret == -ETIMEDOUT) {
					console_tail(g.console);
					g.agent_dead = true;
				}
				/*
				 * A dead or hung guest costs one attempt: the
				 * sample is tried again in a fresh guest (its
				 * setup runs again); the samples measured so
				 * far stay.
				 */
				if (g.agent_dead && attempt < r->cfg.retries &&
				    !should_stop(r)) {
					note("%s: retrying sample %ld in a fresh guest",
					     c->id, i + 1);
					ret = guest_replace(r, ci, cj, ++boot,
							    log, reason, &g);
					free(reason);
					if (ret == 0)
						continue;
				} else {
					cell_status(cj, "failed", reason);
					free(reason);
				}
				/* The rest of the cell's samples are not run. */
				r->samples_done += r->cfg.repeat - i;
				r->failures++;
				goto out;
			}
			ok = record_sample(r, cj, i, json_incref(res), &rr,
					   cslug);
			runner_result_release(&rr);
			json_decref(res);
			res = NULL;
			if (ok)
				break;
			if (attempt < r->cfg.retries)
				drop_for_retry(r, cj);
		}
	}
	observe_qemu(r, g.vm, c, obs);
	if (*r->cfg.wl.clean) {
		if (guest_call_run(r, &g.a, r->cfg.wl.clean, false, &res, why,
				   sizeof(why)) == 0)
			json_decref(res);
		res = NULL;
	}
	cell_status(cj, "ok", NULL);
out:
	guest_stop(r, obs, &g);
	if (log)
		fclose(log);
	free(logpath);
}

/* ---- cells ---- */

/* Is there a hugetlbfs mount with pages of KIB kB? */
static bool hugetlbfs_mounted(unsigned long kib)
{
	char *text = NULL, *line, *save = NULL;
	bool found = false;

	if (read_file("/proc/mounts", 1 << 20, &text, NULL) < 0)
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char want[32];

		if (!strstr(line, " hugetlbfs "))
			continue;
		snprintf(want, sizeof(want), "pagesize=%luM", kib / 1024);
		if (strstr(line, want) ||
		    (kib == 2048 && !strstr(line, "pagesize=")))
			found = true;
		if (kib == 1048576 && strstr(line, "pagesize=1024M"))
			found = true;
	}
	free(text);
	return found;
}

/*
 * For a hugetlb-backed guest, reserve the guest's memory in the pool before
 * the cell (the original size goes to ORIG, the knob to POOL).  A cell that
 * cannot have its pool is skipped with the reason; returns -1 then.
 */
static int hugetlb_reserve(struct run *r, const struct cell *c, json_t *cj,
			   char *pool, size_t plen, char *orig, size_t olen)
{
	unsigned long kib;
	char why[512], want[32];
	int ret;

	if (c->backing == BACKING_HUGETLB_2M)
		kib = 2048;
	else if (c->backing == BACKING_HUGETLB_1G)
		kib = 1048576;
	else
		return 0;
	snprintf(pool, plen, "%s", kib == 2048 ? "hugetlb.2M" : "hugetlb.1G");
	if (!host_supported(r->host, pool, NULL, why, sizeof(why)))
		goto skip;
	if (!hugetlbfs_mounted(kib)) {
		snprintf(why, sizeof(why),
			 "no hugetlbfs mount with %s pages (mount one, then "
			 "restart libvirtd: it looks for mounts only at start)",
			 kib == 2048 ? "2M" : "1G");
		goto skip;
	}
	if (host_get(r->host, pool, orig, olen) < 0) {
		snprintf(why, sizeof(why), "cannot read the %s pool", pool);
		goto skip;
	}
	snprintf(want, sizeof(want), "%llu",
		 (unsigned long long)(c->memory / (kib * 1024ULL)) +
			 strtoull(orig, NULL, 10));
	ret = host_set(r->host, pool, want);
	if (ret < 0) {
		snprintf(why, sizeof(why),
			 "cannot reserve %s pages of %s for the guest (see above)",
			 want, kib == 2048 ? "2M" : "1G");
		host_set(r->host, pool, orig);
		goto skip;
	}
	json_object_set_new(json_object_get(cj, "observed"), "hugetlb_pool",
			    json_string(want));
	return 0;
skip:
	pool[0] = '\0';
	note("%s: skipped: %s", c->id, why);
	cell_status(cj, "skipped", why);
	r->samples_done += r->cfg.repeat;
	return -1;
}

/* Why CELL cannot be honoured here, or false when it can. */
static bool cell_skip(struct run *r, const struct cell *c, char *why,
		      size_t len)
{
	if (c->where == WHERE_BARE || c->paging == PAGING_AUTO ||
	    c->paging == PAGING_TCG)
		return false;
	if (!strcmp(r->accel, "tcg")) {
		snprintf(why, len,
			 "paging=%s needs KVM; this host runs guests under TCG "
			 "(%s), where EPT/NPT does not apply",
			 paging_name(c->paging), r->accel_why);
		return true;
	}
	if (!host_supported(r->host, "paging", paging_name(c->paging), why,
			    len))
		return true;
	return false;
}

static const char *cell_paging(const struct run *r, const struct cell *c)
{
	/* What the cell asks for, so that a skipped EPT cell says EPT. */
	if (c->paging == PAGING_TCG ||
	    (c->paging == PAGING_AUTO && !strcmp(r->accel, "tcg")))
		return "tcg";
	if (c->paging == PAGING_SHADOW)
		return "shadow";
	return r->vendor_paging;
}

static void run_cell(struct run *r, int ci)
{
	const struct cell *c = &r->cells[ci];
	json_t *cj = json_array_get(json_object_get(r->doc, "cells"), ci);
	json_t *env = json_object_get(cj, "env");
	json_t *obs = json_object_get(cj, "observed");
	const char *status = json_string_value(json_object_get(cj, "status"));
	char why[512], got[64], pool[16] = "", orig[32] = "";
	int ret;

	if (strcmp(status, "pending")) {
		/* Ended in an earlier, resumed-from run: never repeated. */
		note("[%d/%d] %s: %s in the earlier run", ci + 1, r->ncells,
		     c->id, status);
		return;
	}
	if (c->where == WHERE_GUEST)
		json_object_set_new(env, "paging",
				    json_string(cell_paging(r, c)));
	if (cell_skip(r, c, why, sizeof(why))) {
		note("[%d/%d] %s: skipped: %s", ci + 1, r->ncells, c->id, why);
		cell_status(cj, "skipped", why);
		r->samples_done += r->cfg.repeat;
		goto out;
	}
	if (c->where == WHERE_GUEST && c->paging != PAGING_AUTO &&
	    c->paging != PAGING_TCG) {
		ret = host_set(r->host, "paging", paging_name(c->paging));
		if (ret < 0) {
			cell_status(cj, "failed", "cannot set host paging");
			goto out;
		}
		if (host_get(r->host, "paging", got, sizeof(got)) == 0)
			json_object_set_new(obs, "paging", json_string(got));
	}
	ret = host_set(r->host, "thp.enabled", c->host_thp);
	if (ret < 0) {
		snprintf(why, sizeof(why), "cannot set host THP to '%s'",
			 c->host_thp);
		cell_status(cj, "failed", why);
		goto out;
	}
	if (host_get(r->host, "thp.enabled", got, sizeof(got)) == 0)
		json_object_set_new(obs, "host_thp", json_string(got));
	if (c->where == WHERE_GUEST &&
	    hugetlb_reserve(r, c, cj, pool, sizeof(pool), orig,
			    sizeof(orig)) < 0)
		goto out;
	if (c->where == WHERE_BARE)
		run_bare_cell(r, ci, cj);
	else
		run_guest_cell(r, ci, cj);
	/* Give the pool back after every cell, not only at the end. */
	if (*pool && host_set(r->host, pool, orig) < 0)
		warn("cannot give back the %s pool", pool);
	if (!strcmp(json_string_value(json_object_get(cj, "status")), "ok") &&
	    r->stopped &&
	    json_array_size(json_object_get(cj, "samples")) <
		    (size_t)r->cfg.repeat)
		cell_status(cj, "pending", "interrupted");
out:
	doc_save(r);
}

/* ---- set-up ---- */

static int find_bindir(struct run *r)
{
	char exe[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *cands[] = { "%s/bin", "%s/../bin" };
	size_t i;

	if (n < 0)
		return err_errno("cannot read /proc/self/exe");
	exe[n] = '\0';
	dir = dirname(exe);
	for (i = 0; i < ARRAY_SIZE(cands); i++) {
		char p[PATH_MAX + 16], *rp;

		snprintf(p, sizeof(p), cands[i], dir);
		rp = realpath(p, NULL);
		if (rp) {
			snprintf(r->bindir, sizeof(r->bindir), "%s", rp);
			free(rp);
			return 0;
		}
	}
	return err("cannot find the workload binaries next to '%s' "
		   "(run 'make' first)", exe);
}

static int newest_kernel(char **out)
{
	FILE *p = popen("ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1",
			"re");
	char line[PATH_MAX];

	if (!p)
		return -errno;
	if (!fgets(line, sizeof(line), p)) {
		pclose(p);
		return -ENOENT;
	}
	pclose(p);
	*out = xstrdup(strstrip(line));
	return 0;
}

/* Replace *PATH by its canonical name (links resolved). */
static int pin_path(char **path)
{
	char *real = realpath(*path, NULL);

	if (!real)
		return err_errno("cannot resolve '%s'", *path);
	free(*path);
	*path = real;
	return 0;
}

/* Remove overlays ("PID-CELL.qcow2") left by runs that were killed. */
static void sweep_overlays(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, *path;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end != '-' || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(path) == 0)
			note("removed '%s', left by a run that was killed", path);
		free(path);
	}
	closedir(d);
}

/* A guest kernel or initramfs must be readable; HINT ends the message. */
static int guest_file_ok(const struct run *r, const char *what,
			 const char *path, const char *hint)
{
	if (access(path, R_OK) == 0)
		return 0;
	fprintf(stderr, "%s: guest %s '%s' is missing%s\n", r->cfg.path, what,
		path, hint);
	return -EINVAL;
}

static int resolve_debian_files(struct run *r)
{
	char *base = xasprintf("%s/../images/debian", r->bindir), *dir = NULL;
	int ret = -EINVAL;

	r->disk = xasprintf("%s.qcow2", base);
	r->kernel = strcmp(r->cfg.kernel.v[0], "auto")
			    ? xstrdup(r->cfg.kernel.v[0])
			    : xasprintf("%s.vmlinuz", base);
	r->initrd = strcmp(r->cfg.initrd.v[0], "auto")
			    ? xstrdup(r->cfg.initrd.v[0])
			    : xasprintf("%s.initrd", base);
	if (access(r->disk, R_OK) < 0 ||
	    (!strcmp(r->cfg.kernel.v[0], "auto") &&
	     access(r->kernel, R_OK) < 0) ||
	    (!strcmp(r->cfg.initrd.v[0], "auto") &&
	     access(r->initrd, R_OK) < 0)) {
		fprintf(stderr,
			"%s: image = debian, but there is no built image ('%s'); "
			"run 'vmtax image build --kind debian' first\n",
			r->cfg.path, r->disk);
		goto out;
	}
	if (guest_file_ok(r, "kernel", r->kernel, "") < 0 ||
	    guest_file_ok(r, "initramfs", r->initrd, "") < 0)
		goto out;
	/* Pin the files: a new 'image build' meanwhile moves the links. */
	if (pin_path(&r->disk) < 0 || pin_path(&r->kernel) < 0 ||
	    pin_path(&r->initrd) < 0)
		goto out;
	dir = xstrdup(r->disk);
	r->overlay_dir = xasprintf("%s/overlays", dirname(dir));
	if (mkdir(r->overlay_dir, 0755) < 0 && errno != EEXIST) {
		err_errno("cannot create '%s'", r->overlay_dir);
		goto out;
	}
	sweep_overlays(r->overlay_dir);
	ret = 0;
out:
	free(dir);
	free(base);
	return ret;
}

static int resolve_guest_files(struct run *r)
{
	const char *kv;

	if (!strcmp(r->cfg.image.v[0], "debian"))
		return resolve_debian_files(r);
	if (!strcmp(r->cfg.kernel.v[0], "auto")) {
		if (newest_kernel(&r->kernel) < 0) {
			fprintf(stderr,
				"%s: no guest kernel: no /boot/vmlinuz-* "
				"(install linux-image-amd64: 'make deps')\n",
				r->cfg.path);
			return -EINVAL;
		}
	} else {
		r->kernel = xstrdup(r->cfg.kernel.v[0]);
	}
	if (guest_file_ok(r, "kernel", r->kernel, "") < 0)
		return -EINVAL;
	if (strcmp(r->cfg.initrd.v[0], "auto")) {
		r->initrd = xstrdup(r->cfg.initrd.v[0]);
	} else {
		kv = strrchr(r->kernel, '/');
		kv = kv ? kv + 1 : r->kernel;
		if (!strncmp(kv, "vmlinuz-", 8))
			kv += 8;
		r->initrd = xasprintf("%s/../images/tiny-%s.cpio.gz", r->bindir,
				      kv);
	}
	return guest_file_ok(r, "initramfs", r->initrd,
			     " (run 'make image-tiny')");
}

/*
 * Bare-metal cells run the workload on this host: the packages its INI asks
 * the images for must be here too, or its setup fails minutes in.
 */
static int check_host_packages(struct run *r)
{
	char missing[1024];
	int ret;

	if (!r->cfg.wl.packages || !r->cfg.wl.packages[0])
		return 0;
	ret = host_missing_packages(r->cfg.wl.packages, missing,
				    sizeof(missing));
	if (ret == -ENOENT) {
		warn("cannot check the packages workload '%s' needs (%s): "
		     "no dpkg-query",
		     r->cfg.wl.name, r->cfg.wl.packages);
		return 0;
	}
	if (ret < 0)
		return err_code(ret, "%s: workload '%s': packages",
				r->cfg.path, r->cfg.wl.name);
	if (!missing[0])
		return 0;
	fprintf(stderr,
		"%s: bare-metal cells run workload '%s' on this host, which "
		"lacks packages it needs: %s\n"
		"  install them (apt-get install %s), or run guest cells only "
		"(--set matrix.where=guest --set run.baseline=)\n",
		r->cfg.path, r->cfg.wl.name, missing, missing);
	return -ENOENT;
}

static int make_rundir(struct run *r, const char *out)
{
	char ts[32], *logs, *abs;
	int ret = 0;

	if (out) {
		r->rundir = xstrdup(out);
	} else {
		iso8601_now(ts, sizeof(ts));
		r->rundir = xasprintf("runs/%s-%s", r->cfg.name, ts);
	}
	ret = mkdir_parents(r->rundir, 0755);
	if (ret < 0)
		return err_code(ret, "cannot create run directory '%s'",
				r->rundir);
	/* libvirt opens the console log from another cwd: use absolute paths. */
	abs = realpath(r->rundir, NULL);
	if (!abs)
		return err_errno("cannot resolve '%s'", r->rundir);
	free(r->rundir);
	r->rundir = abs;
	r->results_path = xasprintf("%s/results.json", r->rundir);
	if (!r->resume && access(r->results_path, F_OK) == 0) {
		fprintf(stderr,
			"vmtax: error: '%s' already holds a run; give another --out\n",
			r->rundir);
		return -EEXIST;
	}
	logs = xasprintf("%s/logs", r->rundir);
	if (mkdir(logs, 0755) < 0 && errno != EEXIST)
		ret = err_errno("cannot create '%s'", logs);
	free(logs);
	return ret;
}

static void write_reports(struct run *r)
{
	static const char *const fmts[][2] = {
		{ "text", "report.txt" }, { "md", "report.md" },
		{ "csv", "report.csv" }, { "html", "report.html" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		char *path = xasprintf("%s/%s", r->rundir, fmts[i][1]);
		FILE *f = fopen_new(path);
		int ret = f ? report_write(r->results_path, fmts[i][0], f) : -EIO;

		if (f)
			fclose(f);
		if (ret < 0) {
			/* The loader said why (e.g. every cell failed) once. */
			unlink(path);
			warn("no reports written: see results.json");
			free(path);
			goto out;
		}
		free(path);
	}
	fflush(stdout);
	report_write(r->results_path, "text", stdout);
out:
	note("results: %s", r->results_path);
}

/* ---- resume ---- */

/* Load DIR/results.json and the --set list it was run with. */
static int resume_load(const char *dir, bool force, json_t **doc,
		       const char ***sets, size_t *nsets)
{
	char *path = xasprintf("%s/results.json", dir);
	json_t *j, *s;
	json_error_t e;
	size_t i;
	int ret = -EINVAL;

	(void)force;
	j = json_load_file(path, 0, &e);
	if (!j) {
		fprintf(stderr, "%s:%d: cannot resume: %s\n", path, e.line,
			e.text);
		goto out;
	}
	if (!json_is_string(json_object_get(j, "schema")) ||
	    strcmp(json_string_value(json_object_get(j, "schema")),
		   RESULTS_SCHEMA)) {
		fprintf(stderr, "%s: cannot resume: not a %s file\n", path,
			RESULTS_SCHEMA);
		goto out;
	}
	if (!json_is_string(json_object_get(json_object_get(j, "run"),
					    "config_path"))) {
		fprintf(stderr, "%s: cannot resume: no run.config_path\n", path);
		goto out;
	}
	if (!strcmp(json_string_value(json_object_get(json_object_get(j, "run"),
						      "status")),
		    "complete")) {
		fprintf(stderr, "%s: the run is complete; nothing to resume\n",
			path);
		goto out;
	}
	free(*sets);
	*sets = NULL;
	*nsets = 0;
	s = json_object_get(json_object_get(j, "run"), "sets");
	for (i = 0; i < json_array_size(s); i++) {
		*sets = xrealloc(*sets, (*nsets + 1) * sizeof(**sets));
		(*sets)[(*nsets)++] = json_string_value(json_array_get(s, i));
	}
	*doc = j;
	j = NULL;
	ret = 0;
out:
	json_decref(j);
	free(path);
	return ret;
}

/* Refuse to resume with a changed config (unless forced) or matrix. */
static int resume_check(struct run *r, json_t *old, bool force)
{
	const char *text = json_string_value(
		json_object_get(json_object_get(old, "run"), "config_text"));
	json_t *cells = json_object_get(old, "cells");
	struct matrix m;
	struct cell *cs;
	int n, i, ret = -EINVAL;

	if (!text || strcmp(text, r->cfg.text)) {
		if (!force) {
			fprintf(stderr,
				"%s: the config has changed since the run began; "
				"'--force' resumes anyway\n",
				r->cfg.path);
			return -EINVAL;
		}
		warn("%s: the config has changed since the run began; "
		     "resuming anyway (--force)", r->cfg.path);
	}
	if (matrix_expand(&r->cfg, &m) < 0)
		return -EINVAL;
	cs = m.cells;
	n = m.ncells;
	if ((size_t)n != json_array_size(cells)) {
		fprintf(stderr, "%s: the matrix has %d cells, the run has %zu\n",
			r->cfg.path, n, json_array_size(cells));
		goto out;
	}
	for (i = 0; i < n; i++)
		if (strcmp(cs[i].id, json_string_value(json_object_get(
					     json_array_get(cells, i), "id")) ?: "")) {
			fprintf(stderr,
				"%s: cell %d is '%s' in the config but not in the run\n",
				r->cfg.path, i, cs[i].id);
			goto out;
		}
	ret = 0;
out:
	matrix_release(&m);
	return ret;
}

/*
 * Take back any sample that reached samples.jsonl but not results.json
 * (a crash between the two writes), and count what is done.
 */
static void resume_merge(struct run *r)
{
	char *path = xasprintf("%s/samples.jsonl", r->rundir), *text = NULL;
	json_t *cells = json_object_get(r->doc, "cells");
	char *line, *save = NULL;
	char ts[32];
	size_t i;

	if (read_file(path, 1 << 30, &text, NULL) == 0) {
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			json_t *j = json_loads(line, 0, NULL), *sj, *samples;
			const char *id;

			if (!j)
				continue;
			id = json_string_value(json_object_get(j, "cell"));
			sj = json_object_get(j, "sample");
			for (i = 0; id && sj && i < json_array_size(cells); i++) {
				json_t *cj = json_array_get(cells, i);

				if (strcmp(json_string_value(json_object_get(cj, "id")),
					   id))
					continue;
				samples = json_object_get(cj, "samples");
				if (json_integer_value(json_object_get(sj, "index")) ==
				    (json_int_t)json_array_size(samples))
					json_array_append(samples, sj);
			}
			json_decref(j);
		}
	}
	for (i = 0; i < json_array_size(cells); i++) {
		json_t *cj = json_array_get(cells, i);

		r->samples_done += json_array_size(json_object_get(cj, "samples"));
		/* A cell cut short by a signal or a kill starts again where it
		 * stopped. */
		if (!strcmp(json_string_value(json_object_get(cj, "status")),
			    "pending"))
			json_object_set_new(cj, "reason", json_null());
	}
	iso8601_now(ts, sizeof(ts));
	json_object_set_new(json_object_get(r->doc, "run"), "status",
			    json_string("running"));
	if (!json_is_array(json_object_get(json_object_get(r->doc, "run"),
					   "resumed")))
		json_object_set_new(json_object_get(r->doc, "run"), "resumed",
				    json_array());
	json_array_append_new(json_object_get(json_object_get(r->doc, "run"),
					      "resumed"),
			      json_string(ts));
	note("resuming '%s': %ld samples already measured", r->rundir,
	     r->samples_done);
	free(text);
	free(path);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "set", required_argument, NULL, 's' },
		{ "resume", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct host_opts hopts = { 0 };
	struct host_cpu cpu;
	const char **sets = NULL;
	struct run r;
	size_t nsets = 0;
	const char *out = NULL, *resume = NULL, *config_path;
	json_t *old = NULL;
	bool force = false, need_bare = false;
	char *jpath = NULL;
	struct sigaction sa;
	int ret = EXIT_USAGE, opt, i, failed = 0;

	memset(&r, 0, sizeof(r));
	while ((opt = getopt_long(argc, argv, "o:s:r:fh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			resume = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 's':
			sets = xrealloc(sets, (nsets + 1) * sizeof(*sets));
			sets[nsets++] = optarg;
			break;
		case 'h':
			usage(stdout);
			free(sets);
			return 0;
		default:
			usage(stderr);
			free(sets);
			return EXIT_USAGE;
		}
	}
	if (resume ? (optind != argc || out || nsets) : optind != argc - 1) {
		usage(stderr);
		free(sets);
		return EXIT_USAGE;
	}

	/* Everything that can be checked is checked before the host changes. */
	if (resume) {
		if (resume_load(resume, force, &old, &sets, &nsets) < 0)
			goto out;
		config_path = json_string_value(json_object_get(
			json_object_get(old, "run"), "config_path"));
		out = resume;
		r.resume = true;
	} else {
		config_path = argv[optind];
	}
	r.sets = sets;
	r.nsets = nsets;
	if (config_load(config_path, sets, nsets, &r.cfg) < 0)
		goto out;
	if (resume && resume_check(&r, old, force) < 0)
		goto out;
	if (matrix_expand(&r.cfg, &r.matrix) < 0)
		goto out;
	r.cells = r.matrix.cells;
	r.ncells = r.matrix.ncells;
	if (find_bindir(&r) < 0)
		goto out;
	for (i = 0; i < r.ncells; i++) {
		r.need_guest |= r.cells[i].where == WHERE_GUEST;
		need_bare |= r.cells[i].where == WHERE_BARE;
	}
	if (need_bare && check_host_packages(&r) < 0)
		goto out;
	r.accel = host_accel_decide("", r.accel_why, sizeof(r.accel_why));
	if (!strcmp(r.cfg.accel, "kvm") && strcmp(r.accel, "kvm")) {
		fprintf(stderr, "%s: accel = kvm, but KVM is unusable here: %s\n",
			r.cfg.path, r.accel_why);
		goto out;
	}
	if (!strcmp(r.cfg.accel, "tcg")) {
		r.accel = "tcg";
		snprintf(r.accel_why, sizeof(r.accel_why),
			 "accel = tcg in the config");
	}
	snprintf(r.vendor_paging, sizeof(r.vendor_paging), "%s",
		 host_cpu_read("", &cpu) == 0 &&
				 !strcmp(cpu.vendor, "AuthenticAMD")
			 ? "npt"
			 : "ept");
	if (r.need_guest && resolve_guest_files(&r) < 0)
		goto out;
	r.wl_env = workload_env_new(&r.cfg.wl);
	if (make_rundir(&r, out) < 0)
		goto out;

	ret = 1;
	/* The host: lock, restore anything a dead run left, then journal. */
	jpath = xasprintf("%s/host-journal", r.rundir);
	hopts.journal = jpath;
	hopts.list_vms = vm_list_running_str;
	hopts.list_vms_arg = r.cfg.uri;
	if (host_ctx_new(&hopts, &r.host) < 0)
		goto out;
	signal_host = r.host;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (r.need_guest && vm_conn_open(r.cfg.uri, &r.conn) < 0)
		goto out;
	note("run '%s': %d cells x %ld samples of '%s', guests under %s (%s)",
	     r.cfg.name, r.ncells, r.cfg.repeat, r.cfg.wl.name, r.accel,
	     r.accel_why);
	note("run directory: %s", r.rundir);
	if (old) {
		r.doc = json_incref(old);
		resume_merge(&r);
	} else {
		r.doc = doc_new(&r);
	}
	if (doc_save(&r) < 0)
		goto out;
	r.t0 = mono_now();
	r.samples_total = (long)r.ncells * r.cfg.repeat - r.samples_done;
	r.samples_done = 0;
	for (i = 0; i < r.ncells && !should_stop(&r); i++)
		run_cell(&r, i);

	{
		json_t *run = json_object_get(r.doc, "run");
		char ts[32];

		iso8601_now(ts, sizeof(ts));
		json_object_set_new(run, "finished", json_string(ts));
		json_object_set_new(run, "status",
				    json_string(r.stopped ? "interrupted"
							  : "complete"));
		for (i = 0; i < r.ncells; i++) {
			json_t *cj = json_array_get(json_object_get(r.doc, "cells"), i);

			failed += !strcmp(json_string_value(
						  json_object_get(cj, "status")),
					  "failed");
		}
		if (doc_save(&r) < 0)
			goto out;
	}
	/* Put the host back before rendering: nothing below needs it. */
	signal_host = NULL;
	if (host_restore(r.host) < 0)
		goto out;
	write_reports(&r);
	if (r.failures)
		warn("%ld samples failed; see the reasons in results.json",
		     r.failures);
	ret = (failed || r.failures || r.stopped) ? 1 : 0;
out:
	signal_host = NULL;
	host_ctx_free(r.host);
	vm_conn_close(r.conn);
	json_decref(r.doc);
	json_decref(old);
	free_strv(r.wl_env);
	matrix_release(&r.matrix);
	free(r.rundir);
	free(r.results_path);
	free(r.kernel);
	free(r.initrd);
	free(r.disk);
	free(r.overlay_dir);
	free(jpath);
	free(sets);
	config_release(&r.cfg);
	return ret;
}
