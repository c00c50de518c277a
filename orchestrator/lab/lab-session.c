/* SPDX-License-Identifier: MIT */
/* lab-session.c - the lab host of one lab run (lab-session.h). */
#include "lab-session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "guest-reach.h"
#include "image.h"
#include "lab.h"
#include "untrusted.h"
#include "lab-sync.h"
#include "proto.h"
#include "results-file.h"
#include "util.h"

/* The run's files inside the lab host. */
#define LAB_HOME "/root/vmtax-lab"
#define LAB_RUNDIR LAB_HOME "/run"
#define LAB_SCRIPT LAB_HOME "/run.sh"
#define LAB_LOG LAB_HOME "/run.log"
#define LAB_RC LAB_HOME "/run.rc"
#define LAB_PID LAB_HOME "/run.pid"
/* How long the run's script may take to write its pid file. */
#define LAB_START_WAIT_S 50
#define LAB_LIST LAB_HOME "/run.list" /* the run directory's files */

#define LAB_POLL_S 1.0		  /* how often the run's output is read */
#define LAB_SYNC_S 30.0		  /* how often its results come back */
#define LAB_SYNC_TRIES 3		  /* a run's last listing, at most */
#define LAB_LIST_TIMEOUT_S 30.0	  /* one listing of the run directory */
#define LAB_STOP_WAIT_S 300.0	  /* a stopped run's time to restore, beyond
				     its boot and sample timeouts */

/*
 * The run inside, detached from the agent (whose 'run' waits for its
 * command): its output, pid and exit status in files this host reads.
 */
static const char lab_script[] =
	"#!/bin/sh\n"
	"# written by vmtax (executor = lab): the run inside the lab host\n"
	"cd " LAB_HOME " || exit 1\n"
	"rm -f " LAB_RC "\n"
	GUEST_LAB_VMTAX " run \"$@\" >>" LAB_LOG " 2>&1 </dev/null &\n"
	"echo $! >" LAB_PID "\n"
	"wait $!\n"
	"echo $? >" LAB_RC "\n";


/* ---- the lab host ---- */

/*
 * Run CMD in the lab (sh -c, as root) and wait up to TIMEOUT_S; *OUT (may
 * be NULL) gets the tail of its output.  Returns its exit status, or a
 * negative errno after reporting with WHAT.
 */
int lab_sh(struct lab *l, const char *what, const char *cmd,
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
	ret = agent_call(&l->life.a, "run", args, 60, timeout_s + 60, &res, why,
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
int lab_image(struct lab *l)
{
	struct image_opts o;

	/* This vmtax's agent and workloads, whatever the working directory. */
	lab_image_opts(l->cfg, l->bindir, &o);
	o.quiet = true;

	note("lab: the lab image (built on first use: seconds from this "
	     "host's packages, about 7 minutes through debootstrap where it "
	     "lacks them; at once when cached)...");
	if (image_build(&o) < 0)
		return -EIO;
	if (guest_files_resolve(GUEST_IMAGE_LAB, "auto", "auto", l->bindir,
				l->config_path, &l->gf) < 0 ||
	    lab_carrier_find(l->m, l->bindir, l->config_path, &l->carrier) < 0)
		return -EINVAL;
	/* From a private checkout the lab's disk, its overlays and saved
	 * states are staged where QEMU can open them (guest-reach.h), and
	 * the debian image it carries too. */
	if (guest_files_reach_for(&l->gf, l->cfg->uri) < 0)
		return -EACCES;
	return lab_carrier_reach(l);
}

char *lab_disk_tag_new(const struct lab *l)
{
	/* One disk per run directory: a name from its path (djb2). */
	unsigned long h = 5381;
	const char *p;

	for (p = l->dir; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return xasprintf("lab-%016lx", h);
}

/*
 * Whether a resumed run's kept disk is there to boot again, its backing
 * file too (a restored lab's kept disk sits on a frozen disk that a later
 * save may have removed: then the lab gets a new disk).
 */
static bool lab_disk_kept(const struct lab *l)
{
	char *tag, *probe;
	bool kept;

	if (!l->resume)
		return false;
	tag = lab_disk_tag_new(l);
	probe = xasprintf("%s/kept-%s.qcow2", l->gf.overlay_dir, tag);
	kept = guest_overlay_usable(probe);
	free(probe);
	free(tag);
	return kept;
}

/*
 * The lab's disk for this run directory (kept across boots and resumed
 * runs), named from the run directory's path.
 */
static int lab_disk(struct lab *l)
{
	char *tag = lab_disk_tag_new(l);
	int ret;

	l->overlay_reused = lab_disk_kept(l);
	free(l->overlay);
	l->overlay = NULL;
	ret = guest_overlay_kept(&l->gf, tag, l->overlay_reused, &l->overlay);
	free(tag);
	return ret;
}

void lab_spec_fill(const struct lab *l, struct vm_spec *spec,
		   const char *name, const char *disk, const char *console)
{
	memset(spec, 0, sizeof(*spec));
	spec->name = name;
	spec->type = "qemu";
	spec->vcpus = (unsigned)l->cfg->lab_vcpus;
	spec->memory_bytes = l->cfg->lab_memory;
	spec->kernel = l->gf.kernel;
	spec->initrd = l->gf.initrd;
	spec->cmdline = LAB_CMDLINE;
	spec->console_log = console;
	spec->disk = disk;
	spec->carrier = l->carrier.disk;
	spec->backing = "thp";
	spec->cpu_model = l->cfg->lab_cpu;
	spec->cpu_features = l->cfg->lab_cpu_features;
}

/* After the lab's hello: wait for libvirtd inside (CONSOLE: its log). */
int lab_wait_libvirtd(struct lab *l, const char *console)
{
	char *cmd = xasprintf(
	    "n=0; until virsh -q -c qemu:///system version "
	    ">/dev/null 2>&1; do n=$((n+1)); [ $n -lt %d ] || exit 1; "
	    "sleep 1; done",
	    (int)LAB_READY_TIMEOUT_S);
	int ret = lab_sh(l, "waiting for libvirtd", cmd,
			 LAB_READY_TIMEOUT_S + 30, NULL);

	free(cmd);
	if (ret > 0)
		ret = err("lab: libvirtd did not answer inside the lab "
			  "within %.0f s; console: %s",
			  LAB_READY_TIMEOUT_S, console);
	return ret;
}

/* Boot the lab afresh as NAME (its disk: lab_disk()) to ready. */
static int lab_boot_fresh(struct lab *l, const char *name,
			  const char *console)
{
	struct vm_spec spec;
	json_t *res = NULL;
	char why[512];
	double t0;
	int ret;

	ret = lab_disk(l);
	if (ret < 0)
		return ret;
	lab_spec_fill(l, &spec, name, l->overlay, console);
	note("lab: booting the lab host: TCG, %s %s, %ld vCPUs, %.1f GiB%s",
	     l->cfg->lab_cpu, l->cfg->lab_cpu_features, l->cfg->lab_vcpus,
	     (double)l->cfg->lab_memory / (1 << 30),
	     l->overlay_reused ? ", its disk from the interrupted run" : "");
	ret = vm_life_boot(&l->life, l->conn, &spec, l->alog, 0);
	if (ret < 0)
		return ret;
	t0 = l->life.t_start;
	ret = vm_life_hello(&l->life, LAB_BOOT_TIMEOUT_S, &res, why,
			    sizeof(why));
	if (ret < 0)
		return err("lab: no hello from the lab host's agent: %s; "
			   "console: %s",
			   why, console);
	json_decref(l->hello);
	l->hello = res;
	l->boot_to_hello_s = mono_now() - t0;
	note("lab: its agent answered after %.0f s (kernel %s); waiting for "
	     "libvirtd inside",
	     l->boot_to_hello_s,
	     json_string_value(json_object_get(res, "kernel")) ?: "?");
	ret = lab_wait_libvirtd(l, console);
	if (ret < 0)
		return ret;
	l->boot_to_ready_s = mono_now() - t0;
	note("lab: ready %.0f s after its start", l->boot_to_ready_s);
	return 0;
}

int lab_boot(struct lab *l)
{
	char name[64], *console;
	double t0 = mono_now();
	int ret;

	if (!l->alog)
		l->alog = fopen_beneath(l->dir, "logs/lab.agent.log", false);
	/* Each boot its own console log: a crashed lab's stays. */
	if (l->boots)
		console = xasprintf("%s/logs/lab.boot%d.console.log", l->dir,
				    l->boots);
	else
		console = xasprintf("%s/logs/lab.console.log", l->dir);
	snprintf(name, sizeof(name), "vmtax-lab-%d-%d", (int)getpid(),
		 l->boots);
	l->boots++;
	l->restored = l->state_saved = false;
	l->ready_s = -1;
	if (!l->conn) {
		ret = vm_conn_open(l->cfg->uri, &l->conn);
		if (ret < 0)
			goto out;
		/* Restored labs have no AUTODESTROY: those of killed runs. */
		vm_sweep_orphans(l->conn, "vmtax-lab");
	}
	/* A kept disk holds a run of its own: it boots, never restores;
	 * so does a lab that carries the debian image (a saved state is of
	 * a lab without it: docs/lab.md, "Debian inner guests"). */
	if (l->cfg->lab_restore && l->carrier.disk && l->boots == 1)
		note("lab: its guests boot the debian image, carried in as a "
		     "second disk: the lab boots with it rather than being "
		     "restored from its saved state");
	if (l->cfg->lab_restore && !l->carrier.disk && !lab_disk_kept(l) &&
	    lab_boot_restored(l, console) == 0) {
		ret = 0;
		goto out;
	}
	ret = lab_boot_fresh(l, name, console);
out:
	if (ret == 0)
		l->ready_s = mono_now() - t0;
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
	ret = read_file(local, INI_FILE_MAX, &data, &len);
	if (ret < 0) {
		err_code(ret, "cannot read '%s'", local);
		goto out;
	}
	ret = agent_put_file(&l->life.a, local, data, len, mode, why, sizeof(why));
	if (ret < 0)
		ret = err("lab: cannot put '%s' into the lab: %s", local, why);
out:
	free(data);
	free(local);
	return ret;
}

int lab_put_vmtax(struct lab *l)
{
	char *data = NULL, why[512];
	size_t len;
	int ret;

	ret = read_file("/proc/self/exe", (size_t)256 << 20, &data, &len);
	if (ret < 0)
		return err_code(ret, "cannot read this vmtax (/proc/self/exe)");
	ret = agent_put_file(&l->life.a, GUEST_LAB_VMTAX, data, len, 0755, why,
			     sizeof(why));
	free(data);
	if (ret < 0)
		return err("lab: cannot put vmtax into the lab: %s", why);
	return 0;
}

/*
 * DIR/LAB_SUBDIR/REL (a directory; AT, or -1 to open it; DEPTH names
 * deep) back into the lab's run directory, for a run whose lab disk is
 * gone: what the last sync brought (its results, samples, logs, profiles),
 * so that the run goes on from there and the next sync, which removes here
 * what the lab no longer has, keeps it.  Only names the lab could have sent
 * (lab_path_check()), regular files, no link followed.
 */
static int put_back_dir(struct lab *l, int at, const char *name,
			const char *rel, int depth);
static int lab_put_back(struct lab *l, int at, const char *rel, int depth)
{
	int fd = at >= 0 ? dup(at)
			 : open_beneath(l->dir, LAB_SUBDIR,
					O_RDONLY | O_DIRECTORY, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char why[512];
	int ret = 0;

	if (!d) { /* nothing came back yet */
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (ret == 0 && (e = readdir(d))) {
		char *path = *rel ? xasprintf("%s/%s", rel, e->d_name)
				  : xstrdup(e->d_name);
		char *local = xasprintf(LAB_SUBDIR "/%s", path);
		char *remote = xasprintf(LAB_RUNDIR "/%s", path), *data = NULL;
		struct stat sb;
		size_t len;

		/* "." and "..", and what is not the lab's, stay here */
		bool ours =
		    lab_path_check(path, strlen(path), why, sizeof(why)) == 0 &&
		    fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0;

		if (ours && S_ISDIR(sb.st_mode) && depth < LAB_DEPTH_MAX)
			ret = put_back_dir(l, dirfd(d), e->d_name, path, depth);
		else if (ours && S_ISREG(sb.st_mode) &&
			 read_file_beneath(l->dir, local,
					   (size_t)LAB_FILE_BYTES_MAX, &data,
					   &len) == 0 &&
			 agent_put_file(&l->life.a, remote, data, len, 0644,
					why, sizeof(why)) < 0)
			ret = err("lab: cannot put '%s': %s", remote, why);
		free(data);
		free(remote);
		free(local);
		free(path);
	}
	closedir(d);
	return ret;
}

/* The directory NAME beneath AT (REL in the lab's run directory) made in
 * the lab and put back (lab_put_back()). */
static int put_back_dir(struct lab *l, int at, const char *name,
			const char *rel, int depth)
{
	char *remote = xasprintf(LAB_RUNDIR "/%s", rel);
	char *q = sh_quote_new(remote), *cmd = xasprintf("mkdir -p %s", q);
	int ret = lab_sh(l, "mkdir", cmd, 60, NULL), sub = -1;

	if (ret > 0)
		ret = err("lab: cannot make '%s'", remote);
	if (ret == 0)
		sub = openat(at, name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub >= 0) {
		ret = lab_put_back(l, sub, rel, depth + 1);
		close(sub);
	}
	free(cmd);
	free(q);
	free(remote);
	return ret;
}

/*
 * Put the config and its workload into the lab at their paths here, and
 * LAB_SCRIPT; with an interrupted run whose disk is gone, what came back
 * of it (lab_put_back()).
 */
int lab_push(struct lab *l, bool *inner_resume)
{
	char why[512];
	int ret;

	ret = lab_sh(l, "mkdir", "mkdir -p " LAB_RUNDIR "/logs", 60, NULL);
	if (ret != 0)
		return ret < 0 ? ret : -EIO;
	/* The debian image of its guests, from the disk it carries. */
	ret = lab_carrier_setup(l);
	if (ret < 0)
		return ret;
	/* This vmtax runs the matrix inside: the image has none of its own. */
	ret = lab_put_vmtax(l);
	if (ret == 0)
		ret = lab_put_same_path(l, l->config_path, 0644);
	if (ret == 0)
		ret = lab_put_same_path(l, l->cfg->wl.path, 0644);
	if (ret == 0 && agent_put_file(&l->life.a, LAB_SCRIPT, lab_script,
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
	ret = lab_put_back(l, -1, "", 1);
	if (ret < 0)
		return ret;
	*inner_resume =
	    lab_sh(l, "looking for the run",
		   "test -s " LAB_RUNDIR "/results.json", 60, NULL) == 0;
	if (*inner_resume)
		note("lab: the lab's disk was gone: its run goes on from the "
		     "results in '%s/" LAB_SUBDIR "'",
		     l->dir);
	return 0;
}

int lab_start_run(struct lab *l, bool inner_resume)
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
	if (agent_read_chunk(&l->life.a, LAB_LOG, 0, 0, &chunk, &n, &size, why,
			     sizeof(why)) == 0)
		l->log_off = size;
	free(chunk);
	note("lab: vmtax run %s", args);
	/*
	 * The exit status of an earlier run goes first, before this call
	 * returns: lab_follow() must not read it as this run's (the script
	 * removes it too, but only once setsid has started it).  Then wait
	 * for the script's pid file: the agent ends the group of the shell
	 * it ran once that shell exits (runner.c), and setsid -f's child is
	 * in that group until it has called setsid(): a shell that returned
	 * at once could take the run with it (seen on a restored lab, whose
	 * vCPUs start slowly: no run.log, no run.pid).  The script writes
	 * its pid file after setsid, in a session of its own.
	 */
	cmd = xasprintf("rm -f " LAB_RC " " LAB_PID " && setsid -f " LAB_SCRIPT
			" %s >/dev/null 2>&1 </dev/null && i=0 && "
			"while ! test -s " LAB_PID " && test $i -lt %d; do "
			"sleep 0.1; i=$((i + 1)); done && test -s " LAB_PID,
			args, LAB_START_WAIT_S * 10);
	ret = lab_sh(l, "starting the run", cmd, LAB_START_WAIT_S + 10, NULL);
	free(cmd);
	free(args);
	if (ret > 0)
		ret = err_code(-EIO, "lab: the run inside did not start: no "
				     "'" LAB_PID "' after %d s",
			       LAB_START_WAIT_S);
	return ret;
}

/* Print what the run wrote since last time, each line marked "lab| ". */
static int lab_show_output(struct lab *l)
{
	char *chunk = NULL, why[512];
	long long size = 0;
	size_t n, i;
	int ret;

	do {
		ret = agent_read_chunk(&l->life.a, LAB_LOG, l->log_off,
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
				fputs("lab| ", stderr);
				untrusted_fwrite(stderr, l->partial,
						 l->npartial, true);
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

/* The lab's files for lab-sync.c: PREFIX/REL through its agent. */
struct lab_src_arg {
	struct lab *l;
	const char *prefix;
};

static int lab_src_read(void *arg, const char *rel, long long off,
			size_t max, char **buf, size_t *n, long long *size,
			char *why, size_t len)
{
	struct lab_src_arg *a = arg;
	char *remote = xasprintf("%s/%s", a->prefix, rel);
	int ret;

	ret = agent_read_chunk(&a->l->life.a, remote, off, max, buf, n, size, why,
			       len);
	free(remote);
	return ret;
}

/*
 * The run directory's listing into LAB_LIST.  The find takes a tenth of a
 * second, but under emulation one now and then blocks until killed (seen
 * in t0545: 3 of 20 runs of it timed out at 120 s, the next one took
 * 0.1 s, and while it hung the run's output was not followed): so a short
 * timeout, tried TRIES times.
 */
static int lab_list(struct lab *l, int tries)
{
	int ret = -EIO, i;

	for (i = 0; i < tries && ret < 0; i++)
		ret = lab_sh(l, "listing the run directory",
			     "cd " LAB_RUNDIR " && find . -type f -printf "
			     "'%s %P\\0' >" LAB_LIST,
			     LAB_LIST_TIMEOUT_S, NULL);
	return ret;
}

/*
 * Bring the lab's run directory into DIR/LAB_SUBDIR (lab-sync.h: every
 * name checked, every file and the whole capped), and the run's output
 * into DIR/logs/lab-run.log.
 */
int lab_sync(struct lab *l, bool quiet)
{
	struct lab_src_arg home = { l, LAB_HOME }, run = { l, LAB_RUNDIR };
	struct lab_sync_src hsrc = { lab_src_read, &home };
	struct lab_sync_src rsrc = { lab_src_read, &run };
	struct lab_sync_stats st;
	char *list = NULL, why[512];
	size_t len;
	int ret;

	ret = lab_list(l, quiet ? 1 : LAB_SYNC_TRIES);
	if (ret != 0)
		return ret < 0 ? ret : -EIO;
	ret = lab_fetch(&hsrc, "run.list", LAB_LIST_MAX, "LAB_LIST_MAX", &list,
			&len, why, sizeof(why));
	if (ret != 0) {
		free(list);
		return err("lab: cannot read the list of its files: %s", why);
	}
	ret =
	    lab_sync_files(l->dir, list, len, &rsrc, LAB_TOTAL_BYTES_MAX, &st);
	free(list);
	if (ret < 0)
		return ret;
	if (lab_fetch(&hsrc, "run.log", LAB_FILE_BYTES_MAX,
		      "LAB_FILE_BYTES_MAX", &list, &len, why,
		      sizeof(why)) != 0)
		warn("lab: cannot bring back the run's output: %s", why);
	else
		write_file_beneath(l->dir, "logs/lab-run.log", list, len);
	free(list);
	if (!quiet)
		note("lab: %d files (%lld bytes) brought back into '%s/%s' "
		     "(%lld bytes there)%s%s",
		     st.files, st.bytes, l->dir, LAB_SUBDIR, st.held,
		     st.removed ? "; files the lab no longer has removed" : "",
		     st.refused ? "; some refused (above)" : "");
	return 0;
}

/*
 * How long a stopped run inside may take to end: it finishes the boot or
 * the sample under way (up to their timeouts), then restores the lab host.
 */
static double lab_stop_wait_s(const struct lab *l)
{
	return l->cfg->boot_timeout_s + run_config_sample_timeout(l->cfg) +
	       LAB_STOP_WAIT_S;
}

/*
 * Whether the run inside is still there: its exit status written, or its
 * process alive.  0: it is; 1: it is gone without an exit status (its
 * script failed before starting it, or it was killed); <0: the lab did not
 * answer (the caller's other checks see to that).
 */
static int lab_run_gone(struct lab *l)
{
	char *out = NULL;
	int ret = lab_sh(l, "checking the run",
			 "if test -e " LAB_RC " || kill -0 \"$(cat " LAB_PID
			 " 2>/dev/null)\" 2>/dev/null; then echo there; "
			 "else echo gone; ls -la " LAB_HOME " 2>&1 | head -20; fi",
			 60, &out);
	bool gone = ret == 0 && out && !strncmp(out, "gone", 4);

	if (gone) /* what there is, for the report of why (the lab's words) */
		note("lab: no run inside, and no exit status: %s",
		     untrusted_scrub(out, true));
	free(out);
	return ret < 0 ? ret : gone;
}

/*
 * Follow the run inside until it ends: its output here, its results every
 * LAB_SYNC_S, and a stop signal passed on.  *RC gets its exit status.  A
 * run gone without one (seen twice, LAB_SYNC_S apart: its pid file comes
 * just after it starts) is an error, not a wait without end.
 */
int lab_follow(struct lab *l, int *rc)
{
	double last_sync = mono_now(), stop_at = 0;
	int seen = 0, gone = 0, ret;

	*rc = -1;
	for (;;) {
		char *chunk = NULL, why[512];
		long long size;
		size_t n;

		if (*l->stop_signals > seen) {
			seen = *l->stop_signals;
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
		ret = agent_read_chunk(&l->life.a, LAB_RC, 0, 64, &chunk, &n, &size,
				       why, sizeof(why));
		if (ret == 0 && n) {
			*rc = atoi(chunk);
			free(chunk);
			lab_show_output(l);
			if (l->npartial) {
				fputs("lab| ", stderr);
				untrusted_fwrite(stderr, l->partial,
						 l->npartial, false);
				fputc('\n', stderr);
			}
			return 0;
		}
		free(chunk);
		/*
		 * A stopped run inside finishes what it was doing (a boot,
		 * a sample) and restores the lab host, which keeps it busy:
		 * an agent slow to answer then is waited for, up to the
		 * stop's own limit; a lab that died is not.
		 */
		if (ret < 0 && ret != -EREMOTEIO &&
		    (!stop_at || !vm_running(l->life.vm)))
			return err("lab: the lab host stopped answering: %s",
				   why);
		if (ret < 0 && ret != -EREMOTEIO)
			warn("lab: the lab host is slow to answer while its "
			     "run stops (%s); waiting",
			     why);
		if (stop_at && mono_now() - stop_at > lab_stop_wait_s(l))
			return err("lab: the run inside did not stop within "
				   "%.0f s",
				   lab_stop_wait_s(l));
		if (mono_now() - last_sync >= LAB_SYNC_S) {
			lab_sync(l, true);
			last_sync = mono_now();
			gone = lab_run_gone(l) == 1 ? gone + 1 : 0;
			if (gone >= 2)
				return err("lab: the run inside is gone without "
					   "an exit status (no process, no %s): "
					   "its output is in logs/lab-run.log",
					   LAB_RC);
		}
		usleep((useconds_t)(LAB_POLL_S * 1e6));
	}
}

/*
 * Whether the lab's agent answers a 'hello' within LAB_PROBE_S: a lab that
 * runs but does not has hung.
 */
bool lab_answers(struct lab *l)
{
	if (!l->life.client)
		return false;
	note("lab: the lab host still runs: is its agent there? (up to "
	     "%.0f s)",
	     LAB_PROBE_S);
	return vm_life_answers(&l->life, LAB_PROBE_S);
}

/* Power the lab off, politely when its agent still answers. */
void lab_down(struct lab *l)
{
	/* The agent powers off once the channel is closed (vm_life_down()
	 * closes it first), two seconds after its reply at most; the lab
	 * gets a minute to do so. */
	vm_life_down(&l->life, 2.0, 60, NULL);
}
