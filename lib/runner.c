// SPDX-License-Identifier: MIT
#include "runner.h"
#include "profile-sample.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const status_names[] = {
	[RUNNER_OK] = "ok",
	[RUNNER_FAILED] = "failed",
	[RUNNER_TIMEOUT] = "timeout",
	[RUNNER_KILLED] = "killed",
};

const char *runner_status_name(enum runner_status s)
{
	if ((unsigned)s >= ARRAY_SIZE(status_names))
		return "unknown";
	return status_names[s];
}

int runner_status_parse(const char *s, enum runner_status *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(status_names); i++)
		if (!strcmp(s, status_names[i])) {
			*out = (enum runner_status)i;
			return 0;
		}
	return -EINVAL;
}

static void counter_read(int fd, struct runner_counter_value *v)
{
	uint64_t buf[3]; /* value, time_enabled, time_running */

	if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		v->counted = false;
		return;
	}
	v->counted = buf[2] > 0;
	v->scaled = buf[2] > 0 && buf[2] < buf[1];
	if (v->scaled)
		v->value = (uint64_t)((long double)buf[0] * buf[1] / buf[2]);
	else
		v->value = v->counted ? buf[0] : 0;
}

/*
 * The child's environment: ours with spec->env on top.  Built before fork
 * because setenv() is not safe in the child of a threaded process.
 */
static char **env_build(const char *const *extra)
{
	size_t n = 0, nextra = 0, k = 0;
	char **envp;

	for (char **e = environ; e && *e; e++)
		n++;
	for (const char *const *x = extra; x && *x; x++)
		nextra++;
	envp = xcalloc(n + nextra + 1, sizeof(*envp));
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t klen = eq ? (size_t)(eq - *e) : strlen(*e);
		bool overridden = false;

		for (const char *const *x = extra; x && *x; x++) {
			if (!strncmp(*x, *e, klen) && (*x)[klen] == '=') {
				overridden = true;
				break;
			}
		}
		if (!overridden)
			envp[k++] = *e;
	}
	for (const char *const *x = extra; x && *x; x++) {
		bool later = false;

		/* the last of duplicate keys in extra wins, as with setenv */
		for (const char *const *y = x + 1; *y; y++) {
			const char *eq = strchr(*x, '=');

			if (!strncmp(*x, *y, eq - *x + 1)) {
				later = true;
				break;
			}
		}
		if (!later)
			envp[k++] = (char *)*x;
	}
	envp[k] = NULL;
	return envp;
}

static void child_fail(int errfd, int code)
{
	ssize_t r = write(errfd, &code, sizeof(code));

	(void)r;
	_exit(127);
}

/* Only async-signal-safe calls from here to exec. */
static void child_run(const struct runner_spec *spec, char **envp, int outfd,
		      int gofd, int errfd)
{
	static const int dfl[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP,
				   SIGPIPE, SIGCHLD, SIGALRM };
	char *const argv[] = { "sh", "-c", (char *)spec->cmd, NULL };
	struct sigaction sa;
	sigset_t none;
	char go;
	int nullfd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < ARRAY_SIZE(dfl); i++)
		sigaction(dfl[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Wait until the parent has attached the counters. */
	if (read(gofd, &go, 1) != 1)
		_exit(127);
	nullfd = open("/dev/null", O_RDONLY);
	if (nullfd < 0 || dup2(nullfd, STDIN_FILENO) < 0 ||
	    dup2(outfd, STDOUT_FILENO) < 0 || dup2(outfd, STDERR_FILENO) < 0)
		child_fail(errfd, errno);
	if (spec->cwd && chdir(spec->cwd) < 0)
		child_fail(errfd, errno);
	execve(spec->shell ? spec->shell : "/bin/sh", argv, envp);
	child_fail(errfd, errno);
}

/*
 * Tell the child to exec.  If it died meanwhile the write gets EPIPE; keep
 * the SIGPIPE that comes with it from killing the caller.
 */
static int release_child(int gofd)
{
	sigset_t pipeset, old, pending;
	struct timespec zero = { 0, 0 };
	ssize_t r;
	int saved;

	sigemptyset(&pipeset);
	sigaddset(&pipeset, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipeset, &old);
	do
		r = write(gofd, "g", 1);
	while (r < 0 && errno == EINTR);
	saved = errno;
	if (r < 0 && saved == EPIPE) {
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE) &&
		    !sigismember(&old, SIGPIPE))
			sigtimedwait(&pipeset, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return r == 1 ? 0 : -1;
}

static void output_append(struct runner_result *res, const char *p, size_t n)
{
	size_t keep;

	if (n > RUNNER_OUTPUT_MAX) {
		p += n - RUNNER_OUTPUT_MAX;
		n = RUNNER_OUTPUT_MAX;
		res->output_truncated = true;
	}
	if (res->output_len + n > RUNNER_OUTPUT_MAX) {
		keep = RUNNER_OUTPUT_MAX - n;
		memmove(res->output, res->output + res->output_len - keep,
			keep);
		res->output_len = keep;
		res->output_truncated = true;
	}
	memcpy(res->output + res->output_len, p, n);
	res->output_len += n;
}

/* Read what is available; returns false at EOF or on a hard error. */
static bool output_pump(int fd, struct runner_result *res)
{
	char buf[16384];

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r > 0) {
			output_append(res, buf, r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return true;
		return false;
	}
}

static int ms_until(double now, double when)
{
	double ms = (when - now) * 1000.0;

	if (ms <= 0)
		return 0;
	if (ms > 60000)
		return 60000;
	return (int)ms + 1;
}

static bool child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return true;
	return si.si_pid == pid;
}

/*
 * One runner_run(): the child, the pipes to it (its output, the go signal,
 * its exec errno), its counters, profile sampler and pidfd.
 */
struct runner_job {
	const struct runner_spec *spec;
	struct runner_result *res;
	int out[2], gopipe[2], errp[2];
	int fds[RUNNER_COUNTER_MAX + RUNNER_RAW_MAX]; /* then the raw ones */
	int pidfd;
	struct profile_sampler *prof;
	struct pollfd *pfd;
	char **envp;
	pid_t pid;
	bool reaped;
	double t0;
};

static int run_check_spec(const struct runner_spec *spec)
{
	if (!spec->cmd)
		return err("runner: no command");
	for (const char *const *x = spec->env; x && *x; x++)
		if (!strchr(*x, '=') || **x == '=')
			return err("runner: bad environment entry '%s'", *x);
	return 0;
}

/* The child forked, in its own process group, waiting for the go. */
static int run_fork(struct runner_job *rn)
{
	const struct runner_spec *spec = rn->spec;

	if (pipe2(rn->out, O_CLOEXEC) < 0 || pipe2(rn->gopipe, O_CLOEXEC) < 0 ||
	    pipe2(rn->errp, O_CLOEXEC) < 0)
		return err_errno("runner: cannot create pipe");
	rn->pid = fork();
	if (rn->pid < 0)
		return err_errno("runner: cannot fork for '%s'", spec->cmd);
	if (rn->pid == 0)
		child_run(spec, rn->envp, rn->out[1], rn->gopipe[0],
			  rn->errp[1]);

	/* Both sides set the group, so kill(-pid) works whoever runs first. */
	setpgid(rn->pid, rn->pid);
	close(rn->out[1]);
	close(rn->gopipe[0]);
	close(rn->errp[1]);
	rn->out[1] = rn->gopipe[0] = rn->errp[1] = -1;
	fcntl(rn->out[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Counters, the profile sampler and a pidfd on the child, before it runs. */
static void run_attach(struct runner_job *rn)
{
	const struct runner_spec *spec = rn->spec;
	struct runner_result *res = rn->res;

	if (spec->counters)
		res->counter_set =
		    RUNNER_COUNTERS_DEFAULT | (spec->events & ~RUNNER_COUNTERS_DEFAULT);
	for (int i = 0; i < RUNNER_COUNTER_MAX; i++) {
		if (!(res->counter_set & RUNNER_COUNTER_BIT(i)))
			continue;
		rn->fds[i] = runner_counter_open(i, rn->pid, true);
		if (rn->fds[i] < 0) {
			res->counters[i].open_errno = -rn->fds[i];
			rn->fds[i] = -1;
		} else {
			res->counters[i].supported = true;
		}
	}
	if (spec->counters)
		res->raw = spec->raw;
	for (int j = 0; j < res->raw.n; j++) {
		int *fd = &rn->fds[RUNNER_COUNTER_MAX + j];

		*fd = runner_raw_open(res->raw.config[j], rn->pid, true);
		if (*fd < 0) {
			res->raw_counters[j].open_errno = -*fd;
			*fd = -1;
		} else {
			res->raw_counters[j].supported = true;
		}
	}
	if (spec->profile)
		rn->prof = profile_sampler_open(rn->pid,
						spec->profile_hz > 0
						    ? spec->profile_hz
						    : PROFILE_DEFAULT_HZ,
						NULL);
	rn->pidfd = syscall(SYS_pidfd_open, rn->pid, 0);
}

/* Let the child exec; the errno it sends back if the exec failed. */
static int run_start(struct runner_job *rn)
{
	const struct runner_spec *spec = rn->spec;
	int code = 0;
	ssize_t r;

	rn->t0 = mono_now();
	if (release_child(rn->gopipe[1]) < 0)
		return err_errno("runner: cannot start '%s'", spec->cmd);
	close(rn->gopipe[1]);
	rn->gopipe[1] = -1;
	/* EOF: exec succeeded (the pipe is close-on-exec); else an errno. */
	do
		r = read(rn->errp[0], &code, sizeof(code));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(code))
		return 0;
	if (spec->cwd)
		return err_code(-code, "runner: cannot start '%s' in '%s'",
				spec->cmd, spec->cwd);
	return err_code(-code, "runner: cannot start '%s'", spec->cmd);
}

/* The poll timeout (ms, -1 none) until the deadline or the next tick. */
static int run_poll_timeout(const struct runner_job *rn, double now,
			    double deadline, double next_tick)
{
	int timeout = -1;

	if (deadline > 0)
		timeout = ms_until(now, deadline);
	if (rn->spec->tick &&
	    (timeout < 0 || ms_until(now, next_tick) < timeout))
		timeout = ms_until(now, next_tick);
	if (rn->pidfd < 0 && (timeout < 0 || timeout > 20))
		timeout = 20; /* no pidfd: poll for the exit */
	return timeout;
}

/* One poll of the pidfd, the output and the sampler; true once exited. */
static int run_poll_once(struct runner_job *rn, int timeout, bool *exited)
{
	struct pollfd *pfd = rn->pfd;
	int npfd = 0, nprof;

	if (rn->pidfd >= 0) {
		pfd[npfd].fd = rn->pidfd;
		pfd[npfd++].events = POLLIN;
	}
	if (rn->out[0] >= 0) {
		pfd[npfd].fd = rn->out[0];
		pfd[npfd++].events = POLLIN;
	}
	nprof = (int)profile_sampler_pollfds(rn->prof, pfd + npfd,
					     profile_sampler_nfds(rn->prof));
	if (poll(pfd, npfd + nprof, timeout) < 0 && errno != EINTR)
		return err_errno("runner: poll");
	profile_sampler_drain(rn->prof, pfd + npfd, nprof);
	if (rn->out[0] >= 0 && !output_pump(rn->out[0], rn->res)) {
		close(rn->out[0]);
		rn->out[0] = -1;
	}
	if (rn->pidfd >= 0)
		*exited = pfd[0].revents & POLLIN;
	else
		*exited = child_exited(rn->pid);
	return 0;
}

/*
 * Until the child exits, its deadline passes or the tick callback says
 * stop (then the group is killed): the output read and the ticks called.
 */
static int run_watch(struct runner_job *rn)
{
	const struct runner_spec *spec = rn->spec;
	struct runner_result *res = rn->res;
	double deadline = 0, next_tick = 0, tick_s;
	bool exited = false;
	int ret;

	if (spec->timeout_s > 0)
		deadline = rn->t0 + spec->timeout_s;
	tick_s = spec->tick_s > 0 ? spec->tick_s : 1.0;
	if (spec->tick)
		next_tick = rn->t0 + tick_s;
	res->status = RUNNER_OK;
	/* the pidfd, the output, then the sampler's rings */
	rn->pfd = xcalloc(2 + profile_sampler_nfds(rn->prof), sizeof(*rn->pfd));
	while (!exited) {
		double now = mono_now();

		if (deadline > 0 && now >= deadline) {
			kill(-rn->pid, SIGKILL);
			res->status = RUNNER_TIMEOUT;
			break;
		}
		if (spec->tick && now >= next_tick) {
			if (spec->tick(spec->tick_arg, now - rn->t0)) {
				kill(-rn->pid, SIGKILL);
				res->status = RUNNER_KILLED;
				break;
			}
			while (next_tick <= now)
				next_tick += tick_s;
		}
		ret = run_poll_once(
		    rn, run_poll_timeout(rn, now, deadline, next_tick),
		    &exited);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The group ended and the child reaped; the rest of its output read. */
static int run_reap(struct runner_job *rn, int *wstatus, struct rusage *ru)
{
	struct runner_result *res = rn->res;

	/* The shell is gone or dying and still unreaped: end its group. */
	kill(-rn->pid, SIGKILL);
	while (wait4(rn->pid, wstatus, 0, ru) < 0) {
		if (errno != EINTR)
			return err_errno("runner: cannot wait for '%s'",
					 rn->spec->cmd);
	}
	rn->reaped = true;
	res->elapsed_s = mono_now() - rn->t0;

	/* Drain what the group wrote; bounded, a setsid escapee may hold it. */
	while (rn->out[0] >= 0) {
		struct pollfd p = {.fd = rn->out[0], .events = POLLIN};

		if (poll(&p, 1, 200) <= 0 || !output_pump(rn->out[0], res))
			break;
	}
	res->output[res->output_len] = '\0';
	return 0;
}

/* The exit status, resource use, counters and profile into the result. */
static void run_collect(struct runner_job *rn, int wstatus,
			const struct rusage *ru)
{
	struct runner_result *res = rn->res;

	if (WIFEXITED(wstatus))
		res->exit_status = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		res->exit_status = 128 + WTERMSIG(wstatus);
	if (res->status == RUNNER_OK && res->exit_status != 0)
		res->status = RUNNER_FAILED;
	res->user_s = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	res->sys_s = ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
	res->max_rss_kb = ru->ru_maxrss;
	res->minor_faults = ru->ru_minflt;
	res->major_faults = ru->ru_majflt;
	for (int i = 0; i < RUNNER_COUNTER_MAX; i++)
		if (rn->fds[i] >= 0)
			counter_read(rn->fds[i], &res->counters[i]);
	for (int j = 0; j < res->raw.n; j++)
		if (rn->fds[RUNNER_COUNTER_MAX + j] >= 0)
			counter_read(rn->fds[RUNNER_COUNTER_MAX + j],
				     &res->raw_counters[j]);
	if (rn->prof) {
		res->profile = profile_sampler_finish(rn->prof);
		rn->prof = NULL;
	}
}

/* A child not yet reaped killed and reaped; every descriptor closed. */
static void run_release(struct runner_job *rn)
{
	if (rn->pid > 0 && !rn->reaped) {
		kill(-rn->pid, SIGKILL);
		kill(rn->pid, SIGKILL);
		while (waitpid(rn->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (size_t i = 0; i < ARRAY_SIZE(rn->fds); i++)
		if (rn->fds[i] >= 0)
			close(rn->fds[i]);
	for (int i = 0; i < 2; i++) {
		if (rn->out[i] >= 0)
			close(rn->out[i]);
		if (rn->gopipe[i] >= 0)
			close(rn->gopipe[i]);
		if (rn->errp[i] >= 0)
			close(rn->errp[i]);
	}
	if (rn->pidfd >= 0)
		close(rn->pidfd);
	profile_sampler_free(rn->prof);
	free(rn->pfd);
	free(rn->envp);
}

int runner_run(const struct runner_spec *spec, struct runner_result *res)
{
	struct runner_job rn = {
	    .spec = spec,
	    .res = res,
	    .out = {-1, -1},
	    .gopipe = {-1, -1},
	    .errp = {-1, -1},
	    .pidfd = -1,
	    .pid = -1,
	};
	struct rusage ru;
	int wstatus = 0, ret;

	for (size_t i = 0; i < ARRAY_SIZE(rn.fds); i++)
		rn.fds[i] = -1;
	memset(res, 0, sizeof(*res));
	res->output = xmalloc(RUNNER_OUTPUT_MAX + 1);
	res->output[0] = '\0';
	ret = run_check_spec(spec);
	if (ret < 0)
		goto out;
	rn.envp = env_build(spec->env);
	ret = run_fork(&rn);
	if (ret < 0)
		goto out;
	run_attach(&rn);
	ret = run_start(&rn);
	if (ret == 0)
		ret = run_watch(&rn);
	if (ret == 0)
		ret = run_reap(&rn, &wstatus, &ru);
	if (ret < 0)
		goto out;
	run_collect(&rn, wstatus, &ru);
out:
	run_release(&rn);
	if (ret < 0)
		runner_result_release(res);
	return ret;
}

void runner_result_release(struct runner_result *res)
{
	if (!res)
		return;
	free(res->output);
	res->output = NULL;
	profile_free(res->profile);
	res->profile = NULL;
	res->output_len = 0;
}
