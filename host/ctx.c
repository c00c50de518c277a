/* SPDX-License-Identifier: MIT */
/* The host context: lock, journal, set/get and undo; see host.h. */
#include "knob.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "env.h"
#include "layout.h" /* STATEDIR: one definition for both layouts */
#include "util.h"


static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return err_errno("cannot open '%s'", dir);
	if (fsync(fd) < 0)
		ret = err_errno("cannot fsync '%s'", dir);
	close(fd);
	return ret;
}

static int lock_take(struct host_ctx *ctx)
{
	char pid[32] = "";
	int fd, n;

	struct stat st;
	char why[128];

	/* Root-only: the journal and the lock steer what gets written to
	 * /sys on the next start. */
	if (mkdir(ctx->state_dir, 0700) < 0 && errno != EEXIST)
		return err_errno("cannot create '%s'", ctx->state_dir);
	if (lstat(ctx->state_dir, &st) < 0)
		return err_errno("cannot stat '%s'", ctx->state_dir);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return err_code(-EPERM,
				"the state directory '%s' is %s: its journal "
				"could set any host knob; remove it (vmtax "
				"makes it again, root-only)",
				ctx->state_dir,
				S_ISDIR(st.st_mode) ? "not owned by root"
						    : "not a directory");
	if (chmod(ctx->state_dir, 0700) < 0)
		return err_errno("cannot make '%s' root-only", ctx->state_dir);
	fd = open(ctx->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		return err_errno("cannot open '%s'", ctx->lock_path);
	/* checked before its PID is read or it is truncated */
	if (fstat(fd, &st) < 0 || !stat_ours_file(&st, why, sizeof(why))) {
		close(fd);
		return err_code(-EPERM, "the lock '%s' is %s: remove it",
				ctx->lock_path, why);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		strstrip(pid);
		close(fd);
		if (e == EWOULDBLOCK)
			return err_code(-EBUSY,
					"another vmtax (pid %s) holds '%s'",
					*pid ? pid : "unknown", ctx->lock_path);
		errno = e;
		return err_errno("cannot lock '%s'", ctx->lock_path);
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, n, 0) != n) {
		int ret = err_errno("cannot write '%s'", ctx->lock_path);

		close(fd);
		return ret;
	}
	ctx->lock_fd = fd;
	return 0;
}

/*
 * Create the journal in the state directory (0600), durably: truncated
 * only once it is known to be a file of one name, ours (a hard link's
 * other name could be any file).
 */
static int journal_open(struct host_ctx *ctx)
{
	struct stat st;
	char why[128];
	int ret = 0;

	if (ctx->journal_fd >= 0)
		return 0;
	ctx->journal_fd = open(ctx->journal,
			       O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
				   O_NONBLOCK | O_CLOEXEC,
			       0600);
	if (ctx->journal_fd < 0)
		return err_errno("cannot create '%s'", ctx->journal);
	if (fstat(ctx->journal_fd, &st) < 0)
		ret = err_errno("cannot stat '%s'", ctx->journal);
	else if (!stat_ours_file(&st, why, sizeof(why)))
		ret = err_code(-EPERM,
			       "the journal '%s' is %s: not written; remove "
			       "it",
			       ctx->journal, why);
	else if (ftruncate(ctx->journal_fd, 0) < 0 ||
		 fchmod(ctx->journal_fd, 0600) < 0 ||
		 fsync(ctx->journal_fd) < 0)
		ret = err_errno("cannot create '%s'", ctx->journal);
	if (ret == 0)
		ret = fsync_dir(ctx->state_dir);
	if (ret < 0) {
		close(ctx->journal_fd);
		ctx->journal_fd = -1;
	}
	return ret;
}

static void journal_remove(struct host_ctx *ctx)
{
	if (ctx->journal_fd >= 0)
		close(ctx->journal_fd);
	ctx->journal_fd = -1;
	if (unlink(ctx->journal) < 0 && errno != ENOENT)
		warn("cannot remove '%s': %s", ctx->journal, strerror(errno));
	fsync_dir(ctx->state_dir);
}

/* Journal KNOB's original value, durably, and add the in-memory record. */
static int journal_record(struct host_ctx *ctx, const struct host_knob *k,
			  const char *original)
{
	struct host_record *rec;
	char line[256];
	int n, ret;

	if (ctx->nrecords >= HOST_MAX_RECORDS)
		return err_code(-ENOSPC, "too many host changes to journal");
	ret = journal_open(ctx);
	if (ret < 0)
		return ret;
	n = snprintf(line, sizeof(line), "%s\t%s\n", k->name, original);
	if (write(ctx->journal_fd, line, n) != n)
		return err_errno("cannot write '%s'", ctx->journal);
	if (fsync(ctx->journal_fd) < 0)
		return err_errno("cannot fsync '%s'", ctx->journal);

	rec = &ctx->records[ctx->nrecords];
	rec->knob = *k;
	snprintf(rec->original, sizeof(rec->original), "%s", original);
	rec->path[0] = '\0';
	if (k->file[0])
		snprintf(rec->path, sizeof(rec->path), "%s%s", ctx->root,
			 k->file);
	ctx->nrecords = ctx->nrecords + 1;
	return 0;
}

/* Put K back to VALUE if it is not there already. */
static int knob_put_back(struct host_ctx *ctx, const struct host_knob *k,
			 const char *value)
{
	char cur[HOST_VALUE_MAX];
	int ret;

	ret = k->ops->read(k, ctx, cur, sizeof(cur));
	if (ret < 0)
		return ret;
	if (!strcmp(cur, value))
		return 0;
	ret = k->ops->apply(k, ctx, value);
	if (ret < 0)
		return err_code(ret, "cannot restore '%s' to '%s'", k->name,
				value);
	note("restored '%s' to '%s' (was '%s')", k->name, value, cur);
	return 0;
}

/*
 * The journal left in the state directory, opened for reading into *FD
 * (-1: there is none), or refused: one this vmtax did not write (another
 * owner, writable by group or others, a link) is never replayed, and nor
 * is the STATE/journal link of an older vmtax, whose journal lived in a
 * run directory anyone could have rewritten.
 */
static int journal_stale_open(struct host_ctx *ctx, int *fd)
{
	static const char fix[] =
		"not replayed (whoever wrote it could set any host knob); "
		"check the settings it lists, put back by hand any this "
		"host needs, and remove it";
	struct stat st;
	char why[128];

	*fd = -1;
	if (lstat(ctx->link_path, &st) == 0)
		return err_code(-EPERM,
				"'%s' is an older vmtax's link to a journal "
				"outside the state directory: %s",
				ctx->link_path, fix);
	*fd = open(ctx->journal,
		   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT)
		return 0;
	if (*fd < 0)
		return err_errno("cannot open the journal '%s' (%s)",
				 ctx->journal, errno == ELOOP ? fix : "");
	if (fstat(*fd, &st) < 0)
		return err_errno("cannot stat '%s'", ctx->journal);
	if (stat_ours_file(&st, why, sizeof(why)))
		return 0;
	close(*fd);
	*fd = -1;
	return err_code(-EPERM, "the journal '%s' is %s: %s", ctx->journal,
			why, fix);
}

/*
 * Restore the journal left in the state directory, if any.  Called with
 * the lock held, so its writer is dead.  The journal stays when anything
 * fails.  Returns the number of journal lines restored.
 */
/* One journal line LINE ("KNOB<tab>VALUE") put back on the host. */
static int put_back_line(struct host_ctx *ctx, char *line)
{
	struct host_knob k;
	char *tab = strchr(line, '\t');
	char why[512];

	if (!tab)
		return err("'%s': malformed line '%s'", ctx->journal, line);
	*tab = '\0';
	if (host_knob_resolve(line, &k, why, sizeof(why)) < 0)
		return err("'%s': %s", ctx->journal, why);
	return knob_put_back(ctx, &k, tab + 1);
}

static int restore_stale(struct host_ctx *ctx)
{
	char *text = NULL, *line, *save = NULL, fdpath[64];
	char *lines[HOST_MAX_RECORDS * 4];
	size_t n = 0, i;
	int ret, r, fd;

	ret = journal_stale_open(ctx, &fd);
	if (ret < 0 || fd < 0)
		goto out;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	ret = read_file(fdpath, 1 << 20, &text, NULL);
	if (ret < 0) {
		err_code(ret, "cannot read the stale journal '%s'",
			 ctx->journal);
		goto out;
	}
	note("restoring host settings from '%s', left by a vmtax run that did "
	     "not finish",
	     ctx->journal);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (n < ARRAY_SIZE(lines))
			lines[n++] = line;
	ret = 0;
	for (i = n; i-- > 0;) {
		r = put_back_line(ctx, lines[i]);
		ret = ret ? ret : r;
	}
	if (ret < 0) {
		err("the stale journal '%s' is kept; fix the above and run "
		    "'vmtax host restore'",
		    ctx->journal);
		goto out;
	}
	if (unlink(ctx->journal) < 0 && errno != ENOENT)
		warn("cannot remove '%s': %s", ctx->journal, strerror(errno));
	fsync_dir(ctx->state_dir);
	ret = (int)n;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return ret;
}

/* The guts of host_ctx_new(); *RESTORED gets the stale lines restored. */
static int ctx_new(const struct host_opts *o, struct host_ctx **out,
		   int *restored)
{
	struct host_ctx *ctx = xcalloc(1, sizeof(*ctx));
	const char *env_root = getenv(ENV_HOST_ROOT); /* tests' fake tree */
	int ret;

	*out = NULL;
	ctx->lock_fd = -1;
	ctx->journal_fd = -1;
	ctx->root = xstrdup(o->root ? o->root : env_root ? env_root : "");
	ctx->state_dir =
	    xstrdup(o->state_dir ? o->state_dir : layout_dirs()->statedir);
	ctx->lock_path = xasprintf("%s/lock", ctx->state_dir);
	ctx->link_path = xasprintf("%s/journal", ctx->state_dir);
	ctx->journal = xasprintf("%s/host-journal", ctx->state_dir);
	ctx->modules = o->modules ? o->modules : &host_kmod_ops;
	ctx->modules_arg = o->modules_arg;
	ctx->list_vms = o->list_vms;
	ctx->list_vms_arg = o->list_vms_arg;
	ctx->vm_drain_s = o->vm_drain_s;
	ctx->readonly = o->readonly;
	if (!ctx->readonly) {
		ret = lock_take(ctx);
		if (ret < 0)
			goto out;
		ret = restore_stale(ctx);
		if (ret < 0)
			goto out;
		*restored = ret;
	}
	*out = ctx;
	ctx = NULL;
	ret = 0;
out:
	host_ctx_free(ctx);
	return ret;
}

int host_ctx_new(const struct host_opts *o, struct host_ctx **out)
{
	int restored = 0;

	return ctx_new(o, out, &restored);
}

void host_ctx_free(struct host_ctx *ctx)
{
	if (!ctx)
		return;
	/* An error, not a warning: --quiet keeps it, and the user must act */
	if (ctx->nrecords && host_restore(ctx) < 0)
		err("host settings not fully restored; the journal '%s' is "
		    "kept for 'vmtax host restore'",
		    ctx->journal);
	if (ctx->journal_fd >= 0)
		close(ctx->journal_fd);
	if (ctx->lock_fd >= 0)
		close(ctx->lock_fd);
	free(ctx->root);
	free(ctx->state_dir);
	free(ctx->lock_path);
	free(ctx->link_path);
	free(ctx->journal);
	free(ctx);
}

bool host_supported(struct host_ctx *ctx, const char *knob, const char *value,
		    char *why, size_t len)
{
	struct host_knob k;

	if (host_knob_resolve(knob, &k, why, len) < 0)
		return false;
	return k.ops->supported(&k, ctx, value, why, len);
}

/* Resolve KNOB into K, reporting why not. */
static int knob_or_err(const char *knob, struct host_knob *k)
{
	char why[512];

	if (host_knob_resolve(knob, k, why, sizeof(why)) < 0)
		return err("%s", why);
	return 0;
}

int host_get(struct host_ctx *ctx, const char *knob, char *buf, size_t len)
{
	struct host_knob k;
	int ret = knob_or_err(knob, &k);

	if (ret < 0)
		return ret;
	return k.ops->read(&k, ctx, buf, len);
}

int host_set(struct host_ctx *ctx, const char *knob, const char *value)
{
	char cur[HOST_VALUE_MAX], why[512];
	struct host_knob k;
	sig_atomic_t i;
	bool recorded = false;
	int ret;

	ret = knob_or_err(knob, &k);
	if (ret < 0)
		return ret;
	if (ctx->readonly)
		return err_code(
		    -EPERM, "cannot set '%s': read-only host context", knob);
	if (!k.ops->supported(&k, ctx, value, why, sizeof(why)))
		return err_code(-EOPNOTSUPP, "cannot set '%s' to '%s': %s",
				knob, value, why);
	ret = k.ops->read(&k, ctx, cur, sizeof(cur));
	if (ret < 0)
		return ret;
	if (!strcmp(cur, value))
		return 0;
	for (i = 0; i < ctx->nrecords; i++)
		if (!strcmp(ctx->records[i].knob.name, k.name))
			recorded = true;
	if (!recorded) {
		ret = journal_record(ctx, &k, cur);
		if (ret < 0)
			return ret;
	}
	return k.ops->apply(&k, ctx, value);
}

int host_restore(struct host_ctx *ctx)
{
	int ret = 0, r;
	sig_atomic_t i;

	if (!ctx->nrecords)
		return 0;
	for (i = ctx->nrecords; i-- > 0;) {
		const struct host_record *rec = &ctx->records[i];

		r = knob_put_back(ctx, &rec->knob, rec->original);
		ret = ret ? ret : r;
	}
	if (ret < 0)
		return ret;
	ctx->nrecords = 0;
	journal_remove(ctx);
	return 0;
}

int host_restore_async(struct host_ctx *ctx)
{
	bool all = true;
	sig_atomic_t i;

	for (i = ctx->nrecords; i-- > 0;) {
		const struct host_record *rec = &ctx->records[i];
		size_t n = strlen(rec->original);
		ssize_t w;
		int fd;

		if (!rec->path[0]) {
			all = false;
			continue;
		}
		fd = open(rec->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			all = false;
			continue;
		}
		w = write(fd, rec->original, n);
		if (close(fd) < 0 || w != (ssize_t)n)
			all = false;
	}
	if (!all)
		return -1;
	/* Everything is back; a journal left now would only be replayed. */
	unlink(ctx->journal);
	return 0;
}

int host_restore_stale(const struct host_opts *o)
{
	struct host_opts opts = *o;
	struct host_ctx *ctx;
	int ret, restored = 0;

	opts.readonly = false;
	ret = ctx_new(&opts, &ctx, &restored);
	host_ctx_free(ctx);
	return ret < 0 ? ret : restored;
}
