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
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-files.h"
#include "cmds.h"
#include "guest-files.h"
#include "image.h"
#include "lab.h"
#include "matrix.h"
#include "report.h"
#include "results-file.h"
#include "run-config.h"
#include "util.h"
#include "vm.h"

/* The run's files inside the lab host. */
#define LAB_HOME "/root/vmtax-lab"
#define LAB_RUNDIR LAB_HOME "/run"
#define LAB_SCRIPT LAB_HOME "/run.sh"
#define LAB_LOG LAB_HOME "/run.log"
#define LAB_RC LAB_HOME "/run.rc"
#define LAB_PID LAB_HOME "/run.pid"
/* In DIR: what --resume needs (config, sets, the lab's disk). */
#define LAB_STATE "lab.json"

#define LAB_BOOT_TIMEOUT_S 900.0  /* domain start to agent hello */
#define LAB_READY_TIMEOUT_S 300.0 /* hello to libvirtd answering */
#define LAB_POLL_S 1.0		  /* how often the run's output is read */
#define LAB_SYNC_S 30.0		  /* how often its results come back */
#define LAB_STOP_WAIT_S 300.0	  /* a stopped run's time to restore */
#define LAB_RESTARTS 2		  /* boots of a lab that died or hung, at most */
#define LAB_PROBE_S 120.0	  /* a failed lab's time to answer 'hello' */

/*
 * The run inside, detached from the agent (whose 'run' waits for its
 * command): its output, pid and exit status in files this host reads.
 */
static const char lab_script[] =
	"#!/bin/sh\n"
	"# written by 'vmtax lab run': the run inside the lab host\n"
	"cd " LAB_HOME " || exit 1\n"
	"rm -f " LAB_RC "\n"
	GUEST_LAB_VMTAX " run \"$@\" >>" LAB_LOG " 2>&1 </dev/null &\n"
	"echo $! >" LAB_PID "\n"
	"wait $!\n"
	"echo $? >" LAB_RC "\n";

static volatile sig_atomic_t stop_signals;

static void on_signal(int sig)
{
	static const char msg[] = "vmtax: lab: second signal: stopping now; "
				  "the lab's disk is kept for --resume\n";

	if (++stop_signals >= 2) {
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nothing to do */
		}
		/* The lab dies with the libvirt connection (AUTODESTROY). */
		_exit(128 + sig);
	}
}

struct lab {
	struct config cfg;
	struct matrix m;
	const char *config_arg;	 /* as given: config messages name it */
	const char *config_path; /* absolute: the path in the lab too */
	const char **sets;
	size_t nsets;
	bool resume;
	char *dir; /* absolute */
	char bindir[PATH_MAX];
	struct guest_files gf;
	char *overlay;
	bool overlay_reused;
	struct vm_conn *conn;
	struct vm *vm;
	struct agent_client a;
	bool client;
	FILE *alog;
	json_t *hello;
	double boot_to_hello_s, boot_to_ready_s;
	int boots; /* lab boots so far: a lab that dies is booted again */
	/* the run's output: how much is shown, and its unfinished line */
	long long log_off;
	char partial[1024];
	size_t npartial;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmtax lab run CONFIG [--out DIR] [--set SECTION.KEY=VALUE]...\n"
		"       vmtax lab run --resume DIR\n"
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
		"\n"
		"  -o, --out DIR        run directory (default: runs/NAME-lab-TIMESTAMP)\n"
		"  -s, --set S.K=V      override a config key (as vmtax run --set)\n"
		"  -r, --resume DIR     boot DIR's lab disk again and resume its run\n"
		"  -h, --help           this text\n"
		"\n"
		"[lab] keys (see 'vmtax run --help'): cpu, cpu_features, vcpus,\n"
		"memory.  Refused before anything boots: ept (the lab is AMD), 1G\n"
		"backing without pdpe1gb, guests larger than the lab, a lab larger\n"
		"than this host.\n");
}

/* 'S' with every ' as '\'' : one shell word. */
static char *sh_quote_new(const char *s)
{
	size_t n = 2, i;
	char *out, *o;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	out = o = xmalloc(n + 1);
	*o++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = s[i];
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

static void host_facts_read(struct lab_host_facts *h)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb;

	memset(h, 0, sizeof(*h));
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			h->mem_available = kb * 1024;
	if (f)
		fclose(f);
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* ---- DIR and its state ---- */

static int lab_state_write(const struct lab *l)
{
	json_t *sets = json_array(), *st;
	char *path = xasprintf("%s/%s", l->dir, LAB_STATE), *s;
	size_t i;
	int ret;

	for (i = 0; i < l->nsets; i++)
		json_array_append_new(sets, json_string(l->sets[i]));
	st = json_pack("{s:s, s:o, s:s}", "config_path", l->config_path,
		       "sets", sets, "overlay", l->overlay);
	s = json_dumps(st, JSON_INDENT(2));
	ret = write_file_atomic(path, s, strlen(s));
	free(s);
	free(path);
	json_decref(st);
	return ret;
}

/* --resume DIR: the config and sets of DIR's run, into L (strings kept in
 * *STATE). */
static int lab_state_read(struct lab *l, json_t **state)
{
	char *path = xasprintf("%s/%s", l->dir, LAB_STATE);
	json_error_t je;
	json_t *sets, *v;
	size_t i;
	int ret = 0;

	*state = json_load_file(path, 0, &je);
	if (!*state) {
		ret = err("'%s' is not a lab run directory: %s: %s", l->dir,
			  path, je.text);
		goto out;
	}
	l->config_path = json_string_value(json_object_get(*state,
							   "config_path"));
	sets = json_object_get(*state, "sets");
	if (!l->config_path || !json_is_array(sets)) {
		ret = err("'%s': no config_path or sets", path);
		goto out;
	}
	json_array_foreach(sets, i, v)
	{
		if (!json_is_string(v)) {
			ret = err("'%s': sets must be strings", path);
			goto out;
		}
		l->sets = xrealloc(l->sets, (l->nsets + 1) * sizeof(*l->sets));
		l->sets[l->nsets++] = json_string_value(v);
	}
out:
	free(path);
	return ret;
}

/* ---- the lab host ---- */

/*
 * Run CMD in the lab (sh -c, as root) and wait up to TIMEOUT_S; *OUT (may
 * be NULL) gets the tail of its output.  Returns its exit status, or a
 * negative errno after reporting with WHAT.
 */
static int lab_sh(struct lab *l, const char *what, const char *cmd,
		  double timeout_s, char **out)
{
	json_t *args = json_pack("{s:s, s:s, s:f, s:b, s:b, s:f}", "cmd", cmd,
				 "cwd", "/", "timeout_s", timeout_s,
				 "counters", 0, "with_output", 1,
				 "heartbeat_s", 5.0);
	json_t *res = NULL;
	const char *status;
	char why[512];
	int ret;

	if (out)
		*out = NULL;
	ret = agent_call(&l->a, "run", args, 60, timeout_s + 60, &res, why,
			 sizeof(why));
	json_decref(args);
	if (ret < 0)
		return err("lab: %s: %s", what, why);
	status = json_string_value(json_object_get(res, "status"));
	if (out)
		*out = xstrdup(json_string_value(json_object_get(res, "output"))
				   ?: "");
	if (!status || strcmp(status, "ok"))
		ret = err("lab: %s: %s: %s", what, status ? status : "?",
			  json_string_value(json_object_get(res, "output"))
				  ?: "");
	else
		ret = (int)json_integer_value(
		    json_object_get(res, "exit_status"));
	json_decref(res);
	return ret;
}

/* The lab image, built if this vmtax has none up to date. */
static int lab_image(struct lab *l)
{
	struct image_opts o = { .kind = IMAGE_LAB, .quiet = true };

	/* This vmtax's agent and workloads, whatever the working directory. */
	o.bindir = l->bindir;

	note("lab: the lab image (built on first use: about 7 minutes from "
	     "scratch here, seconds when cached)...");
	if (image_build(&o) < 0)
		return -EIO;
	return guest_files_resolve(GUEST_IMAGE_LAB, "auto", "auto", l->bindir,
				   l->config_path, &l->gf);
}

static int lab_boot(struct lab *l)
{
	char name[64], *console, *logpath, *tag, why[512];
	struct vm_spec spec;
	json_t *res = NULL;
	double t0;
	int ret;

	{
		/* One disk per run directory: a name from its path (djb2). */
		unsigned long h = 5381;
		const char *p;

		for (p = l->dir; *p; p++)
			h = h * 33 + (unsigned char)*p;
		tag = xasprintf("lab-%016lx", h);
	}
	l->overlay_reused = false;
	if (l->resume) {
		char *probe = xasprintf("%s/kept-%s.qcow2", l->gf.overlay_dir,
					tag);

		l->overlay_reused = access(probe, R_OK | W_OK) == 0;
		free(probe);
	}
	free(l->overlay);
	l->overlay = NULL;
	ret = guest_overlay_kept(&l->gf, tag, l->resume, &l->overlay);
	free(tag);
	if (ret < 0)
		return ret;
	ret = lab_state_write(l);
	if (ret < 0)
		return ret;
	if (!l->alog) {
		logpath = xasprintf("%s/logs/lab.agent.log", l->dir);
		l->alog = fopen_new(logpath);
		free(logpath);
	}
	/* Each boot its own console log: a crashed lab's stays. */
	if (l->boots)
		console = xasprintf("%s/logs/lab.boot%d.console.log", l->dir,
				    l->boots);
	else
		console = xasprintf("%s/logs/lab.console.log", l->dir);
	snprintf(name, sizeof(name), "vmtax-lab-%d-%d", (int)getpid(),
		 l->boots);
	l->boots++;
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.type = "qemu";
	spec.vcpus = (unsigned)l->cfg.lab_vcpus;
	spec.memory_bytes = l->cfg.lab_memory;
	spec.kernel = l->gf.kernel;
	spec.initrd = l->gf.initrd;
	spec.cmdline = "console=ttyS0 panic=-1 root=/dev/vda rw";
	spec.console_log = console;
	spec.disk = l->overlay;
	spec.backing = "thp";
	spec.cpu_model = l->cfg.lab_cpu;
	spec.cpu_features = l->cfg.lab_cpu_features;
	if (!l->conn) {
		ret = vm_conn_open(l->cfg.uri, &l->conn);
		if (ret < 0)
			goto out;
	}
	note("lab: booting the lab host: TCG, %s %s, %ld vCPUs, %.1f GiB%s",
	     l->cfg.lab_cpu, l->cfg.lab_cpu_features, l->cfg.lab_vcpus,
	     (double)l->cfg.lab_memory / (1 << 30),
	     l->overlay_reused ? ", its disk from the interrupted run" : "");
	t0 = mono_now();
	ret = vm_start(l->conn, &spec, &l->vm);
	if (ret < 0)
		goto out;
	agent_client_init(&l->a, l->vm, l->alog);
	l->client = true;
	ret = agent_call(&l->a, "hello", NULL, LAB_BOOT_TIMEOUT_S,
			 LAB_BOOT_TIMEOUT_S, &res, why, sizeof(why));
	if (ret < 0) {
		ret = err("lab: no hello from the lab host's agent: %s; "
			  "console: %s",
			  why, console);
		goto out;
	}
	json_decref(l->hello);
	l->hello = res;
	l->boot_to_hello_s = mono_now() - t0;
	note("lab: its agent answered after %.0f s (kernel %s); waiting for "
	     "libvirtd inside",
	     l->boot_to_hello_s,
	     json_string_value(json_object_get(res, "kernel")) ?: "?");
	{
		char *cmd = xasprintf(
		    "n=0; until virsh -q -c qemu:///system version "
		    ">/dev/null 2>&1; do n=$((n+1)); [ $n -lt %d ] || exit 1; "
		    "sleep 1; done",
		    (int)LAB_READY_TIMEOUT_S);

		ret = lab_sh(l, "waiting for libvirtd", cmd,
			     LAB_READY_TIMEOUT_S + 30, NULL);
		free(cmd);
	}
	if (ret > 0)
		ret = err("lab: libvirtd did not answer inside the lab "
			  "within %.0f s; console: %s",
			  LAB_READY_TIMEOUT_S, console);
	if (ret < 0)
		goto out;
	l->boot_to_ready_s = mono_now() - t0;
	note("lab: ready %.0f s after its start", l->boot_to_ready_s);
out:
	free(console);
	return ret < 0 ? ret : 0;
}

/* PATH (a file here) into the lab at the same absolute path. */
static int lab_put_same_path(struct lab *l, const char *path, int mode)
{
	char *local = realpath(path, NULL), *data = NULL, *dir, *q, *cmd;
	char why[512];
	size_t len;
	int ret;

	if (!local)
		return err_errno("cannot resolve '%s'", path);
	dir = xstrdup(local);
	*strrchr(dir, '/') = '\0';
	q = sh_quote_new(*dir ? dir : "/");
	cmd = xasprintf("mkdir -p %s", q);
	ret = lab_sh(l, "mkdir", cmd, 60, NULL);
	free(cmd);
	free(q);
	free(dir);
	if (ret != 0) {
		free(local);
		return ret < 0 ? ret : -EIO;
	}
	ret = read_file(local, CFG_MAX_FILE, &data, &len);
	if (ret < 0) {
		err_code(ret, "cannot read '%s'", local);
		goto out;
	}
	ret = agent_put_file(&l->a, local, data, len, mode, why, sizeof(why));
	if (ret < 0)
		ret = err("lab: cannot put '%s' into the lab: %s", local, why);
out:
	free(data);
	free(local);
	return ret;
}

/*
 * Put the config and its workload into the lab at their paths here, and
 * LAB_SCRIPT; with an interrupted run whose disk is gone, its results too.
 */
static int lab_push(struct lab *l, bool *inner_resume)
{
	char why[512];
	int ret;

	ret = lab_sh(l, "mkdir", "mkdir -p " LAB_RUNDIR "/logs", 60, NULL);
	if (ret != 0)
		return ret < 0 ? ret : -EIO;
	/* This vmtax runs the matrix inside: the image has none of its own. */
	{
		char *data = NULL;
		size_t len;

		ret = read_file("/proc/self/exe", (size_t)256 << 20, &data,
				&len);
		if (ret < 0)
			return err_code(ret, "cannot read this vmtax "
					     "(/proc/self/exe)");
		ret = agent_put_file(&l->a, GUEST_LAB_VMTAX, data, len, 0755,
				     why, sizeof(why));
		free(data);
		if (ret < 0)
			return err("lab: cannot put vmtax into the lab: %s",
				   why);
	}
	ret = lab_put_same_path(l, l->config_path, 0644);
	if (ret == 0)
		ret = lab_put_same_path(l, l->cfg.wl.path, 0644);
	if (ret == 0 && agent_put_file(&l->a, LAB_SCRIPT, lab_script,
				       strlen(lab_script), 0755, why,
				       sizeof(why)) < 0)
		ret = err("lab: cannot put '%s': %s", LAB_SCRIPT, why);
	if (ret < 0)
		return ret;
	*inner_resume = false;
	if (!l->resume)
		return 0;
	ret = lab_sh(l, "looking for the run", "test -s " LAB_RUNDIR
		     "/results.json", 60, NULL);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		*inner_resume = true;
		return 0;
	}
	/* The lab's disk is gone: this host's copy is where to go on from. */
	{
		static const char *const files[] = { "results.json",
						     "samples.jsonl" };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(files); i++) {
			char *local = xasprintf("%s/%s", l->dir, files[i]);
			char *remote = xasprintf("%s/%s", LAB_RUNDIR, files[i]);
			char *data = NULL;
			size_t len;

			ret = read_file(local, (size_t)1 << 30, &data, &len);
			if (ret == 0 && agent_put_file(&l->a, remote, data, len,
						       0644, why,
						       sizeof(why)) < 0)
				ret = err("lab: cannot put '%s': %s", remote,
					  why);
			else if (ret == -ENOENT)
				ret = 0;
			if (!i && ret == 0 && data)
				*inner_resume = true;
			free(data);
			free(local);
			free(remote);
			if (ret < 0)
				return ret;
		}
		if (*inner_resume)
			note("lab: the lab's disk was gone: its run goes on "
			     "from the results in '%s'",
			     l->dir);
	}
	return 0;
}

static int lab_start_run(struct lab *l, bool inner_resume)
{
	char *cmd, *args, *q;
	long long size = 0;
	char *chunk = NULL, why[512];
	size_t n, i;
	int ret;

	if (inner_resume) {
		args = xstrdup("--resume " LAB_RUNDIR);
	} else {
		q = sh_quote_new(l->config_path);
		args = xasprintf("%s --out " LAB_RUNDIR, q);
		free(q);
		for (i = 0; i < l->nsets; i++) {
			char *prev = args;

			q = sh_quote_new(l->sets[i]);
			args = xasprintf("%s --set %s", prev, q);
			free(prev);
			free(q);
		}
	}
	/* Show only what this run writes to the log. */
	l->npartial = 0;
	if (agent_read_chunk(&l->a, LAB_LOG, 0, 0, &chunk, &n, &size, why,
			     sizeof(why)) == 0)
		l->log_off = size;
	free(chunk);
	note("lab: vmtax run %s", args);
	cmd = xasprintf("setsid -f " LAB_SCRIPT " %s >/dev/null 2>&1 "
			"</dev/null",
			args);
	ret = lab_sh(l, "starting the run", cmd, 60, NULL);
	free(cmd);
	free(args);
	return ret == 0 ? 0 : ret < 0 ? ret : -EIO;
}

/* Print what the run wrote since last time, each line marked "lab| ". */
static int lab_show_output(struct lab *l)
{
	char *chunk = NULL, why[512];
	long long size = 0;
	size_t n, i;
	int ret;

	do {
		ret = agent_read_chunk(&l->a, LAB_LOG, l->log_off,
				       AGENT_FILE_CHUNK, &chunk, &n, &size,
				       why, sizeof(why));
		if (ret == -EREMOTEIO) /* no log yet */
			return 0;
		if (ret < 0)
			return err("lab: cannot read the run's output: %s",
				   why);
		for (i = 0; i < n; i++) {
			if (l->npartial < sizeof(l->partial) - 1)
				l->partial[l->npartial++] = chunk[i];
			if (chunk[i] == '\n' ||
			    l->npartial == sizeof(l->partial) - 1) {
				fprintf(stderr, "lab| %.*s", (int)l->npartial,
					l->partial);
				if (chunk[i] != '\n')
					fputc('\n', stderr);
				l->npartial = 0;
			}
		}
		l->log_off += (long long)n;
		free(chunk);
		chunk = NULL;
	} while (n && l->log_off < size);
	return 0;
}

/*
 * Copy the lab's run directory into DIR: every file whose size differs
 * here, and results.json always; the run's whole output as
 * logs/lab-run.log.
 */
static int lab_sync(struct lab *l, bool quiet)
{
	char *out = NULL, *line, *save = NULL, why[512];
	long long bytes = 0, got;
	int ret, files = 0;

	ret = lab_sh(l, "listing the run directory",
		     "cd " LAB_RUNDIR " && find . -type f -printf '%s %P\\n'",
		     120, &out);
	if (ret != 0) {
		free(out);
		return ret < 0 ? ret : -EIO;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long long size;
		char *rel = strchr(line, ' '), *local, *remote, *slash;
		struct stat st;

		if (!rel || sscanf(line, "%lld", &size) != 1 || !*++rel ||
		    strstr(rel, "..") || rel[0] == '/')
			continue;
		local = xasprintf("%s/%s", l->dir, rel);
		remote = xasprintf("%s/%s", LAB_RUNDIR, rel);
		if (strcmp(rel, "results.json") && stat(local, &st) == 0 &&
		    st.st_size == size) {
			free(local);
			free(remote);
			continue;
		}
		slash = strrchr(local, '/');
		*slash = '\0';
		mkdir_parents(local, 0755);
		*slash = '/';
		ret = agent_get_file(&l->a, remote, local, &got, why,
				     sizeof(why));
		if (ret < 0) {
			err("lab: cannot bring back '%s': %s", remote, why);
		} else {
			bytes += got;
			files++;
		}
		free(local);
		free(remote);
		if (ret < 0)
			break;
	}
	free(out);
	if (ret == 0) {
		char *local = xasprintf("%s/logs/lab-run.log", l->dir);

		if (agent_get_file(&l->a, LAB_LOG, local, NULL, why,
				   sizeof(why)) < 0)
			warn("lab: cannot bring back the run's output: %s",
			     why);
		free(local);
	}
	if (!quiet && ret == 0)
		note("lab: %d files (%lld bytes) brought back into '%s'", files,
		     bytes, l->dir);
	return ret;
}

/*
 * Follow the run inside until it ends: its output here, its results every
 * LAB_SYNC_S, and a stop signal passed on.  *RC gets its exit status.
 */
static int lab_follow(struct lab *l, int *rc)
{
	double last_sync = mono_now(), stop_at = 0;
	int seen = 0, ret;

	*rc = -1;
	for (;;) {
		char *chunk = NULL, why[512];
		long long size;
		size_t n;

		if (stop_signals > seen) {
			seen = stop_signals;
			note("lab: stopping the run inside (it restores the "
			     "lab host and keeps its samples); Ctrl-C again "
			     "to stop at once");
			lab_sh(l, "stopping the run",
			       "kill -TERM $(cat " LAB_PID ")", 60, NULL);
			stop_at = mono_now();
		}
		ret = lab_show_output(l);
		if (ret < 0)
			return ret;
		ret = agent_read_chunk(&l->a, LAB_RC, 0, 64, &chunk, &n, &size,
				       why, sizeof(why));
		if (ret == 0 && n) {
			*rc = atoi(chunk);
			free(chunk);
			lab_show_output(l);
			if (l->npartial)
				fprintf(stderr, "lab| %.*s\n",
					(int)l->npartial, l->partial);
			return 0;
		}
		free(chunk);
		if (ret < 0 && ret != -EREMOTEIO)
			return err("lab: the lab host stopped answering: %s",
				   why);
		if (stop_at && mono_now() - stop_at > LAB_STOP_WAIT_S)
			return err("lab: the run inside did not stop within "
				   "%.0f s",
				   LAB_STOP_WAIT_S);
		if (mono_now() - last_sync >= LAB_SYNC_S) {
			lab_sync(l, true);
			last_sync = mono_now();
		}
		usleep((useconds_t)(LAB_POLL_S * 1e6));
	}
}

/*
 * The lab into DIR/results.json ("lab": what the cells ran on), then the
 * reports rendered from it, every format saying so.
 */
static int lab_label(struct lab *l)
{
	char *path = xasprintf("%s/results.json", l->dir), *s = NULL;
	char lv[64] = "", qv[64] = "", hn[256] = "";
	struct utsname u;
	json_error_t je;
	json_t *doc, *lab;
	int ret;

	doc = json_load_file(path, 0, &je);
	if (!doc) {
		ret = err("lab: no results came back: '%s': %s", path, je.text);
		goto out;
	}
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
	ret = s ? write_file_atomic(path, s, strlen(s)) : -ENOMEM;
	if (ret == 0)
		report_write_rundir(l->dir, path);
	json_decref(doc);
out:
	free(s);
	free(path);
	return ret;
}

/* Power the lab off, politely when its agent still answers. */
/*
 * Whether the lab's agent answers a 'hello' within LAB_PROBE_S: a lab that
 * runs but does not has hung.
 */
static bool lab_answers(struct lab *l)
{
	json_t *res = NULL;
	char why[256];
	int ret;

	if (!l->client)
		return false;
	note("lab: the lab host still runs: is its agent there? (up to "
	     "%.0f s)",
	     LAB_PROBE_S);
	ret = agent_call(&l->a, "hello", NULL, LAB_PROBE_S, LAB_PROBE_S, &res,
			 why, sizeof(why));
	json_decref(res);
	return ret == 0;
}

static void lab_down(struct lab *l)
{
	char why[256];
	json_t *res = NULL, *args;

	if (l->vm && vm_running(l->vm)) {
		args = json_pack("{s:f}", "delay_s", 2.0);
		if (l->client &&
		    agent_call(&l->a, "shutdown", args, 5, 5, &res, why,
			       sizeof(why)) == 0) {
			vm_close_channel(l->vm);
			vm_stop(l->vm, 60);
		} else {
			vm_close_channel(l->vm);
			vm_stop(l->vm, 0);
		}
		json_decref(args);
		json_decref(res);
	}
	vm_free(l->vm);
	l->vm = NULL;
	if (l->client)
		agent_client_release(&l->a);
	l->client = false;
}

static int lab_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "set", required_argument, NULL, 's' },
		{ "resume", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *resume = NULL;
	struct lab_host_facts facts;
	struct sigaction sa;
	struct lab l;
	json_t *state = NULL;
	bool inner_resume = false;
	char *abs = NULL;
	int ret = EXIT_USAGE, opt, rc = -1;

	memset(&l, 0, sizeof(l));
	while ((opt = getopt_long(argc, argv, "o:s:r:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			resume = optarg;
			break;
		case 's':
			l.sets = xrealloc(l.sets, (l.nsets + 1) * sizeof(*l.sets));
			l.sets[l.nsets++] = optarg;
			break;
		case 'h':
			usage(stdout);
			free(l.sets);
			return 0;
		default:
			usage(stderr);
			free(l.sets);
			return EXIT_USAGE;
		}
	}
	if (resume ? (optind != argc || out || l.nsets) : optind != argc - 1) {
		usage(stderr);
		free(l.sets);
		return EXIT_USAGE;
	}
	if (resume) {
		l.resume = true;
		l.dir = realpath(resume, NULL);
		if (!l.dir) {
			err_errno("cannot resolve '%s'", resume);
			goto out;
		}
		if (lab_state_read(&l, &state) < 0)
			goto out;
		l.config_arg = l.config_path;
	} else {
		abs = realpath(argv[optind], NULL);
		if (!abs) {
			err_errno("cannot read config '%s'", argv[optind]);
			goto out;
		}
		l.config_path = abs;
		l.config_arg = argv[optind];
	}

	/* Everything that can be refused is refused before anything boots. */
	if (config_load(l.config_arg, l.sets, l.nsets, &l.cfg) < 0 ||
	    matrix_expand(&l.cfg, &l.m) < 0)
		goto out;
	host_facts_read(&facts);
	if (lab_config_check(&l.cfg, &l.m, &facts) < 0)
		goto out;
	if (guest_bindir_find(l.bindir, sizeof(l.bindir)) < 0)
		goto out;
	if (!resume) {
		char *name = xasprintf("%s-lab", l.cfg.name);
		int made = results_dir_make(out, name, false, "vmtax lab run",
					    &l.dir);

		free(name);
		if (made < 0)
			goto out;
	}

	ret = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* A signal must not break a call to the lab's agent in the middle. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	note("lab run '%s': %zu cells of '%s' inside a lab host; run "
	     "directory %s",
	     l.cfg.name, l.m.ncells, l.cfg.wl.name, l.dir);
	if (lab_image(&l) < 0)
		goto out;
	for (;;) {
		bool hung;

		if (lab_boot(&l) == 0 && lab_push(&l, &inner_resume) == 0 &&
		    lab_start_run(&l, inner_resume) == 0 &&
		    lab_follow(&l, &rc) == 0)
			break;
		/*
		 * The lab itself died (emulated nested virtualization is not
		 * bug-free: its kernel can crash in KVM's vCPU thread), or it
		 * hung: still running, its agent silent.  Its disk holds the
		 * run: boot it again and resume, a bounded number of times.
		 * A lab whose agent still answers failed for a reason of its
		 * own, reported above: that ends the run.
		 */
		if (!l.vm || stop_signals || l.boots > LAB_RESTARTS)
			goto out;
		hung = vm_running(l.vm);
		if (hung && lab_answers(&l))
			goto out;
		if (hung)
			warn("lab: the lab host hung (running, but its agent "
			     "did not answer for %.0f s; its console is in "
			     "'%s/logs'): destroying it, booting it again on "
			     "the same disk and resuming the run (%d of %d)",
			     LAB_PROBE_S, l.dir, l.boots, LAB_RESTARTS);
		else
			warn("lab: the lab host died (%s; its console is in "
			     "'%s/logs'): booting it again on the same disk "
			     "and resuming the run (%d of %d)",
			     vm_stop_reason(l.vm), l.dir, l.boots,
			     LAB_RESTARTS);
		lab_down(&l);
		l.resume = true;
	}
	note("lab: the run inside ended with status %d", rc);
	if (lab_sync(&l, false) < 0 || lab_label(&l) < 0)
		goto out;
	ret = rc == 0 ? 0 : 1;
out:
	if (l.vm && ret != EXIT_USAGE && rc < 0 && l.client)
		lab_sync(&l, false); /* whatever there is */
	lab_down(&l);
	if (l.overlay) {
		if (rc == 0) {
			unlink(l.overlay);
		} else if (ret != EXIT_USAGE) {
			note("lab: the lab's disk is kept for 'vmtax lab run "
			     "--resume %s'",
			     l.dir);
		}
	}
	if (l.alog)
		fclose(l.alog);
	vm_conn_close(l.conn);
	json_decref(l.hello);
	guest_files_release(&l.gf);
	matrix_release(&l.m);
	config_release(&l.cfg);
	free(l.overlay);
	free(l.dir);
	free(abs);
	free(l.sets);
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
