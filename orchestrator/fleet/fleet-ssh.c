/* SPDX-License-Identifier: MIT */
/*
 * fleet-ssh.c - the fleet's transport (fleet.h): OpenSSH's ssh and scp,
 * found on PATH, one multiplexed connection per host.  Nothing here reads
 * a password or a key: the user's ssh config, agent and known_hosts decide.
 */
#include "fleet.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define CAPTURE_MAX (1u << 20)

int fleet_ssh_init(struct fleet_ssh *s, double connect_timeout_s,
		   const char *ssh_config)
{
	memset(s, 0, sizeof(*s));
	s->connect_timeout_s = connect_timeout_s;
	/* ssh reads ~/.ssh/config from the passwd entry's home, whatever
	 * $HOME says: a test, or a user with hosts of their own, names one */
	if (ssh_config && *ssh_config && !realpath(ssh_config, s->config))
		return err_errno("fleet: ssh_config '%s'", ssh_config);
	snprintf(s->dir, sizeof(s->dir), "/tmp/vmtax-ssh-XXXXXX");
	if (!mkdtemp(s->dir)) { /* mode 0700 */
		int ret = err_errno("cannot make a directory for ssh's "
				    "control sockets ('%s')",
				    s->dir);

		s->dir[0] = '\0';
		return ret;
	}
	return 0;
}

/* The -o options every ssh and scp of the run shares. */
static size_t common_opts(const struct fleet_ssh *s, char **v, size_t n)
{
	if (*s->config) {
		v[n++] = xstrdup("-F");
		v[n++] = xstrdup(s->config);
	}
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("ControlMaster=auto");
	v[n++] = xstrdup("-o");
	v[n++] = xasprintf("ControlPath=%s/%%C", s->dir);
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("ControlPersist=60");
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("BatchMode=yes");
	v[n++] = xstrdup("-o");
	v[n++] = xasprintf("ConnectTimeout=%.0f", s->connect_timeout_s);
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("StrictHostKeyChecking=yes");
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("ServerAliveInterval=15");
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("ServerAliveCountMax=4");
	return n;
}

#define ARGV_MAX 32

char **fleet_ssh_argv_new(const struct fleet_ssh *s, const char *dest,
			  const char *cmd, size_t *n)
{
	char **v = xcalloc(ARGV_MAX, sizeof(*v));
	size_t k = 0;

	v[k++] = xstrdup("ssh");
	k = common_opts(s, v, k);
	v[k++] = xstrdup("-T");
	v[k++] = xstrdup("--");
	v[k++] = xstrdup(dest);
	if (cmd)
		v[k++] = xstrdup(cmd);
	*n = k;
	return v;
}

char **fleet_scp_argv_new(const struct fleet_ssh *s, const char *dest,
			  const char *remote, const char *local, size_t *n)
{
	char **v = xcalloc(ARGV_MAX, sizeof(*v));
	size_t k = 0;

	v[k++] = xstrdup("scp");
	v[k++] = xstrdup("-r");
	v[k++] = xstrdup("-q");
	k = common_opts(s, v, k);
	v[k++] = xstrdup("--");
	v[k++] = xasprintf("%s:%s", dest, remote);
	v[k++] = xstrdup(local);
	*n = k;
	return v;
}

void fleet_ssh_release(struct fleet_ssh *s, char *const *dests, size_t n)
{
	size_t i, k;

	if (!*s->dir)
		return;
	for (i = 0; i < n; i++) {
		char **v = fleet_ssh_argv_new(s, dests[i], NULL, &k);
		char *out = NULL;
		int status;

		/* "-O exit" goes before "--" */
		free(v[k - 2]);
		free(v[k - 1]);
		v[k - 2] = xstrdup("-O");
		v[k - 1] = xstrdup("exit");
		v[k++] = xstrdup("--");
		v[k++] = xstrdup(dests[i]);
		fleet_run_capture(v, -1, 10, &out, &status);
		free(out);
		strv_free(v, k);
	}
	rmdir(s->dir); /* empty once every master has exited */
	s->dir[0] = '\0';
}

static void child_exec(char *const *argv, int in_fd, int out_fd)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	dup2(in_fd >= 0 ? in_fd : null, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	execvp(argv[0], argv);
	dprintf(2, "vmtax: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int fleet_proc_start(char *const *argv, int in_fd, struct fleet_proc *p)
{
	int fds[2];

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->status = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_errno("cannot make a pipe for '%s'", argv[0]);
	p->pid = fork();
	if (p->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_errno("cannot fork for '%s'", argv[0]);
	}
	if (!p->pid)
		child_exec(argv, in_fd, fds[1]);
	setpgid(p->pid, p->pid); /* no race with the child's own */
	close(fds[1]);
	p->fd = fds[0];
	fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

void fleet_proc_kill(struct fleet_proc *p, int sig)
{
	if (p->pid > 0)
		kill(-p->pid, sig);
}

static int wait_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool fleet_proc_exited(struct fleet_proc *p)
{
	int st = 0;

	if (p->pid > 0 && waitpid(p->pid, &st, WNOHANG) == p->pid) {
		p->status = wait_status(st);
		p->pid = 0;
	}
	return p->pid <= 0;
}

int fleet_proc_wait(struct fleet_proc *p)
{
	int st = 0;

	if (p->fd >= 0) {
		close(p->fd);
		p->fd = -1;
	}
	if (p->pid <= 0)
		return p->status;
	while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	p->status = wait_status(st);
	return p->status;
}

int fleet_proc_pump(struct fleet_proc *p,
		    void (*line)(void *arg, const char *s), void *arg)
{
	char buf[4096];
	ssize_t got;
	size_t i;

	while ((got = read(p->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < (size_t)got; i++) {
			bool full = p->nline == sizeof(p->line) - 1;

			if (buf[i] != '\n' && !full) {
				p->line[p->nline++] = buf[i];
				continue;
			}
			p->line[p->nline] = '\0';
			line(arg, p->line);
			p->nline = 0;
			if (full && buf[i] != '\n')
				p->line[p->nline++] = buf[i];
		}
	}
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (p->nline) {
		p->line[p->nline] = '\0';
		line(arg, p->line);
		p->nline = 0;
	}
	return 0;
}

struct capture {
	char *buf;
	size_t n;
};

static void capture_line(void *arg, const char *s)
{
	struct capture *c = arg;
	size_t len = strlen(s);

	if (c->n + len + 2 > CAPTURE_MAX)
		return;
	c->buf = xrealloc(c->buf, c->n + len + 2);
	memcpy(c->buf + c->n, s, len);
	c->n += len;
	c->buf[c->n++] = '\n';
	c->buf[c->n] = '\0';
}

/* What capture_n() asks between passes (fleet_run_capture_watch()). */
struct capture_watch {
	int (*fn)(void *arg);
	void *arg;
};

/* One pass over the running ones: 1 while some still run. */
static int capture_pass(struct fleet_proc *p, struct capture *c, int *rets,
			size_t n, double end, const struct capture_watch *w)
{
	struct pollfd pfd[FLEET_HOSTS_MAX];
	bool stop = w && w->fn(w->arg);
	size_t i, np = 0;

	for (i = 0; i < n; i++) {
		if (p[i].fd < 0)
			continue;
		/* Until its output ends or it exits: a master connection it
		 * left in the background (ControlPersist) may hold the pipe
		 * open. */
		if (!fleet_proc_pump(&p[i], capture_line, &c[i]) ||
		    fleet_proc_exited(&p[i])) {
			fleet_proc_pump(&p[i], capture_line, &c[i]);
			close(p[i].fd);
			p[i].fd = -1;
			continue;
		}
		if (stop || end - mono_now() <= 0) {
			fleet_proc_kill(&p[i], SIGKILL);
			rets[i] = stop ? -EFBIG : -ETIMEDOUT;
			close(p[i].fd);
			p[i].fd = -1;
			continue;
		}
		pfd[np].fd = p[i].fd;
		pfd[np++].events = POLLIN;
	}
	if (np)
		poll(pfd, np, 200);
	return np > 0;
}

/* ARGVS[0..N) at once, N at most FLEET_HOSTS_MAX (see fleet.h). */
static void capture_n(char *const *const *argvs, const int *in_fds, size_t n,
		      double timeout_s, const struct capture_watch *w,
		      char **outs, int *statuses, int *rets)
{
	struct fleet_proc *p = xcalloc(n, sizeof(*p));
	struct capture *c = xcalloc(n, sizeof(*c));
	double end = mono_now() + timeout_s;
	size_t i;

	for (i = 0; i < n; i++) {
		c[i].buf = xstrdup("");
		rets[i] =
		    fleet_proc_start(argvs[i], in_fds ? in_fds[i] : -1, &p[i]);
	}
	while (capture_pass(p, c, rets, n, end, w))
		;
	for (i = 0; i < n; i++) {
		statuses[i] = fleet_proc_wait(&p[i]); /* -1: never started */
		outs[i] = c[i].buf;
	}
	free(p);
	free(c);
}

int fleet_run_capture(char *const *argv, int in_fd, double timeout_s,
		      char **out, int *status)
{
	int ret;

	capture_n(&argv, &in_fd, 1, timeout_s, NULL, out, status, &ret);
	return ret;
}

int fleet_run_capture_watch(char *const *argv, double timeout_s,
			    int (*watch)(void *arg), void *arg, char **out,
			    int *status)
{
	struct capture_watch w = {watch, arg};
	int in_fd = -1, ret;

	capture_n(&argv, &in_fd, 1, timeout_s, &w, out, status, &ret);
	return ret;
}

void fleet_run_capture_all(char *const *const *argvs, size_t n,
			   double timeout_s, char **outs, int *statuses,
			   int *rets)
{
	capture_n(argvs, NULL, n, timeout_s, NULL, outs, statuses, rets);
}
