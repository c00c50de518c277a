/* SPDX-License-Identifier: MIT */
#include "guest-reach.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "util.h"

void qemu_conf_user(const char *text, char *buf, size_t len)
{
	const char *p = text;

	snprintf(buf, len, "%s", QEMU_USER_DEFAULT);
	while (p && *p) {
		const char *q = p + strspn(p, " \t"), *v, *e;

		if (!strncmp(q, "user", 4) && strchr(" \t=", q[4])) {
			q += 4 + strspn(q + 4, " \t");
			if (*q == '=') {
				q++;
				q += strspn(q, " \t");
				v = *q == '"' ? q + 1 : q;
				e = v + strcspn(v, "\"\n \t");
				if (e > v)
					snprintf(buf, len, "%.*s", (int)(e - v),
						 v);
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

struct qemu_user {
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* 1 when the user exists and we can act as it, 0 when not to check. */
static int qemu_user_get(struct qemu_user *u)
{
	char *text = NULL;
	struct passwd *pw;

	if (geteuid() != 0)
		return 0;
	if (read_file(QEMU_CONF, 1 << 20, &text, NULL) == 0) {
		qemu_conf_user(text, u->name, sizeof(u->name));
		free(text);
	} else {
		snprintf(u->name, sizeof(u->name), "%s", QEMU_USER_DEFAULT);
	}
	pw = u->name[0] == '+' ? getpwuid((uid_t)atol(u->name + 1))
			       : getpwnam(u->name);
	if (!pw)
		return 0;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 1;
}

/*
 * As U, walk from / to PATH's directory (or PATH itself when IS_DIR) and
 * return 0, or 1 with the first directory U cannot traverse in BLOCKER;
 * -errno when the check itself failed.  Files are not checked: libvirt
 * chowns what QEMU opens (the overlays too: vmtax creates them as root,
 * QEMU never creates files there).
 */
static int reach_as(const struct qemu_user *u, const char *path, bool is_dir,
		    char *blocker, size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds) < 0)
		return err_errno("cannot create a pipe");
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_errno("cannot fork");
	}
	if (pid == 0) {
		char dir[4096], *s;

		close(fds[0]);
		if (initgroups(u->name, u->gid) < 0 ||
		    setresgid(u->gid, u->gid, u->gid) < 0 ||
		    setresuid(u->uid, u->uid, u->uid) < 0)
			_exit(2);
		snprintf(dir, sizeof(dir), "%s", path);
		if (!is_dir && (s = strrchr(dir, '/')))
			*(s == dir ? s + 1 : s) = '\0';
		for (s = dir + 1;; s++) {
			char c = *s;

			if (c != '/' && c != '\0')
				continue;
			*s = '\0';
			if (access(dir, X_OK) < 0) {
				(void)!write(fds[1], dir, strlen(dir));
				_exit(1);
			}
			if (!c)
				break;
			*s = c;
		}
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], blocker, len - 1);
	blocker[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0)
		return err_errno("cannot wait for the access check");
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return err("cannot act as user '%s' to check '%s'", u->name,
			   path);
	return WEXITSTATUS(status);
}

static int copy_file(const char *from, const char *to)
{
	char *tmp = xasprintf("%s.tmp.%d", to, (int)getpid()), buf[1 << 16];
	int in = -1, out = -1, ret = -1;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = err_errno("cannot open '%s'", from);
		goto out;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = err_errno("cannot create '%s'", tmp);
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			ret = err_errno("cannot write '%s'", tmp);
			goto out;
		}
	if (n < 0 || fsync(out) < 0 || rename(tmp, to) < 0) {
		ret = err_errno("cannot copy '%s' to '%s'", from, to);
		goto out;
	}
	ret = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* STAGE/basename(PATH): a hard link to PATH, else a copy; reused when it
 * already is the same file (same inode, or same size and mtime). */
static int stage(const char *path, const char *stage_dir, char **out)
{
	const char *base = path_base(path);
	char *dst = xasprintf("%s/%s", stage_dir, base);
	char *tmp = xasprintf("%s.link.%d", dst, (int)getpid());
	struct stat a, b;
	int ret = 0;

	if (stat(path, &a) < 0) {
		ret = err_errno("cannot stat '%s'", path);
		goto out;
	}
	if (stat(dst, &b) == 0 &&
	    ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
	     (a.st_size == b.st_size && a.st_mtime == b.st_mtime)))
		goto done;
	unlink(tmp);
	if (link(path, tmp) == 0) {
		if (rename(tmp, dst) < 0) {
			ret = err_errno("cannot rename '%s'", tmp);
			unlink(tmp);
			goto out;
		}
	} else {
		note("copying '%s' to '%s' (QEMU cannot reach it)", path, dst);
		if ((ret = copy_file(path, dst)) < 0)
			goto out;
	}
done:
	*out = dst;
	dst = NULL;
out:
	free(dst);
	free(tmp);
	return ret;
}

static int refuse(const struct qemu_user *u, const char *path,
		  const char *blocker)
{
	struct stat st;
	struct passwd *pw;
	char own[64] = "?";

	if (stat(blocker, &st) < 0)
		return err_code(-EACCES,
				"QEMU (user '%s') cannot reach '%s' ('%s')",
				u->name, path, blocker);
	pw = getpwuid(st.st_uid);
	snprintf(own, sizeof(own), "%s", pw ? pw->pw_name : "?");
	err("QEMU (user '%s') cannot reach '%s': '%s' is mode %04o, owner %s; "
	    "move the checkout out of it or chmod o+x '%s'",
	    u->name, path, blocker, (unsigned)(st.st_mode & 07777), own,
	    blocker);
	return -EACCES;
}

/* Make *PATH (a file; IS_DIR: a directory QEMU writes in) reachable. */
static int reach_one(const struct qemu_user *u, char **path, bool is_dir,
		     const char *stage_dir)
{
	char blocker[4096], *staged = NULL;
	int ret;

	ret = reach_as(u, *path, is_dir, blocker, sizeof(blocker));
	if (ret <= 0)
		return ret;
	if (mkdir_parents(stage_dir, 0755) < 0)
		return err_errno("cannot create '%s'", stage_dir);
	if (is_dir) {
		staged = xasprintf("%s/overlays", stage_dir);
		if (mkdir(staged, 0755) < 0 && errno != EEXIST) {
			ret = err_errno("cannot create '%s'", staged);
			free(staged);
			return ret;
		}
		guest_overlays_sweep(staged);
	} else if ((ret = stage(*path, stage_dir, &staged)) < 0) {
		return ret;
	}
	ret = reach_as(u, staged, is_dir, blocker, sizeof(blocker));
	if (ret < 0 || (ret > 0 && (ret = refuse(u, staged, blocker)) < 0)) {
		free(staged);
		return ret;
	}
	free(*path);
	*path = staged;
	return 0;
}

int guest_files_reach(struct guest_files *f, const char *stage_dir)
{
	struct qemu_user u;
	int ret = 0;

	if (!qemu_user_get(&u))
		return 0;
	if (f->kernel &&
	    (ret = reach_one(&u, &f->kernel, false, stage_dir)) < 0)
		return ret;
	if (f->initrd &&
	    (ret = reach_one(&u, &f->initrd, false, stage_dir)) < 0)
		return ret;
	if (f->disk && (ret = reach_one(&u, &f->disk, false, stage_dir)) < 0)
		return ret;
	if (f->overlay_dir &&
	    (ret = reach_one(&u, &f->overlay_dir, true, stage_dir)) < 0)
		return ret;
	return 0;
}

int guest_files_reach_for(struct guest_files *f, const char *uri)
{
	const char *dir = getenv(ENV_STAGE_DIR);

	if (!uri || strcmp(uri, "qemu:///system"))
		return 0;
	return guest_files_reach(f, dir && *dir ? dir : GUEST_STAGE_DIR);
}
