/* SPDX-License-Identifier: MIT */
/* image-step.c - running an image build's steps (image-step.h). */
#include "image-step.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

bool image_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/*
 * Run ARGV, its output appended to LOG (NULL: to our stderr), and wait, with a
 * progress line every HEARTBEAT_S.  STEP names it in messages.
 */
int image_step_run(const char *step, char *const argv[], const char *log)
{
	double t0 = mono_now(), next = t0 + HEARTBEAT_S;
	int status, fd;
	pid_t pid, w;

	pid = fork();
	if (pid < 0)
		return err_errno("image: %s: cannot fork", step);
	if (pid == 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		if (log) {
			fd =
			    open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				 0644);
			if (fd < 0)
				_exit(126);
			dup2(fd, 1);
			dup2(fd, 2);
		} else {
			/* stdout carries only the result paths */
			dup2(2, 1);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return err_errno("image: %s: cannot wait for '%s'",
					 step, argv[0]);
		poll(NULL, 0, 500);
		if (mono_now() >= next) {
			note("image: %s: still running, %.0f s", step,
			     mono_now() - t0);
			next += HEARTBEAT_S;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return err("image: %s: cannot run '%s' (is it installed?)",
			   step, argv[0]);
	if (WIFEXITED(status))
		return err("image: %s: '%s' failed with status %d%s%s%s", step,
			   argv[0], WEXITSTATUS(status), log ? " (see '" : "",
			   log ? log : "", log ? "')" : "");
	return err("image: %s: '%s' killed by signal %d", step, argv[0],
		   WTERMSIG(status));
}

/* Show the last lines of LOG after a failed step: the why is usually there. */
void image_log_tail(const char *log, int lines)
{
	char *text = NULL, *p;
	size_t len = 0;

	if (read_file(log, 64 << 20, &text, &len) < 0 || !len)
		goto out;
	p = text + len - 1;
	while (p > text && lines >= 0)
		if (*--p == '\n')
			lines--;
	note("image: last lines of '%s':\n%s", log, p == text ? p : p + 1);
out:
	free(text);
}

/* rm -rf PATH, for our own temporary trees under the image directory. */
int image_remove_tree(const char *path)
{
	char *const argv[] = {"rm", "-rf", "--one-file-system", (char *)path,
			      NULL};

	if (!image_exists(path))
		return 0;
	return image_step_run("cleanup", argv, NULL);
}
