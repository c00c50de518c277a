/* SPDX-License-Identifier: MIT */
/*
 * fleet-follow.c - each fleet host's run there, started and followed
 * (fleet.h, docs/fleet.md): its copy of the config and its workload under
 * ~/FLEET_REMOTE_DIR/RUN (RUN: this run directory's name), and 'vmtax run'
 * there (executor = local: the hosts unused there; mode split: its share
 * of the cells, [run] cells) detached from the connection, its output in
 * run.log there, followed here line by line ("HOST| ") until it ends: a
 * connection that drops leaves the run there going, its host restored by
 * its own vmtax.  All hosts at once.  The first stop signal stops the runs
 * there (SIGTERM to each: they restore their hosts and keep their
 * samples).
 *
 * --resume: a host that ended ok, its results here, is taken as it is
 * (fleet_resume_done()); each other host's run there is taken up
 * (fleet_resume_cmd_new()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec-fleet.h"
#include "run-engine.h"
#include "util.h"

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
	ret = fleet_on_host(f, k, cmd, fd, FLEET_COPY_TIMEOUT_S, &out, &status);
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

int fleet_push(struct fleet *f, size_t k)
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

char *fleet_host_cmd_new(const struct fleet *f, size_t k)
{
	const struct run *r = f->r;
	char *share = fleet_is_split(f)
			  ? fleet_split_cells_new(k, f->n, (size_t)r->ncells)
			  : NULL;
	char *cmd = fleet_run_cmd_new(f->rplain, r->cfg.fleet_vmtax, r->sets,
				      r->nsets, share);

	free(share);
	return cmd;
}

int fleet_start(struct fleet *f, size_t k, const char *cmd)
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
		fleet_on_host(f, k, cmd, -1, 30, &out, &status);
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

void fleet_follow(struct fleet *f)
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

void fleet_take_up(struct fleet *f, size_t k)
{
	struct fleet_host *h = &f->h[k];
	char *cmd, *again;

	if (fleet_resume_done(f, k)) {
		note("fleet: host '%s': its run ended ok: its results are "
		     "taken as they are",
		     h->name);
		return;
	}
	if (*h->why)
		return;
	again = fleet_host_cmd_new(f, k);
	cmd = fleet_resume_cmd_new(f->rplain, f->r->cfg.fleet_vmtax, again);
	h->started = fleet_start(f, k, cmd) == 0;
	free(cmd);
	free(again);
}
